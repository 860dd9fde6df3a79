/**
 * The headless C# provider on Sextant's own Roslyn host. One host process, one live workspace
 * grown by need (projects/ensure), never restarted to grow:
 * - a position binds in its file's project, whose project-reference closure is ensured first;
 * - definition and the hierarchy preparations need only that;
 * - use questions (references, implementations, callers, subtypes) ask the host for the symbol
 *   first, then search its declaring project and the transitive dependents whose files the text
 *   index says mention the name (each with its references ensured), passed as the query scope.
 * Coverage is honest: an answer is precise only when every candidate project was searched;
 * otherwise its gaps give searched/needed counts, and an empty partial answer says "none found in
 * the N projects searched (M not searched)". Host trouble (absent, crashed, hung, deadline) is a
 * value; the host restarts with backoff on the next question.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  DIAGNOSTICS_MAX_ROWS,
  DIAGNOSTICS_ROSLYN_DEADLINE_MARGIN_MS,
  DIAGNOSTICS_ROSLYN_MIN_QUERY_MS,
  DIAGNOSTICS_ROSLYN_MAX_PROJECTS,
  ROSLYN_DERIVED_EXPANSION_MAX_ROUNDS,
  ROSLYN_ENSURE_BATCH_PROJECTS,
  ROSLYN_HOST_INITIALIZE_TIMEOUT_MS,
  ROSLYN_MAX_CANDIDATE_PROJECTS,
  ROSLYN_OVERRIDE_CHAIN_MAX_DEPTH,
  ROSLYN_OVERRIDE_WALK_MAX_MEMBERS,
  ROSLYN_PREWARM_COMPILE_PROJECTS,
  ROSLYN_PREWARM_DESCRIBE_SLICE_MS,
  ROSLYN_PREWARM_ENSURE_BATCH_PROJECTS,
  ROSLYN_PREWARM_IDLE_POLL_MS,
  ROSLYN_PREWARM_STEP_TIMEOUT_MS,
  ROSLYN_UNRESOLVED_NOTE_MAX_NAMES,
  XML_DOC_INHERIT_DEPTH,
  ROSLYN_CONTINUE_QUIET_MS,
  ROSLYN_CONTINUE_STEP_MS,
  ROSLYN_CONTINUE_STEP_PROJECTS,
  ROSLYN_VARIANT_ANSWER_MARGIN_MS,
  ROSLYN_VARIANT_MIN_LEFT_MS,
} from '../../core/limits';
import { log } from '../../core/log';
import type { CallContext, OpArgs, OpResult, ProviderAvailability, ProviderOutcome, SemanticOp, SemanticProvider } from '../provider';
import type { HierarchyItem, IncomingCall, OutgoingCall, ReferenceLocation, SemanticLocation, SymbolKindName } from '../types';
import { EDITOR_SYMBOL_KINDS } from '../../protocol/protocol';
import {
  HostErrorCodes,
  HostMethods,
  type CalleeRow,
  type CallerRow,
  type DefinitionRow,
  type EnsureResult,
  type EnsureResultRow,
  type HostLocation,
  type ImplementationRow,
  type ProjectDescription,
  type ProjectKey,
  type QueryParams,
  type QueryResult,
  type ReferenceRow,
  type SymbolInfoRow,
  type SymbolRef,
  type TypeHierarchyRow,
  type Unresolved,
} from './hostProtocol';
import { splitKey, type ProjectDescriber } from './projectDescriptions';
import { HostDeadlineError, HostExitedError, RoslynHost, type HostCommand, type HostStatus } from './roslynHost';
import { resumable, SearchCache, type SearchOwner, type SearchProgress } from './searchProgress';
import { rpcErrorCode } from '../lsp/rpcChannel';

export const ROSLYN_PROVIDER_ID = 'roslyn';

/** Questions about uses: their answer needs the projects that depend on the declaring one. */
const USE_OPS: ReadonlySet<SemanticOp> = new Set(['references', 'implementation', 'incomingCalls', 'subtypes']);
const SERVED: ReadonlySet<SemanticOp> = new Set([
  'definition',
  'references',
  'implementation',
  'prepareCallHierarchy',
  'incomingCalls',
  'outgoingCalls',
  'prepareTypeHierarchy',
  'supertypes',
  'subtypes',
  'diagnostics',
  'documentation',
]);

/** What the provider needs from the engine: the project model of the current index version. */
export interface RoslynWorkspaceModel {
  /** The describer of the current project graph (undefined while there is none yet). */
  describer(): ProjectDescriber | undefined;
  /** Project ids that depend on `project`, transitively (the project itself excluded). */
  dependents(project: string): ReadonlySet<string>;
  /** Project ids with a file the text index says mentions `name`; undefined when it cannot tell. */
  projectsMentioning(name: string): ReadonlySet<string> | undefined;
  /** Files the text index says mention `name` as a token; undefined when it cannot tell. */
  filesMentioning?(name: string): ReadonlySet<string> | undefined;
  /** Paths changed on disk since they were indexed (watcher), to push before a question. */
  pendingPaths?(): Iterable<string>;
}

export interface RoslynProviderOptions {
  /** Canonical absolute workspace root. */
  root: string;
  model: RoslynWorkspaceModel;
  memoryCapMb?: number;
  /** A host command instead of the built one (tests). */
  command?: HostCommand | { argv: string[] };
  hangGraceMs?: number;
}

/** What a background start did. */
export interface PrewarmResult {
  state: 'done' | 'skipped' | 'failed' | 'cancelled';
  /** Projects described, handed to the host (new to it), compiled. */
  described: number;
  ensured: number;
  compiled: number;
  ms: number;
  /** ms from the start to every description handed over; the longest single host step. */
  ensureMs?: number;
  maxStepMs?: number;
  /** Background requests cancelled because a question came (each sent again after it). */
  yielded?: number;
  detail?: string;
}

/** The data of a hierarchy item this provider made: enough to ask the host about it again. */
interface ItemData {
  docId: string | null;
  projectKey?: string;
}

/** Coverage of one answer. */
export interface Scope {
  keys: ProjectKey[];
  /** Candidates that could not even be described or were cut at the cap. */
  dropped: { key: string; reason: string }[];
}

export class RoslynProvider implements SemanticProvider {
  readonly id = ROSLYN_PROVIDER_ID;
  readonly precision = 'precise' as const;
  readonly host: RoslynHost;
  /** Hash of each description the current host process has, by key. */
  private ensured = new Map<ProjectKey, string>();
  private ensuredGeneration = -1;
  private readonly unresolved = new Map<ProjectKey, Unresolved[]>();
  private readonly failedProjects = new Map<ProjectKey, string>();
  private readonly changed = new Set<string>();
  /** Questions being answered now (background work waits for 0). */
  private inFlight = 0;
  /** The background request in flight, aborted when a question starts. */
  private readonly background = new Set<AbortController>();
  /** Per-question counts, for doctor and tests. */
  readonly stats = { questions: 0, ensured: 0, lastScope: 0, lastSearched: 0, continuationSteps: 0, continuedProjects: 0, lateAnswersKept: 0 };
  /** References searches so far, per searched project (asked again: only the rest is searched). */
  private readonly searches = new SearchCache();
  /** The background continuation of searches cut at their deadline, while it runs. */
  private continuing: Promise<void> | undefined;
  /** When the last question ended (the continuation waits for a quiet moment). */
  private lastQuestionEnd = 0;
  /** Aborted when the provider is disposed (stops the continuation). */
  private readonly life = new AbortController();

  constructor(private readonly options: RoslynProviderOptions) {
    this.host = new RoslynHost({
      root: options.root,
      ...(options.memoryCapMb !== undefined ? { memoryCapMb: options.memoryCapMb } : {}),
      ...(options.command ? { command: options.command } : {}),
      ...(options.hangGraceMs !== undefined ? { hangGraceMs: options.hangGraceMs } : {}),
    });
  }

  supports(language: string, op: SemanticOp): boolean {
    return language === 'csharp' && SERVED.has(op);
  }

  availability(language: string, project?: string): ProviderAvailability {
    if (language !== 'csharp') return { state: 'absent', detail: `the Roslyn host serves C# only`, started: false };
    const st = this.host.status();
    const base = { detail: st.detail, started: st.state !== 'stopped' && st.state !== 'absent' };
    if (project) {
      const failed = [...this.failedProjects].find(([k]) => splitKey(k).project === project);
      if (failed) return { ...base, state: 'failed', detail: `${project} could not be loaded: ${failed[1]}` };
    }
    switch (st.state) {
      case 'ready':
        return { ...base, state: 'ready', detail: `${st.detail}; ${this.ensured.size} project(s) in its workspace` };
      case 'starting':
        return { ...base, state: 'loading' };
      case 'stopped':
        return { ...base, state: st.command ? 'loading' : 'absent' };
      case 'absent':
        return { ...base, state: 'absent' };
      default:
        return { ...base, state: 'failed' };
    }
  }

  status(): HostStatus & { projects: number; unresolved: number } {
    return { ...this.host.status(), projects: this.ensured.size, unresolved: [...this.unresolved.values()].reduce((n, l) => n + l.length, 0) };
  }

  /** Projects the host has been given (keys), for tests and doctor. */
  ensuredKeys(): ReadonlySet<ProjectKey> {
    return new Set(this.ensured.keys());
  }

  /** Unresolved references per project, as the host reported them. */
  unresolvedOf(key: ProjectKey): readonly Unresolved[] {
    return this.unresolved.get(key) ?? [];
  }

  /** The engine's watcher saw these paths change; they are pushed to the host before the next question. */
  filesChanged(paths: Iterable<string>): void {
    for (const p of paths) if (/\.cs$/i.test(p)) this.changed.add(p);
  }

  async request<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>> {
    if (!this.supports(language, op)) return { kind: 'unavailable', state: 'unsupported', reason: `the Roslyn host does not serve ${op} for ${language}` };
    const describer = this.options.model.describer();
    if (!describer) return { kind: 'unavailable', state: 'loading', reason: 'the Roslyn host starts once the project model is built (the index is being built)' };
    if (op === 'diagnostics') return (await this.diagnostics((args as OpArgs<'diagnostics'>).paths, describer, ctx)) as ProviderOutcome<OpResult<K>>;
    const a = args as { path: string; line: number; column: number; external?: boolean; origin?: string; data?: unknown };
    if (a.external) return { kind: 'unavailable', state: 'failed', reason: `${a.path} is outside the workspace (metadata); the Roslyn host answers for source positions` };
    const bind = describer.keysOfFile(a.path);
    if (bind.length === 0) {
      return { kind: 'unavailable', state: 'failed', reason: `${a.path} is compiled by no C# project of the project model; no compiler context to answer in` };
    }
    // A question goes first: background work pauses from now on (also while the host starts), and
    // a background request the host is running is cancelled (it is sent again after the question).
    this.inFlight++;
    for (const c of this.background) c.abort(new Error('a question goes first'));
    const t0 = Date.now();
    try {
      const acquired = await this.host.acquire(ctx.waitForReadyMs, ctx.signal);
      if (!acquired.ok) return { kind: 'unavailable', state: acquired.state, reason: acquired.reason };
      const tAcquired = Date.now();
      this.stats.questions++;
      if (!this.syncGeneration(acquired.generation)) await this.flushChanges(ctx);
      const bindKey = bind[0]!;
      const bindScope = this.closure(describer, [bindKey]);
      const failedBind = await this.ensure(describer, bindScope.keys, ctx, acquired.generation);
      if (failedBind.has(bindKey)) return { kind: 'unavailable', state: 'failed', reason: `${splitKey(bindKey).project} could not be loaded: ${failedBind.get(bindKey)}` };
      const tEnsured = Date.now();
      const out = (await this.dispatch(op, a, bindKey, describer, ctx, acquired.generation)) as ProviderOutcome<OpResult<K>>;
      log.debug('roslyn: question', { op, acquireMs: tAcquired - t0, ensureMs: tEnsured - tAcquired, closure: bindScope.keys.length, answerMs: Date.now() - tEnsured, outcome: out.kind });
      return out;
    } catch (e) {
      return this.failure(e, op, ctx);
    } finally {
      this.inFlight--;
      this.lastQuestionEnd = Date.now();
    }
  }

  /**
   * Background start, once the project model exists: the host process is started, every C#
   * project's description is handed to it in one growth step (so no later question grows the
   * workspace past the size at which the host rebuilds its solution and drops compiled state), then
   * the projects most depended on are compiled (one document bound each) while the host stays
   * under half its memory cap. Every step waits while a question is in flight, so the first answer
   * is not queued behind it; describing yields to the event loop between slices. Never throws.
   */
  async prewarm(o: { signal: AbortSignal; order?: (describer: ProjectDescriber) => ProjectKey[] }): Promise<PrewarmResult> {
    const result: PrewarmResult = { state: 'skipped', described: 0, ensured: 0, compiled: 0, ms: 0 };
    this.prewarming = result;
    try {
      return await this.runPrewarm(o, result);
    } finally {
      this.prewarming = undefined;
    }
  }

  /** The background start while it runs (its counts grow in place), for tests and doctor. */
  prewarming: PrewarmResult | undefined;

  private async runPrewarm(o: { signal: AbortSignal; order?: (describer: ProjectDescriber) => ProjectKey[] }, result: PrewarmResult): Promise<PrewarmResult> {
    const started = Date.now();
    const describer = this.options.model.describer();
    if (!describer) return { ...result, detail: 'no project model yet' };
    const acquired = await this.host.acquire(ROSLYN_HOST_INITIALIZE_TIMEOUT_MS, o.signal);
    if (!acquired.ok) return { ...result, state: 'failed', detail: acquired.reason, ms: Date.now() - started };
    const generation = acquired.generation;
    /**
     * One background host request, between questions: a question that starts meanwhile cancels it
     * (the host stops it, or it never leaves the host's queue) and it is sent again once idle.
     */
    const step = async <T>(run: (c: CallContext) => Promise<T>): Promise<T | undefined> => {
      for (;;) {
        await this.prewarmIdle(o.signal);
        if (o.signal.aborted) return undefined;
        if (this.host.status().generation !== generation) throw new Error('the host restarted during the background start');
        const c = new AbortController();
        const onAbort = () => c.abort(o.signal.reason);
        o.signal.addEventListener('abort', onAbort, { once: true });
        this.background.add(c);
        try {
          return await run({ signal: c.signal, deadline: Date.now() + ROSLYN_PREWARM_STEP_TIMEOUT_MS, waitForReadyMs: 0 });
        } catch (e) {
          if (o.signal.aborted) return undefined;
          if (!c.signal.aborted) throw e;
          result.yielded = (result.yielded ?? 0) + 1; // a question came: again after it
        } finally {
          this.background.delete(c);
          o.signal.removeEventListener('abort', onAbort);
        }
      }
    };
    try {
      await this.prewarmIdle(o.signal);
      this.syncGeneration(generation);
      const byDegree = o.order ? o.order(describer) : [];
      const all = await this.closureYielding(describer, byDegree, o.signal);
      // Handed over in small steps (references first), each between questions: a step this small
      // is added in place by the host (compiled state kept), and a question waits at most one step.
      const before = this.ensured.size;
      for (let i = 0; i < all.length; i += ROSLYN_PREWARM_ENSURE_BATCH_PROJECTS) {
        if (o.signal.aborted) return { ...result, state: 'cancelled', ms: Date.now() - started };
        await this.prewarmIdle(o.signal);
        const keys = all.slice(i, i + ROSLYN_PREWARM_ENSURE_BATCH_PROJECTS);
        // Describing evaluates each project again (a few ms each, far more on a busy machine): in
        // slices of ROSLYN_PREWARM_DESCRIBE_SLICE_MS, yielding between them.
        let slice = Date.now();
        for (const k of keys) {
          if (Date.now() - slice >= ROSLYN_PREWARM_DESCRIBE_SLICE_MS) {
            await new Promise((r) => setImmediate(r));
            await this.prewarmIdle(o.signal);
            slice = Date.now();
          }
          describer.describe(k);
        }
        result.described += keys.length;
        const t = Date.now();
        await step((c) => this.ensure(describer, keys, c, generation, ROSLYN_PREWARM_ENSURE_BATCH_PROJECTS));
        result.maxStepMs = Math.max(result.maxStepMs ?? 0, Date.now() - t);
      }
      result.ensured = this.ensured.size - before;
      result.ensureMs = Date.now() - started;
      // Compile the most depended-on projects (every question near them needs their compilation).
      for (const k of byDegree.slice(0, ROSLYN_PREWARM_COMPILE_PROJECTS)) {
        if (o.signal.aborted) return { ...result, state: 'cancelled', ms: Date.now() - started };
        await this.prewarmIdle(o.signal);
        if (this.host.status().generation !== generation) break;
        const d = describer.describe(k);
        const doc = d.ok ? d.description.documents.find((x) => !x.generated) : undefined;
        if (!doc || !this.ensured.has(k)) continue;
        const r = await step((c) => this.query<unknown>({ op: 'diagnostics', position: { path: doc.path, line: 1, column: 1, projectKey: k }, scope: [k] }, c, generation));
        if (!r) break;
        result.compiled++;
        const mb = r.stats?.workingSetMb;
        const cap = this.host.status().memoryCapMb;
        if (mb !== undefined && cap !== undefined && mb > cap / 2) {
          result.detail = `stopped compiling at ${mb} MB working set (half the ${cap} MB cap)`;
          break;
        }
      }
      result.state = 'done';
    } catch (e) {
      result.state = 'failed';
      result.detail = e instanceof Error ? e.message : String(e);
    }
    result.ms = Date.now() - started;
    this.lastPrewarm = result;
    log.info('roslyn: background start', { ...result });
    return result;
  }

  /** Starts the host process without waiting for it (the background start's first step). */
  startHost(signal: AbortSignal): void {
    void this.host.acquire(ROSLYN_HOST_INITIALIZE_TIMEOUT_MS, signal);
  }

  /** What the last background start did (doctor, tests). */
  lastPrewarm: PrewarmResult | undefined;

  private isBackground(signal: AbortSignal): boolean {
    for (const c of this.background) if (c.signal === signal) return true;
    return false;
  }

  /** Resolves when no question is in flight (background work goes between questions). */
  private async idle(signal: AbortSignal): Promise<void> {
    while (this.inFlight > 0 && !signal.aborted) await new Promise((r) => setTimeout(r, ROSLYN_PREWARM_IDLE_POLL_MS));
  }

  /** The background start waits for questions and for the continuation of their searches too. */
  private async prewarmIdle(signal: AbortSignal): Promise<void> {
    while ((this.inFlight > 0 || this.continuing) && !signal.aborted) await new Promise((r) => setTimeout(r, ROSLYN_PREWARM_IDLE_POLL_MS));
  }

  /**
   * Starts the background continuation unless it runs: between questions (after
   * ROSLYN_CONTINUE_QUIET_MS without one), the most recently asked references search that is not
   * complete goes on, ROSLYN_CONTINUE_STEP_PROJECTS projects per host request; a question cancels
   * the step (its projects are searched again by the next step). Never throws.
   */
  private continueSearches(): void {
    if (this.continuing || this.life.signal.aborted) return;
    this.continuing = this.runContinuation()
      .catch((e: unknown) => log.warn('roslyn: search continuation failed', { error: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        this.continuing = undefined;
      });
  }

  /** Whether the background continuation is running (tests, doctor). */
  continuationRunning(): boolean {
    return this.continuing !== undefined;
  }

  private async runContinuation(): Promise<void> {
    const signal = this.life.signal;
    for (;;) {
      // A quiet moment: no question in flight, none ended in the last ROSLYN_CONTINUE_QUIET_MS.
      for (;;) {
        await this.idle(signal);
        const wait = this.lastQuestionEnd + ROSLYN_CONTINUE_QUIET_MS - Date.now();
        if (wait <= 0 || signal.aborted) break;
        await new Promise((r) => setTimeout(r, wait));
      }
      if (signal.aborted) return;
      const st = this.host.status();
      if (st.state !== 'ready') return;
      const owner = this.searchOwner(st.generation);
      const search: SearchProgress | undefined = owner ? this.searches.nextIncomplete(owner) : undefined;
      if (!owner || !search) return;
      const rest = search.pending().slice(0, ROSLYN_CONTINUE_STEP_PROJECTS);
      const c = new AbortController();
      const onLife = () => c.abort(signal.reason);
      signal.addEventListener('abort', onLife, { once: true });
      this.background.add(c);
      try {
        const options = { ...search.params.options, deadlineMs: ROSLYN_CONTINUE_STEP_MS };
        const r = await this.host.request<QueryResult<ReferenceRow>>(HostMethods.query, { ...search.params, scope: rest, options }, { signal: c.signal, deadline: Date.now() + 2 * ROSLYN_CONTINUE_STEP_MS, generation: owner.generation });
        if (!this.searches.has(search, owner)) continue;
        const before = search.searched.size;
        search.add(r ?? { items: [], searched: [], notSearched: [] });
        this.stats.continuationSteps++;
        this.stats.continuedProjects += search.searched.size - before;
        log.debug('roslyn: search continued', { searched: search.searched.size - before, left: search.pending().length });
        // A step that reached no project (a machine too busy to compile one batch in the step's
        // time): a few in a row and the search waits for the next question.
        search.stalls = search.searched.size === before ? search.stalls + 1 : 0;
      } catch (e) {
        if (c.signal.aborted && !signal.aborted) continue; // a question came: this step again after it
        if (signal.aborted) return;
        // A search that fails in the background is left to the next question (which reports why).
        this.searches.drop(search);
        log.debug('roslyn: search continuation step failed', { error: e instanceof Error ? e.message : String(e) });
      } finally {
        this.background.delete(c);
        signal.removeEventListener('abort', onLife);
      }
    }
  }

  /** A new host process has an empty workspace: everything is ensured again. */
  private syncGeneration(generation: number): boolean {
    if (generation === this.ensuredGeneration) return false;
    this.ensured = new Map();
    this.ensuredGeneration = generation;
    this.changed.clear();
    return true;
  }

  async dispose(): Promise<void> {
    this.life.abort(new Error('disposed'));
    await this.host.stop('engine shutting down').catch(() => this.host.kill());
  }

  /**
   * Compiler diagnostics of the asked files (owner diag, issue 13): a project with one asked file
   * is asked for that document's semantic diagnostics, one with more for its whole compilation
   * (then filtered to the asked files); projects past DIAGNOSTICS_ROSLYN_MAX_PROJECTS are gaps.
   * The host runs no analyzers: these are the compiler's diagnostics only.
   */
  private async diagnostics(paths: readonly string[], describer: ProjectDescriber, ctx: CallContext): Promise<ProviderOutcome<OpResult<'diagnostics'>>> {
    const byKey = new Map<ProjectKey, string[]>();
    const unmapped: string[] = [];
    for (const p of paths) {
      const k = describer.keysOfFile(p)[0];
      if (k === undefined) unmapped.push(p);
      else (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(p);
    }
    if (byKey.size === 0) return { kind: 'unavailable', state: 'failed', reason: `${paths.length === 1 ? paths[0] : `the ${paths.length} files`} compiled by no C# project of the project model` };
    this.inFlight++; // a question goes first (see request)
    for (const c of this.background) c.abort(new Error('a question goes first'));
    try {
      const acquired = await this.host.acquire(ctx.waitForReadyMs, ctx.signal);
      if (!acquired.ok) return { kind: 'unavailable', state: acquired.state, reason: acquired.reason };
      if (!this.syncGeneration(acquired.generation)) await this.flushChanges(ctx);
      const keys = [...byKey.keys()];
      const asked = keys.slice(0, DIAGNOSTICS_ROSLYN_MAX_PROJECTS);
      const gaps: string[] = [];
      if (keys.length > asked.length) gaps.push(`${keys.length - asked.length} of ${keys.length} C# projects not compiled (at most ${DIAGNOSTICS_ROSLYN_MAX_PROJECTS} per call): ${keys.slice(asked.length, asked.length + 3).map((k) => splitKey(k).project).join(', ')}`);
      if (unmapped.length) gaps.push(`${unmapped.length} file(s) compiled by no C# project: ${unmapped.slice(0, 3).join(', ')}`);
      const closure = this.closure(describer, asked).keys;
      let failed: Map<ProjectKey, string>;
      try {
        failed = await this.ensure(describer, closure, ctx, acquired.generation);
      } catch (e) {
        // A cold host still loading the projects at the deadline: said so (it is asked again next time).
        if (!(e instanceof HostDeadlineError)) throw e;
        return { kind: 'unavailable', state: 'loading', reason: `the Roslyn host was still loading the ${closure.length} C# project(s) when the deadline came; ask again` };
      }
      const rows: DiagnosticRow[] = [];
      const unchecked = [...unmapped, ...keys.slice(asked.length).flatMap((k) => byKey.get(k)!)];
      /** Projects not compiled by the deadline (not started, or cut by the host). */
      const late: ProjectKey[] = [];
      for (const k of asked) {
        if (failed.has(k)) {
          gaps.push(`${splitKey(k).project} could not be loaded: ${failed.get(k)}`);
          unchecked.push(...byKey.get(k)!);
          continue;
        }
        // The host stops at `deadlineMs` (protocol 4), the margin before ours kept for its reply, and
        // names the projects it did not finish; none is asked with less than that left.
        const hostMs = ctx.deadline - Date.now() - DIAGNOSTICS_ROSLYN_DEADLINE_MARGIN_MS;
        if (ctx.signal.aborted || hostMs < DIAGNOSTICS_ROSLYN_MIN_QUERY_MS) {
          late.push(k);
          unchecked.push(...byKey.get(k)!);
          continue;
        }
        const files = byKey.get(k)!;
        const want = new Set(files);
        const options = { maxItems: DIAGNOSTICS_MAX_ROWS, deadlineMs: Math.round(hostMs) };
        const r = await this.query<HostDiagnostic>(
          files.length === 1 ? { op: 'diagnostics', position: { path: files[0]!, line: 1, column: 1, projectKey: k }, scope: [k], options } : { op: 'diagnostics', scope: [k], options },
          ctx,
          acquired.generation,
        );
        const syntaxOnly = (r as { syntaxOnly?: boolean }).syntaxOnly === true;
        if (!syntaxOnly && r.notSearched.some((n) => n.key === k && n.reason === 'deadline')) {
          // Cut before its compilation was done: nothing of it is in the answer (the host keeps compiling).
          late.push(k);
          unchecked.push(...files);
          continue;
        }
        if (syntaxOnly) gaps.push(`${files[0]}: parse diagnostics only (${splitKey(k).project} was not compiled by the deadline: ask again)`);
        if (r.truncated) gaps.push(`${splitKey(k).project}: the host cut its diagnostics at ${DIAGNOSTICS_MAX_ROWS}`);
        for (const d of r.items) {
          if (!d.path || !want.has(d.path) || d.severity === 'hidden') continue;
          rows.push({ path: d.path, line: d.line, column: d.column, endLine: d.endLine, endColumn: d.endColumn, severity: d.severity, message: d.message, code: d.id, source: 'compiler' });
        }
      }
      if (late.length) gaps.push(`${late.length} of ${asked.length} C# project(s) not compiled by the deadline (compiled ones are kept: ask again): ${late.slice(0, 5).map((k) => splitKey(k).project).join(', ')}${late.length > 5 ? ', …' : ''}`);
      return { kind: 'ok', value: { rows, ...(unchecked.length ? { unchecked } : {}) }, ...(gaps.length ? { gaps } : {}) };
    } catch (e) {
      return this.failure(e, 'diagnostics', ctx);
    } finally {
      this.inFlight--;
    }
  }

  /**
   * xml_doc's fallback (owner expanded, issue 13): the symbol's doc-comment XML; an `<inheritdoc/>`
   * is followed through the compiler's view — its `cref`, else the overridden chain, then the
   * interface members implemented — metadata included (the host reads the reference assemblies'
   * XML docs), at most XML_DOC_INHERIT_DEPTH steps. Null when the position has no symbol.
   */
  private async documentation(position: { path: string; line: number; column: number; projectKey: ProjectKey }, bindKey: ProjectKey, ctx: CallContext, generation: number): Promise<OpResult<'documentation'>> {
    const first = await this.query<{ xml: string }>({ op: 'documentation', position, scope: [bindKey] }, ctx, generation);
    if (!first.symbol) return null;
    let xml = first.items[0]?.xml ?? '';
    let from: string | undefined;
    let at: Pick<QueryParams, 'position' | 'symbol'> = { position };
    for (let step = 0; step < XML_DOC_INHERIT_DEPTH && /<inheritdoc\b/.test(xml); step++) {
      const cref = /<inheritdoc\s+cref\s*=\s*"([A-Z]:[^"]+)"/.exec(xml)?.[1];
      let bases: string[];
      if (cref) bases = [cref];
      else {
        const info = (await this.query<SymbolInfoRow>({ op: 'symbolInfo', ...at, scope: [bindKey] }, ctx, generation)).items[0];
        bases = [...(info?.overriddenChain ?? (info?.overridden ? [info.overridden] : [])), ...(info?.implements ?? [])].map((r) => r.docId).filter((d): d is string => !!d);
      }
      let next: string | undefined;
      for (const docId of bases) {
        const r = await this.query<{ xml: string }>({ op: 'documentation', symbol: { docId, projectKey: bindKey }, scope: [bindKey] }, ctx, generation).catch(() => undefined);
        const x = r?.items[0]?.xml ?? '';
        if (x.trim() && /<(summary|inheritdoc|returns|param)\b/.test(x)) {
          next = x;
          from = docId;
          at = { symbol: { docId, projectKey: bindKey } };
          break;
        }
      }
      if (next === undefined) break;
      xml = next;
    }
    if (!xml.trim()) return null;
    return { text: xml, format: 'xml', ...(from ? { inheritedFrom: from.replace(/^[A-Z]:/, '') } : {}) };
  }

  // ─── dispatch ──────────────────────────────────────────────────────────────

  private async dispatch(op: SemanticOp, a: { path: string; line: number; column: number; origin?: string; data?: unknown; name?: string }, bindKey: ProjectKey, describer: ProjectDescriber, ctx: CallContext, generation: number): Promise<ProviderOutcome<unknown>> {
    const position = { path: a.path, line: a.line, column: a.column, projectKey: bindKey };
    const own = a.origin === this.id ? (a.data as ItemData | undefined) : undefined;
    const target: Pick<QueryParams, 'position' | 'symbol'> = own?.docId && own.projectKey ? { symbol: { docId: own.docId, projectKey: own.projectKey } } : { position };
    switch (op) {
      case 'definition': {
        const r = await this.query<DefinitionRow>({ op: 'definition', position, scope: [bindKey] }, ctx, generation);
        const notes = this.unresolvedNotes([bindKey]);
        return { kind: 'ok', value: r.items.map(toLocation), ...(notes.length ? { notes } : {}) };
      }
      case 'prepareCallHierarchy':
      case 'prepareTypeHierarchy': {
        const r = await this.query<unknown>({ op: 'symbolInfo', position, scope: [bindKey] }, ctx, generation);
        if (!r.symbol) return { kind: 'ok', value: [] };
        if (op === 'prepareTypeHierarchy' && !TYPE_KINDS.has(r.symbol.kind)) return { kind: 'ok', value: [] };
        return { kind: 'ok', value: [this.toItem(r.symbol, position)] };
      }
      case 'outgoingCalls': {
        const r = await this.query<CalleeRow>({ op: 'callees', ...target, scope: [bindKey] }, ctx, generation);
        const value: OutgoingCall[] = r.items.map((c) => ({ to: this.toItem(c.to), sites: c.sites.map(toSpan) }));
        return { kind: 'ok', value };
      }
      case 'documentation':
        return { kind: 'ok', value: await this.documentation(position, bindKey, ctx, generation) };
      case 'supertypes': {
        const r = await this.query<TypeHierarchyRow>({ op: 'typeHierarchy', ...target, scope: [bindKey], options: { direction: 'supertypes', transitive: false } }, ctx, generation);
        return { kind: 'ok', value: r.items.filter((t) => t.direction === 'supertype' && t.depth <= 1).map((t) => this.toItem(t)) };
      }
      default:
        break;
    }
    // Use questions: find the symbol, then search its project and the dependents that mention it.
    // A doc id naming a type the compilation could not resolve (a package not restored) does not
    // resolve back to its symbol (SYMBOL_NOT_FOUND): the position still does.
    const notFound = (e: unknown) => rpcErrorCode(e) === HostErrorCodes.symbolNotFound;
    const info = await this.query<SymbolInfoRow>({ op: 'symbolInfo', ...target, scope: [bindKey] }, ctx, generation).catch((e: unknown) => {
      if (!notFound(e) || !target.symbol) throw e;
      return this.query<SymbolInfoRow>({ op: 'symbolInfo', position, scope: [bindKey] }, ctx, generation);
    });
    const symbol = info.symbol;
    if (!symbol) return { kind: 'ok', value: [] };
    // A call through an interface or base member this one implements or overrides reaches it from
    // any project that sees that member, not only from dependents of the symbol's own project.
    const dispatchers = op === 'incomingCalls' && info.items[0] ? await this.dispatchers(info.items[0], ctx, generation) : [];
    const scope = this.candidates(describer, symbol, bindKey, dispatchers);
    const closure = this.closure(describer, scope.keys);
    const failed = await this.ensure(describer, closure.keys, ctx, generation);
    const searchable = scope.keys.filter((k) => !failed.has(k));
    for (const k of scope.keys) if (failed.has(k)) scope.dropped.push({ key: k, reason: `could not be loaded: ${failed.get(k)}` });
    // A multi-targeting declaring project is several compilations: dependents bind to the one
    // their framework picks, whose symbol is another symbol. Each variant they reference is asked.
    const declaring = symbol.projectKey ? splitKey(symbol.projectKey).project : undefined;
    const owners = new Set([...(declaring !== undefined ? [declaring] : []), ...linkedOwners(describer, symbol)]);
    const variants = symbol.docId && symbol.projectKey ? [symbol.projectKey, ...closure.keys.filter((k) => k !== symbol.projectKey && owners.has(splitKey(k).project) && !failed.has(k))] : [];
    const sym = variants.length > 0 ? { symbol: { docId: symbol.docId!, projectKey: variants[0]! } } : target;
    const deadlineMs = Math.round(Math.max(500, ctx.deadline - Date.now() - 400));
    // Each variant is searched in the projects that bind to it (their reference closure holds it).
    // A project that binds to no variant (it sees only an interface or base member) calls through
    // that member whichever variant: it is searched with each.
    const bindsTo = (k: ProjectKey, v: ProjectKey) => k === v || this.closure(describer, [k]).keys.includes(v);
    const scopeOf = (v: ProjectKey): ProjectKey[] => {
      const out = searchable.filter((k) => bindsTo(k, v) || (dispatchers.length > 0 && !variants.some((w) => bindsTo(k, w))));
      return out.includes(v) ? out : [v, ...out];
    };
    const query = async <Row>(params: QueryParams, keyOf: (row: Row) => string): Promise<QueryResult<Row>> => {
      try {
        return await (variants.length > 1 ? this.queryVariants<Row>(params, symbol.docId!, variants, scopeOf, keyOf, ctx, generation) : this.query<Row>(params, ctx, generation));
      } catch (e) {
        if (!notFound(e) || !params.symbol) throw e;
        // By position, in the compilation of the position's project (its other frameworks' copies are not reached).
        const { symbol: _byId, ...rest } = params;
        return this.query<Row>({ ...rest, position }, ctx, generation);
      }
    };
    let value: unknown[];
    let r: QueryResult<unknown>;
    /** Implementing members not asked for their overrides (deadline). */
    let overridesCut = 0;
    /** Derived types whose dependents were not followed (deadline or round limit). */
    let derivedOpen = false;
    /** Interface members (through an overridden member) whose calls could not be asked for. */
    const unresolvedVia: string[] = [];
    switch (op) {
      case 'references': {
        const q = a as unknown as OpArgs<'references'>;
        // Related rows are always asked for: a type's uses through its constructors (`new T()`)
        // come back as rows of the constructor and are the type's own references.
        // Only the files whose text mentions the name (an attribute's short form too) can reference it.
        const documents = this.mentioningDocuments(symbol);
        const rr = await query<ReferenceRow>({ op: 'references', ...sym, scope: searchable, options: { includeDeclaration: q.includeDeclaration, includeRelated: true, deadlineMs, ...(documents ? { documents } : {}) } }, locKey);
        const ctor = TYPE_KINDS.has(symbol.kind) && symbol.docId?.startsWith('T:') ? `M:${symbol.docId.slice(2)}.#` : undefined;
        const rows: ReferenceLocation[] = [];
        for (const row of rr.items) {
          // SymbolFinder marks a reference implicit where the symbol is not written (`new(...)`
          // target-typed, a foreach's GetEnumerator, a deconstruction): not a use of its name.
          if (row.isImplicit) continue;
          // The same declaration in another framework's compilation (same doc id) is the target too.
          const own = !row.related || row.definition === symbol.docId || (ctor !== undefined && row.definition?.startsWith(ctor) === true);
          if (!own && !q.includeRelated) continue;
          const out = toReference(row);
          if (own) delete out.related;
          rows.push(out);
        }
        value = rows;
        r = rr;
        break;
      }
      case 'implementation': {
        let rr = await query<ImplementationRow>({ op: 'implementations', ...sym, scope: searchable, options: { deadlineMs } }, symKey);
        const rows = [...rr.items];
        // A type's implementations are transitive: `class C : B` where B implements the interface
        // need not mention it. Dependents that mention a type found are searched too, until none is new.
        if (TYPE_KINDS.has(symbol.kind)) {
          const inScope = new Set([...scope.keys, ...scope.dropped.map((d) => d.key)]);
          const seen = new Set(rows.map(symKey));
          derivedOpen = true;
          for (let round = 0; round < ROSLYN_DERIVED_EXPANSION_MAX_ROUNDS && Date.now() < ctx.deadline - 1_000; round++) {
            const extra: ProjectKey[] = [];
            const names = new Set(rows.map((x) => x.name.replace(/[(<`].*$/, '')).filter((n) => /^\w+$/.test(n)));
            for (const n of names) {
              const m = this.options.model.projectsMentioning(n);
              for (const owner of owners) for (const d of this.options.model.dependents(owner)) {
                if (m && !m.has(d)) continue;
                const k = describer.keyOfProject(d);
                if (k && !inScope.has(k)) (inScope.add(k), extra.push(k));
              }
            }
            if (extra.length === 0) {
              derivedOpen = false;
              break;
            }
            const failedMore = await this.ensure(describer, this.closure(describer, extra).keys, ctx, generation);
            for (const k of extra) {
              if (failedMore.has(k)) scope.dropped.push({ key: k, reason: `could not be loaded: ${failedMore.get(k)}` });
              else (scope.keys.push(k), searchable.push(k));
            }
            const again = await query<ImplementationRow>({ op: 'implementations', ...sym, scope: searchable, options: { deadlineMs: Math.round(Math.max(500, ctx.deadline - Date.now() - 400)) } }, symKey);
            for (const x of again.items) if (!seen.has(symKey(x))) (seen.add(symKey(x)), rows.push(x));
            rr = { ...again, items: rows };
          }
        }
        // An interface member's implementations that are themselves virtual have overrides below
        // them (Shape.Area implements IShape.Area; Circle.Area overrides it): asked for one by one.
        if (!TYPE_KINDS.has(symbol.kind)) {
          const seen = new Set(rows.map((x) => x.docId));
          const more = rows.filter((x) => x.relation === 'implementation' && x.docId && x.projectKey).slice(0, ROSLYN_OVERRIDE_WALK_MAX_MEMBERS);
          for (const m of more) {
            if (Date.now() > ctx.deadline - 500) {
              overridesCut = more.length - more.indexOf(m);
              break;
            }
            const o = await this.query<ImplementationRow>({ op: 'implementations', symbol: { docId: m.docId!, projectKey: m.projectKey! }, scope: searchable, options: { deadlineMs: Math.round(Math.max(300, ctx.deadline - Date.now() - 400)) } }, ctx, generation).catch((e: unknown) => {
              if (!notFound(e)) throw e;
              overridesCut++; // its doc id names an unresolved type: not searched for overrides
              return { symbol: null, items: [] as ImplementationRow[], searched: [], notSearched: [] };
            });
            for (const x of o.items) if (x.relation === 'override' && !seen.has(x.docId)) {
              seen.add(x.docId);
              rows.push(x);
            }
          }
        }
        value = rows.flatMap((s) => s.locations.map(toLocation));
        r = rr;
        break;
      }
      case 'incomingCalls': {
        // A call names the member (through an interface or base member too: same name), so only
        // the files the text index says mention it are read (the host still searches generated ones).
        const documents = this.mentioningDocuments(symbol);
        const rr = await query<CallerRow>({ op: 'callers', ...sym, scope: searchable, options: { deadlineMs, ...(documents ? { documents } : {}) } }, (c) => `${symKey(c.from)}|${c.via ?? ''}`);
        // Through a framework member (IEnumerable<T>.GetEnumerator in every foreach, object.ToString)
        // a call reaches every implementation in the world: not a caller of this one. Only calls
        // through the source members it implements or overrides are kept.
        const sourceVia = new Set(dispatchers.map((d) => d.docId).filter((d): d is string => d !== null));
        rr.items = rr.items.filter((c) => !c.via || (c.viaSymbol !== undefined && sourceVia.has(c.viaSymbol)));
        // An interface member reached through an overridden member (Circle.Area overrides
        // Shape.Area, which implements IShape.Area): its calls dispatch here too. Asked for
        // directly when the host's answer has no row through it.
        // A host that followed the member itself (its `dispatchers`, protocol 2) has its rows already.
        const answered = new Set([...rr.items.map((c) => c.viaSymbol), ...(rr.dispatchers ?? []).map((d) => d.docId)].filter((v): v is string => typeof v === 'string'));
        const keys = new Set(rr.items.map((c) => `${symKey(c.from)}|${c.via ?? ''}`));
        for (const d of dispatchers) {
          if (d.via !== 'interface' || !d.docId || !d.projectKey || answered.has(d.docId) || Date.now() > ctx.deadline - 500) continue;
          answered.add(d.docId);
          const more = await this.query<CallerRow>({ op: 'callers', symbol: { docId: d.docId, projectKey: d.projectKey }, scope: searchable, options: { deadlineMs: Math.round(Math.max(300, ctx.deadline - Date.now() - 400)), ...(documents ? { documents } : {}) } }, ctx, generation).catch((e: unknown) => {
            if (!notFound(e)) throw e;
            unresolvedVia.push(d.name);
            return { symbol: null, items: [] as CallerRow[], searched: rr.searched, notSearched: [] };
          });
          for (const c of more.items) {
            if (c.via) continue; // bound to the interface member itself
            const k = `${symKey(c.from)}|interface`;
            if (keys.has(k)) continue;
            keys.add(k);
            rr.items.push({ ...c, via: 'interface', viaSymbol: d.docId });
          }
          const left = new Set(more.notSearched.map((n) => n.key));
          rr.searched = rr.searched.filter((k) => !left.has(k));
          for (const n of more.notSearched) if (!rr.notSearched.some((x) => x.key === n.key)) rr.notSearched.push(n);
        }
        // One caller per calling member: a member calling both directly and through the interface
        // (or in two frameworks' compilations) is one row with every site.
        const byCaller = new Map<string, IncomingCall>();
        for (const c of rr.items) {
          const k = symKey(c.from);
          const row = byCaller.get(k);
          if (!row) {
            byCaller.set(k, { from: this.toItem(c.from), sites: c.sites.map(toSpan) });
            continue;
          }
          for (const site of c.sites) if (!row.sites.some((x) => x.line === site.line && x.column === site.column)) row.sites.push(toSpan(site));
        }
        value = [...byCaller.values()];
        r = rr;
        break;
      }
      default: {
        const rr = await query<TypeHierarchyRow>({ op: 'typeHierarchy', ...sym, scope: searchable, options: { direction: 'subtypes', transitive: false, deadlineMs } }, symKey);
        value = rr.items.filter((t) => t.direction === 'subtype' && t.depth <= 1).map((t) => this.toItem(t));
        r = rr;
        break;
      }
    }
    const gaps = coverageGaps(scope, r, value.length);
    if (derivedOpen) gaps.push('types deriving from the implementations found were not all followed into the projects that mention them (deadline)');
    if (unresolvedVia.length) gaps.push(`calls through ${unresolvedVia.join(', ')} were not searched (its doc id names a type the compilation could not resolve)`);
    if (overridesCut > 0) gaps.push(`${overridesCut} implementing member(s) were not searched for overrides below them (deadline, or a doc id naming an unresolved type)`);
    this.stats.lastScope = scope.keys.length + scope.dropped.length;
    this.stats.lastSearched = r.searched.length;
    const notes = this.unresolvedNotes(r.searched);
    return { kind: 'ok', value, ...(gaps.length ? { gaps } : {}), ...(notes.length ? { notes } : {}) };
  }

  /**
   * What the searched projects compile without (the host dropped it): named, so an answer about a
   * symbol in source stays precise yet says where a use binding through a missing package or
   * reference could hide. Empty when everything resolved.
   */
  unresolvedNotes(keys: readonly ProjectKey[]): string[] {
    const byName = new Map<string, { kind: string; projects: Set<string> }>();
    let projects = 0;
    for (const k of new Set(keys)) {
      const list = this.unresolved.get(k);
      if (!list?.length) continue;
      if (list.some((u) => u.kind !== 'analyzer')) projects++;
      for (const u of list) {
        const name = u.kind === 'analyzer' || u.kind === 'reference' ? path.posix.basename(u.name.replace(/\\/g, '/')) : u.name;
        const e = byName.get(`${u.kind} ${name}`) ?? byName.set(`${u.kind} ${name}`, { kind: u.kind, projects: new Set() }).get(`${u.kind} ${name}`)!;
        e.projects.add(splitKey(k).project);
      }
    }
    if (byName.size === 0) return [];
    const binding = [...byName].filter(([, e]) => e.kind !== 'analyzer');
    const analyzers = [...byName].filter(([, e]) => e.kind === 'analyzer');
    const list = (xs: typeof binding) => xs.slice(0, ROSLYN_UNRESOLVED_NOTE_MAX_NAMES).map(([n, e]) => `${n} (${e.projects.size} project${e.projects.size === 1 ? '' : 's'})`).join(', ') + (xs.length > ROSLYN_UNRESOLVED_NOTE_MAX_NAMES ? `, and ${xs.length - ROSLYN_UNRESOLVED_NOTE_MAX_NAMES} more` : '');
    const notes: string[] = [];
    if (binding.length) notes.push(`${projects} of the ${new Set(keys).size} project(s) searched compile without what could not be resolved (uses that bind only through it may be missing): ${list(binding)}`);
    if (analyzers.length) notes.push(`analyzers not built, so their generated code is not seen: ${list(analyzers)}`);
    return notes;
  }

  /**
   * The source members a call to the symbol may go through: the interface members it implements
   * and its overridden chain (each asked for its own overridden member, a few levels up).
   */
  private async dispatchers(info: SymbolInfoRow, ctx: CallContext, generation: number): Promise<(SymbolRef & { via: 'interface' | 'base' })[]> {
    // A protocol-3 host lists them itself (the chain and each level's interface members, transitively).
    if (info.dispatchers) return info.dispatchers.filter((m) => m.projectKey);
    const out: (SymbolRef & { via: 'interface' | 'base' })[] = info.implements.filter((m) => m.projectKey).map((m) => ({ ...m, via: 'interface' as const }));
    let over = info.overridden;
    for (let depth = 0; over?.projectKey && over.docId && depth < ROSLYN_OVERRIDE_CHAIN_MAX_DEPTH; depth++) {
      out.push({ ...over, via: 'base' });
      const up: QueryResult<SymbolInfoRow> = await this.query<SymbolInfoRow>({ op: 'symbolInfo', symbol: { docId: over.docId, projectKey: over.projectKey }, scope: [over.projectKey] }, ctx, generation).catch(() => ({ symbol: null, items: [], searched: [], notSearched: [] }));
      const row = up.items[0];
      if (!row) break;
      for (const m of row.implements) if (m.projectKey) out.push({ ...m, via: 'interface' });
      over = row.overridden;
    }
    return out;
  }

  /**
   * What the text index says mentions the symbol's name — for an attribute class also its short
   * form (`[Audited]` names `AuditedAttribute`) — through `lookup` (projects or files), unioned;
   * undefined when the index cannot tell (a name that is no token: `.ctor`, an operator).
   */
  private mentioning(symbol: SymbolRef, lookup: (name: string) => ReadonlySet<string> | undefined): ReadonlySet<string> | undefined {
    const name = symbol.name.replace(/[(<`].*$/, '');
    if (!/^\w+$/.test(name)) return undefined;
    const names = [name];
    if (symbol.kind === 'class' && /.Attribute$/.test(name)) names.push(name.slice(0, -'Attribute'.length));
    const out = new Set<string>();
    for (const n of names) {
      const m = lookup(n);
      if (!m) return undefined;
      for (const x of m) out.add(x);
    }
    return out;
  }

  /** The C# files that can name the symbol (the host reads only these of the scope; generated ones always). */
  private mentioningDocuments(symbol: SymbolRef): string[] | undefined {
    const files = this.options.model.filesMentioning;
    const m = files ? this.mentioning(symbol, (n) => files(n)) : undefined;
    return m ? [...m].filter((f) => /\.cs$/i.test(f)) : undefined;
  }

  /** The declaring project and its dependents that mention the name (the text index), as keys. */
  private candidates(describer: ProjectDescriber, symbol: SymbolRef, bindKey: ProjectKey, dispatchers: readonly SymbolRef[] = []): Scope {
    const model = this.options.model;
    const mention = this.mentioning(symbol, (n) => model.projectsMentioning(n));
    const declaring = symbol.projectKey;
    const ids = new Set<string>();
    if (declaring) {
      // A linked file is compiled by several projects, each with its own copy of the symbol.
      const owners = new Set([splitKey(declaring).project, ...linkedOwners(describer, symbol)]);
      for (const p of owners) {
        ids.add(p);
        for (const d of model.dependents(p)) if (!mention || mention.has(d)) ids.add(d);
      }
      // Calls through an interface or base member it implements or overrides.
      for (const m of dispatchers) {
        const p = splitKey(m.projectKey!).project;
        ids.add(p);
        for (const d of model.dependents(p)) if (!mention || mention.has(d)) ids.add(d);
      }
    } else if (mention) {
      // A metadata symbol: every project that mentions it may use it.
      for (const m of mention) ids.add(m);
    } else ids.add(splitKey(bindKey).project);
    const keys: ProjectKey[] = [];
    const dropped: Scope['dropped'] = [];
    if (declaring) keys.push(declaring);
    for (const id of ids) {
      const k = declaring && splitKey(declaring).project === id ? undefined : describer.keyOfProject(id);
      if (!k) continue;
      if (keys.length >= ROSLYN_MAX_CANDIDATE_PROJECTS) {
        dropped.push({ key: k, reason: `over the ${ROSLYN_MAX_CANDIDATE_PROJECTS}-project cap of one question` });
        continue;
      }
      keys.push(k);
    }
    return { keys, dropped };
  }

  /**
   * The closure of many keys (the background start: every project), references first, describing
   * each project on the way (an evaluation each) in slices with a yield to the event loop between.
   */
  private async closureYielding(describer: ProjectDescriber, start: readonly ProjectKey[], signal: AbortSignal): Promise<ProjectKey[]> {
    const out: ProjectKey[] = [];
    const state = new Map<ProjectKey, 1 | 2>();
    let slice = Date.now();
    for (const root of start) {
      if (state.has(root)) continue;
      const stack: { key: ProjectKey; i: number; refs: ProjectKey[] }[] = [];
      const push = (k: ProjectKey) => {
        state.set(k, 1);
        const d = describer.describe(k);
        stack.push({ key: k, i: 0, refs: d.ok ? d.description.projectReferences : [] });
      };
      push(root);
      while (stack.length) {
        // A question waits at most one slice of describing (time-bounded: an evaluation that takes
        // 3 ms on an idle machine takes 100 ms and more at load 20).
        if (Date.now() - slice >= ROSLYN_PREWARM_DESCRIBE_SLICE_MS) {
          await new Promise((r) => setImmediate(r));
          await this.prewarmIdle(signal);
          if (signal.aborted) return out;
          slice = Date.now();
        }
        const top = stack[stack.length - 1]!;
        if (top.i < top.refs.length) {
          const r = top.refs[top.i++]!;
          if (!state.has(r)) push(r);
          continue;
        }
        stack.pop();
        state.set(top.key, 2);
        out.push(top.key);
      }
    }
    return out;
  }

  /** Keys plus their project-reference closure, references first (the order ensure needs). */
  private closure(describer: ProjectDescriber, start: readonly ProjectKey[]): { keys: ProjectKey[] } {
    const out: ProjectKey[] = [];
    const state = new Map<ProjectKey, 1 | 2>();
    const visit = (root: ProjectKey) => {
      const stack: { key: ProjectKey; i: number; refs: ProjectKey[] }[] = [];
      const push = (k: ProjectKey) => {
        state.set(k, 1);
        const d = describer.describe(k);
        stack.push({ key: k, i: 0, refs: d.ok ? d.description.projectReferences : [] });
      };
      if (state.has(root)) return;
      push(root);
      while (stack.length) {
        const top = stack[stack.length - 1]!;
        if (top.i < top.refs.length) {
          const r = top.refs[top.i++]!;
          if (!state.has(r)) push(r);
          continue;
        }
        stack.pop();
        state.set(top.key, 2);
        out.push(top.key);
      }
    };
    for (const k of start) visit(k);
    return { keys: out };
  }

  /** Sends the descriptions the host lacks (or has in another version); returns the keys that failed. */
  private async ensure(describer: ProjectDescriber, keys: readonly ProjectKey[], ctx: CallContext, generation: number, batchSize = ROSLYN_ENSURE_BATCH_PROJECTS): Promise<Map<ProjectKey, string>> {
    const failed = new Map<ProjectKey, string>();
    const send: ProjectDescription[] = [];
    for (const k of keys) {
      const d = describer.describe(k);
      if (!d.ok) {
        failed.set(k, d.reason);
        this.failedProjects.set(k, d.reason);
        continue;
      }
      if (d.notes.length) log.debug('roslyn: description notes', { key: k, notes: d.notes });
      if (this.ensured.get(k) === d.description.hash) continue;
      send.push(d.description);
    }
    for (let i = 0; i < send.length; i += batchSize) {
      const batch = send.slice(i, i + batchSize);
      const r = await this.host.request<EnsureResult>(HostMethods.ensure, { projects: batch }, { signal: ctx.signal, deadline: ctx.deadline, generation });
      const byKey = new Map<ProjectKey, EnsureResultRow>((r?.results ?? []).map((x) => [x.key, x]));
      for (const d of batch) {
        const row = byKey.get(d.key);
        if (!row || row.status === 'failed') {
          const why = row?.error ?? 'the host did not report it';
          failed.set(d.key, why);
          this.failedProjects.set(d.key, why);
          continue;
        }
        this.ensured.set(d.key, d.hash);
        this.failedProjects.delete(d.key);
        this.stats.ensured++;
        if (row.unresolved?.length) this.unresolved.set(d.key, row.unresolved);
        else this.unresolved.delete(d.key);
      }
    }
    return failed;
  }

  /**
   * The same use query for each compilation (framework) of the declaring project that the scope
   * binds to; rows merged by `keyOf`. Searched only what every variant searched.
   */
  private async queryVariants<Row>(params: QueryParams, docId: string, variants: readonly ProjectKey[], scopeOf: (v: ProjectKey) => ProjectKey[], keyOf: (row: Row) => string, ctx: CallContext, generation: number): Promise<QueryResult<Row>> {
    let merged: QueryResult<Row> | undefined;
    const seen = new Set<string>();
    const searched = new Set<ProjectKey>();
    /** A later variant not searched now: its projects are not searched; a references search goes on in the background. */
    const skip = (p: QueryParams) => {
      const missing = new Set(merged!.notSearched.map((n) => n.key));
      for (const k of p.scope ?? []) if (!missing.has(k)) merged!.notSearched.push({ key: k, reason: 'deadline', detail: `the ${splitKey(p.symbol!.projectKey).tfm} compilation of the declaring project was not searched in time` });
      const owner = this.searchOwner(generation);
      if (owner && resumable(p)) {
        const search = this.searches.get(p, owner);
        search.scope = p.scope!;
        search.params = p;
        this.continueSearches();
      }
    };
    for (const v of variants) {
      let r: QueryResult<Row>;
      const options = params.options?.deadlineMs !== undefined ? { ...params.options, deadlineMs: Math.round(Math.max(300, ctx.deadline - Date.now() - 400)) } : params.options;
      const vParams: QueryParams = { ...params, symbol: { docId, projectKey: v }, scope: scopeOf(v), ...(options ? { options } : {}) };
      // A later framework variant is another compilation of the declaring project (cold: seconds):
      // with too little time left it is not asked now, and a later variant's wait ends before the
      // question's, so the variants that answered still make the (partial) answer.
      if (merged && ctx.deadline - Date.now() < ROSLYN_VARIANT_MIN_LEFT_MS) {
        skip(vParams);
        continue;
      }
      try {
        const vctx = merged ? { ...ctx, deadline: ctx.deadline - ROSLYN_VARIANT_ANSWER_MARGIN_MS } : ctx;
        r = await this.query<Row>(vParams, vctx, generation);
      } catch (e) {
        // The symbol may not exist in another framework's compilation (#if): that variant adds nothing.
        if (rpcErrorCode(e) === HostErrorCodes.symbolNotFound && merged) continue;
        if (merged && e instanceof HostDeadlineError && !ctx.signal.aborted) {
          skip(vParams);
          continue;
        }
        throw e;
      }
      for (const k of r.searched) searched.add(k);
      if (!merged) {
        merged = { ...r, items: [], notSearched: [...r.notSearched] };
      } else {
        const missing = new Set(merged.notSearched.map((n) => n.key));
        for (const n of r.notSearched) if (!missing.has(n.key)) merged.notSearched.push(n);
        if (r.truncated) merged.truncated = true;
      }
      for (const row of r.items) {
        const k = keyOf(row);
        if (seen.has(k)) continue;
        seen.add(k);
        merged.items.push(row);
      }
    }
    // Searched by some variant and left out by none.
    const left = new Set(merged!.notSearched.map((n) => n.key));
    merged!.searched = [...searched].filter((k) => !left.has(k));
    return merged!;
  }

  private async query<Row>(params: QueryParams, ctx: CallContext, generation: number): Promise<QueryResult<Row>> {
    if (resumable(params)) {
      const owner = this.searchOwner(generation);
      if (owner) return (await this.resumableQuery(params, owner, ctx)) as QueryResult<Row>;
    }
    return this.hostQuery<Row>(params, ctx, generation);
  }

  private searchOwner(generation: number): SearchOwner | undefined {
    const describer = this.options.model.describer();
    return describer ? { generation, describer } : undefined;
  }

  /**
   * A references search asked again searches only the projects no earlier ask (or the background
   * continuation, or a late answer) has searched; the rows of those come from what is kept.
   */
  private async resumableQuery(params: QueryParams, owner: SearchOwner, ctx: CallContext): Promise<QueryResult<ReferenceRow>> {
    const scope = params.scope!;
    const search = this.searches.get(params, owner);
    search.scope = scope;
    search.params = params;
    search.stalls = 0;
    const rest = search.remaining(scope);
    if (rest.length === 0) return search.resultFor(scope);
    const keep = (r: QueryResult<ReferenceRow> | undefined) => {
      if (r && this.searches.has(search, owner)) search.add(r);
    };
    // While the host still works on this search for a question (also past the question's wait),
    // the background continuation leaves it alone.
    search.running++;
    let late = false;
    try {
      const r = await this.hostQuery<ReferenceRow>({ ...params, scope: rest }, ctx, owner.generation, (answer) => {
        search.running--;
        if (answer) {
          this.stats.lateAnswersKept++;
          log.debug('roslyn: late answer kept', { searched: answer.searched?.length, items: answer.items?.length });
        }
        keep(answer);
        if (!search.complete()) this.continueSearches();
      });
      keep(r);
      return search.resultFor(scope, r.notSearched);
    } catch (e) {
      late = e instanceof HostDeadlineError; // onLate follows (the answer, or undefined)
      throw e;
    } finally {
      if (!late) search.running--;
      if (!search.complete()) this.continueSearches();
    }
  }

  private async hostQuery<Row>(params: QueryParams, ctx: CallContext, generation: number, onLate?: (r: QueryResult<Row> | undefined) => void): Promise<QueryResult<Row>> {
    // Past the question's deadline the host goes on (what it compiles is kept for the next ones);
    // a background request is cancelled through its signal instead (a question goes first).
    const t = Date.now();
    const r = await this.host.request<QueryResult<Row>>(HostMethods.query, params, { signal: ctx.signal, deadline: ctx.deadline, generation, continueAfterDeadline: !this.isBackground(ctx.signal), ...(onLate ? { onLate } : {}) });
    log.debug('roslyn: query', { op: params.op, ms: Date.now() - t, scope: params.scope?.length, items: r?.items?.length, searched: r?.searched?.length, notSearched: r?.notSearched?.length, stats: r?.stats });
    return { ...r, items: r?.items ?? [], searched: r?.searched ?? [], notSearched: r?.notSearched ?? [], symbol: r?.symbol ?? null };
  }

  /** Pushes the files the watcher saw change (and the engine still lists as changed) to the host. */
  private async flushChanges(ctx: CallContext): Promise<void> {
    for (const p of this.options.model.pendingPaths?.() ?? []) if (/\.cs$/i.test(p)) this.changed.add(p);
    if (this.changed.size === 0) return;
    const paths = [...this.changed];
    this.changed.clear();
    this.searches.clear(); // a kept search may have rows of the old text
    const changes = paths.map((p) => ({ path: p, kind: fs.existsSync(path.join(this.options.root, p)) ? ('changed' as const) : ('deleted' as const) }));
    await this.host.request(HostMethods.documentsChanged, { changes }, { signal: ctx.signal, deadline: ctx.deadline });
  }

  private failure(e: unknown, op: SemanticOp, ctx: CallContext): ProviderOutcome<never> {
    if (e instanceof HostExitedError) return { kind: 'error', reason: `${e.message}; it restarts on the next question` };
    if (e instanceof HostDeadlineError || ctx.signal.aborted) return { kind: 'error', reason: `the Roslyn host did not answer ${op} in time` };
    const code = rpcErrorCode(e);
    if (code !== undefined) {
      const msg = String((e as Error).message);
      if (code === HostErrorCodes.documentMissing) return { kind: 'unavailable', state: 'failed', reason: /^Error \[/.test(msg) ? msg : `Error [DOCUMENT_MISSING]: ${msg}` };
      if (code === HostErrorCodes.documentNotInWorkspace) return { kind: 'unavailable', state: 'failed', reason: msg };
      return { kind: 'error', reason: /^Error \[/.test(msg) ? msg : `the Roslyn host answered ${op} with an error: ${msg}` };
    }
    log.warn(`roslyn ${op} failed`, { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
    return { kind: 'error', reason: `roslyn ${op} failed: ${e instanceof Error ? e.message : String(e)}` };
  }

  private toItem(s: SymbolRef, fallback?: { path: string; line: number; column: number }): HierarchyItem {
    const loc = s.locations[0];
    const base: SemanticLocation = loc ? toLocation(loc) : { path: s.assembly ?? fallback?.path ?? s.name, line: fallback?.line ?? 1, column: fallback?.column ?? 1, endLine: fallback?.line ?? 1, endColumn: fallback?.column ?? 1, ...(fallback ? {} : { external: true }) };
    if (!loc && s.assembly) base.external = true;
    const data: ItemData = { docId: s.docId, ...(s.projectKey ? { projectKey: s.projectKey } : {}) };
    const item: HierarchyItem = { ...base, name: s.name, kind: kindName(s.kind), origin: this.id, data };
    if (s.containerName) item.detail = s.containerName;
    if (s.locations.length > 1) item.partials = s.locations.slice(1).map(toLocation);
    return item;
  }
}

const TYPE_KINDS = new Set(['class', 'interface', 'struct', 'enum']);

/** A `diagnostics` row of the host (PROTOCOL.md). */
type HostDiagnostic = HostLocation & { id: string; severity: 'error' | 'warning' | 'info' | 'hidden'; message: string; projectKey?: string };
type DiagnosticRow = OpResult<'diagnostics'>['rows'][number];

/** Other projects compiling a declaration file of the symbol (linked files), by project id. */
function linkedOwners(describer: ProjectDescriber, symbol: SymbolRef): string[] {
  const out = new Set<string>();
  for (const l of symbol.locations) if (!l.external) for (const k of describer.keysOfFile(l.path)) out.add(splitKey(k).project);
  return [...out];
}

function locKey(l: { path: string; line: number; column: number }): string {
  return `${l.path}:${l.line}:${l.column}`;
}

function symKey(s: SymbolRef): string {
  return `${s.docId ?? s.name}|${s.locations[0] ? locKey(s.locations[0]) : ''}`;
}

function kindName(k: string): SymbolKindName {
  return (EDITOR_SYMBOL_KINDS as readonly string[]).includes(k) ? (k as SymbolKindName) : 'unknown';
}

function toSpan(l: { line: number; column: number; endLine: number; endColumn: number }): { line: number; column: number; endLine: number; endColumn: number } {
  return { line: l.line, column: l.column, endLine: l.endLine, endColumn: l.endColumn };
}

function toLocation(l: HostLocation): SemanticLocation {
  const out: SemanticLocation = { path: l.path, line: l.line, column: l.column, endLine: l.endLine, endColumn: l.endColumn };
  if (l.external) out.external = true;
  if (l.fullSpan) out.fullSpan = toSpan(l.fullSpan);
  return out;
}

function toReference(r: ReferenceRow): ReferenceLocation {
  const out: ReferenceLocation = toLocation(r);
  if (r.isDeclaration) out.isDeclaration = true;
  if (r.related) out.related = true;
  return out;
}

/**
 * Coverage gaps of a use question: candidates the host did not search, candidates that could not
 * be loaded or were cut. Empty ⇔ every candidate project was searched.
 */
export function coverageGaps(scope: Scope, r: { searched: readonly string[]; notSearched: readonly { key: string; reason: string; detail?: string }[]; truncated?: boolean }, found: number): string[] {
  const needed = scope.keys.length + scope.dropped.length;
  const searchedSet = new Set(r.searched);
  const searched = scope.keys.filter((k) => searchedSet.has(k)).length;
  const missing = needed - searched;
  const gaps: string[] = [];
  if (missing > 0) {
    const examples = [
      ...r.notSearched.map((n) => `${splitKey(n.key).project} (${n.reason}${n.detail ? `: ${n.detail}` : ''})`),
      ...scope.dropped.map((d) => `${splitKey(d.key).project} (${d.reason})`),
    ].slice(0, 3);
    const lead = found === 0 ? `none found in the ${searched} project(s) searched (${missing} not searched)` : `searched ${searched} of ${needed} candidate project(s) (${missing} not searched)`;
    gaps.push(`${lead}${examples.length ? `: ${examples.join(', ')}${missing > examples.length ? ', …' : ''}` : ''}`);
  }
  if (r.truncated) gaps.push('the host cut the list at its item cap');
  return gaps;
}
