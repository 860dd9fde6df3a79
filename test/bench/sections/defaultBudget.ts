/**
 * No call with default arguments fails for size, on a real repository (issue 25): the property of
 * test/e2e/defaultBudget.test.ts (which runs offline, on fixtures) over the files of the bench
 * target — a file, a line in it and one of the per-file questions an agent asks with default
 * arguments, through a real MCP client on real stdio (dist/cli.js, cold index). Every failure is
 * listed (BUDGET_TOO_SMALL, or an answer over the default budget as text or JSON).
 *
 *   npm run bench -- --sections default_budget --skip-generated /path/to/efcore [--quick]
 *
 * `SEXTANT_BUDGET_RUNS` / `SEXTANT_BUDGET_MS`: calls at least / time for more (default 200 / 300 s;
 * quick 40 / 60 s).
 */
import { MAX_RESPONSE_BYTES } from '../../../server/src/core/limits';
import { ask, noCallFailsForSize, settled } from '../../helpers/defaultBudget';
import { connectStdio, waitFor } from '../../helpers/mcpClient';
import type { BenchSection } from '../types';

/** Files the property draws from, at most (find_file pages of 200). */
const MAX_FILES = 20_000;
/** The files an agent asks per-file questions about: source, project and config files. */
const TEXT_FILE = /\.(cs|csx|ts|tsx|js|mjs|cjs|json|csproj|props|targets|xml|config|yml|yaml|md|razor|cshtml)$/i;

export const section: BenchSection = {
  name: 'default_budget',
  order: 97,
  description: 'per-file questions with default arguments over the target’s files never fail for size (real MCP client, stdio)',
  async run(ctx) {
    const runs = Number(process.env['SEXTANT_BUDGET_RUNS'] ?? (ctx.options.quick ? 40 : 200));
    const timeMs = Number(process.env['SEXTANT_BUDGET_MS'] ?? (ctx.options.quick ? 60_000 : 300_000));
    const c = await connectStdio(ctx.target.root, ctx.indexRoot);
    try {
      ctx.progress('default_budget: indexing (cold)…');
      const t0 = performance.now();
      await waitFor(async () => (await ask(c, 'repo_overview', {})).sc?.index?.status === 'fresh', 1_800_000, 500);
      const files: string[] = [];
      let cursor: string | undefined;
      do {
        const r = (await ask(c, 'find_file', { query: '**/*', limit: 200, maxBytes: MAX_RESPONSE_BYTES, ...(cursor ? { cursor } : {}) })).sc;
        files.push(...(r?.items ?? []).map((i: { path: string }) => i.path).filter((p: string) => TEXT_FILE.test(p)));
        cursor = r?.nextCursor;
      } while (cursor && files.length < MAX_FILES);
      if (!files.length) return { metrics: [], notes: ['no source files indexed'] };
      await settled(c, files.find((f) => f.endsWith('.cs')) ?? files[0]!, 1_800_000);
      const indexMs = performance.now() - t0;
      ctx.progress(`default_budget: ${files.length} files, asking…`);
      const t1 = performance.now();
      const r = await noCallFailsForSize(c, ctx.target.root, files, runs, timeMs, false);
      const calls = [...r.asked.values()].reduce((a, b) => a + b, 0);
      return {
        metrics: [
          { name: 'calls failing for size', value: r.failures.length, unit: 'count', target: { op: '<=', value: 0 }, detail: `${calls} calls over ${files.length} files` },
          { name: 'slowest answer (asked again while STILL_WORKING)', value: r.slowest.ms, unit: 'ms', detail: r.slowest.call.slice(0, 100) },
          { name: 'cold index (to settled)', value: indexMs, unit: 'ms' },
        ],
        table: [['tool', 'calls'], ...[...r.asked].sort((a, b) => b[1] - a[1]).map(([t, n]) => [t, String(n)])],
        notes: [`${calls} calls in ${((performance.now() - t1) / 1000).toFixed(0)} s`, ...r.failures.slice(0, 10)],
        data: { files: files.length, asked: Object.fromEntries(r.asked), failures: r.failures, slowest: r.slowest },
      };
    } finally {
      await c.close();
    }
  },
};
