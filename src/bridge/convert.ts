/**
 * VS Code objects ↔ the protocol's plain data (workspace-relative POSIX paths, 1-based lines and
 * columns in UTF-16 code units). A location outside the workspace folder keeps its absolute path
 * (or its URI for non-file schemes) and is marked `external`.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  EDITOR_SYMBOL_KINDS,
  type EditorDocumentSymbol,
  type EditorHierarchyItem,
  type EditorLocation,
  type EditorSpan,
  type EditorSymbolKind,
  type EditorWorkspaceSymbol,
} from '../../server/src/protocol/protocol';

/** The protocol's kind name (vscode.SymbolKind is the LSP number minus one). */
export function kindName(kind: vscode.SymbolKind): EditorSymbolKind {
  return EDITOR_SYMBOL_KINDS[kind + 1] ?? 'unknown';
}

/** Maps between one workspace folder's files and protocol paths. */
export class PathMapper {
  private readonly rootFs: string;
  constructor(readonly root: vscode.Uri) {
    this.rootFs = root.fsPath;
  }

  toUri(p: string): vscode.Uri {
    if (/^[a-z][a-z0-9+.-]+:\/\//i.test(p)) return vscode.Uri.parse(p);
    if (path.isAbsolute(p)) return vscode.Uri.file(p);
    return vscode.Uri.joinPath(this.root, ...p.split('/').filter(Boolean));
  }

  fromUri(uri: vscode.Uri): { path: string; external: boolean } {
    if (uri.scheme !== 'file') return { path: uri.toString(), external: true };
    const rel = path.relative(this.rootFs, uri.fsPath);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return { path: uri.fsPath.split(path.sep).join('/'), external: true };
    return { path: rel.split(path.sep).join('/'), external: false };
  }
}

export function toPosition(p: { line: number; column: number }): vscode.Position {
  return new vscode.Position(Math.max(0, p.line - 1), Math.max(0, p.column - 1));
}

export function toSpan(r: vscode.Range): EditorSpan {
  return { line: r.start.line + 1, column: r.start.character + 1, endLine: r.end.line + 1, endColumn: r.end.character + 1 };
}

export function fromSpan(s: EditorSpan): vscode.Range {
  return new vscode.Range(s.line - 1, s.column - 1, s.endLine - 1, s.endColumn - 1);
}

function locate(m: PathMapper, uri: vscode.Uri, selection: vscode.Range, full?: vscode.Range): EditorLocation {
  const where = m.fromUri(uri);
  const loc: EditorLocation = { path: where.path, ...toSpan(selection) };
  if (where.external) loc.external = true;
  if (full && !full.isEqual(selection)) loc.fullSpan = toSpan(full);
  return loc;
}

/** Location | LocationLink (what the execute*Provider commands return) → EditorLocation. */
export function toLocation(m: PathMapper, l: vscode.Location | vscode.LocationLink): EditorLocation {
  if ('targetUri' in l) return locate(m, l.targetUri, l.targetSelectionRange ?? l.targetRange, l.targetRange);
  return locate(m, l.uri, l.range);
}

export function toHierarchyItem(m: PathMapper, item: vscode.CallHierarchyItem | vscode.TypeHierarchyItem, handle: number): EditorHierarchyItem {
  const out: EditorHierarchyItem = { ...locate(m, item.uri, item.selectionRange, item.range), name: item.name, kind: kindName(item.kind), origin: 'editor', data: { handle } };
  if (item.detail) out.detail = item.detail;
  return out;
}

export function toDocumentSymbol(s: vscode.DocumentSymbol): EditorDocumentSymbol {
  const out: EditorDocumentSymbol = {
    name: s.name,
    kind: kindName(s.kind),
    span: toSpan(s.range),
    selection: toSpan(s.selectionRange),
    children: s.children.map(toDocumentSymbol),
  };
  if (s.detail) out.detail = s.detail;
  return out;
}

/** executeDocumentSymbolProvider may return SymbolInformation[] (flat) from older providers. */
export function toDocumentSymbols(list: (vscode.DocumentSymbol | vscode.SymbolInformation)[]): EditorDocumentSymbol[] {
  return list.map((s) =>
    'children' in s
      ? toDocumentSymbol(s)
      : { name: s.name, kind: kindName(s.kind), span: toSpan(s.location.range), selection: toSpan(s.location.range), children: [] },
  );
}

export function toWorkspaceSymbol(m: PathMapper, s: vscode.SymbolInformation): EditorWorkspaceSymbol {
  const out: EditorWorkspaceSymbol = { name: s.name, kind: kindName(s.kind), location: toLocation(m, s.location) };
  if (s.containerName) out.containerName = s.containerName;
  return out;
}

export function locationKey(l: { path: string; line: number; column: number }): string {
  return `${l.path}:${l.line}:${l.column}`;
}

