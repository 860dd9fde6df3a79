; Call sites: `foo()`, `x.foo()`, `x?.foo()`, `new Foo()`; @name is the called name.
(call_expression function: (identifier) @name) @match
(call_expression function: (member_expression property: (property_identifier) @name)) @match
(new_expression constructor: (identifier) @name) @match
(new_expression constructor: (member_expression property: (property_identifier) @name)) @match
