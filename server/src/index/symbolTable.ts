/**
 * The in-memory symbol table search_symbol ranks and counts over: per declaration row a few
 * typed-array columns (file, ordinal, line, id hash, kind, flags, qualified-name length, scope),
 * rows grouped by name (a name's rows are contiguous), plus the name dictionary the query is
 * matched against. Only the rows of a page are read back from SQL.
 *
 * Built lazily from `symbol_rows` on the first search, then kept current in two segments:
 * - the base, read once (2-3 s of CPU and ~68 MiB with the name dictionary per million
 *   rows, most of it sql.js stepping through the rows); big names' rows sorted by static rank,
 *   and per-name counts of rows that share no id, so common names neither rank nor count row by row;
 * - a delta with the current rows of the files written since, re-read when more are written;
 *   base rows of those files are dead. When the delta outgrows a quarter of the base (or
 *   SYMBOL_TABLE_DELTA_MIN_ROWS), the base is rebuilt, so the total rebuild work during a cold
 *   index stays linear.
 * Writes are noticed by temporary triggers on `symbol_rows` (connection-only, never persisted)
 * that record the file ids of inserted, updated and deleted rows in `temp.symbol_rows_written`,
 * whoever writes them; a rolled-back write rolls its record back with it. The table reads SQL
 * state whenever it refreshes (never inside a transaction: reads are synchronous).
 *
 * Symbol ids are grouped exactly without holding id strings: rows share a group when their
 * `sid_hash` is equal and their stored id parts (sid, form, qn, scope, name, file for path-based
 * ids) are equal; a hash whose rows disagree on those parts ("suspect": a 32-bit collision, or one
 * id stored in two forms) is resolved by reading the real ids of its rows.
 */
import { SYMBOL_TABLE_DELTA_MIN_ROWS, SYMBOL_TABLE_READ_STEP_FILES } from '../core/limits';
import { runSteps, timeSlice } from '../core/timeSlice';
import { TYPE_KINDS } from '../syntax/types';
import type { IndexStore } from './store';
import { SymbolNames } from './symbolNames';
import type { Statement } from 'sql.js';
import { ensureSymbolTables, SID_FORM_PATH, SID_FORM_PREFIX, SID_FORM_QN, SIGNATURE_PACKED } from './symbolTables';
import { emptySegment, lowerBound, ROW_DUP, ROW_QN, ROW_SUSPECT, ROW_TYPE, rowsByHash, sortBigNames, sortedHas, SymbolSegment } from './symbolSegment';

export { ROW_DUP, ROW_GENERATED, ROW_QN, ROW_SUSPECT, ROW_TEST, ROW_TYPE, rowsInStaticOrder, staticRank, SymbolSegment } from './symbolSegment';

/** What a search hit shows of a row beyond the in-memory columns. */
export interface SymbolRowDetails {
  symbolId: string;
  qualifiedName: string;
  kind: string;
  signature: string;
  endLine: number;
  column: number;
  extendedType: string | undefined;
}


export class SymbolTable {
  /** Names matched by queries; ids index `nameStart` of the segments. */
  readonly names = new SymbolNames();
  base: SymbolSegment = emptySegment(0);
  delta: SymbolSegment = emptySegment(0);
  /** Files whose base rows are dead (their current rows are in the delta). */
  deadInBase = new Uint8Array(0);
  /** Group keys of suspect rows by row key (fileId * 32768 + ordinal). */
  readonly suspectKeys = new Map<number, number>();
  private readonly suspectIds = new Map<string, number>();
  /** Symbol string id → value (kinds, namespaces), loaded on demand. */
  private readonly strings = new Map<number, string>();
  /** Symbol string value → id (ids never change; strings only get added). */
  private readonly stringIdCache = new Map<string, number>();
  /** Qualified-name prefix length per scope id ("Ns.Container." → 13); -1 unknown. */
  private prefixLen = new Int32Array(0);
  /** Lower-cased qualified-name prefix per scope id (for qualified queries), loaded on first use. */
  private prefixLower: (string | undefined)[] | undefined;
  /** The base's id hashes, sorted (delta rows are checked against them). */
  private baseSorted = new Uint32Array(0);
  /** Base rows in baseSorted's order (baseHashRows[i] has hash baseSorted[i]); undefined above 2^21 rows. */
  private baseHashRows: Uint32Array | undefined;
  private readonly deltaFiles = new Set<number>();
  /**
   * Per base name: rows that share no id (all kinds / without namespaces), and whether some rows
   * do: a query with no filter counts a name from these unless it is `touched` (rows in the delta
   * or dead in the base), reading only the rows that share ids (see ROW_DUP).
   */
  baseUnsharedAll = new Int32Array(0);
  baseUnsharedNoNamespace = new Int32Array(0);
  baseShared = new Uint8Array(0);
  touched = new Uint8Array(0);
  private readonly scopes = new Map<number, [string, string]>();
  private detailsStmt: Statement | undefined;
  private stale = true;
  /** Build statistics of the last base build (for the bench and logs). */
  lastBuild: { rows: number; ms: number; cpuMs: number; readMs: number; sharedIdsMs: number; countMs: number } | undefined;

  constructor(private readonly store: IndexStore) {}

  /** Brings the table to the committed SQL state, in one piece (a build in slices under way is finished at once). */
  refresh(): void {
    if (this.building) {
      const steps = this.building.steps;
      this.building = undefined;
      runSteps(steps);
    }
    const work = this.nextWork();
    if (work === 'base') this.buildBase();
    else if (work === 'delta') this.buildDelta();
  }

  /**
   * Brings the table to the committed SQL state without holding the thread for a base build: one
   * in slices under way (`prebuild`) is awaited — from now on yielding only to the event loop, not
   * to the cheap questions in flight, since one of them waits for it — and one that is needed is
   * run in slices. A delta re-read stays in one piece (a few files' rows).
   */
  async ready(): Promise<void> {
    for (;;) {
      if (this.building) {
        this.building.urgent = true;
        await this.building.done;
        continue;
      }
      const work = this.nextWork();
      if (work === 'delta') this.buildDelta();
      if (work !== 'base') return;
      await this.buildSliced(timeSlice(), true);
    }
  }

  /**
   * What bringing the table current takes: a base build (first use, triggers missing, or a delta
   * grown past a quarter of the base), a delta re-read (the files written since are taken into
   * `deltaFiles`), or nothing.
   */
  private nextWork(): 'base' | 'delta' | 'none' {
    // Triggers missing (first use, or the table was dropped and made again): read everything.
    if (this.stale || this.store.rows("SELECT count(*) FROM temp.sqlite_master WHERE type = 'trigger' AND name LIKE 'symbol_rows_written_%'")[0]?.[0] !== 3) return 'base';
    const written = this.store.rows('SELECT file_id FROM temp.symbol_rows_written');
    if (written.length === 0) return 'none';
    this.store.db.run('DELETE FROM temp.symbol_rows_written');
    for (const r of written) this.deltaFiles.add(r[0] as number);
    return this.deltaTooBig() ? 'base' : 'delta';
  }

  /** Counted C-side, by primary key: a delta too big to keep is not read twice. */
  private deltaTooBig(): boolean {
    const files = [...this.deltaFiles];
    const limit = Math.max(SYMBOL_TABLE_DELTA_MIN_ROWS, this.base.size / 4);
    let rows = 0;
    for (let i = 0; i < files.length && rows <= limit; i += 500) {
      const chunk = files.slice(i, i + 500);
      rows += Number(this.store.rows(`SELECT count(*) FROM symbol_rows WHERE file_id IN (${chunk.map(() => '?').join(',')})`, chunk)[0]?.[0] ?? 0);
    }
    return rows > limit;
  }

  /** Forgets everything: the next refresh reads all rows. */
  invalidate(): void {
    this.building = undefined; // a build under way is abandoned: it read what is now to be forgotten
    this.stale = true;
  }

  segments(): SymbolSegment[] {
    return this.delta.size > 0 ? [this.base, this.delta] : [this.base];
  }

  /** True when base row `r` belongs to a file whose rows were re-read into the delta. */
  deadBaseRow(r: number): boolean {
    return (this.deadInBase[this.base.fileId[r] ?? 0] ?? 0) !== 0;
  }

  /** The group (symbol id) key of a row: its id hash, or an exact key for suspect rows. */
  groupKey(seg: SymbolSegment, r: number): number {
    const h = seg.sidHash[r] ?? 0;
    if (((seg.flags[r] ?? 0) & ROW_SUSPECT) === 0) return h;
    return this.suspectKeys.get((seg.fileId[r] ?? 0) * 32768 + (seg.ordinal[r] ?? 0)) ?? h;
  }

  /** A symbol string (kind, namespace) by id. */
  string(id: number): string {
    let v = this.strings.get(id);
    if (v === undefined) {
      v = String(this.store.rows('SELECT value FROM symbol_strings WHERE id = ?', [id])[0]?.[0] ?? '');
      this.strings.set(id, v);
    }
    return v;
  }

  /** Ids of the given symbol strings (kinds); values not stored are left out. */
  stringIds(values: readonly string[]): number[] {
    const out: number[] = [];
    const missing: string[] = [];
    for (const v of values) {
      const id = this.stringIdCache.get(v);
      if (id === undefined) missing.push(v);
      else out.push(id);
    }
    if (missing.length > 0) {
      for (const r of this.store.rows(`SELECT id, value FROM symbol_strings WHERE value IN (${missing.map(() => '?').join(',')})`, missing)) {
        this.stringIdCache.set(r[1] as string, r[0] as number);
        out.push(r[0] as number);
      }
    }
    return out;
  }

  /** The lower-cased qualified name of a row (reads `qn` for the rare rows that store one). */
  qualifiedLower(seg: SymbolSegment, r: number): string {
    const name = this.names.lower[this.nameOf(seg, r)] ?? '';
    if (((seg.flags[r] ?? 0) & ROW_QN) !== 0) {
      return String(this.store.rows('SELECT qn FROM symbol_rows WHERE file_id = ? AND ordinal = ?', [seg.fileId[r] ?? 0, seg.ordinal[r] ?? 0])[0]?.[0] ?? name).toLowerCase();
    }
    const scope = seg.scope[r] ?? 0;
    let p = this.prefixLower?.[scope];
    if (p === undefined) {
      this.loadScopePrefixes();
      p = this.prefixLower?.[scope] ?? '';
    }
    return p + name;
  }

  /**
   * The stored fields of one row as the view `symbols` gives them (SYMBOLS_V5_SQL), read by
   * primary key and assembled here: through the view a single row costs about 1 ms in sql.js.
   * `path` is the file's workspace path (for path-based ids).
   */
  details(fileId: number, ordinal: number, path: string): SymbolRowDetails | undefined {
    this.detailsStmt ??= this.store.db.prepare(
      'SELECT sid, flags, qn, name, kind, scope, signature, end_line, col, extended_type, modifiers FROM symbol_rows WHERE file_id = ? AND ordinal = ?',
    );
    const stmt = this.detailsStmt;
    try {
      stmt.bind([fileId, ordinal]);
      if (!stmt.step()) return undefined;
      const x = stmt.get();
      const sid = String(x[0]);
      const flags = Number(x[1]);
      const name = String(x[3]);
      const [ns, container] = this.scopeParts(Number(x[5]));
      const prefix = (ns ? ns + '.' : '') + (container ? container + '.' : '');
      const qualifiedName = x[2] === null ? prefix + name : String(x[2]);
      const symbolId =
        flags & SID_FORM_QN ? sid.slice(0, 2) + qualifiedName + sid.slice(2)
        : flags & SID_FORM_PATH ? `${path}#${qualifiedName}${sid}`
        : flags & SID_FORM_PREFIX ? sid.slice(0, 2) + prefix + sid.slice(2)
        : sid;
      let signature = String(x[6]);
      if (flags & SIGNATURE_PACKED) signature = signature.split('\u0002').join(this.string(Number(x[10]))).split('\u0001').join(name);
      return { symbolId, qualifiedName, kind: this.string(Number(x[4])), signature, endLine: Number(x[7]), column: Number(x[8]), extendedType: x[9] === null ? undefined : String(x[9]) };
    } finally {
      stmt.reset();
    }
  }

  /** Namespace and container of a scope id. */
  private scopeParts(scope: number): [string, string] {
    let p = this.scopes.get(scope);
    if (!p) {
      const r = this.store.rows('SELECT ns.value, sc.container FROM symbol_scopes sc JOIN symbol_strings ns ON ns.id = sc.namespace WHERE sc.id = ?', [scope])[0];
      p = [String(r?.[0] ?? ''), String(r?.[1] ?? '')];
      this.scopes.set(scope, p);
    }
    return p;
  }

  /** Name id of a row (binary search over the segment's name offsets). */
  nameOf(seg: SymbolSegment, r: number): number {
    const s = seg.nameStart;
    let lo = 0;
    let hi = s.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((s[mid] ?? 0) <= r) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Largest file id of any row. */
  maxFileId(): number {
    let m = 0;
    for (const seg of this.segments()) m = Math.max(m, seg.maxFileId);
    return m;
  }

  /** Approximate bytes held (typed arrays and name strings). */
  bytes(): number {
    return this.base.bytes() + this.delta.bytes() + this.baseSorted.byteLength + (this.baseHashRows?.byteLength ?? 0) + this.names.bytes() + (this.baseByFile ? this.baseByFile.rows.byteLength + this.baseByFile.fileStart.byteLength : 0);
  }

  /** A base build in slices (`prebuild`, `ready`); `refresh` finishes it at once. */
  private building: { steps: Generator<void, void>; done: Promise<void>; urgent: boolean } | undefined;

  /**
   * Builds the table, if it is not built, in steps with an event-loop turn between them
   * (`slice`: e.g. core/timeSlice.ts), so that the first search finds it ready without the build
   * holding the thread in one piece. Rows written meanwhile are seen by the triggers, installed
   * before the first read, and re-read as the delta. Resolves when the table is current.
   */
  prebuild(slice: () => Promise<void>): Promise<void> {
    if (this.building) return this.building.done;
    if (!this.stale) return Promise.resolve();
    return this.buildSliced(slice, false);
  }

  /** A base build in steps, `slice` between them (a plain time slice once it is `urgent`: someone waits for it). */
  private buildSliced(slice: () => Promise<void>, urgent: boolean): Promise<void> {
    const build = { steps: this.buildBaseSteps(), done: Promise.resolve(), urgent };
    const fast = timeSlice();
    this.building = build;
    build.done = (async () => {
      try {
        for (;;) {
          if (this.building !== build) return; // finished by refresh(), or abandoned by invalidate()
          if (build.steps.next().done) return;
          await (build.urgent ? fast() : slice());
        }
      } finally {
        if (this.building === build) this.building = undefined;
      }
    })();
    return build.done;
  }

  private buildBase(): void {
    runSteps(this.buildBaseSteps());
  }

  private *buildBaseSteps(): Generator<void, void> {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    ensureSymbolTables(this.store);
    this.store.db.exec(`CREATE TEMP TABLE IF NOT EXISTS symbol_rows_written (file_id INTEGER PRIMARY KEY);
      DELETE FROM temp.symbol_rows_written;
      CREATE TEMP TRIGGER IF NOT EXISTS symbol_rows_written_ins AFTER INSERT ON main.symbol_rows BEGIN INSERT OR IGNORE INTO symbol_rows_written VALUES (NEW.file_id); END;
      CREATE TEMP TRIGGER IF NOT EXISTS symbol_rows_written_del AFTER DELETE ON main.symbol_rows BEGIN INSERT OR IGNORE INTO symbol_rows_written VALUES (OLD.file_id); END;
      CREATE TEMP TRIGGER IF NOT EXISTS symbol_rows_written_upd AFTER UPDATE ON main.symbol_rows BEGIN INSERT OR IGNORE INTO symbol_rows_written VALUES (OLD.file_id); INSERT OR IGNORE INTO symbol_rows_written VALUES (NEW.file_id); END;`);
    this.names.clear();
    this.suspectKeys.clear();
    this.suspectIds.clear();
    this.strings.clear();
    this.stringIdCache.clear();
    this.scopes.clear();
    this.prefixLower = undefined;
    this.prefixLen = new Int32Array(0);
    this.deltaFiles.clear();
    this.delta = emptySegment(0);
    this.deadInBase = new Uint8Array(0);
    this.base = yield* this.readRowsSteps(undefined);
    // built now, with the base (not by the first saved file, which would wait for it)
    this.baseByFile = undefined;
    this.baseRowsOf();
    yield;
    const t1 = performance.now();
    yield* this.markDuplicatesSteps(true);
    yield;
    const t2 = performance.now();
    this.countGroups();
    this.touched = new Uint8Array(0);
    this.stale = false;
    const c = process.cpuUsage(c0);
    const t3 = performance.now();
    this.lastBuild = { rows: this.base.size, ms: t3 - t0, cpuMs: (c.user + c.system) / 1000, readMs: t1 - t0, sharedIdsMs: t2 - t1, countMs: t3 - t2 };
  }

  /** Base rows grouped by file (4 bytes per row): rows[fileStart[f] .. fileStart[f + 1]) are file f's. */
  private baseByFile: { fileStart: Uint32Array; rows: Uint32Array } | undefined;

  private baseRowsOf(): { fileStart: Uint32Array; rows: Uint32Array } {
    if (this.baseByFile) return this.baseByFile;
    const b = this.base;
    const fileStart = new Uint32Array(b.maxFileId + 2);
    for (let r = 0; r < b.size; r++) fileStart[(b.fileId[r] ?? 0) + 1]!++;
    for (let f = 0; f + 1 < fileStart.length; f++) fileStart[f + 1]! += fileStart[f] ?? 0;
    const at = fileStart.slice(0, fileStart.length - 1);
    const rows = new Uint32Array(b.size);
    for (let r = 0; r < b.size; r++) rows[at[b.fileId[r] ?? 0]!++] = r;
    return (this.baseByFile = { fileStart, rows });
  }

  private buildDelta(): void {
    const files = [...this.deltaFiles];
    const delta = this.readRows(files);
    let maxFile = 0;
    for (const f of files) if (f > maxFile) maxFile = f;
    const dead = new Uint8Array(Math.max(this.deadInBase.length, maxFile + 1));
    for (const f of files) dead[f] = 1;
    this.deadInBase = dead;
    this.delta = delta;
    runSteps(this.markDuplicatesSteps(false));
    // names whose precomputed counts no longer hold: those with delta rows, and the names of the
    // dead files' base rows (found through baseRowsOf, not by a pass over every base row)
    const touched = new Uint8Array(this.names.size);
    const ds = delta.nameStart;
    for (let n = 0; n + 1 < ds.length; n++) if ((ds[n + 1] ?? 0) > (ds[n] ?? 0)) touched[n] = 1;
    const { fileStart, rows: byFile } = this.baseRowsOf();
    for (const f of files) {
      for (let i = fileStart[f] ?? 0, end = fileStart[f + 1] ?? 0; i < end; i++) touched[this.nameOf(this.base, byFile[i] ?? 0)] = 1;
    }
    this.touched = touched;
  }

  /** Reads rows (all, or those of `files`) into a segment sorted by name id. */
  private readRows(files: number[] | undefined): SymbolSegment {
    return runSteps(this.readRowsSteps(files));
  }

  /** `readRows` in steps: all rows are read in file-id ranges (the same order as one scan), a step each. */
  private *readRowsSteps(files: number[] | undefined): Generator<void, SymbolSegment> {
    // six columns, packed: crossing from sql.js to JS costs per row and per column
    const cols = 'SELECT name, file_id * 32768 + ordinal, line, sid_hash, kind * 128 + (flags & 127), scope * 65536 + min(coalesce(length(qn), -1) + 1, 65535) FROM symbol_rows';
    let cap = files === undefined ? Number(this.store.rows('SELECT count(*) FROM symbol_rows')[0]?.[0] ?? 0) + 16 : 1024;
    let names = new Uint32Array(cap);
    let key = new Float64Array(cap);
    let line = new Uint32Array(cap);
    let sidHash = new Uint32Array(cap);
    let kindFlags = new Float64Array(cap);
    let scopeQn = new Float64Array(cap);
    let n = 0;
    const grow = (): void => {
      cap *= 2;
      const g = <T extends Uint32Array | Float64Array>(a: T, make: (k: number) => T): T => {
        const b = make(cap);
        b.set(a);
        return b;
      };
      names = g(names, (k) => new Uint32Array(k));
      key = g(key, (k) => new Float64Array(k));
      line = g(line, (k) => new Uint32Array(k));
      sidHash = g(sidHash, (k) => new Uint32Array(k));
      kindFlags = g(kindFlags, (k) => new Float64Array(k));
      scopeQn = g(scopeQn, (k) => new Float64Array(k));
    };
    const read = (sql: string, args: number[]): void => {
      const stmt = this.store.db.prepare(sql);
      try {
        stmt.bind(args);
        while (stmt.step()) {
          const x = stmt.get();
          if (n >= cap) grow();
          names[n] = this.names.add(x[0] as string);
          key[n] = x[1] as number;
          line[n] = x[2] as number;
          sidHash[n] = x[3] as number;
          kindFlags[n] = x[4] as number;
          scopeQn[n] = x[5] as number;
          n++;
        }
      } finally {
        stmt.free();
      }
    };
    if (files === undefined) {
      const maxFile = Number(this.store.rows('SELECT max(file_id) FROM symbol_rows')[0]?.[0] ?? 0);
      for (let from = 0; from <= maxFile; from += SYMBOL_TABLE_READ_STEP_FILES) {
        read(`${cols} WHERE file_id >= ? AND file_id < ?`, [from, from + SYMBOL_TABLE_READ_STEP_FILES]);
        yield;
      }
    } else for (let i = 0; i < files.length; i += 500) {
      const chunk = files.slice(i, i + 500);
      read(`${cols} WHERE file_id IN (${chunk.map(() => '?').join(',')})`, chunk);
    }
    // counting sort by name id
    const nameCount = this.names.size;
    const start = new Uint32Array(nameCount + 1);
    for (let i = 0; i < n; i++) start[(names[i] ?? 0) + 1]!++;
    for (let k = 0; k < nameCount; k++) start[k + 1]! += start[k] ?? 0;
    const at = start.slice(0, nameCount);
    const seg = emptySegment(n, start);
    let maxScope = 0;
    for (let i = 0; i < n; i++) maxScope = Math.max(maxScope, Math.floor((scopeQn[i] ?? 0) / 65536));
    this.ensureScopes(maxScope);
    const typeKind = new Map<number, boolean>();
    for (let i = 0; i < n; i++) {
      if ((i & 65535) === 65535) yield;
      const r = at[names[i] ?? 0]!++;
      const kf = kindFlags[i] ?? 0;
      const k = Math.floor(kf / 128);
      const f = kf % 128;
      let isType = typeKind.get(k);
      if (isType === undefined) {
        isType = TYPE_KINDS.has(this.string(k) as never);
        typeKind.set(k, isType);
      }
      const sq = scopeQn[i] ?? 0;
      const sc = Math.floor(sq / 65536);
      const q = (sq % 65536) - 1;
      const kk = key[i] ?? 0;
      const fid = Math.floor(kk / 32768);
      if (fid > seg.maxFileId) seg.maxFileId = fid;
      seg.fileId[r] = fid;
      seg.ordinal[r] = kk % 32768;
      seg.line[r] = line[i] ?? 0;
      seg.sidHash[r] = sidHash[i] ?? 0;
      seg.kind[r] = k;
      seg.flags[r] = (f & 3) | (isType ? ROW_TYPE : 0) | (q >= 0 ? ROW_QN : 0);
      seg.scope[r] = sc;
      seg.qnLen[r] = Math.min(65535, q >= 0 ? q : (this.prefixLen[sc] ?? 0) + (this.names.names[names[i] ?? 0]?.length ?? 0));
    }
    if (files === undefined) {
      yield;
      sortBigNames(seg);
    }
    return seg;
  }

  private ensureScopes(maxScope: number): void {
    if (maxScope < this.prefixLen.length) return;
    const from = this.prefixLen.length;
    const next = new Int32Array(Math.max(maxScope + 1, Math.ceil(from * 1.5)));
    next.set(this.prefixLen);
    const rows = this.store.rows(
      'SELECT sc.id, length(ns.value), length(sc.container) FROM symbol_scopes sc JOIN symbol_strings ns ON ns.id = sc.namespace WHERE sc.id >= ?',
      [from],
    );
    for (const r of rows) {
      const id = r[0] as number;
      if (id >= next.length) continue;
      const ns = r[1] as number;
      const c = r[2] as number;
      next[id] = (ns > 0 ? ns + 1 : 0) + (c > 0 ? c + 1 : 0);
    }
    this.prefixLen = next;
  }

  private loadScopePrefixes(): void {
    const out: (string | undefined)[] = [];
    for (const r of this.store.rows('SELECT sc.id, ns.value, sc.container FROM symbol_scopes sc JOIN symbol_strings ns ON ns.id = sc.namespace')) {
      const ns = r[1] as string;
      const c = r[2] as string;
      out[r[0] as number] = ((ns ? ns + '.' : '') + (c ? c + '.' : '')).toLowerCase();
    }
    this.prefixLower = out;
  }

  private countGroups(): void {
    const seg = this.base;
    const starts = seg.nameStart;
    const names = Math.max(0, starts.length - 1);
    const all = new Int32Array(names);
    const noNs = new Int32Array(names);
    const shared = new Uint8Array(names);
    const ns = this.stringIds(['namespace'])[0] ?? -1;
    for (let n = 0; n < names; n++) {
      let a = 0;
      let b = 0;
      for (let r = starts[n] ?? 0, end = starts[n + 1] ?? 0; r < end; r++) {
        if (((seg.flags[r] ?? 0) & ROW_DUP) !== 0) {
          shared[n] = 1;
          continue;
        }
        a++;
        if ((seg.kind[r] ?? 0) !== ns) b++;
      }
      all[n] = a;
      noNs[n] = b;
    }
    this.baseUnsharedAll = all;
    this.baseUnsharedNoNamespace = noNs;
    this.baseShared = shared;
  }

  /**
   * Base rows named `nameId` that share their id with no other row (each one symbol), without
   * namespaces when asked, or -1 when that does not hold any more (the name has rows in the delta
   * or dead rows in the base).
   */
  unsharedRowsOfName(nameId: number, withoutNamespaces: boolean): number {
    if (nameId >= this.baseUnsharedAll.length) return this.delta.size === 0 ? 0 : -1;
    if ((this.touched[nameId] ?? 0) !== 0) return -1;
    return (withoutNamespaces ? this.baseUnsharedNoNamespace : this.baseUnsharedAll)[nameId] ?? -1;
  }

  /** The name has base rows whose id another row shares (their symbols are counted by reading them). */
  hasSharedIds(nameId: number): boolean {
    return (this.baseShared[nameId] ?? 0) !== 0;
  }

  /**
   * Marks rows whose id hash occurs more than once among the base and delta rows (ROW_DUP), and
   * among those the hashes whose stored id parts differ (ROW_SUSPECT, resolved by real id). After a
   * base build every hash is checked; after a delta read, the delta's hashes.
   */
  private *markDuplicatesSteps(full: boolean): Generator<void, void> {
    const dups: number[] = [];
    if (full) {
      const sorted = this.base.sidHash.slice().sort();
      this.baseSorted = sorted;
      yield;
      this.baseHashRows = rowsByHash(this.base);
      yield;
      for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1] && (dups.length === 0 || dups[dups.length - 1] !== sorted[i])) dups.push(sorted[i] ?? 0);
    } else {
      const d = this.delta.sidHash.slice().sort();
      for (let i = 0; i < d.length; i++) {
        const h = d[i] ?? 0;
        if (dups.length > 0 && dups[dups.length - 1] === h) continue;
        if (d[i + 1] === h || sortedHas(this.baseSorted, h)) dups.push(h);
      }
    }
    if (dups.length === 0) return;
    const dupSet = new Set(dups);
    this.markRows(full, dups, dupSet, ROW_DUP);
    // Hashes whose rows do not all store the same id parts.
    const suspects: number[] = [];
    for (let i = 0; i < dups.length; i += 500) {
      yield;
      const chunk = dups.slice(i, i + 500);
      const rows = this.store.rows(
        `SELECT sid_hash FROM symbol_rows WHERE sid_hash IN (${chunk.map(() => '?').join(',')}) GROUP BY sid_hash
         HAVING count(DISTINCT sid || char(1) || (flags & 56) || char(1) || coalesce(qn, '') || char(1) || scope || char(1) || name || char(1) || CASE WHEN flags & ${SID_FORM_PATH} THEN file_id ELSE '' END) > 1`,
        chunk,
      );
      for (const r of rows) suspects.push(r[0] as number);
    }
    if (suspects.length === 0) return;
    const suspectSet = new Set(suspects);
    for (let i = 0; i < suspects.length; i += 500) {
      const chunk = suspects.slice(i, i + 500);
      for (const r of this.store.rows(`SELECT file_id, ordinal, symbol_id FROM symbols WHERE sid_hash IN (${chunk.map(() => '?').join(',')})`, chunk)) {
        const id = r[2] as string;
        let key = this.suspectIds.get(id);
        if (key === undefined) {
          key = 2 ** 32 + this.suspectIds.size;
          this.suspectIds.set(id, key);
        }
        this.suspectKeys.set((r[0] as number) * 32768 + (r[1] as number), key);
      }
    }
    this.markRows(full, suspects, suspectSet, ROW_SUSPECT);
  }

  /**
   * Sets `flag` on the rows whose id hash is in `hashes`: every row after a base build; after a
   * delta read the delta's rows and the base rows of those hashes only, found through
   * baseHashRows (a save must not pass over every base row).
   */
  private markRows(full: boolean, hashes: number[], set: Set<number>, flag: number): void {
    const mark = (seg: SymbolSegment) => {
      for (let r = 0; r < seg.size; r++) if (set.has(seg.sidHash[r] ?? 0)) seg.flags[r]! |= flag;
    };
    if (full || !this.baseHashRows) mark(this.base);
    else {
      const sorted = this.baseSorted;
      const rows = this.baseHashRows;
      for (const h of hashes) {
        for (let i = lowerBound(sorted, h); i < sorted.length && sorted[i] === h; i++) this.base.flags[rows[i] ?? 0]! |= flag;
      }
    }
    if (this.delta.size > 0) mark(this.delta);
  }
}

const tables = new WeakMap<IndexStore, SymbolTable>();

/** The symbol table of a store, current with its committed rows (built on first use). */
export function symbolTableFor(store: IndexStore): SymbolTable {
  const t = tableOf(store);
  t.refresh();
  return t;
}

/** Builds the store's symbol table in slices ahead of the first search (see `SymbolTable.prebuild`). */
export function prebuildSymbolTable(store: IndexStore, slice: () => Promise<void>): Promise<void> {
  return tableOf(store).prebuild(slice);
}

/** Resolves when the store's symbol table is current, never building it in one piece (see `SymbolTable.ready`). */
export function symbolTableReady(store: IndexStore): Promise<void> {
  return tableOf(store).ready();
}

function tableOf(store: IndexStore): SymbolTable {
  let t = tables.get(store);
  if (!t) {
    t = new SymbolTable(store);
    tables.set(store, t);
  }
  return t;
}
