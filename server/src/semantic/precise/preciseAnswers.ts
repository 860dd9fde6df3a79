/**
 * Answers from the occurrence store: definition, references and implementations of the symbol at a
 * position, for every candidate document whose facts still hold; the candidates that changed (or
 * were never resolved) are named, so the caller resolves just those live and labels the parts.
 *
 * Candidates are the documents the text index says mention the symbol's name (the live providers
 * read the same ones); a local symbol's only candidate is its own document. A document's facts
 * hold when its content hash is the indexed one and, for Sextant's own documents, its key still
 * matches (compilation inputs, the declarations it binds to); another producer's document
 * (no key) holds when its occurrences still spell their symbols' names at their ranges — checked
 * once per content hash.
 */
import { PRECISE_FOREIGN_MATCH_MIN_RATIO, PRECISE_MAX_CANDIDATE_DOCUMENTS } from '../../core/limits';
import type { ReferenceLocation, SemanticLocation } from '../types';
import type { DocEntry, OccurrenceStore, Provenance } from './occurrenceStore';
import { ROLE_DEFINITION, ROLE_SEXTANT_IMPLICIT, symbolHash, type DocumentKey, type ScipDocument, type ScipOccurrence } from './scipCodec';
import { descriptorsOf, isLocalSymbol, symbolName } from './scipSymbol';

/** What the store needs to know about the workspace now. */
export interface PreciseEnv {
  /** The indexed content hash of a workspace file; undefined when not indexed or changed on disk since. */
  currentHash(path: string): string | undefined;
  /**
   * Why a Sextant key no longer holds (compilation inputs or a bound declaration changed); undefined
   * when it holds. `compilationHolds`: its inputs fingerprint is unchanged (no need to describe the project).
   */
  keyProblem(key: DocumentKey, path: string, compilationHolds?: boolean): string | undefined;
  /** The inputs fingerprint of a compilation now (documentKeys.ts CompilationInputs; `generated`: with its documents' contents). */
  inputsNow?(project: string, generated: boolean): string | undefined;
  /** Workspace files whose text mentions the name as a token (undefined: cannot tell). */
  filesMentioning(name: string): ReadonlySet<string> | undefined;
  /** A workspace file's text (undefined when unreadable). */
  readText(path: string): string | undefined;
  /** The indexed language of a file (`csharp`, `typescript`, …). */
  languageOf(path: string): string | undefined;
  /** Changes whenever the index or the project model may have changed (verdicts are kept per version). */
  version(): string;
  /** The compilations a compilation sees (itself and its project references' keys). */
  compilationsSeenBy?(project: string): ReadonlySet<string> | undefined;
  /** The compilation a position in the file binds in (a Sextant key's `project`), when several compile it. */
  primaryCompilation?(path: string): string | undefined;
}

/** Where a store answer's rows came from, and what it could not answer. */
export interface StoreCoverage {
  /** Rows per provenance. */
  rows: Record<Provenance, number>;
  /** Candidate documents answered from the store. */
  documents: number;
  /** Candidate documents whose facts do not hold (changed, not resolved): to be resolved live. */
  live: { path: string; why: string }[];
  /** Producers of the units used. */
  producers: string[];
}

export interface StoreAnswer<T> {
  value: T;
  coverage: StoreCoverage;
  /**
   * Why the facts cannot hold the whole answer, whatever their coverage (a producer that records
   * no structural implementations): the live providers answer it; their rows are partial without one.
   */
  incomplete?: string;
}

/** One compilation's symbol at the asked position. */
interface Part {
  entry: DocEntry;
  symbol: string;
}

export type StoreOp = 'definition' | 'references' | 'implementation';
export const STORE_OPS: ReadonlySet<string> = new Set<StoreOp>(['definition', 'references', 'implementation']);

const FAMILY: Record<string, string> = {
  csharp: 'csharp',
  typescript: 'ts',
  typescriptreact: 'ts',
  javascript: 'ts',
  javascriptreact: 'ts',
};

export class PreciseAnswers {
  /** Per entry: the content hash it was checked at and the verdict (undefined = holds). */
  private readonly checked = new Map<DocEntry, { hash: string; generation: string; problem: string | undefined }>();
  /** Bumped by the caller when keys may have changed (a new project model, a refresh). */
  envGeneration = 0;

  constructor(
    readonly store: OccurrenceStore,
    private readonly env: PreciseEnv,
  ) {}

  /** The entry whose facts hold for a path now (persisted before imported, later before earlier), or why none does. */
  current(p: string): { entry: DocEntry } | { why: string } {
    const entries = this.store.entries(p);
    if (entries.length === 0) return { why: 'no precise facts recorded' };
    let why = '';
    const ordered = [...entries].reverse().sort((a, b) => (a.unit.provenance === b.unit.provenance ? 0 : a.unit.provenance === 'persisted' ? -1 : 1));
    for (const e of ordered) {
      const problem = this.verdict(e);
      if (problem === undefined) return { entry: e };
      why ||= problem;
    }
    return { why };
  }

  /** Why an entry's facts do not hold now (undefined: they hold), checked once per content and environment generation. */
  private verdict(e: DocEntry): string | undefined {
    const head = e.key ?? e.head;
    // Sextant's key with an inputs fingerprint that is still the same: the compilation holds
    // without describing the project (and a generator's document's content with it).
    const generated = e.path.startsWith('generated:');
    const fast = head?.inputs !== undefined && this.env.inputsNow?.(head.project, generated) === head.inputs;
    const stamp = generated && fast ? `inputs:${head!.inputs}` : this.env.currentHash(e.path);
    if (stamp === undefined) return 'changed since indexing';
    const c = this.checked.get(e);
    if (c && c.hash === stamp && c.generation === this.gen()) return c.problem;
    const problem = this.check(e, stamp, fast);
    this.checked.set(e, { hash: stamp, generation: this.gen(), problem });
    return problem;
  }

  /**
   * Files that may spell a symbol of this name: the text index's files for the name's word (a `$`
   * is not part of a token there), and for a numbered meta descriptor (scip-typescript's `schema2:`
   * for a property `schema`) those of the name without its number too.
   */
  private mentioning(name: string, sym: string): ReadonlySet<string> | undefined {
    // a generic type's metadata name carries its arity (RepositoryBase`2): source spells the name alone
    name = name.replace(/`\d+$/, '');
    const words = new Set([name.replace(/\$/g, '')]);
    if (sym.endsWith(':')) for (const w of unnumbered(name)) words.add(w.replace(/\$/g, ''));
    // an attribute class is used by its short form too (`[Audited]` for AuditedAttribute)
    if (sym.endsWith('#') && /.Attribute$/.test(name)) words.add(name.slice(0, -'Attribute'.length));
    const out = new Set<string>();
    for (const w of words) {
      if (!w) return undefined;
      const files = this.env.filesMentioning(w);
      if (!files) return undefined;
      for (const f of files) out.add(f);
    }
    return out;
  }

  /** Every entry whose facts hold for a path now (a linked file has one per compilation). */
  currentAll(p: string): DocEntry[] {
    const first = this.current(p);
    if (!('entry' in first)) return [];
    return this.store.entries(p).filter((e) => e === first.entry || this.verdict(e) === undefined);
  }

  private generated: { generation: number; paths: string[] } | undefined;
  /** Paths of the store's generated documents (under an obj/ folder, or a generator's `generated:` document). */
  private generatedPaths(): string[] {
    if (this.generated?.generation !== this.store.generation) this.generated = { generation: this.store.generation, paths: [...this.store.paths()].filter((p) => p.startsWith('generated:') || /(^|\/)obj\//.test(p)) };
    return this.generated.paths;
  }

  private gen(): string {
    return `${this.envGeneration}:${this.env.version()}`;
  }

  /**
   * True when a path has facts recorded for its content now (the cheap part of `heldNow`: no key
   * dependency or compilation check, nothing read from disk): a hint for background work, never an answer.
   */
  recordedForContent(p: string): boolean {
    const entries = this.store.entries(p);
    if (entries.length === 0) return false;
    const hash = this.env.currentHash(p);
    if (hash === undefined) return false;
    return entries.some((e) => !e.keyed || (e.key ?? e.head)?.contentHash === hash);
  }

  /** True when a path has facts that hold now. */
  heldNow(p: string): boolean {
    return 'entry' in this.current(p);
  }

  /** `fast`: the key's inputs fingerprint is still the same (its compilation holds; a generator document's content too). */
  private check(e: DocEntry, hash: string, fast: boolean): string | undefined {
    if (e.keyed) {
      const head = (e.key ?? e.head)!;
      if (!(fast && e.path.startsWith('generated:')) && head.contentHash !== hash) return 'edited since its facts were recorded';
      return this.env.keyProblem(this.store.keyOf(e)!, e.path, fast);
    }
    // Another producer's document: checked against the text once; from then on it holds only for
    // that content (a later edit that happens to keep the names in place is still an edit).
    const pinned = this.pinned.get(e);
    if (pinned !== undefined) return pinned === hash ? undefined : 'edited since the index was imported';
    const text = this.env.readText(e.path);
    if (text === undefined) return 'unreadable';
    const problem = verifyAgainstText(this.store.read(e), text);
    if (problem === undefined) this.pinned.set(e, hash);
    return problem;
  }
  private readonly pinned = new Map<DocEntry, string>();

  /**
   * The store's answer for a position, or undefined when the position's own document has no facts
   * that hold (the question is then the live providers' alone).
   */
  answer(op: StoreOp, language: string, args: { path: string; line: number; column: number; includeDeclaration?: boolean }): StoreAnswer<SemanticLocation[] | ReferenceLocation[]> | undefined {
    // A file compiled by several projects (a linked file) has a symbol per compilation: the
    // answer is the union, as the live providers answer for every compilation of the position.
    const all = this.currentAll(args.path);
    if (all.length === 0) return undefined;
    // The position binds in the file's primary compilation (as the live providers bind it); the
    // other compilations take part with the same declaration (same descriptors) at that position.
    const primaryKey = all.length > 1 ? this.env.primaryCompilation?.(args.path) : undefined;
    const primary = all.find((e) => this.store.projectOf(e) === primaryKey) ?? all[0]!;
    const primarySymbol = occurrenceAt(this.store.read(primary), args.line - 1, args.column - 1)?.symbol;
    // A namespace is declared in every file that names it: left to the live providers.
    if (!primarySymbol || primarySymbol.endsWith('/')) return undefined;
    // Another producer's document may put several symbols on one range, or one symbol on several
    // declarations, where the compiler tells them apart (foreignPosition).
    const foreign = primary.keyed ? undefined : foreignPosition(this.store.read(primary), args.line - 1, args.column - 1, op);
    if (foreign?.declined) return { value: [], coverage: { rows: { persisted: 0, scip: 0 }, documents: 0, live: [], producers: [primary.unit.producer || primary.unit.provenance] }, incomplete: foreign.declined };
    const same = descriptorsOf(primarySymbol);
    const parts: Part[] = foreign?.symbols ? foreign.symbols.map((symbol) => ({ entry: primary, symbol })) : [{ entry: primary, symbol: primarySymbol }];
    for (const e of foreign?.symbols ? [] : all) {
      if (e === primary) continue;
      const s = occurrenceAt(this.store.read(e), args.line - 1, args.column - 1)?.symbol;
      if (s && descriptorsOf(s) === same) parts.push({ entry: e, symbol: s });
    }
    const r = this.answerAt(parts, op, language, args);
    // Another producer's index (no Sextant key) records implementations only where the code says
    // `implements`/`extends`; TypeScript also counts every structurally matching class and object
    // literal, which such an index cannot know.
    const structural = r !== undefined && op === 'implementation' && r.coverage.producers.some((x) => !x.startsWith('sextant '));
    return structural ? { ...r, incomplete: `${r.coverage.producers.join(', ')} records implementations declared with implements/extends only, not the structurally matching types and object literals TypeScript counts` } : r;
  }

  /**
   * The answer for the symbols at a position (one per compilation of its file, `parts[0]` the
   * primary one) in one pass over the candidate documents: each candidate's facts are checked and
   * read once, whatever the number of compilations.
   */
  private answerAt(parts: Part[], op: StoreOp, language: string, args: { path: string; line: number; column: number; includeDeclaration?: boolean }): StoreAnswer<SemanticLocation[] | ReferenceLocation[]> | undefined {
    const own = new Set(parts.map((p) => p.entry));
    const coverage: StoreCoverage = { rows: { persisted: 0, scip: 0 }, documents: 0, live: [], producers: [] };
    const producers = new Set<string>();
    const family = FAMILY[language] ?? language;
    const used = new Set<DocEntry>();
    const use = (e: DocEntry) => {
      if (used.has(e)) return;
      used.add(e);
      coverage.documents++;
      producers.add(e.unit.producer || e.unit.provenance);
    };
    const liveSeen = new Set<string>();
    const memo = new Map<string, { held: DocEntry[]; ok: boolean }>();
    /**
     * The documents that may hold occurrences of a symbol named `name`, split into held facts and
     * live ones. `generated`: with generators' in-memory documents (definitions, implementations:
     * the host does not search them for references).
     */
    const candidates = (name: string | undefined, sym: string, generated = true): { held: DocEntry[]; ok: boolean } => {
      if (isLocalSymbol(sym)) return { held: [...own], ok: true };
      const memoKey = `${generated ? 'g' : 'n'}${name ?? ''}\u0000${sym.endsWith(':') ? ':' : sym.endsWith('#') ? '#' : ''}`;
      const hit = memo.get(memoKey);
      if (hit) return hit;
      const files = name === undefined ? undefined : this.mentioning(name, sym);
      if (!files || files.size > PRECISE_MAX_CANDIDATE_DOCUMENTS) {
        memo.set(memoKey, { held: [], ok: false });
        return { held: [], ok: false };
      }
      const held: DocEntry[] = [];
      const taken = new Set<string>();
      // Generated documents (under obj/, generators' in-memory ones) are not in the text index: always candidates, as for the host.
      for (const p of [...files, ...this.generatedPaths()]) {
        if (!generated && p.startsWith('generated:')) continue;
        if (taken.has(p)) continue;
        taken.add(p);
        const lang = this.env.languageOf(p);
        if (!lang || (FAMILY[lang] ?? lang) !== family) continue;
        if (p === args.path) {
          held.push(...this.currentAll(p));
          continue;
        }
        const c = this.current(p);
        if ('entry' in c) held.push(...this.currentAll(p));
        else if (!liveSeen.has(p)) {
          liveSeen.add(p);
          coverage.live.push({ path: p, why: c.why });
        }
      }
      const out = { held, ok: true };
      memo.set(memoKey, out);
      return out;
    };
    const count = (e: DocEntry, n: number) => {
      coverage.rows[e.unit.provenance] += n;
    };
    const done = (value: SemanticLocation[] | ReferenceLocation[]): StoreAnswer<SemanticLocation[] | ReferenceLocation[]> => {
      coverage.producers = [...producers];
      return { value, coverage };
    };

    if (op === 'references') {
      const symbols = [...new Set(parts.map((p) => p.symbol))];
      // the candidates of every compilation's symbol (the same name: one list)
      const held = new Set<DocEntry>();
      for (const s of symbols) {
        const c = candidates(symbolName(s), s, false);
        if (!c.ok) return undefined;
        for (const e of c.held) held.add(e);
      }
      const needles = symbols.map((s) => Buffer.from(s, 'utf8'));
      // a type's constructors: `<type>\`.ctor\`(…)` (a `new T()` names the constructor)
      const ctors = symbols.filter((s) => s.endsWith('#')).map((s) => Buffer.from(`${s}\`.ctor\`(`, 'utf8'));
      const rows = new Map<string, ReferenceLocation>();
      // Another producer's occurrence may spell an alias (`export { A as B }`, `import { A as B }`):
      // the files that spell B are candidates too (the text index has no A in them).
      const spellings = new Set(
        symbols.flatMap((s) => {
          const name = symbolName(s);
          return name ? [name, ...(s.endsWith(':') ? unnumbered(name) : [])] : [];
        }),
      );
      const queue = [...held];
      const texts = new Map<string, string[] | undefined>();
      const aliasOf = (e: DocEntry, o: ScipOccurrence): boolean => {
        if (e.keyed || isLocalSymbol(o.symbol) || !symbols.includes(o.symbol) || o.range.length !== 3 || [...spellings].some((x) => x.length === o.range[2]! - o.range[1]!)) return true;
        if (!texts.has(e.path)) texts.set(e.path, this.env.readText(e.path)?.split('\n'));
        const line = texts.get(e.path)?.[o.range[0]!];
        const alias = line === undefined ? undefined : this.store.read(e).positionEncoding === 1 ? Buffer.from(line, 'utf8').subarray(o.range[1]!, o.range[2]!).toString('utf8') : line.slice(o.range[1]!, o.range[2]!);
        if (!alias || alias === 'default' || spellings.has(alias) || !/^[A-Za-z_$][\w$]*$/.test(alias)) return true;
        spellings.add(alias);
        const more = candidates(alias, o.symbol, false);
        if (!more.ok) return false;
        for (const x of more.held) if (!held.has(x)) (held.add(x), queue.push(x));
        return true;
      };
      for (let i = 0; i < queue.length; i++) {
        const e = queue[i]!;
        // A generator's in-memory document is not searched for references (the Roslyn host
        // searches the projects' documents); it answers definitions and implementations.
        if (!own.has(e) && e.path.startsWith('generated:')) continue;
        use(e);
        let n = 0;
        for (const o of this.store.occurrencesNaming(e, needles, ctors)) {
          if (o.symbolRoles & ROLE_SEXTANT_IMPLICIT) continue;
          if (!aliasOf(e, o)) return undefined;
          // a type's declaration and its constructors' declarations (as FindReferences marks them)
          const isDeclaration = (o.symbolRoles & ROLE_DEFINITION) !== 0;
          if (isDeclaration && !args.includeDeclaration) continue;
          const loc = location(e.path, o.range);
          const k = `${loc.path}:${loc.line}:${loc.column}`;
          const prev = rows.get(k);
          if (prev) prev.isDeclaration = prev.isDeclaration || isDeclaration;
          else {
            rows.set(k, { ...loc, isDeclaration });
            n++;
          }
        }
        count(e, n);
      }
      return done([...rows.values()]);
    }

    if (op === 'definition') {
      const rows = new Map<string, SemanticLocation>();
      for (const p of parts) {
        const found = this.definitions(p.symbol, p.entry, this.store.read(p.entry), own, candidates, use, count);
        for (const r of found ?? []) {
          const k = `${r.path}:${r.line}:${r.column}`;
          if (!rows.has(k)) rows.set(k, r);
        }
      }
      if (rows.size === 0) return undefined;
      return done([...rows.values()]);
    }

    // implementation: symbols related to the target as implementations, transitively.
    const found = new Set<string>();
    const targets = new Set(parts.map((p) => p.symbol));
    let frontier = [...targets];
    const defsOf = new Map<string, DocEntry[]>();
    for (let round = 0; frontier.length > 0 && round < 32; round++) {
      const next: string[] = [];
      const held = new Set<DocEntry>();
      for (const t of frontier) {
        const c = candidates(symbolName(t), t);
        if (!c.ok) return undefined;
        for (const e of c.held) held.add(e);
      }
      const needles = frontier.map((t) => Buffer.from(t, 'utf8'));
      for (const e of held) {
        use(e);
        if (!own.has(e) && !this.store.mayNameAny(e, needles)) continue;
        const d = this.store.read(e);
        for (const s of d.symbols) {
          if (found.has(s.symbol) || targets.has(s.symbol)) continue;
          if (!s.relationships.some((r) => r.isImplementation && targets.has(r.symbol))) continue;
          found.add(s.symbol);
          (defsOf.get(s.symbol) ?? defsOf.set(s.symbol, []).get(s.symbol)!).push(e);
          next.push(s.symbol);
        }
      }
      for (const n of next) targets.add(n);
      frontier = next;
    }
    const rows = new Map<string, SemanticLocation>();
    for (const s of found) {
      // every declaration of an implementation (a partial type's parts too), wherever the producer recorded it
      const definers = this.store.definers(symbolHash(s)).filter((e) => this.currentAll(e.path).includes(e));
      for (const e of new Set([...(defsOf.get(s) ?? []), ...definers])) {
        const d = this.store.read(e);
        let n = 0;
        for (const o of d.occurrences) {
          if (o.symbol !== s || !(o.symbolRoles & ROLE_DEFINITION)) continue;
          const loc = location(e.path, o.range, o.enclosingRange);
          const k = `${loc.path}:${loc.line}:${loc.column}`;
          if (!rows.has(k)) (rows.set(k, loc), n++);
        }
        count(e, n);
      }
    }
    return done([...rows.values()]);
  }

  /** Definition rows of a symbol: the documents with information for it, else the candidates; undefined when none is found (a symbol outside the facts: ask live). */
  private definitions(
    symbol: string,
    ownEntry: DocEntry,
    ownDoc: ScipDocument,
    own: ReadonlySet<DocEntry>,
    candidates: (name: string | undefined, sym: string) => { held: DocEntry[]; ok: boolean },
    use: (e: DocEntry) => void,
    count: (e: DocEntry, n: number) => void,
  ): SemanticLocation[] | undefined {
    const rows = new Map<string, SemanticLocation>();
    const needle = Buffer.from(symbol, 'utf8');
    const scan = (e: DocEntry) => {
      if (!own.has(e) && !this.store.mayNameAny(e, [needle])) return use(e);
      const d = e === ownEntry ? ownDoc : this.store.read(e);
      let n = 0;
      for (const o of d.occurrences) {
        if (o.symbol !== symbol || !(o.symbolRoles & ROLE_DEFINITION)) continue;
        const loc = location(e.path, o.range, o.enclosingRange);
        const k = `${loc.path}:${loc.line}:${loc.column}`;
        if (!rows.has(k)) (rows.set(k, loc), n++);
      }
      use(e);
      count(e, n);
    };
    if (isLocalSymbol(symbol)) {
      scan(ownEntry);
      return rows.size ? [...rows.values()] : undefined;
    }
    const { held, ok } = candidates(symbolName(symbol), symbol);
    if (!ok) return undefined;
    const definers = new Set(this.store.definers(symbolHash(symbol)).map((e) => e.path));
    // The documents the producer says define it; when it says none, every candidate.
    let chosen = held.filter((e) => definers.has(e.path));
    if (chosen.length === 0) chosen = held;
    // A file compiled several times (frameworks of a multi-targeting project): the declaration in
    // the compilation the asking document sees, as the compiler binds it.
    const ownProject = this.store.projectOf(ownEntry);
    const seen = ownProject ? this.env.compilationsSeenBy?.(ownProject) : undefined;
    if (seen) {
      const byPath = new Map<string, DocEntry[]>();
      for (const e of chosen) (byPath.get(e.path) ?? byPath.set(e.path, []).get(e.path)!).push(e);
      chosen = [...byPath.values()].flatMap((list) => {
        if (list.length < 2) return list;
        const visible = list.filter((e) => seen.has(this.store.projectOf(e) ?? ''));
        return visible.length ? visible : list;
      });
    }
    for (const e of chosen) scan(e);
    return rows.size ? [...rows.values()] : undefined;
  }
}

/** The occurrence at a 0-based position (the smallest range containing it; an end position counts). */
export function occurrenceAt(doc: ScipDocument, line: number, character: number): ScipOccurrence | undefined {
  let best: ScipOccurrence | undefined;
  let bestLen = Infinity;
  for (const o of doc.occurrences) {
    const [sl, sc, el, ec] = o.range.length === 3 ? [o.range[0]!, o.range[1]!, o.range[0]!, o.range[2]!] : [o.range[0]!, o.range[1]!, o.range[2]!, o.range[3]!];
    if (line < sl || line > el || (line === sl && character < sc) || (line === el && character > ec)) continue;
    const len = (el - sl) * 10_000 + (ec - sc);
    // On the same range the later occurrence wins (the host emits a `new T()`'s constructor after
    // the type: the compiler's symbol at that position), a definition over a use.
    if (len < bestLen || (len === bestLen && ((o.symbolRoles & ROLE_DEFINITION) !== 0 || (best!.symbolRoles & ROLE_DEFINITION) === 0))) {
      best = o;
      bestLen = len;
    }
  }
  return best;
}

/** A SCIP range (0-based, end-exclusive) as a 1-based location. */
export function location(p: string, range: readonly number[], enclosing?: readonly number[]): SemanticLocation {
  const s = span(range);
  const loc: SemanticLocation = { path: p, ...s };
  if (enclosing && enclosing.length >= 3) loc.fullSpan = span(enclosing);
  return loc;
}

function span(r: readonly number[]): { line: number; column: number; endLine: number; endColumn: number } {
  return r.length === 3 ? { line: r[0]! + 1, column: r[1]! + 1, endLine: r[0]! + 1, endColumn: r[2]! + 1 } : { line: r[0]! + 1, column: r[1]! + 1, endLine: r[2]! + 1, endColumn: r[3]! + 1 };
}

/**
 * Whether another producer's document still describes this text: its ranges lie inside the text
 * and at least PRECISE_FOREIGN_MATCH_MIN_RATIO of the occurrences whose symbol name is an
 * identifier spell that name at their range. Undefined when it holds, else why not.
 */
export function verifyAgainstText(doc: ScipDocument, text: string): string | undefined {
  const lines = text.split('\n');
  let checkable = 0;
  let matched = 0;
  const utf8 = doc.positionEncoding === 1;
  for (const o of doc.occurrences) {
    const r = o.range;
    const sl = r[0]!;
    const el = r.length === 3 ? sl : r[2]!;
    const ec = r.length === 3 ? r[2]! : r[3]!;
    if (sl >= lines.length || el >= lines.length) return 'occurrences past the end of the file (edited since the index was built)';
    if (sl !== el || !o.symbol || isLocalSymbol(o.symbol)) continue;
    const name = symbolName(o.symbol);
    if (!name || !/^[A-Za-z_$][\w$]*$/.test(name)) continue;
    let line = lines[sl]!;
    if (line.endsWith('\r')) line = line.slice(0, -1);
    const at = utf8 ? Buffer.from(line, 'utf8').subarray(r[1]!, ec).toString('utf8') : line.slice(r[1]!, ec);
    if (/^['"`].*['"`]$/.test(at)) continue; // a module specifier or string key is not checkable
    // scip-typescript numbers the properties of object literals and destructured names (`resolve0:`)
    const spelled = at === name || (o.symbol.endsWith(':') && unnumbered(name).includes(at));
    // An alias (`export { A as B }`, `import { A as B }`) names the original on the same line: not checkable.
    if (!spelled && /^[A-Za-z_$][\w$]*$/.test(at) && new RegExp(`(^|[^\\w$])${name.replace(/\$/g, '\\$')}($|[^\\w$])`).test(line)) continue;
    checkable++;
    if (spelled) matched++;
  }
  if (checkable === 0 || matched / checkable >= PRECISE_FOREIGN_MATCH_MIN_RATIO) return undefined;
  return `the index's occurrences no longer match the text (${checkable - matched} of ${checkable} differ: edited since the index was built)`;
}

/**
 * The names a numbered meta descriptor may spell (scip-typescript's `greeting20:` is the 0th
 * `greeting2` or the 20th `greeting`): the name without each of its trailing digits.
 */
function unnumbered(name: string): string[] {
  const digits = /\d*$/.exec(name)![0].length;
  const out: string[] = [];
  for (let k = 1; k <= digits && k < name.length; k++) out.push(name.slice(0, -k));
  return out;
}

const sameRange = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * What another producer's document (no Sextant key) can answer at a position where the compiler
 * tells apart more than the index does (scip-typescript's shapes, seen on trpc): `symbols` — the
 * symbols to answer for instead of the occurrence's (at a destructured binding, `const { path } =
 * opts`, a local is defined where a property is used; TypeScript's definition is the property's);
 * `declined` — why the facts cannot answer it (the live providers do). Undefined: the occurrence
 * at the position answers.
 */
export function foreignPosition(doc: ScipDocument, line: number, character: number, op: StoreOp): { symbols?: string[]; declined?: string } | undefined {
  const at = occurrenceAt(doc, line, character);
  if (!at?.symbol) return undefined;
  const here = doc.occurrences.filter((o) => o.symbol && sameRange(o.range, at.range));
  const symbols = [...new Set(here.map((o) => o.symbol))];
  if (symbols.length > 1) {
    const defs = here.filter((o) => o.symbolRoles & ROLE_DEFINITION);
    const uses = [...new Set(here.filter((o) => !(o.symbolRoles & ROLE_DEFINITION)).map((o) => o.symbol))];
    if (op === 'definition' && defs.length === 1 && isLocalSymbol(defs[0]!.symbol) && uses.length > 0 && uses.every((u) => !isLocalSymbol(u))) return { symbols: uses };
    return { declined: `the index gives this position ${symbols.length} symbols (${symbols.map((s) => symbolName(s) ?? s).join(', ')}) where TypeScript resolves the use (a destructured, shorthand or union-typed property)` };
  }
  const sym = at.symbol;
  if (isLocalSymbol(sym)) return undefined;
  // Overload signatures share one method symbol: a parameter or type parameter is declared once per signature.
  if (/[)\]]$/.test(sym) && doc.occurrences.filter((o) => o.symbol === sym && o.symbolRoles & ROLE_DEFINITION).length > 1) return { declined: `the index gives every overload signature's ${symbolName(sym) ?? 'parameter'} one symbol; TypeScript tells the signatures apart` };
  // An object literal's property (`name<N>:`): TypeScript's references include the property of the type it is written for.
  if (op === 'references' && /\d:$/.test(sym)) return { declined: "the index does not relate an object literal's property to the property of its contextual type, which TypeScript's references include" };
  // A member of a type that extends or implements another: TypeScript's references include the
  // member it redeclares (and that one's other redeclarations); the index relates the types only.
  const owner = /^(.*#)[^#]+$/.exec(sym)?.[1];
  const base = owner ? doc.symbols.find((s) => s.symbol === owner)?.relationships.find((r) => r.isImplementation)?.symbol : undefined;
  if (op === 'references' && base) return { declined: `the index does not relate ${symbolName(sym) ?? 'a member'} to the members of ${symbolName(base) ?? 'the types'} its type extends or implements, which TypeScript's references include` };
  return undefined;
}
