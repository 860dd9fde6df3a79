/**
 * The Roslyn host process of one engine: `dotnet <host dll> --parent-pid <engine pid>`, started on
 * the first C# question, JSON-RPC over its stdin/stdout (LSP base-protocol framing, lsp/rpcChannel.ts), stderr to the
 * engine log. One live workspace per process, grown with projects/ensure; the process is never
 * restarted to grow it. A crash, or a request stuck well past its deadline, kills it; the next
 * request starts it again after an exponential backoff (and re-sends the projects it needs: the
 * provider re-ensures after every new `generation`). The process is killed when the engine exits
 * (exit hook) and exits by itself when the engine's pid is gone (`--parent-pid`).
 */
import type * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RpcCancellation, rpcOverStdio, type RpcConnection } from '../lsp/rpcChannel';
import {
  ROSLYN_HOST_BACKOFF_BASE_MS,
  ROSLYN_HOST_BACKOFF_MAX_MS,
  ROSLYN_HOST_HANG_GRACE_MS,
  ROSLYN_HOST_HANG_PROBES,
  ROSLYN_HOST_STATUS_TIMEOUT_MS,
  ROSLYN_HOST_INITIALIZE_TIMEOUT_MS,
  ROSLYN_HOST_MAX_RESTARTS_PER_WINDOW,
  ROSLYN_HOST_MEMORY_CAP_MB,
  ROSLYN_HOST_RESTART_WINDOW_MS,
  ROSLYN_HOST_SHUTDOWN_GRACE_MS,
  LSP_STDERR_TAIL_LINES,
} from '../../core/limits';
import { log } from '../../core/log';
import { HostMethods, type InitializeParams, type InitializeResult } from './hostProtocol';
import { ManagedProcess, type ManagedState } from '../managedProcess';

export type HostState = Exclude<ManagedState, 'loading'>;

/** Where the host comes from: `dotnet` and the built host assembly. */
export interface HostCommand {
  dotnet: string;
  /** The host's entry assembly (`…/Sextant.RoslynHost.dll`). */
  dll: string;
}

export interface HostStatus {
  state: HostState;
  detail: string;
  pid?: number;
  /** Process generation: bumped at every start (a new process has an empty workspace). */
  generation: number;
  restarts: number;
  hostVersion?: string;
  roslynVersion?: string;
  sdkVersion?: string;
  dotnetRoot?: string;
  readyAfterMs?: number;
  /** The memory cap the host runs under (from initialize). */
  memoryCapMb?: number;
  command?: HostCommand;
  stderrTail: string[];
}

/** The host process is gone (crashed, killed for a hang, or stopped) while a request was in flight. */
export class HostExitedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostExitedError';
  }
}

/** A request that ran past its deadline (the host may still be working; it is cancelled). */
export class HostDeadlineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'HostDeadlineError';
  }
}

/** The folders a built host may be in, first match wins (dist/ when bundled, the repo's dist/ from source). */
function hostDirs(): string[] {
  const out: string[] = [];
  const env = process.env.SEXTANT_ROSLYN_HOST;
  if (env) out.push(fs.existsSync(env) && fs.statSync(env).isFile() ? path.dirname(env) : env);
  out.push(
    path.join(__dirname, 'roslyn-host'),
    path.join(__dirname, '..', 'roslyn-host'),
    path.resolve(__dirname, '../../../../dist/roslyn-host'),
    // A repository checkout: the host's own build output (roslyn/PROTOCOL.md).
    path.resolve(__dirname, '../roslyn/out/host'),
    path.resolve(__dirname, '../../../../roslyn/out/host'),
  );
  return out;
}

/** The host assembly in a folder: the one with a `.runtimeconfig.json` beside it (an app, not a library). */
function hostDllIn(dir: string): string | undefined {
  const env = process.env.SEXTANT_ROSLYN_HOST;
  if (env && env.endsWith('.dll') && fs.existsSync(env)) return env;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return undefined;
  }
  const config = names.filter((n) => n.endsWith('.runtimeconfig.json')).sort();
  for (const c of config) {
    const dll = path.join(dir, c.replace(/\.runtimeconfig\.json$/, '.dll'));
    if (fs.existsSync(dll)) return dll;
  }
  return undefined;
}

/** `dotnet` from DOTNET_ROOT or PATH. */
export function findDotnet(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const exe = process.platform === 'win32' ? 'dotnet.exe' : 'dotnet';
  const dirs = [env.DOTNET_ROOT, ...(env.PATH ?? '').split(path.delimiter)].filter((d): d is string => !!d);
  for (const d of dirs) {
    const p = path.join(d, exe);
    try {
      if (fs.statSync(p).isFile()) return p;
    } catch {
      /* next */
    }
  }
  return undefined;
}

/** The host command, or why there is none (one line for doctor and answers). */
export function locateRoslynHost(): { ok: true; command: HostCommand } | { ok: false; reason: string } {
  const dotnet = findDotnet();
  let dll: string | undefined;
  for (const d of hostDirs()) {
    dll = hostDllIn(d);
    if (dll) break;
  }
  if (!dll) return { ok: false, reason: `the Roslyn host is not built (no dist/roslyn-host; \`npm install\` builds it when the .NET SDK is installed)` };
  if (!dotnet) return { ok: false, reason: `dotnet not found on PATH or in DOTNET_ROOT (the Roslyn host needs the .NET runtime)` };
  return { ok: true, command: { dotnet, dll } };
}

export interface RoslynHostOptions {
  /** Canonical absolute workspace root. */
  root: string;
  memoryCapMb?: number;
  /** Replaces the located host (tests: a scripted fake host). */
  command?: HostCommand | { argv: string[] };
  /** Overrides ROSLYN_HOST_HANG_GRACE_MS (tests). */
  hangGraceMs?: number;
}

export class RoslynHost extends ManagedProcess<HostState> {
  private connection: RpcConnection | undefined;
  private generation = 0;
  private info: InitializeResult | undefined;

  /** What initialize answered (undefined while not ready). */
  get initialized(): InitializeResult | undefined {
    return this.info;
  }
  private command: HostCommand | undefined;

  constructor(private readonly options: RoslynHostOptions) {
    super(
      {
        label: 'the Roslyn host',
        backoffBaseMs: ROSLYN_HOST_BACKOFF_BASE_MS,
        backoffMaxMs: ROSLYN_HOST_BACKOFF_MAX_MS,
        windowMs: ROSLYN_HOST_RESTART_WINDOW_MS,
        maxCrashesPerWindow: ROSLYN_HOST_MAX_RESTARTS_PER_WINDOW,
        shutdownGraceMs: ROSLYN_HOST_SHUTDOWN_GRACE_MS,
        stderrTailLines: LSP_STDERR_TAIL_LINES,
      },
      'not started; starts once the project model exists, or on the first C# question',
    );
  }

  status(): HostStatus {
    const s: HostStatus = { state: this.state, detail: this.detail, generation: this.generation, restarts: this.restarts, stderrTail: [...this.stderrTail] };
    if (this.child?.pid !== undefined && this.child.exitCode === null) s.pid = this.child.pid;
    if (this.info?.hostVersion) s.hostVersion = this.info.hostVersion;
    if (this.info?.sdkVersions?.length) s.sdkVersion = this.info.sdkVersions.join(', ');
    if (this.info?.roslynVersion) s.roslynVersion = this.info.roslynVersion;
    if (this.info?.dotnetRoot) s.dotnetRoot = this.info.dotnetRoot;
    if (this.readyAfterMs !== undefined) s.readyAfterMs = this.readyAfterMs;
    if (this.info?.memoryCapMb !== undefined) s.memoryCapMb = this.info.memoryCapMb;
    const c = this.command ?? this.resolveCommand();
    if (c && 'dll' in c) s.command = c;
    return s;
  }

  /**
   * Starts the host when needed and waits up to `waitMs` for it. Never throws: a host that is
   * missing, starting, or in its restart backoff is reported as such.
   */
  async acquire(waitMs: number, signal: AbortSignal): Promise<{ ok: true; generation: number } | { ok: false; state: 'loading' | 'failed' | 'absent'; reason: string }> {
    const r = await this.waitUsable(waitMs, signal);
    return r.ok ? { ok: true, generation: this.generation } : r;
  }

  /**
   * Sends a request. Rejects with HostExitedError when the process dies first, HostDeadlineError
   * when `deadline` passes (the request is cancelled; a host that still has not answered
   * ROSLYN_HOST_HANG_GRACE_MS later is killed as hung). With `continueAfterDeadline` the host is
   * not told to cancel, and `onLate` gets its answer when it comes after all (undefined when none comes).
   */
  async request<R>(method: string, params: unknown, o: { signal: AbortSignal; deadline: number; generation?: number; continueAfterDeadline?: boolean; onLate?: (result: R | undefined) => void }): Promise<R> {
    const connection = this.connection;
    const child = this.child;
    if (!connection || this.state !== 'ready') throw new HostExitedError(`the Roslyn host is not running (${this.detail})`);
    if (o.generation !== undefined && o.generation !== this.generation) throw new HostExitedError('the Roslyn host restarted since its projects were loaded');
    const exited = this.exited!;
    const cts = new RpcCancellation();
    let timer: NodeJS.Timeout | undefined;
    let rejectDeadline: (e: Error) => void = () => undefined;
    const deadline = new Promise<never>((_, reject) => {
      rejectDeadline = reject;
    });
    deadline.catch(() => undefined);
    const onAbort = () => {
      cts.cancel();
      rejectDeadline(new HostDeadlineError(`cancelled: ${String(o.signal.reason ?? 'deadline')}`));
    };
    // The registry aborts an attempt's signal at its deadline too ('deadline'); a caller's own
    // cancellation ('cancelled', anything else) always cancels.
    const onSignal = () => {
      const why = o.signal.reason instanceof Error ? o.signal.reason.message : String(o.signal.reason ?? '');
      if (o.continueAfterDeadline && (why === 'deadline' || why === 'settled')) rejectDeadline(new HostDeadlineError('deadline (the host goes on with it)'));
      else onAbort();
    };
    o.signal.addEventListener('abort', onSignal, { once: true });
    // Past the deadline the caller stops waiting; with continueAfterDeadline the host is not told to
    // cancel: the compilations it is building are kept for the next questions (a cold compile of a
    // big project is otherwise cut at every tool wait and never finishes).
    const onDeadline = () => (o.continueAfterDeadline ? rejectDeadline(new HostDeadlineError('deadline (the host goes on with it)')) : onAbort());
    timer = setTimeout(onDeadline, Math.max(0, o.deadline - Date.now()));
    const sent = connection.sendRequest<R>(method, params, cts.token);
    try {
      return await Promise.race([sent, exited, deadline]);
    } catch (e) {
      if (e instanceof HostDeadlineError) {
        this.watchHang(sent, child, method);
        // The host went on with it (or answers a cancel with an error): a late answer is the
        // caller's; undefined when it fails after all.
        if (o.onLate) void sent.then(o.onLate, () => o.onLate!(undefined));
      }
      throw e;
    } finally {
      clearTimeout(timer);
      timer = undefined;
      o.signal.removeEventListener('abort', onSignal);
    }
  }

  /** Sends a notification-like request whose answer does not matter (documents/changed). */
  async notify(method: string, params: unknown): Promise<void> {
    if (!this.connection || this.state !== 'ready') return;
    const c = new AbortController();
    await this.request(method, params, { signal: c.signal, deadline: Date.now() + ROSLYN_HOST_HANG_GRACE_MS }).catch((e: unknown) => log.debug('roslyn host: notify failed', { method, error: String(e) }));
  }

  private resolveCommand(): HostCommand | { argv: string[] } | undefined {
    if (this.options.command) return this.options.command;
    const l = locateRoslynHost();
    return l.ok ? l.command : undefined;
  }

  protected launch(): Promise<void> | undefined {
    let argv: string[];
    const override = this.options.command;
    if (override && 'argv' in override) argv = override.argv;
    else {
      const c = override ?? (() => {
        const l = locateRoslynHost();
        if (!l.ok) {
          this.setState('absent', l.reason);
          return undefined;
        }
        return l.command;
      })();
      if (!c) return undefined;
      this.command = c;
      argv = [c.dotnet, c.dll];
    }
    return this.start(argv);
  }

  private async start(argv: string[]): Promise<void> {
    this.info = undefined;
    this.generation++;
    this.setState('starting', 'the Roslyn host is starting');
    const spawned = this.spawnChild(argv[0]!, [...argv.slice(1), '--parent-pid', String(process.pid)], {
      // Never the workspace: nothing the host does may land there.
      cwd: path.dirname(argv[1] ?? argv[0]!),
      env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', DOTNET_gcServer: '0' },
    });
    if ('error' in spawned) {
      this.onCrash(`could not be started: ${String(spawned.error)}`);
      return;
    }
    const child = spawned;
    const connection = rpcOverStdio(child);
    connection.onError(([e]) => log.debug('roslyn host: connection error', { error: String(e) }));
    connection.onNotification((method: string, p: unknown) => log.debug(`roslyn host: ${method}`, { params: JSON.stringify(p)?.slice(0, 300) }));
    connection.onRequest(() => null);
    connection.listen();
    this.connection = connection;
    const params: InitializeParams = {
      workspaceRoot: this.options.root,
      memoryCapMb: this.options.memoryCapMb ?? memoryCapFromEnv(),
      parentPid: process.pid,
    };
    try {
      const result = await Promise.race([
        connection.sendRequest<InitializeResult>(HostMethods.initialize, params),
        this.exited!,
        delay(ROSLYN_HOST_INITIALIZE_TIMEOUT_MS).then(() => {
          throw new Error(`no answer to initialize within ${ROSLYN_HOST_INITIALIZE_TIMEOUT_MS} ms`);
        }),
      ]);
      if (this.child !== child) return;
      this.info = result ?? { protocolVersion: 0, hostVersion: 'unknown', dotnetRoot: null };
      this.readyAfterMs = Date.now() - this.spawnedAt;
      this.setState('ready', `the Roslyn host ${this.info.hostVersion ?? ''} is ready`.replace('  ', ' '));
      log.info('roslyn host ready', { afterMs: this.readyAfterMs, pid: child.pid, generation: this.generation });
    } catch (e) {
      if (this.child === child) {
        this.onCrash(`initialize failed: ${e instanceof Error ? e.message : String(e)}`);
        this.stopping = true; // the exit that follows is this crash, not another one
        this.kill();
      }
    }
  }

  protected async shutdownProtocol(): Promise<void> {
    const connection = this.connection;
    if (!connection || this.state !== 'ready') return;
    await Promise.race([connection.sendRequest(HostMethods.shutdown, {}).catch(() => undefined), delay(ROSLYN_HOST_SHUTDOWN_GRACE_MS)]);
    await connection.sendNotification(HostMethods.exit).catch(() => undefined);
  }

  protected exitedError(message: string): Error {
    return new HostExitedError(message);
  }

  protected onExit(current: boolean): void {
    this.connection?.dispose();
    if (current) this.connection = undefined;
  }

  protected notFoundDetail(command: string): string {
    return `the Roslyn host could not be started: ${command} not found`;
  }

  protected crashedDetail(why: string, backoffMs: number): string {
    return `the Roslyn host stopped (${why}); it restarts on the next question after ${backoffMs} ms`;
  }

  protected gaveUpDetail(why: string, crashes: number, windowMin: number): string {
    return `the Roslyn host crashed ${crashes} times in ${windowMin} min (${why}); not restarting for now`;
  }

  /** After a cancelled request: a host that does not answer it within the grace period is hung. */
  private watchHang(sent: Promise<unknown>, child: cp.ChildProcess | undefined, method: string): void {
    let settled = false;
    void sent.then(
      () => (settled = true),
      () => (settled = true),
    );
    const grace = this.options.hangGraceMs ?? ROSLYN_HOST_HANG_GRACE_MS;
    let probes = 0;
    const check = async () => {
      if (settled || this.child !== child || !child) return;
      // Still working (it answers `status` at once, outside its request queue): not hung, up to a limit.
      if (probes++ < ROSLYN_HOST_HANG_PROBES && this.connection) {
        const alive = await Promise.race([this.connection.sendRequest(HostMethods.status, {}).then(() => true, () => false), new Promise<boolean>((r) => setTimeout(() => r(false), Math.min(ROSLYN_HOST_STATUS_TIMEOUT_MS, grace)).unref())]);
        if (settled || this.child !== child) return;
        if (alive) {
          setTimeout(() => void check(), grace).unref();
          return;
        }
      }
      log.warn('roslyn host: no answer long after the deadline; killing it', { method });
      this.onCrash(`no answer to ${method} ${grace} ms after its deadline: hung`);
      this.stopping = true;
      this.kill();
    };
    const t = setTimeout(() => void check(), grace);
    t.unref();
  }
}

function memoryCapFromEnv(): number {
  const v = Number(process.env.SEXTANT_ROSLYN_MEMORY_MB);
  return Number.isFinite(v) && v > 0 ? v : ROSLYN_HOST_MEMORY_CAP_MB;
}

function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms).unref());
}
