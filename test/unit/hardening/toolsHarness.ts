/**
 * Runs every tool in process (the same callTool the MCP server uses) on a hostile workspace and
 * prints one JSON summary line. A child process, so that a tool that blocks the event loop makes
 * the calling test fail on its timeout (naming the call) instead of hanging it.
 *   node --import tsx toolsHarness.ts hostile
 *   node --import tsx toolsHarness.ts fuzz <runs> <seed>
 * Before each call the harness writes `CALL <tool> <args>` to stderr.
 */
import fc from 'fast-check';
import { z } from 'zod';
import { DEFAULT_RESPONSE_BYTES } from '../../../server/src/core/limits';
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import { Engine } from '../../../server/src/nav/engine';
import { semanticService } from '../../../server/src/nav/semanticService';
import { hostileWorkspace, OUTSIDE_MARKER } from './hostileWorkspace';
import { argsArb, type JsonSchema } from './schemaArbitrary';

export const HARNESS_DEADLINE_MS = 3_000;

export interface ToolsReport {
  calls: number;
  tools: number;
  perTool: Record<string, { calls: number; errors: number; maxMs: number }>;
  internal: string[];
  overBudget: string[];
  slow: Array<{ tool: string; ms: number; args: string }>;
  leaks: string[];
  maxMs: number;
}

const HOSTILE: Array<[string, unknown]> = [
  ['source_context', { spans: [{ path: 'linkout/secret.txt', line: 1 }] }],
  ['source_context', { spans: [{ path: 'dangling', line: 1 }] }],
  ['source_context', { spans: [{ path: 'pipe.cs', line: 1 }] }],
  ['source_context', { spans: [{ path: 'huge.cs', line: 1 }] }],
  ['source_context', { spans: [{ path: 'web/src/longline.ts', line: 1, endLine: 1 }], maxBytes: 512 }],
  ['outline', { path: 'src/Evil/Nested.cs' }],
  ['outline', { path: 'web/src/nested.ts' }],
  ['outline', { path: 'src/Evil/Many.cs', limit: 200, maxBytes: 65536 }],
  ['outline', { path: 'linkout/secret.txt' }],
  ['search_symbol', { query: '(a+)+\\1$', match: 'regex' }],
  ['search_symbol', { query: '(a+)+$', match: 'regex' }],
  ['search_symbol', { query: '^(a|aa)+$', match: 'regex' }],
  ['search_text', { query: '(a+)+\\1$', mode: 'regex' }],
  ['search_text', { query: 'xyzzy_outside_only' }],
  ['search_text', { query: 'outside_only', mode: 'regex' }],
  ['search_text', { query: 'x', pathGlob: '{a,b,{c,d,{e,f,{g,h}}}}/**/*' }],
  ['search_structural', { query: '((identifier) @x (#match? @x "(a+)+$"))', language: 'csharp' }],
  ['search_structural', { query: '((identifier) @x (#match? @x "(a+)+\\\\1$"))', language: 'csharp' }],
  ['search_structural', { query: '(identifier) @x', language: 'csharp', pathRegex: '(a+)+\\1$' }],
  ['search_structural', { query: '(_) @any', language: 'csharp', limit: 200 }],
  ['symbol_at', { path: 'src/Evil/Nested.cs', line: 2, column: 1500 }],
  ['inspect_syntax_tree', { path: 'src/Evil/Nested.cs', line: 2, column: 2000, maxAncestors: 50, maxChildren: 50 }],
  ['references', { target: { qualifiedName: 'a'.repeat(40) } }],
  ['callers', { target: { path: 'src/Evil/Many.cs', line: 3 }, depth: 3 }],
  ['type_hierarchy', { target: { qualifiedName: 'Evil.Nested' }, depth: 5 }],
  ['find_file', { query: '**/**/**/**/**/**/*' }],
  ['projects_containing', { path: '../outside/secret.txt' }],
  ['config_lookup', { key: 'a\u0000b' }],
  ['search_text', { query: 'a\u0000b', mode: 'regex' }],
  ['search_text', { query: 'x', pathGlob: 'src/\u0000/**' }],
];

async function main(): Promise<void> {
  const [mode = 'hostile', runsArg = '10000', seedArg = '20261130'] = process.argv.slice(2);
  const hw = hostileWorkspace();
  const engine = await Engine.open({ workspaceRoot: hw.root, indexRoot: '' });
  semanticService(engine, { noLsp: true });
  await engine.refresh();
  const report: ToolsReport = { calls: 0, tools: 0, perTool: {}, internal: [], overBudget: [], slow: [], leaks: [], maxMs: 0 };

  const run = async (name: string, args: unknown): Promise<void> => {
    const tool = ALL_TOOLS.find((t) => t.name === name);
    const wire: unknown = JSON.parse(JSON.stringify(args ?? null) ?? 'null'); // arguments arrive as JSON
    const shown = JSON.stringify(wire)?.slice(0, 300) ?? 'undefined';
    process.stderr.write(`CALL ${name} ${shown}\n`);
    const t0 = Date.now();
    const r = await callTool(engine, ALL_TOOLS, tool, name, wire, HARNESS_DEADLINE_MS);
    const ms = Date.now() - t0;
    const text = r.content[0]?.type === 'text' ? r.content[0].text : '';
    // The budget the server applies: maxBytes, or where the tool keeps it (context_pack: budget.maxBytes).
    const requested = (wire as { maxBytes?: unknown } | null)?.maxBytes ?? (wire && typeof wire === 'object' ? tool?.maxBytesOf?.(wire as never) : undefined);
    const budget = typeof requested === 'number' && Number.isInteger(requested) && requested >= 512 && requested <= 65536 ? requested : DEFAULT_RESPONSE_BYTES;
    const bytes = Math.max(Buffer.byteLength(text), r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : 0);
    const s = (report.perTool[name] ??= { calls: 0, errors: 0, maxMs: 0 });
    s.calls++;
    if (r.isError) s.errors++;
    s.maxMs = Math.max(s.maxMs, ms);
    report.calls++;
    report.maxMs = Math.max(report.maxMs, ms);
    if (/^Error \[INTERNAL\]/.test(text)) report.internal.push(`${name} ${shown} → ${text.slice(0, 200)}`);
    if (bytes > budget) report.overBudget.push(`${name}: ${bytes} > ${budget} for ${shown}`);
    if (ms > HARNESS_DEADLINE_MS) report.slow.push({ tool: name, ms, args: shown });
    if (text.includes(OUTSIDE_MARKER) || JSON.stringify(r.structuredContent ?? '').includes(OUTSIDE_MARKER)) report.leaks.push(`${name} ${shown}`);
  };

  if (mode === 'hostile') {
    for (const [name, args] of HOSTILE) await run(name, args);
  } else {
    const arb = fc.oneof(...ALL_TOOLS.map((t) => argsArb(z.toJSONSchema(t.input, { io: 'input' }) as JsonSchema).map((args) => ({ name: t.name, args }))));
    await fc.assert(
      fc.asyncProperty(arb, async ({ name, args }) => {
        await run(name, args);
        return true;
      }),
      { numRuns: Number(runsArg), seed: Number(seedArg) },
    );
  }
  report.tools = Object.keys(report.perTool).length;
  await engine.close();
  hw.dispose();
  process.stdout.write(JSON.stringify(report) + '\n');
  process.exit(0);
}

void main().catch((e: unknown) => {
  process.stderr.write(`HARNESS FAILED ${(e as Error).stack ?? String(e)}\n`);
  process.exit(1);
});
