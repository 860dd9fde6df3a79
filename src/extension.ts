// The VS Code extension entry. Filled in by the extension issue; until then activation is a no-op
// so the bundle and manifest stay valid.
export function activate(): void {
  /* the engine client, MCP provider and views are registered here (extension issue) */
}
export function deactivate(): void {
  /* nothing owned yet */
}
