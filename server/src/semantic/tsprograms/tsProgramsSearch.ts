/**
 * One TS/JS question over the TypeScript programs of a workspace (tsPrograms.ts), wherever the
 * programs live: in the worker thread (tsProgramsWorker.ts) or, without one, in the calling thread.
 *
 * A question about uses (references, implementations, callers, subtypes) searches the target
 * file's own programs first, then every other program one of whose root files the text index says
 * mentions the name, and files that no config includes in one inferred program. Definitions,
 * callees and supertypes come from the target's own program (the nearest config including it).
 * Programs left out by the per-question cap or the deadline, and programs that failed to load, are
 * named in the reply's coverage (→ a gap, `precise_partial`).
 */
import * as path from 'node:path';
import type * as TS from 'typescript';
import { log } from '../../core/log';
import type { OpArgs, OpResult, ProviderOutcome, SemanticOp } from '../provider';
import type { HierarchyItem, IncomingCall, OutgoingCall, ReferenceLocation, SemanticLocation, Span, SymbolKindName } from '../types';
import { ProgramsCancelled, type LoadedProgram, type ProgramConfig, type TsPrograms, type TypeScriptModule } from './tsPrograms';

export const TS_PROGRAMS_PROVIDER_ID = 'typescript';

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

/** The ops that search every candidate program (the others read the target's own program). */
export const USE_OPS: ReadonlySet<SemanticOp> = new Set<SemanticOp>(['references', 'implementation', 'incomingCalls', 'subtypes']);

/** What one question searched. */
export interface Coverage {
  searched: string[];
  skipped: { id: string; why: string }[];
}

/** A question, as it crosses to the worker (plain data). */
export interface SearchRequest {
  op: SemanticOp;
  args: { path: string; line: number; column: number; name?: string; includeDeclaration?: boolean };
  /** The workspace's tsconfig/jsconfig files and the key of their parse. */
  configs: { paths: string[]; key: string };
  /** Workspace files mentioning the searched name; undefined when unknown (every program is a candidate). */
  mentions: string[] | undefined;
  /** Epoch ms: no program is started after `deadline - marginMs`. */
  deadline: number;
  marginMs: number;
  maxPrograms: number;
  /** Leave out the nearest config of the target's file (an editor answered from it). */
  skipNearest: boolean;
}

export interface SearchReply {
  outcome: ProviderOutcome<unknown>;
  coverage: Coverage;
}

/** workerData of the programs thread (tsProgramsWorker.ts describes the protocol). */
export interface WorkerInit {
  root: string;
  maxLoaded: number;
  heapBudgetMb: number;
  cancel: SharedArrayBuffer;
  pending: SharedArrayBuffer;
}
export type WorkerIn = { type: 'ask'; id: number; req: SearchRequest } | { type: 'warm'; configs: { paths: string[]; key: string } };
export type WorkerOut = { id: number; reply: SearchReply; loaded: string[]; heapMb: number } | { id: number; error: string };

/** Ring size of the shared cancellation slots (questions in flight at once stay far below it). */
export const CANCEL_RING = 256;

/**
 * Answers one question; `programs.begin` must have been called with the question's cancellation.
 * Never throws for expected trouble (a program that fails to load, the deadline).
 */
export async function searchPrograms(ts: TypeScriptModule, programs: TsPrograms, req: SearchRequest, cancelled: () => boolean): Promise<SearchReply> {
  const q = new Question(ts, programs, programs.configs(req.configs.paths, req.configs.key), req, cancelled);
  try {
    const outcome = await run(req.op, q, req.args as never);
    if (outcome.kind === 'ok' && q.coverage.skipped.length > 0) return { outcome: { ...outcome, gaps: [...(outcome.gaps ?? []), q.gap()] }, coverage: q.coverage };
    return { outcome, coverage: q.coverage };
  } catch (e) {
    if (e instanceof ProgramsCancelled) return { outcome: { kind: 'unavailable', state: 'loading', reason: 'the TypeScript programs did not load within the deadline' }, coverage: q.coverage };
    throw e;
  }
}

/** The identifier at a 1-based position of a text (the name the text index is asked about). */
export function nameAt(text: string, line: number, column: number): string | undefined {
  const l = text.split('\n')[line - 1];
  if (l === undefined) return undefined;
  const isId = (ch: string | undefined) => ch !== undefined && /[\w$\u00c0-\uffff]/.test(ch);
  let s = column - 1;
  let e = s;
  while (s > 0 && isId(l[s - 1])) s--;
  while (isId(l[e])) e++;
  const name = l.slice(s, e);
  return name && !/^\d/.test(name) ? name : undefined;
}

async function run<K extends SemanticOp>(op: K, q: Question, args: OpArgs<K>): Promise<ProviderOutcome<OpResult<K>>> {
  const ok = (value: unknown): ProviderOutcome<OpResult<K>> => ({ kind: 'ok', value: value as OpResult<K> });
  switch (op) {
    case 'definition': {
      let lp = q.own();
      if (!lp) return q.noProgram();
      for (;;) {
        const pos = q.offsetIn(lp);
        const d = pos === undefined ? undefined : lp.service.getDefinitionAndBoundSpan(q.abs, pos);
        const rows = dedupe((d?.definitions ?? []).map((x) => q.location(lp!, x.fileName, x.textSpan, x.contextSpan)).filter(isSome));
        if (rows.length > 0) return ok(rows);
        // Nothing in the nearest program (e.g. an import its config cannot resolve, which a
        // program with \`paths\` including the same file can): the next program including it.
        const next = q.own(lp.config.id);
        if (!next) return ok(rows);
        lp = next;
      }
    }
    case 'references': {
      const includeDeclaration = (args as OpArgs<'references'>).includeDeclaration;
      const rows = new Map<string, ReferenceLocation>();
      const done = await q.eachUseProgram<OpResult<K>>((lp, pos) => {
        for (const s of lp.service.findReferences(q.abs, pos) ?? []) {
          for (const r of s.references) {
            if (!includeDeclaration && r.isDefinition) continue;
            const loc = q.location(lp, r.fileName, r.textSpan);
            if (!loc) continue;
            const key = `${loc.path}:${loc.line}:${loc.column}`;
            const prev = rows.get(key);
            if (prev) prev.isDeclaration = prev.isDeclaration || r.isDefinition === true;
            else rows.set(key, { ...loc, isDeclaration: r.isDefinition === true });
          }
        }
      });
      return done ?? ok([...rows.values()]);
    }
    case 'implementation': {
      const rows = new Map<string, SemanticLocation>();
      const done = await q.eachUseProgram<OpResult<K>>((lp, pos) => {
        for (const x of lp.service.getImplementationAtPosition(q.abs, pos) ?? []) {
          const loc = q.location(lp, x.fileName, x.textSpan, x.contextSpan);
          if (loc) rows.set(`${loc.path}:${loc.line}:${loc.column}`, loc);
        }
      });
      return done ?? ok([...rows.values()]);
    }
    case 'prepareCallHierarchy': {
      const lp = q.own();
      if (!lp) return q.noProgram();
      const pos = q.offsetIn(lp);
      if (pos === undefined) return ok([]);
      const r = lp.service.prepareCallHierarchy(q.abs, pos);
      const items = r === undefined ? [] : Array.isArray(r) ? r : [r];
      return ok(items.map((i) => q.item(lp, i)).filter(isSome));
    }
    case 'incomingCalls': {
      const calls = new Map<string, IncomingCall>();
      const done = await q.eachUseProgram<OpResult<K>>((lp, pos) => {
        // Calls bound to an implementation or override of an interface / abstract / overridable
        // member run in its place: callers of it too, each row saying which member it binds to
        // (TypeScript's own call hierarchy lists some of them, unlabelled: each site is labelled by
        // the member it binds to).
        const implementors = q.implementorsOf(lp, pos);
        const byDecl = new Map(implementors.map((d) => [`${d.file}:${d.at}`, d]));
        const seen = new Set<string>();
        const add = (file: string, at: number, down?: { via: 'implementation' | 'override'; bindsTo: string }) => {
          for (const c of lp.service.provideCallHierarchyIncomingCalls(file, at)) {
            const from = q.item(lp, c.from);
            if (!from) continue;
            for (const s of c.fromSpans) {
              if (seen.has(`${c.from.file}:${s.start}`)) continue;
              seen.add(`${c.from.file}:${s.start}`);
              const bound = byDecl.size ? byDecl.get(q.declarationAt(lp, c.from.file, s.start) ?? '') : undefined;
              const d = bound ? { via: bound.via, bindsTo: bound.name } : down;
              const key = `${from.path}:${from.line}:${from.column}${d ? `|${d.bindsTo}` : ''}`;
              const call = calls.get(key) ?? calls.set(key, { from, sites: [], ...(d ?? {}) }).get(key)!;
              const site = q.span(lp, c.from.file, s);
              if (site && !call.sites.some((x) => x.line === site.line && x.column === site.column)) call.sites.push(site);
            }
          }
        };
        add(q.abs, pos);
        for (const d of implementors) add(d.file, d.at, { via: d.via, bindsTo: d.name });
      });
      for (const c of calls.values()) c.sites.sort((a, b) => a.line - b.line || a.column - b.column);
      return done ?? ok([...calls.values()]);
    }
    case 'outgoingCalls': {
      const lp = q.own();
      if (!lp) return q.noProgram();
      const pos = q.offsetIn(lp);
      if (pos === undefined) return ok([]);
      const out: OutgoingCall[] = [];
      for (const c of lp.service.provideCallHierarchyOutgoingCalls(q.abs, pos)) {
        const to = q.item(lp, c.to);
        if (!to) continue;
        out.push({ to, sites: c.fromSpans.map((s) => q.span(lp, q.abs, s)).filter(isSome) });
      }
      return ok(out);
    }
    case 'prepareTypeHierarchy': {
      const lp = q.own();
      if (!lp) return q.noProgram();
      const pos = q.offsetIn(lp);
      if (pos === undefined) return ok([]);
      return ok(q.typesAt(lp, pos));
    }
    case 'supertypes': {
      const lp = q.own();
      if (!lp) return q.noProgram();
      const pos = q.offsetIn(lp);
      if (pos === undefined) return ok([]);
      return ok(q.supertypes(lp, pos));
    }
    case 'subtypes': {
      const rows = new Map<string, HierarchyItem>();
      const done = await q.eachUseProgram<OpResult<K>>((lp, pos) => {
        for (const s of lp.service.findReferences(q.abs, pos) ?? []) {
          for (const r of s.references) {
            if (r.isDefinition) continue;
            const sub = q.subtypeAt(lp, r.fileName, r.textSpan.start);
            if (sub) rows.set(`${sub.path}:${sub.line}:${sub.column}`, sub);
          }
        }
      });
      return done ?? ok([...rows.values()]);
    }
    default:
      return { kind: 'unavailable', state: 'unsupported', reason: `the TypeScript service does not serve ${op}` };
  }
}

/** One question: the target, its candidate programs, and what was searched. */
class Question {
  readonly abs: string;
  readonly rel: string;
  private readonly line: number;
  private readonly column: number;
  readonly coverage: Coverage = { searched: [], skipped: [] };
  private ownConfigs: ProgramConfig[];

  private readonly mentions: ReadonlySet<string> | undefined;
  private readonly skipNearest: boolean;

  constructor(
    private readonly ts: TypeScriptModule,
    private readonly programs: TsPrograms,
    private readonly parsed: { configs: ProgramConfig[]; byFile: Map<string, ProgramConfig[]> },
    private readonly req: SearchRequest,
    private readonly isCancelled: () => boolean,
  ) {
    const target = req.args;
    this.mentions = req.mentions ? new Set(req.mentions) : undefined;
    this.skipNearest = req.skipNearest;
    this.rel = target.path;
    this.line = target.line;
    this.column = target.column;
    const rel = this.rel;
    this.abs = programs.abs(rel);
    // The nearest config first (the one the TypeScript service opens the file in), then by id.
    const dir = path.posix.dirname(rel);
    const depth = (c: ProgramConfig) => {
      const cd = path.posix.dirname(c.id);
      return cd === '.' || dir === cd || dir.startsWith(cd + '/') ? -cd.length : 1;
    };
    this.ownConfigs = [...(parsed.byFile.get(rel) ?? [])].sort((a, b) => depth(a) - depth(b) || a.id.localeCompare(b.id));
  }

  /** The target's own program (nearest config including the file, else an inferred one). */
  own(after?: string): LoadedProgram | undefined {
    const list = this.ownConfigs.length ? this.ownConfigs : [this.programs.inferred([this.rel])];
    const start = after === undefined ? 0 : list.findIndex((c) => c.id === after) + 1;
    if (after !== undefined && start === 0) return undefined;
    for (let i = start; i < list.length; i++) {
      const c = list[i]!;
      // A further program (after the nearest) is not started past the deadline: it is named instead.
      if (after !== undefined && (this.isCancelled() || Date.now() > this.req.deadline - this.req.marginMs)) {
        for (const rest of list.slice(i)) this.coverage.skipped.push({ id: rest.id, why: 'deadline' });
        return undefined;
      }
      try {
        const lp = this.programs.load(c);
        if (lp.program.getSourceFile(this.abs)) {
          this.coverage.searched.push(c.id);
          return lp;
        }
      } catch (e) {
        if (this.cancelled(e)) {
          if (after === undefined) throw new ProgramsCancelled();
          for (const rest of list.slice(i)) this.coverage.skipped.push({ id: rest.id, why: 'deadline' });
          return undefined;
        }
        this.coverage.skipped.push({ id: c.id, why: `failed to load: ${message(e)}` });
      }
    }
    return undefined;
  }

  noProgram<T>(): ProviderOutcome<T> {
    return { kind: 'unavailable', state: 'failed', reason: `no TypeScript program could load ${this.rel}${this.coverage.skipped[0] ? ` (${this.coverage.skipped[0].why})` : ''}` };
  }

  /**
   * Runs `search` in the target's programs and in every program a file of which mentions `name`;
   * returns an outcome only when not even one program could be searched.
   */
  async eachUseProgram<T>(search: (lp: LoadedProgram, pos: number) => void): Promise<ProviderOutcome<T> | undefined> {
    const mentions = this.mentions;
    const maxPrograms = this.req.maxPrograms;
    const candidates: ProgramConfig[] = this.skipNearest ? this.ownConfigs.slice(1) : [...this.ownConfigs];
    const seen = new Set(this.ownConfigs.map((c) => c.id));
    for (const c of this.parsed.configs) {
      if (seen.has(c.id)) continue;
      if (c.error || mentions === undefined || [...c.roots].some((f) => mentions.has(f))) {
        // A config that failed to parse may include anything: it is a candidate (reported as not searched).
        if (c.error && mentions !== undefined && !this.mayInclude(c, mentions)) continue;
        candidates.push(c);
        seen.add(c.id);
      }
    }
    // Files no config includes: one inferred program (with the target's file when it is loose too;
    // unless an editor already answered from the target's own inferred program).
    const editorHadIt = this.skipNearest && this.ownConfigs.length === 0;
    const loose = [...(mentions ?? [])].filter((f) => SOURCE.test(f) && !this.parsed.byFile.has(f) && !f.split('/').includes('node_modules') && !(editorHadIt && f === this.rel));
    if (this.ownConfigs.length === 0 && !editorHadIt && !loose.includes(this.rel)) loose.push(this.rel);
    if (loose.length > 0) candidates.push(this.programs.inferred(loose));
    // The target's own programs first, then the loaded ones (cheap), then those to build.
    const own = this.skipNearest ? Math.max(0, this.ownConfigs.length - 1) : this.ownConfigs.length;
    const rest = candidates.slice(own);
    candidates.splice(own, rest.length, ...rest.filter((c) => this.programs.isLoaded(c.id)), ...rest.filter((c) => !this.programs.isLoaded(c.id)));
    const late: ProgramConfig[] = [];
    let index = 0;
    for (; index < candidates.length; index++) {
      const c = candidates[index]!;
      if (this.coverage.searched.length >= maxPrograms) break;
      const left = this.req.deadline - this.req.marginMs - Date.now();
      if (this.isCancelled() || left <= 0) break;
      // A build that would not end before the deadline is not started (it cannot be interrupted):
      // the programs already loaded still get searched.
      if (!this.programs.isLoaded(c.id) && !this.programs.knownWithout(c, this.abs) && this.programs.estimateMs(c) > left) {
        late.push(c);
        continue;
      }
      // Built before under the same index version without the target's file: it cannot see it.
      if (this.programs.knownWithout(c, this.abs)) {
        this.coverage.searched.push(c.id);
        continue;
      }
      // Let the event loop breathe between programs (building one is synchronous).
      await new Promise((r) => setImmediate(r));
      let lp: LoadedProgram;
      try {
        lp = this.programs.load(c);
      } catch (e) {
        if (this.cancelled(e)) break;
        this.coverage.skipped.push({ id: c.id, why: `failed to load: ${message(e)}` });
        continue;
      }
      const pos = this.offsetIn(lp);
      if (pos === undefined) {
        // The program does not compile the target's file: it cannot see this declaration.
        this.coverage.searched.push(c.id);
        continue;
      }
      try {
        search(lp, pos);
        this.coverage.searched.push(c.id);
      } catch (e) {
        if (this.cancelled(e)) break;
        log.warn('TypeScript service failed on a program', { program: c.id, error: message(e) });
        this.coverage.skipped.push({ id: c.id, why: `failed: ${message(e)}` });
      }
    }
    for (const c of late) this.coverage.skipped.push({ id: c.id, why: 'deadline' });
    for (const c of candidates.slice(index)) {
      const why = this.coverage.searched.length >= maxPrograms ? `cap: more than ${maxPrograms} programs` : 'deadline';
      this.coverage.skipped.push({ id: c.id, why });
    }
    if (this.coverage.searched.length === 0 && !(this.skipNearest && candidates.length === 0)) {
      const first = this.coverage.skipped[0];
      if (first?.why === 'deadline') return { kind: 'unavailable', state: 'loading', reason: `no TypeScript program of ${this.rel} loaded within the deadline` };
      return { kind: 'unavailable', state: 'failed', reason: `no TypeScript program could load ${this.rel}${first ? ` (${first.id}: ${first.why})` : ''}` };
    }
    return undefined;
  }

  /** The gap line of an answer whose search left programs out. */
  gap(): string {
    const s = this.coverage.skipped;
    const list = s.slice(0, 4).map((x) => `${x.id} (${x.why})`).join(', ') + (s.length > 4 ? `, … ${s.length - 4} more` : '');
    return `${s.length} TypeScript program(s) that may see it were not searched: ${list}; ${this.coverage.searched.length} searched`;
  }

  /** The target's offset in a program's copy of the file; undefined when the program lacks it. */
  offsetIn(lp: LoadedProgram): number | undefined {
    const sf = lp.program.getSourceFile(this.abs);
    if (!sf) return undefined;
    return offsetOf(sf, this.line, this.column);
  }

  location(lp: LoadedProgram, fileName: string, span: TS.TextSpan, context?: TS.TextSpan): SemanticLocation | undefined {
    const s = this.span(lp, fileName, span);
    if (!s) return undefined;
    const rel = this.programs.rel(fileName);
    const loc: SemanticLocation = { path: rel ?? fileName, ...s };
    if (rel === undefined) loc.external = true;
    if (context && (context.start !== span.start || context.length !== span.length)) {
      const f = this.span(lp, fileName, context);
      if (f) loc.fullSpan = f;
    }
    return loc;
  }

  span(lp: LoadedProgram, fileName: string, span: TS.TextSpan): Span | undefined {
    const sf = lp.program.getSourceFile(fileName);
    if (!sf) return undefined;
    const a = sf.getLineAndCharacterOfPosition(span.start);
    const b = sf.getLineAndCharacterOfPosition(span.start + span.length);
    return { line: a.line + 1, column: a.character + 1, endLine: b.line + 1, endColumn: b.character + 1 };
  }

  item(lp: LoadedProgram, i: TS.CallHierarchyItem): HierarchyItem | undefined {
    const loc = this.location(lp, i.file, i.selectionSpan, i.span);
    if (!loc) return undefined;
    // Top-level module code as a caller: TypeScript names the item by its absolute file name.
    const isModule = i.kind === this.ts.ScriptElementKind.scriptElement || (i.kind === this.ts.ScriptElementKind.moduleElement && i.name === i.file);
    const item: HierarchyItem = { ...loc, name: isModule ? (this.programs.rel(i.file) ?? i.name) : i.name, kind: isModule ? 'module' : kindName(i.kind), origin: TS_PROGRAMS_PROVIDER_ID };
    if (i.containerName) item.detail = i.containerName;
    return item;
  }

  /**
   * The members implementing or overriding the method at `pos` (an interface member: implementation;
   * a class member: override), each with a position to ask its callers at and its qualified name.
   */
  implementorsOf(lp: LoadedProgram, pos: number): { file: string; at: number; name: string; via: 'implementation' | 'override' }[] {
    const ts = this.ts;
    const prepared = lp.service.prepareCallHierarchy(this.abs, pos);
    const target = Array.isArray(prepared) ? prepared[0] : prepared;
    if (!target) return [];
    const sf = lp.program.getSourceFile(target.file);
    let n = sf ? nodeAt(ts, sf, target.selectionSpan.start) : undefined;
    while (n && !ts.isInterfaceDeclaration(n) && !ts.isClassLike(n)) n = n.parent;
    if (!n) return [];
    const via = ts.isInterfaceDeclaration(n) ? 'implementation' : 'override';
    const out: { file: string; at: number; name: string; via: 'implementation' | 'override' }[] = [];
    const seen = new Set([`${target.file}:${target.selectionSpan.start}`]);
    for (const x of lp.service.getImplementationAtPosition(this.abs, pos) ?? []) {
      const p = lp.service.prepareCallHierarchy(x.fileName, x.textSpan.start);
      const impl = Array.isArray(p) ? p[0] : p;
      if (!impl || seen.has(`${impl.file}:${impl.selectionSpan.start}`)) continue;
      seen.add(`${impl.file}:${impl.selectionSpan.start}`);
      out.push({ file: impl.file, at: impl.selectionSpan.start, name: impl.containerName ? `${impl.containerName}.${impl.name}` : impl.name, via });
    }
    return out;
  }

  /** Where the symbol named at `pos` of `file` is declared (`file:nameStart`), for matching call sites to members. */
  declarationAt(lp: LoadedProgram, file: string, pos: number): string | undefined {
    const sf = lp.program.getSourceFile(file);
    const node = sf ? nodeAt(this.ts, sf, pos) : undefined;
    const decl = node ? lp.program.getTypeChecker().getSymbolAtLocation(node)?.declarations?.[0] : undefined;
    const name = decl ? this.ts.getNameOfDeclaration(decl) : undefined;
    return decl && name ? `${decl.getSourceFile().fileName}:${name.getStart()}` : undefined;
  }

  /** The class or interface the position names (declaration or use), as a hierarchy item. */
  typesAt(lp: LoadedProgram, pos: number): HierarchyItem[] {
    const ts = this.ts;
    const sf = lp.program.getSourceFile(this.abs)!;
    const node = nodeAt(ts, sf, pos);
    if (!node) return [];
    const decl = classLike(ts, node);
    if (decl) return [this.typeItem(lp, decl)].filter(isSome);
    const checker = lp.program.getTypeChecker();
    let sym = checker.getSymbolAtLocation(node);
    if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
    const d = sym?.declarations?.find((x) => ts.isClassLike(x) || ts.isInterfaceDeclaration(x));
    return d ? [this.typeItem(lp, d as TS.ClassLikeDeclaration | TS.InterfaceDeclaration)].filter(isSome) : [];
  }

  /** Direct supertypes of the class or interface declared at `pos` (heritage clauses, resolved). */
  supertypes(lp: LoadedProgram, pos: number): HierarchyItem[] {
    const ts = this.ts;
    const sf = lp.program.getSourceFile(this.abs)!;
    const node = nodeAt(ts, sf, pos);
    const decl = node && classLike(ts, node);
    if (!decl) return [];
    const checker = lp.program.getTypeChecker();
    const out: HierarchyItem[] = [];
    for (const clause of decl.heritageClauses ?? []) {
      for (const t of clause.types) {
        let sym = checker.getSymbolAtLocation(t.expression);
        if (sym && sym.flags & ts.SymbolFlags.Alias) sym = checker.getAliasedSymbol(sym);
        const d = sym?.declarations?.find((x) => ts.isClassLike(x) || ts.isInterfaceDeclaration(x));
        const item = d && this.typeItem(lp, d as TS.ClassLikeDeclaration | TS.InterfaceDeclaration);
        if (item) out.push(item);
      }
    }
    return out;
  }

  /** The class or interface whose heritage clause holds the reference at `offset`, if any. */
  subtypeAt(lp: LoadedProgram, fileName: string, offset: number): HierarchyItem | undefined {
    const ts = this.ts;
    const sf = lp.program.getSourceFile(fileName);
    if (!sf) return undefined;
    let n: TS.Node | undefined = nodeAt(ts, sf, offset);
    while (n && (ts.isIdentifier(n) || ts.isPropertyAccessExpression(n))) n = n.parent;
    if (!n || !ts.isExpressionWithTypeArguments(n) || !ts.isHeritageClause(n.parent)) return undefined;
    const decl = n.parent.parent;
    return ts.isClassLike(decl) || ts.isInterfaceDeclaration(decl) ? this.typeItem(lp, decl) : undefined;
  }

  private typeItem(lp: LoadedProgram, d: TS.ClassLikeDeclaration | TS.InterfaceDeclaration): HierarchyItem | undefined {
    const sf = d.getSourceFile();
    const nameNode = d.name ?? d;
    const start = nameNode.getStart(sf);
    const loc = this.location(lp, sf.fileName, { start, length: nameNode.getEnd() - start }, { start: d.getStart(sf), length: d.getEnd() - d.getStart(sf) });
    if (!loc) return undefined;
    return { ...loc, name: d.name?.text ?? '(anonymous)', kind: this.ts.isInterfaceDeclaration(d) ? 'interface' : 'class', origin: TS_PROGRAMS_PROVIDER_ID };
  }

  private mayInclude(c: ProgramConfig, mentions: ReadonlySet<string>): boolean {
    const dir = path.posix.dirname(c.id);
    return dir === '.' || [...mentions].some((f) => f.startsWith(dir + '/'));
  }

  private cancelled(e: unknown): boolean {
    return (e instanceof Error && e.name === 'OperationCanceledException') || e instanceof this.ts.OperationCanceledException || this.isCancelled();
  }
}

function offsetOf(sf: TS.SourceFile, line: number, column: number): number {
  const starts = sf.getLineStarts();
  const l = Math.min(Math.max(0, line - 1), starts.length - 1);
  const lineEnd = l + 1 < starts.length ? starts[l + 1]! : sf.text.length;
  return Math.min(starts[l]! + Math.max(0, column - 1), lineEnd);
}

/** The innermost node whose text (trivia excluded) contains `pos`. */
function nodeAt(ts: TypeScriptModule, sf: TS.SourceFile, pos: number): TS.Node | undefined {
  let found: TS.Node | undefined;
  const visit = (n: TS.Node): void => {
    if (pos < n.getStart(sf) || pos >= n.getEnd()) return;
    found = n;
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(sf, visit);
  return found;
}

/** The class/interface declaration whose name is `node`. */
function classLike(ts: TypeScriptModule, node: TS.Node): TS.ClassLikeDeclaration | TS.InterfaceDeclaration | undefined {
  const p = node.parent;
  if (ts.isIdentifier(node) && p && (ts.isClassLike(p) || ts.isInterfaceDeclaration(p)) && p.name === node) return p;
  if (ts.isClassLike(node) || ts.isInterfaceDeclaration(node)) return node;
  return undefined;
}

/** TypeScript's ScriptElementKind names to symbol kinds (as typescript-language-server maps them). */
const KINDS = new Map<string, SymbolKindName>([
  ['script', 'file'],
  ['module', 'module'],
  ['class', 'class'],
  ['local class', 'class'],
  ['interface', 'interface'],
  ['type', 'typeParameter'],
  ['enum', 'enum'],
  ['enum member', 'enumMember'],
  ['var', 'variable'],
  ['local var', 'variable'],
  ['let', 'variable'],
  ['const', 'constant'],
  ['function', 'function'],
  ['local function', 'function'],
  ['method', 'method'],
  ['getter', 'property'],
  ['setter', 'property'],
  ['property', 'property'],
  ['accessor', 'property'],
  ['constructor', 'constructor'],
  ['parameter', 'variable'],
  ['type parameter', 'typeParameter'],
  ['alias', 'variable'],
]);

function kindName(kind: string): SymbolKindName {
  return KINDS.get(kind) ?? 'function';
}

function dedupe<T extends { path: string; line: number; column: number }>(list: T[]): T[] {
  const seen = new Set<string>();
  return list.filter((l) => {
    const k = `${l.path}:${l.line}:${l.column}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function isSome<T>(x: T | undefined): x is T {
  return x !== undefined;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
