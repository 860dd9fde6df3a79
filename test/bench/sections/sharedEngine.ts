/**
 * One engine, many agents (issue 25): does a heavy question of one agent stall the others?
 *
 * One engine (`sextant mcp`, cold index) and N agents, each its own MCP session over the engine's
 * shared HTTP endpoint (server.json): the cheap agents ask search_symbol / outline / find_file
 * every 250 ms; the heavy agent asks wide semantic questions (cold references of a type used by
 * hundreds of projects, implementations of a widely derived type, the heuristic definition of a
 * very common name) and a regex search, over the engine's own stdio (no HTTP socket timeout cuts a
 * question that takes minutes on an engine without an answer deadline). Reported: the cheap agents' p50 / p95 / max while the
 * heavy agent runs (and alone, before it starts), and each heavy question's time.
 *
 *   npm run bench -- --sections shared_engine [--quick] [PATH ...]
 *
 * `--base DIR` (or `SEXTANT_SHARED_BASELINE=DIR`) runs the same against that checkout's dist/cli.js
 * first (same run, same workspace: before/after); `SEXTANT_SHARED_AGENTS=<n>` sets the cheap agents (2);
 * `SEXTANT_SHARED_NODE_FLAGS` passes node flags to the engines (e.g. `--require test/bench/loopStalls.cjs`
 * with `SEXTANT_CPU_PROF=<file>`: an in-process CPU profile written when the engine stops).
 * For profiling: `SEXTANT_SHARED_INDEX=DIR` starts each engine from a copy of that index (warm text
 * and symbols; its recorded precise facts left out, so the semantic questions stay cold) instead of
 * a cold index; `SEXTANT_SHARED_CALLS=<file>` writes every call (agent, tool, arguments, phase, start
 * on the monotonic clock in µs — the clock of V8's CPU profiles — and time) as JSON.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { WorkspaceManifest } from '../../fixtures/generate/manifest';
import { fmt } from '../report';
import { median, p95 } from '../stats';
import type { BenchContext, BenchSection, Metric } from '../types';

const CADENCE_MS = 250;
const repoRoot = path.resolve(__dirname, '../../..');

type Args = Record<string, unknown>;
interface Question {
  label: string;
  tool: string;
  args: Args;
}

interface AgentClient {
  client: Client;
  close(): Promise<void>;
}

async function httpAgent(url: string, token: string, name: string): Promise<AgentClient> {
  const client = new Client({ name, version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** A setup call's answer, asked again while the engine says STILL_WORKING (a search during the symbol table's build), for up to 2 minutes. */
async function sc(c: Client, tool: string, args: Args): Promise<any> {
  const end = Date.now() + 120_000;
  for (;;) {
    const r = await c.callTool({ name: tool, arguments: args }, undefined, { timeout: 600_000 });
    const still = r.isError && String((r.content as { text?: string }[])[0]?.text).startsWith('Error [STILL_WORKING]');
    if (!still || Date.now() > end) return r.isError ? undefined : r.structuredContent;
  }
}

/** The cheap questions: names, files and outlines the index answers (one list, cycled per agent). */
async function cheapQuestions(c: Client, m: WorkspaceManifest | undefined): Promise<Question[]> {
  const names = new Set<string>();
  for (const f of m?.facts ?? []) if (f.kind === 'symbol') names.add(f.name);
  if (names.size < 6) {
    const r = await sc(c, 'search_symbol', { query: '^[A-Z][a-z]+[A-Z]\\w{4,}$', match: 'regex', kinds: ['class', 'interface'], limit: 40 });
    for (const row of r?.items ?? []) {
      const n = /^[A-Z]:([^(@]*)/.exec(row.symbolId)?.[1]?.split('.').pop();
      if (n) names.add(n);
    }
  }
  const files = ((await sc(c, 'find_file', { query: '**/*Service.cs', limit: 30 }))?.items ?? []).map((i: { path: string }) => i.path);
  const out: Question[] = [];
  const ns = [...names].slice(0, 12);
  for (let i = 0; i < Math.max(ns.length, files.length); i++) {
    const n = ns[i % Math.max(1, ns.length)];
    const f = files[i % Math.max(1, files.length)];
    if (n) out.push({ label: 'search_symbol', tool: 'search_symbol', args: { query: n } });
    if (f) out.push({ label: 'outline', tool: 'outline', args: { path: f } });
    if (f) out.push({ label: 'find_file', tool: 'find_file', args: { query: path.posix.basename(f, '.cs').slice(0, 12) } });
  }
  return out;
}

/** A declaration position of a name (search_symbol's first row of that kind). */
async function declarationOf(c: Client, name: string, kinds: string[]): Promise<Args | undefined> {
  const r = await sc(c, 'search_symbol', { query: name, kinds, limit: 5 });
  const row = r?.items?.[0];
  return row ? { symbolId: row.symbolId } : undefined;
}

/** The heavy agent's questions: wide and cold. */
async function heavyQuestions(c: Client, m: WorkspaceManifest | undefined): Promise<Question[]> {
  const out: Question[] = [];
  const fact = (id: string) => m?.facts.find((f) => f.id === id && f.kind === 'symbol') as { name: string; mentionFiles: number } | undefined;
  const add = async (label: string, tool: string, name: string | undefined, kinds: string[], extra: Args = {}) => {
    if (!name) return;
    const target = await declarationOf(c, name, kinds);
    if (target) out.push({ label: `${label} ${name}`, tool, args: { target, ...extra } });
  };
  if (m) {
    await add('references', 'references', fact('popularInterface')?.name, ['interface']);
    await add('implementations', 'implementations', fact('genericBase')?.name, ['class']);
    await add('references', 'references', fact('hotInterface')?.name, ['interface']);
    out.push({ label: 'search_text regex', tool: 'search_text', args: { query: String.raw`Compute\w+ScoreAsync\(`, mode: 'regex' } });
    await add('callers', 'callers', fact('ifSplitMethod')?.name, ['method']);
  } else {
    // A real repository: the most-declared-about names the index finds.
    const r = await sc(c, 'search_symbol', { query: '^I[A-Z]\\w{3,}$', match: 'regex', kinds: ['interface'], limit: 20, scope: 'production' });
    const ifaces = (r?.items ?? []).map((x: { symbolId: string }) => x.symbolId);
    for (const id of ifaces.slice(0, 2)) {
      out.push({ label: `references ${/:([^(@]*)/.exec(id)?.[1]?.split('.').pop()}`, tool: 'references', args: { target: { symbolId: id } } });
      out.push({ label: `implementations ${/:([^(@]*)/.exec(id)?.[1]?.split('.').pop()}`, tool: 'implementations', args: { target: { symbolId: id } } });
    }
    out.push({ label: 'search_text regex', tool: 'search_text', args: { query: String.raw`\w+Async\(`, mode: 'regex' } });
  }
  // The heuristic definition of a very common field name (decorated over every declaration of it).
  const hit = await sc(c, 'search_text', { query: '_service', mode: 'word', limit: 1 });
  const g = hit?.items?.[0];
  if (g?.hits?.[0]) out.push({ label: 'definition _service', tool: 'definition', args: { target: { path: g.path, line: g.hits[0].line, column: g.hits[0].column } } });
  return out;
}

interface RunResult {
  variant: string;
  /** Engine start → index fresh with symbols and project graph; the longest repo_overview answer meanwhile. */
  indexMs: number;
  indexWaitMaxMs: number;
  alone: number[];
  loaded: number[];
  heavy: { label: string; ms: number; outcome: string }[];
  slowestCheap: { ms: number; question: string }[];
  /** Cheap calls that failed (an error answer or a transport error), with the first few. */
  cheapErrors: string[];
  /** Load average (1, 5, 15 min) when the heavy questions ended. */
  load: string;
  /** The heavy questions' answers (first page, structured), to compare variants row by row. */
  answers: { label: string; structured: unknown }[];
  /** Every call with its start on the monotonic clock (µs), for SEXTANT_SHARED_CALLS. */
  calls: { agent: string; phase: string; tool: string; args: string; startUs: number; ms: number }[];
}

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

async function runVariant(ctx: BenchContext, variant: string, cli: string[], agents: number): Promise<RunResult> {
  const idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-shared-idx-'));
  const warm = process.env['SEXTANT_SHARED_INDEX'];
  if (warm) fs.cpSync(warm, idx, { recursive: true, filter: (src) => path.basename(src) !== 'precise' });
  const owner = new Client({ name: 'owner', version: '0.0.0' });
  // SEXTANT_SHARED_NODE_FLAGS: node flags for the engine alone (e.g. --cpu-prof --cpu-prof-dir=DIR).
  const flags = (process.env['SEXTANT_SHARED_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
  const transport = new StdioClientTransport({ command: cli[0]!, args: [...flags, ...cli.slice(1), 'mcp', '--workspace-root', ctx.target.root, '--index-root', idx], stderr: 'pipe', env: process.env as Record<string, string> });
  // The engine's log, kept for a failure's note (SEXTANT_SHARED_LOG=<file> keeps it all).
  let logTail = '';
  const logFile = process.env['SEXTANT_SHARED_LOG'];
  transport.stderr?.on('data', (d: Buffer) => {
    logTail = (logTail + d.toString()).slice(-4000);
    if (logFile) fs.appendFileSync(logFile, d);
  });
  await owner.connect(transport);
  owner.onclose = () => ctx.progress(`${variant}: the engine closed the connection; log tail: ${logTail.slice(-300)}`);
  const clients: AgentClient[] = [];
  const result0 = { variant, indexMs: 0, indexWaitMaxMs: 0 };
  try {
    ctx.progress(`${variant}: indexing (cold)…`);
    // The cold index holds the engine thread for long stretches: the wait tolerates slow answers.
    const indexStarted = performance.now();
    for (;;) {
      const t = performance.now();
      const i = (await sc(owner, 'repo_overview', {}).catch(() => undefined))?.index;
      const ms = performance.now() - t;
      result0.indexWaitMaxMs = Math.max(result0.indexWaitMaxMs, ms);
      if (i?.status === 'fresh' && !i.symbolsPending && (await sc(owner, 'projects_under', { prefix: '', limit: 1 }).catch(() => undefined))) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    result0.indexMs = performance.now() - indexStarted;
    const info = JSON.parse(fs.readFileSync(path.join(idx, 'server.json'), 'utf8')) as { url: string; token: string };
    const heavyAgent = { client: owner };
    for (let i = 0; i < agents; i++) clients.push(await httpAgent(info.url, info.token, `cheap-${i}`));
    const cheap = await cheapQuestions(owner, ctx.target.manifest);
    const heavy = await heavyQuestions(owner, ctx.target.manifest);
    const result: RunResult = { ...result0, alone: [], loaded: [], heavy: [], slowestCheap: [], cheapErrors: [], load: '', answers: [], calls: [] };
    let phase: 'alone' | 'loaded' | 'stop' = 'alone';
    const loop = async (a: AgentClient, k: number) => {
      for (let i = k; phase !== 'stop'; i++) {
        const q = cheap[i % cheap.length]!;
        const startUs = monotonicUs();
        const t = performance.now();
        const p = phase;
        try {
          const r = await a.client.callTool({ name: q.tool, arguments: q.args }, undefined, { timeout: 120_000 });
          if (r.isError) result.cheapErrors.push(`${q.tool}: ${String((r.content as { text: string }[])[0]?.text).slice(0, 120)}`);
        } catch (e) {
          result.cheapErrors.push(`${q.tool}: ${(e as Error).message.slice(0, 120)}`);
        }
        const ms = performance.now() - t;
        (p === 'alone' ? result.alone : result.loaded).push(ms);
        result.calls.push({ agent: `cheap-${clients.indexOf(a)}`, phase: p, tool: q.tool, args: JSON.stringify(q.args), startUs, ms });
        if (p === 'loaded') result.slowestCheap.push({ ms, question: `${q.tool} ${JSON.stringify(q.args)}` });
        await new Promise((r) => setTimeout(r, Math.max(0, CADENCE_MS - ms)));
      }
    };
    const loops = clients.map((a, k) => loop(a, k * 3));
    ctx.progress(`${variant}: cheap agents alone…`);
    await new Promise((r) => setTimeout(r, ctx.options.quick ? 5_000 : 15_000));
    phase = 'loaded';
    for (const q of heavy) {
      ctx.progress(`${variant}: heavy ${q.label}…`);
      const t = performance.now();
      // As an agent does: asked again while the engine answers STILL_WORKING.
      let asks = 0;
      let longest = 0;
      let r: Awaited<ReturnType<Client['callTool']>> | undefined;
      let failure = '';
      for (;;) {
        const a = performance.now();
        const startUs = monotonicUs();
        try {
          r = await heavyAgent.client.callTool({ name: q.tool, arguments: q.args }, undefined, { timeout: 600_000 });
        } catch (e) {
          failure = (e as Error).message.slice(0, 60);
        }
        asks++;
        longest = Math.max(longest, performance.now() - a);
        result.calls.push({ agent: 'heavy', phase: 'loaded', tool: q.tool, args: JSON.stringify(q.args), startUs, ms: performance.now() - a });
        if (failure || !r?.isError || !String((r.content as { text: string }[])[0]?.text).startsWith('Error [STILL_WORKING]') || performance.now() - t > 300_000) break;
      }
      const s = r?.structuredContent as { mode?: string; completeness?: { returned: number; total?: number; omittedBecauseBudget?: number; partial?: string }; counts?: { total?: number; projects?: number } } | undefined;
      // The first page's rows of how many (a references answer pages project groups), and for references the whole answer's count.
      const c = s?.completeness;
      const rows = c ? `${c.returned}${c.total !== undefined ? ` of ${c.total}` : ''} rows${c.omittedBecauseBudget ? ` (${c.omittedBecauseBudget} over the byte budget)` : ''}` : '0 rows';
      const counted = s?.counts?.total !== undefined ? `, ${s.counts.total} references in ${s.counts.projects} projects` : '';
      const outcome = failure || !r ? `failed: ${failure}` : r.isError ? String((r.content as { text: string }[])[0]?.text).slice(0, 40) : `${rows}${counted}${s?.mode ? ` ${s.mode}` : ''}`;
      if (s) result.answers.push({ label: q.label, structured: s });
      result.heavy.push({ label: q.label, ms: performance.now() - t, outcome: `${outcome}; ${asks} ask${asks === 1 ? '' : 's'}, longest ${Math.round(longest)} ms` });
    }
    phase = 'stop';
    result.load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
    await Promise.all(loops);
    result.slowestCheap = result.slowestCheap.sort((a, b) => b.ms - a.ms).slice(0, 3);
    return result;
  } finally {
    for (const a of clients) await a.close();
    await owner.close().catch(() => undefined);
    fs.rmSync(idx, { recursive: true, force: true });
  }
}

export const section: BenchSection = {
  name: 'shared_engine',
  order: 95,
  description: 'one engine, many agents: cheap questions every 250 ms while one agent asks cold wide questions (real MCP sessions over HTTP)',
  async run(ctx) {
    const agents = Number(process.env['SEXTANT_SHARED_AGENTS'] ?? 2);
    const variants: [string, string[]][] = [];
    const base = process.env['SEXTANT_SHARED_BASELINE'];
    if (ctx.options.base) variants.push([`base (${ctx.options.base.label.slice(0, 40)})`, ctx.options.base.cli]);
    else if (base) variants.push([`baseline (${path.basename(base)})`, [process.execPath, path.join(base, 'dist', 'cli.js')]]);
    variants.push([ctx.options.cliKind === 'dist' ? 'this checkout' : 'this checkout (sources)', ctx.options.cli]);
    const runs: RunResult[] = [];
    for (const [name, cli] of variants) runs.push(await runVariant(ctx, name, cli, agents));
    const callsFile = process.env['SEXTANT_SHARED_CALLS'];
    if (callsFile) fs.writeFileSync(callsFile, JSON.stringify(runs.map((r) => ({ variant: r.variant, calls: r.calls }))));
    const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
    const table = [['variant', 'phase', 'cheap calls', 'p50', 'p95', 'max']];
    const heavyTable = [['variant', 'heavy question', 'time', 'answer']];
    const metrics: Metric[] = [];
    for (const r of runs) {
      for (const [phase, xs] of [['alone', r.alone], ['heavy running', r.loaded]] as const) {
        table.push([r.variant, phase, String(xs.length), fmt(median(xs), 'ms'), fmt(p95(xs), 'ms'), fmt(xs.length ? Math.max(...xs) : undefined, 'ms')]);
      }
      for (const h of r.heavy) heavyTable.push([r.variant, h.label, fmt(h.ms, 'ms'), h.outcome]);
      heavyTable.push([r.variant, '(cold index: start → fresh; longest repo_overview meanwhile)', fmt(r.indexMs, 'ms'), `longest answer ${fmt(r.indexWaitMaxMs, 'ms')}`]);
    }
    const last = runs[runs.length - 1]!;
    metrics.push(
      { name: 'cheap p95 while heavy runs', value: p95(last.loaded), unit: 'ms', target: { op: '<=', value: 50 }, detail: `${agents} cheap agents, ${last.loaded.length} calls` },
      { name: 'cheap max while heavy runs', value: last.loaded.length ? Math.max(...last.loaded) : undefined, unit: 'ms', target: { op: '<=', value: 250 }, detail: last.slowestCheap[0]?.question.slice(0, 80) ?? '' },
      { name: 'heavy questions total', value: last.heavy.reduce((k, h) => k + h.ms, 0), unit: 'ms', detail: `${last.heavy.length} questions` },
    );
    if (runs.length > 1) {
      const b = runs[0]!;
      metrics.push({ name: 'baseline cheap p95 / max while heavy runs', value: p95(b.loaded), unit: 'ms', detail: `max ${fmt(b.loaded.length ? Math.max(...b.loaded) : undefined, 'ms')}` });
    }
    return {
      metrics,
      table: [...table, [], ...heavyTable],
      notes: [`load at the end ${load} (${os.cpus().length} CPUs); engine from ${repoRoot}`, ...runs.map((r) => `${r.variant}: load ${r.load}; slowest cheap calls ${r.slowestCheap.map((s) => `${Math.round(s.ms)} ms ${s.question.slice(0, 60)}`).join('; ')}; ${r.cheapErrors.length} cheap call(s) failed${r.cheapErrors.length ? `: ${r.cheapErrors.slice(0, 3).join(' | ')}` : ''}`)],
      data: runs.map(({ calls: _, ...r }) => r),
    };
  },
};
