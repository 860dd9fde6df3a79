; Module references (file_dependencies): the form capture (@import, @export, @require, @import_equals,
; @dynamic) is the specifier node; @name is the same node, so `@modules:"x"` pins the text as written.
(import_statement source: (_) @import @name)
(import_statement (import_require_clause source: (_) @import_equals @name))
(export_statement source: (_) @export @name)
(call_expression function: (import) arguments: (arguments . (_) @dynamic @name))
(call_expression function: (identifier) @_fn arguments: (arguments . (_) @require @name) (#eq? @_fn "require"))
