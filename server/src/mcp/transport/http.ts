/**
 * MCP Streamable HTTP on node:http, for clients that attach to a running engine (the VS Code
 * extension's endpoint, a second `sextant mcp`, external agents).
 *
 * Invariants:
 * - bound to 127.0.0.1 only; the port is chosen by the OS unless given;
 * - every request carries `Authorization: Bearer <token>` (256 random bits, compared in constant
 *   time) or gets 401;
 * - the Host header must be the loopback host:port we listen on, and any `Origin` (a browser) is
 *   refused with 403: a DNS-rebinding page cannot reach the engine even if it learns the port;
 * - a body over HTTP_MAX_BODY_BYTES is answered 413 unread (declared) or as soon as it is seen;
 * - at most HTTP_MAX_INFLIGHT_PER_SESSION requests per session and HTTP_MAX_INFLIGHT_TOTAL overall
 *   are in flight; more get 429 with Retry-After;
 * - slow clients are cut: headers within HTTP_HEADERS_TIMEOUT_MS, the whole request within
 *   HTTP_REQUEST_TIMEOUT_MS, an idle socket after HTTP_SOCKET_IDLE_MS;
 * - each MCP session gets its own protocol server from the factory, over the same engine; idle
 *   sessions are closed after HTTP_SESSION_IDLE_MS, and at most HTTP_MAX_SESSIONS exist.
 */
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import {
  HTTP_HEADERS_TIMEOUT_MS,
  HTTP_MAX_BODY_BYTES,
  HTTP_MAX_CONNECTIONS,
  HTTP_MAX_INFLIGHT_PER_SESSION,
  HTTP_MAX_INFLIGHT_TOTAL,
  HTTP_MAX_SESSIONS,
  HTTP_REQUEST_TIMEOUT_MS,
  HTTP_SESSION_IDLE_MS,
  HTTP_SOCKET_IDLE_MS,
} from '../../core/limits';
import { log } from '../../core/log';

/** What the factory returns: an SDK `Server` or `McpServer` (anything with connect/close). */
export interface ProtocolServer {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
}

export interface HttpServerOptions {
  /** Builds one protocol server per session, over the same engine. */
  createServer: () => ProtocolServer;
  /** 0 (default) lets the OS choose. */
  port?: number;
  /** Defaults to 32 random bytes (base64url). */
  token?: string;
  /** Overrides for tests; production uses core/limits.ts. */
  maxBodyBytes?: number;
  maxInflightPerSession?: number;
  maxInflightTotal?: number;
  maxSessions?: number;
  sessionIdleMs?: number;
  headersTimeoutMs?: number;
  requestTimeoutMs?: number;
  socketIdleMs?: number;
}

export interface HttpServerStats {
  sessions: number;
  inflight: number;
  rejected: Record<'host' | 'origin' | 'auth' | 'size' | 'busy' | 'session' | 'method' | 'path', number>;
  sessionsClosedIdle: number;
}

/** The path MCP is served on. */
export const MCP_PATH = '/mcp';

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  server: ProtocolServer;
  inflight: number;
  lastUsed: number;
}

export class McpHttpServer {
  readonly token: string;
  private readonly http: http.Server;
  private readonly sessions = new Map<string, Session>();
  private readonly sockets = new Set<Socket>();
  private inflight = 0;
  private port = 0;
  private sweeper: NodeJS.Timeout | undefined;
  private closing = false;
  private readonly o: Required<Omit<HttpServerOptions, 'token' | 'port' | 'createServer'>>;
  private readonly counters: HttpServerStats['rejected'] = { host: 0, origin: 0, auth: 0, size: 0, busy: 0, session: 0, method: 0, path: 0 };
  private sessionsClosedIdle = 0;

  constructor(private readonly opts: HttpServerOptions) {
    this.token = opts.token ?? randomBytes(32).toString('base64url');
    this.o = {
      maxBodyBytes: opts.maxBodyBytes ?? HTTP_MAX_BODY_BYTES,
      maxInflightPerSession: opts.maxInflightPerSession ?? HTTP_MAX_INFLIGHT_PER_SESSION,
      maxInflightTotal: opts.maxInflightTotal ?? HTTP_MAX_INFLIGHT_TOTAL,
      maxSessions: opts.maxSessions ?? HTTP_MAX_SESSIONS,
      sessionIdleMs: opts.sessionIdleMs ?? HTTP_SESSION_IDLE_MS,
      headersTimeoutMs: opts.headersTimeoutMs ?? HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: opts.requestTimeoutMs ?? HTTP_REQUEST_TIMEOUT_MS,
      socketIdleMs: opts.socketIdleMs ?? HTTP_SOCKET_IDLE_MS,
    };
    // Node checks header/request timeouts on this interval (30 s by default): keep it below them.
    const checkEveryMs = Math.max(50, Math.min(1_000, Math.floor(this.o.headersTimeoutMs / 2)));
    this.http = http.createServer({ maxHeaderSize: 16 * 1024, connectionsCheckingInterval: checkEveryMs }, (req, res) => {
      this.handle(req, res).catch((e: unknown) => {
        log.error('http: request failed', { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
        if (!res.headersSent) reply(res, 500, 'internal error');
        else res.destroy();
      });
    });
    this.http.headersTimeout = this.o.headersTimeoutMs;
    this.http.requestTimeout = this.o.requestTimeoutMs;
    this.http.keepAliveTimeout = 5_000;
    this.http.maxHeadersCount = 100;
    this.http.maxConnections = HTTP_MAX_CONNECTIONS;
    this.http.setTimeout(this.o.socketIdleMs, (socket: Socket) => socket.destroy());
    this.http.on('connection', (s: Socket) => {
      this.sockets.add(s);
      s.once('close', () => this.sockets.delete(s));
    });
    // No 'clientError' listener on purpose: node then answers 400/408/431 and destroys the socket.
  }

  /** Starts listening on 127.0.0.1; resolves with the endpoint. */
  async listen(): Promise<{ port: number; url: string; token: string }> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.opts.port ?? 0, '127.0.0.1', () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    this.port = (this.http.address() as AddressInfo).port;
    this.sweeper = setInterval(() => this.closeIdleSessions(), Math.min(60_000, Math.max(50, this.o.sessionIdleMs / 2)));
    this.sweeper.unref();
    return { port: this.port, url: this.url, token: this.token };
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}${MCP_PATH}`;
  }

  stats(): HttpServerStats {
    return { sessions: this.sessions.size, inflight: this.inflight, rejected: { ...this.counters }, sessionsClosedIdle: this.sessionsClosedIdle };
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    if (this.sweeper) clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => this.closeSession(s)));
    const closed = new Promise<void>((r) => this.http.close(() => r()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  // ---- request pipeline: host/origin (403) → path (404) → auth (401) → method → size → session → concurrency ----

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (!this.hostAllowed(req.headers.host)) {
      this.counters.host++;
      return reply(res, 403, 'forbidden host');
    }
    if (req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined) {
      this.counters.origin++;
      return reply(res, 403, 'browser origins are not accepted');
    }
    const pathname = (req.url ?? '').split('?')[0];
    if (pathname !== MCP_PATH) {
      this.counters.path++;
      return reply(res, 404, 'not found');
    }
    if (!this.authorized(req.headers.authorization)) {
      this.counters.auth++;
      res.setHeader('WWW-Authenticate', 'Bearer realm="sextant"');
      return reply(res, 401, 'missing or wrong bearer token');
    }
    const method = req.method ?? '';
    if (method !== 'POST' && method !== 'GET' && method !== 'DELETE') {
      this.counters.method++;
      res.setHeader('Allow', 'GET, POST, DELETE');
      return reply(res, 405, 'method not allowed');
    }

    let body: unknown;
    if (method === 'POST') {
      const read = await readBody(req, this.o.maxBodyBytes);
      if (read.kind === 'too-large') {
        this.counters.size++;
        res.setHeader('Connection', 'close');
        reply(res, 413, `request body over ${this.o.maxBodyBytes} bytes`);
        // Stop reading the rest: the socket closes once the answer is out.
        res.once('finish', () => req.destroy());
        return;
      }
      if (read.kind === 'aborted') return;
      try {
        body = JSON.parse(read.text);
      } catch {
        return jsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
      }
    }

    const sid = header(req.headers['mcp-session-id']);
    let session: Session | undefined;
    if (sid !== undefined) {
      session = this.sessions.get(sid);
      if (!session) {
        this.counters.session++;
        return jsonRpcError(res, 404, -32001, 'Session not found: start a new session with initialize');
      }
    } else if (method === 'POST' && isInitialize(body)) {
      if (!this.makeRoom()) {
        this.counters.busy++;
        res.setHeader('Retry-After', '1');
        return jsonRpcError(res, 503, -32000, `Too many sessions (${this.o.maxSessions}), all busy`);
      }
      session = await this.openSession();
    } else {
      this.counters.session++;
      return jsonRpcError(res, 400, -32000, 'Bad Request: no mcp-session-id header (initialize first)');
    }

    // GET is the long-lived notification stream (one per session, enforced by the SDK): not counted.
    const counted = method !== 'GET';
    if (counted && (session.inflight >= this.o.maxInflightPerSession || this.inflight >= this.o.maxInflightTotal)) {
      this.counters.busy++;
      res.setHeader('Retry-After', '1');
      return jsonRpcError(res, 429, -32000, `Too many requests in flight (${this.o.maxInflightPerSession} per session)`);
    }
    session.lastUsed = Date.now();
    if (counted) {
      const s = session;
      s.inflight++;
      this.inflight++;
      let done = false;
      const release = () => {
        if (done) return;
        done = true;
        s.inflight--;
        this.inflight--;
        s.lastUsed = Date.now();
      };
      res.once('close', release);
      res.once('finish', release);
    }
    await session.transport.handleRequest(req, res, body);
  }

  private hostAllowed(host: string | undefined): boolean {
    if (host === undefined) return false;
    return host === `127.0.0.1:${this.port}` || host === `localhost:${this.port}`;
  }

  private authorized(value: string | undefined): boolean {
    if (value === undefined) return false;
    const m = /^Bearer ([A-Za-z0-9_\-.~+/]+=*)$/.exec(value);
    if (!m) return false;
    const given = Buffer.from(m[1] ?? '', 'utf8');
    const want = Buffer.from(this.token, 'utf8');
    return given.length === want.length && timingSafeEqual(given, want);
  }

  private async openSession(): Promise<Session> {
    const server = this.opts.createServer();
    const session: Session = { id: '', transport: undefined as unknown as StreamableHTTPServerTransport, server, inflight: 0, lastUsed: Date.now() };
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: true,
      maxRequestBodySize: this.o.maxBodyBytes,
      onsessioninitialized: (id) => {
        session.id = id;
        this.sessions.set(id, session);
      },
      onsessionclosed: (id) => {
        this.sessions.delete(id);
      },
    });
    session.transport = transport;
    transport.onclose = () => {
      if (session.id) this.sessions.delete(session.id);
    };
    await server.connect(transport);
    return session;
  }

  /** Ensures a free session slot, closing the least recently used idle session if needed. */
  private makeRoom(): boolean {
    if (this.sessions.size < this.o.maxSessions) return true;
    let lru: Session | undefined;
    for (const s of this.sessions.values()) if (s.inflight === 0 && (!lru || s.lastUsed < lru.lastUsed)) lru = s;
    if (!lru) return false;
    void this.closeSession(lru);
    return true;
  }

  private closeIdleSessions(): void {
    const cutoff = Date.now() - this.o.sessionIdleMs;
    for (const s of [...this.sessions.values()]) {
      if (s.inflight === 0 && s.lastUsed < cutoff) {
        this.sessionsClosedIdle++;
        void this.closeSession(s);
      }
    }
  }

  private async closeSession(s: Session): Promise<void> {
    this.sessions.delete(s.id);
    await s.transport.close().catch(() => undefined);
    await s.server.close().catch(() => undefined);
  }
}

/** Starts an MCP HTTP endpoint on 127.0.0.1. */
export async function startHttpServer(opts: HttpServerOptions): Promise<{ server: McpHttpServer; port: number; url: string; token: string }> {
  const server = new McpHttpServer(opts);
  const ep = await server.listen();
  return { server, ...ep };
}

type BodyRead = { kind: 'ok'; text: string } | { kind: 'too-large' } | { kind: 'aborted' };

/** Reads a request body up to `max` bytes; refuses a declared or observed larger body at once. */
function readBody(req: http.IncomingMessage, max: number): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > max) return Promise.resolve({ kind: 'too-large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    const finish = (r: BodyRead) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      resolve(r);
    };
    const onData = (c: Buffer) => {
      total += c.length;
      if (total > max) {
        chunks.length = 0;
        req.pause();
        finish({ kind: 'too-large' });
        return;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => finish({ kind: 'ok', text: Buffer.concat(chunks, total).toString('utf8') }));
    req.once('error', () => finish({ kind: 'aborted' }));
    req.once('close', () => finish({ kind: 'aborted' }));
  });
}

function isInitialize(body: unknown): boolean {
  if (Array.isArray(body)) return body.some((m) => isInitializeRequest(m));
  return isInitializeRequest(body);
}

function header(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function reply(res: http.ServerResponse, status: number, text: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.end(text + '\n');
}

function jsonRpcError(res: http.ServerResponse, status: number, code: number, message: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}
