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
 * Expands a named query shipped in the language folder (`@calls` → `calls.scm`); `@calls:Name`
 * also pins the `@name` capture of every pattern to `Name`. Other text is returned unchanged.
 * Throws INVALID_QUERY for an unknown name.
 */
export function expandNamedQuery(config: LanguageConfig, source: string): string {
  const m = /^@([A-Za-z_][\w-]*)(?::(\S+))?$/.exec(source.trim());
  if (!m) return source;
  const name = m[1] ?? '';
  const body = config.queries[name];
  if (body === undefined) {
    const known = Object.keys(config.queries);
    throw new ToolError('INVALID_QUERY', `No named query '@${name}' for ${config.id}`, known.length ? `named queries: ${known.map((k) => '@' + k).join(', ')}; or write a tree-sitter query` : 'write a tree-sitter query, e.g. (method_declaration name: (identifier) @name) @match');
  }
  const pinned = m[2];
  if (!pinned) return body;
  const lit = JSON.stringify(pinned);
  return splitTopLevelPatterns(body)
    .map((p) => `(${p} (#eq? @name ${lit}))`)
    .join('\n');
}

/** The top-level patterns of a query, each with its trailing captures and quantifiers; comments dropped. */
export function splitTopLevelPatterns(query: string): string[] {
  const out: string[] = [];
  let i = 0;
  const n = query.length;
  while (i < n) {
    const c = query[i];
    if (c === ';') {
      const e = query.indexOf('\n', i);
      i = e < 0 ? n : e + 1;
      continue;
    }
    if (c !== '(' && c !== '[' && c !== '"') {
      i++;
      continue;
    }
    const start = i;
    let depth = 0;
    let inString = false;
    for (; i < n; i++) {
      const ch = query[i];
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') {
          inString = false;
          if (depth === 0) {
            i++;
            break;
          }
        }
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === ';') {
        const e = query.indexOf('\n', i);
        i = e < 0 ? n - 1 : e;
      } else if (ch === '(' || ch === '[') depth++;
      else if (ch === ')' || ch === ']') {
        depth--;
        if (depth === 0) {
          i++;
          break;
        }
      }
    }
    // trailing quantifiers and captures
    const tail = /^(?:\s*[*+?])?(?:\s*@[\w.-]+)*/.exec(query.slice(i));
    i += tail ? tail[0].length : 0;
    out.push(query.slice(start, i).trim());
  }
  return out;
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
