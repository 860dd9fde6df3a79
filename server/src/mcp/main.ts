/**
 * Entry points used by the CLI that need the MCP SDK: run one tool in-process (`sextant query`)
 * and serve over stdio (`sextant mcp`). The CLI itself only parses arguments.
 *
 * One engine per index root: `claimEngineFor` takes the engine lock or finds the running engine;
 * `runMcp` then either is the engine (stdio + the shared HTTP endpoint in server.json) or proxies
 * stdio to the running one.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolError } from '../core/errors';
import type { EngineLock, ServerInfo } from '../core/lock';
import { log } from '../core/log';
import { Engine, indexRootFor, type EngineOptions } from '../nav/engine';
import { semanticService } from '../nav/semanticService';
import { TOOL_DEADLINE_MS } from '../core/limits';
import { buildServer, callTool, SERVER_VERSION } from './server';
import { ALL_TOOLS } from './tools';
import { runStdioProxy } from './transport/attach';
import { claimEngine, startSharedEndpoint, type EngineClaim, type SharedEndpoint } from './transport/sharedEndpoint';
import { StdioTransport } from './transport/stdio';

/** Runs one tool and returns its structured content, or the rendered error. */
export async function runToolOnce(engine: Engine, name: string, args: unknown): Promise<{ ok: true; structured: unknown; text: string } | { ok: false; error: string }> {
  const tool = ALL_TOOLS.find((t) => t.name === name);
  const r = await callTool(engine, ALL_TOOLS, tool, name, args, TOOL_DEADLINE_MS);
  const text = r.content[0]?.type === 'text' ? r.content[0].text : '';
  if (r.isError) return { ok: false, error: text };
  return { ok: true, structured: r.structuredContent, text };
}

/** Serves MCP over stdin/stdout until stdin closes. */
export async function serveStdio(engine: Engine): Promise<void> {
  const server = buildServer(engine);
  const transport = new StdioTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.on('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => undefined);
}

export function toolNames(): string[] {
  return ALL_TOOLS.map((t) => t.name);
}

/** The engine role for these options; an in-memory engine (indexRoot '') needs no lock. */
export async function claimEngineFor(opts: EngineOptions, waitMs?: number): Promise<EngineClaim | { kind: 'owner'; lock: undefined }> {
  const indexRoot = indexRootFor(opts);
  if (indexRoot === '') return { kind: 'owner', lock: undefined };
  return claimEngine(indexRoot, waitMs);
}

/** The error for an index root whose engine holds the lock but publishes no endpoint. */
export function busyError(claim: Extract<EngineClaim, { kind: 'busy' }>, indexRoot: string): ToolError {
  return new ToolError(
    'INDEX_UNAVAILABLE',
    `Another Sextant engine (pid ${claim.owner.pid}) owns the index at ${indexRoot} but publishes no endpoint`,
    'wait until it has started, stop it, or pass a different --index-root',
  );
}

/**
 * `sextant mcp`: the engine on stdio plus the shared HTTP endpoint, or — when an engine already
 * serves this index root — a stdio proxy to it. When that engine goes away (its own client quit),
 * the proxy fails over: to whichever engine took over, or this process becomes the engine.
 */
export async function runMcp(opts: EngineOptions): Promise<void> {
  const claim = await claimEngineFor(opts);
  if (claim.kind === 'busy') throw busyError(claim, indexRootFor(opts));
  if (claim.kind === 'attach') {
    let own: { engine: Engine; shared: SharedEndpoint } | undefined;
    try {
      await runStdioProxy(
        { url: claim.server.url, token: claim.server.token, pid: claim.server.pid },
        {
          reclaim: async () => {
            const next = await claimEngineFor(opts);
            if (next.kind === 'attach') return { url: next.server.url, token: next.server.token, pid: next.server.pid };
            if (next.kind === 'busy') throw busyError(next, indexRootFor(opts));
            if (!next.lock) throw new Error('an in-memory engine cannot be shared');
            own = await startEngine(opts, next.lock);
            return { url: own.shared.url, token: own.shared.token, pid: process.pid };
          },
        },
      );
    } finally {
      await own?.shared.close();
      await own?.engine.close();
    }
    return;
  }
  let engine: Engine | undefined;
  let shared: SharedEndpoint | undefined;
  try {
    if (claim.lock) {
      ({ engine, shared } = await startEngine(opts, claim.lock));
    } else {
      engine = await Engine.open(opts);
      startRefresh(engine);
    }
    await serveStdio(engine);
  } finally {
    if (shared) await shared.close();
    else claim.lock?.release();
    await engine?.close();
  }
}

/** Opens the engine under its lock, publishes the shared endpoint, and starts refreshing. */
async function startEngine(opts: EngineOptions, lock: EngineLock): Promise<{ engine: Engine; shared: SharedEndpoint }> {
  if (lock.recoveredFrom) log.warn('took over a stale engine lock', { ...lock.recoveredFrom });
  let engine: Engine | undefined;
  try {
    const e = await Engine.open(opts);
    engine = e;
    const shared = await startSharedEndpoint(lock, () => buildServer(e), { workspaceRoot: e.root, version: SERVER_VERSION });
    startRefresh(e);
    return { engine: e, shared };
  } catch (err) {
    lock.release();
    await engine?.close();
    throw err;
  }
}

/** Serve at once from the stored index; refresh in the background (answers say `building`/`stale`). */
function startRefresh(e: Engine): void {
  // Created now, not on the first question: it starts the C# host in the background once the
  // project model exists (nav/semanticService.ts), so the first C# answer can already be precise.
  semanticService(e);
  void e.refresh().then(
    () => e.watch(),
    (err) => log.error('initial refresh failed', { error: (err as Error).message }),
  );
}

/** Runs one tool on the engine that already serves this index (`sextant query` while it runs). */
export async function runToolRemote(server: ServerInfo, name: string, args: unknown): Promise<{ ok: true; structured: unknown; text: string } | { ok: false; error: string }> {
  const client = new Client({ name: 'sextant-query', version: SERVER_VERSION });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${server.token}` } } });
  await client.connect(transport);
  try {
    const r = await client.callTool({ name, arguments: (args ?? {}) as Record<string, unknown> });
    const first = (r.content as Array<{ type: string; text?: string }> | undefined)?.[0];
    const text = first?.type === 'text' ? (first.text ?? '') : '';
    if (r.isError) return { ok: false, error: text };
    return { ok: true, structured: r.structuredContent, text };
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close().catch(() => undefined);
  }
}
