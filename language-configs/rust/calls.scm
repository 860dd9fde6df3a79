; Call sites: `foo()`, `x.foo()`, `Foo::bar()`, `foo!()`; @name is the called name.
(call_expression function: (identifier) @name) @match
(call_expression function: (field_expression field: (field_identifier) @name)) @match
(call_expression function: (scoped_identifier name: (identifier) @name)) @match
(macro_invocation macro: (identifier) @name) @match
