/**
 * Structural search: a tree-sitter query run over parsed files. Matches are grouped by a primary
 * capture (the one named by the caller, else `@match`, else the pattern's first capture): one row
 * per primary node, with the other captures listed under it. Bounded per file by the query
 * cursor's match limit and by the caller's row limit; an invalid query is a ToolError carrying the
 * parser's own message.
 */
import type { QueryCapture, Node } from 'web-tree-sitter';
import { ToolError } from '../core/errors';
import { PREVIEW_CHARS, STRUCTURAL_MATCH_LIMIT } from '../core/limits';
import { loadGrammar, Query } from './grammars';
import { languageById, supportedLanguageIds, type LanguageConfig } from './languageConfig';
import { withTree } from './parseFile';

export interface StructuralCapture {
  name: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  text: string;
}

export interface StructuralMatch {
  path: string;
  /** Name of the primary capture. */
  capture: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** First line of the primary node's text, capped. */
  text: string;
  /** The other captures of the match(es) on this primary node. */
  captures: StructuralCapture[];
}

export interface FileMatches {
  matches: StructuralMatch[];
  /** The query cursor gave up on some in-progress matches (tree-sitter match limit). */
  exceededMatchLimit: boolean;
  /** More rows than `maxRows` were available in this file. */
  truncated: boolean;
}

/** A compiled query for one language; dispose when done (it lives in the WASM heap). */
export class StructuralQuery {
  constructor(
    readonly config: LanguageConfig,
    private readonly query: Query,
    readonly primary: string,
  ) {}

  /** Runs the query over one file's text. */
  run(path: string, text: string, maxRows: number): FileMatches {
    return withTree(text, this.config, (tree) => {
      const raw = this.query.matches(tree.rootNode, { matchLimit: Math.min(STRUCTURAL_MATCH_LIMIT, 65_536) });
      const exceeded = this.query.didExceedMatchLimit();
      const rows = new Map<string, StructuralMatch>();
      let truncated = false;
      for (const m of raw) {
        const primary = m.captures.find((c) => c.name === this.primary) ?? m.captures[0];
        if (!primary) continue;
        const key = `${primary.node.startIndex}:${primary.node.endIndex}:${primary.name}`;
        let row = rows.get(key);
        if (!row) {
          if (rows.size >= maxRows) {
            truncated = true;
            break;
          }
          row = { path, capture: primary.name, ...span(primary.node), text: preview(text, primary.node), captures: [] };
          rows.set(key, row);
        }
        for (const c of m.captures) {
          if (c === primary) continue;
          if (row.captures.length >= 16) break;
          const cap = capture(text, c);
          if (!row.captures.some((x) => x.name === cap.name && x.line === cap.line && x.column === cap.column)) row.captures.push(cap);
        }
      }
      return { matches: [...rows.values()], exceededMatchLimit: exceeded, truncated };
    });
  }

  dispose(): void {
    this.query.delete();
  }
}

/**
 * Compiles a query for a language. Throws ToolError: UNSUPPORTED_LANGUAGE for an unknown
 * language, INVALID_QUERY (with tree-sitter's message) for a malformed query.
 */
export async function compileStructuralQuery(languageId: string, source: string, primary?: string): Promise<StructuralQuery> {
  const config = languageById(languageId);
  if (!config) {
    throw new ToolError('UNSUPPORTED_LANGUAGE', `No syntax support for language '${languageId}'`, `use one of: ${supportedLanguageIds().join(', ')}`);
  }
  const lang = await loadGrammar(config);
  let query: Query;
  try {
    query = new Query(lang, source);
  } catch (e) {
    const msg = (e as Error).message || String(e);
    throw new ToolError('INVALID_QUERY', `Invalid tree-sitter query for ${config.id}: ${msg}`, 'check node type and field names with inspect_syntax_tree; a query looks like (method_declaration name: (identifier) @name) @match');
  }
  const names = query.captureNames;
  if (names.length === 0) {
    query.delete();
    throw new ToolError('INVALID_QUERY', 'The query has no captures', 'name the node you want back with @match, e.g. (invocation_expression) @match');
  }
  const chosen = primary ?? (names.includes('match') ? 'match' : (names[0] ?? 'match'));
  if (!names.includes(chosen)) {
    query.delete();
    throw new ToolError('INVALID_QUERY', `The query has no capture @${chosen}`, `captures in the query: ${names.map((n) => '@' + n).join(', ')}`);
  }
  return new StructuralQuery(config, query, chosen);
}

function span(n: Node): { line: number; column: number; endLine: number; endColumn: number } {
  const s = n.startPosition;
  const e = n.endPosition;
  return { line: s.row + 1, column: s.column + 1, endLine: e.row + 1, endColumn: e.column + 1 };
}

function preview(text: string, n: Node): string {
  const raw = text.slice(n.startIndex, Math.min(n.endIndex, n.startIndex + PREVIEW_CHARS * 2));
  const first = (raw.split('\n')[0] ?? '').trim();
  const cut = first.length > PREVIEW_CHARS ? first.slice(0, PREVIEW_CHARS - 1) + '…' : first;
  return raw.includes('\n') ? `${cut} …` : cut;
}

function capture(text: string, c: QueryCapture): StructuralCapture {
  return { name: c.name, ...span(c.node), text: preview(text, c.node) };
}
