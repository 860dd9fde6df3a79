/**
 * search_symbol over the in-memory symbol table (index/symbolTable.ts). The query is matched
 * against the dictionary of declared names (exact, prefix, substring, camelCase, fuzzy, regex;
 * `qualified` matches the last segment and then the qualified name or documentation id). Names
 * are then visited best key first: their rows are filtered, grouped by symbol id (partial types:
 * one symbol, many spans) and ranked — match quality, types before members, handwritten before
 * generated, production before test, shorter qualified name, then path and line — until the page
 * is full and the next name ranks strictly worse. The remaining names are only counted, so the
 * total is exact unless MAX_SYMBOL_COUNTED_ROWS rows or the deadline stop the count (then it is
 * a lower bound). Only the page's rows are read back from SQL.
 */
import picomatch from 'picomatch';
import { ToolError } from '../core/errors';
import { MAX_REGEX_CHARS, MAX_SPANS_PER_SYMBOL, MAX_SYMBOL_COUNTED_ROWS } from '../core/limits';
import { catastrophicShape, compileBoundedRegex } from '../core/regex';
import { maskOf } from '../index/symbolNames';
import { ROW_DUP, ROW_GENERATED, ROW_TEST, ROW_TYPE, rowsInStaticOrder, staticRank, symbolTableFor, type SymbolSegment } from '../index/symbolTable';
import type { SymbolKind } from '../syntax/types';
import type { Engine } from './engine';
import type { FileCatalog, FileRow } from './fileCatalog';
import { requireGraph } from './projects';
import { symbolIds } from './symbolIds';
import { matchCamel, matchExact, matchFuzzyFast, matchPrefix, matchSubstring, prepareQuery, tierOf, upgradeFuzzyKey, type Matcher } from './syntaxNameMatch';

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

/** One symbol (group of rows with one id) competing for the page. */
interface Entry {
  key: number;
  /** rowRank * 2^21 + the file's catalog position (see rankOf). */
  rank: number;
  line: number;
  seg: SymbolSegment;
  row: number;
  /** The group's other rows (partial types). */
  spans: { seg: SymbolSegment; row: number }[];
}

function compareEntries(a: Entry, b: Entry): number {
  return a.key - b.key || a.rank - b.rank || a.line - b.line;
}

/** Per-file facts derived from the catalog, cached per catalog load. */
interface FileInfo {
  /** 1 + the file's position in the catalog (class, then path); 0: not in the catalog. */
  order: Uint32Array;
  /** FILE_TEST | FILE_GENERATED. */
  bits: Uint8Array;
}
const FILE_TEST = 1;
const FILE_GENERATED = 2;
const fileInfoCache = new WeakMap<readonly FileRow[], FileInfo>();

function fileInfoOf(catalog: FileCatalog): FileInfo {
  const rows = catalog.all();
  let info = fileInfoCache.get(rows);
  if (info) return info;
  let max = 0;
  for (const r of rows) if (r.id > max) max = r.id;
  info = { order: new Uint32Array(max + 1), bits: new Uint8Array(max + 1) };
  rows.forEach((r, i) => {
    info!.order[r.id] = i + 1;
    info!.bits[r.id] = (r.fileClass === 'test' ? FILE_TEST : 0) | (r.fileClass === 'generated' ? FILE_GENERATED : 0);
  });
  fileInfoCache.set(rows, info);
  return info;
}

/** Scratch space for the rows of one name (grown as needed, reused across queries). */
let scratchRank = new Float64Array(4096);
let scratchSel = new Float64Array(4096);
let scratchRow = new Uint32Array(4096);
let scratchSeg = new Uint8Array(4096);

function growScratch(n: number): void {
  if (n <= scratchRank.length) return;
  const size = Math.max(n, scratchRank.length * 2);
  scratchRank = new Float64Array(size);
  scratchSel = new Float64Array(size);
  scratchRow = new Uint32Array(size);
  scratchSeg = new Uint8Array(size);
}

export function searchSymbols(engine: Engine, q: SymbolQuery): SymbolSearchResult {
  const store = engine.store;
  const table = symbolTableFor(store);
  const dict = table.names;
  // A C# id may carry its compilation (`T:Ns.Type@Project|net8.0`): its doc-id is matched in that compilation.
  const ids = symbolIds(engine);
  const parsedId = ids.parse(q.query.trim());
  const query = parsedId.docId;
  let mode = q.match;
  if (mode === 'auto' && /[.:#]/.test(query)) mode = 'qualified';
  let nameQuery = query;
  let docId: string | undefined;
  let qualifiedLower: string | undefined;
  if (mode === 'qualified') {
    const isDocId = /^[NTMPFE]:/.test(query);
    const body = isDocId ? query.slice(2).replace(/\(.*$/, '') : query;
    nameQuery = body.split(/[.#]/).pop() ?? body;
    nameQuery = nameQuery.replace(/`+\d+$/, '').replace(/<.*$/, '');
    if (isDocId) docId = query;
    // the qualified name a documentation id names, generic arities dropped (Ns.Type`1.M → ns.type.m)
    qualifiedLower = (isDocId ? body.replace(/`+\d+/g, '') : query).toLowerCase();
  }
  let timedOut = false;

  // 1. candidate names with their rank keys
  const candIdx: number[] = [];
  const candKey: number[] = [];
  const matcher = matcherFor(mode, nameQuery);
  const prepared = prepareQuery(nameQuery);
  if (mode === 'exact' || mode === 'qualified') {
    // a namespace is declared under its dotted name (Acme.Billing): a qualified query may be one
    const spellings = mode === 'qualified' && nameQuery !== query && docId === undefined ? [...dict.spellings(nameQuery), ...dict.spellings(query)] : dict.spellings(nameQuery);
    for (const n of spellings) {
      const id = dict.idOf(n);
      if (id === undefined) continue;
      candIdx.push(id);
      candKey.push(n === nameQuery ? 0 : 1e6);
    }
  } else {
    const consider = (i: number): void => {
      const key = matcher(dict, i, prepared);
      if (key < 0) return;
      candIdx.push(i);
      // the name's length from the packed units (reading 50,000 strings' lengths costs more than matching)
      candKey.push(key + dict.lengthOf(i) / 1e5);
    };
    if (mode === 'prefix') {
      for (const i of dict.withPrefix(prepared.ql)) consider(i);
    } else {
      const n = dict.size;
      // a regex may backtrack up to the engine's fallback on every name: look at the clock more often
      const every = mode === 'regex' ? 255 : 16383;
      for (let i = 0; i < n; i++) {
        if ((i & every) === 0 && Date.now() > q.deadlineAt) {
          timedOut = true;
          break;
        }
        consider(i);
      }
    }
  }

  // fuzzy: the camelCase tier only matters when exact/prefix names do not fill the page
  if (mode === 'fuzzy') upgradeFuzzyKeys();

  // "Where is X" (auto, a capitalised name): the I+name interface ranks beside the exact name (its
  // rows merge by rank: types first, then members), and camelCase / _underscore spellings of the
  // name (private fields, locals, parameters) rank after every other camelCase match.
  let interfaceName: number | undefined;
  if (mode === 'auto' && /^[A-Z]/.test(nameQuery) && nameQuery.length > 1) {
    interfaceName = dict.idOf('I' + nameQuery);
    if (interfaceName !== undefined && !candIdx.includes(interfaceName)) {
      candIdx.push(interfaceName);
      candKey.push(0);
    }
    const ql = nameQuery.toLowerCase();
    const exactAt = candIdx.indexOf(dict.idOf(nameQuery) ?? -1);
    const exactKey = exactAt >= 0 ? candKey[exactAt]! : 0;
    for (let k = 0; k < candIdx.length; k++) {
      const i = candIdx[k]!;
      if (i === interfaceName) candKey[k] = exactKey;
      else {
        const name = dict.names[i] ?? '';
        if (/^[_a-z]/.test(name) && name.replace(/^_+/, '').toLowerCase().startsWith(ql)) candKey[k] = 3 * 1e6 + 900_000 + (candKey[k]! % 1e5);
      }
    }
  }

  // 2. filters
  const catalog = engine.catalog();
  const files = fileInfoOf(catalog);
  const glob = q.pathGlob ? picomatch(q.pathGlob, { dot: true, nocase: true }) : undefined;
  const projectId = q.project ? resolveProjectId(engine, q.project) : undefined;
  const projectPaths = projectId !== undefined ? filesOfProject(engine, projectId) : undefined;
  let kindIds: Set<number> | undefined;
  let excludedKind = -1;
  if (q.kinds && q.kinds.length) kindIds = new Set(table.stringIds(q.kinds));
  else if (mode !== 'exact' && mode !== 'qualified') {
    // A namespace is declared once per file: as a loose match it floods the answer with spans of
    // one id. Asked by exact/qualified name or by kind it is still found.
    excludedKind = table.stringIds(['namespace'])[0] ?? -1;
  }
  // path filters, per file: 0 not checked yet, 1 passes, 2 fails
  const pathState = glob || projectPaths ? new Uint8Array(files.order.length) : undefined;
  const wantTest = q.scope === 'test' ? 1 : q.scope === 'production' ? 0 : -1;
  const wantGenerated = q.generated === 'only' ? 1 : q.generated === 'exclude' ? 0 : -1;
  // documentation ids are checked against the real id of rows whose qualified name fits (then of all, if none did)
  let docIdPrefilter = true;
  const idOfRow = docId !== undefined ? store.db.prepare('SELECT symbol_id FROM symbols WHERE file_id = ? AND ordinal = ?') : undefined;
  /** The slower checks (path filters, qualified names): true when row `r` passes. */
  const slowPasses = (seg: SymbolSegment, r: number, fileId: number): boolean => {
    if (pathState) {
      let st = pathState[fileId] ?? 0;
      if (st === 0) {
        const path = catalog.get(fileId)?.path ?? '';
        st = (!glob || glob(path)) && (!projectPaths || projectPaths.has(path)) ? 1 : 2;
        pathState[fileId] = st;
      }
      if (st === 2) return false;
    }
    if (qualifiedLower === undefined) return true;
    if (docId === undefined) {
      const qn = table.qualifiedLower(seg, r);
      return qn === qualifiedLower || qn.endsWith('.' + qualifiedLower);
    }
    if (docIdPrefilter && table.qualifiedLower(seg, r) !== qualifiedLower) return false;
    idOfRow!.bind([fileId, seg.ordinal[r] ?? 0]);
    const id = idOfRow!.step() ? String(idOfRow!.get()[0]) : '';
    idOfRow!.reset();
    if (!(id === docId || id.startsWith(docId + '(') || id.replace(/\(.*$/, '') === docId)) return false;
    const p = parsedId.project;
    return !p || ids.compilations(catalog.get(fileId)?.path ?? '').some((c) => c.project.id === p.id && (!parsedId.tfm || c.tfm === parsedId.tfm));
  };
  const slow = pathState !== undefined || qualifiedLower !== undefined;
  // no filter but (maybe) the namespace exclusion: names not written since the base count in O(1)
  const unfiltered = !slow && kindIds === undefined && wantTest < 0 && wantGenerated < 0;

  function upgradeFuzzyKeys(): void {
    const filtered = (q.kinds?.length ?? 0) > 0 || q.pathGlob || q.project || (q.scope && q.scope !== 'all') || (q.generated && q.generated !== 'include');
    if (!filtered) {
      // symbols of exact/prefix names (rows sharing an id count as none: a lower bound)
      let better = 0;
      for (let k = 0; k < candIdx.length && better < q.offset + q.limit; k++) if ((candKey[k] ?? 0) < 3e6) better += Math.max(0, table.unsharedRowsOfName(candIdx[k] ?? 0, true));
      if (better >= q.offset + q.limit) return;
    }
    for (let k = 0; k < candIdx.length; k++) {
      const i = candIdx[k] ?? 0;
      const key = candKey[k] ?? 0;
      const up = upgradeFuzzyKey(dict, i, prepared, key - dict.lengthOf(i) / 1e5);
      candKey[k] = up + dict.lengthOf(i) / 1e5;
    }
  }

  // 3. names best first: rows are counted, and compete for the page until it is full
  const need = q.offset + q.limit;
  const segs = table.segments();
  const base = table.base;
  const dead = table.deadInBase;
  const order = files.order;
  const fileBits = files.bits;
  const keys = Float64Array.from(candKey);
  const visited = new Uint8Array(candIdx.length);
  let entries: Entry[] = [];
  let total = 0;
  let names = 0;
  let counted = 0;
  let capped = false;
  const dupSeen = new Set<number>();
  // One hit per id as shown: a C# doc-id declared in two projects is two symbols (ids carry the compilation).
  // (group key, project number): numeric, with each file's project looked up once per query
  const projectNos = new Map<string, number>();
  const fileProject = new Int32Array(files.order.length).fill(-1);
  const dupKey = (seg: SymbolSegment, r: number): number => {
    const fileId = seg.fileId[r] ?? 0;
    let p = fileProject[fileId] ?? -1;
    if (p < 0) {
      const project = ids.primary(catalog.get(fileId)?.path ?? '')?.project.id ?? '';
      p = projectNos.get(project) ?? projectNos.size;
      projectNos.set(project, p);
      fileProject[fileId] = p;
    }
    return table.groupKey(seg, r) * 65536 + p;
  };

  /** Counts the rows of the name at `pos`; while `collect`, its best rows become page entries. */
  const visitName = (pos: number, collect: boolean): void => {
    visited[pos] = 1;
    const nameId = candIdx[pos] ?? 0;
    // the name's rows that share no id, when known without reading them (no filter, not written since):
    // only rows sharing an id are then read for the count
    const known = unfiltered ? table.unsharedRowsOfName(nameId, excludedKind >= 0) : -1;
    let groups = 0;
    let m = 0;
    // Rows of a big base name come in staticRank order: once the page has `need` rows better than
    // the next row's static rank, the rest can only be spans of shared ids (and counted).
    let collecting = collect;
    for (let si = 0; si < segs.length; si++) {
      const seg = segs[si] as SymbolSegment;
      if (nameId + 1 >= seg.nameStart.length) continue;
      const a = seg.nameStart[nameId] ?? 0;
      const b = seg.nameStart[nameId + 1] ?? 0;
      if (b <= a) continue;
      counted += b - a;
      if (collect) growScratch(m + b - a);
      const isBase = seg === base;
      // the early stop holds within one segment (delta rows are in no particular order)
      collecting = collect;
      const stopEarly = collect && rowsInStaticOrder(seg, a, b) && b - a > need * 4;
      let checkpoint = m + need;
      const fileIdCol = seg.fileId;
      const kindCol = seg.kind;
      const flagsCol = seg.flags;
      for (let r = a; r < b; r++) {
        const flags = flagsCol[r] ?? 0;
        if (!collecting && known >= 0 && (flags & ROW_DUP) === 0) continue;
        const fileId = fileIdCol[r] ?? 0;
        if (isBase && (dead[fileId] ?? 0) !== 0) continue;
        const kind = kindCol[r] ?? 0;
        if (kind === excludedKind || (kindIds !== undefined && !kindIds.has(kind))) continue;
        const at = order[fileId] ?? 0;
        if (at === 0) continue;
        const fb = fileBits[fileId] ?? 0;
        const isTest = (flags & ROW_TEST) !== 0 || (fb & FILE_TEST) !== 0;
        const isGenerated = (flags & ROW_GENERATED) !== 0 || (fb & FILE_GENERATED) !== 0;
        if (wantTest >= 0 && (isTest ? 1 : 0) !== wantTest) continue;
        if (wantGenerated >= 0 && (isGenerated ? 1 : 0) !== wantGenerated) continue;
        if (slow && !slowPasses(seg, r, fileId)) continue;
        if ((flags & ROW_DUP) === 0) {
          if (known < 0) groups++;
        } else {
          const g = dupKey(seg, r);
          if (!dupSeen.has(g)) {
            dupSeen.add(g);
            groups++;
          }
        }
        if (!collect || (!collecting && (flags & ROW_DUP) === 0)) continue;
        const rowRank = ((flags & ROW_TYPE) !== 0 ? 0 : 4) + (isGenerated ? 2 : 0) + (isTest ? 1 : 0);
        scratchRank[m] = (rowRank * 65536 + (seg.qnLen[r] ?? 0)) * 2097152 + at;
        scratchRow[m] = r;
        scratchSeg[m] = si;
        m++;
        if (stopEarly && collecting && m >= checkpoint && r + 1 < b) {
          scratchSel.set(scratchRank.subarray(0, m));
          const best = kthSmallest(scratchSel, m, need - 1);
          if (staticRank(seg, r + 1) * 2097152 > best) collecting = false;
          else checkpoint = m * 2;
        }
      }
    }
    if (known >= 0) groups += known;
    total += groups;
    if (groups > 0) names++;
    if (!collect || m === 0) return;
    const key = keys[pos] ?? 0;
    // Many rows: only those ranked within the best `need` (and rows of shared ids) become entries.
    let threshold = Infinity;
    if (m > need * 4) {
      scratchSel.set(scratchRank.subarray(0, m));
      threshold = kthSmallest(scratchSel, m, need - 1);
    }
    let byGroup: Map<number, Entry> | undefined;
    for (let k = 0; k < m; k++) {
      const seg = segs[scratchSeg[k] ?? 0] as SymbolSegment;
      const r = scratchRow[k] ?? 0;
      const rank = scratchRank[k] ?? 0;
      const dup = ((seg.flags[r] ?? 0) & ROW_DUP) !== 0;
      if (rank > threshold && !dup) continue;
      const e: Entry = { key, rank, line: seg.line[r] ?? 0, seg, row: r, spans: [] };
      if (!dup) {
        entries.push(e);
        continue;
      }
      const g = dupKey(seg, r);
      byGroup ??= new Map();
      const prev = byGroup.get(g);
      if (!prev) byGroup.set(g, e);
      else if (compareEntries(e, prev) < 0) {
        e.spans = prev.spans;
        e.spans.push({ seg: prev.seg, row: prev.row });
        byGroup.set(g, e);
      } else prev.spans.push({ seg, row: r });
    }
    if (byGroup) for (const e of byGroup.values()) entries.push(e);
    if (entries.length > need * 2 + 64) {
      entries.sort(compareEntries);
      entries.length = need;
    }
  };

  let pageFull = false;
  let lastKey = -Infinity;
  for (const pos of inKeyOrder(keys)) {
    const key = keys[pos] ?? 0;
    if (entries.length >= need && key > lastKey) {
      pageFull = true;
      break;
    }
    if (Date.now() > q.deadlineAt) {
      timedOut = true;
      break;
    }
    visitName(pos, true);
    lastKey = key;
  }
  if (docId !== undefined && entries.length === 0 && !timedOut) {
    // no row's qualified name fit the id: check the real ids of every row of the name
    docIdPrefilter = false;
    total = 0;
    names = 0;
    counted = 0;
    dupSeen.clear();
    for (let pos = 0; pos < candIdx.length; pos++) visitName(pos, true);
  }
  idOfRow?.free();
  // the rest is only counted (a lower bound past MAX_SYMBOL_COUNTED_ROWS rows or the deadline)
  if (pageFull) {
    for (let pos = 0; pos < candIdx.length; pos++) {
      if (visited[pos]) continue;
      if (counted > MAX_SYMBOL_COUNTED_ROWS) {
        capped = true;
        break;
      }
      if ((pos & 255) === 0 && Date.now() > q.deadlineAt) {
        timedOut = true;
        break;
      }
      const nameId = candIdx[pos] ?? 0;
      if (unfiltered && !table.hasSharedIds(nameId)) {
        const groups = table.unsharedRowsOfName(nameId, excludedKind >= 0);
        if (groups >= 0) {
          total += groups;
          if (groups > 0) names++;
          continue;
        }
      }
      visitName(pos, false);
    }
  }
  entries.sort(compareEntries);
  const page = entries.slice(q.offset, q.offset + q.limit).map((e) => materialize(e));
  return { hits: page, total, totalIsLowerBound: capped || timedOut, truncated: timedOut ? 'deadline' : capped ? 'cap' : undefined, names };

  function materialize(e: Entry): SymbolHit {
    const r = e.row;
    const seg = e.seg;
    const fileId = seg.fileId[r] ?? 0;
    const file = catalog.get(fileId);
    const path = file?.path ?? '';
    const x = table.details(fileId, seg.ordinal[r] ?? 0, path);
    const tier = tierOf(e.key);
    const label = interfaceName !== undefined && table.nameOf(seg, r) === interfaceName ? 'interface' : mode === 'qualified' ? 'qualified' : tier === 3 ? (mode === 'auto' || mode === 'fuzzy' ? 'camelCase' : mode) : (TIER_LABEL[tier] ?? mode);
    const hit: SymbolHit = {
      symbolId: ids.idFor(x?.symbolId ?? '', path), name: dict.names[table.nameOf(seg, r)] ?? '', kind: (x?.kind ?? '') as SymbolKind, qualifiedName: x?.qualifiedName ?? '', signature: x?.signature ?? '',
      path, line: e.line, endLine: x?.endLine ?? e.line, column: x?.column ?? 0, fileClass: file?.fileClass ?? 'source', match: label,
    };
    const flags = seg.flags[r] ?? 0;
    const fb = fileBits[fileId] ?? 0;
    if ((flags & ROW_TEST) !== 0 || (fb & FILE_TEST) !== 0) hit.isTest = true;
    if ((flags & ROW_GENERATED) !== 0 || (fb & FILE_GENERATED) !== 0) hit.isGenerated = true;
    if (x?.extendedType) hit.extendedType = x.extendedType;
    if (e.spans.length) {
      const spans = e.spans
        .map((s) => ({ path: catalog.get(s.seg.fileId[s.row] ?? 0)?.path ?? '', line: s.seg.line[s.row] ?? 0, s }))
        .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line))
        .slice(0, MAX_SPANS_PER_SYMBOL);
      hit.otherSpans = spans.map((s) => ({
        path: s.path,
        line: s.line,
        endLine: table.details(s.s.seg.fileId[s.s.row] ?? 0, s.s.seg.ordinal[s.s.row] ?? 0, s.path)?.endLine ?? s.line,
      }));
    }
    return hit;
  }
}

/** Positions of `keys` in ascending key order, sorted in growing batches (the page usually fills from the first). */
function* inKeyOrder(keys: Float64Array): Generator<number> {
  const n = keys.length;
  const byKey = (a: number, b: number): number => (keys[a] ?? 0) - (keys[b] ?? 0);
  if (n <= 4096) {
    yield* Array.from({ length: n }, (_, i) => i).sort(byKey);
    return;
  }
  const sorted = keys.slice().sort();
  let done = 0;
  let lo = -Infinity;
  let take = 1024;
  while (done < n) {
    const hi = sorted[Math.min(n, done + take) - 1] ?? Infinity;
    const batch: number[] = [];
    for (let i = 0; i < n; i++) {
      const k = keys[i] ?? 0;
      if (k > lo && k <= hi) batch.push(i);
    }
    batch.sort(byKey);
    yield* batch;
    done += batch.length;
    lo = hi;
    take *= 4;
  }
}

/** The k-th smallest value (0-based) of `a` (reordered in place): quickselect. */
function kthSmallest(a: Float64Array, n: number, k: number): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >>> 1] ?? 0;
    let i = lo;
    let j = hi;
    while (i <= j) {
      while ((a[i] ?? 0) < pivot) i++;
      while ((a[j] ?? 0) > pivot) j--;
      if (i <= j) {
        const t = a[i] ?? 0;
        a[i] = a[j] ?? 0;
        a[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k] ?? 0;
  }
  return a[k] ?? 0;
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
      return matchFuzzyFast;
    case 'regex': {
      if (query.length > MAX_REGEX_CHARS) throw new ToolError('INVALID_REGEX', `The regex is longer than ${MAX_REGEX_CHARS} characters`, 'shorten the pattern');
      // Linear-time only: a repository can declare names built to make a backtracking regex hang.
      const c = compileBoundedRegex(query);
      if (!c.ok) throw new ToolError('INVALID_REGEX', `Invalid regex: ${c.reason}`, 'use JavaScript regex syntax, e.g. ^Get.*Async$');
      // The linear engine is 30-60x slower per name than the backtracking one. A pattern it accepts
      // without the catastrophic shapes runs on the backtracking engine: every regex in the engine
      // process falls back to linear time after REGEX_BACKTRACKS_BEFORE_FALLBACK steps anyway, and
      // the name scan looks at the deadline every 256 names.
      const re = c.linear && !catastrophicShape(query) ? new RegExp(query) : c.re;
      // Text every match must contain (one literal per alternative) is looked for first.
      // Text every match must contain (one literal per alternative) is looked for first, after
      // the letter masks (reading the strings of 100,000 names costs as much as the regex).
      const literals = requiredLiterals(query);
      const masks = literals?.map((l) => maskOf(l));
      return (d, i, p) => {
        if (literals && masks && !masks.some((m) => d.hasChars(i, m))) return -1;
        const name = d.names[i] ?? '';
        if (literals && !literals.some((l) => name.includes(l))) return -1;
        if (!re.test(name)) return -1;
        const k = matchExact(d, i, p);
        return k >= 0 ? k : 3e6 + name.length / 100;
      };
    }
  }
}

/**
 * For a pattern without groups: per top-level alternative, its longest run of plain characters
 * that every match of the alternative contains (`^Get.*Async$` → "Async", `Handler|Mapper` →
 * "Handler", "Mapper"). Undefined when some alternative has no run of two or more characters, or
 * the pattern has groups (no prefilter then). A character followed by `?`, `*` or `{` is optional
 * and ends a run; `+` ends a run after its character; escapes like \d or \b end a run.
 */
export function requiredLiterals(source: string): string[] | undefined {
  if (source.includes('(')) return undefined;
  const out: string[] = [];
  let best = '';
  let run = '';
  const end = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  const branchDone = (): boolean => {
    end();
    if (best.length < 2) return false;
    out.push(best);
    best = '';
    return true;
  };
  const optionalNext = (k: number): boolean => /^[?*{]$/.test(source[k + 1] ?? '');
  for (let k = 0; k < source.length; k++) {
    const c = source[k] ?? '';
    if (c === '|') {
      if (!branchDone()) return undefined;
    } else if (c === '[') {
      end();
      // skip the class (a `]` right after `[` or `[^` is a member)
      k++;
      if (source[k] === '^') k++;
      if (source[k] === ']') k++;
      while (k < source.length && source[k] !== ']') k += source[k] === '\\' ? 2 : 1;
    } else if (c === '\\') {
      const n = source[k + 1] ?? '';
      k++;
      if (/[A-Za-z0-9]/.test(n) || optionalNext(k)) end(); // \d \w \b \u…: not one plain character
      else run += n;
    } else if (c === '?' || c === '*' || c === '{') {
      end();
      if (c === '{') while (k < source.length && source[k] !== '}') k++;
    } else if (c === '+' || c === '.' || c === '^' || c === '$' || c === ')' || c === '}' || c === ']') {
      end();
    } else if (optionalNext(k)) {
      end(); // an optional character
    } else run += c;
  }
  return branchDone() ? out : undefined;
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
