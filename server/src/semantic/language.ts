/**
 * Language ids of the semantic layer (the LSP / VS Code language identifiers) by file extension.
 */
const BY_EXTENSION: Record<string, string> = {
  '.cs': 'csharp',
  '.csx': 'csharp',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'typescriptreact',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascriptreact',
};

/** The language id of a path ('csharp', 'typescript', …), or undefined when none is known. */
export function languageOfPath(path: string, extra?: Readonly<Record<string, string>>): string | undefined {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return undefined;
  const ext = path.slice(dot).toLowerCase();
  return extra?.[ext] ?? BY_EXTENSION[ext];
}
