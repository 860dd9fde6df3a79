/**
 * Precise facts that outlive the process (issue 26), in one run on the same workspace, index warm:
 *   (a) cold: a fresh `sextant mcp` (Roslyn host cold, nothing persisted) asked the questions once
 *       each, then the wide question (references of the manifest's generic base, ~400 projects on
 *       the 3,000-project workspace) until precise, then every answer that was not precise again
 *       until it is (these precise answers are the truth the others are compared with); then it
 *       idles until its persisted layer's background pass has written the projects' facts;
 *   (b) a second engine on a copy of (a)'s index (persisted facts), the same questions once each;
 *   (c) a copy of the index before (a), 4 `sextant scip export --shard K/4` processes run side by
 *       side (each on its own copy, as CI machines would), then an engine importing the 4 files
 *       (`--scip`), the same questions once each.
 * Per run: time to the first precise answer from the first question, the wide question's time,
 * answers equal to (a)'s row for row (sets of path:line:column), who answered, the background
 * start's compile count (log), peak RSS of the engine, its host and each export process.
 * Questions come from the manifest's facts: references at declarations, implementations of
 * interfaces and classes, definitions at a use in another file. `--quick`: 8 questions, shorter waits.
 * SEXTANT_BENCH_PRECISE_STATE=DIR keeps (a)'s outcome and reuses it in later runs (see run());
 * SEXTANT_BENCH_PRECISE_RUNS=a|a,b|b,c|… picks the runs.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { askEngine, type EngineAnswer, type Question } from '../../oracle/oracle';
import type { WorkspaceManifest } from '../../fixtures/generate/manifest';
import type { BenchContext, BenchSection, Metric } from '../types';
import { treeMonitor } from './csharpProviders';
import { hasCSharpProjects } from './semantic';

const SHARDS = 4;
/** (a): quiet time before its persisted layer's pass (SEXTANT_PRECISE_IDLE_MS): the bench waits for the pass anyway. */
const PASS_IDLE_MS = 5_000;
/** Left out of the questions: names in tens of thousands of files (a cold references answer takes minutes), code no project compiles. */
const SKIP_FACTS = new Set(['hotType', 'hotInterface', 'genericBase', 'compileRemoved']);

interface Limits {
  questions: number;
  /** Each question's wait in a tool call (the tools' waitMs). */
  askMs: number;
  /** (a): the wide question and each truth answer asked again while not precise, for at most this long. */
  untilPreciseMs: number;
  /** (a): how long to wait for the background pass to finish. */
  passMs: number;
  exportMs: number;
}
const FULL: Limits = { questions: 20, askMs: 10_000, untilPreciseMs: 900_000, passMs: 5_400_000, exportMs: 5_400_000 };
const QUICK: Limits = { questions: 8, askMs: 10_000, untilPreciseMs: 300_000, passMs: 900_000, exportMs: 900_000 };

type Sym = Extract<WorkspaceManifest['facts'][number], { kind: 'symbol' }>;

/** The questions: per fact, references at its declaration, implementations (interfaces, classes), a definition at a use elsewhere. */
export function preciseQuestions(root: string, m: WorkspaceManifest, n: number): Question[] {
  const per: Question[][] = [];
  for (const f of m.facts) {
    if (f.kind !== 'symbol' || SKIP_FACTS.has(f.id) || !f.declarations[0] || f.mentionFiles > 1000) continue;
    const d = f.declarations[0];
    const qs: Question[] = [{ id: `${f.id}:refs`, op: 'references', path: d.path, line: d.line, column: d.column }];
    if (f.symbolKind === 'interface' || f.symbolKind === 'class') qs.push({ id: `${f.id}:impl`, op: 'implementations', path: d.path, line: d.line, column: d.column });
    const use = useSite(root, f);
    if (use) qs.push({ id: `${f.id}:def`, op: 'definition', ...use });
    per.push(qs);
  }
  return per.flat().slice(0, n);
}

function useSite(root: string, f: Sym): { path: string; line: number; column: number } | undefined {
  const decl = new Set(f.declarations.map((d) => d.path));
  const re = new RegExp(`\\b${f.name}\\b`);
  for (const p of (f as { mentionPaths?: string[] }).mentionPaths ?? []) {
    if (decl.has(p) || !p.endsWith('.cs')) continue;
    const lines = fs.readFileSync(path.join(root, p), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      const l = lines[i]!;
      if (/^\s*(\/\/|using |namespace )/.test(l)) continue;
      const at = re.exec(l);
      if (at) return { path: p, line: i + 1, column: at.index + 1 };
    }
  }
  return undefined;
}

interface Engine {
  client: Client;
  pid: number;
  log: string[];
  mon: ReturnType<typeof treeMonitor>;
  connectMs: number;
}

async function startEngine(ctx: BenchContext, root: string, indexRoot: string, extra: string[], label: string, env: Record<string, string> = {}): Promise<Engine> {
  const log: string[] = [];
  // SEXTANT_BENCH_PRECISE_LOGS=DIR keeps each engine's whole stderr (timestamped) as DIR/<label>.log
  const keep = process.env.SEXTANT_BENCH_PRECISE_LOGS ? path.join(process.env.SEXTANT_BENCH_PRECISE_LOGS, `${label}.log`) : undefined;
  const transport = new StdioClientTransport({
    command: ctx.options.cli[0]!,
    args: [...ctx.options.cli.slice(1), 'mcp', '--workspace-root', root, '--index-root', indexRoot, ...extra],
    // the bench's own SEXTANT_* settings reach the engine (SEXTANT_LOG_LEVEL=debug for a breakdown)
    env: { ...getDefaultEnvironment(), ...sextantEnv(), SEXTANT_CSHARP_PROVIDER: 'roslyn', ...env },
    stderr: 'pipe',
  });
  let rest = '';
  transport.stderr?.on('data', (b: Buffer) => {
    const lines = (rest + b.toString('utf8')).split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) if (/persisted layer|background start|precise facts: .*refused/.test(l)) log.push(l);
    if (keep) fs.appendFileSync(keep, lines.map((l) => `${new Date().toISOString().slice(11, 23)} ${l}\n`).join(''));
  });
  const client = new Client({ name: `sextant-bench-precise-${label}`, version: '0.0.0' });
  const t = Date.now();
  await client.connect(transport);
  return { client, pid: transport.pid!, log, mon: treeMonitor(transport.pid!), connectMs: Date.now() - t };
}

/** The SEXTANT_* variables of the bench process, except the bench's own settings. */
function sextantEnv(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('SEXTANT_') && !e[0].startsWith('SEXTANT_BENCH_') && e[1] !== undefined));
}

interface Run {
  label: string;
  answers: EngineAnswer[];
  /** From the first question to the first precise answer. */
  firstPreciseMs: number | undefined;
  wide?: { ms: number | undefined; asks: number; mode: string; rows: number };
  answeredBy: Record<string, number>;
  peakEngineMiB: number;
  peakHostMiB: number;
  prewarm?: string | undefined;
}

/** Asks each question once (the first pass), then the wide one once or until precise. */
/** A stage's figures as soon as they are known (a 3,000-project run takes hours). */
function stage(line: string): void {
  process.stderr.write(`precise: ${new Date().toISOString().slice(11, 19)} ${line}\n`);
}

async function ask(ctx: BenchContext, e: Engine, label: string, questions: Question[], wide: Question | undefined, lim: Limits, untilPrecise: boolean): Promise<Run> {
  const answers: EngineAnswer[] = [];
  const t0 = Date.now();
  let firstPreciseMs: number | undefined;
  for (const q of questions) {
    const a = await askEngine(e.client, q, lim.askMs);
    answers.push(a);
    if (firstPreciseMs === undefined && a.mode === 'precise') firstPreciseMs = Date.now() - t0;
    ctx.progress(`${label} ${q.id} → ${a.mode}/${a.provider ?? ''} ${a.items.length} rows in ${a.ms} ms`);
    if (a.mode === 'error') stage(`${label} ${q.id} failed after ${a.ms} ms: ${a.error ?? ''}`);
  }
  let w: Run['wide'];
  if (wide) {
    const tw = Date.now();
    w = { ms: undefined, asks: 0, mode: 'none', rows: 0 };
    for (;;) {
      const a = await askEngine(e.client, wide, lim.askMs);
      w.asks++;
      w.mode = a.mode;
      w.rows = a.items.length;
      answers.push(a);
      ctx.progress(`${label} wide ask ${w.asks} → ${a.mode}/${a.provider ?? ''} ${a.items.length} rows in ${a.ms} ms`);
      if (a.mode === 'precise') {
        w.ms = Date.now() - tw;
        break;
      }
      if (!untilPrecise || Date.now() - tw > lim.untilPreciseMs) break;
    }
  }
  const answeredBy: Record<string, number> = {};
  for (const a of answers) answeredBy[`${a.mode}/${a.provider ?? '-'}`] = (answeredBy[`${a.mode}/${a.provider ?? '-'}`] ?? 0) + 1;
  stage(`${label} first precise ${firstPreciseMs ?? '—'} ms, wide ${w?.ms ?? '—'} ms (${w?.asks ?? 0} asks, ${w?.rows ?? 0} rows), answered by ${JSON.stringify(answeredBy)}`);
  return { label, answers, firstPreciseMs, ...(w ? { wide: w } : {}), answeredBy, peakEngineMiB: 0, peakHostMiB: 0 };
}

async function stopEngine(e: Engine, r: Run): Promise<void> {
  const m = e.mon.stop();
  r.peakEngineMiB = m.peakEngineMiB;
  r.peakHostMiB = m.peakProviderMiB;
  r.prewarm = e.log.find((l) => l.includes('background start'))?.replace(/^.*background start /, '');
  await e.client.close();
}

/** The last answer per question id. */
const lastById = (answers: EngineAnswer[]) => new Map(answers.map((a) => [a.id, a]));
const rowsOf = (a: EngineAnswer | undefined) => JSON.stringify([...(a?.items ?? [])].sort());

function sextant(ctx: BenchContext, args: string[], timeoutMs: number): { ok: boolean; out: string; ms: number } {
  const t = Date.now();
  const r = spawnSync(ctx.options.cli[0]!, [...ctx.options.cli.slice(1), ...args], { encoding: 'utf8', timeout: timeoutMs, maxBuffer: 1 << 26 });
  return { ok: r.status === 0, out: (r.stderr ?? '') + (r.stdout ?? ''), ms: Date.now() - t };
}

/** Runs the shard exports side by side, each on its own index copy; peak RSS of each process tree. */
async function exportShards(ctx: BenchContext, root: string, baseIndex: string, outDir: string, lim: Limits): Promise<{ ms: number; shards: { shard: string; ok: boolean; ms: number; peakMiB: number; summary: string }[] }> {
  fs.mkdirSync(outDir, { recursive: true });
  const t0 = Date.now();
  const runs = Array.from({ length: SHARDS }, (_, i) => {
    const shard = `${i + 1}/${SHARDS}`;
    const idx = path.join(ctx.scratch, `precise-shard-index-${i + 1}`);
    fs.cpSync(baseIndex, idx, { recursive: true });
    const out = path.join(outDir, `shard-${i + 1}.scip`);
    const child = spawn(ctx.options.cli[0]!, [...ctx.options.cli.slice(1), 'scip', 'export', '--workspace-root', root, '--index-root', idx, '--shard', shard, '--out', out], { stdio: ['ignore', 'ignore', 'pipe'] });
    const mon = treeMonitor(child.pid!);
    let err = '';
    child.stderr!.on('data', (b: Buffer) => (err = (err + b.toString('utf8')).slice(-4000)));
    const timer = setTimeout(() => child.kill('SIGTERM'), lim.exportMs);
    return new Promise<{ shard: string; ok: boolean; ms: number; peakMiB: number; summary: string }>((resolve) =>
      child.on('exit', (code) => {
        clearTimeout(timer);
        const m = mon.stop();
        fs.rmSync(idx, { recursive: true, force: true });
        resolve({ shard, ok: code === 0, ms: Date.now() - t0, peakMiB: m.peakTreeMiB, summary: (err.match(/scip export: \d+ documents[^\n]*/)?.[0] ?? err.slice(-300)).replace(/ → .*$/, '') });
      }),
    );
  });
  const shards = await Promise.all(runs);
  return { ms: Date.now() - t0, shards };
}

export const section: BenchSection = {
  name: 'precise',
  order: 57,
  description: 'precise facts: (a) cold host, (b) second engine on persisted facts, (c) engine on 4 imported shards — first precise, wide references, answers row for row, peak RSS',
  appliesTo: (t) => hasCSharpProjects(t.root) && t.manifest !== undefined,
  async run(ctx) {
    const lim = ctx.options.quick ? QUICK : FULL;
    const root = ctx.target.root;
    const m = ctx.target.manifest!;
    const notes: string[] = ['workspace not restored: the host resolves packages from the machine\'s NuGet cache (as csharp-restore measures)'];
    const questions = preciseQuestions(root, m, lim.questions);
    const wideFact = m.facts.find((f): f is Sym => f.kind === 'symbol' && f.id === 'genericBase');
    const wd = wideFact?.declarations[0];
    const wide: Question | undefined = wd ? { id: 'wide:refs', op: 'references', path: wd.path, line: wd.line, column: wd.column } : undefined;
    if (wideFact && wd) notes.push(`wide question: references of ${wideFact.name} at ${wd.path}:${wd.line}:${wd.column} (${wideFact.mentionFiles} files mention it)`);
    notes.push(`questions: ${questions.map((q) => q.id).join(', ')}`);

    // SEXTANT_BENCH_PRECISE_STATE=DIR keeps (a)'s outcome — the index before (a), (a)'s index with its
    // persisted facts, its truth, the shard exports — and a later run with the same DIR starts from
    // it: (b) and (c) again without (a)'s background pass (half an hour on 3,000 projects).
    // SEXTANT_BENCH_PRECISE_RUNS=a,b,c picks the runs (default all three).
    const stateDir = process.env.SEXTANT_BENCH_PRECISE_STATE ? path.resolve(process.env.SEXTANT_BENCH_PRECISE_STATE) : undefined;
    const runs = new Set((process.env.SEXTANT_BENCH_PRECISE_RUNS ?? 'a,b,c').split(',').map((x) => x.trim()));
    const saved = stateDir ? loadState(stateDir, root, questions) : undefined;
    if (stateDir) notes.push(saved ? `(a) taken from ${stateDir} (saved ${saved.savedAt}): not run again` : `state kept in ${stateDir}`);

    const baseIndex = saved ? path.join(stateDir!, 'base') : path.join(ctx.scratch, 'precise-index');
    if (!saved) {
      ctx.progress('precise: indexing (shared by the runs)…');
      const ix = sextant(ctx, ['index', '--workspace-root', root, '--index-root', baseIndex], 3_600_000);
      if (!ix.ok) return { metrics: [], notes: [...notes, `sextant index failed: ${ix.out.slice(-500)}`] };
      notes.push(`index built in ${(ix.ms / 1000).toFixed(0)} s`);
      stage(`index built in ${(ix.ms / 1000).toFixed(0)} s; ${questions.length} questions`);
    }

    // (a) cold, or its saved outcome
    let a: Run;
    let truth: Map<string, EngineAnswer>;
    let passMs: number;
    let idxA: string;
    if (saved) {
      ({ a, passMs } = saved);
      truth = new Map(saved.truth.map((x) => [x.id, x]));
      idxA = path.join(stateDir!, 'a');
      notes.push(...saved.notes);
    } else {
      idxA = path.join(ctx.scratch, 'precise-index-a');
      fs.cpSync(baseIndex, idxA, { recursive: true });
      // (a)'s background pass starts after PASS_IDLE_MS without a question (the engine's default is a minute)
      const ea = await startEngine(ctx, root, idxA, [], 'a', { SEXTANT_PRECISE_IDLE_MS: String(PASS_IDLE_MS) });
      a = await ask(ctx, ea, '(a)', questions, wide, lim, true);
      // the truth: each answer asked again until precise
      truth = lastById(a.answers);
      // each question not precise yet gets an equal share of what is left of the truth's time (one
      // shared budget let the first such question — a linked file all 3,000 projects compile —
      // take all of it, and five others were never asked again)
      const tt = Date.now();
      const truthMs = 2 * lim.untilPreciseMs;
      const owed = questions.filter((q) => truth.get(q.id)?.mode !== 'precise');
      for (const [i, q] of owed.entries()) {
        const tq = Date.now();
        const shareMs = (truthMs - (tq - tt)) / (owed.length - i);
        while (truth.get(q.id)?.mode !== 'precise' && Date.now() - tq < shareMs) {
          const x = await askEngine(ea.client, q, lim.askMs);
          truth.set(q.id, x);
          ctx.progress(`(a) truth ${q.id} → ${x.mode} in ${x.ms} ms`);
        }
      }
      const notTruth = [...questions, ...(wide ? [wide] : [])].filter((q) => truth.get(q.id)?.mode !== 'precise').map((q) => `${q.id} (${truth.get(q.id)?.mode})`);
      const aNotes: string[] = [];
      if (notTruth.length) aNotes.push(`(a) never precise (not compared): ${notTruth.join(', ')}`);
      // the background pass: written when its completion line is logged
      const tp = Date.now();
      ctx.progress('(a) idle: waiting for the persisted layer’s background pass…');
      while (!ea.log.some((l) => /persisted layer: \d+ project\(s\) persisted/.test(l)) && Date.now() - tp < lim.passMs) await new Promise((r) => setTimeout(r, 2_000));
      passMs = Date.now() - tp;
      stage(`(a) background pass ended after ${(passMs / 1000).toFixed(0)} s idle`);
      const units = fs.existsSync(path.join(idxA, 'precise')) ? fs.readdirSync(path.join(idxA, 'precise')).filter((f) => f.endsWith('.scip')).length : 0;
      aNotes.push(`(a) background pass (after ${PASS_IDLE_MS} ms quiet, SEXTANT_PRECISE_IDLE_MS): ${units} project files under precise/ after ${(passMs / 1000).toFixed(0)} s idle (${m.projects.length} projects in the manifest); log: ${ea.log.filter((l) => l.includes('persisted layer')).slice(-2).join(' | ')}`);
      await stopEngine(ea, a);
      notes.push(...aNotes);
      if (stateDir) saveState(stateDir, { root, questions: questions.map((q) => q.id), savedAt: new Date().toISOString(), a, passMs, truth: [...truth.values()], notes: aNotes }, baseIndex, idxA);
    }

    // (b) a second engine on (a)'s index
    let b: Run | undefined;
    if (runs.has('b')) {
      const idxB = path.join(ctx.scratch, 'precise-index-b');
      copyIndex(idxA, idxB);
      if (!stateDir) fs.rmSync(idxA, { recursive: true, force: true });
      const eb = await startEngine(ctx, root, idxB, [], 'b');
      b = await ask(ctx, eb, '(b)', questions, wide, lim, false);
      await stopEngine(eb, b);
      fs.rmSync(idxB, { recursive: true, force: true });
    }

    // (c) 4 shard exports (or the saved ones), then an engine importing them
    let c: Run | undefined;
    let ex: Exports | undefined;
    if (runs.has('c')) {
      const scipDir = stateDir ? path.join(stateDir, 'shards') : path.join(ctx.scratch, 'precise-shards');
      const savedEx = stateDir && fs.existsSync(path.join(stateDir, 'exports.json')) ? (JSON.parse(fs.readFileSync(path.join(stateDir, 'exports.json'), 'utf8')) as Exports) : undefined;
      if (savedEx) {
        ex = savedEx;
        notes.push(`(c) shards taken from ${scipDir} (exported earlier): not exported again`);
      } else {
        ctx.progress(`(c) ${SHARDS} shard exports side by side…`);
        ex = await exportShards(ctx, root, baseIndex, scipDir, lim);
        if (stateDir && ex.shards.every((x) => x.ok)) fs.writeFileSync(path.join(stateDir, 'exports.json'), JSON.stringify(ex));
      }
      stage(`(c) exports ${(ex.ms / 1000).toFixed(0)} s: ${ex.shards.map((x) => `${x.shard} ${x.peakMiB.toFixed(0)} MiB ${(x.ms / 1000).toFixed(0)} s ${x.summary}`).join('; ')}`);
      const idxC = path.join(ctx.scratch, 'precise-index-c');
      fs.cpSync(baseIndex, idxC, { recursive: true });
      const ec = await startEngine(ctx, root, idxC, ['--scip', scipDir], 'c');
      c = await ask(ctx, ec, '(c)', questions, wide, lim, false);
      await stopEngine(ec, c);
      fs.rmSync(idxC, { recursive: true, force: true });
    }

    const compare = (r: Run | undefined) => {
      const equal: string[] = [];
      const differ: string[] = [];
      if (!r) return { equal, differ };
      const got = lastById(r.answers);
      for (const q of [...questions, ...(wide ? [wide] : [])]) {
        const t = truth.get(q.id);
        if (t?.mode !== 'precise') continue;
        (rowsOf(got.get(q.id)) === rowsOf(t) && got.get(q.id)?.mode === 'precise' ? equal : differ).push(q.id);
      }
      return { equal, differ };
    };
    const cb = compare(b);
    const cc = compare(c);
    for (const [n, x] of [['b', cb], ['c', cc]] as const) if (x.differ.length) notes.push(`(${n}) differs from (a) (or not precise): ${x.differ.join(', ')}`);
    const fmt = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v)} ms`);
    const col = (r: Run | undefined, f: (r: Run) => string) => (r ? f(r) : 'not run');
    const equalCol = (r: Run | undefined, x: { equal: string[]; differ: string[] }) => col(r, () => `${x.equal.length} / ${x.equal.length + x.differ.length}`);
    const table: string[][] = [
      ['', '(a) cold host', '(b) persisted', '(c) 4 imported shards'],
      ['first precise from the first question', ...[a, b, c].map((r) => col(r, (r) => fmt(r.firstPreciseMs)))],
      ['wide references (asks)', ...[a, b, c].map((r) => col(r, (r) => `${fmt(r.wide?.ms)} (${r.wide?.asks ?? 0})`))],
      ['wide references rows', ...[a, b, c].map((r) => col(r, (r) => String(r.wide?.rows ?? '—')))],
      ['answers equal to (a) row for row', '—', equalCol(b, cb), equalCol(c, cc)],
      ['answered by (mode/provider)', ...[a, b, c].map((r) => col(r, (r) => JSON.stringify(r.answeredBy)))],
      ['background start', ...[a, b, c].map((r) => col(r, (r) => r.prewarm ?? '—'))],
      ['peak RSS engine / host', ...[a, b, c].map((r) => col(r, (r) => `${r.peakEngineMiB.toFixed(0)} / ${r.peakHostMiB.toFixed(0)} MiB`))],
      ['(a) background pass / (c) exports wall', `${(passMs / 1000).toFixed(0)} s`, '', ex ? `${(ex.ms / 1000).toFixed(0)} s` : 'not run'],
      ...(ex?.shards ?? []).map((s) => [`  export ${s.shard}: peak RSS, time`, '', '', `${s.peakMiB.toFixed(0)} MiB, ${(s.ms / 1000).toFixed(0)} s${s.ok ? '' : ' FAILED'}: ${s.summary}`]),
    ];
    const metrics: Metric[] = [
      { name: '(a) first precise', value: a.firstPreciseMs, unit: 'ms' },
      { name: '(a) wide references cold → precise', value: a.wide?.ms, unit: 'ms' },
    ];
    if (b)
      metrics.push(
        { name: '(b) first precise', value: b.firstPreciseMs, unit: 'ms', target: { op: '<=', value: 1_000 } },
        { name: '(b) wide references', value: b.wide?.ms, unit: 'ms', target: { op: '<=', value: 1_000 } },
        { name: '(b) answers differing from (a)', value: cb.differ.length, unit: 'count', target: { op: '<=', value: 0 } },
      );
    if (c && ex)
      metrics.push(
        { name: '(c) first precise', value: c.firstPreciseMs, unit: 'ms', target: { op: '<=', value: 1_000 } },
        { name: '(c) wide references', value: c.wide?.ms, unit: 'ms', target: { op: '<=', value: 1_000 } },
        { name: '(c) answers differing from (a)', value: cc.differ.length, unit: 'count', target: { op: '<=', value: 0 } },
        { name: '(c) peak RSS of one export process (max)', value: Math.max(...ex.shards.map((s) => s.peakMiB)), unit: 'MiB' },
      );
    const slim = (r: Run) => ({ ...r, answers: r.answers.map(({ id, op, mode, provider, ms, items }) => ({ id, op, mode, provider, ms, items: items.length })) });
    return { metrics, table, notes, data: { questions, runs: [a, b, c].filter((r): r is Run => r !== undefined).map(slim), exports: ex } };
  },
};

type Exports = Awaited<ReturnType<typeof exportShards>>;

interface SavedA {
  root: string;
  questions: string[];
  savedAt: string;
  a: Run;
  passMs: number;
  truth: EngineAnswer[];
  notes: string[];
}

/** (a)'s saved outcome in DIR when it was taken on this workspace with these questions. */
function loadState(dir: string, root: string, questions: Question[]): SavedA | undefined {
  const f = path.join(dir, 'a.json');
  if (!fs.existsSync(f) || !fs.existsSync(path.join(dir, 'a')) || !fs.existsSync(path.join(dir, 'base'))) return undefined;
  const s = JSON.parse(fs.readFileSync(f, 'utf8')) as SavedA;
  if (s.root !== root || s.questions.join() !== questions.map((q) => q.id).join()) throw new Error(`${dir} holds (a) of another workspace or question set (${s.root}); remove it or pick another SEXTANT_BENCH_PRECISE_STATE`);
  return s;
}

/**
 * A copy of an index root whose persisted layer's files are hard links: the same files as the
 * engine that wrote them sees (size, time and inode: the units catalog's stamps hold, as for a
 * second engine on the same index); the engine replaces them by rename, never in place.
 */
function copyIndex(from: string, to: string): void {
  fs.rmSync(to, { recursive: true, force: true });
  const precise = path.join(from, 'precise');
  fs.cpSync(from, to, { recursive: true, filter: (src) => path.dirname(src) !== precise });
  if (!fs.existsSync(precise)) return;
  fs.mkdirSync(path.join(to, 'precise'), { recursive: true });
  for (const f of fs.readdirSync(precise)) {
    try {
      fs.linkSync(path.join(precise, f), path.join(to, 'precise', f));
    } catch {
      fs.copyFileSync(path.join(precise, f), path.join(to, 'precise', f)); // another file system: the units are then read from their files
    }
  }
}

function saveState(dir: string, s: SavedA, baseIndex: string, idxA: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(baseIndex, path.join(dir, 'base'), { recursive: true });
  copyIndex(idxA, path.join(dir, 'a'));
  fs.writeFileSync(path.join(dir, 'a.json'), JSON.stringify(s)); // last: its presence means the state is whole
}
