/**
 * search_symbol over the symbols table. The query is matched against the in-memory dictionary of
 * declared names (exact, prefix, substring, camelCase, fuzzy, regex; `qualified` matches the last
 * segment and then the qualified name or documentation id), then the rows of the matching names
 * are read through the name index, filtered, grouped by symbol id (partial types: one symbol, many
 * spans) and ranked: match quality, types before members, handwritten before generated,
 * production before test, shorter qualified name.
 */
import picomatch from 'picomatch';
import { ToolError } from '../core/errors';
import { MAX_REGEX_CHARS, MAX_SPANS_PER_SYMBOL, MAX_SYMBOL_NAME_CANDIDATES } from '../core/limits';
import { symbolNamesFor } from '../index/symbolNames';
import { ensureSymbolTables, SYMBOL_FLAG_GENERATED, SYMBOL_FLAG_TEST } from '../index/symbolTables';
import { TYPE_KINDS, type SymbolKind } from '../syntax/types';
import type { Engine } from './engine';
import { matchCamel, matchExact, matchFuzzy, matchPrefix, matchSubstring, type NameMatch } from './syntaxNameMatch';

export type SymbolMatchMode = 'auto' | 'exact' | 'prefix' | 'substring' | 'camelCase' | 'fuzzy' | 'regex' | 'qualified';

export interface SymbolQuery {
  query: string;
  match: SymbolMatchMode;
  kinds?: SymbolKind[] | undefined;
  project?: string | undefined;
  pathGlob?: string | undefined;
  scope?: 'all' | 'production' | 'test' | undefined;
  generated?: 'include' | 'exclude' | 'only' | undefined;
  offset: number;
  limit: number;
  deadlineAt: number;
}

export interface SymbolSpan {
  path: string;
  line: number;
  endLine: number;
}

export interface SymbolHit {
  symbolId: string;
  name: string;
  kind: SymbolKind;
  qualifiedName: string;
  signature: string;
  path: string;
  line: number;
  endLine: number;
  column: number;
  fileClass: string;
  /** How the name matched: exact | prefix | substring | camelCase | fuzzy | regex | qualified. */
  match: string;
  isTest?: boolean;
  isGenerated?: boolean;
  extendedType?: string;
  /** Further declaration spans of the same symbol (partial types), first MAX_SPANS_PER_SYMBOL. */
  otherSpans?: SymbolSpan[];
}

export interface SymbolSearchResult {
  hits: SymbolHit[];
  total: number;
  /** The total is a lower bound (candidate names capped, or the deadline hit). */
  totalIsLowerBound: boolean;
  truncated?: 'deadline' | 'cap' | undefined;
  /** Distinct names that matched. */
  names: number;
}

const TIER_LABEL = ['exact', 'exact', 'prefix', 'partial', 'fuzzy'];

interface Candidate {
  name: string;
  m: NameMatch;
}

/** Rows read per query at most (after name matching); beyond, totals are lower bounds. */
const MAX_ROWS = 20_000;

export function searchSymbols(engine: Engine, q: SymbolQuery): SymbolSearchResult {
  const store = engine.store;
  ensureSymbolTables(store);
  const dict = symbolNamesFor(store);
  const query = q.query.trim();
  let mode = q.match;
  if (mode === 'auto' && /[.:#]/.test(query)) mode = 'qualified';
  let nameQuery = query;
  let qualifiedFilter: ((qn: string, id: string) => boolean) | undefined;
  if (mode === 'qualified') {
    const docId = /^[NTMPFE]:/.test(query);
    const body = docId ? query.slice(2).replace(/\(.*$/, '') : query;
    nameQuery = body.split(/[.#]/).pop() ?? body;
    nameQuery = nameQuery.replace(/`+\d+$/, '').replace(/<.*$/, '');
    const ql = query.toLowerCase();
    qualifiedFilter = docId ? (_qn, id) => id === query || id.startsWith(query + '(') || id.replace(/\(.*$/, '') === query : (qn) => qn.toLowerCase() === ql || qn.toLowerCase().endsWith('.' + ql);
  }
  const ql = nameQuery.toLowerCase();
  let timedOut = false;

  // 1. candidate names
  const cands: Candidate[] = [];
  let capped = false;
  const matcher = matcherFor(mode, nameQuery);
  if (mode === 'exact' || mode === 'qualified') {
    for (const n of dict.spellings(nameQuery)) cands.push({ name: n, m: n === nameQuery ? { tier: 0, score: 0 } : { tier: 1, score: 0 } });
  } else {
    const names = dict.names;
    const lower = dict.lower;
    for (let i = 0; i < names.length; i++) {
      if ((i & 4095) === 0 && Date.now() > q.deadlineAt) {
        timedOut = true;
        break;
      }
      const m = matcher(names[i] ?? '', lower[i] ?? '', nameQuery, ql);
      if (m) cands.push({ name: names[i] ?? '', m });
    }
  }
  cands.sort((a, b) => a.m.tier - b.m.tier || a.m.score - b.m.score || a.name.length - b.name.length);
  if (cands.length > MAX_SYMBOL_NAME_CANDIDATES) {
    cands.length = MAX_SYMBOL_NAME_CANDIDATES;
    capped = true;
  }
  const byName = new Map(cands.map((c) => [c.name, c]));

  // 2. rows of those names
  const catalog = engine.catalog();
  const glob = q.pathGlob ? picomatch(q.pathGlob, { dot: true, nocase: true }) : undefined;
  const projectPaths = q.project ? projectFiles(engine, q.project) : undefined;
  const kindSql = q.kinds && q.kinds.length ? ` AND kind IN (${q.kinds.map(() => '?').join(',')})` : '';
  interface Row { fileId: number; symbolId: string; name: string; qn: string; kind: SymbolKind; signature: string; line: number; endLine: number; col: number; flags: number; ext: string | null }
  const rows: Row[] = [];
  for (let i = 0; i < cands.length && rows.length < MAX_ROWS; i += 500) {
    if (Date.now() > q.deadlineAt) {
      timedOut = true;
      break;
    }
    const chunk = cands.slice(i, i + 500).map((c) => c.name);
    const sql = `SELECT file_id, symbol_id, name, qualified_name, kind, signature, line, end_line, col, flags, extended_type FROM symbols WHERE name IN (${chunk.map(() => '?').join(',')})${kindSql}`;
    for (const r of store.rows(sql, [...chunk, ...(q.kinds ?? [])])) {
      rows.push({ fileId: r[0] as number, symbolId: r[1] as string, name: r[2] as string, qn: r[3] as string, kind: r[4] as SymbolKind, signature: r[5] as string, line: r[6] as number, endLine: r[7] as number, col: r[8] as number, flags: r[9] as number, ext: (r[10] as string | null) ?? null });
    }
  }
  if (rows.length >= MAX_ROWS) capped = true;

  // 3. filter, group by symbol id, rank
  interface Group { hit: SymbolHit; rank: number[]; spans: SymbolSpan[] }
  const groups = new Map<string, Group>();
  for (const r of rows) {
    const file = catalog.get(r.fileId);
    if (!file) continue;
    if (glob && !glob(file.path)) continue;
    if (projectPaths && !projectPaths.has(file.path)) continue;
    if (qualifiedFilter && !qualifiedFilter(r.qn, r.symbolId)) continue;
    const isTest = (r.flags & SYMBOL_FLAG_TEST) !== 0 || file.fileClass === 'test';
    const isGenerated = (r.flags & SYMBOL_FLAG_GENERATED) !== 0 || file.fileClass === 'generated';
    if (q.scope === 'production' && isTest) continue;
    if (q.scope === 'test' && !isTest) continue;
    if (q.generated === 'exclude' && isGenerated) continue;
    if (q.generated === 'only' && !isGenerated) continue;
    const c = byName.get(r.name);
    if (!c) continue;
    const rank = [c.m.tier, c.m.score, TYPE_KINDS.has(r.kind) ? 0 : 1, isGenerated ? 1 : 0, isTest ? 1 : 0, r.qn.length];
    const g = groups.get(r.symbolId);
    const span = { path: file.path, line: r.line, endLine: r.endLine };
    if (g) {
      if (compareRank(rank, g.rank) < 0 || (compareRank(rank, g.rank) === 0 && (file.path < g.hit.path || (file.path === g.hit.path && r.line < g.hit.line)))) {
        g.spans.push({ path: g.hit.path, line: g.hit.line, endLine: g.hit.endLine });
        g.hit = makeHit(r, file.path, file.fileClass, c.m, mode, isTest, isGenerated);
        g.rank = rank;
      } else g.spans.push(span);
      continue;
    }
    groups.set(r.symbolId, { hit: makeHit(r, file.path, file.fileClass, c.m, mode, isTest, isGenerated), rank, spans: [] });
  }
  const ranked = [...groups.values()].sort((a, b) => compareRank(a.rank, b.rank) || (a.hit.path < b.hit.path ? -1 : a.hit.path > b.hit.path ? 1 : a.hit.line - b.hit.line));
  const page = ranked.slice(q.offset, q.offset + q.limit).map((g) => {
    if (g.spans.length) g.hit.otherSpans = g.spans.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line)).slice(0, MAX_SPANS_PER_SYMBOL);
    return g.hit;
  });
  return { hits: page, total: ranked.length, totalIsLowerBound: capped || timedOut, truncated: timedOut ? 'deadline' : capped ? 'cap' : undefined, names: cands.length };

  function makeHit(r: Row, path: string, fileClass: string, m: NameMatch, modeUsed: SymbolMatchMode, isTest: boolean, isGenerated: boolean): SymbolHit {
    const label = modeUsed === 'qualified' ? 'qualified' : m.tier === 3 ? (modeUsed === 'auto' || modeUsed === 'fuzzy' ? 'camelCase' : modeUsed) : (TIER_LABEL[m.tier] ?? modeUsed);
    const hit: SymbolHit = { symbolId: r.symbolId, name: r.name, kind: r.kind, qualifiedName: r.qn, signature: r.signature, path, line: r.line, endLine: r.endLine, column: r.col, fileClass, match: label };
    if (isTest) hit.isTest = true;
    if (isGenerated) hit.isGenerated = true;
    if (r.ext) hit.extendedType = r.ext;
    return hit;
  }
}

function compareRank(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

type Matcher = (name: string, lower: string, q: string, ql: string) => NameMatch | undefined;

function matcherFor(mode: SymbolMatchMode, query: string): Matcher {
  switch (mode) {
    case 'exact':
    case 'qualified':
      return matchExact;
    case 'prefix':
      return matchPrefix;
    case 'substring':
      return matchSubstring;
    case 'camelCase':
    case 'auto':
      return matchCamel;
    case 'fuzzy':
      return matchFuzzy;
    case 'regex': {
      if (query.length > MAX_REGEX_CHARS) throw new ToolError('INVALID_REGEX', `The regex is longer than ${MAX_REGEX_CHARS} characters`, 'shorten the pattern');
      let re: RegExp;
      try {
        re = new RegExp(query);
      } catch (e) {
        throw new ToolError('INVALID_REGEX', `Invalid regex: ${(e as Error).message}`, 'use JavaScript regex syntax, e.g. ^Get.*Async$');
      }
      return (name, lower, q, ql) => {
        if (!re.test(name)) return undefined;
        return matchExact(name, lower, q, ql) ?? { tier: 3, score: name.length / 100 };
      };
    }
  }
}

/** Paths of the files of a project (by project file path, name or assembly name). */
function projectFiles(engine: Engine, project: string): Set<string> {
  const store = engine.store;
  const hasTables = store.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('projects', 'project_files')")[0]?.[0] === 2;
  if (!hasTables) throw new ToolError('INDEX_UNAVAILABLE', 'The project model is not in this index', 'retry without project, or when the project graph is built');
  const p = project.trim().replace(/\\/g, '/');
  const ids = store.rows('SELECT id FROM projects WHERE id = ? OR lower(name) = lower(?) OR lower(assembly_name) = lower(?)', [p, p, p]).map((r) => r[0] as string);
  if (ids.length === 0) throw new ToolError('PROJECT_NOT_FOUND', `No project '${project}'`, 'pass a project file path (e.g. src/App/App.csproj) or a project name');
  if (ids.length > 1) throw new ToolError('AMBIGUOUS_TARGET', `'${project}' names ${ids.length} projects`, `pass one of the paths: ${ids.slice(0, 5).join(', ')}`);
  return new Set(store.rows('SELECT path FROM project_files WHERE project = ?', [ids[0] ?? '']).map((r) => r[0] as string));
}
