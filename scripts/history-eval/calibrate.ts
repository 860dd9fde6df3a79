/**
 * The evidence locate_code's status is decided on (ranking/calibration.ts), per history question,
 * for fitting the `located` rule on the dev split and checking it on the test split:
 *
 *   npx tsx scripts/history-eval/calibrate.ts [--repos a,b] [--out features.json]
 *
 * For every question of every snapshot (loaded.ts): the ranking as locate_code asks it (no layer
 * preference, no hints), the evidence of calibration.ts, whether the first file is one the pull
 * request changed, and the rule's verdict. Prints, per split, how often `located` is said and right
 * overall and with each repository left out of the fit's data (leave-one-repository-out on dev: a
 * rule that only holds on the repositories it saw does not generalise).
 */
import * as fs from 'node:fs';
import { evidenceOf, isLocated, type Evidence } from '../../server/src/nav/ranking/calibration';
import { historyVotes } from '../../server/src/nav/ranking/history';
import { DEFAULT_PARAMS, parseQuestion, plainFirst, rankQuestion } from '../../server/src/nav/ranking/rankQuestion';
import { loadSnapshots } from './loaded';

export interface CalibrationRow {
  repo: string;
  pr: number;
  split: 'dev' | 'test';
  title: string;
  right: boolean;
  first: string;
  evidence: Evidence;
  /** Scores of the first four files, and which of them the pull request changed. */
  scores: number[];
  rightAt: boolean[];
  terms: number;
  /** The first file's vote from past commits like the question (history.ts historyVotes, 0..1). */
  vote: number;
}

async function main(): Promise<void> {
  const a = process.argv.slice(2);
  let repos: string[] | undefined;
  let out: string | undefined;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--repos') repos = a[++i]!.split(',');
    else if (a[i] === '--out') out = a[++i]!;
    else throw new Error(`unknown argument ${a[i]}`);
  }
  const data = await loadSnapshots(repos, process.env.HISTORY_EVAL_SCRATCH ?? '/work/scratch/rank');
  const rows: CalibrationRow[] = [];
  for (const d of data) {
    for (const q of d.questions) {
      const parsed = parseQuestion(q.title);
      const ranked = rankQuestion(d.src, d.r, parsed, { limit: 4, explain: false });
      const evidence = evidenceOf(ranked, parsed, ranked.length ? plainFirst(d.r, parsed) : undefined, (pq) => rankQuestion(d.src, d.r, pq, { limit: 1, explain: false })[0]?.path);
      rows.push({ repo: d.repo, pr: q.pr, split: q.split, title: q.title, right: q.production.includes(ranked[0]?.path ?? ''), first: ranked[0]?.path ?? '', evidence, scores: ranked.map((f) => f.score), rightAt: ranked.map((f) => q.production.includes(f.path)), terms: parsed.terms.length, vote: historyVotes(d.r.history, parsed.terms, DEFAULT_PARAMS.voters).get(ranked[0]?.path ?? '') ?? 0 });
    }
  }
  if (out) fs.writeFileSync(out, JSON.stringify(rows, null, 1));
  const line = (label: string, rs: CalibrationRow[]) => {
    const said = rs.filter((r) => isLocated(r.evidence));
    process.stdout.write(`${label.padEnd(34)} first right ${rs.filter((r) => r.right).length}/${rs.length}  located right ${said.filter((r) => r.right).length}/${said.length}\n`);
  };
  for (const split of ['dev', 'test'] as const) {
    const rs = rows.filter((r) => r.split === split);
    line(`${split} all`, rs);
    for (const repo of [...new Set(rs.map((r) => r.repo))]) line(`${split} ${repo}`, rs.filter((r) => r.repo === repo));
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
