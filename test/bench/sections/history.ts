/**
 * locate_code and related_tests on real history (issue 24): the questions of
 * test/fixtures/history/ (titles of merged pull requests of real repositories → the production
 * files they changed; their changed types → the test files they changed), each asked on a tree of
 * its repository from before the pull request (scripts/history-eval/), beside BM25 and `rg -c -w`
 * computed in the same run. Per repository and split (dev: the ranking was tuned on it; test:
 * never), hit@1, hit@3, MRR@3, `located` precision, related_tests hit@5.
 *
 * Runs once per bench run, whatever the bench's target (it brings its own trees):
 *   npm run bench -- --sections history --projects 24 [--quick]
 * `--quick` asks the first snapshot of each repository only. Needs the repository mirrors
 * (HISTORY_EVAL_MIRRORS, default /work/.mirror) and a scratch folder for trees and indexes
 * (HISTORY_EVAL_SCRATCH, default /work/scratch/rank; ~1 GB, reused across runs).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { evaluate, loadSets, metrics, table } from '../../../scripts/history-eval/evaluate';
import type { BenchSection, Metric } from '../types';

let ran = false;

export const section: BenchSection = {
  name: 'history',
  order: 58,
  description: 'locate_code / related_tests on merged pull requests of real repositories vs BM25 / rg -c, same run (dev = tuned on, test = held out)',
  appliesTo: () => !ran,
  async run(ctx) {
    ran = true;
    const mirrorRoot = process.env.HISTORY_EVAL_MIRRORS ?? '/work/.mirror';
    const repos = loadSets().map((s) => s.repo).filter((r) => fs.existsSync(`${mirrorRoot}/${r}/repo`));
    if (!repos.length) return { metrics: [], notes: [`no repository mirror under ${mirrorRoot}`] };
    const load = os.loadavg()[0]!.toFixed(1);
    const results = await evaluate({ repos, split: 'all', history: true, quick: ctx.options.quick, scratch: process.env.HISTORY_EVAL_SCRATCH ?? '/work/scratch/rank', mirrorRoot, progress: ctx.progress });
    const out: Metric[] = [];
    const pct = (x: number) => (Number.isNaN(x) ? undefined : x);
    for (const repo of repos) {
      for (const split of ['dev', 'test'] as const) {
        const m = metrics(results.filter((r) => r.repo === repo && r.split === split));
        if (!m.questions) continue;
        const tag = `${repo.split('+')[1]} ${split}`;
        out.push({ name: `${tag}: locate hit@3`, value: pct(m.hit3), unit: 'ratio', target: { op: '>=', value: 0.85 }, detail: `${m.questions} questions; BM25 ${m.bm25Hit3.toFixed(2)}` });
        out.push({ name: `${tag}: locate hit@1`, value: pct(m.hit1), unit: 'ratio', target: { op: '>=', value: 0.6 }, detail: `BM25 ${m.bm25Hit1.toFixed(2)}` });
        out.push({ name: `${tag}: hit@3 / BM25 hit@3`, value: m.bm25Hit3 ? m.hit3 / m.bm25Hit3 : undefined, unit: 'ratio', target: { op: '>=', value: 1.25 } });
        out.push({ name: `${tag}: located right`, value: m.located ? m.locatedRight / m.located : undefined, unit: 'ratio', target: { op: '>=', value: 0.9 }, detail: `${m.locatedRight} of ${m.located} located` });
        if (m.relatedPrs) out.push({ name: `${tag}: related_tests hit@5`, value: pct(m.relatedHit5), unit: 'ratio', target: { op: '>=', value: 0.8 }, detail: `${m.relatedPrs} PRs; rg -c ${m.mentionHit5.toFixed(2)}` });
      }
    }
    const all = metrics(results);
    out.push({ name: 'locate_code answer bytes (max)', value: all.bytesMax, unit: 'count', target: { op: '<=', value: 2560 } });
    out.push({ name: 'locate_code latency p95', value: all.msP95, unit: 'ms', detail: `p50 ${all.msP50.toFixed(0)} ms; load ${load} at start` });
    return { metrics: out, table: table(results), data: results, notes: ['related_tests with the heuristic C# provider (the snapshots are not restored); trees and indexes cached under the scratch folder'] };
  },
};
