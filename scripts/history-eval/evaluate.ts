/**
 * Asks the history questions (test/fixtures/history/*.json, built by build.ts) of the engine and of
 * the baselines, in the same run:
 *
 *   npx tsx scripts/history-eval/evaluate.ts [--repos owner+name,...] [--split dev|test|all]
 *        [--no-history] [--quick] [--only locate|related] [--out results.json]
 *
 * Per snapshot: the tree is written under <scratch>/trees (snapshot.ts; reused), indexed by an
 * in-process engine whose index lives under <scratch>/idx (reused: a rerun only opens it), then
 * every question of the snapshot is asked through the MCP tool path (`callTool`: validation,
 * deadline, byte budget) — locate_code with the title, related_tests with the main type of each of
 * (at most three of) its production files — beside BM25 and `rg -c -w` (baselines.ts).
 * C# answers come from the heuristic provider (no compiler: the snapshots are not restored).
 *
 * Scratch: $HISTORY_EVAL_SCRATCH, default /work/scratch/rank (trees ~100 MB per efcore snapshot).
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { callTool } from '../../server/src/mcp/server';
import { ALL_TOOLS } from '../../server/src/mcp/tools';
import { locateCode } from '../../server/src/nav/agent/locate';
import { Engine } from '../../server/src/nav/engine';
import type { Evidence } from '../../server/src/nav/ranking/calibration';
import { ranking, type Ranking } from '../../server/src/nav/ranking/fileRanking';
import { semanticService } from '../../server/src/nav/semanticService';
import { Bm25Baseline, mentionCount, productionFiles } from './baselines';
import { FIXTURE_DIR, type HistoryQuestion, type HistorySet } from './build';
import { cleanTitle } from './rules';
import { snapshot } from './snapshot';

export interface EvalOptions {
  repos?: string[];
  split: 'dev' | 'test' | 'all';
  /** Snapshots get a `.git` with the history before them (co-change, past commit subjects). */
  history: boolean;
  /** The first snapshot of each repository only. */
  quick: boolean;
  only?: 'locate' | 'related';
  scratch: string;
  mirrorRoot: string;
  progress(msg: string): void;
}

export interface LocateResult {
  status: string;
  candidates: string[];
  reads: string[];
  bytes: number;
  ms: number;
  evidence?: Evidence;
}

export interface RelatedResult {
  file: string;
  type: string | undefined;
  tool: string[];
  baseline: string[];
  ms: number;
  mode?: string;
}

export interface QuestionResult {
  repo: string;
  pr: number;
  split: 'dev' | 'test';
  title: string;
  answers: string[];
  tests: string[];
  locate?: LocateResult;
  bm25?: string[];
  related?: RelatedResult[];
}

const TYPE_KINDS = "('class','struct','interface','record','enum')";

export function loadSets(repos?: string[]): HistorySet[] {
  return fs
    .readdirSync(FIXTURE_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(fs.readFileSync(path.join(FIXTURE_DIR, f), 'utf8')) as HistorySet)
    .filter((s) => !repos || repos.includes(s.repo));
}

async function tool(e: Engine, name: string, args: Record<string, unknown>): Promise<{ sc: any; bytes: number; ms: number }> {
  const t0 = performance.now();
  const r = await callTool(e, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, args, 10_000);
  const ms = performance.now() - t0;
  const text = (r.content as { text?: string }[])[0]?.text ?? '';
  const bytes = Math.max(Buffer.byteLength(text), r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : 0);
  if (r.isError) return { sc: { error: text }, bytes, ms };
  return { sc: r.structuredContent, bytes, ms };
}

/** The main type of a file: named after the file (last dotted part of the name, then the first), else its first top-level type. */
export function mainType(e: Engine, rel: string): { symbolId: string; name: string; line: number; column: number } | undefined {
  const rows = e.store.rows(`SELECT s.symbol_id, s.name, s.depth, s.name_line, s.name_col FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND s.kind IN ${TYPE_KINDS} ORDER BY s.depth, s.line`, [rel]);
  if (!rows.length) return undefined;
  const stem = rel.slice(rel.lastIndexOf('/') + 1).replace(/\.cs$/, '');
  const parts = stem.split('.');
  const named = (n: string) => rows.find((r) => String(r[1]) === n.replace(/`\d+$/, ''));
  const r = named(parts[parts.length - 1]!) ?? named(parts[0]!) ?? rows[0]!;
  return { symbolId: String(r[0]), name: String(r[1]), line: Number(r[3]), column: Number(r[4]) };
}

export async function evaluate(o: EvalOptions): Promise<QuestionResult[]> {
  const out: QuestionResult[] = [];
  for (const set of loadSets(o.repos)) {
    const gitDir = path.join(o.mirrorRoot, set.repo, 'repo');
    const snaps = o.quick ? set.snapshots.slice(0, 1) : set.snapshots;
    for (const snap of snaps) {
      const qs = snap.questions.filter((q) => o.split === 'all' || q.split === o.split);
      if (!qs.length) continue;
      const tag = `${set.repo}/${snap.commit.slice(0, 12)}${o.history ? '' : '-nohist'}`;
      o.progress(`${tag}: snapshot`);
      const tree = await snapshot(gitDir, snap.commit, path.join(o.scratch, 'trees', tag), o.history);
      if (o.history) {
        const leaks = historyLeaks(tree.dir, qs);
        if (leaks.length) throw new Error(`${tag}: the snapshot's history holds what it should not: ${leaks.slice(0, 3).join('; ')}`);
        o.progress(`${tag}: history cut checked (no question's commit, nor its title as a subject, before HEAD)`);
      }
      o.progress(`${tag}: index (${tree.files} files)`);
      const engine = await Engine.open({ workspaceRoot: tree.dir, indexRoot: path.join(o.scratch, 'idx', tag) });
      try {
        await engine.refresh();
        semanticService(engine, { noLsp: true, noTsPrograms: true });
        {
          o.progress(`${tag}: ranking index`);
          const c0 = process.cpuUsage();
          const rk = await rankingWithHistory(engine, o.progress);
          const cpu = process.cpuUsage(c0);
          o.progress(`${tag}: ranking index of ${rk.files} files in ${Math.round(rk.buildMs)} ms (${Math.round((cpu.user + cpu.system) / 1000)} ms CPU), ${(rk.indexes.reduce((s, x) => s + x.bytes(), 0) / 2 ** 20).toFixed(1)} MiB; history ${rk.history.commits} commits${rk.history.unavailable ? ` (${rk.history.unavailable})` : ''}`);
        }
        const bm25 = o.only === 'related' ? undefined : new Bm25Baseline(tree.dir, productionFiles(tree.dir));
        let n = 0;
        for (const q of qs) {
          o.progress(`${tag}: question ${++n}/${qs.length}`);
          out.push(await ask(engine, tree.dir, set.repo, q, bm25, o));
        }
      } finally {
        await engine.close();
      }
    }
  }
  return out;
}

/**
 * The engine's ranking, its history read again while the read timed out (a loaded machine): a
 * snapshot asked without its history would measure the machine's load, not the ranking. Three
 * tries, then the ranking as it is (the progress line says its history is unavailable).
 */
export async function rankingWithHistory(engine: Engine, progress: (msg: string) => void): Promise<Ranking> {
  let rk = await ranking(engine);
  for (let i = 0; i < 3 && rk.history.retryAt !== undefined; i++) {
    progress(`history unavailable (${rk.history.unavailable}): reading it again`);
    await new Promise((res) => setTimeout(res, Math.max(0, rk.history.retryAt! - Date.now())));
    rk = await ranking(engine);
  }
  return rk;
}

/**
 * Leakage check of a snapshot with history: no question's own commit is an ancestor of HEAD and no
 * commit before HEAD has a question's title as its subject (`git log` of the snapshot is every
 * commit subject the engine can read).
 */
export function historyLeaks(dir: string, qs: HistoryQuestion[]): string[] {
  const g = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const reachable = new Set(g('rev-list', 'HEAD').split('\n').filter(Boolean));
  const subjects = new Set(g('log', '--format=%s', 'HEAD').split('\n').map((x) => cleanTitle(x).toLowerCase()));
  for (const q of qs) {
    if (reachable.has(q.commit)) out.push(`PR ${q.pr}'s commit ${q.commit.slice(0, 12)} is in the history`);
    if (subjects.has(q.title.toLowerCase())) out.push(`PR ${q.pr}'s title "${q.title}" is a commit subject of the history`);
  }
  return out;
}

async function ask(e: Engine, root: string, repo: string, q: HistoryQuestion, bm25: Bm25Baseline | undefined, o: EvalOptions): Promise<QuestionResult> {
  const r: QuestionResult = { repo, pr: q.pr, split: q.split, title: q.title, answers: q.production, tests: q.tests };
  if (o.only !== 'related') {
    const a = await tool(e, 'locate_code', { question: q.title });
    r.locate = {
      status: a.sc?.status ?? `error: ${a.sc?.error ?? '?'}`,
      candidates: (a.sc?.items ?? []).map((c: { path: string }) => c.path),
      reads: (a.sc?.reads ?? []).map((c: { path: string }) => c.path),
      bytes: a.bytes,
      ms: a.ms,
    };
    const ev = (await locateCode(e, { question: q.title, deadlineAt: Date.now() + 10_000 })).evidence;
    if (ev) r.locate.evidence = ev;
    if (bm25) r.bm25 = bm25.rank(q.title, 3);
  }
  if (o.only !== 'locate' && q.tests.length) {
    r.related = [];
    for (const file of q.production.slice(0, 3)) {
      const t = mainType(e, file);
      if (!t) {
        r.related.push({ file, type: undefined, tool: [], baseline: [], ms: 0 });
        continue;
      }
      // Asked as an agent would after an outline: the type's name position (a multi-targeted
      // project makes the bare documentation id ambiguous).
      const a = await tool(e, 'related_tests', { target: { path: file, line: t.line, column: t.column } });
      const files: string[] = [];
      for (const row of a.sc?.items ?? []) if (!files.includes(row.path) && files.length < 5) files.push(row.path);
      r.related.push({ file, type: t.name, tool: files, baseline: await mentionCount(root, t.name, 5), ms: a.ms, ...(a.sc?.mode ? { mode: a.sc.mode } : {}) });
    }
  }
  return r;
}

// ─── metrics ───────────────────────────────────────────────────────────────────

export interface Metrics {
  questions: number;
  hit1: number;
  hit3: number;
  mrr: number;
  readsHit: number;
  located: number;
  locatedRight: number;
  bm25Hit1: number;
  bm25Hit3: number;
  bm25Mrr: number;
  relatedPrs: number;
  relatedHit5: number;
  mentionHit5: number;
  bytesMax: number;
  msP50: number;
  msP95: number;
}

function rankOf(list: string[] | undefined, answers: string[]): number {
  const i = (list ?? []).findIndex((p) => answers.includes(p));
  return i < 0 ? Infinity : i + 1;
}

function quantile(v: number[], q: number): number {
  if (!v.length) return NaN;
  const s = [...v].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

export function metrics(rs: QuestionResult[]): Metrics {
  const loc = rs.filter((r) => r.locate);
  const frac = (n: number, d: number) => (d ? n / d : NaN);
  const rank = loc.map((r) => rankOf(r.locate!.candidates, r.answers));
  const brank = loc.map((r) => rankOf(r.bm25, r.answers));
  const located = loc.filter((r) => r.locate!.status === 'located');
  const rel = rs.filter((r) => r.related && r.related.length);
  const hitAny = (r: QuestionResult, k: 'tool' | 'baseline') => r.related!.some((x) => x[k].some((p) => r.tests.includes(p)));
  return {
    questions: loc.length,
    hit1: frac(rank.filter((k) => k <= 1).length, loc.length),
    hit3: frac(rank.filter((k) => k <= 3).length, loc.length),
    mrr: frac(rank.reduce((s, k) => s + (k <= 3 ? 1 / k : 0), 0), loc.length),
    readsHit: frac(loc.filter((r) => r.locate!.reads.some((p) => r.answers.includes(p))).length, loc.length),
    located: located.length,
    locatedRight: located.filter((r) => r.answers.includes(r.locate!.candidates[0] ?? '')).length,
    bm25Hit1: frac(brank.filter((k) => k <= 1).length, loc.length),
    bm25Hit3: frac(brank.filter((k) => k <= 3).length, loc.length),
    bm25Mrr: frac(brank.reduce((s, k) => s + (k <= 3 ? 1 / k : 0), 0), loc.length),
    relatedPrs: rel.length,
    relatedHit5: frac(rel.filter((r) => hitAny(r, 'tool')).length, rel.length),
    mentionHit5: frac(rel.filter((r) => hitAny(r, 'baseline')).length, rel.length),
    bytesMax: Math.max(0, ...loc.map((r) => r.locate!.bytes)),
    msP50: quantile(loc.map((r) => r.locate!.ms), 0.5),
    msP95: quantile(loc.map((r) => r.locate!.ms), 0.95),
  };
}

export function table(rs: QuestionResult[]): string[][] {
  const pct = (x: number) => (Number.isNaN(x) ? '-' : `${Math.round(x * 100)}%`);
  const head = ['repo', 'split', 'n', 'hit@1', 'hit@3', 'MRR@3', 'BM25 hit@1', 'BM25 hit@3', 'BM25 MRR@3', 'hit@3 / BM25', 'located right', 'reads hit', 'tests PRs', 'related hit@5', 'rg -c hit@5', 'bytes max', 'ms p50', 'ms p95'];
  const rows: string[][] = [head];
  const repos = [...new Set(rs.map((r) => r.repo))];
  for (const repo of [...repos, 'all']) {
    for (const split of ['dev', 'test'] as const) {
      const m = metrics(rs.filter((r) => (repo === 'all' || r.repo === repo) && r.split === split));
      if (!m.questions && !m.relatedPrs) continue;
      rows.push([
        repo,
        split,
        String(m.questions),
        pct(m.hit1),
        pct(m.hit3),
        m.mrr.toFixed(2),
        pct(m.bm25Hit1),
        pct(m.bm25Hit3),
        m.bm25Mrr.toFixed(2),
        m.bm25Hit3 ? (m.hit3 / m.bm25Hit3).toFixed(2) : '-',
        `${m.locatedRight}/${m.located}`,
        pct(m.readsHit),
        String(m.relatedPrs),
        pct(m.relatedHit5),
        pct(m.mentionHit5),
        String(m.bytesMax),
        m.msP50.toFixed(0),
        m.msP95.toFixed(0),
      ]);
    }
  }
  return rows;
}

export function renderTable(rows: string[][]): string {
  const w = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(w[i]!)).join('  ')).join('\n');
}

async function main(): Promise<void> {
  const a = process.argv.slice(2);
  const o: EvalOptions = {
    split: 'all',
    history: true,
    quick: false,
    scratch: process.env.HISTORY_EVAL_SCRATCH ?? '/work/scratch/rank',
    mirrorRoot: '/work/.mirror',
    progress: (m) => process.stderr.write(`  … ${m}\n`),
  };
  let outFile = path.join(o.scratch, 'results', 'latest.json');
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    if (x === '--repos') o.repos = a[++i]!.split(',');
    else if (x === '--split') o.split = a[++i] as EvalOptions['split'];
    else if (x === '--no-history') o.history = false;
    else if (x === '--quick') o.quick = true;
    else if (x === '--only') o.only = a[++i] as 'locate' | 'related';
    else if (x === '--out') outFile = a[++i]!;
    else if (x === '--mirror-root') o.mirrorRoot = a[++i]!;
    else throw new Error(`unknown argument ${x}`);
  }
  const rs = await evaluate(o);
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, JSON.stringify(rs, null, 1));
  process.stdout.write(renderTable(table(rs)) + `\n(details: ${outFile})\n`);
}

if (require.main === module) {
  main().then(
    () => setTimeout(() => process.exit(0), 100).unref(),
    (e) => {
      process.stderr.write(`${(e as Error).stack ?? e}\n`);
      process.exit(1);
    },
  );
}
