/**
 * The semantic registry: asks providers in order (editor → lsp → heuristic) and labels the answer
 * with how it was produced. Each attempt runs under its own deadline and abort signal, so a
 * provider that hangs, crashes or throws costs at most its share of the time and never breaks
 * the answer: the registry moves on and the mode says what happened.
 *
 * Before the providers, the occurrence store (semantic/precise/) answers definition, references and
 * implementations from recorded facts (persisted, or imported SCIP) for every candidate document
 * whose facts still hold; when some candidates changed, the providers are asked and their rows for
 * those documents are merged in. The answer's `provider` and `provenance` say which parts came from
 * where (`persisted`, `scip`, or the live provider).
 */
import { log } from '../core/log';
import { HEURISTIC_ABORT_GRACE_MS, PRECISE_LOAD_WAIT_MS, PRECISE_NOTE_MAX_PATHS, SEMANTIC_DEADLINE_MS, SEMANTIC_HEURISTIC_RESERVE_MS, SEMANTIC_WAIT_FOR_READY_MS } from '../core/limits';
import { STORE_OPS, type PreciseAnswers, type StoreAnswer, type StoreOp } from './precise/preciseAnswers';
import type {
  CallContext,
  NavigationMode,
  OpArgs,
  OpResult,
  ProviderAvailability,
  ProviderOutcome,
  SemanticOp,
  SemanticProvider,
} from './provider';

/** Where a provider sits in the order. */
export type ProviderSlot = 'editor' | 'lsp' | 'heuristic';
const SLOT_ORDER: Record<ProviderSlot, number> = { editor: 0, lsp: 1, heuristic: 2 };

export interface SemanticCallOptions {
  /** Total time for the call, all providers included. */
  deadlineMs?: number;
  /** Caller cancellation. */
  signal?: AbortSignal;
  /** How long a provider may wait for a loading backend before the registry moves on. */
  waitForReadyMs?: number;
  /** The project the caller cares about (workspace-relative project file path). */
  project?: string;
  /** Do not fall back to heuristic providers. */
  preciseOnly?: boolean;
  /** Providers not to ask this time, each with the reason (reported as `loading`). */
  holdBack?: readonly { provider: string; reason: string }[];
}

/** One provider's part in an answer. */
export interface ProviderAttempt {
  provider: string;
  outcome: 'ok' | 'loading' | 'failed' | 'absent' | 'unsupported' | 'error' | 'deadline' | 'cancelled';
  reason?: string;
  elapsedMs: number;
}

/** A labelled answer. `value` is undefined when no provider answered. */
export interface SemanticAnswer<T> {
  mode: NavigationMode;
  value: T | undefined;
  /** The provider that answered. */
  provider?: string;
  /** Coverage gaps of a precise answer (non-empty ⇔ precise_partial). */
  gaps: string[];
  /** Facts about the answer that do not make it partial (e.g. references its projects could not resolve). */
  notes?: string[];
  /** Why the answer is not precise: one line built from the precise providers' attempts. */
  reason?: string;
  attempts: ProviderAttempt[];
  elapsedMs: number;
  /** Rows by origin when the occurrence store took part (`persisted`, `scip`, `live`). */
  provenance?: { persisted?: number; scip?: number; live?: number };
}

export interface RegisteredAvailability extends ProviderAvailability {
  provider: string;
  precision: 'precise' | 'heuristic';
}

export class SemanticRegistry {
  private readonly entries: { slot: ProviderSlot; provider: SemanticProvider }[] = [];
  private precise: PreciseAnswers | undefined;
  /** While the store's files are being read at start (settled: undefined). */
  private preciseLoading: Promise<unknown> | undefined;
  private hurryLoading: (() => void) | undefined;

  /** The occurrence store that answers before the providers (undefined: none), its loading, and how a waiting question speeds that up. */
  setPrecise(p: PreciseAnswers | undefined, loading?: Promise<unknown>, hurry?: () => void): void {
    this.precise = p;
    this.preciseLoading = loading;
    this.hurryLoading = hurry;
    void loading?.finally(() => {
      if (this.preciseLoading === loading) this.preciseLoading = undefined;
    });
  }

  /** Adds a provider in its slot; the returned function removes it again (editor disconnects). */
  register(provider: SemanticProvider, slot: ProviderSlot): () => void {
    const entry = { slot, provider };
    this.entries.push(entry);
    this.entries.sort((a, b) => SLOT_ORDER[a.slot] - SLOT_ORDER[b.slot]);
    return () => {
      const i = this.entries.indexOf(entry);
      if (i >= 0) this.entries.splice(i, 1);
    };
  }

  providers(): readonly SemanticProvider[] {
    return this.entries.map((e) => e.provider);
  }

  /** Every provider's readiness for a language (or a project of it). */
  availability(language: string, project?: string): RegisteredAvailability[] {
    return this.entries.map(({ provider }) => ({
      provider: provider.id,
      precision: provider.precision,
      ...safeAvailability(provider, language, project),
    }));
  }

  /**
   * Answers from the occurrence store where its facts hold, then asks the providers in order for
   * the rest and labels the answer. Never throws for provider trouble.
   */
  async request<K extends SemanticOp>(
    op: K,
    language: string,
    args: OpArgs<K>,
    options: SemanticCallOptions = {},
  ): Promise<SemanticAnswer<OpResult<K>>> {
    const started = Date.now();
    // A question that comes while the recorded facts are still being read waits for them a little:
    // a cold live provider takes far longer.
    if (this.preciseLoading && STORE_OPS.has(op)) {
      const waitMs = Math.min(PRECISE_LOAD_WAIT_MS, options.deadlineMs !== undefined ? options.deadlineMs / 2 : PRECISE_LOAD_WAIT_MS);
      this.hurryLoading?.();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.preciseLoading, new Promise((r) => (timer = setTimeout(r, waitMs)))]).catch(() => undefined);
      clearTimeout(timer);
      if (options.deadlineMs !== undefined) options = { ...options, deadlineMs: Math.max(200, options.deadlineMs - (Date.now() - started)) };
    }
    const tStore = Date.now();
    const cpu = process.cpuUsage();
    const stored = this.fromStore(op, language, args);
    log.debug(`precise facts: ${op} waited ${tStore - started} ms for loading, store ${Date.now() - tStore} ms (cpu ${Math.round(process.cpuUsage(cpu).user / 1000)} ms), ${stored ? `${stored.coverage.documents} document(s), ${stored.coverage.live.length} live` : 'no answer'}`);
    if (!stored) return this.requestLive(op, language, args, options);
    const { coverage } = stored;
    const from = (Object.keys(coverage.rows) as ('persisted' | 'scip')[]).filter((k) => coverage.rows[k] > 0 || coverage.documents > 0);
    const origin = from.filter((k) => coverage.rows[k] > 0).join('+') || (this.precise!.store.listUnits()[0]?.provenance ?? 'persisted');
    const factsNote = `${coverage.documents} document(s) answered from ${origin} facts (${coverage.producers.join(', ') || origin})`;
    const provenance: NonNullable<SemanticAnswer<unknown>['provenance']> = {};
    for (const k of from) if (coverage.rows[k] > 0) provenance[k] = coverage.rows[k];
    const storeAttempt: ProviderAttempt = { provider: origin, outcome: 'ok', elapsedMs: Date.now() - started };
    if (stored.incomplete) {
      // The facts cannot hold this answer: the live providers give it; without one, the facts' rows are partial.
      const remaining = options.deadlineMs !== undefined ? options.deadlineMs - (Date.now() - started) : undefined;
      const live = await this.requestLive(op, language, args, { ...options, preciseOnly: true, ...(remaining !== undefined ? { deadlineMs: Math.max(200, remaining) } : {}) });
      const declined: ProviderAttempt = { ...storeAttempt, outcome: 'unsupported', reason: stored.incomplete };
      if (live.value !== undefined && (live.mode === 'precise' || live.mode === 'precise_partial')) return { ...live, attempts: [declined, ...live.attempts], elapsedMs: Date.now() - started };
      const gap = `${stored.incomplete}; no live provider answered (${live.reason ?? live.mode})`;
      return { mode: 'precise_partial', value: stored.value as OpResult<K>, provider: origin, gaps: [gap], notes: [factsNote], attempts: [storeAttempt, ...live.attempts], elapsedMs: Date.now() - started, provenance };
    }
    if (coverage.live.length === 0) {
      return { mode: 'precise', value: stored.value as OpResult<K>, provider: origin, gaps: [], notes: [factsNote], attempts: [storeAttempt], elapsedMs: Date.now() - started, provenance };
    }
    // Some candidates changed since their facts were recorded (or never had any): resolved live.
    const livePaths = new Set(coverage.live.map((l) => l.path));
    const named = coverage.live.slice(0, PRECISE_NOTE_MAX_PATHS).map((l) => `${l.path} (${l.why})`).join(', ') + (coverage.live.length > PRECISE_NOTE_MAX_PATHS ? `, +${coverage.live.length - PRECISE_NOTE_MAX_PATHS} more` : '');
    const remaining = options.deadlineMs !== undefined ? options.deadlineMs - (Date.now() - started) : undefined;
    const live = await this.requestLive(op, language, args, { ...options, preciseOnly: true, ...(remaining !== undefined ? { deadlineMs: Math.max(200, remaining) } : {}) });
    if (live.value !== undefined && (live.mode === 'precise' || live.mode === 'precise_partial')) {
      const liveRows = (live.value as unknown as { path: string; line: number; column: number }[]).filter((r) => livePaths.has(r.path) || !this.precise!.heldNow(r.path));
      const seen = new Set(stored.value.map((r) => `${r.path}:${r.line}:${r.column}`));
      const merged = [...stored.value, ...liveRows.filter((r) => !seen.has(`${r.path}:${r.line}:${r.column}`))];
      provenance.live = merged.length - stored.value.length;
      return {
        ...live,
        value: merged as OpResult<K>,
        provider: `${origin}+${live.provider ?? 'live'}`,
        notes: [...(live.notes ?? []), factsNote, `${coverage.live.length} document(s) resolved live by ${live.provider}: ${named}`],
        attempts: [storeAttempt, ...live.attempts],
        elapsedMs: Date.now() - started,
        provenance,
      };
    }
    const gap = `${coverage.live.length} document(s) changed since their precise facts were recorded, or never resolved, could not be resolved live (${live.reason ?? live.mode}): ${named}`;
    return { mode: 'precise_partial', value: stored.value as OpResult<K>, provider: origin, gaps: [gap], notes: [factsNote], attempts: [storeAttempt, ...live.attempts], elapsedMs: Date.now() - started, provenance };
  }

  /** The store's part of an answer, or undefined (not a stored op, no facts for the position, store trouble). */
  private fromStore<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>): StoreAnswer<{ path: string; line: number; column: number }[]> | undefined {
    if (!this.precise || !STORE_OPS.has(op)) return undefined;
    const a = args as { path?: string; line?: number; column?: number; external?: boolean; includeDeclaration?: boolean };
    if (a.path === undefined || a.external || a.line === undefined || a.column === undefined) return undefined;
    try {
      return this.precise.answer(op as StoreOp, language, { path: a.path, line: a.line, column: a.column, ...(a.includeDeclaration !== undefined ? { includeDeclaration: a.includeDeclaration } : {}) });
    } catch (e) {
      log.warn('occurrence store failed; answering live', { op, error: e instanceof Error ? e.message : String(e) });
      return undefined;
    }
  }

  /** Asks the providers in order and labels the first answer. */
  private async requestLive<K extends SemanticOp>(
    op: K,
    language: string,
    args: OpArgs<K>,
    options: SemanticCallOptions = {},
  ): Promise<SemanticAnswer<OpResult<K>>> {
    const started = Date.now();
    const deadline = started + (options.deadlineMs ?? SEMANTIC_DEADLINE_MS);
    const waitForReadyMs = options.waitForReadyMs ?? SEMANTIC_WAIT_FOR_READY_MS;
    const attempts: ProviderAttempt[] = [];
    const candidates = this.entries
      .map((e) => e.provider)
      .filter((p) => !(options.preciseOnly && p.precision === 'heuristic'));

    for (let i = 0; i < candidates.length; i++) {
      const provider = candidates[i]!;
      if (options.signal?.aborted) {
        attempts.push({ provider: provider.id, outcome: 'cancelled', elapsedMs: 0 });
        break;
      }
      const held = options.holdBack?.find((h) => h.provider === provider.id);
      if (held) {
        attempts.push({ provider: provider.id, outcome: 'loading', reason: held.reason, elapsedMs: 0 });
        continue;
      }
      if (!safeSupports(provider, language, op)) {
        attempts.push({ provider: provider.id, outcome: 'unsupported', reason: `no ${provider.id} backend for ${language}`, elapsedMs: 0 });
        continue;
      }
      const remaining = deadline - Date.now();
      if (remaining <= 0) {
        attempts.push({ provider: provider.id, outcome: 'deadline', reason: 'no time left', elapsedMs: 0 });
        continue;
      }
      // Keep time for a heuristic provider further down the list.
      const laterHeuristic = candidates.slice(i + 1).some((p) => p.precision === 'heuristic' && safeSupports(p, language, op));
      // The reserve grows with the budget (a long wait for a loading server must still leave the
      // heuristic enough time when the event loop is busy, e.g. while indexing).
      const reserve = Math.min(Math.max(SEMANTIC_HEURISTIC_RESERVE_MS, remaining * 0.2), remaining / 2);
      const share = provider.precision === 'precise' && laterHeuristic ? remaining - reserve : remaining;
      const attemptStart = Date.now();
      const outcome = await runAttempt(provider, op, language, args, {
        budgetMs: share,
        waitForReadyMs,
        // A heuristic provider answers what it found when stopped: it gets a moment to hand that over.
        graceMs: provider.precision === 'heuristic' ? HEURISTIC_ABORT_GRACE_MS : 0,
        ...(options.signal ? { parent: options.signal } : {}),
        ...(options.project !== undefined ? { project: options.project } : {}),
      });
      const elapsedMs = Date.now() - attemptStart;
      if (outcome.kind === 'ok') {
        attempts.push({ provider: provider.id, outcome: 'ok', elapsedMs });
        const gaps = outcome.value.gaps ?? [];
        const precise = provider.precision === 'precise';
        const reason = precise ? undefined : degradedReason(attempts, language);
        return {
          mode: precise ? (gaps.length > 0 ? 'precise_partial' : 'precise') : 'heuristic_no_precise',
          value: outcome.value.value,
          provider: provider.id,
          gaps,
          ...(outcome.value.notes?.length ? { notes: outcome.value.notes } : {}),
          ...(reason !== undefined ? { reason } : {}),
          attempts,
          elapsedMs: Date.now() - started,
        };
      }
      attempts.push({ provider: provider.id, outcome: outcome.kind === 'failed_attempt' ? outcome.attempt : 'error', reason: outcome.reason, elapsedMs });
      if (outcome.kind === 'failed_attempt' && outcome.attempt === 'cancelled') break;
    }
    return {
      mode: 'unavailable_no_precise',
      value: undefined,
      gaps: [],
      reason: degradedReason(attempts, language),
      attempts,
      elapsedMs: Date.now() - started,
    };
  }

  async dispose(): Promise<void> {
    const all = this.entries.splice(0).map((e) => e.provider);
    await Promise.all(all.map((p) => p.dispose().catch((e: unknown) => log.warn('semantic provider dispose failed', { provider: p.id, error: String(e) }))));
  }
}

type AttemptResult<T> =
  | { kind: 'ok'; value: { value: T; gaps?: string[]; notes?: string[] } }
  | { kind: 'failed_attempt'; attempt: ProviderAttempt['outcome']; reason: string };

async function runAttempt<K extends SemanticOp>(
  provider: SemanticProvider,
  op: K,
  language: string,
  args: OpArgs<K>,
  o: { budgetMs: number; waitForReadyMs: number; graceMs: number; parent?: AbortSignal; project?: string },
): Promise<AttemptResult<OpResult<K>>> {
  const controller = new AbortController();
  const deadline = Date.now() + o.budgetMs;
  let timer: NodeJS.Timeout | undefined;
  let grace: NodeJS.Timeout | undefined;
  let onParentAbort: (() => void) | undefined;
  const stop = new Promise<AttemptResult<OpResult<K>>>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error('deadline'));
      const late: AttemptResult<OpResult<K>> = { kind: 'failed_attempt', attempt: 'deadline', reason: `no answer within ${Math.round(o.budgetMs)} ms` };
      // The abort reaches the provider at its next turn; one that answers what it found then (o.graceMs > 0) is waited for that long.
      if (o.graceMs > 0) grace = setTimeout(() => resolve(late), o.graceMs);
      else resolve(late);
    }, o.budgetMs);
    if (o.parent) {
      onParentAbort = () => {
        controller.abort(new Error('cancelled'));
        resolve({ kind: 'failed_attempt', attempt: 'cancelled', reason: 'cancelled by the caller' });
      };
      if (o.parent.aborted) onParentAbort();
      else o.parent.addEventListener('abort', onParentAbort, { once: true });
    }
  });
  const ctx: CallContext = {
    signal: controller.signal,
    deadline,
    // Give up waiting for readiness a little before the attempt's deadline, so a loading server
    // reports `loading` instead of running into the deadline.
    waitForReadyMs: Math.max(0, Math.min(o.waitForReadyMs, o.budgetMs - 250)),
    ...(o.project !== undefined ? { project: o.project } : {}),
  };
  const work = (async (): Promise<AttemptResult<OpResult<K>>> => {
    let outcome: ProviderOutcome<OpResult<K>>;
    try {
      outcome = await provider.request(op, language, args, ctx);
    } catch (e) {
      log.error('semantic provider threw', { provider: provider.id, op, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      return { kind: 'failed_attempt', attempt: 'error', reason: `${provider.id} failed: ${e instanceof Error ? e.message : String(e)}` };
    }
    if (outcome.kind === 'ok') return { kind: 'ok', value: { value: outcome.value, ...(outcome.gaps ? { gaps: outcome.gaps } : {}), ...(outcome.notes?.length ? { notes: outcome.notes } : {}) } };
    if (outcome.kind === 'error') return { kind: 'failed_attempt', attempt: 'error', reason: outcome.reason };
    return { kind: 'failed_attempt', attempt: outcome.state, reason: outcome.reason };
  })();
  try {
    return await Promise.race([work, stop]);
  } finally {
    if (timer) clearTimeout(timer);
    if (grace) clearTimeout(grace);
    if (onParentAbort) o.parent?.removeEventListener('abort', onParentAbort);
    // A provider still working after the deadline is told to stop; its late answer is dropped.
    if (!controller.signal.aborted) controller.abort(new Error('settled'));
  }
}

function degradedReason(attempts: ProviderAttempt[], language: string): string {
  const parts = attempts.filter((a) => a.outcome !== 'ok' && a.outcome !== 'unsupported' && a.reason).map((a) => `${a.provider}: ${a.reason}`);
  if (parts.length > 0) return parts.join('; ');
  return `no precise provider for ${language}`;
}

function safeSupports(p: SemanticProvider, language: string, op: SemanticOp): boolean {
  try {
    return p.supports(language, op);
  } catch (e) {
    log.error('semantic provider supports() threw', { provider: p.id, error: String(e) });
    return false;
  }
}

function safeAvailability(p: SemanticProvider, language: string, project?: string): ProviderAvailability {
  try {
    return p.availability(language, project);
  } catch (e) {
    return { state: 'failed', detail: `availability check failed: ${String(e)}`, started: false };
  }
}
