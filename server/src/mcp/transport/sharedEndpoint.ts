/**
 * One engine per index root, many clients: claim the engine role (or learn whom to attach to), and
 * publish the owner's MCP HTTP endpoint in `<index-root>/server.json`.
 *
 * Used by `sextant mcp` / `sextant serve` (cli.ts via mcp/main.ts) and the VS Code engine host.
 */
import * as path from 'node:path';
import { acquireEngineLock, readServerInfo, SERVER_INFO_FILE, type EngineLock, type LockOwner, type ServerInfo } from '../../core/lock';
import { ENGINE_ATTACH_WAIT_MS } from '../../core/limits';
import { McpHttpServer, type HttpServerOptions, type ProtocolServer } from './http';

export type EngineClaim =
  /** This process is the engine: it owns the index and must publish an endpoint. */
  | { kind: 'owner'; lock: EngineLock }
  /** Another engine runs and has published its endpoint: attach to it. */
  | { kind: 'attach'; server: ServerInfo }
  /** Another engine holds the lock but published no endpoint within the wait. */
  | { kind: 'busy'; owner: LockOwner };

/** Takes the engine role for an index root, or finds the running engine's endpoint. */
export async function claimEngine(indexRoot: string, waitMs: number = ENGINE_ATTACH_WAIT_MS): Promise<EngineClaim> {
  const until = Date.now() + waitMs;
  for (;;) {
    const r = acquireEngineLock(indexRoot);
    if (r.kind === 'acquired') return { kind: 'owner', lock: r.lock };
    if (r.server) return { kind: 'attach', server: r.server };
    if (Date.now() >= until) return { kind: 'busy', owner: r.owner };
    await new Promise((res) => setTimeout(res, 100)); // the engine is starting: its endpoint comes soon
  }
}

export interface SharedEndpoint {
  http: McpHttpServer;
  url: string;
  token: string;
  port: number;
  pid: number;
  /** `<index-root>/server.json` */
  serverJson: string;
  /** Stops the endpoint and releases the lock (removing server.json). */
  close(): Promise<void>;
}

/** Starts the owner's HTTP endpoint and publishes it (0600 server.json) under the lock. */
export async function startSharedEndpoint(
  lock: EngineLock,
  createServer: () => ProtocolServer,
  opts: Omit<HttpServerOptions, 'createServer'> & { workspaceRoot?: string; version?: string } = {},
): Promise<SharedEndpoint> {
  const { workspaceRoot, version, ...httpOpts } = opts;
  const http = new McpHttpServer({ ...httpOpts, createServer });
  const { port, url, token } = await http.listen();
  lock.publish({ port, url, token, startedAt: new Date().toISOString(), ...(workspaceRoot ? { workspaceRoot } : {}), ...(version ? { version } : {}) });
  return {
    http,
    url,
    token,
    port,
    pid: process.pid,
    serverJson: path.join(lock.indexRoot, SERVER_INFO_FILE),
    async close() {
      await http.close();
      lock.release();
    },
  };
}

export { readServerInfo };
