/**
 * What the model receives: tools/list and instruction bytes (every tool's definition, the budget
 * constants of core/limits.ts), and `outline` of the largest C# files of the target through the
 * real tool layer over the warm index — bytes of the whole declaration map, calls to get it, and
 * how many times fewer bytes than reading the file. Counts, not timings: a busy machine does not
 * change them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INSTRUCTIONS_MAX_CHARS, TOOL_DEFINITIONS_MAX_BYTES, TOOLS_LIST_MAX_BYTES } from '../../../server/src/core/limits';
import { SERVER_INSTRUCTIONS } from '../../../server/src/mcp/instructions';
import { callTool, toolListing } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import type { BenchSection, Metric } from '../types';

const bytes = (v: unknown) => Buffer.byteLength(typeof v === 'string' ? v : JSON.stringify(v), 'utf8');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : undefined;
};

export const section: BenchSection = {
  name: 'answers',
  order: 60,
  description: 'tools/list and instruction bytes; outline of the largest C# files: bytes and calls for the whole declaration map, against the file',
  async run(ctx) {
    const listing = toolListing(ALL_TOOLS);
    const whole = bytes({ tools: listing });
    const defs = listing.reduce((n, t) => n + bytes({ name: t.name, description: t.description, inputSchema: t.inputSchema }), 0);
    const output = listing.reduce((n, t) => n + bytes(t.outputSchema), 0);
    const metrics: Metric[] = [
      { name: 'tools/list bytes', value: whole, unit: 'count', target: { op: '<=', value: TOOLS_LIST_MAX_BYTES }, detail: `${listing.length} tools; output schemas ${output} bytes (was 118,592 / 81,043 before issue 17)` },
      { name: 'tool definitions (name+description+inputSchema) bytes', value: defs, unit: 'count', target: { op: '<=', value: TOOL_DEFINITIONS_MAX_BYTES }, detail: 'was 33,704' },
      { name: 'instructions chars', value: SERVER_INSTRUCTIONS.length, unit: 'count', target: { op: '<=', value: INSTRUCTIONS_MAX_CHARS } },
    ];
    const engine = await ctx.engine();
    const files = engine
      .catalog()
      .all()
      .filter((r) => r.language === 'csharp' && r.fileClass === 'source')
      .sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1))
      .slice(0, ctx.options.quick ? 5 : 20);
    const rows: string[][] = [['file', 'lines', 'file bytes', 'declarations', 'form', 'calls', 'outline bytes', 'ratio']];
    // The targets are for large files (issue 17: a 3,000-line file); smaller ones are listed in the table.
    const LARGE_LINES = 2_500;
    const ratios: number[] = [];
    const calls: number[] = [];
    const answerBytes: number[] = [];
    const allCalls: number[] = [];
    const tool = ALL_TOOLS.find((t) => t.name === 'outline')!;
    for (const f of files) {
      let cursor: string | undefined;
      let n = 0;
      let b = 0;
      let first: any;
      do {
        const r: any = await callTool(engine, ALL_TOOLS, tool, 'outline', { path: f.path, ...(cursor ? { cursor } : {}) }, 20_000);
        if (r.isError) break;
        n++;
        b += bytes(r.structuredContent);
        first ??= r.structuredContent;
        cursor = r.structuredContent.nextCursor;
      } while (cursor);
      if (!first) continue;
      const size = fs.statSync(path.join(ctx.target.root, f.path)).size;
      const decls = Number(/: (\d+) declarations?/.exec(first.summary)?.[1] ?? 0);
      allCalls.push(n);
      if (first.file.lines >= LARGE_LINES) {
        ratios.push(size / b);
        calls.push(n);
        answerBytes.push(b);
      }
      rows.push([f.path, String(first.file.lines), String(size), String(decls), first.form, String(n), String(b), (size / b).toFixed(1)]);
    }
    if (ratios.length) {
      metrics.push(
        { name: `outline of C# files ≥ ${LARGE_LINES} lines (${ratios.length}): calls (max)`, value: Math.max(...calls), unit: 'count', target: { op: '<=', value: 1 }, detail: `all ${allCalls.length} files in the table: max ${Math.max(...allCalls)}, median ${median(allCalls)}` },
        { name: 'outline: bytes of the whole map (max)', value: Math.max(...answerBytes), unit: 'count', target: { op: '<=', value: 8192 }, detail: `median ${median(answerBytes)}` },
        { name: 'outline: times fewer bytes than the file (min)', value: Number(Math.min(...ratios).toFixed(1)), unit: 'x', target: { op: '>=', value: 20 }, detail: `median ${median(ratios)?.toFixed(1)}×` },
      );
    }
    return { metrics, table: rows, data: { whole, defs, output, outline: rows } };
  },
};
