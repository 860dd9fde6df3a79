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
import { compileBoundedRegex } from '../core/regex';
import { symbolNamesFor } from '../index/symbolNames';
import { ensureSymbolTables, SYMBOL_FLAG_GENERATED, SYMBOL_FLAG_TEST } from '../index/symbolTables';
import { TYPE_KINDS, type SymbolKind } from '../syntax/types';
import type { Engine } from './engine';
import { requireGraph } from './projects';
import { symbolIds } from './symbolIds';
import { matchCamel, matchExact, matchFuzzy, matchPrefix, matchSubstring, prepareQuery, tierOf, type Matcher } from './syntaxNameMatch';

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
  /** Rank key from the matcher: tier * 1e6 + score. */
  key: number;
}

/** Rows read per query at most (after name matching); beyond, totals are lower bounds. */
const MAX_ROWS = 20_000;


export function searchSymbols(engine: Engine, q: SymbolQuery): SymbolSearchResult {
  const store = engine.store;
  ensureSymbolTables(store);
  const dict = symbolNamesFor(store);
  const ids = symbolIds(engine);
  let query = q.query.trim();
  let mode = q.match;
  if (mode === 'auto' && /[.:#]/.test(query)) mode = 'qualified';
  // A C# id with its compilation (`T:Ns.Type@Project|net8.0`): match the doc-id in that compilation.
  let compilation: { project: string; tfm?: string } | undefined;
  if (mode === 'qualified') {
    const parsed = ids.parse(query);
    if (parsed.project) compilation = { project: parsed.project.id, ...(parsed.tfm ? { tfm: parsed.tfm } : {}) };
    query = parsed.docId;
  }
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
  let timedOut = false;

  // 1. candidate names (kept as index + numeric key until the cut, to spare the heap)
  const cands: Candidate[] = [];
  const candIdx: number[] = [];
  const candKey: number[] = [];

  let capped = false;
  const matcher = matcherFor(mode, nameQuery);
  if (mode === 'exact' || mode === 'qualified') {
    for (const n of dict.spellings(nameQuery)) cands.push({ name: n, key: n === nameQuery ? 0 : 1e6 });
  } else {
    const prepared = prepareQuery(nameQuery);
    const consider = (i: number): void => {
      const key = matcher(dict, i, prepared);
      if (key < 0) return;
      candIdx.push(i);
      candKey.push(key + (dict.names[i]?.length ?? 0) / 1e5);
    };
    if (mode === 'prefix') {
      for (const i of dict.withPrefix(prepared.ql)) consider(i);
    } else {
      const n = dict.size;
      for (let i = 0; i < n; i++) {
        if ((i & 16383) === 0 && Date.now() > q.deadlineAt) {
          timedOut = true;
          break;
        }
        consider(i);
      }
    }
    const order = Array.from({ length: candIdx.length }, (_, k) => k);
    if (order.length > MAX_SYMBOL_NAME_CANDIDATES) {
      // keep the best MAX by key without sorting everything: a threshold from a sorted sample, then a final sort
      const keys = Float64Array.from(candKey).sort();
      const cut = keys[MAX_SYMBOL_NAME_CANDIDATES - 1] ?? Infinity;
      const kept = order.filter((k) => (candKey[k] ?? Infinity) <= cut);
      order.length = 0;
      order.push(...kept);
      capped = true;
    }
    order.sort((a, b) => (candKey[a] ?? 0) - (candKey[b] ?? 0));
    if (order.length > MAX_SYMBOL_NAME_CANDIDATES) order.length = MAX_SYMBOL_NAME_CANDIDATES;
    for (const k of order) cands.push({ name: dict.names[candIdx[k] ?? 0] ?? '', key: candKey[k] ?? 0 });
  }
  if (mode === 'exact' || mode === 'qualified') cands.sort((a, b) => a.key - b.key);
  const byName = new Map(cands.map((c) => [c.name, c]));

  // 2. rows of those names, best names first. Filters that SQL can express run in SQL, and SQL
  //    orders each chunk by the ranking (name rank, type before member, handwritten, production,
  //    shorter qualified name) and stops at what the page needs; the total is then a lower bound.
  const catalog = engine.catalog();
  const glob = q.pathGlob ? picomatch(q.pathGlob, { dot: true, nocase: true }) : undefined;
  const projectId = q.project ? resolveProjectId(engine, q.project) : undefined;
  const where: string[] = [];
  const whereArgs: (string | number)[] = [];
  if (q.kinds && q.kinds.length) {
    where.push(`s.kind IN (${q.kinds.map(() => '?').join(',')})`);
    whereArgs.push(...q.kinds);
  } else if (mode !== 'exact' && mode !== 'qualified') {
    // A namespace is declared once per file: as a loose match it floods the answer with spans of
    // one id. Asked by exact/qualified name or by kind it is still found.
    where.push("s.kind != 'namespace'");
  }
  const TEST = `((s.flags & ${SYMBOL_FLAG_TEST}) != 0 OR f.class = 'test')`;
  const GEN = `((s.flags & ${SYMBOL_FLAG_GENERATED}) != 0 OR f.class = 'generated')`;
  if (q.scope === 'production') where.push(`NOT ${TEST}`);
  if (q.scope === 'test') where.push(TEST);
  if (q.generated === 'exclude') where.push(`NOT ${GEN}`);
  if (q.generated === 'only') where.push(GEN);
  // The files of a project come from the stored graph (the index keeps no per-file project rows).
  const projectPaths = projectId !== undefined ? filesOfProject(engine, projectId) : undefined;
  const typeList = [...TYPE_KINDS].map((k) => `'${k}'`).join(',');
  // JS-side filters (glob, qualified name) can drop rows: then read without a row limit.
  const jsFiltered = glob !== undefined || qualifiedFilter !== undefined || projectPaths !== undefined || compilation !== undefined;
  interface Row { fileId: number; symbolId: string; name: string; qn: string; kind: SymbolKind; signature: string; line: number; endLine: number; col: number; flags: number; ext: string | null; fileClass: string }
  interface Group { hit: SymbolHit; rank: number[]; spans: SymbolSpan[] }
  const groups = new Map<string, Group>();
  const enough = (q.offset + q.limit) * 2 + 20;
  let rowsRead = 0;
  // Chunks grow (1, 8, 32, 128, 200, …): the best names are read first and alone.
  let chunkSize = 1;
  for (let i = 0; i < cands.length; i += chunkSize, chunkSize = Math.min(200, chunkSize === 1 ? 8 : chunkSize * 4)) {
    if (groups.size >= enough || rowsRead >= MAX_ROWS) {
      capped = true;
      break;
    }
    if (Date.now() > q.deadlineAt) {
      timedOut = true;
      break;
    }
    const chunk = cands.slice(i, i + chunkSize).map((c) => c.name);
    const rowLimit = jsFiltered ? MAX_ROWS - rowsRead : Math.min(MAX_ROWS - rowsRead, (enough - groups.size) * 3);
    const from = `FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name IN (${chunk.map(() => '?').join(',')})${where.length ? ' AND ' + where.join(' AND ') : ''}`;
    const baseArgs: (string | number)[] = [...chunk, ...whereArgs];
    // Few rows: read them all and rank in JS. Many (a common name): let SQL rank and cut them.
    const many = Number(store.rows(`SELECT count(*) ${from}`, baseArgs)[0]?.[0] ?? 0) > rowLimit;
    const cols = 'SELECT s.file_id, s.symbol_id, s.name, s.qualified_name, s.kind, s.signature, s.line, s.end_line, s.col, s.flags, s.extended_type, f.class';
    let got;
    if (many) {
      const byName = chunk.length > 1 ? `CASE s.name ${chunk.map(() => 'WHEN ? THEN ?').join(' ')} END, ` : '';
      const args = [...baseArgs];
      if (chunk.length > 1) chunk.forEach((name, k) => args.push(name, k));
      args.push(rowLimit);
      got = store.rows(
        `${cols} ${from} ORDER BY ${byName}CASE WHEN s.kind IN (${typeList}) THEN 0 ELSE 1 END, CASE WHEN ${GEN} THEN 1 ELSE 0 END, CASE WHEN ${TEST} THEN 1 ELSE 0 END, length(s.qualified_name) LIMIT ?`,
        args,
      );
      capped = true;
    } else {
      got = store.rows(`${cols} ${from}`, baseArgs);
    }
    for (const x of got) {
      rowsRead++;
      const r: Row = { fileId: x[0] as number, symbolId: x[1] as string, name: x[2] as string, qn: x[3] as string, kind: x[4] as SymbolKind, signature: x[5] as string, line: x[6] as number, endLine: x[7] as number, col: x[8] as number, flags: x[9] as number, ext: (x[10] as string | null) ?? null, fileClass: x[11] as string };
      const file = catalog.get(r.fileId);
      if (!file) continue;
      if (glob && !glob(file.path)) continue;
      if (projectPaths && !projectPaths.has(file.path)) continue;
      if (qualifiedFilter && !qualifiedFilter(r.qn, r.symbolId)) continue;
      if (compilation && !ids.compilations(file.path).some((c) => c.project.id === compilation.project && (!compilation.tfm || c.tfm === compilation.tfm))) continue;
      // Shown ids carry the compilation (C#): the same doc-id in two projects is two symbols.
      r.symbolId = ids.idFor(r.symbolId, file.path);
      const isTest = (r.flags & SYMBOL_FLAG_TEST) !== 0 || r.fileClass === 'test';
      const isGenerated = (r.flags & SYMBOL_FLAG_GENERATED) !== 0 || r.fileClass === 'generated';
      const c = byName.get(r.name);
      if (!c) continue;
      const rank = [c.key, TYPE_KINDS.has(r.kind) ? 0 : 1, isGenerated ? 1 : 0, isTest ? 1 : 0, r.qn.length];
      const g = groups.get(r.symbolId);
      if (g) {
        const cmp = compareRank(rank, g.rank);
        if (cmp < 0 || (cmp === 0 && (file.path < g.hit.path || (file.path === g.hit.path && r.line < g.hit.line)))) {
          g.spans.push({ path: g.hit.path, line: g.hit.line, endLine: g.hit.endLine });
          g.hit = makeHit(r, file.path, r.fileClass, c.key, mode, isTest, isGenerated);
          g.rank = rank;
        } else g.spans.push({ path: file.path, line: r.line, endLine: r.endLine });
        continue;
      }
      groups.set(r.symbolId, { hit: makeHit(r, file.path, r.fileClass, c.key, mode, isTest, isGenerated), rank, spans: [] });
    }
  }
  const ranked = [...groups.values()].sort((a, b) => compareRank(a.rank, b.rank) || (a.hit.path < b.hit.path ? -1 : a.hit.path > b.hit.path ? 1 : a.hit.line - b.hit.line));
  const page = ranked.slice(q.offset, q.offset + q.limit).map((g) => {
    if (g.spans.length) g.hit.otherSpans = g.spans.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line)).slice(0, MAX_SPANS_PER_SYMBOL);
    return g.hit;
  });
  return { hits: page, total: ranked.length, totalIsLowerBound: capped || timedOut, truncated: timedOut ? 'deadline' : capped ? 'cap' : undefined, names: cands.length };

  function makeHit(r: Row, path: string, fileClass: string, key: number, modeUsed: SymbolMatchMode, isTest: boolean, isGenerated: boolean): SymbolHit {
    const tier = tierOf(key);
    const label = modeUsed === 'qualified' ? 'qualified' : tier === 3 ? (modeUsed === 'auto' || modeUsed === 'fuzzy' ? 'camelCase' : modeUsed) : (TIER_LABEL[tier] ?? modeUsed);
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
      // Linear-time only: a repository can declare names built to make a backtracking regex hang.
      const c = compileBoundedRegex(query);
      if (!c.ok) throw new ToolError('INVALID_REGEX', `Invalid regex: ${c.reason}`, 'use JavaScript regex syntax, e.g. ^Get.*Async$');
      const re = c.re;
      return (d, i, p) => {
        const name = d.names[i] ?? '';
        if (!re.test(name)) return -1;
        const k = matchExact(d, i, p);
        return k >= 0 ? k : 3e6 + name.length / 100;
      };
    }
  }
}

/** Workspace paths of the files compiled by a project (linked files included). */
function filesOfProject(engine: Engine, projectId: string): Set<string> {
  const out = new Set<string>();
  for (const [file, entries] of requireGraph(engine).files) if (entries.some((e) => e.project === projectId)) out.add(file);
  return out;
}

/** The project id (project file path) named by a path, name or assembly name. */
function resolveProjectId(engine: Engine, project: string): string {
  const store = engine.store;
  const hasTables = store.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('projects', 'project_files')")[0]?.[0] === 2;
  if (!hasTables) throw new ToolError('INDEX_UNAVAILABLE', 'The project model is not in this index', 'retry without project, or when the project graph is built');
  const p = project.trim().replace(/\\/g, '/');
  const ids = store.rows('SELECT id FROM projects WHERE id = ? OR lower(name) = lower(?) OR lower(assembly_name) = lower(?)', [p, p, p]).map((r) => r[0] as string);
  if (ids.length === 0) throw new ToolError('PROJECT_NOT_FOUND', `No project '${project}'`, 'pass a project file path (e.g. src/App/App.csproj) or a project name');
  if (ids.length > 1) throw new ToolError('AMBIGUOUS_TARGET', `'${project}' names ${ids.length} projects`, `pass one of the paths: ${ids.slice(0, 5).join(', ')}`);
  return ids[0] ?? '';
}
