; Call sites: `Foo()`, `x.Foo()`; @name is the called name.
(call_expression function: (identifier) @name) @match
(call_expression function: (selector_expression field: (field_identifier) @name)) @match
