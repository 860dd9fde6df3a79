; Call sites: `foo()`, `x.foo()`; @name is the called name.
(call function: (identifier) @name) @match
(call function: (attribute attribute: (identifier) @name)) @match
