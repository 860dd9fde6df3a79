/**
 * search_text: candidate files from the token index (a guaranteed superset for literals with
 * identifier characters), verified against the live bytes; regexes and literals the index cannot
 * narrow go to a bounded ripgrep scan. Every hit is verified now, on disk, so a stale index can
 * miss a file but never invent a match; files changed since indexing are added as candidates.
 */
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '../core/errors';
import { LOWER_ONLY_PROBE_FILES, MAX_REGEX_CHARS, MAX_SCAN_MATCHES, MAX_TOKEN_EXPANSION, MAX_VERIFIED_FILES_PER_QUERY, PREVIEW_CHARS, SEARCH_COUNT_CHEAP_FILES, SEARCH_WALK_CACHE_ENTRIES, SEARCH_WALK_FIRST_FILES, TEXT_SCAN_DEADLINE_MS } from '../core/limits';
import { looksBinary } from '../core/paths';
import { matchDocs } from '../index/textIndex';
import { literalConstraints, LOWER_ONLY_MARK, type TokenConstraint } from '../index/tokens';
import { CLASS_RANK, classify, type FileClass } from '../workspace/fileClass';
import type { Engine } from './engine';
import type { FileRow } from './fileCatalog';
import { runRipgrep, type RgMatch } from './ripgrep';

/** Terms in one FTS4 MATCH expression (longer OR lists are split and unioned). */
const FTS_TERMS_PER_MATCH = 200;

export type TextMode = 'literal' | 'word' | 'regex';
export type CaseMode = 'smart' | 'sensitive' | 'insensitive';

export interface TextQuery {
  query: string;
  mode: TextMode;
  caseMode: CaseMode;
  pathGlob?: string | undefined;
  classes?: readonly FileClass[] | undefined;
  /** Only these paths (e.g. the files of a project). */
  paths?: ReadonlySet<string> | undefined;
  /** Names `paths` in the walk cache key (e.g. the project asked for); hashed from the set when absent. */
  scopeKey?: string | undefined;
  /** Position of the first hit to return in the total order (class, path, line, column). */
  offset: number;
  limit: number;
  deadlineAt: number;
  /** Count every match (the total is exact unless the deadline stops it); else exact only when cheap. */
  count?: boolean | undefined;
}

export interface TextHit {
  path: string;
  line: number;
  column: number;
  endColumn: number;
  preview: string;
  fileClass: FileClass;
  /** The file changed since it was indexed (the hit itself is from the live bytes). */
  changedSinceIndex: boolean;
}

export interface TextSearchResult {
  hits: TextHit[];
  /** Exact total when every candidate was verified; undefined when counting stopped early. */
  total: number | undefined;
  /** Matches counted so far: the total when it is exact, else a lower bound. */
  totalAtLeast: number;
  /** Files with a match among those verified so far. */
  filesWithHits: number;
  strategy: 'index' | 'scan';
  strategyReason: string;
  /** Candidate files from the token index; undefined while the page was filled without asking it. */
  candidates: number | undefined;
  /** Files verified against the disk for this query so far (across its pages). */
  verifiedFiles: number;
  /**
   * `limit`: the page is full and more rows may follow (nextCursor); `deadline`: the search stopped
   * at its deadline; `cap`: the regex scan stopped at MAX_SCAN_MATCHES.
   */
  truncated: 'limit' | 'deadline' | 'cap' | undefined;
  changedSinceIndex: number;
}

/**
 * Literal and word search walk the files in rank order and verify each one against its live
 * bytes, so the hits come in one total order. The rank: files whose indexed tokens include every
 * fragment of the query as a whole token (one cheap FTS4 lookup of exact terms) come first, then
 * the other candidate files (substring fragments expanded through the dictionary — the costly part,
 * done only when the first tier runs out) and files changed since indexing; within a tier by class
 * (source first), then path; within a file by line and column. A walk is kept per query and index
 * snapshot (SEARCH_WALK_CACHE_ENTRIES), so a later page or a count resumes where the last one
 * stopped and the page at offset n is exactly rows n.. of the unpaged answer.
 */
export async function searchText(engine: Engine, q: TextQuery): Promise<TextSearchResult> {
  if (q.query.length === 0) throw new ToolError('INVALID_ARGUMENT', 'The query is empty', 'pass the text to search for');
  const insensitive = q.caseMode === 'insensitive' || (q.caseMode === 'smart' && q.query === q.query.toLowerCase());
  const globMatch = q.pathGlob ? picomatch(q.pathGlob, { dot: true, nocase: false }) : undefined;
  const classSet = q.classes && q.classes.length > 0 ? new Set(q.classes) : undefined;
  const admit = (p: string, cls: FileClass) => (!globMatch || globMatch(p)) && (!classSet || classSet.has(cls)) && (!q.paths || q.paths.has(p));

  if (q.mode === 'regex') {
    if (q.query.length > MAX_REGEX_CHARS) {
      throw new ToolError('INVALID_REGEX', `The regular expression is longer than ${MAX_REGEX_CHARS} characters`, 'use a shorter pattern or a literal search');
    }
    return scan(engine, q, insensitive, admit, 'regex mode scans files with ripgrep (linear-time regex engine)');
  }
  const walk = walkFor(engine, q, insensitive, admit);
  const want = q.offset + q.limit;
  walk.advance(engine, want, q.deadlineAt);
  const hits = walk.page(engine, q.offset, q.limit);
  // The total: exact when the rest is cheap (few files left) or asked for, else a lower bound.
  if (!walk.done && (q.count || walk.remainingAtMost() <= SEARCH_COUNT_CHEAP_FILES)) walk.advance(engine, Infinity, q.deadlineAt, q.count ? MAX_VERIFIED_FILES_PER_QUERY : SEARCH_COUNT_CHEAP_FILES);
  const deadline = !walk.done && walk.counted < want;
  return {
    hits,
    total: walk.done ? walk.counted : undefined,
    totalAtLeast: walk.counted,
    filesWithHits: walk.hitFiles.length,
    strategy: walk.all ? 'scan' : 'index',
    strategyReason: walk.all
      ? `${walk.allReason}: every file is read in rank order`
      : `candidate files from the token index (whole-token matches first${walk.allReason ? `; ${walk.allReason}, so every other file is read too` : ''}), every hit verified against the file on disk now`,
    candidates: walk.candidateCount(),
    verifiedFiles: walk.verified,
    truncated: deadline ? 'deadline' : walk.done && walk.counted <= q.offset + hits.length ? undefined : 'limit',
    changedSinceIndex: walk.changedWithHits,
  };
}

interface CreatedEntry {
  path: string;
  fileClass: FileClass;
  /** A file created since indexing has no catalog row. */
  created: true;
}
type Entry = FileRow | CreatedEntry;
const rowOf = (e: Entry): FileRow | undefined => ('created' in e ? undefined : e);
const byRank = (a: Entry, b: Entry) => CLASS_RANK[a.fileClass] - CLASS_RANK[b.fileClass] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

interface HitFile {
  path: string;
  fileClass: FileClass;
  count: number;
  changed: boolean;
}

class Walk {
  /**
   * Tier 0: whole-token candidates; tier 1: the other candidates and the changed files (asked
   * for lazily). Both in rank order; the walk takes class by class (source first), tier 0 then
   * tier 1 within a class, so every source hit comes before any test hit.
   */
  private readonly l0: readonly Entry[];
  private l1: readonly Entry[] | undefined;
  private p0 = 0;
  private p1 = 0;
  /** The class being walked (CLASS_RANK). */
  private cls = 0;
  private finished = false;
  counted = 0;
  verified = 0;
  changedWithHits = 0;
  readonly hitFiles: HitFile[] = [];
  /** Hits before hitFiles[k]. */
  private readonly before: number[] = [];
  /** The index cannot narrow the query: tier 0 is every file. */
  all = false;
  allReason = '';
  /** Tier 0's file ids, and the size of tier 0 + 1 once tier 1 is known. */
  private readonly exact: Set<number> = new Set();
  private fullSize: number | undefined;
  /** Whole-token constraints are the query's only constraints: tier 1 is just the changed files. */
  private readonly exactIsFull: boolean;
  private readonly matcher: LiteralMatcher;
  private readonly constraints: TokenConstraint[];
  /** Bytes of the files that had hits in the current call (the page reads them again). */
  private recent = new Map<string, Buffer>();
  private readonly catalogSize: number;
  /**
   * Tier 0b, with case counting and a capitalised open fragment (the query's first or last, which
   * may match inside a longer token): the tier-0 files that spell that fragment's whole token only
   * in lower case (asked for lazily). Walked after each class's tier 0 and before its tier 1; they
   * match only through a longer token, so after LOWER_ONLY_PROBE_FILES of them in a row without a
   * hit the rest are left to tier 1, which keeps just those holding a longer token (see widen).
   * Deterministic: the switch depends on the files read, never on the page asked.
   */
  private l0b: readonly FileRow[] | undefined;
  private p0b = 0;
  private readonly lowerWanted: boolean = false;
  private readonly lower: Set<number> = new Set();
  private readonly lowerRead: Set<number> = new Set();
  private lowerMisses = 0;
  private lowerLeft = false;
  /** Case counts: the lower-only marks narrow the candidates. */
  private readonly caseSensitive: boolean;
  /** Marks of the exact, capitalised fragments: a file holding one cannot match. */
  private readonly casedExact: readonly string[] = [];

  constructor(
    engine: Engine,
    q: TextQuery,
    insensitive: boolean,
    private readonly admit: (p: string, c: FileClass) => boolean,
    private readonly pending: ReadonlySet<string>,
  ) {
    this.matcher = new LiteralMatcher(q.query, q.mode === 'word', insensitive);
    this.caseSensitive = !insensitive;
    const { constraints, unindexable } = literalConstraints(q.query, q.mode === 'word');
    this.constraints = constraints;
    this.exactIsFull = constraints.every((c) => c.kind === 'exact');
    const catalog = engine.catalog();
    this.catalogSize = catalog.size;
    if (unindexable || constraints.length === 0) {
      this.all = true;
      this.allReason = unindexable ? 'the query contains an identifier run longer than the indexed token length' : 'the query has no identifier of 2+ characters to look up';
      const created = this.created(engine);
      this.l0 = created.length === 0 ? catalog.all() : [...catalog.all(), ...created].sort(byRank);
      this.l1 = [];
      return;
    }
    // Tier 0: files whose tokens include every fragment whole, unchanged since indexing. When case
    // counts, a file that spells a capitalised fragment's whole token only in lower case (the
    // index's case signal) holds no match of it as a whole token: for an exact fragment it cannot
    // match at all and is never read; for an open one it is tier 0b (see `lower`).
    const whole = constraints.map((c) => [c.text]);
    this.casedExact = insensitive ? [] : constraints.filter((c) => c.kind === 'exact' && c.cased).map((c) => LOWER_ONLY_MARK + c.text);
    const casedOpen = insensitive ? [] : constraints.filter((c) => c.kind !== 'exact' && c.cased).map((c) => LOWER_ONLY_MARK + c.text);
    this.lowerWanted = casedOpen.length > 0;
    const rows: FileRow[] = [];
    for (const id of candidateFiles(engine, whole, [...this.casedExact, ...casedOpen])) {
      const row = catalog.get(id);
      if (row && !pending.has(row.path)) {
        this.exact.add(id);
        rows.push(row);
      }
    }
    this.l0 = sortByRank(engine, rows);
  }

  /** Tier 0b (see `l0b`): tier 0 without the case signal, minus tier 0. */
  private lowerTier(engine: Engine): readonly FileRow[] {
    const catalog = engine.catalog();
    const rows: FileRow[] = [];
    for (const id of candidateFiles(engine, this.constraints.map((c) => [c.text]), this.casedExact)) {
      const row = catalog.get(id);
      if (row && !this.exact.has(id) && !this.pending.has(row.path)) {
        this.lower.add(id);
        rows.push(row);
      }
    }
    return sortByRank(engine, rows);
  }

  /** The next file to read, or undefined when the walk is done. */
  private next(engine: Engine): Entry | undefined {
    for (;;) {
      const a = this.l0[this.p0];
      if (a && CLASS_RANK[a.fileClass] === this.cls) {
        this.p0++;
        return a;
      }
      const c = this.lowerNext(engine);
      if (c && CLASS_RANK[c.fileClass] === this.cls) {
        this.p0b++;
        return c;
      }
      this.l1 ??= this.widen(engine);
      const b = this.l1[this.p1];
      if (b && CLASS_RANK[b.fileClass] === this.cls) {
        this.p1++;
        return b;
      }
      if (!a && !c && !b) {
        this.finished = true;
        return undefined;
      }
      this.cls = Math.min(a ? CLASS_RANK[a.fileClass] : Infinity, c ? CLASS_RANK[c.fileClass] : Infinity, b ? CLASS_RANK[b.fileClass] : Infinity);
    }
  }

  /** The next tier-0b file, if any is still to be read here (none once the rest was left to tier 1). */
  private lowerNext(engine: Engine): FileRow | undefined {
    if (!this.lowerWanted || this.lowerLeft) return undefined;
    this.l0b ??= this.lowerTier(engine);
    return this.l0b[this.p0b];
  }

  /** After a tier-0b file is read: counts misses in a row and leaves the rest to tier 1 when they pile up. */
  private readLower(id: number, hits: number): void {
    this.lowerRead.add(id);
    this.lowerMisses = hits > 0 ? 0 : this.lowerMisses + 1;
    // Only before tier 1 is built: once it is, it leaves out every tier-0b file (they are read here).
    if (this.lowerMisses >= LOWER_ONLY_PROBE_FILES && this.l1 === undefined) this.lowerLeft = true;
  }

  private created(engine: Engine): CreatedEntry[] {
    const catalog = engine.catalog();
    const out: CreatedEntry[] = [];
    for (const p of this.pending) if (!catalog.byRelPath(p)) out.push({ path: p, fileClass: classify(p), created: true });
    return out;
  }

  /** Tier 1: the other candidates (every constraint expanded through the dictionary) and the changed files. */
  private widen(engine: Engine): Entry[] {
    const catalog = engine.catalog();
    const out: Entry[] = this.created(engine);
    for (const p of this.pending) {
      const row = catalog.byRelPath(p);
      if (row) out.push(row);
    }
    if (!this.exactIsFull) {
      const groups: Term[][] = [];
      for (const c of this.constraints) {
        const terms = engine.dict.expand(c, MAX_TOKEN_EXPANSION);
        // A capitalised open fragment's own whole token counts only where the file capitalises it.
        if (terms !== undefined) groups.push(c.cased && c.kind !== 'exact' && this.caseSensitive ? terms.map((x) => (x === c.text ? { term: x, unless: LOWER_ONLY_MARK + x } : x)) : terms);
      }
      if (groups.length === 0) {
        // Too many tokens contain the fragments: every file is a candidate (still verified).
        this.allReason = 'the query fragments match too many indexed tokens';
        for (const row of catalog.all()) if (!this.exact.has(row.id) && !this.inLower(row.id) && !this.pending.has(row.path)) out.push(row);
      } else {
        for (const id of candidateFiles(engine, groups, this.casedExact)) {
          const row = catalog.get(id);
          if (row && !this.exact.has(id) && !this.inLower(id) && !this.pending.has(row.path)) out.push(row);
        }
      }
    }
    this.fullSize = this.exact.size + out.length;
    return out.some((e) => 'created' in e) ? out.sort(byRank) : sortByRank(engine, out as FileRow[]);
  }

  /** A tier-0b file that l0 reads (all of them, or those read before the rest was left to tier 1). */
  private inLower(id: number): boolean {
    return this.lowerLeft ? this.lowerRead.has(id) : this.lower.has(id);
  }

  get done(): boolean {
    return this.finished;
  }

  candidateCount(): number | undefined {
    if (this.all) return undefined;
    return this.exactIsFull ? this.exact.size : this.fullSize === undefined ? undefined : this.fullSize + (this.lowerLeft ? this.lowerRead.size : this.lower.size);
  }

  /** Files left to read, at most. */
  remainingAtMost(): number {
    const left0 = this.l0.length - this.p0 + (this.lowerWanted && !this.lowerLeft ? (this.l0b ? this.l0b.length - this.p0b : this.catalogSize) : 0);
    if (this.l1) return left0 + this.l1.length - this.p1;
    return left0 + this.pending.size + (this.exactIsFull ? 0 : this.catalogSize);
  }

  /** Reads files in order until `want` hits are counted, the walk is done, the deadline or `maxFiles`. */
  advance(engine: Engine, want: number, deadlineAt: number, maxFiles = Infinity): void {
    this.recent = new Map();
    let read = 0;
    while (!this.finished && this.counted < want && read < maxFiles) {
      if ((read & 7) === 7 && Date.now() > deadlineAt) return;
      const e = this.next(engine);
      if (!e) return;
      const row = rowOf(e);
      if (!this.admit(e.path, e.fileClass)) continue;
      if (row?.binary && !this.pending.has(e.path)) continue;
      let bytes: Buffer;
      let mtimeMs: number;
      try {
        ({ bytes, mtimeMs } = engine.live.read(path.join(engine.root, e.path), e.path));
      } catch {
        continue; // deleted or unreadable since indexing: nothing to verify
      }
      this.verified++;
      read++;
      const n = this.matcher.count(bytes);
      if (row && this.lower.has(row.id)) this.readLower(row.id, n);
      if (n === 0) continue;
      const changed = !row || Math.floor(mtimeMs) !== row.mtimeMs || bytes.length !== row.size;
      this.before.push(this.counted);
      this.hitFiles.push({ path: e.path, fileClass: e.fileClass, count: n, changed });
      this.counted += n;
      if (changed) this.changedWithHits++;
      if (this.recent.size < 64) this.recent.set(e.path, bytes);
    }
    // Nothing left in the lists: say so now (a page that ends exactly at the last hit is the last page).
    if (!this.finished && this.counted >= want) this.peekEnd(engine);
  }

  /** Marks the walk finished when no file is left to read (without reading one). */
  private peekEnd(engine: Engine): void {
    if (this.p0 < this.l0.length || this.lowerNext(engine)) return;
    if (!this.l1 && !this.exactIsFull) return; // unknown without the costly widening
    this.l1 ??= this.widen(engine);
    if (this.p1 >= this.l1.length) this.finished = true;
  }

  /** The hits at positions offset..offset+limit of the order (reads only the files they are in). */
  page(engine: Engine, offset: number, limit: number): TextHit[] {
    const out: TextHit[] = [];
    if (limit <= 0 || offset >= this.counted) return out;
    // The file holding hit `offset`: the last k with before[k] <= offset.
    let lo = 0;
    let hi = this.hitFiles.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.before[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    for (let k = lo; k < this.hitFiles.length && out.length < limit; k++) {
      const f = this.hitFiles[k]!;
      const skip = k === lo ? offset - this.before[k]! : 0;
      let bytes = this.recent.get(f.path);
      if (!bytes) {
        try {
          ({ bytes } = engine.live.read(path.join(engine.root, f.path), f.path));
        } catch {
          continue;
        }
      }
      for (const h of this.matcher.hits(bytes, skip, Math.min(limit - out.length, f.count - skip))) {
        out.push({ path: f.path, line: h.line, column: h.column, endColumn: h.column + h.length, preview: preview(h.lineText, h.column, h.length), fileClass: f.fileClass, changedSinceIndex: f.changed });
      }
    }
    this.recent = new Map();
    return out;
  }
}

/** Catalog position of every file id (the catalog is in rank order), per snapshot. */
const ranks = new WeakMap<Engine, { version: string; pos: Map<number, number> }>();

/** Rows in rank order, sorted by catalog position (numbers, not path strings). */
function sortByRank(engine: Engine, rows: FileRow[]): FileRow[] {
  const version = engine.version;
  let r = ranks.get(engine);
  if (!r || r.version !== version) {
    const pos = new Map<number, number>();
    engine.catalog().all().forEach((row, i) => pos.set(row.id, i));
    ranks.set(engine, (r = { version, pos }));
  }
  const pos = r.pos;
  const keyed = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) keyed[i] = pos.get(rows[i]!.id)! * 2 ** 21 + i; // position, then input index
  keyed.sort();
  return Array.from(keyed, (k) => rows[k % 2 ** 21]!);
}

/** Walks by query and snapshot, most recently used last. */
const walks = new WeakMap<Engine, Map<string, Walk>>();

/** Drops the kept walks and scans of an engine (tests: page through a walk started cold). */
export function forgetSearches(engine: Engine): void {
  walks.delete(engine);
  scans.delete(engine);
}

function walkFor(engine: Engine, q: TextQuery, insensitive: boolean, admit: (p: string, c: FileClass) => boolean): Walk {
  const pending = engine.pendingPaths();
  const key = JSON.stringify([
    engine.version, q.query, q.mode, insensitive, q.pathGlob ?? '', [...(q.classes ?? [])].sort(),
    q.paths ? (q.scopeKey ?? digest([...q.paths].sort().join('\0'))) : '',
    pending.size <= 64 ? [...pending].sort() : digest([...pending].sort().join('\0')),
  ]);
  let cache = walks.get(engine);
  if (!cache) walks.set(engine, (cache = new Map()));
  let w = cache.get(key);
  if (w) cache.delete(key);
  else w = new Walk(engine, q, insensitive, admit, new Set(pending));
  cache.set(key, w);
  while (cache.size > SEARCH_WALK_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  return w;
}

function digest(s: string): string {
  return crypto.createHash('sha1').update(s).digest('base64url');
}

/** An indexed token to look up, or a token that counts only in documents without `unless`. */
type Term = string | { term: string; unless: string };

function termExpr(t: Term): string {
  return typeof t === 'string' ? `"${t}"` : `("${t.term}" NOT "${t.unless}")`;
}

/** File ids whose indexed document satisfies every group (a group: any one of its terms) and holds none of `without`. */
function candidateFiles(engine: Engine, groups: Term[][], without: readonly string[] = []): Set<number> {
  groups.sort((a, b) => a.length - b.length);
  if (groups.some((g) => g.length === 0)) return new Set(); // a required fragment matches no indexed token
  const docs = docFiles(engine);
  const toFiles = (docIds: number[], keep?: Set<number>) => {
    const out = new Set<number>();
    for (const d of docIds) {
      const id = docs.get(d);
      if (id !== undefined && (!keep || keep.has(id))) out.add(id);
    }
    return out;
  };
  const weight = (g: Term[]) => g.reduce((n, t) => n + (typeof t === 'string' ? 1 : 2), 0);
  if (groups.reduce((n, g) => n + weight(g), 0) + without.length <= FTS_TERMS_PER_MATCH) {
    // One MATCH: FTS4 intersects the groups itself (AND of parenthesised ORs), minus `without` (NOT binds tighter than AND: the same set).
    return toFiles(matchDocs(engine.store, groups.map((g) => `(${g.map(termExpr).join(' OR ')})`).join(' ') + without.map((t) => ` NOT "${t}"`).join('')));
  }
  let ids: Set<number> | undefined;
  for (const terms of groups) {
    const next = new Set<number>();
    // A chunk holds at most one narrowed term (two FTS terms).
    for (let i = 0; i < terms.length; i += FTS_TERMS_PER_MATCH - 1) {
      for (const id of toFiles(matchDocs(engine.store, terms.slice(i, i + FTS_TERMS_PER_MATCH - 1).map(termExpr).join(' OR ')), ids)) next.add(id);
    }
    ids = next;
    if (ids.size === 0) break;
  }
  if (ids && without.length) for (const id of toFiles(matchDocs(engine.store, without.map((t) => `"${t}"`).join(' OR ')))) ids.delete(id);
  return ids ?? new Set();
}

/** Current document id → file id, per snapshot (a tombstone document maps to nothing). */
const docMaps = new WeakMap<Engine, { version: string; map: DocFiles }>();

/** File id of each current document id (0: none), read in one row per snapshot. */
interface DocFiles {
  get(doc: number): number | undefined;
}

function docFiles(engine: Engine): DocFiles {
  const version = engine.version;
  const hit = docMaps.get(engine);
  if (hit && hit.version === version) return hit.map;
  // Two lists in one scan (the same row order), joined in SQL: stepping sql.js row by row costs
  // ~5 µs a row, and the first search after every change of the index paid it for every file.
  const [docsJoined, idsJoined] = engine.store.rows('SELECT group_concat(doc_id), group_concat(id) FROM files WHERE doc_id IS NOT NULL')[0] ?? [];
  const docs = typeof docsJoined === 'string' ? docsJoined.split(',').map(Number) : typeof docsJoined === 'number' ? [docsJoined] : [];
  const ids = typeof idsJoined === 'string' ? idsJoined.split(',').map(Number) : typeof idsJoined === 'number' ? [idsJoined] : [];
  let max = 0;
  for (const d of docs) if (d > max) max = d;
  const byDoc = new Int32Array(max + 1);
  for (let i = 0; i < docs.length; i++) byDoc[docs[i]!] = ids[i]!;
  const map: DocFiles = { get: (doc) => (doc > 0 && doc < byDoc.length && byDoc[doc] !== 0 ? byDoc[doc] : undefined) };
  docMaps.set(engine, { version, map });
  return map;
}

/** Regex scans by query and snapshot: page 2 pages the same scan, even one its match cap stopped. */
const scans = new WeakMap<Engine, Map<string, { rows: ScanRow[]; stopped: 'cap' | 'deadline' | undefined; files: number }>>();

interface ScanRow {
  m: RgMatch;
  cls: FileClass;
  row: FileRow | undefined;
}

async function scan(engine: Engine, q: TextQuery, insensitive: boolean, admit: (p: string, c: FileClass) => boolean, reason: string): Promise<TextSearchResult> {
  const catalog = engine.catalog();
  const key = JSON.stringify([engine.version, q.query, insensitive, q.pathGlob ?? '', [...(q.classes ?? [])].sort(), q.paths ? (q.scopeKey ?? digest([...q.paths].sort().join('\0'))) : '', engine.pendingPaths().size]);
  let cache = scans.get(engine);
  if (!cache) scans.set(engine, (cache = new Map()));
  let s = cache.get(key);
  if (s) cache.delete(key);
  else {
    const rg = await runRipgrep({
      cwd: engine.root,
      pattern: q.query,
      fixedStrings: false,
      caseInsensitive: insensitive,
      wordRegexp: false,
      globs: q.pathGlob ? [q.pathGlob] : [],
      include: engine.opts.include ?? [],
      maxMatches: MAX_SCAN_MATCHES,
      deadlineMs: Math.max(100, Math.min(TEXT_SCAN_DEADLINE_MS, q.deadlineAt - Date.now())),
    });
    const rows = rg.matches
      .map((m) => {
        const row = catalog.byRelPath(m.path);
        return { m, cls: row?.fileClass ?? classify(m.path), row };
      })
      .filter((x) => admit(x.m.path, x.cls));
    // Total order: class, path, line, column.
    rows.sort((a, b) => CLASS_RANK[a.cls] - CLASS_RANK[b.cls] || (a.m.path < b.m.path ? -1 : a.m.path > b.m.path ? 1 : a.m.line - b.m.line || a.m.column - b.m.column));
    s = { rows, stopped: rg.stopped, files: new Set(rows.map((r) => r.m.path)).size };
  }
  cache.set(key, s);
  while (cache.size > SEARCH_WALK_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string);
  const pending = engine.pendingPaths();
  const end = q.offset + q.limit;
  return {
    hits: s.rows.slice(q.offset, end).map(({ m, cls, row }) => ({
      path: m.path, line: m.line, column: m.column, endColumn: m.column + m.length, preview: preview(m.lineText, m.column, m.length), fileClass: cls,
      changedSinceIndex: !row || pending.has(m.path),
    })),
    total: s.stopped ? undefined : s.rows.length,
    totalAtLeast: s.rows.length,
    filesWithHits: s.files,
    strategy: 'scan',
    strategyReason: reason,
    candidates: undefined,
    verifiedFiles: catalog.size,
    // The rows collected are paged to the end; what the cap or deadline left unscanned is said once.
    truncated: end < s.rows.length ? 'limit' : s.stopped === 'deadline' ? 'deadline' : s.stopped === 'cap' ? 'cap' : undefined,
    changedSinceIndex: 0,
  };
}

/**
 * Finds a literal in raw bytes without decoding the whole file: Buffer.indexOf on the UTF-8 bytes
 * (ASCII-lowered copies for case-insensitive search of an ASCII query; a regex over the decoded
 * text otherwise). Line, column (1-based, UTF-16 units) and the line text are computed only for
 * the hits that are kept.
 */
export class LiteralMatcher {
  private readonly needle: Buffer;
  private readonly asciiFold: boolean;
  private readonly needleText: string;
  private readonly fallback: RegExp | undefined;

  constructor(private readonly literal: string, private readonly word: boolean, insensitive: boolean) {
    const ascii = /^[\x00-\x7f]*$/.test(literal);
    this.asciiFold = insensitive && ascii;
    this.fallback = insensitive && !ascii ? buildRegExp(literal, word, true) : undefined;
    this.needleText = this.asciiFold ? literal.toLowerCase() : literal;
    this.needle = Buffer.from(this.needleText, 'utf8');
  }

  /**
   * Calls `visit` with the byte offset of every match, in order, until it returns false. An ASCII
   * query searched case-insensitively runs over the file decoded as latin1 and lower-cased (one
   * native pass; offsets stay byte offsets, and no ASCII byte changes case wrongly).
   */
  private each(bytes: Buffer, visit: (i: number) => boolean): void {
    const n = this.needle.length;
    if (this.asciiFold) {
      const hay = bytes.toString('latin1').toLowerCase();
      const needle = this.needleText;
      for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + n)) {
        if (this.word && (isWordByte(hay.charCodeAt(i - 1)) || isWordByte(hay.charCodeAt(i + n)))) continue;
        if (!visit(i)) return;
      }
      return;
    }
    for (let i = bytes.indexOf(this.needle); i >= 0; i = bytes.indexOf(this.needle, i + n)) {
      if (this.word && (isWordByte(bytes[i - 1]) || isWordByte(bytes[i + n]))) continue;
      if (!visit(i)) return;
    }
  }

  /** Every match in the file (no line or column is computed). */
  count(bytes: Buffer): number {
    if (looksBinary(bytes)) return 0;
    if (this.fallback) return findAll(bytes.toString('utf8'), this.fallback, 0, 0).count;
    let count = 0;
    this.each(bytes, () => {
      count++;
      return true;
    });
    return count;
  }

  /** Matches number skip+1 .. skip+keep of the file, in order, with line, column and line text. */
  hits(bytes: Buffer, skip: number, keep: number): RawHit[] {
    if (looksBinary(bytes) || keep <= 0) return [];
    if (this.fallback) return findAll(bytes.toString('utf8'), this.fallback, skip, keep).hits;
    const hits: RawHit[] = [];
    let seen = 0;
    let line = 1;
    let lineStart = 0;
    let scanned = 0;
    this.each(bytes, (i) => {
      if (seen++ < skip) return true;
      for (let j = bytes.indexOf(10, scanned); j >= 0 && j < i; j = bytes.indexOf(10, j + 1)) {
        line++;
        lineStart = j + 1;
      }
      scanned = i;
      let end = bytes.indexOf(10, i);
      if (end < 0) end = bytes.length;
      const lineText = bytes.subarray(lineStart, end).toString('utf8').replace(/\r$/, '');
      const column = bytes.subarray(lineStart, i).toString('utf8').length + 1;
      hits.push({ line, column, length: Math.min(this.literal.length, Math.max(0, lineText.length - column + 1)), lineText });
      return hits.length < keep;
    });
    return hits;
  }
}

function isWordByte(b: number | undefined): boolean {
  return b !== undefined && ((b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 95);
}

export function buildRegExp(literal: string, word: boolean, insensitive: boolean): RegExp {
  const esc = literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const src = word ? `(?<![A-Za-z0-9_])${esc}(?![A-Za-z0-9_])` : esc;
  return new RegExp(src, insensitive ? 'gi' : 'g');
}

interface RawHit {
  line: number;
  column: number;
  length: number;
  lineText: string;
}

/** All matches of `re` in `text`: counted, with line/column for matches skip+1..skip+keep. */
export function findAll(text: string, re: RegExp, skip: number, keep: number): { hits: RawHit[]; count: number } {
  const hits: RawHit[] = [];
  let count = 0;
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    count++;
    if (count > skip && hits.length < keep) {
      for (let i = text.indexOf('\n', scanned); i >= 0 && i < m.index; i = text.indexOf('\n', i + 1)) {
        line++;
        lineStart = i + 1;
      }
      scanned = m.index;
      let end = text.indexOf('\n', m.index);
      if (end < 0) end = text.length;
      const lineText = text.slice(lineStart, end).replace(/\r$/, '');
      hits.push({ line, column: m.index - lineStart + 1, length: Math.min(m[0].length, lineText.length - (m.index - lineStart)), lineText });
    }
  }
  return { hits, count };
}

/** The hit's line, trimmed; long lines are cut to PREVIEW_CHARS around the match. */
export function preview(lineText: string, column: number, length: number): string {
  if (lineText.length <= PREVIEW_CHARS) return lineText.trim();
  const start = Math.max(0, column - 1 - Math.floor((PREVIEW_CHARS - length) / 2));
  const s = lineText.slice(start, start + PREVIEW_CHARS);
  return (start > 0 ? '…' : '') + s.trim() + (start + PREVIEW_CHARS < lineText.length ? '…' : '');
}
