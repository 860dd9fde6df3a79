/**
 * Candidate ranking signals scored leave-one-repository-out on the history questions:
 *
 *   npx tsx scripts/history-eval/signals.ts [--repos a,b] [--out signals.json]
 *
 * Every variant (a signal at one strength, or a changed parameter) ranks every question of every
 * snapshot (loaded.ts) once. Then, per family of variants and per repository R, the variant with
 * the best objective (hit@3 + ½ MRR@3, all questions) on the other repositories is chosen — the
 * family's baseline included, so "no change" can win — and its figures on R are the held-out ones.
 * Printed per family: the summed held-out hit@1 / hit@3 over the five folds beside the defaults',
 * on R's test split (never tuned on) and on all of R's questions. A signal is worth landing only
 * when it wins there.
 */
import * as fs from 'node:fs';
import { F_CODE, F_DIR, F_MEMBER, F_NAME, F_TYPE, idf } from '../../server/src/nav/ranking/bm25f';
import { DEFAULT_PARAMS, folderShare, parseQuestion, rankQuestion, type ParsedQuestion, type RankedFile, type RankParams } from '../../server/src/nav/ranking/rankQuestion';
import { stem, words } from '../../server/src/nav/ranking/words';
import type { HistoryQuestion } from './build';
import { loadSnapshots, type Loaded } from './loaded';

interface Ctx {
  d: Loaded;
  q: HistoryQuestion;
  parsed: ParsedQuestion;
  /** The defaults' first 50. */
  base: RankedFile[];
}

interface Variant {
  family: string;
  name: string;
  rank(c: Ctx): string[];
}

const clone = (p: RankParams): RankParams => ({ ...p, w: [...p.w], b: [...p.b] });

function withParams(family: string, name: string, edit: (p: RankParams) => void): Variant {
  const p = clone(DEFAULT_PARAMS);
  edit(p);
  return { family, name, rank: (c) => rankQuestion(c.d.src, c.d.r, parseQuestion(c.q.title, p), { params: p, limit: 3, explain: false }).map((f) => f.path) };
}

function reorder(base: RankedFile[], boost: (f: RankedFile, i: number) => number): string[] {
  return base
    .map((f, i) => ({ f, s: f.score * boost(f, i) }))
    .sort((a, b) => b.s - a.s || (a.f.path < b.f.path ? -1 : 1))
    .slice(0, 3)
    .map((x) => x.f.path);
}


/** The file's project: its path up to the first folder whose name has a dot or, else, its first two folders. */
function projectOf(path: string): string {
  const parts = path.split('/');
  for (let i = 0; i < parts.length - 1; i++) if (parts[i]!.includes('.')) return parts.slice(0, i + 1).join('/');
  return parts.slice(0, Math.min(2, parts.length - 1)).join('/');
}

function docOf(d: Loaded, fileId: number): { ix: number; doc: number } | undefined {
  return d.r.byFile.get(fileId);
}

/** Stems of the file's main type name (the file name). */
function nameStems(path: string): string[] {
  const base = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
  return [...new Set(words(base.split('.').pop()!).map(stem))];
}

/** Does document `g`'s code field hold every stem (a proxy of g mentioning the type)? */
function mentions(d: Loaded, g: RankedFile, stems: string[]): boolean {
  const at = docOf(d, g.fileId);
  if (!at || !stems.length) return false;
  const ix = d.r.indexes[at.ix]!;
  for (const s of stems) {
    const id = d.r.vocab.ids.get(s);
    if (id === undefined || !ix.tfOf(F_CODE, id, at.doc)) return false;
  }
  return true;
}

/** Graph support: the score share of the other first-`k` files that mention f's type (callers) or that f mentions (callees). */
function graphVariant(dir: 'callers' | 'callees' | 'both', k: number, alpha: number): Variant {
  return {
    family: `graph-${dir}`,
    name: `graph ${dir} k${k} a${alpha}`,
    rank(c) {
      const top = c.base.slice(0, k);
      const total = top.reduce((s, f) => s + f.score, 0) || 1;
      const stems = new Map(top.map((f) => [f.path, nameStems(f.path)]));
      return reorder(c.base, (f, i) => {
        if (i >= k) return 1;
        let s = 0;
        for (const g of top) {
          if (g === f) continue;
          const into = dir !== 'callees' && mentions(c.d, g, stems.get(f.path)!);
          const out = dir !== 'callers' && mentions(c.d, f, stems.get(g.path)!);
          if (into || out) s += g.score;
        }
        return 1 + alpha * (s / total);
      });
    },
  };
}

/** Pseudo-relevance feedback: the first k files' declared-name stems not in the question, best m by idf × how many of them have it, added at weight beta. */
function prfVariant(k: number, m: number, beta: number): Variant {
  return {
    family: 'prf',
    name: `prf k${k} m${m} b${beta}`,
    rank(c) {
      const have = new Set(c.parsed.terms.map((t) => t.stem));
      const docsTotal = c.d.r.indexes.reduce((s, x) => s + x.liveCount, 0);
      const count = new Map<string, number>();
      for (const f of c.base.slice(0, k)) {
        const seen = new Set<string>();
        for (const decl of c.d.src.declarations(f.fileId)) for (const w of words(decl.name)) seen.add(stem(w));
        for (const w of words(f.path)) seen.add(stem(w));
        for (const s of seen) if (!have.has(s) && s.length > 2) count.set(s, (count.get(s) ?? 0) + 1);
      }
      const base0 = c.d.r.indexes[0]!;
      const scored = [...count]
        .filter(([, n]) => n >= 2 || k === 1)
        .map(([s, n]) => {
          const id = c.d.r.vocab.ids.get(s);
          const df = id === undefined ? docsTotal : Math.max(base0.count(F_NAME, id), base0.count(F_TYPE, id), base0.count(F_MEMBER, id), base0.count(F_DIR, id));
          return { s, v: n * idf(docsTotal, df) };
        })
        .sort((a, b) => b.v - a.v || (a.s < b.s ? -1 : 1))
        .slice(0, m);
      if (!scored.length) return c.base.slice(0, 3).map((f) => f.path);
      const q: ParsedQuestion = { ...c.parsed, terms: [...c.parsed.terms, ...scored.map((x) => ({ stem: x.s, weight: beta }))], words: [...c.parsed.words, ...scored.map((x) => x.s)] };
      return rankQuestion(c.d.src, c.d.r, q, { limit: 3, explain: false }).map((f) => f.path);
    },
  };
}

function variants(): Variant[] {
  const v: Variant[] = [];
  // Per-field weight sweep (one field at a time).
  const FIELDS = ['dir', 'name', 'type', 'member', 'code', 'comment', 'string', 'history'];
  for (let f = 0; f < 8; f++) for (const x of [0, 0.5, 1.6, 2.5]) v.push(withParams('fields', `w.${FIELDS[f]} x${x}`, (p) => ((p.w as number[])[f] = p.w[f]! * x)));
  for (const x of [0.8, 2.2]) v.push(withParams('fields', `k1 ${x}`, (p) => (p.k1 = x)));
  // File class down-weighting.
  for (const x of [0.15, 0.25, 0.5, 0.7]) v.push(withParams('class', `testPrior ${x}`, (p) => (p.testPrior = x)));
  for (const x of [0.25, 0.8]) v.push(withParams('class', `generatedPrior ${x}`, (p) => (p.generatedPrior = x)));
  // Declarations combined with the file score.
  for (const x of [0, 0.6, 1.2, 2, 3]) v.push(withParams('decl', `declBonus ${x}`, (p) => (p.declBonus = x)));
  for (const x of [0, 1, 2]) v.push(withParams('decl', `declares ${x}`, (p) => (p.declares = x)));
  // Folder / project priors from the question's words.
  for (const a of [0.25, 0.5, 1, 2, 3]) v.push(withParams('folder', `folder ${a}`, (p) => (p.folder = a)));
  // Declarations and folders together.
  for (const x of [0.3, 0.6, 1.2, 2]) for (const a of [0, 0.5, 1, 2]) if (x !== DEFAULT_PARAMS.declBonus || a !== DEFAULT_PARAMS.folder) v.push(withParams('decl+folder', `declBonus ${x} folder ${a}`, (p) => ((p.declBonus = x), (p.folder = a))));
  for (const a of [0.25, 0.5, 1]) {
    v.push({
      family: 'project',
      name: `project cluster a${a}`,
      rank(c) {
        const by = new Map<string, number>();
        for (const f of c.base.slice(0, 20)) by.set(projectOf(f.path), (by.get(projectOf(f.path)) ?? 0) + f.score);
        const top = Math.max(...by.values(), 1e-9);
        return reorder(c.base, (f) => 1 + a * ((by.get(projectOf(f.path)) ?? 0) / top));
      },
    });
    v.push({
      family: 'project',
      name: `project words a${a}`,
      rank: (c) => reorder(c.base, (f) => 1 + a * folderShare(projectOf(f.path) + '/x', c.parsed)),
    });
  }
  // Symbol graph (mentions between the first files).
  for (const dir of ['callers', 'callees', 'both'] as const) for (const k of [5, 10]) for (const a of [0.25, 0.5, 1]) v.push(graphVariant(dir, k, a));
  // Pseudo-relevance feedback.
  for (const k of [3, 5]) for (const m of [3, 8]) for (const b of [0.2, 0.4]) v.push(prfVariant(k, m, b));
  return v;
}

interface Tally {
  n: number;
  hit1: number;
  hit3: number;
  mrr: number;
}

const empty = (): Tally => ({ n: 0, hit1: 0, hit3: 0, mrr: 0 });
function add(t: Tally, rank: number): void {
  t.n++;
  if (rank === 0) t.hit1++;
  if (rank >= 0 && rank < 3) {
    t.hit3++;
    t.mrr += 1 / (rank + 1);
  }
}
const objective = (t: Tally) => (t.n ? (t.hit3 + 0.5 * t.mrr) / t.n : 0);

async function main(): Promise<void> {
  const a = process.argv.slice(2);
  let repos: string[] | undefined;
  let out: string | undefined;
  let only: RegExp | undefined;
  for (let i = 0; i < a.length; i++) {
    if (a[i] === '--repos') repos = a[++i]!.split(',');
    else if (a[i] === '--out') out = a[++i]!;
    else if (a[i] === '--only') only = new RegExp(a[++i]!);
    else throw new Error(`unknown argument ${a[i]}`);
  }
  const data = await loadSnapshots(repos, process.env.HISTORY_EVAL_SCRATCH ?? '/work/scratch/rank');
  const ctxs: Ctx[] = [];
  for (const d of data) for (const q of d.questions) {
    const parsed = parseQuestion(q.title);
    ctxs.push({ d, q, parsed, base: rankQuestion(d.src, d.r, parsed, { limit: 50, explain: false }) });
  }
  const all: Variant[] = [{ family: '*', name: 'defaults', rank: (c) => c.base.slice(0, 3).map((f) => f.path) }, ...variants().filter((x) => !only || only.test(x.family))];
  // tallies[variant][repo][split]
  const tallies = new Map<string, Map<string, Record<'dev' | 'test', Tally>>>();
  const repoNames = [...new Set(data.map((d) => d.repo))];
  for (const v of all) {
    const t0 = performance.now();
    const byRepo = new Map(repoNames.map((r) => [r, { dev: empty(), test: empty() }]));
    for (const c of ctxs) {
      const got = v.rank(c);
      add(byRepo.get(c.d.repo)![c.q.split], got.findIndex((p) => c.q.production.includes(p)));
    }
    tallies.set(v.name, byRepo);
    const sum = (s: 'dev' | 'test') => [...byRepo.values()].reduce((x, r) => x + r[s].hit3, 0);
    process.stderr.write(`  ${v.name}: hit@3 dev ${sum('dev')} test ${sum('test')} (${Math.round(performance.now() - t0)} ms)\n`);
  }
  const both = (r: Record<'dev' | 'test', Tally>): Tally => ({ n: r.dev.n + r.test.n, hit1: r.dev.hit1 + r.test.hit1, hit3: r.dev.hit3 + r.test.hit3, mrr: r.dev.mrr + r.test.mrr });
  const report: Record<string, unknown> = {};
  const base = tallies.get('defaults')!;
  const fmt = (t: Tally) => `h1 ${t.hit1}/${t.n} h3 ${t.hit3}/${t.n} mrr ${(t.mrr / (t.n || 1)).toFixed(3)}`;
  for (const family of [...new Set(all.map((v) => v.family))].filter((f) => f !== '*')) {
    const members = ['defaults', ...all.filter((v) => v.family === family).map((v) => v.name)];
    const heldTest = empty();
    const heldAll = empty();
    const baseTest = empty();
    const baseAll = empty();
    const chosen: string[] = [];
    for (const r of repoNames) {
      let best = 'defaults';
      let bestObj = -1;
      for (const m of members) {
        const rest = empty();
        for (const o of repoNames) if (o !== r) for (const k of ['hit1', 'hit3', 'mrr', 'n'] as const) rest[k] += both(tallies.get(m)!.get(o)!)[k];
        const obj = objective(rest);
        if (obj > bestObj + 1e-9) [best, bestObj] = [m, obj];
      }
      chosen.push(`${r.split('+')[1]}: ${best}`);
      const got = tallies.get(best)!.get(r)!;
      for (const k of ['hit1', 'hit3', 'mrr', 'n'] as const) {
        heldTest[k] += got.test[k];
        heldAll[k] += both(got)[k];
        baseTest[k] += base.get(r)!.test[k];
        baseAll[k] += both(base.get(r)!)[k];
      }
    }
    process.stdout.write(`${family.padEnd(14)} held-out test ${fmt(heldTest)}  (defaults ${fmt(baseTest)}); all ${fmt(heldAll)} (defaults ${fmt(baseAll)})\n               chosen: ${chosen.join('; ')}\n`);
    report[family] = { heldTest, heldAll, baseTest, baseAll, chosen };
  }
  const perVariant = Object.fromEntries([...tallies].map(([n, m]) => [n, Object.fromEntries([...m].map(([r, t]) => [r, t]))]));
  if (out) fs.writeFileSync(out, JSON.stringify({ report, perVariant }, null, 1));
}

main().then(
  () => process.exit(0),
  (e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  },
);
