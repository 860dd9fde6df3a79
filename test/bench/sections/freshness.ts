/**
 * Freshness: how long after a file is saved `search_symbol` and `outline` show the change, with
 * the engine watching (the first change after watching starts included), and whether the project
 * graph was rebuilt for it (it must not be: no project file changed). The section writes one
 * source file of the target (a new class appended) and restores it; it runs on the generated
 * workspace, and on a PATH only when SEXTANT_BENCH_WRITE=1 (never on a workspace you care about).
 *
 * Engine start with each watcher, in the same run: child processes (engineStartProbe.ts) open the
 * warm index, refresh, start watching with Node's recursive fs.watch (the old watcher) or the native
 * one, alternately, and send a question as watching starts; each reports the longest event-loop
 * block from the watch() call (a 5 ms interval probe) and engine start → that answer.
 */
import { spawnSync } from 'node:child_process';
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

interface StartProbe {
  backend: string;
  changedAtStart: number;
  watchCallMs: number;
  watchBlockMs: number;
  startBlockMs: number;
  answerAfterWatchMs: number;
  startToAnswerMs: number;
  watchReadyMs: number;
  rssMiB: number;
  topBlocks: [number, number][];
}

/** One engine start in a child process (see engineStartProbe.ts). */
function probeStart(root: string, indexRoot: string, backend: 'native' | 'fs.watch', file: string): StartProbe | string {
  const script = path.resolve(__dirname, '../engineStartProbe.ts');
  const r = spawnSync(process.execPath, ['--import', require.resolve('tsx'), script, root, indexRoot, backend, file], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' }, timeout: 300_000 });
  const line = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !line.startsWith('{')) return `exit ${r.status}: ${(r.stderr ?? '').slice(-400)}`;
  return JSON.parse(line) as StartProbe;
}

export const section: BenchSection = {
  name: 'freshness',
  order: 45,
  description: 'save → visible to search_symbol and outline (engine watching; first change included); project graph rebuilt?; engine start with the old fs.watch vs the native watcher',
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
    // Engine start, old watcher vs native, alternately (before this engine watches: one watcher at a time).
    const starts: Record<'fs.watch' | 'native', StartProbe[]> = { 'fs.watch': [], native: [] };
    const startNotes: string[] = [];
    for (let i = 0; i < (ctx.options.quick ? 1 : 3); i++) {
      for (const b of ['fs.watch', 'native'] as const) {
        ctx.progress(`engine start with ${b} ${i + 1}…`);
        const p = probeStart(engine.root, ctx.indexRoot, b, row.path);
        if (typeof p === 'string') startNotes.push(`${b} start ${i + 1}: ${p}`);
        else if (p.backend !== b) startNotes.push(`${b} start ${i + 1} ran ${p.backend}`);
        else {
          if (p.changedAtStart > 0) startNotes.push(`${b} start ${i + 1}: ${p.changedAtStart} files changed at start (index not warm)`);
          starts[b].push(p);
        }
      }
    }
    const med = (b: 'fs.watch' | 'native', k: keyof StartProbe) => median(starts[b].map((x) => Number(x[k])));
    const each = (b: 'fs.watch' | 'native', k: keyof StartProbe) => starts[b].map((x) => x[k]).join(', ');
    engine.watch();
    // The native watcher covers the tree off the event loop (seconds on a large tree; the start
    // figures above say how long); saves are measured once it does.
    await engine.watchReady();
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
        { name: 'watch() call itself (synchronous), native watcher', value: med('native', 'watchCallMs'), unit: 'ms', detail: `${each('native', 'watchCallMs')} ms` },
        { name: 'watch() call itself (synchronous), old fs.watch (same run)', value: med('fs.watch', 'watchCallMs'), unit: 'ms', detail: `${each('fs.watch', 'watchCallMs')} ms` },
        { name: 'engine start: longest event-loop block from watch(), native watcher', value: med('native', 'watchBlockMs'), unit: 'ms', detail: `median of ${starts.native.length}: ${each('native', 'watchBlockMs')} ms (watch() call ${each('native', 'watchCallMs')} ms; grammar warm-up included)` },
        { name: 'engine start: longest event-loop block from watch(), old fs.watch (same run)', value: med('fs.watch', 'watchBlockMs'), unit: 'ms', detail: `median of ${starts['fs.watch'].length}: ${each('fs.watch', 'watchBlockMs')} ms (watch() call ${each('fs.watch', 'watchCallMs')} ms)` },
        { name: 'engine start → first answer served, native watcher', value: med('native', 'startToAnswerMs'), unit: 'ms', detail: `open + refresh + watch + outline sent with watch(): ${each('native', 'startToAnswerMs')} ms; the answer ${each('native', 'answerAfterWatchMs')} ms after watch()` },
        { name: 'engine start → first answer served, old fs.watch (same run)', value: med('fs.watch', 'startToAnswerMs'), unit: 'ms', detail: `${each('fs.watch', 'startToAnswerMs')} ms; the answer ${each('fs.watch', 'answerAfterWatchMs')} ms after watch()` },
        { name: 'native watcher covers the tree (off the event loop)', value: med('native', 'watchReadyMs'), unit: 'ms', detail: `${each('native', 'watchReadyMs')} ms; RSS ${each('native', 'rssMiB')} MiB vs fs.watch ${each('fs.watch', 'rssMiB')} MiB` },
        { name: 'engine start: longest block over the whole start (open + refresh + watch), native', value: med('native', 'startBlockMs'), unit: 'ms', detail: `fs.watch: ${each('fs.watch', 'startBlockMs')} ms; native: ${each('native', 'startBlockMs')} ms (the refresh's walk is in both)` },
      ],
      notes: [
        ...startNotes,
        'longest blocks after watch() ([ms after watch(), length] over 100 ms; the first question is sent with watch(), so its own cost is among them):',
        ...(['fs.watch', 'native'] as const).map((b) => `  ${b}: ${starts[b].map((x) => JSON.stringify(x.topBlocks)).join(' ')}`),
      ],
      table,
    };
  },
};
