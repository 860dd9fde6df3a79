/**
 * search_symbol latency per match mode over at least 1 M symbols (engine API, warm): the workspace's
 * symbol rows are copied until the table holds a million (copies removed afterwards), the query set
 * of test/bench/syntax/symbolSearch.ts (short and long queries, hits and misses, common prefixes,
 * camelCase initials, typos) runs in one pass, and ranking quality is the share of queries whose
 * source name is the first hit. Also: the one-time table build and the memory it holds.
 */
import * as os from 'node:os';
import { buildQueries, removeReplicas, replicateSymbols, runSymbolBench } from '../syntax/symbolSearch';
import type { BenchSection, Metric } from '../types';

const TARGET_SYMBOLS = 1_000_000;
/** The targets: exact/prefix p95 ≤ 10 ms, camelCase/fuzzy p95 ≤ 50 ms (qualified is an exact lookup; the other loose modes are held to the camelCase/fuzzy bound). */
const TARGET_MS: Record<string, number> = { exact: 10, prefix: 10, qualified: 10, auto: 50, camelCase: 50, fuzzy: 50, substring: 50, regex: 50 };

export const section: BenchSection = {
  name: 'symbols',
  order: 45,
  description: 'search_symbol per match mode over ≥ 1 M symbols (engine API, warm, limit 20, min of 3 runs per query)',
  async run(ctx) {
    const engine = await ctx.engine();
    const own = Number(engine.store.rows('SELECT count(*) FROM symbol_rows')[0]?.[0] ?? 0);
    if (own === 0) return { metrics: [], notes: ['no symbols in this workspace'] };
    const copies = Math.min(8, Math.max(0, Math.ceil(TARGET_SYMBOLS / own) - 1));
    ctx.progress(`copying ${own.toLocaleString('en-US')} symbol rows ×${copies}…`);
    const maxId = copies > 0 ? replicateSymbols(engine, copies) : -1;
    try {
      const queries = buildQueries(engine, 7, ctx.options.quick ? 4 : 12);
      ctx.progress(`search_symbol: ${queries.length} queries…`);
      const r = runSymbolBench(engine, queries, ctx.options.quick ? 1 : 3);
      const metrics: Metric[] = [];
      const table = [['mode', 'queries', 'p50', 'p95', 'CPU p95', 'first hit = source name', 'in top 10', 'lower-bound totals', 'slowest']];
      for (const [mode, m] of Object.entries(r.modes)) {
        metrics.push({ name: `search_symbol ${mode} p95`, value: m.wallP95, unit: 'ms', target: { op: '<=', value: TARGET_MS[mode] ?? 50 }, detail: `CPU p95 ${m.cpuP95} ms, p50 ${m.wallP50} ms` });
        table.push([mode, String(m.queries), `${m.wallP50} ms`, `${m.wallP95} ms`, `${m.cpuP95} ms`, m.top1 === undefined ? '—' : `${(m.top1 * 100).toFixed(0)}%`, m.top10 === undefined ? '—' : `${(m.top10 * 100).toFixed(0)}%`, String(m.lowerBounds), m.slowest]);
      }
      metrics.push({ name: 'symbol table build (first search)', value: r.build.ms / 1000, unit: 's', detail: `CPU ${(r.build.cpuMs / 1000).toFixed(2)} s, ${r.build.rows.toLocaleString('en-US')} rows` });
      metrics.push({ name: 'symbol table memory', value: r.build.tableMiB, unit: 'MiB', detail: `RSS ${r.build.rssBeforeMiB} → ${r.build.rssAfterMiB} MiB over the build` });
      metrics.push({ name: 'process peak RSS', value: r.maxRssMiB, unit: 'MiB', target: { op: '<=', value: 1536 }, detail: 'whole bench process, copies included' });
      return {
        metrics,
        table,
        notes: [
          `${r.symbols.toLocaleString('en-US')} symbols (${own.toLocaleString('en-US')} own + ${copies} copies), ${r.distinctNames.toLocaleString('en-US')} distinct names; load average ${r.loadAverage.join(' / ')} on ${os.cpus().length} cores`,
        ],
        data: r,
      };
    } finally {
      if (maxId >= 0) removeReplicas(engine, maxId);
    }
  },
};
