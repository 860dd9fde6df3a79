/**
 * The engine's end of the connection to the VS Code extension: JSON-RPC over node IPC (the
 * extension forks the engine with vscode-languageclient, `TransportKind.ipc`). It answers the
 * minimal LSP lifecycle the client expects (`initialize`, `initialized`, `shutdown`, `exit`)
 * and exposes the typed messages of protocol.ts; nothing else of LSP.
 *
 * Invariant: the only engine module that touches vscode-jsonrpc's node transport besides
 * semantic/lsp/; the engine host (server/src/engineHost.ts) uses this class, never the library.
 */
import {
  CancellationTokenSource,
  type CancellationToken,
  type MessageConnection,
  type NotificationType,
  type RequestType,
  type RequestType0,
} from 'vscode-jsonrpc';
import { IPCMessageReader, IPCMessageWriter, createMessageConnection } from 'vscode-jsonrpc/node';
import { PROTOCOL_VERSION, type EngineInitOptions, type EngineInitResult } from './protocol';

export interface InitializeInfo {
  options: EngineInitOptions;
  /** The extension host's process id (the engine exits when it is gone). */
  clientProcessId: number | undefined;
}

export class ExtensionConnection {
  private shutdownRequested = false;
  private initHandler: ((info: InitializeInfo) => Promise<EngineInitResult>) | undefined;
  private shutdownHandler: (() => Promise<void>) | undefined;
  private readonly closeHandlers: (() => void)[] = [];

  private constructor(private readonly conn: MessageConnection) {
    conn.onRequest('initialize', async (params: { processId?: number | null; initializationOptions?: Partial<EngineInitOptions> }) => {
      const options = params.initializationOptions;
      if (!options || options.protocolVersion !== PROTOCOL_VERSION) {
        throw new Error(`protocol version mismatch: extension ${String(options?.protocolVersion)}, engine ${PROTOCOL_VERSION}`);
      }
      if (!this.initHandler) throw new Error('engine host registered no initialize handler');
      const result = await this.initHandler({ options: options as EngineInitOptions, clientProcessId: params.processId ?? undefined });
      return { capabilities: {}, serverInfo: { name: 'sextant', version: '0.1.0' }, sextant: result };
    });
    conn.onNotification('initialized', () => undefined);
    conn.onRequest('shutdown', async () => {
      this.shutdownRequested = true;
      await this.shutdownHandler?.();
      return null;
    });
    conn.onNotification('exit', () => this.close());
    conn.onClose(() => this.close());
  }

  /** Connects over the IPC channel this process was forked with. */
  static overNodeIpc(): ExtensionConnection {
    if (typeof process.send !== 'function') throw new Error('sextant ipc must be started by the VS Code extension (no IPC channel)');
    return new ExtensionConnection(createMessageConnection(new IPCMessageReader(process), new IPCMessageWriter(process)));
  }

  /** For tests: any reader/writer pair (e.g. in-memory streams). */
  static over(conn: MessageConnection): ExtensionConnection {
    return new ExtensionConnection(conn);
  }

  /** True once `shutdown` arrived before the close (a clean stop). */
  get cleanShutdown(): boolean {
    return this.shutdownRequested;
  }

  onInitialize(h: (info: InitializeInfo) => Promise<EngineInitResult>): void {
    this.initHandler = h;
  }

  onShutdown(h: () => Promise<void>): void {
    this.shutdownHandler = h;
  }

  /** Called once when the extension closes the connection or sends `exit`. */
  onClose(h: () => void): void {
    this.closeHandlers.push(h);
  }

  handle<P, R>(type: RequestType<P, R, void>, h: (params: P, signal: AbortSignal) => Promise<R>): void {
    // By method name: the library's generic overloads do not resolve for a generic P.
    this.conn.onRequest(type.method, (params: P, token: CancellationToken) => h(params, abortSignalOf(token)));
  }

  handle0<R>(type: RequestType0<R, void>, h: (signal: AbortSignal) => Promise<R>): void {
    this.conn.onRequest(type.method, (token: CancellationToken) => h(abortSignalOf(token)));
  }

  onNotification<P>(type: NotificationType<P>, h: (params: P) => void): void {
    this.conn.onNotification(type.method, (params: P) => h(params));
  }

  notify<P>(type: NotificationType<P>, params: P): void {
    void this.conn.sendNotification(type.method, params).catch(() => undefined);
  }

  /** Sends a request to the extension; aborting `signal` cancels it there too. */
  async request<P, R>(type: RequestType<P, R, void>, params: P, signal?: AbortSignal): Promise<R> {
    const source = new CancellationTokenSource();
    const onAbort = (): void => source.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return (await this.conn.sendRequest(type.method, params, source.token)) as R;
    } finally {
      signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }

  listen(): void {
    this.conn.listen();
  }

  private closed = false;
  private close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const h of this.closeHandlers.splice(0)) {
      try {
        h();
      } catch {
        /* closing must not throw */
      }
    }
    this.conn.dispose();
  }
}

function abortSignalOf(token: CancellationToken): AbortSignal {
  const c = new AbortController();
  if (token.isCancellationRequested) c.abort();
  else token.onCancellationRequested(() => c.abort());
  return c.signal;
}
