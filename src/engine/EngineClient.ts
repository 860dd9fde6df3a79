/**
 * One engine per workspace folder, started with vscode-languageclient over node IPC
 * (`dist/cli.js ipc`). Answers the engine's editor-bridge requests, relays its status, progress,
 * endpoint and agent-activity notifications as events, restarts it when it crashes (bounded),
 * and shuts it down cleanly. Talks to the engine only through server/src/protocol/.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  State,
  TransportKind,
  type LanguageClientOptions,
  type RequestType,
  type RequestType0,
  type ServerOptions,
} from 'vscode-languageclient/node';
import {
  AgentActivityNotification,
  EditorAvailabilityNotification,
  EditorQueryRequest,
  EndpointNotification,
  EngineStatusNotification,
  EngineStatusRequest,
  IndexProgressNotification,
  PROTOCOL_VERSION,
  type AgentActivity,
  type EngineInitOptions,
  type EngineInitResult,
  type EngineStatus,
  type IndexProgress,
  type McpEndpoint,
} from '../../server/src/protocol/protocol';
import { EditorBridge } from '../bridge/EditorBridge';
import { PathMapper } from '../bridge/convert';
import { editorAvailability } from '../bridge/editorLanguages';
import { AVAILABILITY_RECHECK_MS, MAX_ENGINE_RESTARTS, RESTART_WINDOW_MS } from '../extensionLimits';
import { readSettings } from '../settings';

export type EngineState = 'stopped' | 'starting' | 'running' | 'restarting' | 'failed';

export class EngineClient implements vscode.Disposable {
  readonly bridge: EditorBridge;
  private client: LanguageClient | undefined;
  private readonly restarts: number[] = [];
  private disposed = false;
  private _state: EngineState = 'stopped';
  private _status: EngineStatus | undefined;
  private _endpoint: McpEndpoint | undefined;
  private _failure: string | undefined;
  private readonly subscriptions: vscode.Disposable[] = [];
  /** The availability last sent to the engine (JSON), and the re-check timer while a provider is loading. */
  private sentAvailability = '';
  private availabilityTimer: NodeJS.Timeout | undefined;

  private readonly stateEmitter = new vscode.EventEmitter<EngineState>();
  private readonly statusEmitter = new vscode.EventEmitter<EngineStatus>();
  private readonly progressEmitter = new vscode.EventEmitter<IndexProgress>();
  private readonly endpointEmitter = new vscode.EventEmitter<McpEndpoint | undefined>();
  private readonly activityEmitter = new vscode.EventEmitter<AgentActivity>();
  /** The engine's lifecycle state changed. */
  readonly onDidChangeState = this.stateEmitter.event;
  readonly onStatus = this.statusEmitter.event;
  readonly onProgress = this.progressEmitter.event;
  /** The MCP endpoint appeared, moved or went away (engine stopped). */
  readonly onEndpoint = this.endpointEmitter.event;
  readonly onActivity = this.activityEmitter.event;

  constructor(
    readonly folder: vscode.WorkspaceFolder,
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    // A bridge query activates the language's extensions: the engine hears of it at once.
    this.bridge = new EditorBridge(
      new PathMapper(folder.uri),
      (line) => log.info(`[${folder.name}] bridge: ${line}`),
      () => this.sendAvailability(),
    );
    this.subscriptions.push(
      this.stateEmitter,
      this.statusEmitter,
      this.progressEmitter,
      this.endpointEmitter,
      this.activityEmitter,
      vscode.extensions.onDidChange(() => {
        this.bridge.reset();
        this.sendAvailability();
      }),
      // Opening a file of a language activates its extension (onLanguage:…): tell the engine.
      vscode.workspace.onDidOpenTextDocument(() => this.sendAvailability()),
      { dispose: () => clearTimeout(this.availabilityTimer) },
      ...this.watchProjectChanges(),
    );
  }

  get state(): EngineState {
    return this._state;
  }
  get status(): EngineStatus | undefined {
    return this._status;
  }
  get endpoint(): McpEndpoint | undefined {
    return this._endpoint;
  }
  /** Why the engine is not running, when it failed. */
  get failure(): string | undefined {
    return this._failure;
  }
  /** Engine process id, once it reported status. */
  get pid(): number | undefined {
    return this._status?.pid;
  }

  /** The folder for the index and server.json: the setting, or this folder's slot in workspace storage. */
  indexRoot(): string {
    const configured = readSettings(this.folder.uri).indexRoot;
    if (configured) return path.isAbsolute(configured) ? configured : path.join(this.folder.uri.fsPath, configured);
    const base = (this.context.storageUri ?? this.context.globalStorageUri).fsPath;
    const slot = crypto.createHash('sha256').update(this.folder.uri.toString()).digest('hex').slice(0, 12);
    return path.join(base, `index-${slot}`);
  }

  async start(): Promise<void> {
    if (this.disposed || this.client) return;
    this.setState('starting');
    const module = this.context.asAbsolutePath(path.join('dist', 'cli.js'));
    const serverOptions: ServerOptions = {
      module,
      transport: TransportKind.ipc,
      args: ['ipc', '--workspace-root', this.folder.uri.fsPath],
      options: { cwd: this.folder.uri.fsPath, env: { ...process.env, SEXTANT_CLIENT: 'vscode', ...editorTypeScript() } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: [],
      outputChannel: this.log,
      initializationOptions: () => this.initOptions(),
      initializationFailedHandler: (e: unknown) => {
        this.fail(`the engine did not start: ${e instanceof Error ? e.message : String(e)}`);
        return false;
      },
      errorHandler: {
        error: () => ({ action: ErrorAction.Continue }),
        closed: () => this.onClosed(),
      },
    };
    const client = new LanguageClient('sextant', `Sextant (${this.folder.name})`, serverOptions, clientOptions);
    this.client = client;
    client.onRequest(EditorQueryRequest.method, (q: Parameters<EditorBridge['answer']>[0]) => this.bridge.answer(q));
    client.onNotification(EngineStatusNotification.method, (s: EngineStatus) => this.setStatus(s));
    client.onNotification(IndexProgressNotification.method, (p: IndexProgress) => this.progressEmitter.fire(p));
    client.onNotification(EndpointNotification.method, (e: McpEndpoint) => this.setEndpoint(e));
    client.onNotification(AgentActivityNotification.method, (a: AgentActivity) => this.activityEmitter.fire(a));
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        this.setState('running');
        this.afterStart(client);
      }
    });
    try {
      await client.start();
    } catch (e) {
      this.fail(`the engine did not start: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** Sends a request to the engine; rejects when it is not running. */
  request<R>(type: RequestType0<R, void>): Promise<R>;
  request<P, R>(type: RequestType<P, R, void>, params: P): Promise<R>;
  async request<P, R>(type: RequestType0<R, void> | RequestType<P, R, void>, params?: P): Promise<R> {
    const c = this.client;
    if (!c || c.state !== State.Running) throw new Error(`the Sextant engine for ${this.folder.name} is ${this._state}`);
    return params === undefined ? ((await c.sendRequest(type.method)) as R) : ((await c.sendRequest(type.method, params)) as R);
  }

  async restart(): Promise<void> {
    await this.stop();
    this._failure = undefined;
    this.restarts.length = 0;
    await this.start();
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    this.setEndpoint(undefined);
    if (c) {
      try {
        await c.stop(5_000);
      } catch (e) {
        this.log.warn(`[${this.folder.name}] engine stop: ${e instanceof Error ? e.message : String(e)}`);
      }
      await c.dispose().catch(() => undefined);
    }
    this.setState('stopped');
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    await this.stop();
    for (const d of this.subscriptions.splice(0)) d.dispose();
  }

  /**
   * Source files created or deleted, or a project file changed: the language service reloads its
   * project, so the bridge makes it prove again that it answers from the whole program.
   */
  private watchProjectChanges(): vscode.Disposable[] {
    const sources = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.folder, '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,cs}'), false, true, false);
    const projects = vscode.workspace.createFileSystemWatcher(
      new vscode.RelativePattern(this.folder, '**/{*.csproj,*.sln,*.slnx,*.props,*.targets,tsconfig*.json,jsconfig*.json,package.json}'),
    );
    const cool = (uri: vscode.Uri): void => {
      for (const l of languagesOfFile(uri.path)) this.bridge.coolDown(l);
    };
    const coolAll = (): void => this.bridge.coolDown();
    return [sources, projects, sources.onDidCreate(cool), sources.onDidDelete(cool), projects.onDidCreate(coolAll), projects.onDidChange(coolAll), projects.onDidDelete(coolAll)];
  }

  private initOptions(): EngineInitOptions {
    const s = readSettings(this.folder.uri);
    return {
      protocolVersion: PROTOCOL_VERSION,
      workspaceRoot: this.folder.uri.fsPath,
      indexRoot: this.indexRoot(),
      exclude: s.exclude,
      languages: s.languages,
      maxFileBytes: s.maxFileBytes,
      budget: { responseBytes: s.responseBytes, itemLimit: s.itemLimit, toolDeadlineMs: s.toolDeadlineMs },
      useEditorProviders: s.useEditorProviders,
      // Restore runs the repository's MSBuild logic: only in a workspace the user trusted.
      restore: s.restore && vscode.workspace.isTrusted,
      lspCommands: s.lspCommands,
      httpPort: s.httpPort,
      clientName: 'vscode',
    };
  }

  private afterStart(client: LanguageClient): void {
    const init = (client.initializeResult as { sextant?: EngineInitResult } | undefined)?.sextant;
    if (init?.endpoint) this.setEndpoint(init.endpoint);
    this.sentAvailability = '';
    this.sendAvailability();
    void this.request(EngineStatusRequest.type).then(
      (s) => this.setStatus(s),
      () => undefined,
    );
  }

  /**
   * Tells the engine which languages the editor can serve, when that changed since the last send.
   * VS Code has no event for "an extension activated", and a language extension usually
   * activates after the engine started (when a file of its language opens, or a bridge query
   * activates it): while any language is `loading` this re-checks every
   * AVAILABILITY_RECHECK_MS, so the engine (and the Index view) never stays on a stale `loading`.
   */
  private sendAvailability(): void {
    clearTimeout(this.availabilityTimer);
    this.availabilityTimer = undefined;
    const c = this.client;
    if (this.disposed || !c || c.state !== State.Running) return;
    const s = readSettings(this.folder.uri);
    // The engine names React files' languages apart (typescriptreact, javascriptreact).
    const expanded = s.languages.flatMap((l) => (l === 'typescript' || l === 'javascript' ? [l, `${l}react`] : [l]));
    const list = editorAvailability(s.useEditorProviders ? expanded : []);
    const json = JSON.stringify(list);
    if (json !== this.sentAvailability) {
      this.sentAvailability = json;
      void c.sendNotification(EditorAvailabilityNotification.method, list).catch(() => undefined);
    }
    if (list.some((l) => l.state === 'loading')) {
      this.availabilityTimer = setTimeout(() => this.sendAvailability(), AVAILABILITY_RECHECK_MS);
    }
  }

  private onClosed(): { action: CloseAction; message?: string; handled?: boolean } {
    this.setEndpoint(undefined);
    if (this.disposed) return { action: CloseAction.DoNotRestart, handled: true };
    const now = Date.now();
    this.restarts.push(now);
    while (this.restarts.length > 0 && now - this.restarts[0]! > RESTART_WINDOW_MS) this.restarts.shift();
    if (this.restarts.length > MAX_ENGINE_RESTARTS) {
      this.fail(`the engine stopped ${this.restarts.length} times in ${RESTART_WINDOW_MS / 60_000} minutes; not restarting (Sextant: Restart Engine tries again)`);
      return { action: CloseAction.DoNotRestart, message: this._failure ?? 'engine stopped', handled: true };
    }
    this.log.warn(`[${this.folder.name}] the engine stopped unexpectedly; restarting (${this.restarts.length}/${MAX_ENGINE_RESTARTS})`);
    this._status = undefined;
    this.setState('restarting');
    return { action: CloseAction.Restart, handled: true };
  }

  private fail(reason: string): void {
    this._failure = reason;
    this.log.error(`[${this.folder.name}] ${reason}`);
    this.setState('failed');
  }

  private setState(s: EngineState): void {
    if (this._state === s) return;
    this._state = s;
    this.stateEmitter.fire(s);
  }

  private setStatus(s: EngineStatus): void {
    this._status = s;
    if (s.endpoint && s.endpoint.url !== this._endpoint?.url) this.setEndpoint(s.endpoint);
    this.statusEmitter.fire(s);
  }

  private setEndpoint(e: McpEndpoint | undefined): void {
    if (e?.url === this._endpoint?.url && e?.token === this._endpoint?.token) return;
    this._endpoint = e;
    this.endpointEmitter.fire(e);
  }
}

/** The languages whose service a source file belongs to (TS and JS share one service). */
function languagesOfFile(p: string): string[] {
  if (/\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i.test(p)) return ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'];
  if (/\.cs$/i.test(p)) return ['csharp'];
  return [];
}

/**
 * The editor's own `typescript` package (VS Code ships one with its TypeScript extension), for the
 * engine's TypeScript host when the engine has none beside it: the .vsix carries no node_modules.
 * The engine uses it only when its own `typescript` cannot be loaded (tsprograms/tsPrograms.ts).
 */
function editorTypeScript(): { SEXTANT_TYPESCRIPT_MODULE?: string } {
  const appRoot = vscode.env.appRoot;
  if (!appRoot) return {};
  const dir = path.join(appRoot, 'extensions', 'node_modules', 'typescript');
  return fs.existsSync(path.join(dir, 'package.json')) ? { SEXTANT_TYPESCRIPT_MODULE: dir } : {};
}
