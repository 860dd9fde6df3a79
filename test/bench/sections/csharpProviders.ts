/**
 * Headless C# providers side by side (issue 14): Sextant's Roslyn host vs csharp-ls on the same
 * 20 questions in the same run, each through the real engine (`sextant mcp` over stdio, index
 * warm, provider cold, SEXTANT_CSHARP_PROVIDER chosen per run), every question asked once, in
 * order, no warm-up:
 *   - time to the first precise answer, precise share over the session, heuristic answers after the
 *     first precise one;
 *   - restarts (distinct pids of the provider's process: the host, or csharp-ls);
 *   - peak RSS of the whole process tree (engine + host, or engine + csharp-ls + BuildHost),
 *     sampled every 250 ms from /proc;
 *   - latency p50 / p95 of the answers;
 *   - references of a type used by ~400 projects (the manifest's generic base) on a fresh engine
 *     per provider: asked again while partial, time to the first precise answer (cold) and one
 *     more ask (warm);
 *   - the Roslyn oracle's precision / recall per op for each provider's answers (when the
 *     workspace has at most ORACLE_MAX_PROJECTS projects: the oracle loads the whole solution).
 * Questions come from the oracle's sampler: each picks a project at random (unrelated parts of the
 * graph), then a symbol; on bigger workspaces the sampler runs over a seeded subset of projects.
 * A run whose answers never name the Roslyn provider says so (host not built / not in this build).
 * Restore into Sextant's state before / after (the same questions on a never-restored tree, and
 * the restore time) is its companion section, csharpRestore.ts (`--sections csharp-restore`).
 */
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { askEngine, fileSet, runOracle, score, type EngineAnswer, type OracleResult, type Question, type Score } from '../../oracle/oracle';
import { median, p95 } from '../stats';
import type { BenchContext, BenchSection, Metric } from '../types';
import { hasCSharpProjects, restoredCopy } from './semantic';

const QUESTIONS = 20;
/** The oracle loads the whole solution with MSBuildWorkspace: beyond this, questions only. */
const ORACLE_MAX_PROJECTS = 300;
/** Projects handed to the sampler on bigger workspaces (their closure is loaded). */
const SAMPLE_PROJECTS = 20;
const RSS_POLL_MS = 250;
/** The wide question is asked again while partial, for at most this long per provider. */
const WIDE_MAX_MS = 180_000;
const PROVIDERS = ['roslyn', 'csharp-ls'] as const;
type ProviderName = (typeof PROVIDERS)[number];

interface Run {
  provider: ProviderName;
  answers: EngineAnswer[];
  firstPreciseMs: number | undefined;
  /** The same from the first question (after the engine answered MCP initialize). */
  firstPreciseFromAskMs: number | undefined;
  /** ms from spawning the engine to its MCP initialize answer (index open; not the provider's). */
  connectMs: number;
  preciseShare: number;
  heuristicAfterFirstPrecise: number;
  restarts: number;
  peakTreeMiB: number;
  peakEngineMiB: number;
  peakProviderMiB: number;
  answeredBy: Record<string, number>;
  score?: Score;
}

function children(): Map<number, number[]> {
  const kids = new Map<number, number[]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      (kids.get(ppid) ?? kids.set(ppid, []).get(ppid)!).push(Number(d));
    } catch {
      /* gone */
    }
  }
  return kids;
}

function rssKiB(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Polls the engine's process tree: peak RSS (tree, engine, provider side) and provider pids seen. */
export function treeMonitor(root: number) {
  const providerPids = new Set<number>();
  let peakTree = 0;
  let peakEngine = 0;
  let peakProvider = 0;
  const tick = () => {
    const kids = children();
    const all: number[] = [];
    const walk = (p: number) => {
      all.push(p);
      for (const k of kids.get(p) ?? []) walk(k);
    };
    walk(root);
    let tree = 0;
    let prov = 0;
    for (const p of all) {
      const r = rssKiB(p);
      tree += r;
      if (p === root) peakEngine = Math.max(peakEngine, r);
      else {
        const cl = cmdline(p);
        if (/csharp-ls|Sextant\.RoslynHost|BuildHost/i.test(cl)) prov += r;
        if (/csharp-ls|Sextant\.RoslynHost/i.test(cl) && !/BuildHost/i.test(cl)) providerPids.add(p);
      }
    }
    peakTree = Math.max(peakTree, tree);
    peakProvider = Math.max(peakProvider, prov);
  };
  const timer = setInterval(tick, RSS_POLL_MS);
  tick();
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      return { peakTreeMiB: peakTree / 1024, peakEngineMiB: peakEngine / 1024, peakProviderMiB: peakProvider / 1024, restarts: Math.max(0, providerPids.size - 1) };
    },
  };
}

async function session(ctx: BenchContext, root: string, indexRoot: string, provider: ProviderName, questions: Question[]): Promise<Run> {
  const transport = new StdioClientTransport({
    command: ctx.options.cli[0]!,
    args: [...ctx.options.cli.slice(1), 'mcp', '--workspace-root', root, '--index-root', indexRoot],
    env: { ...getDefaultEnvironment(), SEXTANT_CSHARP_PROVIDER: provider },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'sextant-bench-csharp-providers', version: '0.0.0' });
  const started = Date.now();
  await client.connect(transport);
  const connectMs = Date.now() - started;
  const mon = treeMonitor(transport.pid!);
  const answers: EngineAnswer[] = [];
  let firstPreciseMs: number | undefined;
  try {
    for (const q of questions) {
      const a = await askEngine(client, q, 10_000);
      answers.push(a);
      if (firstPreciseMs === undefined && a.mode === 'precise') firstPreciseMs = Date.now() - started;
      ctx.progress(`${provider} ${q.id} ${q.op} → ${a.mode}${a.provider ? `/${a.provider}` : ''} in ${a.ms} ms`);
    }
  } finally {
    const m = mon.stop();
    await client.close();
    const firstIdx = answers.findIndex((a) => a.mode === 'precise');
    const answeredBy: Record<string, number> = {};
    for (const a of answers) answeredBy[a.provider ?? a.mode] = (answeredBy[a.provider ?? a.mode] ?? 0) + 1;
    // eslint-disable-next-line no-unsafe-finally
    return {
      provider,
      answers,
      firstPreciseMs,
      firstPreciseFromAskMs: firstPreciseMs === undefined ? undefined : firstPreciseMs - connectMs,
      connectMs,
      preciseShare: answers.filter((a) => a.mode === 'precise').length / Math.max(1, answers.length),
      heuristicAfterFirstPrecise: firstIdx < 0 ? 0 : answers.slice(firstIdx + 1).filter((a) => a.mode.startsWith('heuristic')).length,
      answeredBy,
      ...m,
    };
  }
}

/** A wide question: references of a type used by hundreds of projects (the manifest's generic base). */
interface Wide {
  provider: ProviderName;
  /** ms from the first ask to the first precise answer (asked again while partial), and asks needed. */
  coldMs: number | undefined;
  coldAsks: number;
  /** One more ask once precise. */
  warmMs: number | undefined;
  rows: number;
  lastMode: string;
  lastReason?: string;
  restarts: number;
  peakTreeMiB: number;
}

/** Keeps asking (each ask is one tool call within the tools' deadline) until precise or WIDE_MAX_MS. */
async function wideReferences(ctx: BenchContext, root: string, indexRoot: string, provider: ProviderName, q: Question): Promise<Wide> {
  const transport = new StdioClientTransport({
    command: ctx.options.cli[0]!,
    args: [...ctx.options.cli.slice(1), 'mcp', '--workspace-root', root, '--index-root', indexRoot],
    env: { ...getDefaultEnvironment(), SEXTANT_CSHARP_PROVIDER: provider },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'sextant-bench-csharp-wide', version: '0.0.0' });
  await client.connect(transport);
  const mon = treeMonitor(transport.pid!);
  const out: Wide = { provider, coldMs: undefined, coldAsks: 0, warmMs: undefined, rows: 0, lastMode: 'none', restarts: 0, peakTreeMiB: 0 };
  try {
    const t0 = Date.now();
    while (Date.now() - t0 < WIDE_MAX_MS) {
      const a = await askEngine(client, q, 10_000);
      out.coldAsks++;
      out.lastMode = a.mode;
      out.rows = a.items.length;
      if (a.reason) out.lastReason = String(a.reason).slice(0, 200);
      ctx.progress(`${provider} wide references ask ${out.coldAsks} → ${a.mode} ${a.items.length} rows in ${a.ms} ms`);
      if (a.mode === 'precise') {
        out.coldMs = Date.now() - t0;
        break;
      }
    }
    if (out.coldMs !== undefined) {
      const w = await askEngine(client, q, 10_000);
      out.warmMs = w.mode === 'precise' ? w.ms : undefined;
      out.lastMode = w.mode;
    }
  } finally {
    const m = mon.stop();
    out.restarts = m.restarts;
    out.peakTreeMiB = m.peakTreeMiB;
    await client.close();
  }
  return out;
}

function solutionOf(root: string): string | undefined {
  const slns = fs.readdirSync(root).filter((f) => f.endsWith('.sln'));
  return slns.map((s) => ({ s, n: (fs.readFileSync(path.join(root, s), 'utf8').match(/^Project\(/gm) ?? []).length })).sort((a, b) => b.n - a.n)[0]?.s;
}

function projectFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (e.name === '.git' || e.name === 'node_modules' || e.name === 'bin' || e.name === 'obj') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith('.csproj')) out.push(r);
    }
  };
  walk('');
  return out.sort();
}

export const section: BenchSection = {
  name: 'csharp-providers',
  order: 55,
  description: 'Roslyn host vs csharp-ls through the engine on the same 20 questions: first precise, precise share, restarts, peak RSS, p50/p95, oracle precision/recall',
  appliesTo: (t) => hasCSharpProjects(t.root),
  async run(ctx) {
    const notes: string[] = [];
    let root = ctx.target.root;
    if (ctx.target.manifest) {
      ctx.progress('restoring a copy of the generated workspace…');
      const r = restoredCopy(root);
      root = r.root;
      notes.push(r.note);
    }
    const projects = projectFiles(root);
    const sln = solutionOf(root);
    const wholeOracle = projects.length <= ORACLE_MAX_PROJECTS && sln !== undefined;
    // The oracle's own copy (it may write obj/); the engine reads `root`.
    const oracleCopy = path.join(ctx.scratch, 'oracle-ws');
    ctx.progress(`oracle: sampling ${QUESTIONS} questions${wholeOracle ? ' and ground truth' : ' (questions only)'} on a copy…`);
    // Questions only (no scores) on a big workspace: the sample is the same for the same workspace
    // and seed, and the oracle's MSBuildWorkspace load of it takes ~13 min, so it is kept in the temp dir.
    const generator = ctx.target.manifest ? JSON.stringify(ctx.target.manifest.generator) : path.resolve(root);
    const sampleFile = path.join(os.tmpdir(), 'sextant-bench', 'csharp-questions', `${crypto.createHash('sha1').update(JSON.stringify([generator, projects.length, QUESTIONS, SAMPLE_PROJECTS, 1])).digest('hex').slice(0, 16)}.json`);
    if (wholeOracle || !fs.existsSync(sampleFile)) fs.cpSync(root, oracleCopy, { recursive: true, filter: (s) => path.basename(s) !== '.git' });
    let oracle: OracleResult;
    const t0 = Date.now();
    try {
      if (wholeOracle) oracle = runOracle({ root: oracleCopy, solution: sln, sample: { count: QUESTIONS, seed: 1 } });
      else {
        if (fs.existsSync(sampleFile)) {
          oracle = JSON.parse(fs.readFileSync(sampleFile, 'utf8')) as OracleResult;
          notes.push(`questions reused from ${sampleFile} (the same workspace and seed)`);
        } else {
          let seed = 1;
          const pick = [...projects].sort(() => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) - 0.5).slice(0, SAMPLE_PROJECTS);
          oracle = runOracle({ root: oracleCopy, projects: pick, sample: { count: QUESTIONS, seed: 1 } });
          fs.mkdirSync(path.dirname(sampleFile), { recursive: true });
          fs.writeFileSync(sampleFile, JSON.stringify({ ...oracle, answers: [] }));
        }
        notes.push(`${projects.length} projects > ${ORACLE_MAX_PROJECTS}: questions sampled over ${SAMPLE_PROJECTS} projects and their closure; no oracle scores`);
      }
    } finally {
      fs.rmSync(oracleCopy, { recursive: true, force: true });
    }
    notes.push(`oracle: ${oracle.projects} projects loaded in ${oracle.loadMs} ms; ${oracle.questions.length} questions (${Date.now() - t0} ms)`);
    const original = fileSet(root);

    // Index once (warm for both runs), then each provider on its own copy of the index.
    const baseIndex = path.join(ctx.scratch, 'csharp-providers-index');
    ctx.progress('indexing (shared by both runs)…');
    const ix = spawnSync(ctx.options.cli[0]!, [...ctx.options.cli.slice(1), 'index', '--workspace-root', root, '--index-root', baseIndex], { encoding: 'utf8', timeout: 3_600_000 });
    if (ix.status !== 0) return { metrics: [], notes: [...notes, `sextant index failed: ${ix.stderr.slice(-500)}`] };

    const runs: Run[] = [];
    for (const provider of PROVIDERS) {
      const idx = path.join(ctx.scratch, `csharp-providers-index-${provider}`);
      fs.cpSync(baseIndex, idx, { recursive: true });
      const r = await session(ctx, root, idx, provider, oracle.questions);
      if (wholeOracle) r.score = score(oracle.questions, oracle.answers, r.answers, original);
      runs.push(r);
      fs.rmSync(idx, { recursive: true, force: true });
    }
    const [host, lsp] = runs as [Run, Run];
    // References of the manifest's generic base (used by ~400 projects on the 3,000-project workspace), fresh engines.
    const found = ctx.target.manifest?.facts.find((f) => f.id === 'genericBase');
    const wideFact = found?.kind === 'symbol' ? found : undefined;
    const wideDecl = wideFact?.declarations[0];
    const wides: Wide[] = [];
    if (wideDecl) {
      const q: Question = { id: 'wide', op: 'references', path: wideDecl.path, line: wideDecl.line, column: wideDecl.column };
      for (const provider of PROVIDERS) {
        const idx = path.join(ctx.scratch, `csharp-providers-wide-${provider}`);
        fs.cpSync(baseIndex, idx, { recursive: true });
        wides.push(await wideReferences(ctx, root, idx, provider, q));
        fs.rmSync(idx, { recursive: true, force: true });
      }
      notes.push(`wide question: references of ${wideFact!.name} (${wideDecl.path}:${wideDecl.line}:${wideDecl.column}; ${wideFact!.mentionFiles} files mention it), asked again while partial for ≤ ${WIDE_MAX_MS / 1000} s on a fresh engine: ${wides.map((w) => `${w.provider} ${w.coldAsks} asks, last ${w.lastMode} (${w.lastReason ?? ''})`).join('; ')}`);
    }
    if (!host.answeredBy['roslyn']) notes.push(`the Roslyn host answered nothing in its run (answers by ${JSON.stringify(host.answeredBy)}): host not built or its provider not in this build — its column is the fallback's`);

    const lat = (r: Run) => r.answers.map((a) => a.ms);
    const fmtMs = (v: number | undefined) => (v === undefined ? '—' : `${Math.round(v)} ms`);
    const pct = (v: number | undefined) => (v === undefined ? '—' : `${(v * 100).toFixed(1)}%`);
    const table: string[][] = [
      ['', 'Roslyn host', 'csharp-ls'],
      ['answered by', JSON.stringify(host.answeredBy), JSON.stringify(lsp.answeredBy)],
      ['time to first precise', fmtMs(host.firstPreciseMs), fmtMs(lsp.firstPreciseMs)],
      ['  of which engine start (MCP initialize)', fmtMs(host.connectMs), fmtMs(lsp.connectMs)],
      ['  from the first question', fmtMs(host.firstPreciseFromAskMs), fmtMs(lsp.firstPreciseFromAskMs)],
      [`precise share (${QUESTIONS} questions)`, pct(host.preciseShare), pct(lsp.preciseShare)],
      ['heuristic after first precise', String(host.heuristicAfterFirstPrecise), String(lsp.heuristicAfterFirstPrecise)],
      ['provider restarts', String(host.restarts), String(lsp.restarts)],
      ['peak RSS: engine + provider tree', `${host.peakTreeMiB.toFixed(0)} MiB`, `${lsp.peakTreeMiB.toFixed(0)} MiB`],
      ['peak RSS: engine (node)', `${host.peakEngineMiB.toFixed(0)} MiB`, `${lsp.peakEngineMiB.toFixed(0)} MiB`],
      ['peak RSS: host / csharp-ls + BuildHost', `${host.peakProviderMiB.toFixed(0)} MiB`, `${lsp.peakProviderMiB.toFixed(0)} MiB`],
      ['latency p50', fmtMs(median(lat(host))), fmtMs(median(lat(lsp)))],
      ['latency p95', fmtMs(p95(lat(host))), fmtMs(p95(lat(lsp)))],
    ];
    if (wides.length === 2) {
      const [wh, wl] = wides as [Wide, Wide];
      table.push(
        ['wide references: cold to precise (asks)', `${fmtMs(wh.coldMs)} (${wh.coldAsks})`, `${fmtMs(wl.coldMs)} (${wl.coldAsks})`],
        ['wide references: warm', fmtMs(wh.warmMs), fmtMs(wl.warmMs)],
        ['wide references: rows / restarts / peak RSS', `${wh.rows} / ${wh.restarts} / ${wh.peakTreeMiB.toFixed(0)} MiB`, `${wl.rows} / ${wl.restarts} / ${wl.peakTreeMiB.toFixed(0)} MiB`],
      );
    }
    for (const op of ['definition', 'references', 'implementations', 'callers'] as const) {
      const h = host.score?.ops.find((o) => o.op === op);
      const l = lsp.score?.ops.find((o) => o.op === op);
      if (h || l) table.push([`oracle ${op} P / R`, h ? `${pct(h.precision)} / ${pct(h.recall)}` : '—', l ? `${pct(l.precision)} / ${pct(l.recall)}` : '—']);
    }
    const metrics: Metric[] = [
      { name: 'host: first precise answer', value: host.firstPreciseMs, unit: 'ms', target: { op: '<=', value: 10_000 } },
      { name: 'host: first precise from the first question', value: host.firstPreciseFromAskMs, unit: 'ms' },
      { name: 'host: precise share', value: host.preciseShare, unit: 'ratio' },
      { name: 'host: heuristic after first precise', value: host.heuristicAfterFirstPrecise, unit: 'count', target: { op: '<=', value: 0 } },
      { name: 'host: restarts', value: host.restarts, unit: 'count', target: { op: '<=', value: 0 } },
      { name: 'host: peak RSS (engine + host)', value: host.peakTreeMiB, unit: 'MiB' },
      ...(wides[0] ? [{ name: 'host: wide references cold → precise', value: wides[0].coldMs, unit: 'ms' as const, target: { op: '<=' as const, value: 60_000 } }, { name: 'host: wide references warm', value: wides[0].warmMs, unit: 'ms' as const, target: { op: '<=' as const, value: 2_000 } }] : []),
      { name: 'csharp-ls: first precise answer', value: lsp.firstPreciseMs, unit: 'ms' },
      { name: 'csharp-ls: precise share', value: lsp.preciseShare, unit: 'ratio' },
      { name: 'csharp-ls: restarts', value: lsp.restarts, unit: 'count' },
      { name: 'csharp-ls: peak RSS (engine + csharp-ls + BuildHost)', value: lsp.peakTreeMiB, unit: 'MiB' },
    ];
    return { metrics, table, notes, data: { questions: oracle.questions, runs: runs.map((r) => ({ ...r, answers: r.answers.map(({ id, op, mode, provider, ms, items }) => ({ id, op, mode, provider, ms, items: items.length })) })) } };
  },
};
