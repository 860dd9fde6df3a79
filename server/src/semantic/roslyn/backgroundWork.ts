/**
 * What the provider does between questions: the background start (every project described and
 * handed to the host, the most depended-on compiled) and the continuation of references searches
 * cut at their deadline. Every host request here is a background one: a question that starts
 * cancels it (RoslynSession.goFirst) and it is sent again once idle.
 */
import {
  ROSLYN_CONTINUE_QUIET_MS,
  ROSLYN_CONTINUE_STEP_MS,
  ROSLYN_CONTINUE_STEP_PROJECTS,
  ROSLYN_HOST_INITIALIZE_TIMEOUT_MS,
  ROSLYN_PREWARM_COMPILE_PROJECTS,
  ROSLYN_PREWARM_DESCRIBE_SLICE_MS,
  ROSLYN_PREWARM_ENSURE_BATCH_PROJECTS,
  ROSLYN_PREWARM_IDLE_POLL_MS,
  ROSLYN_PREWARM_STEP_TIMEOUT_MS,
} from '../../core/limits';
import { log } from '../../core/log';
import type { CallContext } from '../provider';
import { HostMethods, type OccurrencesResult, type ProjectKey, type QueryResult, type ReferenceRow } from './hostProtocol';
import type { RoslynSession } from './hostSession';
import type { ProjectDescriber } from './projectDescriptions';
import { closureYielding, referenceClosure } from './scopePlan';
import type { SearchProgress } from './searchProgress';

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
  /** Projects not compiled because recorded precise facts cover them (semantic/precise/factsCoverage.ts). */
  coveredByFacts?: number;
  detail?: string;
}

export interface PrewarmOptions {
  signal: AbortSignal;
  order?: (describer: ProjectDescriber) => ProjectKey[];
  /** A compilation the background start need not compile: recorded facts answer for it (asked once the facts are loaded). */
  skipCompile?: (key: ProjectKey) => boolean | Promise<boolean>;
}

export class RoslynBackground {
  /** The background continuation of searches cut at their deadline, while it runs. */
  private continuing: Promise<void> | undefined;
  /** The background start while it runs (its counts grow in place), for tests and doctor. */
  prewarming: PrewarmResult | undefined;
  /** What the last background start did (doctor, tests). */
  lastPrewarm: PrewarmResult | undefined;

  constructor(private readonly s: RoslynSession) {
    s.onSearchIncomplete = () => this.continueSearches();
  }

  /**
   * Background start, once the project model exists: the host process is started, every C#
   * project's description is handed to it in one growth step (so no later question grows the
   * workspace past the size at which the host rebuilds its solution and drops compiled state), then
   * the projects most depended on are compiled (one document bound each) while the host stays
   * under half its memory cap. Every step waits while a question is in flight, so the first answer
   * is not queued behind it; describing yields to the event loop between slices. Never throws.
   */
  async prewarm(o: PrewarmOptions): Promise<PrewarmResult> {
    const result: PrewarmResult = { state: 'skipped', described: 0, ensured: 0, compiled: 0, ms: 0 };
    this.prewarming = result;
    try {
      return await this.runPrewarm(o, result);
    } finally {
      this.prewarming = undefined;
    }
  }

  private async runPrewarm(o: PrewarmOptions, result: PrewarmResult): Promise<PrewarmResult> {
    const s = this.s;
    const started = Date.now();
    const describer = s.model.describer();
    if (!describer) return { ...result, detail: 'no project model yet' };
    const acquired = await s.host.acquire(ROSLYN_HOST_INITIALIZE_TIMEOUT_MS, o.signal);
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
        if (s.host.status().generation !== generation) throw new Error('the host restarted during the background start');
        const c = new AbortController();
        const onAbort = () => c.abort(o.signal.reason);
        o.signal.addEventListener('abort', onAbort, { once: true });
        s.background.add(c);
        try {
          return await run({ signal: c.signal, deadline: Date.now() + ROSLYN_PREWARM_STEP_TIMEOUT_MS, waitForReadyMs: 0 });
        } catch (e) {
          if (o.signal.aborted) return undefined;
          if (!c.signal.aborted) throw e;
          result.yielded = (result.yielded ?? 0) + 1; // a question came: again after it
        } finally {
          s.background.delete(c);
          o.signal.removeEventListener('abort', onAbort);
        }
      }
    };
    try {
      await this.prewarmIdle(o.signal);
      s.syncGeneration(generation);
      const byDegree = o.order ? o.order(describer) : [];
      const all = await closureYielding(describer, byDegree, o.signal, (signal) => this.prewarmIdle(signal));
      // Handed over in small steps (references first), each between questions: a step this small
      // is added in place by the host (compiled state kept), and a question waits at most one step.
      const before = s.ensured.size;
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
        await step((c) => s.ensure(describer, keys, c, generation, ROSLYN_PREWARM_ENSURE_BATCH_PROJECTS));
        result.maxStepMs = Math.max(result.maxStepMs ?? 0, Date.now() - t);
      }
      result.ensured = s.ensured.size - before;
      result.ensureMs = Date.now() - started;
      // Compile the most depended-on projects (every question near them needs their compilation).
      for (const k of byDegree.slice(0, ROSLYN_PREWARM_COMPILE_PROJECTS)) {
        if (o.signal.aborted) return { ...result, state: 'cancelled', ms: Date.now() - started };
        await this.prewarmIdle(o.signal);
        if (s.host.status().generation !== generation) break;
        const d = describer.describe(k);
        const doc = d.ok ? d.description.documents.find((x) => !x.generated) : undefined;
        if (!doc || !s.ensured.has(k)) continue;
        if (await o.skipCompile?.(k)) {
          result.coveredByFacts = (result.coveredByFacts ?? 0) + 1;
          continue;
        }
        const r = await step((c) => s.query<unknown>({ op: 'diagnostics', position: { path: doc.path, line: 1, column: 1, projectKey: k }, scope: [k] }, c, generation));
        if (!r) break;
        result.compiled++;
        const mb = r.stats?.workingSetMb;
        const cap = s.host.status().memoryCapMb;
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

  /**
   * One project's occurrences (PROTOCOL.md `occurrences`), for the persisted layer (semantic/
   * precise/): in a quiet moment (no question for `quietMs`, no background start or continuation
   * running) the project's reference closure is ensured and the host asked, as a background
   * request — a question cancels it and it is asked again after the question. The files the watcher
   * saw change are pushed first; an answer during which more changed is dropped and asked again (its
   * facts may bind to a text the host did not have). Undefined: `signal` aborted.
   */
  async occurrences(key: ProjectKey, signal: AbortSignal, quietMs: number): Promise<{ ok: true; result: OccurrencesResult } | { ok: false; reason: string } | undefined> {
    const s = this.s;
    for (;;) {
      for (;;) {
        await s.idle(signal);
        const wait = Math.max(s.lastQuestionEnd + quietMs - Date.now(), this.prewarming || this.continuing ? ROSLYN_PREWARM_IDLE_POLL_MS : 0);
        if (wait <= 0 || signal.aborted) break;
        await new Promise((r) => setTimeout(r, wait));
      }
      if (signal.aborted) return undefined;
      const describer = s.model.describer();
      if (!describer) return { ok: false, reason: 'the project model is not built' };
      const acquired = await s.host.acquire(ROSLYN_HOST_INITIALIZE_TIMEOUT_MS, signal);
      if (!acquired.ok) return signal.aborted ? undefined : { ok: false, reason: acquired.reason };
      if (s.inFlight > 0) continue;
      const c = new AbortController();
      const onAbort = () => c.abort(signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      s.background.add(c);
      const ctx: CallContext = { signal: c.signal, deadline: Date.now() + ROSLYN_PREWARM_STEP_TIMEOUT_MS, waitForReadyMs: 0 };
      const pending = () => s.changed.size > 0 || [...(s.model.pendingPaths?.() ?? [])].some((p) => /\.cs$/i.test(p));
      try {
        if (!s.syncGeneration(acquired.generation)) {
          const unsent = [...s.changed];
          await s.flushChanges(ctx).catch((e: unknown) => {
            for (const p of unsent) s.changed.add(p); // pushed by the next question or step
            throw e;
          });
        }
        const failed = await s.ensure(describer, referenceClosure(describer, [key]).keys, ctx, acquired.generation);
        if (failed.has(key)) return { ok: false, reason: `could not be loaded: ${failed.get(key)}` };
        const result = await s.host.request<OccurrencesResult>(HostMethods.occurrences, { projectKey: key }, { signal: c.signal, deadline: ctx.deadline, generation: acquired.generation });
        if (pending()) {
          await new Promise((r) => setTimeout(r, quietMs));
          continue;
        }
        return { ok: true, result: { ...result, documents: result?.documents ?? [], notDone: result?.notDone ?? [] } };
      } catch (e) {
        if (signal.aborted) return undefined;
        if (c.signal.aborted) continue; // a question came: again after it
        return { ok: false, reason: e instanceof Error ? e.message : String(e) };
      } finally {
        s.background.delete(c);
        signal.removeEventListener('abort', onAbort);
      }
    }
  }

  /** The background start waits for questions and for the continuation of their searches too. */
  private async prewarmIdle(signal: AbortSignal): Promise<void> {
    while ((this.s.inFlight > 0 || this.continuing) && !signal.aborted) await new Promise((r) => setTimeout(r, ROSLYN_PREWARM_IDLE_POLL_MS));
  }

  /**
   * Starts the background continuation unless it runs: between questions (after
   * ROSLYN_CONTINUE_QUIET_MS without one), the most recently asked references search that is not
   * complete goes on, ROSLYN_CONTINUE_STEP_PROJECTS projects per host request; a question cancels
   * the step (its projects are searched again by the next step). Never throws.
   */
  continueSearches(): void {
    if (this.continuing || this.s.life.signal.aborted) return;
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
    const s = this.s;
    const signal = s.life.signal;
    for (;;) {
      // A quiet moment: no question in flight, none ended in the last ROSLYN_CONTINUE_QUIET_MS.
      for (;;) {
        await s.idle(signal);
        const wait = s.lastQuestionEnd + ROSLYN_CONTINUE_QUIET_MS - Date.now();
        if (wait <= 0 || signal.aborted) break;
        await new Promise((r) => setTimeout(r, wait));
      }
      if (signal.aborted) return;
      const st = s.host.status();
      if (st.state !== 'ready') return;
      const owner = s.searchOwner(st.generation);
      const search: SearchProgress | undefined = owner ? s.searches.nextIncomplete(owner) : undefined;
      if (!owner || !search) return;
      const rest = search.pending().slice(0, ROSLYN_CONTINUE_STEP_PROJECTS);
      const c = new AbortController();
      const onLife = () => c.abort(signal.reason);
      signal.addEventListener('abort', onLife, { once: true });
      s.background.add(c);
      try {
        const options = { ...search.params.options, deadlineMs: ROSLYN_CONTINUE_STEP_MS };
        const r = await s.host.request<QueryResult<ReferenceRow>>(HostMethods.query, { ...search.params, scope: rest, options }, { signal: c.signal, deadline: Date.now() + 2 * ROSLYN_CONTINUE_STEP_MS, generation: owner.generation });
        if (!s.searches.has(search, owner)) continue;
        const before = search.searched.size;
        search.add(r ?? { items: [], searched: [], notSearched: [] });
        s.stats.continuationSteps++;
        s.stats.continuedProjects += search.searched.size - before;
        log.debug('roslyn: search continued', { searched: search.searched.size - before, left: search.pending().length });
        // A step that reached no project (a machine too busy to compile one batch in the step's
        // time): a few in a row and the search waits for the next question.
        search.stalls = search.searched.size === before ? search.stalls + 1 : 0;
      } catch (e) {
        if (c.signal.aborted && !signal.aborted) continue; // a question came: this step again after it
        if (signal.aborted) return;
        // A search that fails in the background is left to the next question (which reports why).
        s.searches.drop(search);
        log.debug('roslyn: search continuation step failed', { error: e instanceof Error ? e.message : String(e) });
      } finally {
        s.background.delete(c);
        signal.removeEventListener('abort', onLife);
      }
    }
  }
}
