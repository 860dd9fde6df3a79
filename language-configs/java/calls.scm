; Call sites: `foo()`, `x.foo()`, `new Foo()`; @name is the called name.
(method_invocation name: (identifier) @name) @match
(object_creation_expression type: (type_identifier) @name) @match
