/**
 * One language server process for one workspace: started lazily, ready when its load finishes
 * (work-done progress for csharp-ls), restarted after a crash with exponential backoff, stopped
 * when idle, killed when the engine exits. Its stderr and log messages go to the engine log (and
 * a short tail kept for doctor), never into answers.
 */
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
import { ManagedProcess } from '../managedProcess';
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

export class LanguageServer extends ManagedProcess<ServerState> {
  private connection: MessageConnection | undefined;
  private documents: OpenDocuments | undefined;
  private capabilities: lsp.ServerCapabilities = {};
  private version: string | undefined;
  private executable: string | undefined;
  private readonly activeProgress = new Map<string | number, string>();
  private sawProgress = false;
  private progress: { done: number; total: number } | undefined;
  private graceTimer: NodeJS.Timeout | undefined;
  private readonly loadProblems: string[] = [];
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
    options: LanguageServerOptions,
  ) {
    super(
      {
        label: spec.name,
        backoffBaseMs: LSP_RESTART_BACKOFF_BASE_MS,
        backoffMaxMs: LSP_RESTART_BACKOFF_MAX_MS,
        windowMs: LSP_RESTART_WINDOW_MS,
        maxCrashesPerWindow: LSP_MAX_RESTARTS_PER_WINDOW,
        shutdownGraceMs: LSP_SHUTDOWN_GRACE_MS,
        stderrTailLines: LSP_STDERR_TAIL_LINES,
        idleStopMs: options.idleStopMs ?? LSP_IDLE_STOP_MS,
      },
      'not started; starts on the first request',
    );
    this.languageOf = options.languageOf;
    this.uris = new UriMapper(root);
  }

  private readonly languageOf: (rel: string) => string | undefined;

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
    const r = await this.waitUsable(waitMs, signal);
    return r.ok ? { ok: true, connection: this.connection!, documents: this.documents!, capabilities: this.capabilities } : r;
  }

  /** Sends a request; rejects with ServerExitedError when the process dies before answering. */
  async request<R>(method: string, params: unknown, signal: AbortSignal): Promise<R> {
    const connection = this.connection;
    if (!connection || this.state !== 'ready') throw new ServerExitedError(`${this.spec.name} is not running`);
    const exited = this.exited!;
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

  protected launch(): Promise<void> | undefined {
    const exe = findExecutableFor(this.spec);
    if (!exe) {
      this.setState('absent', `${this.spec.name} not found (looked for '${this.spec.command}' in ${searchedPlaces(this.spec)}); run npm install in the Sextant checkout`);
      return undefined;
    }
    this.executable = exe;
    return this.start(exe);
  }

  protected async shutdownProtocol(): Promise<void> {
    this.clearGrace();
    const connection = this.connection;
    if (connection && (this.state === 'ready' || this.state === 'loading')) {
      await Promise.race([connection.sendRequest('shutdown'), delay(LSP_SHUTDOWN_GRACE_MS)]);
      await connection.sendNotification('exit').catch(() => undefined);
    }
  }

  protected exitedError(message: string): Error {
    return new ServerExitedError(message);
  }

  protected onExit(current: boolean): void {
    this.connection?.dispose();
    if (!current) return;
    this.connection = undefined;
    this.documents = undefined;
  }

  protected notFoundDetail(command: string): string {
    return `${this.spec.name} not found at ${command}`;
  }

  protected override lastWords(): string | undefined {
    const last = this.messages.at(-1);
    return last ? `last message: ${last}` : undefined;
  }

  protected crashedDetail(why: string, backoffMs: number): string {
    return `${this.spec.name} crashed (${why}); restarts on the next request after ${backoffMs} ms`;
  }

  protected gaveUpDetail(why: string, crashes: number, windowMin: number): string {
    return `${this.spec.name} crashed ${crashes} times in ${windowMin} min (${why}); not restarting for now`;
  }

  private async start(exe: string): Promise<void> {
    this.activeProgress.clear();
    this.sawProgress = false;
    this.progress = undefined;
    this.loadProblems.length = 0;
    this.setState('starting', `${this.spec.name} starting`);

    const isScript = /\.(c|m)?js$/.test(exe);
    const command = isScript ? process.execPath : exe;
    const args = isScript ? [exe, ...this.spec.args] : [...this.spec.args];
    const spawned = this.spawnChild(command, args, { cwd: this.root, env: { ...process.env, ...(isScript ? { ELECTRON_RUN_AS_NODE: '1' } : {}), ...this.spec.env } });
    if ('error' in spawned) {
      this.setState('failed', `${this.spec.name} could not be started: ${String(spawned.error)}`);
      this.restartAt = Date.now() + LSP_RESTART_BACKOFF_MAX_MS;
      return;
    }
    const child = spawned;

    const connection = rpcOverStdio(child);
    this.connection = connection;
    this.published.clear();
    this.wireConnection(connection);
    connection.listen();
    this.documents = new OpenDocuments(connection, this.uris, this.languageOf);

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
        this.exited!,
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
      this.wake();
    } else if (value.kind === 'report') {
      const m = /\((\d+)\/(\d+)\)/.exec(value.message ?? '');
      if (m) this.progress = { done: Number(m[1]), total: Number(m[2]) };
      const title = this.activeProgress.get(token) ?? 'loading';
      this.detail = `${this.spec.name}: ${title}${value.message ? ` — ${value.message}` : ''}`;
      this.wake();
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

  protected override onCrash(how: string): void {
    this.clearGrace();
    super.onCrash(how);
  }

  private markReady(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = undefined;
    this.readyAfterMs = Date.now() - this.spawnedAt;
    const problems = this.loadProblems.length > 0 ? ` with ${this.loadProblems.length} load problem(s)` : '';
    this.setState('ready', `${this.spec.name} ready${this.progress ? ` (${this.progress.done}/${this.progress.total} projects)` : ''}${problems}`);
    log.info(`${this.spec.name} ready`, { afterMs: this.readyAfterMs });
  }

  private clearGrace(): void {
    if (this.graceTimer) clearTimeout(this.graceTimer);
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
