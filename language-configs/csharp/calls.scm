; Call sites: `Foo()`, `x.Foo()`, `x?.Foo()`, `Foo<T>()`, `new Foo()`; @name is the called name.
(invocation_expression function: (identifier) @name) @match
(invocation_expression function: (generic_name (identifier) @name)) @match
(invocation_expression function: (member_access_expression name: (identifier) @name)) @match
(invocation_expression function: (member_access_expression name: (generic_name (identifier) @name))) @match
(invocation_expression function: (conditional_access_expression (member_binding_expression name: (identifier) @name))) @match
(object_creation_expression type: (identifier) @name) @match
(object_creation_expression type: (generic_name (identifier) @name)) @match
(object_creation_expression type: (qualified_name name: (identifier) @name)) @match
