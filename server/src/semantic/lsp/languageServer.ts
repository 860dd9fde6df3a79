/**
 * One language server process for one workspace: started lazily, ready when its load finishes
 * (work-done progress for csharp-ls), restarted after a crash with exponential backoff, stopped
 * when idle, killed when the engine exits. Its stderr and log messages go to the engine log (and
 * a short tail kept for doctor), never into answers.
 */
import * as cp from 'node:child_process';
import * as path from 'node:path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import type { MessageConnection } from 'vscode-jsonrpc';
import type * as lsp from 'vscode-languageserver-protocol';
import {
  LSP_IDLE_STOP_MS,
  LSP_INITIALIZE_TIMEOUT_MS,
  LSP_MAX_RESTARTS_PER_WINDOW,
  LSP_PROGRESS_START_GRACE_MS,
  LSP_RESTART_BACKOFF_BASE_MS,
  LSP_RESTART_BACKOFF_MAX_MS,
  LSP_RESTART_WINDOW_MS,
  LSP_SHUTDOWN_GRACE_MS,
  LSP_STDERR_TAIL_LINES,
} from '../../core/limits';
import { log } from '../../core/log';
import { UriMapper } from './convert';
import { OpenDocuments } from './openDocuments';
import { groupSpawnOptions, killGroup, watchOverGroup } from '../../core/processGroup';
import { findExecutable, searchedPlaces, type LanguageServerSpec } from './serverSpec';
import { rpcOverStdio } from './rpcChannel';

export type ServerState = 'stopped' | 'starting' | 'loading' | 'ready' | 'crashed' | 'failed' | 'absent';

/** A snapshot of one server for availability, doctor and tests. */
export interface ServerStatus {
  id: string;
  name: string;
  state: ServerState;
  /** One line for people. */
  detail: string;
  /** Resolved executable, when found. */
  executable?: string;
  pid?: number;
  /** serverInfo.version from initialize. */
  version?: string;
  progress?: { done: number; total: number };
  /** Restarts after crashes since the engine started. */
  restarts: number;
  /** Milliseconds from spawn to ready, for the last start. */
  readyAfterMs?: number;
  /** Load problems the server reported (window/showMessage warnings and errors). */
  loadProblems: string[];
  stderrTail: string[];
}

export type Acquired =
  | { ok: true; connection: MessageConnection; documents: OpenDocuments; capabilities: lsp.ServerCapabilities }
  | { ok: false; state: 'loading' | 'failed' | 'absent'; reason: string };

/** The process is gone while a request was in flight. */
export class ServerExitedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ServerExitedError';
  }
}

export interface LanguageServerOptions {
  /** Language id of a workspace-relative path (for didOpen). */
  languageOf: (rel: string) => string | undefined;
  idleStopMs?: number;
}

const live = new Set<LanguageServer>();
let exitHookInstalled = false;

/** Kills every language server process this engine started (synchronous; safe in an exit hook). */
export function killAllLanguageServers(): void {
  for (const s of live) s.kill();
}

export class LanguageServer {
  private state: ServerState = 'stopped';
  private detail = 'not started; starts on the first request';
  private child: cp.ChildProcess | undefined;
  private connection: MessageConnection | undefined;
  private documents: OpenDocuments | undefined;
  private capabilities: lsp.ServerCapabilities = {};
  private version: string | undefined;
  private executable: string | undefined;
  private starting: Promise<void> | undefined;
  private stopping = false;
  private readonly waiters = new Set<() => void>();
  private readonly activeProgress = new Map<string | number, string>();
  private sawProgress = false;
  private progress: { done: number; total: number } | undefined;
  private crashTimes: number[] = [];
  private restartAt = 0;
  private restarts = 0;
  private spawnedAt = 0;
  private readyAfterMs: number | undefined;
  private inFlight = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private exitedPromise: Promise<never> | undefined;
  private readonly loadProblems: string[] = [];
  private readonly stderrTail: string[] = [];
  private readonly messages: string[] = [];
  /** The last `textDocument/publishDiagnostics` per URI, with when it came (diagnostics, issue 13). */
  private readonly published = new Map<string, { at: number; diagnostics: lsp.Diagnostic[] }>();
  /** When the server last published diagnostics for any file. */
  lastPublishAt = 0;
  readonly uris: UriMapper;

  constructor(
    readonly spec: LanguageServerSpec,
    /** Canonical absolute workspace root. */
    readonly root: string,
    private readonly options: LanguageServerOptions,
  ) {
    this.uris = new UriMapper(root);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', killAllLanguageServers);
    }
  }

  status(): ServerStatus {
    const s: ServerStatus = {
      id: this.spec.id,
      name: this.spec.name,
      state: this.state,
      detail: this.detail,
      restarts: this.restarts,
      loadProblems: [...this.loadProblems],
      stderrTail: [...this.stderrTail],
    };
    const exe = this.executable ?? findExecutableFor(this.spec);
    if (exe) s.executable = exe;
    if (this.child?.pid !== undefined && this.child.exitCode === null) s.pid = this.child.pid;
    if (this.version) s.version = this.version;
    if (this.progress) s.progress = { ...this.progress };
    if (this.readyAfterMs !== undefined) s.readyAfterMs = this.readyAfterMs;
    return s;
  }

  /**
   * Starts the server when needed and waits up to `waitMs` for it to be ready. Never throws:
   * a server that is missing, loading or broken is reported as such.
   */
  async acquire(waitMs: number, signal: AbortSignal): Promise<Acquired> {
    this.touch();
    const until = Date.now() + Math.max(0, waitMs);
    for (;;) {
      switch (this.state) {
        case 'ready':
          return { ok: true, connection: this.connection!, documents: this.documents!, capabilities: this.capabilities };
        case 'absent':
        case 'stopped':
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
      if (this.state === 'absent') return { ok: false, state: 'absent', reason: this.detail };
      if (this.state === 'failed' || this.state === 'crashed') return { ok: false, state: 'failed', reason: this.detail };
      const left = until - Date.now();
      if (left <= 0 || signal.aborted) return { ok: false, state: 'loading', reason: this.detail };
      await this.waitForChange(left, signal);
    }
  }

  /** Sends a request; rejects with ServerExitedError when the process dies before answering. */
  async request<R>(method: string, params: unknown, signal: AbortSignal): Promise<R> {
    const connection = this.connection;
    if (!connection || this.state !== 'ready') throw new ServerExitedError(`${this.spec.name} is not running`);
    const exited = this.exitedPromise!;
    const cts = new CancellationTokenSource();
    const onAbort = () => cts.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    this.inFlight++;
    this.touch();
    try {
      return await Promise.race([connection.sendRequest<R>(method, params, cts.token), exited]);
    } finally {
      this.inFlight--;
      signal.removeEventListener('abort', onAbort);
      cts.dispose();
      this.touch();
    }
  }

  /** Kills the process (and its process group) immediately. Used on engine exit and by tests. */
  kill(): void {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    killGroup(child, 'SIGKILL');
  }

  /** Graceful stop: shutdown + exit, then SIGKILL after a grace period. */
  async stop(reason = 'stopped'): Promise<void> {
    const child = this.child;
    const connection = this.connection;
    this.clearTimers();
    if (!child || child.exitCode !== null || child.signalCode !== null) {
      this.setState('stopped', reason);
      return;
    }
    this.stopping = true;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      if (connection && (this.state === 'ready' || this.state === 'loading')) {
        await Promise.race([connection.sendRequest('shutdown'), delay(LSP_SHUTDOWN_GRACE_MS)]);
        await connection.sendNotification('exit').catch(() => undefined);
      }
    } catch {
      /* the process may already be exiting */
    }
    const timer = setTimeout(() => this.kill(), LSP_SHUTDOWN_GRACE_MS);
    await exited;
    clearTimeout(timer);
    this.setState('stopped', reason);
  }

  /** Forgets crash history (after a configuration change) so the next request starts afresh. */
  resetFailures(): void {
    this.crashTimes = [];
    this.restartAt = 0;
  }

  private begin(): void {
    if (this.starting) return;
    const exe = findExecutableFor(this.spec);
    if (!exe) {
      this.setState('absent', `${this.spec.name} not found (looked for '${this.spec.command}' in ${searchedPlaces(this.spec)}); run npm install in the Sextant checkout`);
      return;
    }
    this.executable = exe;
    this.starting = this.start(exe).finally(() => {
      this.starting = undefined;
    });
  }

  private async start(exe: string): Promise<void> {
    this.stopping = false;
    this.activeProgress.clear();
    this.sawProgress = false;
    this.progress = undefined;
    this.loadProblems.length = 0;
    this.spawnedAt = Date.now();
    this.readyAfterMs = undefined;
    this.setState('starting', `${this.spec.name} starting`);

    const isScript = /\.(c|m)?js$/.test(exe);
    const command = isScript ? process.execPath : exe;
    const args = isScript ? [exe, ...this.spec.args] : [...this.spec.args];
    let child: cp.ChildProcess;
    try {
      child = cp.spawn(command, args, {
        cwd: this.root,
        stdio: ['pipe', 'pipe', 'pipe'],
        env: { ...process.env, ...(isScript ? { ELECTRON_RUN_AS_NODE: '1' } : {}), ...this.spec.env },
        windowsHide: true,
        // Its own process group, watched over: it and its children die with the engine, even on SIGKILL.
        ...groupSpawnOptions(),
      });
      watchOverGroup(child);
    } catch (e) {
      this.setState('failed', `${this.spec.name} could not be started: ${String(e)}`);
      this.restartAt = Date.now() + LSP_RESTART_BACKOFF_MAX_MS;
      return;
    }
    this.child = child;
    live.add(this);
    let exitResolve: (e: Error) => void = () => undefined;
    this.exitedPromise = new Promise<never>((_, reject) => {
      exitResolve = reject;
    });
    this.exitedPromise.catch(() => undefined);

    child.on('error', (e) => {
      log.warn(`${this.spec.name}: process error`, { error: String(e) });
      exitResolve(new ServerExitedError(`${this.spec.name} could not run: ${e.message}`));
      if (this.child !== child || child.exitCode !== null) return;
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') this.setState('absent', `${this.spec.name} not found at ${exe}`);
      else this.onCrash(`process error: ${e.message}`);
    });
    child.on('exit', (code, sig) => {
      live.delete(this);
      killGroup(child, 'SIGKILL'); // what it started and left behind (build hosts) goes with it
      const how = sig ? `signal ${sig}` : `exit code ${code}`;
      exitResolve(new ServerExitedError(`${this.spec.name} exited (${how}) during the request`));
      this.connection?.dispose();
      this.connection = undefined;
      this.documents = undefined;
      if (this.child === child) this.child = undefined;
      if (this.stopping) return;
      this.onCrash(how);
    });
    this.pipeStderr(child);

    const connection = rpcOverStdio(child);
    this.connection = connection;
    this.published.clear();
    this.wireConnection(connection);
    connection.listen();
    this.documents = new OpenDocuments(connection, this.uris, this.options.languageOf);

    const rootUri = this.uris.absToUri(this.root);
    const params: lsp.InitializeParams = {
      processId: process.pid,
      clientInfo: { name: 'sextant' },
      rootUri,
      rootPath: this.root,
      workspaceFolders: [{ uri: rootUri, name: path.basename(this.root) }],
      initializationOptions: this.spec.initializationOptions ?? null,
      capabilities: CLIENT_CAPABILITIES,
    };
    try {
      const result = await Promise.race([
        connection.sendRequest<lsp.InitializeResult>('initialize', params),
        this.exitedPromise,
        delay(LSP_INITIALIZE_TIMEOUT_MS).then(() => {
          throw new Error(`no answer to initialize within ${LSP_INITIALIZE_TIMEOUT_MS} ms`);
        }),
      ]);
      this.capabilities = result.capabilities ?? {};
      this.version = result.serverInfo?.version;
      await connection.sendNotification('initialized', {});
    } catch (e) {
      if (this.child === child) {
        this.onCrash(`initialize failed: ${e instanceof Error ? e.message : String(e)}`);
        this.kill();
      }
      return;
    }
    if (this.child !== child) return;
    if (this.spec.readiness === 'initialize') {
      this.markReady();
      return;
    }
    if (this.state === 'starting') this.setState('loading', `${this.spec.name} loading the workspace`);
    const warmup = this.spec.warmup;
    if (warmup) {
      // The answer (or an error answer) means the workspace is loaded; progress only adds detail.
      connection.sendRequest(warmup.method, warmup.params).then(
        () => this.child === child && this.state === 'loading' && this.markReady(),
        (e: unknown) => {
          if (this.child !== child || this.state !== 'loading') return;
          log.warn(`${this.spec.name}: warm-up request failed`, { error: String(e) });
          this.markReady();
        },
      );
      return;
    }
    // A server that never reports progress is taken as ready after a grace period.
    this.graceTimer = setTimeout(() => {
      if (!this.sawProgress && this.state === 'loading' && this.child === child) this.markReady();
    }, LSP_PROGRESS_START_GRACE_MS);
  }

  private wireConnection(connection: MessageConnection): void {
    connection.onRequest('workspace/configuration', (p: lsp.ConfigurationParams) =>
      p.items.map((item) => (item.section !== undefined ? (this.spec.settings?.[item.section] ?? null) : null)),
    );
    connection.onRequest('workspace/workspaceFolders', () => [{ uri: this.uris.absToUri(this.root), name: path.basename(this.root) }]);
    connection.onRequest('workspace/applyEdit', () => ({ applied: false, failureReason: 'sextant is read-only' }));
    // Everything else the server may ask (progress tokens, registrations, refreshes) gets an empty answer.
    connection.onRequest((method: string) => {
      log.debug(`${this.spec.name}: server request ${method}`);
      return null;
    });
    connection.onUnhandledProgress(({ token, value }) => this.onProgress(token, value as lsp.WorkDoneProgressBegin | lsp.WorkDoneProgressReport | lsp.WorkDoneProgressEnd));
    connection.onNotification('window/logMessage', (p: lsp.LogMessageParams) => this.onMessage(p, false));
    connection.onNotification('window/showMessage', (p: lsp.ShowMessageParams) => this.onMessage(p, true));
    connection.onNotification('textDocument/publishDiagnostics', (p: lsp.PublishDiagnosticsParams) => {
      if (this.connection !== connection) return;
      this.lastPublishAt = Date.now();
      this.published.set(p.uri, { at: this.lastPublishAt, diagnostics: p.diagnostics ?? [] });
    });
    connection.onNotification(() => undefined);
    connection.onError(([e]) => log.debug(`${this.spec.name}: connection error`, { error: String(e) }));
  }

  /** The server's last published diagnostics for a URI (undefined: none published by this process). */
  publishedDiagnostics(uri: string): { at: number; diagnostics: lsp.Diagnostic[] } | undefined {
    return this.published.get(uri);
  }

  private onProgress(token: string | number, value: lsp.WorkDoneProgressBegin | lsp.WorkDoneProgressReport | lsp.WorkDoneProgressEnd): void {
    if (!value || typeof value !== 'object') return;
    if (value.kind === 'begin') {
      this.sawProgress = true;
      this.activeProgress.set(token, value.title);
      if (this.state === 'ready' || this.state === 'starting') this.setState('loading', `${this.spec.name}: ${value.title}`);
      else this.detail = `${this.spec.name}: ${value.title}`;
      this.notify();
    } else if (value.kind === 'report') {
      const m = /\((\d+)\/(\d+)\)/.exec(value.message ?? '');
      if (m) this.progress = { done: Number(m[1]), total: Number(m[2]) };
      const title = this.activeProgress.get(token) ?? 'loading';
      this.detail = `${this.spec.name}: ${title}${value.message ? ` — ${value.message}` : ''}`;
      this.notify();
    } else if (value.kind === 'end') {
      this.activeProgress.delete(token);
      // With a warm-up request, its answer marks readiness (the load is followed by compilation).
      if (this.activeProgress.size === 0 && this.state === 'loading' && (!this.spec.warmup || this.readyAfterMs !== undefined)) this.markReady();
    }
  }

  private onMessage(p: lsp.LogMessageParams | lsp.ShowMessageParams, shown: boolean): void {
    const line = `${p.message}`.slice(0, 500);
    this.messages.push(line);
    if (this.messages.length > LSP_STDERR_TAIL_LINES) this.messages.shift();
    // 1 = Error, 2 = Warning.
    if (shown && (p.type === 1 || p.type === 2)) {
      this.loadProblems.push(line);
      if (this.loadProblems.length > LSP_STDERR_TAIL_LINES) this.loadProblems.shift();
      log.warn(`${this.spec.name}: ${line}`);
    } else log.debug(`${this.spec.name}: ${line}`);
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
        if (this.stderrTail.length > LSP_STDERR_TAIL_LINES) this.stderrTail.shift();
        log.debug(`${this.spec.name} stderr: ${line}`);
      }
      if (pending.length > 64 * 1024) pending = pending.slice(-64 * 1024);
    });
  }

  private onCrash(how: string): void {
    this.clearTimers();
    const now = Date.now();
    this.crashTimes = this.crashTimes.filter((t) => now - t < LSP_RESTART_WINDOW_MS);
    this.crashTimes.push(now);
    const n = this.crashTimes.length;
    const last = this.messages.at(-1);
    const why = last ? `${how}; last message: ${last}` : how;
    if (n > LSP_MAX_RESTARTS_PER_WINDOW) {
      this.restartAt = now + LSP_RESTART_WINDOW_MS;
      this.setState('failed', `${this.spec.name} crashed ${n} times in ${Math.round(LSP_RESTART_WINDOW_MS / 60000)} min (${why}); not restarting for now`);
    } else {
      const backoff = Math.min(LSP_RESTART_BACKOFF_BASE_MS * 2 ** (n - 1), LSP_RESTART_BACKOFF_MAX_MS);
      this.restartAt = now + backoff;
      this.restarts++;
      this.setState('crashed', `${this.spec.name} crashed (${why}); restarts on the next request after ${backoff} ms`);
    }
    log.warn(this.detail);
  }

  private markReady(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.readyAfterMs = Date.now() - this.spawnedAt;
    const problems = this.loadProblems.length > 0 ? ` with ${this.loadProblems.length} load problem(s)` : '';
    this.setState('ready', `${this.spec.name} ready${this.progress ? ` (${this.progress.done}/${this.progress.total} projects)` : ''}${problems}`);
    log.info(`${this.spec.name} ready`, { afterMs: this.readyAfterMs });
  }

  private setState(state: ServerState, detail: string): void {
    this.state = state;
    this.detail = detail;
    this.notify();
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }

  private waitForChange(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      this.waiters.add(done);
    });
  }

  /** Marks activity; the idle timer stops the server after a quiet period. */
  private touch(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const ms = this.options.idleStopMs ?? LSP_IDLE_STOP_MS;
    if (ms <= 0) return;
    this.idleTimer = setTimeout(() => {
      if (this.inFlight > 0) return this.touch();
      if (this.state === 'ready' || this.state === 'loading') {
        log.info(`${this.spec.name} idle for ${ms} ms; stopping`);
        void this.stop('stopped after being idle; starts again on the next request');
      }
    }, ms);
    this.idleTimer.unref();
  }

  private clearTimers(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.idleTimer = undefined;
    this.graceTimer = undefined;
  }
}

function findExecutableFor(spec: LanguageServerSpec): string | undefined {
  return findExecutable(spec.command, spec.env ? { ...process.env, ...spec.env } : process.env, spec.searchDirs);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

const CLIENT_CAPABILITIES: lsp.ClientCapabilities = {
  general: { positionEncodings: ['utf-16'] },
  window: { workDoneProgress: true, showMessage: {} },
  workspace: { configuration: true, workspaceFolders: true, symbol: {} },
  textDocument: {
    synchronization: { didSave: false },
    definition: { linkSupport: true },
    implementation: { linkSupport: true },
    typeDefinition: { linkSupport: true },
    references: {},
    documentSymbol: { hierarchicalDocumentSymbolSupport: true },
    callHierarchy: {},
    typeHierarchy: {},
    publishDiagnostics: { relatedInformation: false },
    diagnostic: { dynamicRegistration: false, relatedDocumentSupport: false },
  },
};
