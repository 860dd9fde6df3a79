/**
 * LSP ↔ plain data. LSP positions are 0-based with UTF-16 character offsets; ours are 1-based
 * (columns still UTF-16 code units). URIs become workspace-relative POSIX paths, or absolute
 * paths marked `external` when they point outside the workspace.
 */
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as lsp from 'vscode-languageserver-protocol';
import { toPosix } from '../../core/paths';
import type { DocumentSymbolNode, HierarchyItem, SemanticDocumentation, SemanticLocation, SourcePosition, Span, WorkspaceSymbolRow } from '../types';
import { symbolKindName, symbolKindNumber } from '../types';

/** Maps between workspace paths and file URIs for one workspace root (already canonical). */
export class UriMapper {
  constructor(readonly root: string) {}

  /** Workspace-relative POSIX path → file URI. */
  toUri(rel: string): string {
    return pathToFileURL(path.join(this.root, rel)).href;
  }

  absToUri(abs: string): string {
    return pathToFileURL(abs).href;
  }

  /** URI → path: workspace-relative when inside the root, absolute (and external) otherwise. */
  fromUri(uri: string): { path: string; external: boolean } {
    let abs: string;
    try {
      abs = fileURLToPath(uri);
    } catch {
      return { path: uri, external: true };
    }
    const rel = path.relative(this.root, abs);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return { path: toPosix(abs), external: true };
    return { path: toPosix(rel), external: false };
  }
}

export function toSpan(r: lsp.Range): Span {
  return { line: r.start.line + 1, column: r.start.character + 1, endLine: r.end.line + 1, endColumn: r.end.character + 1 };
}

export function fromSpan(s: Span): lsp.Range {
  return {
    start: { line: s.line - 1, character: s.column - 1 },
    end: { line: s.endLine - 1, character: s.endColumn - 1 },
  };
}

export function toLspPosition(p: SourcePosition): lsp.Position {
  return { line: Math.max(0, p.line - 1), character: Math.max(0, p.column - 1) };
}

function locate(m: UriMapper, uri: string, selection: lsp.Range, full?: lsp.Range): SemanticLocation {
  const where = m.fromUri(uri);
  const loc: SemanticLocation = { path: where.path, ...toSpan(selection) };
  if (where.external) loc.external = true;
  if (full && !sameRange(full, selection)) loc.fullSpan = toSpan(full);
  return loc;
}

/** Definition / implementation / references results: Location | Location[] | LocationLink[] | null. */
export function toLocations(m: UriMapper, result: lsp.Location | lsp.Location[] | lsp.LocationLink[] | null | undefined): SemanticLocation[] {
  if (!result) return [];
  const list = Array.isArray(result) ? result : [result];
  const out: SemanticLocation[] = [];
  for (const r of list as (lsp.Location | lsp.LocationLink)[]) {
    if ('targetUri' in r) out.push(locate(m, r.targetUri, r.targetSelectionRange, r.targetRange));
    else out.push(locate(m, r.uri, r.range));
  }
  return out;
}

export function toHierarchyItem(m: UriMapper, item: lsp.CallHierarchyItem | lsp.TypeHierarchyItem, origin: string): HierarchyItem {
  const loc = locate(m, item.uri, item.selectionRange, item.range);
  const out: HierarchyItem = { ...loc, name: item.name, kind: symbolKindName(item.kind), origin, data: item };
  if (item.detail) out.detail = item.detail;
  return out;
}

/** Back to the LSP item: the original when this provider made it, else rebuilt from the plain fields. */
export function fromHierarchyItem(m: UriMapper, item: HierarchyItem, origin: string): lsp.CallHierarchyItem {
  if (item.origin === origin && item.data && typeof item.data === 'object' && 'uri' in item.data) return item.data as lsp.CallHierarchyItem;
  const selectionRange = fromSpan(item);
  const rebuilt: lsp.CallHierarchyItem = {
    name: item.name,
    kind: symbolKindNumber(item.kind) as lsp.SymbolKind,
    uri: item.external ? m.absToUri(item.path) : m.toUri(item.path),
    range: item.fullSpan ? fromSpan(item.fullSpan) : selectionRange,
    selectionRange,
  };
  if (item.detail) rebuilt.detail = item.detail;
  return rebuilt;
}

/** Outline in source order (servers differ: typescript-language-server sorts by name). */
export function toDocumentSymbols(m: UriMapper, result: (lsp.DocumentSymbol | lsp.SymbolInformation)[] | null | undefined): DocumentSymbolNode[] {
  if (!result) return [];
  return sortBySpan(result.map((s) => {
    if ('location' in s) {
      const span = toSpan(s.location.range);
      const node: DocumentSymbolNode = { name: s.name, kind: symbolKindName(s.kind), span, selection: span, children: [] };
      if (s.containerName) node.detail = s.containerName;
      return node;
    }
    return toDocumentSymbol(s);
  }));
}

function sortBySpan(nodes: DocumentSymbolNode[]): DocumentSymbolNode[] {
  return nodes.sort((a, b) => a.span.line - b.span.line || a.span.column - b.span.column);
}

function toDocumentSymbol(s: lsp.DocumentSymbol): DocumentSymbolNode {
  const node: DocumentSymbolNode = {
    name: s.name,
    kind: symbolKindName(s.kind),
    span: toSpan(s.range),
    selection: toSpan(s.selectionRange),
    children: sortBySpan((s.children ?? []).map(toDocumentSymbol)),
  };
  if (s.detail) node.detail = s.detail;
  return node;
}

export function toWorkspaceSymbols(m: UriMapper, result: (lsp.SymbolInformation | lsp.WorkspaceSymbol)[] | null | undefined): WorkspaceSymbolRow[] {
  if (!result) return [];
  const out: WorkspaceSymbolRow[] = [];
  for (const s of result) {
    const loc = s.location;
    let location: SemanticLocation;
    if ('range' in loc) location = locate(m, loc.uri, loc.range);
    else {
      const where = m.fromUri(loc.uri);
      location = { path: where.path, line: 1, column: 1, endLine: 1, endColumn: 1 };
      if (where.external) location.external = true;
    }
    const row: WorkspaceSymbolRow = { name: s.name, kind: symbolKindName(s.kind), location };
    if (s.containerName) row.containerName = s.containerName;
    out.push(row);
  }
  return out;
}

function sameRange(a: lsp.Range, b: lsp.Range): boolean {
  return a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
}

/** A hover's contents as documentation text (markdown unless the server sent plain text); null when empty. */
export function hoverDocumentation(h: lsp.Hover | null | undefined): SemanticDocumentation | null {
  if (!h) return null;
  const parts = Array.isArray(h.contents) ? h.contents : [h.contents];
  let format: SemanticDocumentation['format'] = 'markdown';
  const texts: string[] = [];
  for (const c of parts) {
    if (typeof c === 'string') texts.push(c);
    else if ('kind' in c) {
      texts.push(c.value);
      if (c.kind === 'plaintext' && parts.length === 1) format = 'plaintext';
    } else texts.push('```' + c.language + '\n' + c.value + '\n```');
  }
  const text = texts.filter((t) => t.trim() !== '').join('\n\n');
  return text.trim() ? { text, format } : null;
}
