/**
 * Restore into Sextant's state, before / after (issue 23): the same C# questions on a
 * never-restored tree, asked through the real engine (`sextant mcp` over stdio, Roslyn host, index
 * warm, provider cold, every question once, in order):
 *   - before: without `--restore` (package types of unrestored projects are unresolved);
 *   - after: a fresh engine with `--restore` — the time until restore into state has ended (the
 *     first answer that no longer announces it, polled every 2 s), then the same questions.
 * Printed per target: precise share, latency p50 / p95, answered-by, the restore time (the wait, and
 * the engine's own figure from its note), projects restored, packages the registry did not serve;
 * with an oracle truth for the tree also recall and the answers labelled plain `precise` with a row
 * missing. The tree is never written (checked: no file appears, changes size or mtime, or goes).
 *
 * Questions: on the generated workspace, at the manifest's symbol declarations (references /
 * implementations / callers by kind; no oracle run needed); on a real repository, a saved oracle
 * truth file (test/oracle/truth/<folder name without -fresh/-restored>.json: its questions at
 * framework / package symbols first, then sampled ones; scored against its answers), else the
 * oracle's sampler on a copy. A restored PATH is copied without its
 * obj/ and bin/ folders first (a never-restored copy).
 *
 *   npm run bench -- --sections csharp-restore --projects 3000 --size-factor 0.05 /path/to/never-restored/MassTransit   (both targets)
 *   npm run bench -- --sections csharp-restore --projects 3000 --size-factor 0.05                                       (the 3,000-project target alone)
 *   npm run bench -- --skip-generated --sections csharp-restore /path/to/real/repo                   (real repository alone)
 *
 * The 3,000-project target at --size-factor 0.05: its 3,000 project files are byte-identical to the
 * full-size workspace's (seed 1) — the same project graph, target
 * frameworks and PackageReferences (2,481 projects reference packages), so restore does the same
 * work — it evaluates and restores per project, not per file — and the questions (the manifest's
 * hub types, referenced across the graph) need the same compilations; only the sources are ~8x
 * smaller (0.57 M lines instead of 4.56 M), which shortens indexing and compiling, not restore.
 * Restore itself is the engine's (batches of RESTORE_BATCH_PROJECTS, stopped at
 * RESTORE_TOTAL_MAX_MS): when it stops there, the after pass runs on what was restored and the
 * engine's note says how many projects.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { WorkspaceManifest } from '../../fixtures/generate/manifest';
import { askEngine, fileSet, runOracle, score, type EngineAnswer, type OracleResult, type Question } from '../../oracle/oracle';
import { median, p95 } from '../stats';
import type { BenchContext, BenchSection, Metric } from '../types';
import { hasCSharpProjects } from './semantic';

const QUESTIONS = 20;
const QUICK_QUESTIONS = 8;
/** The restore wait (polled with the first question) gives up after this long. */
const RESTORE_WAIT_MAX_MS = 2_400_000;
const RESTORE_POLL_MS = 2_000;
/** No restore announcement this long after the engine started: restore did not start (said in the notes). */
const RESTORE_START_MAX_MS = 600_000;
const TRUTH_DIR = path.resolve(__dirname, '../../oracle/truth');

interface Pass {
  answers: EngineAnswer[];
  preciseShare: number;
  p50: number | undefined;
  p95: number | undefined;
  modes: Record<string, number>;
  restoreMs?: number;
  restoreNote?: string;
  /** Restore was announced as running at least once while the after pass waited. */
  restoreSeen?: boolean;
  /** Against the oracle truth (when the questions came from one): recall over every op, and plain-precise answers with a row missing. */
  recall?: number;
  lies?: number;
}

function connect(ctx: BenchContext, root: string, indexRoot: string, restore: boolean): { client: Client; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({
    command: ctx.options.cli[0]!,
    args: [...ctx.options.cli.slice(1), 'mcp', '--workspace-root', root, '--index-root', indexRoot, ...(restore ? ['--restore'] : [])],
    env: { ...getDefaultEnvironment(), SEXTANT_CSHARP_PROVIDER: 'roslyn' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  return { client: new Client({ name: 'sextant-bench-csharp-restore', version: '0.0.0' }), transport };
}

/**
 * Polls the restore note until restore has ended: it was announced ("restoring N of M …") and is no
 * longer, or a note says it ended, was refused or is not allowed. No note at all is not an end:
 * while restore is being planned (the project model, then a read of every project) answers say
 * nothing of it (the 18:06 run on 2026-12-02 took that silence for "ended" and ran both 'after'
 * passes unrestored). Gives up after RESTORE_START_MAX_MS without an announcement, or
 * RESTORE_WAIT_MAX_MS in all.
 */
export async function waitForRestore(
  ask: () => Promise<string | undefined>,
  progress: (note: string | undefined) => void = () => undefined,
  now: () => number = Date.now,
  sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
): Promise<{ note?: string; seen: boolean }> {
  const t0 = now();
  let seen = false;
  let note: string | undefined;
  for (;;) {
    note = await ask();
    progress(note);
    if (note && /^restoring /.test(note)) seen = true;
    else if (note || seen) break; // ended (done / refused / not allowed), or announced and now silent: done with nothing left to say
    if (!seen && now() - t0 >= RESTORE_START_MAX_MS) break;
    if (now() - t0 >= RESTORE_WAIT_MAX_MS) break;
    await sleep(RESTORE_POLL_MS);
  }
  return { ...(note ? { note } : {}), seen };
}

/** The restore line in an answer's notes, if any. */
async function restoreNote(client: Client, q: Question): Promise<string | undefined> {
  const r = await client.callTool({ name: q.op === 'definition' ? 'definition' : 'references', arguments: { target: { path: q.path, line: q.line, column: q.column }, waitMs: 10_000 } }, undefined, { timeout: 120_000 });
  const notes = ((r.structuredContent as { notes?: string[] } | undefined)?.notes ?? []).filter((n) => /restor/.test(n));
  return notes[0];
}

async function pass(ctx: BenchContext, root: string, indexRoot: string, questions: Question[], restore: boolean): Promise<Pass> {
  const { client, transport } = connect(ctx, root, indexRoot, restore);
  await client.connect(transport);
  const t0 = Date.now();
  const out: Pass = { answers: [], preciseShare: 0, p50: undefined, p95: undefined, modes: {} };
  try {
    if (restore) {
      const w = await waitForRestore(() => restoreNote(client, questions[0]!), (n) => ctx.progress(`restore: ${n ?? 'no restore note'}`));
      out.restoreMs = Date.now() - t0;
      out.restoreSeen = w.seen;
      if (w.note) out.restoreNote = w.note;
    }
    for (const q of questions) {
      const a = await askEngine(client, q, 10_000);
      out.answers.push(a);
      out.modes[a.mode] = (out.modes[a.mode] ?? 0) + 1;
      ctx.progress(`${restore ? 'after' : 'before'} ${q.id} ${q.op} → ${a.mode} ${a.items.length} in ${a.ms} ms`);
    }
  } finally {
    await client.close();
  }
  const ms = out.answers.map((a) => a.ms);
  out.preciseShare = out.answers.filter((a) => a.mode === 'precise').length / Math.max(1, out.answers.length);
  out.p50 = median(ms);
  out.p95 = p95(ms);
  return out;
}

/** Size and mtime of every file of the tree (.git left out): the read-only check compares two of them. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of fileSet(root)) {
    const st = fs.lstatSync(path.join(root, f));
    out.set(f, `${st.size}:${st.mtimeMs}`);
  }
  return out;
}

/** Files that appeared, changed or went between two snapshots. */
function written(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [f, v] of after) if (before.get(f) !== v) out.push(before.has(f) ? `changed ${f}` : `created ${f}`);
  for (const f of before.keys()) if (!after.has(f)) out.push(`deleted ${f}`);
  return out;
}

/** A never-restored copy when the tree has restore output (obj/, bin/ left out); else the tree itself. */
function unrestoredTree(root: string, scratch: string): { root: string; copied: boolean } {
  let restored = false;
  const walk = (dir: string, depth: number) => {
    if (restored || depth > 6) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory() || e.name === '.git' || e.name === 'node_modules') continue;
      if (e.name === 'obj' && fs.existsSync(path.join(dir, e.name, 'project.assets.json'))) restored = true;
      else walk(path.join(dir, e.name), depth + 1);
    }
  };
  walk(root, 0);
  if (!restored) return { root, copied: false };
  const copy = path.join(scratch, 'never-restored');
  fs.cpSync(root, copy, { recursive: true, filter: (s) => !['.git', 'obj', 'bin'].includes(path.basename(s)) });
  return { root: copy, copied: true };
}

/** Questions at the generated workspace's known declarations: what an agent asks about its hub types, interfaces and methods. */
export function manifestQuestions(m: WorkspaceManifest, count: number): Question[] {
  const out: Question[] = [];
  const opsOf = (kind: string): Question['op'][] => (kind === 'interface' ? ['implementations', 'references'] : kind === 'method' ? ['callers', 'references'] : ['references']);
  for (const f of m.facts) {
    if (f.kind !== 'symbol') continue;
    const at = f.declarations.find((d) => d.path.endsWith('.cs'));
    if (!at) continue;
    for (const op of opsOf(f.symbolKind)) out.push({ id: `${op[0]}${out.length + 1}`, op, path: at.path, line: at.line, column: at.column, note: f.id });
  }
  return out.slice(0, count);
}

function questionsFor(ctx: BenchContext, root: string, count: number): { questions: Question[]; from: string; truth?: OracleResult } {
  const truthFile = path.join(TRUTH_DIR, `${path.basename(ctx.target.root).toLowerCase().replace(/-(restored|fresh)$/, '')}.json`);
  if (!ctx.target.manifest && fs.existsSync(truthFile)) {
    const truth = JSON.parse(fs.readFileSync(truthFile, 'utf8')) as OracleResult;
    // the framework / package ones first (what restore changes most), then the sampled ones
    const asked = truth.questions.filter((q) => q.op !== 'type_hierarchy');
    const questions = [...asked.filter((q) => q.id.startsWith('f')), ...asked.filter((q) => !q.id.startsWith('f'))].slice(0, count);
    return { questions, from: truthFile, truth };
  }
  if (ctx.target.manifest) return { questions: manifestQuestions(ctx.target.manifest, count), from: "the manifest's symbol declarations" };
  const copy = path.join(ctx.scratch, 'oracle-ws');
  fs.cpSync(root, copy, { recursive: true, filter: (s) => path.basename(s) !== '.git' });
  try {
    const projects = (fs.readdirSync(copy, { recursive: true }) as string[]).map(String).filter((f) => f.endsWith('.csproj')).sort();
    let seed = 1;
    const pick = [...projects].sort(() => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5).slice(0, 20);
    const r = runOracle({ root: copy, projects: pick, sample: { count, seed: 1 } });
    return { questions: r.questions, from: `the oracle's sampler over ${pick.length} projects` };
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** "restore into Sextant's state: 24 of 24 projects restored in 70 s…" → "70 s (24 of 24 projects)". */
function engineRestore(note: string | undefined): string {
  const m = note && /(\d+) of (\d+) projects restored in (\d+) s/.exec(note);
  return m ? `${m[3]} s (${m[1]} of ${m[2]} projects)` : note ? note.slice(0, 80) : 'no note (every project restored, nothing unresolved)';
}

export const section: BenchSection = {
  name: 'csharp-restore',
  order: 56,
  description: 'Restore into Sextant\'s state: the same C# questions on a never-restored tree before / after --restore (precise share, p50/p95), and the restore time',
  appliesTo: (t) => hasCSharpProjects(t.root),
  async run(ctx) {
    const notes: string[] = [];
    const tree = unrestoredTree(ctx.target.root, ctx.scratch);
    if (tree.copied) notes.push(`the target has restore output: asked on a copy without obj/ and bin/ (${tree.root})`);
    const { questions, from, truth } = questionsFor(ctx, tree.root, ctx.options.quick ? QUICK_QUESTIONS : QUESTIONS);
    notes.push(`${questions.length} questions from ${from}`);
    notes.push('the after pass starts once restore has ended: the host compiled projects while it waited, so its latency is warmer than the before pass (a first pass still, every question asked once)');
    const baseIndex = path.join(ctx.scratch, 'csharp-restore-index');
    ctx.progress('indexing (shared by both passes)…');
    const ix = spawnSync(ctx.options.cli[0]!, [...ctx.options.cli.slice(1), 'index', '--workspace-root', tree.root, '--index-root', baseIndex], { encoding: 'utf8', timeout: 3_600_000 });
    if (ix.status !== 0) return { metrics: [], notes: [...notes, `sextant index failed: ${ix.stderr.slice(-500)}`] };
    const filesBefore = snapshot(tree.root);
    const original = new Set(filesBefore.keys());
    const passes: Pass[] = [];
    for (const restore of [false, true]) {
      const idx = path.join(ctx.scratch, `csharp-restore-index-${restore ? 'after' : 'before'}`);
      fs.cpSync(baseIndex, idx, { recursive: true });
      const p = await pass(ctx, tree.root, idx, questions, restore);
      if (truth) {
        const sc = score(questions, truth.answers, p.answers, original, truth.documents);
        const t = sc.ops.reduce((n, o) => n + o.truth, 0);
        p.recall = t === 0 ? 1 : sc.ops.reduce((n, o) => n + o.tp, 0) / t;
        p.lies = sc.honesty.filter((h) => h.mode === 'precise').reduce((n, h) => n + h.withMissing, 0);
      }
      passes.push(p);
      if (restore) {
        if (!p.restoreSeen) notes.push(`RESTORE NOT SEEN: no answer announced restore running within ${RESTORE_START_MAX_MS / 1000} s of the engine's start (the after pass ran on what there was)`);
        const out = path.join(idx, 'restore', 'out');
        const assets = fs.existsSync(out) ? (fs.readdirSync(out, { recursive: true }) as string[]).map(String).filter((f) => f.endsWith('project.assets.json')).length : 0;
        notes.push(`restore into state: ${assets} project.assets.json written under the index root; last restore note: ${passes[1]!.restoreNote ?? 'none (nothing left to say)'}`);
      }
      fs.rmSync(idx, { recursive: true, force: true });
    }
    const created = written(filesBefore, snapshot(tree.root));
    if (created.length) notes.push(`WRITE: ${created.length} file(s) of the tree written: ${created.slice(0, 5).join(', ')}`);
    const [before, after] = passes as [Pass, Pass];
    const fmtMs = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v)} ms`);
    const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
    const table = [
      ['', 'before (no --restore)', 'after (--restore)'],
      [`precise share (${questions.length} questions)`, pct(before.preciseShare), pct(after.preciseShare)],
      ['modes', JSON.stringify(before.modes), JSON.stringify(after.modes)],
      ['latency p50', fmtMs(before.p50), fmtMs(after.p50)],
      ['latency p95', fmtMs(before.p95), fmtMs(after.p95)],
      ['restore into state (engine start → restore ended)', '—', fmtMs(after.restoreMs)],
      ["restore into state (the engine's note)", '—', engineRestore(after.restoreNote)],
      ...(truth
        ? [
            ['recall vs the oracle truth (every op)', pct(before.recall ?? 0), pct(after.recall ?? 0)],
            ["answers labelled plain 'precise' with a row missing", String(before.lies ?? 0), String(after.lies ?? 0)],
          ]
        : []),
    ];
    const metrics: Metric[] = [
      { name: 'before: precise share', value: before.preciseShare, unit: 'ratio' },
      { name: 'after: precise share', value: after.preciseShare, unit: 'ratio' },
      { name: 'before: latency p50', value: before.p50, unit: 'ms' },
      { name: 'after: latency p50', value: after.p50, unit: 'ms' },
      { name: 'before: latency p95', value: before.p95, unit: 'ms' },
      { name: 'after: latency p95', value: after.p95, unit: 'ms' },
      { name: 'restore into state', value: after.restoreMs, unit: 'ms' },
      { name: 'files written into the tree', value: created.length, unit: 'files', target: { op: '<=', value: 0 } },
      ...(truth
        ? ([
            { name: 'before: recall vs oracle', value: before.recall, unit: 'ratio' },
            { name: 'after: recall vs oracle', value: after.recall, unit: 'ratio' },
            { name: "after: plain 'precise' with a row missing", value: after.lies, unit: 'count', target: { op: '<=', value: 0 } },
          ] satisfies Metric[])
        : []),
    ];
    return { metrics, table, notes, data: { questions, passes: passes.map((p) => ({ ...p, answers: p.answers.map(({ id, op, mode, ms, items }) => ({ id, op, mode, ms, items: items.length })) })) } };
  },
};
