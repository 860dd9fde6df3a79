/**
 * The engine's side of one Roslyn host: the process (RoslynHost), what its workspace holds (the
 * descriptions handed over per process generation, unresolved references, projects that failed),
 * the files to push before the next question, and the query path — resumable references
 * searches (searchProgress.ts), the same use query per framework variant of the declaring project,
 * late answers kept. Questions go first: `inFlight` counts them and background requests (the
 * `background` controllers) are cancelled when one starts.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ROSLYN_ENSURE_BATCH_PROJECTS, ROSLYN_PREWARM_IDLE_POLL_MS, ROSLYN_VARIANT_ANSWER_MARGIN_MS, ROSLYN_VARIANT_MIN_LEFT_MS } from '../../core/limits';
import { log } from '../../core/log';
import { foregroundIdle } from '../../core/timeSlice';
import type { CallContext, ProviderOutcome, SemanticOp } from '../provider';
import { HostErrorCodes, HostMethods, type EnsureResult, type EnsureResultRow, type ProjectDescription, type ProjectKey, type QueryParams, type QueryResult, type ReferenceRow, type Unresolved } from './hostProtocol';
import { splitKey, type ProjectDescriber } from './projectDescriptions';
import { HostDeadlineError, HostExitedError, RoslynHost, type RoslynHostOptions } from './roslynHost';
import type { RoslynWorkspaceModel } from './scopePlan';
import { resumable, SearchCache, type SearchOwner } from './searchProgress';
import { unresolvedNotes } from './unresolvedNotes';
import { rpcErrorCode } from '../lsp/rpcChannel';

export class RoslynSession {
  readonly host: RoslynHost;
  /** Hash of each description the current host process has, by key. */
  ensured = new Map<ProjectKey, string>();
  private ensuredGeneration = -1;
  readonly unresolved = new Map<ProjectKey, Unresolved[]>();
  readonly failedProjects = new Map<ProjectKey, string>();
  readonly changed = new Set<string>();
  /** Questions being answered now (background work waits for 0). */
  inFlight = 0;
  /** The background request in flight, aborted when a question starts. */
  readonly background = new Set<AbortController>();
  /** Per-question counts, for doctor and tests. */
  readonly stats = { questions: 0, ensured: 0, lastScope: 0, lastSearched: 0, continuationSteps: 0, continuedProjects: 0, lateAnswersKept: 0 };
  /** References searches so far, per searched project (asked again: only the rest is searched). */
  readonly searches = new SearchCache();
  /** When the last question ended (the continuation waits for a quiet moment). */
  lastQuestionEnd = 0;
  /** Aborted when the provider is disposed (stops the continuation). */
  readonly life = new AbortController();
  /** Called when a kept search is left incomplete (starts the background continuation). */
  onSearchIncomplete: () => void = () => undefined;

  constructor(
    readonly root: string,
    readonly model: RoslynWorkspaceModel,
    hostOptions: RoslynHostOptions,
  ) {
    this.host = new RoslynHost(hostOptions);
  }

  /** A question goes first: background work pauses from now on and a background request the host is running is cancelled (it is sent again after the question). */
  goFirst(): void {
    this.inFlight++;
    for (const c of this.background) c.abort(new Error('a question goes first'));
  }

  isBackground(signal: AbortSignal): boolean {
    for (const c of this.background) if (c.signal === signal) return true;
    return false;
  }

  /** Resolves when no question is in flight (background work goes between questions). */
  async idle(signal: AbortSignal): Promise<void> {
    while (this.inFlight > 0 && !signal.aborted) await new Promise((r) => setTimeout(r, ROSLYN_PREWARM_IDLE_POLL_MS));
    // Nor while a cheap question of any agent is in flight (bounded: core/timeSlice.ts).
    await foregroundIdle();
  }

  /** A new host process has an empty workspace: everything is ensured again. */
  syncGeneration(generation: number): boolean {
    if (generation === this.ensuredGeneration) return false;
    this.ensured = new Map();
    this.ensuredGeneration = generation;
    this.changed.clear();
    return true;
  }

  /** What the searched projects compile without (see unresolvedNotes.ts). */
  unresolvedNotes(keys: readonly ProjectKey[]): string[] {
    return unresolvedNotes(this.unresolved, keys);
  }

  /** Sends the descriptions the host lacks (or has in another version); returns the keys that failed. */
  async ensure(describer: ProjectDescriber, keys: readonly ProjectKey[], ctx: CallContext, generation: number, batchSize = ROSLYN_ENSURE_BATCH_PROJECTS): Promise<Map<ProjectKey, string>> {
    const failed = new Map<ProjectKey, string>();
    const send: ProjectDescription[] = [];
    const triggers = this.host.initialized?.generatorTriggers;
    for (const k of keys) {
      const d = describer.describe(k);
      if (!d.ok) {
        failed.set(k, d.reason);
        this.failedProjects.set(k, d.reason);
        continue;
      }
      if (d.notes.length) log.debug('roslyn: description notes', { key: k, notes: d.notes });
      const description = withGeneratorTriggers(d.description, triggers, this.model);
      if (this.ensured.get(k) === description.hash) continue;
      send.push(description);
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
  async queryVariants<Row>(params: QueryParams, docId: string, variants: readonly ProjectKey[], scopeOf: (v: ProjectKey) => ProjectKey[], keyOf: (row: Row) => string, ctx: CallContext, generation: number): Promise<QueryResult<Row>> {
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
        this.onSearchIncomplete();
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

  async query<Row>(params: QueryParams, ctx: CallContext, generation: number): Promise<QueryResult<Row>> {
    if (resumable(params)) {
      const owner = this.searchOwner(generation);
      if (owner) return (await this.resumableQuery(params, owner, ctx)) as QueryResult<Row>;
    }
    return this.hostQuery<Row>(params, ctx, generation);
  }

  searchOwner(generation: number): SearchOwner | undefined {
    const describer = this.model.describer();
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
        if (!search.complete()) this.onSearchIncomplete();
      });
      keep(r);
      return search.resultFor(scope, r.notSearched);
    } catch (e) {
      late = e instanceof HostDeadlineError; // onLate follows (the answer, or undefined)
      throw e;
    } finally {
      if (!late) search.running--;
      if (!search.complete()) this.onSearchIncomplete();
    }
  }

  async hostQuery<Row>(params: QueryParams, ctx: CallContext, generation: number, onLate?: (r: QueryResult<Row> | undefined) => void): Promise<QueryResult<Row>> {
    // Past the question's deadline the host goes on (what it compiles is kept for the next ones);
    // a background request is cancelled through its signal instead (a question goes first).
    const t = Date.now();
    const r = await this.host.request<QueryResult<Row>>(HostMethods.query, params, { signal: ctx.signal, deadline: ctx.deadline, generation, continueAfterDeadline: !this.isBackground(ctx.signal), ...(onLate ? { onLate } : {}) });
    log.debug('roslyn: query', { op: params.op, ms: Date.now() - t, scope: params.scope?.length, items: r?.items?.length, searched: r?.searched?.length, notSearched: r?.notSearched?.length, stats: r?.stats });
    return { ...r, items: r?.items ?? [], searched: r?.searched ?? [], notSearched: r?.notSearched ?? [], symbol: r?.symbol ?? null };
  }

  /** Pushes the files the watcher saw change (and the engine still lists as changed) to the host. */
  async flushChanges(ctx: CallContext): Promise<void> {
    for (const p of this.model.pendingPaths?.() ?? []) if (/\.cs$/i.test(p)) this.changed.add(p);
    if (this.changed.size === 0) return;
    const paths = [...this.changed];
    this.changed.clear();
    this.searches.clear(); // a kept search may have rows of the old text
    const changes = paths.map((p) => ({ path: p, kind: fs.existsSync(path.join(this.root, p)) ? ('changed' as const) : ('deleted' as const) }));
    await this.host.request(HostMethods.documentsChanged, { changes }, { signal: ctx.signal, deadline: ctx.deadline });
  }

  /** Host trouble as a value: exited, deadline, an error answer. */
  failure(e: unknown, op: SemanticOp, ctx: CallContext): ProviderOutcome<never> {
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
}

/**
 * The SDK's generators run for a project only when its files mention one of their trigger names
 * (protocol 5, initialize's `generatorTriggers`): the text index says which. The list is part of
 * the description's hash, so a file that starts using `[GeneratedRegex]` re-ensures its project.
 */
function withGeneratorTriggers(d: ProjectDescription, triggers: readonly string[] | undefined, model: RoslynWorkspaceModel): ProjectDescription {
  if (!triggers?.length) return d;
  const project = splitKey(d.key).project;
  const mentioned = triggers.filter((t) => {
    const m = model.projectsMentioning(t);
    return m === undefined || m.has(project);
  });
  return { ...d, generatorTriggers: mentioned, hash: `${d.hash}:g${mentioned.join(',')}` };
}
