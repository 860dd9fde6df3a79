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
 *
 * This file is the SemanticProvider face; the work is in hostSession.ts (the host, what its
 * workspace holds, the query path), scopePlan.ts (which projects and files a question searches),
 * roslynOps.ts (the questions), roslynDiagnostics.ts, roslynDocumentation.ts and backgroundWork.ts
 * (background start, continuation of cut searches).
 */
import { log } from '../../core/log';
import type { CallContext, OpArgs, OpResult, ProviderAvailability, ProviderOutcome, SemanticOp, SemanticProvider } from '../provider';
import type { ProjectKey, Unresolved } from './hostProtocol';
import { RoslynSession } from './hostSession';
import { ROSLYN_PROVIDER_ID, type ItemData } from './hostRows';
import { docIdName, metadataBindKeys } from './metadataTargets';
import { HostErrorCodes } from './hostProtocol';
import { rpcErrorCode } from '../lsp/rpcChannel';
import { splitKey, type ProjectDescriber } from './projectDescriptions';
import { RoslynBackground, type PrewarmOptions, type PrewarmResult } from './backgroundWork';
import { roslynDiagnostics } from './roslynDiagnostics';
import { answerOp } from './roslynOps';
import type { RoslynHost, HostCommand, HostStatus } from './roslynHost';
import { referenceClosure, type RoslynWorkspaceModel } from './scopePlan';
import { ROSLYN_HOST_INITIALIZE_TIMEOUT_MS, ROSLYN_METADATA_BIND_TRIES } from '../../core/limits';

export { ROSLYN_PROVIDER_ID } from './hostRows';
export { coverageGaps, type RoslynWorkspaceModel, type Scope } from './scopePlan';
export type { PrewarmResult } from './backgroundWork';

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

export interface RoslynProviderOptions {
  /** Canonical absolute workspace root. */
  root: string;
  model: RoslynWorkspaceModel;
  memoryCapMb?: number;
  /** A host command instead of the built one (tests). */
  command?: HostCommand | { argv: string[] };
  hangGraceMs?: number;
}

export class RoslynProvider implements SemanticProvider {
  readonly id = ROSLYN_PROVIDER_ID;
  readonly precision = 'precise' as const;
  readonly host: RoslynHost;
  private readonly s: RoslynSession;
  private readonly bg: RoslynBackground;
  /** Per-question counts, for doctor and tests. */
  readonly stats: RoslynSession['stats'];

  constructor(options: RoslynProviderOptions) {
    this.s = new RoslynSession(options.root, options.model, {
      root: options.root,
      ...(options.memoryCapMb !== undefined ? { memoryCapMb: options.memoryCapMb } : {}),
      ...(options.command ? { command: options.command } : {}),
      ...(options.hangGraceMs !== undefined ? { hangGraceMs: options.hangGraceMs } : {}),
    });
    this.bg = new RoslynBackground(this.s);
    this.host = this.s.host;
    this.stats = this.s.stats;
  }

  supports(language: string, op: SemanticOp): boolean {
    return language === 'csharp' && SERVED.has(op);
  }

  availability(language: string, project?: string): ProviderAvailability {
    if (language !== 'csharp') return { state: 'absent', detail: `the Roslyn host serves C# only`, started: false };
    const st = this.host.status();
    const base = { detail: st.detail, started: st.state !== 'stopped' && st.state !== 'absent' };
    if (project) {
      const failed = [...this.s.failedProjects].find(([k]) => splitKey(k).project === project);
      if (failed) return { ...base, state: 'failed', detail: `${project} could not be loaded: ${failed[1]}` };
    }
    switch (st.state) {
      case 'ready':
        return { ...base, state: 'ready', detail: `${st.detail}; ${this.s.ensured.size} project(s) in its workspace` };
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
    return { ...this.host.status(), projects: this.s.ensured.size, unresolved: [...this.s.unresolved.values()].reduce((n, l) => n + l.length, 0) };
  }

  /** Projects the host has been given (keys), for tests and doctor. */
  ensuredKeys(): ReadonlySet<ProjectKey> {
    return new Set(this.s.ensured.keys());
  }

  /** Unresolved references per project, as the host reported them. */
  unresolvedOf(key: ProjectKey): readonly Unresolved[] {
    return this.s.unresolved.get(key) ?? [];
  }

  /** The engine's watcher saw these paths change; they are pushed to the host before the next question. */
  filesChanged(paths: Iterable<string>): void {
    for (const p of paths) if (/\.cs$/i.test(p)) this.s.changed.add(p);
  }

  async request<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>> {
    if (!this.supports(language, op)) return { kind: 'unavailable', state: 'unsupported', reason: `the Roslyn host does not serve ${op} for ${language}` };
    const describer = this.s.model.describer();
    if (!describer) return { kind: 'unavailable', state: 'loading', reason: 'the Roslyn host starts once the project model is built (the index is being built)' };
    if (op === 'diagnostics') return (await roslynDiagnostics(this.s, (args as OpArgs<'diagnostics'>).paths, describer, ctx)) as ProviderOutcome<OpResult<K>>;
    const a = args as { path: string; line: number; column: number; external?: boolean; origin?: string; data?: unknown; docId?: string };
    // A framework or package symbol: by documentation id (no position), or a metadata item of an
    // earlier answer; bound in a project that sees it (metadataTargets.ts).
    const own = a.origin === ROSLYN_PROVIDER_ID ? (a.data as ItemData | undefined) : undefined;
    const metadataId = a.docId ?? (a.external && own?.docId ? own.docId : undefined);
    if (a.external && !metadataId) return { kind: 'unavailable', state: 'failed', reason: `${a.path} is outside the workspace (metadata); the Roslyn host answers for source positions` };
    let bind: ProjectKey[];
    if (metadataId) {
      bind = metadataBindKeys(describer, this.s.model.projectsMentioning(docIdName(metadataId)), own?.contextKey, ROSLYN_METADATA_BIND_TRIES);
      if (bind.length === 0) return { kind: 'unavailable', state: 'failed', reason: `no C# project's files mention ${docIdName(metadataId)}: no compiler context to bind ${metadataId} in` };
    } else bind = describer.keysOfFile(a.path);
    if (bind.length === 0) {
      return { kind: 'unavailable', state: 'failed', reason: `${a.path} is compiled by no C# project of the project model; no compiler context to answer in` };
    }
    // A question goes first: background work pauses from now on (also while the host starts), and
    // a background request the host is running is cancelled (it is sent again after the question).
    this.s.goFirst();
    const t0 = Date.now();
    try {
      const acquired = await this.host.acquire(ctx.waitForReadyMs, ctx.signal);
      if (!acquired.ok) return { kind: 'unavailable', state: acquired.state, reason: acquired.reason };
      const tAcquired = Date.now();
      this.stats.questions++;
      if (!this.s.syncGeneration(acquired.generation)) await this.s.flushChanges(ctx);
      // A metadata id is tried in each candidate project until one resolves it; a position binds in its first project.
      for (let i = 0; ; i++) {
        const bindKey = bind[i]!;
        const bindScope = referenceClosure(describer, [bindKey]);
        const failedBind = await this.s.ensure(describer, bindScope.keys, ctx, acquired.generation);
        if (failedBind.has(bindKey)) return { kind: 'unavailable', state: 'failed', reason: `${splitKey(bindKey).project} could not be loaded: ${failedBind.get(bindKey)}` };
        const tEnsured = Date.now();
        let out: ProviderOutcome<OpResult<K>>;
        try {
          out = (await answerOp(this.s, op, metadataId ? { ...a, docId: metadataId } : a, bindKey, describer, ctx, acquired.generation)) as ProviderOutcome<OpResult<K>>;
        } catch (e) {
          if (metadataId && i + 1 < bind.length && rpcErrorCode(e) === HostErrorCodes.symbolNotFound) continue;
          if (metadataId && rpcErrorCode(e) === HostErrorCodes.symbolNotFound)
            return { kind: 'unavailable', state: 'failed', reason: `${metadataId} resolves in none of the ${bind.length} C# project(s) tried that mention ${docIdName(metadataId)} (${bind.map((k) => splitKey(k).project).join(', ')}): its assembly is not referenced or not restored there` };
          throw e;
        }
        log.debug('roslyn: question', { op, acquireMs: tAcquired - t0, ensureMs: tEnsured - tAcquired, closure: bindScope.keys.length, answerMs: Date.now() - tEnsured, outcome: out.kind });
        return out;
      }
    } catch (e) {
      return this.s.failure(e, op, ctx);
    } finally {
      this.s.inFlight--;
      this.s.lastQuestionEnd = Date.now();
    }
  }

  /** Background start, once the project model exists (backgroundWork.ts). Never throws. */
  prewarm(o: PrewarmOptions): Promise<PrewarmResult> {
    return this.bg.prewarm(o);
  }

  /** The background start while it runs (its counts grow in place), for tests and doctor. */
  get prewarming(): PrewarmResult | undefined {
    return this.bg.prewarming;
  }

  /** What the last background start did (doctor, tests). */
  get lastPrewarm(): PrewarmResult | undefined {
    return this.bg.lastPrewarm;
  }

  /** Starts the host process without waiting for it (the background start's first step). */
  startHost(signal: AbortSignal): void {
    void this.host.acquire(ROSLYN_HOST_INITIALIZE_TIMEOUT_MS, signal);
  }

  /** One project's occurrences between questions, for the persisted layer (backgroundWork.ts). */
  occurrences(key: ProjectKey, signal: AbortSignal, quietMs: number): ReturnType<RoslynBackground['occurrences']> {
    return this.bg.occurrences(key, signal, quietMs);
  }

  /** Whether the background continuation is running (tests, doctor). */
  continuationRunning(): boolean {
    return this.bg.continuationRunning();
  }

  /**
   * Before a generated document is read (virtualDocuments.ts): its project and references in the
   * host's workspace, as for a question in it. Never throws.
   */
  async ensureForSource(key: ProjectKey, ctx: CallContext, generation: number): Promise<{ ok: true } | { ok: false; reason: string }> {
    const describer = this.s.model.describer();
    if (!describer) return { ok: false, reason: 'the project model is not built yet' };
    if (!describer.describe(key).ok) return { ok: false, reason: `${splitKey(key).project} is not a C# project of the project model (${key})` };
    this.s.goFirst();
    try {
      if (!this.s.syncGeneration(generation)) await this.s.flushChanges(ctx);
      const failed = await this.s.ensure(describer, referenceClosure(describer, [key]).keys, ctx, generation);
      return failed.has(key) ? { ok: false, reason: `${splitKey(key).project} could not be loaded: ${failed.get(key)}` } : { ok: true };
    } catch (e) {
      return { ok: false, reason: e instanceof Error ? e.message : String(e) };
    } finally {
      this.s.inFlight--;
    }
  }

  /** What the searched projects compile without (unresolvedNotes.ts). */
  unresolvedNotes(keys: readonly ProjectKey[]): string[] {
    return this.s.unresolvedNotes(keys);
  }

  async dispose(): Promise<void> {
    this.s.life.abort(new Error('disposed'));
    await this.host.stop('engine shutting down').catch(() => this.host.kill());
  }
}
