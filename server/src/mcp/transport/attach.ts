/**
 * `sextant mcp` when another engine already serves the same index root: a stdio ↔ HTTP proxy.
 * The agent speaks MCP over our stdin/stdout (through the hardened StdioTransport); every message
 * is forwarded to the running engine's Streamable HTTP endpoint and every answer comes back. The
 * engine is the only writer of the index; this process holds no index while it proxies.
 *
 * Invariants:
 * - at most HTTP_MAX_INFLIGHT_PER_SESSION requests are forwarded at once (the engine answers 429
 *   beyond it);
 * - when the engine goes away (its own client quit), the proxy fails over: `reclaim` either finds
 *   the new engine or makes this process the engine, the agent's recorded `initialize` is replayed
 *   to it, and the request that failed is sent again. The agent sees no interruption;
 * - a request that cannot be delivered gets a JSON-RPC error with the reason, never silence.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import { HTTP_MAX_INFLIGHT_PER_SESSION } from '../../core/limits';
import { log } from '../../core/log';
import { StdioTransport } from './stdio';

export interface AttachTarget {
  url: string;
  token: string;
  pid?: number;
}

export interface ProxyOptions {
  input?: Readable;
  output?: Writable;
  /**
   * Called when the engine is gone: returns the endpoint to use from now on (a new engine found,
   * or this process made the engine). Without it, the proxy closes when the engine goes away.
   */
  reclaim?: () => Promise<AttachTarget>;
}

/** Proxies stdio to a running engine until stdin closes. */
export async function runStdioProxy(first: AttachTarget, opts: ProxyOptions = {}): Promise<void> {
  const down = new StdioTransport({ ...(opts.input ? { input: opts.input } : {}), ...(opts.output ? { output: opts.output } : {}), maxInflightRequests: HTTP_MAX_INFLIGHT_PER_SESSION });
  let finished: () => void = () => undefined;
  const done = new Promise<void>((r) => (finished = r));
  let closing = false;
  let target = first;
  let up: StreamableHTTPClientTransport;
  let initRequest: JSONRPCRequest | undefined;
  let initialized = false;
  let failover: Promise<void> | undefined;
  let replays = 0;
  const replayWaiters = new Map<string, () => void>();

  const connect = async (t: AttachTarget): Promise<void> => {
    const transport = new StreamableHTTPClientTransport(new URL(t.url), { requestInit: { headers: { Authorization: `Bearer ${t.token}` } } });
    transport.onmessage = (m) => {
      const id = 'id' in m ? m.id : undefined;
      if (typeof id === 'string' && replayWaiters.has(id)) {
        replayWaiters.get(id)?.();
        replayWaiters.delete(id);
        return;
      }
      down.send(m).catch(() => undefined);
    };
    transport.onerror = (e) => log.debug('attach: upstream error', { error: e.message });
    await transport.start();
    up = transport;
    target = t;
  };

  const shutdown = async (why: string) => {
    if (closing) return;
    closing = true;
    log.info('attach: closing', { why });
    await up?.terminateSession().catch(() => undefined);
    await up?.close().catch(() => undefined);
    await down.close().catch(() => undefined);
    finished();
  };

  /** Finds or becomes the new engine and replays the session handshake to it. */
  const failOver = (): Promise<void> => {
    failover ??= (async () => {
      const old = up;
      await old.close().catch(() => undefined);
      if (!opts.reclaim) throw new Error('the engine is gone');
      const next = await opts.reclaim();
      log.warn('attach: the engine went away; continuing with another', { from: target.pid, to: next.pid, url: next.url });
      await connect(next);
      if (initRequest) {
        const id = `sextant-replay-${++replays}`;
        const answered = new Promise<void>((r) => replayWaiters.set(id, r));
        await up.send({ ...initRequest, id });
        await answered;
        if (initialized) await up.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
    })().finally(() => {
      failover = undefined;
    });
    return failover;
  };

  const forward = async (m: JSONRPCMessage): Promise<void> => {
    if ('method' in m && m.method === 'initialize' && 'id' in m) initRequest = m as JSONRPCRequest;
    if ('method' in m && m.method === 'notifications/initialized') initialized = true;
    if (failover) await failover.catch(() => undefined);
    for (let attempt = 0; ; attempt++) {
      try {
        await up.send(m);
        return;
      } catch (e) {
        const err = e as Error & { code?: number; cause?: { code?: string } };
        const gone = err.cause?.code === 'ECONNREFUSED' || err.cause?.code === 'ECONNRESET' || /ECONNREFUSED|fetch failed|Session not found/.test(err.message) || err.code === 404;
        if (gone && attempt === 0 && !closing) {
          try {
            await failOver();
            continue;
          } catch (fe) {
            err.message = `${err.message}; no engine to fail over to: ${(fe as Error).message}`;
          }
        }
        if ('method' in m && 'id' in m && m.id !== undefined) {
          const message = `The shared Sextant engine${target.pid ? ` (pid ${target.pid})` : ''} did not take the request: ${err.message}`;
          down.send({ jsonrpc: '2.0', id: m.id, error: { code: -32603, message } }).catch(() => undefined);
        }
        if (gone && !opts.reclaim) void shutdown('the engine is gone');
        return;
      }
    }
  };

  await connect(first);
  down.onclose = () => void shutdown('stdin closed');
  down.onmessage = (m: JSONRPCMessage) => void forward(m);
  await down.start();
  log.info('attached to the running engine', { url: first.url, pid: first.pid });
  await done;
}
