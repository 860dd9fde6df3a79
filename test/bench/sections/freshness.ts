/**
 * Freshness: how long after a file is saved `search_symbol` and `outline` show the change, with
 * the engine watching (the first change after watching starts included), and whether the project
 * graph was rebuilt for it (it must not be: no project file changed). The section writes one
 * source file of the target (a new class appended) and restores it; it runs on the generated
 * workspace, and on a PATH only when SEXTANT_BENCH_WRITE=1 (never on a workspace you care about).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PROJECT_GRAPH_STAMP } from '../../../server/src/index/projectsHook';
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import type { Engine } from '../../../server/src/nav/engine';
import { fmt } from '../report';
import { median } from '../stats';
import { symbolRowNames } from '../../../server/src/mcp/tools/syntax';
import type { BenchSection } from '../types';

async function tool(e: Engine, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await callTool(e, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, args, 10_000);
  return r.structuredContent;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const section: BenchSection = {
  name: 'freshness',
  order: 45,
  description: 'save → visible to search_symbol and outline (engine watching; first change included); project graph rebuilt?',
  appliesTo: (t) => t.manifest !== undefined || process.env.SEXTANT_BENCH_WRITE === '1',
  async run(ctx) {
    const engine = await ctx.engine();
    // A mid-sized C# (else TypeScript) source file.
    const rows = engine.catalog().all().filter((r) => r.fileClass === 'source' && (r.language === 'csharp' || r.language === 'typescript') && !r.binary && r.size > 2_000 && r.size < 40_000);
    const row = rows.filter((r) => r.language === 'csharp')[Math.floor(rows.length / 2)] ?? rows[Math.floor(rows.length / 2)];
    if (!row) return { metrics: [], notes: ['no source file to change'] };
    const abs = path.join(engine.root, row.path);
    const original = fs.readFileSync(abs);
    const cs = row.language === 'csharp';
    const stamp = engine.store.getMeta(PROJECT_GRAPH_STAMP);
    const n = ctx.options.quick ? 3 : 9;
    const symbolMs: number[] = [];
    const outlineMs: number[] = [];
    const table: string[][] = [['change', 'search_symbol', 'outline']];
    // search_symbol builds its in-memory table on its first call (seconds on a large index): that is
    // a cost of the first search, not of freshness, so it is paid before the first save.
    await tool(engine, 'search_symbol', { query: 'BenchFreshnessWarmUp' });
    await tool(engine, 'outline', { path: row.path });
    engine.watch();
    await sleep(300);
    try {
      for (let i = 0; i < n; i++) {
        const name = `BenchFresh${Date.now().toString(36)}N${i}`;
        const add = cs ? `\nnamespace BenchFreshness { public class ${name} { } }\n` : `\nexport class ${name} {}\n`;
        const t0 = performance.now();
        fs.writeFileSync(abs, Buffer.concat([original, Buffer.from(add)]));
        let sym = 0;
        let out = 0;
        while ((!sym || !out) && performance.now() - t0 < 10_000) {
          await sleep(5);
          if (!sym && (await tool(engine, 'search_symbol', { query: name })).items?.some((x: { symbolId: string; path: string }) => symbolRowNames(x).name === name)) sym = performance.now() - t0;
          if (!out && JSON.stringify(await tool(engine, 'outline', { path: row.path, maxBytes: 65536 })).includes(name)) out = performance.now() - t0;
        }
        symbolMs.push(sym || Infinity);
        outlineMs.push(out || Infinity);
        table.push([i === 0 ? 'first after watch start' : String(i + 1), fmt(sym || undefined, 'ms'), fmt(out || undefined, 'ms')]);
        await sleep(400);
      }
    } finally {
      fs.writeFileSync(abs, original);
      await sleep(1_000);
    }
    const both = symbolMs.map((s, i) => Math.max(s, outlineMs[i]!));
    return {
      metrics: [
        { name: 'save → visible to search_symbol and outline, median', value: median(both), unit: 'ms', target: { op: '<=', value: 250 }, detail: `${n} saves of ${row.path}` },
        { name: 'save → visible, worst', value: Math.max(...both), unit: 'ms', target: { op: '<=', value: 500 } },
        { name: 'first change after watching starts', value: both[0], unit: 'ms', target: { op: '<=', value: 500 } },
        { name: 'search_symbol median', value: median(symbolMs), unit: 'ms' },
        { name: 'outline median', value: median(outlineMs), unit: 'ms' },
        { name: 'project graph rebuilt (0 = no)', value: engine.store.getMeta(PROJECT_GRAPH_STAMP) === stamp ? 0 : 1, unit: 'count', target: { op: '<=', value: 0 } },
      ],
      table,
    };
  },
};
