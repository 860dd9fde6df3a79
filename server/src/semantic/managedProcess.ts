/**
 * The lifecycle every helper process of the engine shares (the Roslyn host, each language
 * server): spawned in a process group of its own with a watchdog (core/processGroup.ts: it and what
 * it starts die with the engine, even on SIGKILL), killed when the engine exits, its stderr kept as
 * a short tail (and in the engine log), restarted after a crash with exponential backoff and given
 * up for a while after too many crashes in a window, stopped gracefully (the protocol's shutdown,
 * then SIGKILL after a grace), optionally stopped when idle. Subclasses speak the protocol: they
 * launch the process (`launch`, calling `spawnChild`), say how a crash reads, and shut it down.
 */
import * as cp from 'node:child_process';
import { log } from '../core/log';
import { groupSpawnOptions, killGroup, watchOverGroup } from '../core/processGroup';

/** The states a helper goes through (`loading`: a language server loading its workspace). */
export type ManagedState = 'stopped' | 'starting' | 'loading' | 'ready' | 'crashed' | 'failed' | 'absent';

export interface ManagedProcessPolicy {
  /** Names the process in the engine log ("the Roslyn host", "csharp-ls"). */
  label: string;
  /** Backoff after the n-th crash in the window: min(base · 2^(n-1), max). */
  backoffBaseMs: number;
  backoffMaxMs: number;
  /** More than maxCrashesPerWindow crashes within windowMs: not restarted for windowMs. */
  windowMs: number;
  maxCrashesPerWindow: number;
  /** Between the graceful stop's request and SIGKILL. */
  shutdownGraceMs: number;
  stderrTailLines: number;
  /** Stopped after this long without a request; 0 or absent: never. */
  idleStopMs?: number;
}

const live = new Set<ManagedProcess<ManagedState>>();
let exitHookInstalled = false;

/** Kills every helper process this engine started (synchronous; safe in an exit hook). */
export function killAllHelpers(): void {
  for (const p of live) p.kill();
}

export abstract class ManagedProcess<S extends ManagedState> {
  protected state: S = 'stopped' as S;
  protected detail: string;
  protected child: cp.ChildProcess | undefined;
  /** A stop (or a kill after a hang / failed start) is under way: the exit that follows is no crash. */
  protected stopping = false;
  /** Rejects when the current process exits (raced against every request). */
  protected exited: Promise<never> | undefined;
  protected restarts = 0;
  protected restartAt = 0;
  protected spawnedAt = 0;
  protected readyAfterMs: number | undefined;
  protected readonly stderrTail: string[] = [];
  /** Requests in flight (the idle stop waits for none). */
  protected inFlight = 0;
  private crashTimes: number[] = [];
  private starting: Promise<void> | undefined;
  private readonly waiters = new Set<() => void>();
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(
    protected readonly policy: ManagedProcessPolicy,
    detail: string,
  ) {
    this.detail = detail;
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', killAllHelpers);
    }
  }

  /** Resolves the command and spawns it (`spawnChild`), or sets the state that says why not. */
  protected abstract launch(): Promise<void> | undefined;
  /** The protocol's graceful end (shutdown request, exit notification), bounded by the caller's grace. */
  protected abstract shutdownProtocol(): Promise<void>;
  /** The error requests in flight reject with when the process is gone. */
  protected abstract exitedError(message: string): Error;
  /** The state detail after a crash (restarting after `backoffMs`) or after too many (`crashes`). */
  protected abstract crashedDetail(why: string, backoffMs: number): string;
  protected abstract gaveUpDetail(why: string, crashes: number, windowMin: number): string;
  /** The process's last words, added to a crash's detail (its last log line by default). */
  protected lastWords(): string | undefined {
    const last = this.stderrTail.at(-1);
    return last ? `last log line: ${last}` : undefined;
  }
  /** The current process exited (`current`: it is still `this.child`): drop its connection. */
  protected abstract onExit(current: boolean): void;
  /** The executable was not found when spawned (ENOENT). */
  protected abstract notFoundDetail(command: string): string;

  /**
   * Starts the process when needed and waits up to `waitMs` for it to be ready. Never throws: a
   * process that is missing, starting, loading or in its restart backoff is reported as such.
   */
  protected async waitUsable(waitMs: number, signal: AbortSignal): Promise<{ ok: true } | { ok: false; state: 'loading' | 'failed' | 'absent'; reason: string }> {
    const until = Date.now() + Math.max(0, waitMs);
    for (;;) {
      switch (this.state) {
        case 'ready':
          return { ok: true };
        case 'stopped':
        case 'absent':
          this.begin();
          break;
        case 'crashed':
        case 'failed': {
          const now = Date.now();
          if (now >= this.restartAt) this.begin();
          else if (this.restartAt <= until && !signal.aborted) {
            // The backoff ends within this caller's patience: wait for it, then restart.
            await this.waitForChange(this.restartAt - now, signal);
            continue;
          } else return { ok: false, state: 'failed', reason: this.detail };
          break;
        }
        default:
          break;
      }
      const st = this.state as ManagedState;
      if (st === 'ready') return { ok: true };
      if (st === 'absent') return { ok: false, state: 'absent', reason: this.detail };
      if (st === 'failed' || st === 'crashed') return { ok: false, state: 'failed', reason: this.detail };
      const left = until - Date.now();
      if (left <= 0 || signal.aborted) return { ok: false, state: 'loading', reason: this.detail };
      await this.waitForChange(left, signal);
    }
  }

  private begin(): void {
    if (this.starting) return;
    const started = this.launch();
    if (!started) return;
    this.starting = started.finally(() => {
      this.starting = undefined;
    });
  }

  /**
   * Spawns the process in its own process group, watched over; `exited` rejects when it ends. A
   * spawn that throws is returned as `{ error }` (the caller sets the state).
   */
  protected spawnChild(command: string, args: readonly string[], o: { cwd: string; env: NodeJS.ProcessEnv }): cp.ChildProcess | { error: unknown } {
    this.stopping = false;
    this.spawnedAt = Date.now();
    this.readyAfterMs = undefined;
    let child: cp.ChildProcess;
    try {
      child = cp.spawn(command, [...args], {
        cwd: o.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: o.env,
        windowsHide: true,
        // Its own process group, watched over: it and its children die with the engine, even on SIGKILL.
        ...groupSpawnOptions(),
      });
      watchOverGroup(child);
    } catch (e) {
      return { error: e };
    }
    this.child = child;
    live.add(this);
    let exitReject: (e: Error) => void = () => undefined;
    this.exited = new Promise<never>((_, reject) => {
      exitReject = reject;
    });
    this.exited.catch(() => undefined);
    child.on('error', (e) => {
      log.warn(`${this.policy.label}: process error`, { error: String(e) });
      exitReject(this.exitedError(`${this.policy.label} could not run: ${e.message}`));
      if (this.child !== child || child.exitCode !== null) return;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.setState('absent' as S, this.notFoundDetail(command));
      else this.onCrash(`process error: ${e.message}`);
    });
    child.on('exit', (code, sig) => {
      live.delete(this);
      killGroup(child, 'SIGKILL'); // what it started and left behind (build hosts) goes with it
      const how = sig ? `signal ${sig}` : `exit code ${code}`;
      exitReject(this.exitedError(`${this.policy.label} exited (${how})`));
      const current = this.child === child;
      this.onExit(current);
      if (current) this.child = undefined;
      if (this.stopping) return;
      this.onCrash(how);
    });
    this.pipeStderr(child);
    return child;
  }

  /** Kills the process (and its process group) immediately: engine exit, hangs, tests. */
  kill(): void {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    killGroup(child, 'SIGKILL');
  }

  /** Graceful stop: the protocol's shutdown, then SIGKILL after the grace period. */
  async stop(reason = 'stopped'): Promise<void> {
    const child = this.child;
    this.clearIdle();
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.setState('stopped' as S, reason);
      return;
    }
    this.stopping = true;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await this.shutdownProtocol();
    } catch {
      /* the process may already be exiting */
    }
    try {
      child.stdin?.end();
    } catch {
      /* closed */
    }
    const timer = setTimeout(() => this.kill(), this.policy.shutdownGraceMs);
    await gone;
    clearTimeout(timer);
    this.setState('stopped' as S, reason);
  }

  /** Forgets crash history (after a configuration change) so the next request starts afresh. */
  resetFailures(): void {
    this.crashTimes = [];
    this.restartAt = 0;
  }

  /** A crash (or a hang, a failed start): restart after a backoff, or give up for a while. */
  protected onCrash(how: string): void {
    this.clearIdle();
    const p = this.policy;
    const now = Date.now();
    this.crashTimes = this.crashTimes.filter((t) => now - t < p.windowMs);
    this.crashTimes.push(now);
    const n = this.crashTimes.length;
    const last = this.lastWords();
    const why = last ? `${how}; ${last}` : how;
    if (n > p.maxCrashesPerWindow) {
      this.restartAt = now + p.windowMs;
      this.setState('failed' as S, this.gaveUpDetail(why, n, Math.round(p.windowMs / 60000)));
    } else {
      const backoff = Math.min(p.backoffBaseMs * 2 ** (n - 1), p.backoffMaxMs);
      this.restartAt = now + backoff;
      this.restarts++;
      this.setState('crashed' as S, this.crashedDetail(why, backoff));
    }
    log.warn(this.detail);
  }

  protected setState(state: S, detail: string): void {
    this.state = state;
    this.detail = detail;
    this.wake();
  }

  /** Wakes every `waitForChange` (a state or detail change). */
  protected wake(): void {
    for (const w of [...this.waiters]) w();
  }

  protected waitForChange(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(done, Math.max(0, ms));
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** Marks activity; with an idle stop, the process is stopped after a quiet period. */
  protected touch(): void {
    const ms = this.policy.idleStopMs ?? 0;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (ms <= 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.inFlight > 0) return this.touch();
      if (this.state === 'ready' || this.state === 'loading') {
        log.info(`${this.policy.label} idle for ${ms} ms; stopping`);
        void this.stop('stopped after being idle; starts again on the next request');
      }
    }, ms);
    this.idleTimer.unref();
  }

  protected clearIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private pipeStderr(child: cp.ChildProcess): void {
    let pending = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      pending += chunk;
      let nl: number;
      while ((nl = pending.indexOf('\n')) >= 0) {
        const line = pending.slice(0, nl).trimEnd();
        pending = pending.slice(nl + 1);
        if (!line) continue;
        this.stderrTail.push(line.slice(0, 500));
        if (this.stderrTail.length > this.policy.stderrTailLines) this.stderrTail.shift();
        log.debug(`${this.policy.label} stderr: ${line}`);
      }
      if (pending.length > 64 * 1024) pending = pending.slice(-64 * 1024);
    });
  }
}
