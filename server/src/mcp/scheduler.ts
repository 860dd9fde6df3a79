/**
 * How one engine serves many agents (issue 25): every MCP session (an agent) gets a fair share of
 * the heavy work, and no call keeps its agent waiting past the answer deadline.
 *
 * - Heavy calls (semantic questions, regex and structural scans, diagnostics, dependency walks,
 *   agent-level packs; `heavyCall`) run at most HEAVY_CALLS_IN_FLIGHT at a time engine-wide.
 *   Waiting heavy calls queue per session; a freed slot goes to the session served least recently
 *   (round robin), so one agent's burst cannot starve another's question. Cheap calls never wait.
 * - A call not answered within TOOL_ANSWER_MS answers `STILL_WORKING` and goes on in the
 *   background; the same question asked again (same tool, arguments and index version) joins it
 *   and gets its answer. Kept at most STILL_WORKING_KEPT_CALLS, each for CURSOR_TTL_MS.
 */
import { CURSOR_TTL_MS, HEAVY_CALLS_IN_FLIGHT, STILL_WORKING_KEPT_CALLS } from '../core/limits';

/** One heavy call waiting for a slot. */
interface Waiter {
  start: () => void;
}

export class Scheduler {
  private running = 0;
  private readonly queues = new Map<number, Waiter[]>();
  /** Sessions with waiting calls, least recently served first. */
  private readonly order: number[] = [];
  private readonly inFlight = new Map<string, { promise: Promise<unknown>; startedAt: number; expires: number }>();

  constructor(private readonly slots = HEAVY_CALLS_IN_FLIGHT) {}

  /** Runs `fn` now (cheap) or when a heavy slot is free, in the session's fair turn. */
  async run<T>(session: number, heavy: boolean, fn: () => Promise<T>): Promise<T> {
    if (!heavy) return fn();
    if (this.running >= this.slots) {
      await new Promise<void>((resolve) => {
        const q = this.queues.get(session) ?? this.queues.set(session, []).get(session)!;
        q.push({ start: resolve });
        if (!this.order.includes(session)) this.order.push(session);
      });
    } else this.running++;
    try {
      return await fn();
    } finally {
      this.release();
    }
  }

  /** Heavy calls running and waiting (for status and tests). */
  load(): { running: number; waiting: number } {
    let waiting = 0;
    for (const q of this.queues.values()) waiting += q.length;
    return { running: this.running, waiting };
  }

  private release(): void {
    const session = this.order.shift();
    if (session === undefined) {
      this.running--;
      return;
    }
    const q = this.queues.get(session)!;
    const next = q.shift()!;
    if (q.length) this.order.push(session);
    else this.queues.delete(session);
    // The slot passes straight to the next call (running stays the same).
    next.start();
  }

  /**
   * The computation of `key`: joined when the same question is already being answered (or was,
   * and its answer is still kept), else started by `start`. Resolves with the value, or with
   * `undefined` when `waitMs` passes first (the computation goes on and stays joinable).
   */
  async within<T>(key: string, waitMs: number, start: () => Promise<T>): Promise<{ value: T; elapsedMs: number } | { pending: true; elapsedMs: number }> {
    const now = Date.now();
    for (const [k, v] of this.inFlight) if (v.expires < now) this.inFlight.delete(k);
    let entry = this.inFlight.get(key) as { promise: Promise<T>; startedAt: number; expires: number } | undefined;
    let joined = true;
    if (!entry) {
      joined = false;
      entry = { promise: start(), startedAt: now, expires: now + CURSOR_TTL_MS };
      const e = entry;
      // Not kept once answered unless someone was told to come back for it.
      void e.promise.then(
        () => undefined,
        () => undefined,
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), waitMs);
    });
    try {
      const r = await Promise.race([entry.promise.then((value) => ({ value })), timeout]);
      if (r === 'timeout') {
        if (!this.inFlight.has(key)) {
          while (this.inFlight.size >= STILL_WORKING_KEPT_CALLS) this.inFlight.delete(this.inFlight.keys().next().value!);
          this.inFlight.set(key, entry);
        }
        return { pending: true, elapsedMs: Date.now() - entry.startedAt };
      }
      // Answered: a joined computation is handed out once.
      if (joined) this.inFlight.delete(key);
      return { value: r.value, elapsedMs: Date.now() - entry.startedAt };
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Tools whose calls can take seconds of the engine's time (a provider, a scan over many files, a
 * walk over the project graph): they take a heavy slot. Everything else answers from the index in
 * milliseconds and never waits for one.
 */
const HEAVY_TOOLS = new Set([
  'definition', 'references', 'implementations', 'callers', 'callees', 'type_hierarchy', 'diagnostics', 'file_dependencies',
  'search_structural', 'context_pack', 'impact', 'related_tests', 'locate_code', 'xml_doc', 'recent_changes', 'generated_for',
]);

/** Whether a call takes a heavy slot: a heavy tool, or search_text asked for a regex or an exact count. */
export function heavyCall(tool: string, args: Record<string, unknown>): boolean {
  if (HEAVY_TOOLS.has(tool)) return true;
  return tool === 'search_text' && (args.mode === 'regex' || args.count === true);
}

const schedulers = new WeakMap<object, Scheduler>();

/** The engine's one scheduler (every session of every transport shares it). */
export function schedulerOf(engine: object): Scheduler {
  let s = schedulers.get(engine);
  if (!s) schedulers.set(engine, (s = new Scheduler()));
  return s;
}

let sessions = 0;
/** A new session number (one per protocol server: a stdio connection, an HTTP session). */
export function nextSession(): number {
  return ++sessions;
}
