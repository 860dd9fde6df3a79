/**
 * Scores the engine's first-pass semantic answers against the Roslyn oracle:
 *
 *   npx tsx test/oracle/compare.ts --workspace DIR (--solution FILE | --project FILE ...)
 *       [--questions FILE | --sample N [--seed S]] [--ops definition,references,...,type_hierarchy] [--framework] [--shapes]
 *       [--truth FILE [--save-truth | --refresh OPS [--oracle-only]]] [--oracle-workspace RESTORED_DIR] [--all-projects]
 *       [--provider roslyn|csharp-ls] [--wait-ms MS (≤ 10000, the tools' maximum; default 10000)] [--settle-ms MS | --first-answer-only] [--json OUT] [--engine-arg ARG ...] [--check]
 *   npx tsx test/oracle/compare.ts --workspace DIR --truth FILE --rescore ENGINE_JSON   (score a saved run's answers again)
 *
 * DIR is the tree the engine reads; it is never written: the oracle runs on its own copy under the
 * temp folder — of DIR, or of RESTORED_DIR (the same sources restored: the truth for a never-restored
 * DIR). The engine is the built CLI (dist/cli.js: run `npm run build`) over a real MCP client on
 * stdio, with an index built first (index warm, semantic provider cold), and every question asked
 * once, in order. --truth FILE reads the oracle's answers from FILE instead of running it (a rerun
 * costs only the engine); with --save-truth the oracle runs and its answers (paths and positions
 * only) are written there; --refresh OPS (comma-separated ops, or `all`) runs the oracle again for
 * the truth's questions of those ops only and writes their new answers into FILE (the rest kept),
 * --oracle-only then stops before the engine; with --framework / --shapes the questions the oracle
 * samples anew are added under ids the truth does not have (old ids stay). --all-projects: the oracle also loads the project
 * files the solution leaves out (the engine searches every project of the tree). --rescore reads
 * the engine's answers from an earlier --json output instead of asking (a truth change costs no
 * engine run). --check exits 1 when a target of the issue is missed (on the scored answers).
 *
 * Scoring (the default, "settled"): every question is asked once, in order, as an agent would, and
 * an answer that says it is not finished (its own continuation: projects not searched by the
 * deadline, no answer in time, the host still loading, restore still running) is asked again until
 * it says it is finished or --settle-ms MS (default 120000) have passed since its first ask; the
 * answer reached is scored. An answer final as it stands (precise; unbound mentions; a position
 * that could not be bound) is never re-asked, and the truth is never consulted to decide.
 * Printed: the first answers' table (label and time per question, as the agent first saw them, and
 * what settling made of them), the first answers' per-op + honesty tables, then the settled
 * answers' per-op + honesty tables. Later questions meet a host warmed by the re-asks;
 * --first-answer-only asks each question once and scores that (a plain first pass).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from '../helpers/mcpClient';
import { askEngine, fileSet, formatScore, meetsTargets, runOracle, score, type EngineAnswer, type OracleOp, type OracleResult, type Question, type Score } from './oracle';

export interface CompareOptions {
  workspace: string;
  /** The restored tree the oracle takes its truth from (default: `workspace`). */
  oracleWorkspace?: string;
  /** Saved oracle answers: read instead of running the oracle (or written, with saveTruth). */
  truth?: string;
  saveTruth?: boolean;
  /** Ops whose truth answers are asked of the oracle again and merged into `truth` (`all`: every op). */
  refresh?: OracleOp[] | 'all';
  /** With refresh: stop after writing the truth (no engine run). */
  oracleOnly?: boolean;
  allProjects?: boolean;
  /** Engine answers from an earlier run's --json output: scored, not asked. */
  rescore?: string;
  framework?: boolean;
  /** The oracle also samples issue 23's framework-and-package shapes (ids x…); with refresh, the new ones are added. */
  shapes?: boolean;
  solution?: string;
  projects?: string[];
  questions?: Question[];
  sample?: { count: number; seed: number; ops?: OracleOp[] };
  waitMs?: number;
  /**
   * How long an unfinished answer is followed (re-asked as its own continuation says) from its first
   * ask; the answer reached is scored (default SETTLE_DEFAULT_MS). Later questions then meet a warmer
   * host than a plain first pass.
   */
  settleMs?: number;
  /** Score the first answers only (no re-ask): a plain first pass. */
  firstAnswerOnly?: boolean;
  engineArgs?: string[];
  /** Extra environment for the engine (e.g. SEXTANT_CSHARP_PROVIDER). */
  engineEnv?: Record<string, string>;
  log?: (s: string) => void;
}

/** Following an unfinished answer (asked again, as its continuation says) is bounded by this, from its first ask (lead's decision, 2026-12-02: ~120 s). */
export const SETTLE_DEFAULT_MS = 120_000;
/** A re-ask comes at least this long after the previous ask began (an answer that returns at once is not asked in a tight loop). */
const SETTLE_MIN_ASK_GAP_MS = 2_000;

/** A re-asked answer: what it became and when. */
export interface Settled {
  id: string;
  op: OracleOp;
  at: string;
  first: { mode: string; ms: number; reason?: string };
  /** The last answer: its mode, ms from the first ask until it came, asks in all. */
  last: { mode: string; ms: number; reason?: string; rows: number };
  asks: number;
  /** finished: the last answer no longer says it is unfinished; unfinished: still so when the budget ran out. */
  verdict: 'finished' | 'unfinished';
}

export interface CompareResult {
  oracle: OracleResult;
  /** The first answer to each question (label and time as the agent first saw them). */
  engine: EngineAnswer[];
  /** The answer reached by following each unfinished first answer (the first answer where it was final); absent with --first-answer-only. */
  final?: EngineAnswer[];
  /** The questions that were re-asked. */
  settles?: Settled[];
  /** The scored answers: `final` (settled), or the first ones with --first-answer-only. */
  score: Score;
  /** The first answers' score (equals `score` with --first-answer-only). */
  firstScore: Score;
  /** ms from the first question to the first precise answer (NaN: none). */
  firstPreciseMs: number;
  engineStderr: string;
}

/** Copies a tree (the oracle's own copy, or a fixture copy) into a fresh temp folder. */
export function copyTree(src: string, prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`)));
  fs.cpSync(src, dir, { recursive: true });
  return dir;
}

/** The built CLI over real stdio (as test/helpers/mcpClient.ts, plus environment). */
async function connectEngine(root: string, indexRoot: string, args: string[], env: Record<string, string>): Promise<{ client: Client; close(): Promise<void>; stderr(): string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--workspace-root', root, '--index-root', indexRoot, ...args],
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  let err = '';
  transport.stderr?.on('data', (b: Buffer) => {
    err = (err + b.toString('utf8')).slice(-200_000);
  });
  const client = new Client({ name: 'sextant-oracle-compare', version: '0.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => err };
}

/**
 * The oracle's answers as saved for reruns: paths, positions and symbol names only. The list of
 * compiled documents (the truth's scope) is kept only when the oracle loaded a subset of the
 * projects (`subset`); for a whole solution the original tree is the scope.
 */
export function truthFile(r: OracleResult, subset: boolean): OracleResult {
  return {
    projects: r.projects,
    loadMs: r.loadMs,
    answerMs: r.answerMs,
    workspaceDiagnostics: [],
    ...(subset && r.documents ? { documents: r.documents } : {}),
    questions: r.questions,
    answers: r.answers.map(({ id, op, symbol, items, error, ms }) => ({
      id,
      op,
      ms,
      ...(symbol ? { symbol } : {}),
      ...(error ? { error } : {}),
      ...(items ? { items: items.map(({ sites: _sites, via: _via, ...i }) => i) } : {}),
    })),
  };
}

/** Runs the oracle on its own copy of the restored tree (never the engine's). */
function oracleOn(o: CompareOptions, questions: Question[] | undefined, log: (s: string) => void): OracleResult {
  const oracleCopy = copyTree(o.oracleWorkspace ?? o.workspace, 'sextant-oracle-ws');
  try {
    const t = Date.now();
    const r = runOracle({
      root: oracleCopy,
      ...(o.solution ? { solution: o.solution } : {}),
      ...(o.projects ? { projects: o.projects } : {}),
      ...(questions ? { questions } : { sample: o.sample ?? { count: 40, seed: 1 } }),
      ...(o.framework ? { framework: true } : {}),
      ...(o.shapes ? { shapes: true } : {}),
      ...(o.allProjects ? { allProjects: true } : {}),
    });
    log(`oracle: ${r.projects} projects, ${r.questions.length} questions in ${Date.now() - t} ms (load ${r.loadMs} ms)`);
    for (const d of r.workspaceDiagnostics.filter((x) => x.startsWith('Added') || x.startsWith('Failure')).slice(0, 10)) log(`  oracle diagnostic: ${d.slice(0, 200)}`);
    return r;
  } finally {
    fs.rmSync(oracleCopy, { recursive: true, force: true });
  }
}

/**
 * The truth with the answers of `ops` asked again (same questions, same ids), plus the questions
 * the oracle sampled anew (--framework / --shapes) whose ids the truth does not have yet (one asking
 * the same op at the same place as an old question is left out): old ids never change.
 */
export function mergeTruth(old: OracleResult, fresh: OracleResult, subset: boolean): OracleResult {
  const byId = new Map(fresh.answers.map((a) => [a.id, a]));
  const ids = new Set(old.questions.map((q) => q.id));
  const asked = new Set(old.questions.map((q) => `${q.op} ${key(q)}`));
  const added = fresh.questions.filter((q) => !ids.has(q.id) && !asked.has(`${q.op} ${key(q)}`));
  return truthFile(
    {
      ...old,
      projects: fresh.projects,
      ...(subset ? { documents: [...new Set([...(old.documents ?? []), ...(fresh.documents ?? [])])].sort() } : {}),
      questions: [...old.questions, ...added],
      answers: [...old.answers.map((a) => byId.get(a.id) ?? a), ...added.flatMap((q) => byId.get(q.id) ?? [])],
    },
    subset,
  );
}

const key = (q: Question) => `${q.path}:${q.line}:${q.column}`;

export function refreshTruth(o: CompareOptions, old: OracleResult, ops: OracleOp[] | 'all', log: (s: string) => void): OracleResult {
  const asked = old.questions.filter((q) => ops === 'all' || ops.includes(q.op));
  const fresh = oracleOn(o, asked, log);
  // a truth that was scoped to the documents its oracle compiled keeps that scope
  const subset = o.projects !== undefined || old.documents !== undefined;
  return mergeTruth(old, o.projects ? fresh : { ...fresh, documents: [] }, subset);
}

export async function compare(o: CompareOptions): Promise<CompareResult> {
  const log = o.log ?? (() => undefined);
  const original = fileSet(o.workspace);
  let oracle: OracleResult;
  if (o.truth && o.refresh) {
    oracle = refreshTruth(o, JSON.parse(fs.readFileSync(o.truth, 'utf8')) as OracleResult, o.refresh, log);
    fs.writeFileSync(o.truth, JSON.stringify(oracle) + '\n');
    log(`oracle answers of ${o.refresh === 'all' ? 'every op' : o.refresh.join(', ')} written into ${o.truth}`);
  } else if (o.truth && !o.saveTruth) {
    oracle = JSON.parse(fs.readFileSync(o.truth, 'utf8')) as OracleResult;
    if (o.questions) {
      const ids = new Set(o.questions.map((q) => q.id));
      oracle = { ...oracle, questions: oracle.questions.filter((q) => ids.has(q.id)) };
    }
    log(`oracle: ${oracle.questions.length} questions from ${o.truth}`);
  } else {
    oracle = oracleOn(o, o.questions, log);
    if (o.truth) {
      fs.mkdirSync(path.dirname(o.truth), { recursive: true });
      fs.writeFileSync(o.truth, JSON.stringify(truthFile(oracle, o.projects !== undefined)) + '\n');
      log(`oracle answers saved to ${o.truth}`);
    }
  }
  const scoreOf = (engine: EngineAnswer[]) => score(oracle.questions, oracle.answers, engine, original, oracle.documents);
  if (o.oracleOnly) return { oracle, engine: [], score: scoreOf([]), firstScore: scoreOf([]), firstPreciseMs: NaN, engineStderr: '' };
  if (o.rescore) {
    // an earlier run's answers (one without `final` was a first pass only)
    const saved = JSON.parse(fs.readFileSync(o.rescore, 'utf8')) as CompareResult;
    const { final: savedFinal, ...rest } = saved;
    const final = o.firstAnswerOnly ? undefined : savedFinal;
    return { ...rest, oracle, ...(final ? { final } : {}), score: scoreOf(final ?? saved.engine), firstScore: scoreOf(saved.engine) };
  }
  const indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-oracle-idx-'));
  try {
    const t = Date.now();
    const ix = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', o.workspace, '--index-root', indexRoot], { encoding: 'utf8', timeout: 1_800_000 });
    if (ix.status !== 0) throw new Error(`sextant index failed (${ix.status}): ${ix.stderr.slice(-2000)}`);
    log(`engine: index built in ${Date.now() - t} ms`);
    const c = await connectEngine(o.workspace, indexRoot, o.engineArgs ?? [], o.engineEnv ?? {});
    const engine: EngineAnswer[] = [];
    const final: EngineAnswer[] = [];
    const settles: Settled[] = [];
    const started = Date.now();
    let firstPreciseMs = NaN;
    const waitMs = o.waitMs ?? 10_000;
    try {
      for (const q of oracle.questions) {
        const a = await askEngine(c.client, q, waitMs);
        engine.push(a);
        if (Number.isNaN(firstPreciseMs) && a.mode === 'precise') firstPreciseMs = Date.now() - started;
        log(`  ${q.id} ${q.op} ${q.path}:${q.line}:${q.column} → ${a.mode}${a.provider ? ` (${a.provider})` : ''} ${a.items.length} in ${a.ms} ms${a.error ? ` ERROR ${a.error}` : ''}`);
        if (o.firstAnswerOnly) continue;
        const s = await settle(q, a, (budget) => askEngine(c.client, q, Math.min(waitMs, budget)), o.settleMs ?? SETTLE_DEFAULT_MS);
        final.push(s.answer);
        if (s.settled) {
          settles.push(s.settled);
          log(`    settle ${q.id}: ${s.settled.first.mode} → ${s.settled.last.mode} after ${s.settled.last.ms} ms (${s.settled.asks} asks): ${s.settled.verdict}`);
        }
      }
    } finally {
      await c.close();
    }
    const firstScore = scoreOf(engine);
    if (o.firstAnswerOnly) return { oracle, engine, score: firstScore, firstScore, firstPreciseMs, engineStderr: c.stderr() };
    return { oracle, engine, final, settles, score: scoreOf(final), firstScore, firstPreciseMs, engineStderr: c.stderr() };
  } finally {
    fs.rmSync(indexRoot, { recursive: true, force: true });
  }
}

/**
 * What an answer says of itself that an agent follows by asking again: projects not searched by the
 * deadline (a project "not searched" for another reason — AutoMapper xi-idisposable: "more
 * framework/package types derive from IDisposable than were looked up … not searched" — is final:
 * asking again gives the same answer), no answer in time, the host still loading, restore still running, "ask again". Unbound
 * mentions, a position that could not be bound, or a heuristic answer for another reason are final.
 */
const UNFINISHED = /\(deadline|by the deadline|deadline came|in time|no answer within|ask again|still (loading|working|compiling|restoring)|restoring \d+ of \d+ projects|STILL_WORKING/i;

/** The answer says it is not finished (its own continuation): an agent asks again. */
export function unfinished(a: EngineAnswer): boolean {
  if (a.mode === 'precise' || a.mode === 'ambiguous') return false;
  return UNFINISHED.test(a.mode === 'error' ? (a.error ?? '') : (a.reason ?? ''));
}

/**
 * Follows one question's answer: while it says it is unfinished, asks again (`ask(budgetMs)`, at
 * most one ask per SETTLE_MIN_ASK_GAP_MS) until it no longer does or `budgetMs` have passed since
 * the first ask. The answer reached (its ms from the first ask) and, when it was re-asked, how.
 */
export async function settle(q: Question, first: EngineAnswer, ask: (budgetMs: number) => Promise<EngineAnswer>, budgetMs: number, now: () => number = Date.now, sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))): Promise<{ answer: EngineAnswer; settled?: Settled }> {
  if (!unfinished(first)) return { answer: first };
  const t0 = now() - first.ms;
  let last = first;
  let lastAsk = t0;
  let asks = 1;
  while (unfinished(last) && now() - t0 < budgetMs) {
    const gap = lastAsk + SETTLE_MIN_ASK_GAP_MS - now();
    if (gap > 0) await sleep(gap);
    lastAsk = now();
    last = await ask(Math.max(1_000, budgetMs - (now() - t0)));
    asks++;
  }
  const ms = now() - t0;
  const said = (x: EngineAnswer) => (x.reason ? { reason: x.reason.slice(0, 200) } : x.error ? { reason: x.error.slice(0, 200) } : {});
  return {
    answer: { ...last, ms },
    settled: {
      id: q.id,
      op: q.op,
      at: `${q.path}:${q.line}:${q.column}`,
      first: { mode: first.mode, ms: first.ms, ...said(first) },
      last: { mode: last.mode, ms, rows: last.items.length, ...said(last) },
      asks,
      verdict: unfinished(last) ? 'unfinished' : 'finished',
    },
  };
}

/** The first answers' table: each question's label and time as first seen, and what following it gave. */
export function firstAnswerTable(r: Pick<CompareResult, 'engine' | 'final' | 'settles'>): string {
  const settles = new Map((r.settles ?? []).map((s) => [s.id, s]));
  const ms = (xs: number[]) => {
    const v = [...xs].sort((a, b) => a - b);
    const at = (p: number) => v[Math.min(v.length - 1, Math.ceil(p * v.length) - 1)];
    return v.length ? `p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${v[v.length - 1]} ms` : '—';
  };
  const lines = ['  first answers (label, time) → settled (label, time from the first ask, asks)', '    id               op               first label            first ms   settled label          settled ms  asks'];
  for (const a of r.engine) {
    const s = settles.get(a.id);
    const f = r.final?.find((x) => x.id === a.id);
    lines.push(`    ${a.id.padEnd(16)} ${a.op.padEnd(16)} ${a.mode.padEnd(22)} ${String(a.ms).padStart(8)}   ${(s ? s.last.mode : f ? '=' : '').padEnd(22)} ${s ? String(s.last.ms).padStart(10) : ''.padStart(10)}  ${s ? String(s.asks).padStart(4) : ''}`);
  }
  lines.push(`    first answers: ${ms(r.engine.map((a) => a.ms))}; precise at once ${r.engine.filter((a) => a.mode === 'precise').length} of ${r.engine.length}`);
  if (r.final) lines.push(`    settled answers: ${ms(r.final.map((a) => a.ms))}; precise ${r.final.filter((a) => a.mode === 'precise').length} of ${r.final.length}; re-asked ${settles.size} (still unfinished at the bound: ${[...settles.values()].filter((s) => s.verdict === 'unfinished').length})`);
  return lines.join('\n');
}

function parse(argv: string[]) {
  const o: CompareOptions & { json?: string; check: boolean } = { workspace: '', check: false, engineArgs: [] };
  let count = 0;
  let seed = 1;
  let ops: OracleOp[] | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const v = () => {
      const x = argv[++i];
      if (x === undefined) throw new Error(`${a} needs a value`);
      return x;
    };
    if (a === '--workspace') o.workspace = path.resolve(v());
    else if (a === '--oracle-workspace') o.oracleWorkspace = path.resolve(v());
    else if (a === '--truth') o.truth = path.resolve(v());
    else if (a === '--save-truth') o.saveTruth = true;
    else if (a === '--refresh') {
      const x = v();
      o.refresh = x === 'all' ? 'all' : (x.split(',') as OracleOp[]);
    } else if (a === '--oracle-only') o.oracleOnly = true;
    else if (a === '--all-projects') o.allProjects = true;
    else if (a === '--rescore') o.rescore = path.resolve(v());
    else if (a === '--framework') o.framework = true;
    else if (a === '--shapes') o.shapes = true;
    else if (a === '--solution') o.solution = v();
    else if (a === '--project') (o.projects ??= []).push(v());
    else if (a === '--questions') o.questions = JSON.parse(fs.readFileSync(v(), 'utf8')) as Question[];
    else if (a === '--sample') count = Number(v());
    else if (a === '--seed') seed = Number(v());
    else if (a === '--ops') ops = v().split(',') as OracleOp[];
    else if (a === '--wait-ms') o.waitMs = Number(v());
    else if (a === '--settle-ms') o.settleMs = Number(v());
    else if (a === '--first-answer-only') o.firstAnswerOnly = true;
    else if (a === '--json') o.json = v();
    else if (a === '--engine-arg') o.engineArgs!.push(v());
    else if (a === '--provider') o.engineEnv = { SEXTANT_CSHARP_PROVIDER: v() };
    else if (a === '--check') o.check = true;
    else throw new Error(`unknown argument ${a}`);
  }
  if (!o.workspace) throw new Error('--workspace is required');
  if ((o.refresh || o.rescore) && !o.truth) throw new Error('--refresh and --rescore need --truth FILE');
  if (!o.questions) o.sample = { count: count || 40, seed, ...(ops ? { ops } : {}) };
  return o;
}

async function main(): Promise<number> {
  const o = parse(process.argv.slice(2));
  const r = await compare({ ...o, log: (s) => console.error(s) });
  if (o.oracleOnly) return 0;
  const title = `oracle comparison: ${o.workspace} (${r.oracle.projects} oracle projects; first precise after ${r.firstPreciseMs} ms)`;
  if (r.engine.length) console.log(firstAnswerTable(r));
  console.log(formatScore(`${title}\nFIRST ANSWERS (each question asked once):`, r.firstScore));
  if (r.final) console.log(formatScore(`SETTLED ANSWERS (scored: unfinished answers followed up to ${Math.round((o.settleMs ?? SETTLE_DEFAULT_MS) / 1000)} s from the first ask):`, r.score));
  for (const st of r.settles ?? []) console.log(`  settle ${st.id} ${st.op} ${st.at} first ${st.first.mode} in ${st.first.ms} ms → ${st.last.mode} after ${st.last.ms} ms (${st.asks} asks, ${st.last.rows} rows) ${st.verdict}${st.last.reason ? ` — ${st.last.reason}` : ''}`);
  for (const m of r.score.misses.slice(0, 60)) {
    console.log(`  miss ${m.id} ${m.op} ${m.at} ${m.symbol ?? ''} [${m.mode}] missing ${m.missingCount}: ${m.missing.join(' ')} extra ${m.extra.join(' ')}`);
    // how the engine found its extra rows (via, binds_to, confidence, sites)
    const detail = (r.final ?? r.engine).find((a) => a.id === m.id)?.detail ?? [];
    for (const d of detail.filter((x) => m.extra.includes(x.split(' ')[0]!)).slice(0, 5)) console.log(`      extra ${d}`);
  }
  if (o.json) fs.writeFileSync(o.json, JSON.stringify(r, null, 2));
  const t = meetsTargets(r.score);
  if (!t.ok) console.log(`  targets missed: ${t.failures.join('; ')}`);
  return o.check && !t.ok ? 1 : 0;
}

if (require.main === module) {
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(e);
      process.exit(2);
    },
  );
}
