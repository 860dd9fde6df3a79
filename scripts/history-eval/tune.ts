/**
 * Tunes the ranking's parameters (rankQuestion.ts RankParams) on the dev split of the history
 * questions, never the test split:
 *
 *   npx tsx scripts/history-eval/tune.ts [--repos a,b] [--samples 300] [--seed 1]
 *
 * Each snapshot's ranking index and declarations are built once (from the evaluation's cached
 * trees and indexes) and kept in memory; then random parameter sets around the current defaults
 * are scored (macro average over repositories of hit@3 + ½ MRR@3), followed by a coordinate pass
 * on the best. Prints the best set and its dev/test figures; the defaults are changed by hand.
 */
import { DEFAULT_PARAMS, parseQuestion, rankQuestion, type RankParams } from '../../server/src/nav/ranking/rankQuestion';
import { loadSnapshots, type Loaded } from './loaded';

interface Score {
  objective: number;
  perRepo: Map<string, { n: number; hit1: number; hit3: number; mrr: number }>;
}

function evaluateParams(data: Loaded[], p: RankParams, split: 'dev' | 'test'): Score {
  const perRepo = new Map<string, { n: number; hit1: number; hit3: number; mrr: number }>();
  for (const d of data) {
    const m = perRepo.get(d.repo) ?? { n: 0, hit1: 0, hit3: 0, mrr: 0 };
    perRepo.set(d.repo, m);
    for (const q of d.questions) {
      if (q.split !== split) continue;
      const ranked = rankQuestion(d.src, d.r, parseQuestion(q.title, p), { params: p, limit: 3, explain: false });
      const k = ranked.findIndex((f) => q.production.includes(f.path));
      m.n++;
      if (k === 0) m.hit1++;
      if (k >= 0 && k < 3) {
        m.hit3++;
        m.mrr += 1 / (k + 1);
      }
    }
  }
  let obj = 0;
  for (const m of perRepo.values()) if (m.n) obj += (m.hit3 + 0.5 * m.mrr) / m.n;
  return { objective: obj / perRepo.size, perRepo };
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

type Knob = { get: (p: RankParams) => number; set: (p: RankParams, v: number) => void; lo: number; hi: number; name: string };

const KNOBS: Knob[] = [
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((i): Knob => ({ name: `w${i}`, lo: 0, hi: 5, get: (p) => p.w[i]!, set: (p, v) => ((p.w as number[])[i] = v) })),
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((i): Knob => ({ name: `b${i}`, lo: 0, hi: 1, get: (p) => p.b[i]!, set: (p, v) => ((p.b as number[])[i] = v) })),
  { name: 'k1', lo: 0.3, hi: 4, get: (p) => p.k1, set: (p, v) => (p.k1 = v) },
  { name: 'testPrior', lo: 0.05, hi: 1, get: (p) => p.testPrior, set: (p, v) => (p.testPrior = v) },
  { name: 'generatedPrior', lo: 0.1, hi: 1, get: (p) => p.generatedPrior, set: (p, v) => (p.generatedPrior = v) },
  { name: 'churn', lo: 0, hi: 1, get: (p) => p.churn, set: (p, v) => (p.churn = v) },
  { name: 'splitWeight', lo: 0.2, hi: 1.2, get: (p) => p.splitWeight, set: (p, v) => (p.splitWeight = v) },
  { name: 'declares', lo: 0, hi: 3, get: (p) => p.declares, set: (p, v) => (p.declares = v) },
  { name: 'declBonus', lo: 0, hi: 2, get: (p) => p.declBonus, set: (p, v) => (p.declBonus = v) },
  { name: 'vote', lo: 0, hi: 3, get: (p) => p.vote, set: (p, v) => (p.vote = v) },
  { name: 'voters', lo: 3, hi: 80, get: (p) => p.voters, set: (p, v) => (p.voters = Math.round(v)) },
];

function clone(p: RankParams): RankParams {
  return { ...p, w: [...p.w], b: [...p.b] };
}

function fmt(s: Score): string {
  return [...s.perRepo.entries()].map(([r, m]) => `${r.split('+')[1]} ${m.n}: h1 ${(m.hit1 / m.n).toFixed(2)} h3 ${(m.hit3 / m.n).toFixed(2)}`).join(' | ');
}

async function main(): Promise<void> {
  const a = process.argv.slice(2);
  let repos: string[] | undefined;
  let samples = 300;
  let seed = 1;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--repos') repos = a[++i]!.split(',');
    else if (a[i] === '--samples') samples = Number(a[++i]);
    else if (a[i] === '--seed') seed = Number(a[++i]);
    else throw new Error(`unknown argument ${a[i]}`);
  }
  const data = await loadSnapshots(repos, process.env.HISTORY_EVAL_SCRATCH ?? '/work/scratch/rank');
  const rand = rng(seed);
  let best = clone(DEFAULT_PARAMS);
  let bestScore = evaluateParams(data, best, 'dev');
  process.stderr.write(`defaults: ${bestScore.objective.toFixed(3)} ${fmt(bestScore)}\n`);
  for (let i = 0; i < samples; i++) {
    const p = clone(best);
    // Perturb a few knobs (multiplicatively), sometimes one at random anywhere in its range.
    const n = 1 + Math.floor(rand() * 4);
    for (let k = 0; k < n; k++) {
      const knob = KNOBS[Math.floor(rand() * KNOBS.length)]!;
      const v = rand() < 0.2 ? knob.lo + rand() * (knob.hi - knob.lo) : knob.get(p) * Math.exp((rand() - 0.5) * 0.8);
      knob.set(p, Math.min(knob.hi, Math.max(knob.lo, v)));
    }
    const s = evaluateParams(data, p, 'dev');
    if (s.objective > bestScore.objective + 1e-9) {
      best = p;
      bestScore = s;
      process.stderr.write(`  ${i}: ${s.objective.toFixed(3)} ${fmt(s)}\n    ${JSON.stringify(p)}\n`);
    }
  }
  const test = evaluateParams(data, best, 'test');
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  process.stdout.write(`best dev ${bestScore.objective.toFixed(3)}: ${fmt(bestScore)}\n     test ${test.objective.toFixed(3)}: ${fmt(test)}\n`);
  process.stdout.write(JSON.stringify({ ...best, w: best.w.map(r3), b: best.b.map(r3), k1: r3(best.k1), testPrior: r3(best.testPrior), generatedPrior: r3(best.generatedPrior), churn: r3(best.churn), splitWeight: r3(best.splitWeight), declares: r3(best.declares), declBonus: r3(best.declBonus), vote: r3(best.vote), voters: best.voters }) + '\n');
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
