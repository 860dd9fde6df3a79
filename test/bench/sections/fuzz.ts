/**
 * The 10,000-call fuzz (test/fuzz/mcpFuzz.ts): schema-derived hostile calls over every tool through
 * a real MCP client on real stdio, on the hostile workspace beside the generated 24-project one.
 * Runs once (not per target): `npm run bench -- --sections fuzz --no-git` (the generated target only triggers it; `--skip-generated` without a PATH runs nothing), or with a PATH
 * to fuzz on that workspace instead. `--quick`: 1,000 calls. SEXTANT_FUZZ_CALLS / SEXTANT_FUZZ_SEED.
 */
import type { BenchSection } from '../types';
import { runFuzz } from '../../fuzz/mcpFuzz';

let ranOnHostile = false;

export const section: BenchSection = {
  name: 'fuzz',
  order: 98,
  description: 'schema-derived hostile calls over every tool (real MCP client, stdio): slowest call, RSS growth, crashes, malformed errors',
  async run(ctx) {
    // The generated bench target is not what this fuzzes: the hostile workspace is (once per run).
    const onPath = !ctx.target.manifest;
    if (!onPath && ranOnHostile) return { metrics: [], notes: ['ran once already on the hostile workspace'] };
    ranOnHostile ||= !onPath;
    const calls = Number(process.env['SEXTANT_FUZZ_CALLS'] ?? (ctx.options.quick ? 1_000 : 10_000));
    const seed = Number(process.env['SEXTANT_FUZZ_SEED'] ?? 20261202);
    const r = await runFuzz({ calls, seed, ...(onPath ? { workspace: ctx.target.root } : {}), progressEvery: 500 });
    return {
      metrics: [
        { name: 'slowest call', value: r.maxMs, unit: 'ms', target: { op: '<=', value: 2_000 }, detail: r.slowest[0] ? `${r.slowest[0].tool} ${r.slowest[0].args.slice(0, 70)}` : '' },
        { name: 'slowest call without waitMs', value: r.maxWithoutWaitMs, unit: 'ms', target: { op: '<=', value: 2_000 } },
        { name: 'p95 call', value: r.p95Ms, unit: 'ms' },
        { name: 'engine RSS growth', value: r.rssEndMiB - r.rssStartMiB, unit: 'MiB', target: { op: '<=', value: 150 }, detail: `${r.rssStartMiB.toFixed(0)} → ${r.rssEndMiB.toFixed(0)} MiB (peak ${r.rssPeakMiB.toFixed(0)}); children ${r.childrenRssEndMiB.toFixed(0)} MiB at the end` },
        { name: 'engine RSS growth after the first 500 calls', value: r.rssByCalls.length ? r.rssEndMiB - r.rssByCalls[0]![1] : undefined, unit: 'MiB', detail: `every 500 calls: ${r.rssByCalls.map(([, m]) => m).join(' ')}` },
        { name: 'crashes', value: r.crashes.length, unit: 'count', target: { op: '<=', value: 0 } },
        { name: 'malformed answers', value: r.malformed.length + r.overBudget.length + r.defaultBudgetFailures.length, unit: 'count', target: { op: '<=', value: 0 } },
      ],
      table: [['slowest calls', 'ms'], ...r.slowest.slice(0, 8).map((s) => [`${s.tool} ${s.args.slice(0, 90)}`, String(s.ms)])],
      notes: [`${r.calls} calls over ${r.tools} tools in ${(r.wallMs / 1000).toFixed(0)} s, seed ${seed}; tool errors by code ${JSON.stringify(r.errorCodes)}; protocol errors (non-object arguments) ${r.protocolErrors.length}`, ...r.crashes.slice(0, 3), ...r.malformed.slice(0, 3)],
      data: r,
    };
  },
};
