/**
 * Entry points used by the CLI that need the MCP SDK: run one tool in-process (`sextant query`)
 * and serve over stdio (`sextant mcp`). The CLI itself only parses arguments.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Engine } from '../nav/engine';
import { TOOL_DEADLINE_MS } from '../core/limits';
import { buildServer, callTool } from './server';
import { ALL_TOOLS } from './tools';

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
  const transport = new StdioServerTransport();
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
