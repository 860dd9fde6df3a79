/**
 * A minimal MCP server on the hardened stdio transport, for the flood and backpressure tests.
 * Run: node --expose-gc --import tsx test/unit/hardening/stdioHarness.ts
 * Tools: echo {bytes} (an answer of that size), memory (GC, then heap and transport counters),
 * stray (writes with console.log: must not reach stdout).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { StdioTransport } from '../../../server/src/mcp/transport/stdio';

const transport = new StdioTransport();
const server = new McpServer({ name: 'stdio-harness', version: '0.0.0' });

server.registerTool('echo', { description: 'answers with `bytes` characters', inputSchema: { bytes: z.number().int().min(0).max(1 << 20) } }, async ({ bytes }) => ({
  content: [{ type: 'text', text: 'x'.repeat(bytes) }],
}));

server.registerTool('memory', { description: 'GC, then memory and transport counters' }, async () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < 3; i++) gc?.();
  const m = process.memoryUsage();
  const report = { gc: gc !== undefined, heapUsed: m.heapUsed, arrayBuffers: m.arrayBuffers, external: m.external, rss: m.rss, stdoutDrainListeners: process.stdout.listenerCount('drain'), ...transport.stats() };
  return { content: [{ type: 'text', text: JSON.stringify(report) }] };
});

server.registerTool('stray', { description: 'writes to console.log and console.info' }, async () => {
  console.log('stray console.log output');
  console.info({ stray: true });
  return { content: [{ type: 'text', text: 'done' }] };
});

transport.onclose = () => process.exit(0);
void server.connect(transport);
