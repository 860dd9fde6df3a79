/**
 * The heuristic provider: name resolution over the syntax index (the `symbols` table) plus the
 * text index for occurrences, verified against the live files. It answers when no compiler-backed
 * provider can; the registry labels every answer `heuristic_no_precise`. Matching is by simple
 * name, so overloads, shadowing, reflection, DI wiring and string dispatch are never resolved:
 * rows are leads, not facts.
 */
import * as path from 'node:path';
import { HEURISTIC_ANSWER_MARGIN_MS, HEURISTIC_MIN_READ_FILES, HEURISTIC_SCAN_FILES_PER_QUERY, MAX_FILE_BYTES, MAX_VERIFIED_FILES_PER_QUERY, TYPE_HIERARCHY_MAX_NODES } from '../../core/limits';
import { timeSlice } from '../../core/timeSlice';
import { readWithOneHandle } from '../../core/paths';
import type { Statement } from 'sql.js';
import type { IndexStore } from '../../index/store';
import { ensureSymbolTables, SID_FORM_PATH, SID_FORM_PREFIX, SID_FORM_QN, SIGNATURE_PACKED, symbolIdHash } from '../../index/symbolTables';
import { languageOfPath } from '../language';
import type { CallContext, OpArgs, OpResult, ProviderAvailability, ProviderOutcome, SemanticOp, SemanticProvider } from '../provider';
import type { DocumentSymbolNode, HierarchyItem, IncomingCall, OutgoingCall, ReferenceLocation, SemanticLocation, SourcePosition, Span, SymbolKindName, WorkspaceSymbolRow } from '../types';
import { baseTypeNames, identifierAt, looksLikeCall, NOT_CALLS, wordOccurrences } from './identifiers';
import { matchFiles } from '../../index/textIndex';

export const HEURISTIC_PROVIDER_ID = 'heuristic';

/** A declaration row of the symbols table with its file path. */
export interface SymbolRow {
  path: string;
  symbolId: string;
  name: string;
  kind: string;
  container: string;
  qualifiedName: string;
  signature: string;
  line: number;
  endLine: number;
  column: number;
  endColumn: number;
  nameLine: number;
  nameColumn: number;
  fileId: number;
  ordinal: number;
  parent: number;
}

const SELECT = `SELECT f.path, s.symbol_id, s.name, s.kind, s.container, s.qualified_name, s.signature, s.line, s.end_line, s.col, s.end_col,
  s.name_line, s.name_col, s.file_id, s.ordinal, s.parent FROM symbols s JOIN files f ON f.id = s.file_id`;

const TYPE_KINDS = new Set(['class', 'struct', 'interface', 'record', 'enum', 'trait']);

const CALLABLE_KINDS = new Set(['method', 'constructor', 'function', 'operator', 'destructor', 'test', 'property', 'indexer']);

const KIND_MAP: Record<string, SymbolKindName> = {
  record: 'class', delegate: 'class', typeAlias: 'class', trait: 'interface', impl: 'class', testSuite: 'class',
  indexer: 'property', destructor: 'method', test: 'method', macro: 'function',
};

export interface HeuristicProviderOptions {
  store: IndexStore;
  /** Canonical workspace root. */
  root: string;
  /** Languages answered (default: every language with syntax symbols). */
  languages?: readonly string[];
  /**
   * A file's path by id from memory (the engine's catalog): the files mentioning a common name are
   * thousands, and one `SELECT … WHERE id IN (…)` over 5,000 of them held the engine thread
   * ~130 ms (shared_engine profile). Without it, the files table is asked.
   */
  pathOf?: (fileId: number) => string | undefined;
}

export class HeuristicProvider implements SemanticProvider {
  readonly id = HEURISTIC_PROVIDER_ID;
  readonly precision = 'heuristic' as const;

  constructor(private readonly o: HeuristicProviderOptions) {}

  supports(language: string): boolean {
    return this.o.languages ? this.o.languages.includes(language) : true;
  }

  availability(): ProviderAvailability {
    return { state: 'ready', detail: 'name matching over the syntax index (never exact)', started: true };
  }

  async request<K extends SemanticOp>(op: K, _language: string, args: OpArgs<K>, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>> {
    ensureSymbolTables(this.o.store);
    const q = new Query(this.o, ctx);
    const value = await q.run(op, args);
    return { kind: 'ok', value: value as OpResult<K>, ...(q.gaps.length ? { gaps: q.gaps } : {}) };
  }

  async dispose(): Promise<void> {
    /* nothing held */
  }

  /** Declarations by symbol id (partials: several rows), for target resolution. */
  static rowsById(store: IndexStore, symbolId: string): SymbolRow[] {
    ensureSymbolTables(store);
    return store.rows(`${SELECT} WHERE s.sid_hash = ? AND s.symbol_id = ? ORDER BY f.path, s.ordinal`, [symbolIdHash(symbolId), symbolId]).map(toRow);
  }

  /** Declarations by qualified name. */
  static rowsByQualifiedName(store: IndexStore, qualifiedName: string): SymbolRow[] {
    ensureSymbolTables(store);
    // A derived qualified name ends with the row's name at a dot: look up those names (indexed);
    // the rows whose qualified name is stored are indexed by it.
    const names = [qualifiedName];
    for (let i = qualifiedName.indexOf('.'); i >= 0; i = qualifiedName.indexOf('.', i + 1)) names.push(qualifiedName.slice(i + 1));
    return store
      .rows(`${SELECT} WHERE (s.name IN (${names.map(() => '?').join(',')}) OR s.qn_raw = ?) AND s.qualified_name = ? ORDER BY f.path, s.ordinal`, [...names, qualifiedName, qualifiedName])
      .map(toRow);
  }

  /** The innermost declaration whose span contains a position (any kind). */
  static enclosing(store: IndexStore, rel: string, line: number, filter?: (r: SymbolRow) => boolean): SymbolRow | undefined {
    ensureSymbolTables(store);
    const rows = store.rows(`${SELECT} WHERE f.path = ? AND s.line <= ? AND s.end_line >= ? ORDER BY s.depth DESC, s.line DESC`, [rel, line, line]).map(toRow);
    return rows.find((r) => !filter || filter(r));
  }

  /**
   * The declarations whose name tokens are at these positions (undefined where none). Called for
   * every row an answer shows: each distinct (file, line) costs one step of a cached statement on
   * the row table (primary-key prefix, no view columns); only a hit reads its full row through the
   * \`symbols\` view, also by a cached statement (preparing a view query costs about a millisecond).
   */
  static declaredAtMany(store: IndexStore, locs: readonly { path: string; line: number; column: number }[]): (SymbolRow | undefined)[] {
    ensureSymbolTables(store);
    const st = statementsFor(store);
    const probed = new Map<string, { fileId: number; ordinal: number; col: number; name: string }[]>();
    return locs.map((l) => {
      const key = `${l.line}\u0000${l.path}`;
      let hits = probed.get(key);
      if (!hits) {
        hits = [];
        st.probe.bind([l.path, l.line]);
        try {
          while (st.probe.step()) {
            const x = st.probe.get();
            hits.push({ fileId: x[0] as number, ordinal: x[1] as number, col: x[2] as number, name: x[3] as string });
          }
        } finally {
          st.probe.reset();
        }
        probed.set(key, hits);
      }
      const h = hits.find((x) => l.column >= x.col && l.column <= x.col + x.name.length);
      if (!h) return undefined;
      st.full.bind([h.fileId, h.ordinal]);
      try {
        return st.full.step() ? rawToRow(l.path, st.full.get()) : undefined;
      } finally {
        st.full.reset();
      }
    });
  }

  /** The declaration whose name token is at a position. */
  static declaredAt(store: IndexStore, rel: string, line: number, column: number): SymbolRow | undefined {
    return HeuristicProvider.declaredAtMany(store, [{ path: rel, line, column }])[0];
  }
}

/** Statements prepared once per database (the store's database never changes). */
const statements = new WeakMap<object, { probe: Statement; full: Statement }>();
function statementsFor(store: IndexStore): { probe: Statement; full: Statement } {
  let st = statements.get(store.db);
  if (!st) {
    st = {
      probe: store.db.prepare('SELECT r.file_id, r.ordinal, r.name_col, r.name FROM symbol_rows r WHERE r.file_id = (SELECT id FROM files WHERE path = ?) AND r.name_line = ?'),
      full: store.db.prepare(
        `SELECT r.sid, r.flags, r.qn, r.name, k.value, ns.value, sc.container, r.signature, m.value, r.line, r.end_line, r.col, r.end_col,
           r.name_line, r.name_col, r.file_id, r.ordinal, r.parent
         FROM symbol_rows r JOIN symbol_scopes sc ON sc.id = r.scope JOIN symbol_strings ns ON ns.id = sc.namespace
           JOIN symbol_strings k ON k.id = r.kind JOIN symbol_strings m ON m.id = r.modifiers
         WHERE r.file_id = ? AND r.ordinal = ?`,
      ),
    };
    statements.set(store.db, st);
  }
  return st;
}

/**
 * A row read from the tables under the \`symbols\` view, with the view's derivations (schema.ts,
 * SYMBOLS_V5_SQL): qualified name, id form, packed signature. Reading through the view costs
 * about a millisecond a row in a live index; the tables cost a few microseconds.
 */
function rawToRow(path: string, x: unknown[]): SymbolRow {
  const sid = x[0] as string;
  const flags = x[1] as number;
  const name = x[3] as string;
  const ns = x[5] as string;
  const container = x[6] as string;
  const prefix = (ns ? `${ns}.` : '') + (container ? `${container}.` : '');
  const qualifiedName = x[2] === null ? prefix + name : (x[2] as string);
  const symbolId =
    flags & SID_FORM_QN ? sid.slice(0, 2) + qualifiedName + sid.slice(2)
    : flags & SID_FORM_PATH ? `${path}#${qualifiedName}${sid}`
    : flags & SID_FORM_PREFIX ? sid.slice(0, 2) + prefix + sid.slice(2)
    : sid;
  let signature = x[7] as string;
  if (flags & SIGNATURE_PACKED) signature = signature.split('\u0002').join(x[8] as string).split('\u0001').join(name);
  return {
    path, symbolId, name, kind: x[4] as string, container, qualifiedName, signature, line: x[9] as number, endLine: x[10] as number, column: x[11] as number,
    endColumn: x[12] as number, nameLine: x[13] as number, nameColumn: x[14] as number, fileId: x[15] as number, ordinal: x[16] as number, parent: x[17] as number,
  };
}

function toRow(r: unknown[]): SymbolRow {
  return {
    path: r[0] as string, symbolId: r[1] as string, name: r[2] as string, kind: r[3] as string, container: r[4] as string,
    qualifiedName: r[5] as string, signature: r[6] as string, line: r[7] as number, endLine: r[8] as number, column: r[9] as number,
    endColumn: r[10] as number, nameLine: r[11] as number, nameColumn: r[12] as number, fileId: r[13] as number, ordinal: r[14] as number, parent: r[15] as number,
  };
}

/** One request's work, with a per-request file cache and the gaps it found. */
class Query {
  readonly gaps: string[] = [];
  private readonly lines = new Map<string, string[] | null>();
  /** Reading files and scanning the symbol table give the event loop a turn every few ms (other agents' questions). */
  private readonly slice = timeSlice();
  /** A subtypes scan was stopped by the deadline (said once). */
  private scanCut = false;

  constructor(private readonly o: HeuristicProviderOptions, private readonly ctx: CallContext) {}

  run(op: SemanticOp, args: unknown): Promise<unknown> | unknown {
    switch (op) {
      case 'definition':
        return this.definition(args as SourcePosition);
      case 'references':
        return this.references(args as OpArgs<'references'>);
      case 'implementation':
        return this.implementation(args as SourcePosition);
      case 'prepareCallHierarchy':
        return this.prepare(args as SourcePosition, CALLABLE_KINDS);
      case 'prepareTypeHierarchy':
        return this.prepare(args as SourcePosition, TYPE_KINDS);
      case 'incomingCalls':
        return this.incoming(args as HierarchyItem);
      case 'outgoingCalls':
        return this.outgoing(args as HierarchyItem);
      case 'supertypes':
        return this.supertypes(args as HierarchyItem);
      case 'subtypes':
        return this.subtypes((args as HierarchyItem).name).then((rows) => rows.map((r) => this.item(r)));
      case 'documentSymbols':
        return this.documentSymbols((args as { path: string }).path);
      case 'workspaceSymbols':
        return this.workspaceSymbols((args as { query: string }).query);
    }
  }

  private expired(): boolean {
    return this.ctx.signal.aborted || Date.now() > this.ctx.deadline - HEURISTIC_ANSWER_MARGIN_MS;
  }

  private fileLines(rel: string): string[] | null {
    if (this.lines.has(rel)) return this.lines.get(rel)!;
    let out: string[] | null = null;
    try {
      out = readWithOneHandle(path.join(this.o.root, rel), rel, MAX_FILE_BYTES).bytes.toString('utf8').split(/\r?\n/);
    } catch {
      out = null;
    }
    this.lines.set(rel, out);
    return out;
  }

  /** The name at a position (snapped to the nearest identifier on the line). */
  private nameAt(p: SourcePosition): string | undefined {
    const text = this.fileLines(p.path)?.[p.line - 1];
    if (text === undefined) return undefined;
    const id = identifierAt(text, p.column);
    if (id?.snapped) this.gaps.push(`position ${p.line}:${p.column} is not on an identifier; used '${id.name}' at column ${id.column}`);
    return id?.name;
  }

  private rowsNamed(name: string, kinds?: ReadonlySet<string>): SymbolRow[] {
    const rows = this.o.store.rows(`${SELECT} WHERE s.name = ? ORDER BY f.path, s.ordinal`, [name]).map(toRow);
    return kinds ? rows.filter((r) => kinds.has(r.kind)) : rows;
  }

  private definition(p: SourcePosition): SemanticLocation[] {
    const here = HeuristicProvider.declaredAt(this.o.store, p.path, p.line, p.column);
    if (here) return this.rowsWithId(here.symbolId).map(loc);
    const name = this.nameAt(p);
    if (!name) return [];
    const rows = this.rowsNamed(name).filter((r) => r.kind !== 'namespace');
    // Prefer declarations in the same language as the query file.
    const lang = languageOfPath(p.path);
    const same = rows.filter((r) => languageOfPath(r.path) === lang);
    return (same.length ? same : rows).map(loc);
  }

  private rowsWithId(id: string): SymbolRow[] {
    return this.o.store.rows(`${SELECT} WHERE s.sid_hash = ? AND s.symbol_id = ? ORDER BY f.path, s.ordinal`, [symbolIdHash(id), id]).map(toRow);
  }

  /** Whole-word occurrences of a name in the files the text index says mention it. */
  private async occurrences(name: string): Promise<{ path: string; line: number; column: number; text: string }[]> {
    const token = name.toLowerCase().replace(/"/g, '');
    let ids: number[] = [];
    try {
      ids = matchFiles(this.o.store, `"${token}"`);
    } catch {
      ids = [];
    }
    if (ids.length > MAX_VERIFIED_FILES_PER_QUERY) {
      this.gaps.push(`${ids.length} files mention '${name}'; only the first ${MAX_VERIFIED_FILES_PER_QUERY} were read`);
      ids = ids.slice(0, MAX_VERIFIED_FILES_PER_QUERY);
    }
    const paths = this.pathsOf(ids);
    const out: { path: string; line: number; column: number; text: string }[] = [];
    let skipped = 0;
    for (const [i, rel] of paths.entries()) {
      await this.slice();
      // Out of time: what was found so far, but never less than the first few files (an empty answer says nothing).
      if (i >= HEURISTIC_MIN_READ_FILES && this.expired()) {
        skipped = paths.length - i;
        break;
      }
      const lines = this.fileLines(rel);
      if (!lines) continue;
      lines.forEach((text, i) => {
        for (const column of wordOccurrences(text, name)) out.push({ path: rel, line: i + 1, column, text });
      });
    }
    if (skipped) this.gaps.push(`${skipped} file(s) mentioning '${name}' were not read before the deadline`);
    return out;
  }

  /** The paths of file ids, sorted (by UTF-16 code units: SQLite's byte order but for characters past U+FFFF; answers sort their rows again). */
  private pathsOf(ids: readonly number[]): string[] {
    if (!ids.length) return [];
    const pathOf = this.o.pathOf;
    if (!pathOf) return this.o.store.rows(`SELECT path FROM files WHERE id IN (${ids.map(() => '?').join(',')}) ORDER BY path`, [...ids]).map((r) => r[0] as string);
    const out: string[] = [];
    for (const id of ids) {
      const p = pathOf(id);
      if (p !== undefined) out.push(p);
    }
    return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  private async references(q: OpArgs<'references'>): Promise<ReferenceLocation[]> {
    const here = HeuristicProvider.declaredAt(this.o.store, q.path, q.line, q.column);
    const name = here?.name ?? this.nameAt(q);
    if (!name) return [];
    const decls = new Set(this.rowsNamed(name).map((r) => `${r.path}:${r.nameLine}:${r.nameColumn}`));
    const out: ReferenceLocation[] = [];
    for (const o of await this.occurrences(name)) {
      const isDeclaration = decls.has(`${o.path}:${o.line}:${o.column}`);
      if (isDeclaration && !q.includeDeclaration) continue;
      const r: ReferenceLocation = { path: o.path, line: o.line, column: o.column, endLine: o.line, endColumn: o.column + name.length };
      if (isDeclaration) r.isDeclaration = true;
      out.push(r);
    }
    return out;
  }

  /**
   * Types whose base list names `typeName` (direct). The stored signatures are scanned (packed, they
   * keep the base list as written: only the declaration's own first name and leading modifiers are
   * packed) in slices of file ids with a turn for the event loop between; through the view, the one
   * LIKE over every row unpacked each signature and held the engine thread for seconds on 4.5 M
   * lines. Only the hits are read whole.
   */
  private async subtypes(typeName: string): Promise<SymbolRow[]> {
    const store = this.o.store;
    const like = `%${typeName.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    const maxId = Number(store.rows('SELECT max(file_id) FROM symbol_rows')[0]?.[0] ?? 0);
    const hits: [number, number][] = [];
    for (let lo = 0; lo <= maxId; lo += HEURISTIC_SCAN_FILES_PER_QUERY) {
      if (this.expired()) {
        if (!this.scanCut) this.gaps.push(`the deadline stopped the search for types deriving from '${typeName}' after ${lo} of ${maxId + 1} file ids: later ones are missing`);
        this.scanCut = true;
        break;
      }
      for (const r of store.rows(`SELECT file_id, ordinal FROM symbol_rows WHERE file_id >= ? AND file_id < ? AND signature LIKE ? ESCAPE '\\'`, [lo, lo + HEURISTIC_SCAN_FILES_PER_QUERY, like])) {
        hits.push([r[0] as number, r[1] as number]);
      }
      await this.slice();
    }
    if (!hits.length) return [];
    const paths = new Map<number, string>();
    const ids = [...new Set(hits.map((h) => h[0]))];
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      if (this.o.pathOf) {
        for (const id of chunk) {
          const p = this.o.pathOf(id);
          if (p !== undefined) paths.set(id, p);
        }
        continue;
      }
      for (const r of store.rows(`SELECT id, path FROM files WHERE id IN (${chunk.map(() => '?').join(',')})`, chunk)) paths.set(r[0] as number, r[1] as string);
    }
    const st = statementsFor(store);
    const rows: SymbolRow[] = [];
    for (const [fileId, ordinal] of hits) {
      await this.slice();
      const path = paths.get(fileId);
      if (path === undefined) continue;
      st.full.bind([fileId, ordinal]);
      try {
        if (st.full.step()) rows.push(rawToRow(path, st.full.get()));
      } finally {
        st.full.reset();
      }
    }
    rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.ordinal - b.ordinal));
    return dedupeById(rows.filter((r) => TYPE_KINDS.has(r.kind) && baseTypeNames(r.signature).includes(typeName)));
  }

  private async implementation(p: SourcePosition): Promise<SemanticLocation[]> {
    const here = HeuristicProvider.declaredAt(this.o.store, p.path, p.line, p.column);
    const name = here?.name ?? this.nameAt(p);
    if (!name) return [];
    const target = here ?? this.rowsNamed(name)[0];
    if (!target) return [];
    if (TYPE_KINDS.has(target.kind)) {
      // Every part of every subtype: a query each, sliced (400 subtypes held the thread ~110 ms in one piece).
      const out: SemanticLocation[] = [];
      for (const r of await this.allSubtypes(name)) {
        await this.slice();
        for (const part of this.rowsWithId(r.symbolId)) out.push(loc(part));
      }
      return out;
    }
    // A member: same-named members of the (transitive) subtypes of its containing type.
    const container = target.container.split('.').pop() ?? '';
    if (!container) return [];
    const subs = new Set((await this.allSubtypes(container)).map((r) => r.qualifiedName));
    return this.rowsNamed(name)
      .filter((r) => r.kind === target.kind && subs.has(r.qualifiedName.slice(0, r.qualifiedName.length - r.name.length - 1)))
      .map(loc);
  }

  private async allSubtypes(typeName: string): Promise<SymbolRow[]> {
    const out: SymbolRow[] = [];
    const seen = new Set<string>();
    let frontier = [typeName];
    while (frontier.length && out.length < TYPE_HIERARCHY_MAX_NODES && !this.expired()) {
      const next: string[] = [];
      for (const t of frontier) {
        for (const r of await this.subtypes(t)) {
          if (seen.has(r.symbolId)) continue;
          seen.add(r.symbolId);
          out.push(r);
          next.push(r.name);
        }
      }
      frontier = next;
    }
    if (frontier.length && this.expired() && !this.scanCut) this.gaps.push(`the deadline stopped the walk below ${frontier.length} subtype(s) of '${typeName}': their own subtypes are missing`);
    return out;
  }

  private prepare(p: SourcePosition, kinds: ReadonlySet<string>): HierarchyItem[] {
    const here = HeuristicProvider.declaredAt(this.o.store, p.path, p.line, p.column);
    if (here && kinds.has(here.kind)) return [this.item(here)];
    const name = this.nameAt(p);
    const named = name ? this.rowsNamed(name, kinds) : [];
    if (named.length) return dedupeById(named).map((r) => this.item(r));
    // Not on a name: the enclosing declaration of that kind.
    const enc = HeuristicProvider.enclosing(this.o.store, p.path, p.line, (r) => kinds.has(r.kind));
    return enc ? [this.item(enc)] : [];
  }

  private item(r: SymbolRow): HierarchyItem {
    const item: HierarchyItem = { ...loc(r), name: r.name, kind: kindName(r.kind), origin: HEURISTIC_PROVIDER_ID, data: { symbolId: r.symbolId } };
    if (r.container) item.detail = r.container;
    return item;
  }

  private rowOf(item: HierarchyItem): SymbolRow | undefined {
    const id = (item.data as { symbolId?: string } | undefined)?.symbolId;
    if (item.origin === HEURISTIC_PROVIDER_ID && id) return this.rowsWithId(id)[0];
    return HeuristicProvider.declaredAt(this.o.store, item.path, item.line, item.column) ?? this.rowsNamed(item.name.replace(/\(.*$/, ''))[0];
  }

  private async incoming(item: HierarchyItem): Promise<IncomingCall[]> {
    const name = item.name.replace(/\(.*$/, '');
    const byCaller = new Map<string, IncomingCall>();
    const found = await this.occurrences(name);
    let unchecked = 0;
    for (const [i, o] of found.entries()) {
      // Each mention looks up its enclosing declaration: sliced, and cut by the deadline once some caller was found.
      await this.slice();
      if ((byCaller.size > 0 || i >= HEURISTIC_MIN_READ_FILES) && this.expired()) {
        unchecked = found.length - i;
        break;
      }
      if (!looksLikeCall(o.text, o.column, name)) continue;
      const caller = HeuristicProvider.enclosing(this.o.store, o.path, o.line, (r) => CALLABLE_KINDS.has(r.kind));
      if (!caller) continue;
      if (caller.nameLine === o.line && caller.nameColumn === o.column) continue; // the declaration itself
      const key = `${caller.symbolId}@${caller.path}`;
      let call = byCaller.get(key);
      if (!call) byCaller.set(key, (call = { from: this.item(caller), sites: [] }));
      call.sites.push({ line: o.line, column: o.column, endLine: o.line, endColumn: o.column + name.length });
    }
    if (unchecked) this.gaps.push(`${unchecked} mention(s) of '${name}' were not checked for a caller before the deadline`);
    return [...byCaller.values()];
  }

  private outgoing(item: HierarchyItem): OutgoingCall[] {
    const row = this.rowOf(item);
    if (!row) return [];
    const lines = this.fileLines(row.path);
    if (!lines) return [];
    const byCallee = new Map<string, OutgoingCall>();
    const re = /([\p{L}_$][\p{L}\p{N}_$]*)\s*(?:<[^<>()]*>)?\s*\(/gu;
    for (let ln = row.nameLine; ln <= row.endLine; ln++) {
      const text = lines[ln - 1] ?? '';
      for (const m of text.matchAll(re)) {
        const name = m[1]!;
        const column = (m.index ?? 0) + 1;
        if (NOT_CALLS.has(name) || (ln === row.nameLine && column === row.nameColumn)) continue;
        const target = this.rowsNamed(name, CALLABLE_KINDS)[0] ?? this.rowsNamed(name, TYPE_KINDS)[0];
        if (!target) continue;
        const key = target.symbolId;
        let call = byCallee.get(key);
        if (!call) byCallee.set(key, (call = { to: this.item(target), sites: [] }));
        call.sites.push({ line: ln, column, endLine: ln, endColumn: column + name.length });
      }
    }
    return [...byCallee.values()];
  }

  private supertypes(item: HierarchyItem): HierarchyItem[] {
    const row = this.rowOf(item);
    if (!row) return [];
    const names = new Set(this.rowsWithId(row.symbolId).flatMap((r) => baseTypeNames(r.signature)));
    return [...names].flatMap((n) => dedupeById(this.rowsNamed(n, TYPE_KINDS)).map((r) => this.item(r)));
  }

  private documentSymbols(rel: string): DocumentSymbolNode[] {
    const rows = this.o.store.rows(`${SELECT} WHERE f.path = ? ORDER BY s.ordinal`, [rel]).map(toRow);
    const nodes = new Map<number, DocumentSymbolNode>();
    const roots: DocumentSymbolNode[] = [];
    for (const r of rows) {
      const node: DocumentSymbolNode = {
        name: r.name,
        kind: kindName(r.kind),
        span: { line: r.line, column: r.column, endLine: r.endLine, endColumn: r.endColumn },
        selection: nameSpan(r),
        children: [],
      };
      if (r.signature) node.detail = r.signature;
      nodes.set(r.ordinal, node);
      const parent = nodes.get(r.parent);
      if (parent) parent.children.push(node);
      else roots.push(node);
    }
    return roots;
  }

  private workspaceSymbols(query: string): WorkspaceSymbolRow[] {
    const rows = this.o.store.rows(`${SELECT} WHERE s.name LIKE ? ORDER BY length(s.name), f.path LIMIT 100`, [`${query.replace(/[%_]/g, '')}%`]).map(toRow);
    return rows.map((r) => {
      const row: WorkspaceSymbolRow = { name: r.name, kind: kindName(r.kind), location: loc(r) };
      if (r.container) row.containerName = r.container;
      return row;
    });
  }
}

function kindName(kind: string): SymbolKindName {
  return KIND_MAP[kind] ?? (kind as SymbolKindName);
}

function nameSpan(r: SymbolRow): Span {
  return { line: r.nameLine, column: r.nameColumn, endLine: r.nameLine, endColumn: r.nameColumn + r.name.length };
}

function loc(r: SymbolRow): SemanticLocation {
  return { path: r.path, ...nameSpan(r), fullSpan: { line: r.line, column: r.column, endLine: r.endLine, endColumn: r.endColumn } };
}

function dedupeById(rows: SymbolRow[]): SymbolRow[] {
  const seen = new Set<string>();
  return rows.filter((r) => (seen.has(r.symbolId) ? false : (seen.add(r.symbolId), true)));
}
