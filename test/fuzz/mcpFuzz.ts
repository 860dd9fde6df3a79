/**
 * Schema-derived hostile calls over every tool, through a real MCP client on real stdio against
 * the built engine (dist/cli.js). The arguments come from the input schemas the server publishes
 * in tools/list (test/unit/hardening/schemaArbitrary.ts: mostly valid arguments built from hostile
 * values and the workspace's own files and names, some near-valid, some junk). Reports the slowest
 * calls, the engine's RSS before/after/peak, crashes (the engine or the connection gone, a call
 * that never answers) and malformed answers (a protocol error instead of a tool error, an error
 * text not in the `Error [CODE]: … Hint: …` form, an answer over its byte budget).
 *
 *   npx tsx test/fuzz/mcpFuzz.ts [--calls 10000] [--seed 20261202] [--workspace DIR] [--node-flags "FLAGS"]
 *
 * `--node-flags` go to the engine, e.g. `--require ./test/bench/loopStalls.cjs --cpu-prof --cpu-prof-dir=D`
 * with SEXTANT_STALL_TRACE=<file>: scripts/loop-stalls.mjs then says what held the engine during a slow call.
 *
 * Without --workspace it runs on the hostile workspace next to the generated 24-project C#
 * workspace (copied in under gen/). The CI variant is test/e2e/fuzz.test.ts (a few hundred
 * calls); the 10,000-call run is the `fuzz` bench section.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { z } from 'zod';
import { ALL_TOOLS } from '../../server/src/mcp/tools';
import { DEFAULT_RESPONSE_BYTES, MAX_RESPONSE_BYTES, MIN_RESPONSE_BYTES } from '../../server/src/core/limits';
import { cachedWorkspace } from '../fixtures/generate';
import { connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, tempDir } from '../helpers/workspace';
import { hostileWorkspace } from '../unit/hardening/hostileWorkspace';
import { argsArb, type JsonSchema, type WorkspaceFacts } from '../unit/hardening/schemaArbitrary';

export interface FuzzOptions {
  calls: number;
  seed: number;
  /** A workspace to fuzz on instead of the hostile + generated one. */
  workspace?: string | undefined;
  /** Per-call wait before a call counts as hung (crash). */
  hangMs?: number;
  /** Progress lines (stderr) every N calls. */
  progressEvery?: number;
  /** Extra `sextant mcp` flags. */
  engineArgs?: string[];
  /** Node flags for the engine (e.g. --heapsnapshot-signal=SIGUSR2). */
  nodeFlags?: string[];
  /** Connects to an engine some other way than `sextant mcp` over stdio (an in-process engine under a profiler). */
  connect?: (workspace: string, indexRoot: string) => Promise<Pick<Connected, 'client' | 'pid' | 'close'>>;
  /** Called after the index settled and after the last call, with the engine's pid (heap snapshots). */
  onPhase?: (phase: 'start' | 'end', pid: number) => Promise<void>;
}

export interface FuzzReport {
  calls: number;
  tools: number;
  perTool: Record<string, { calls: number; errors: number; maxMs: number }>;
  /** `startUs`: when the call was sent, on the monotonic clock of V8 CPU profiles and the stall trace (test/bench/loopStalls.cjs). */
  slowest: { tool: string; ms: number; args: string; startUs: number }[];
  /** p50 / p95 / max of call wall times (ms). */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** The slowest call that gave no `waitMs` (a semantic tool's wait for a loading provider, which extends its answer deadline). */
  maxWithoutWaitMs: number;
  /** Engine RSS (MiB): after the index settled, after the last call, highest sampled. */
  rssStartMiB: number;
  rssEndMiB: number;
  rssPeakMiB: number;
  /** Engine RSS every 500 calls ([calls done, MiB]): a plateau after the first tools' start-up vs steady growth. */
  rssByCalls: [number, number][];
  /** The Roslyn host (or other children) RSS at the end (MiB), apart from the engine's. */
  childrenRssEndMiB: number;
  /** Tool errors by code. */
  errorCodes: Record<string, number>;
  crashes: string[];
  malformed: string[];
  /** JSON-RPC errors instead of a tool answer (arguments that are not an object: the SDK refuses the request). */
  protocolErrors: string[];
  /** BUDGET_TOO_SMALL for a call that gave no byte budget (must never happen). */
  defaultBudgetFailures: string[];
  overBudget: string[];
  wallMs: number;
}

const ERROR_FORM = /^Error \[[A-Z][A-Z_]*\]: [\s\S]+ Hint: [\s\S]+$/;

/** VmRSS of a process in MiB (0 when gone). */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** The summed RSS of every descendant of `pid` (MiB). */
export function childrenRssMiB(pid: number): number {
  let total = 0;
  const kids = (p: number): number[] => {
    try {
      return fs.readFileSync(`/proc/${p}/task/${p}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  };
  const stack = kids(pid);
  while (stack.length) {
    const k = stack.pop()!;
    total += rssMiB(k);
    stack.push(...kids(k));
  }
  return total;
}

const pct = (xs: number[], p: number) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};

/** Files and names the fuzz draws valid arguments from: what the index itself finds. */
async function workspaceFacts(c: Pick<Connected, 'client'>): Promise<WorkspaceFacts> {
  const callSc = async (name: string, args: Record<string, unknown>) => {
    const r = await c.client.callTool({ name, arguments: args });
    return r.isError ? undefined : (r.structuredContent as any);
  };
  const files = ((await callSc('find_file', { query: '**/*.cs', limit: 60, maxBytes: MAX_RESPONSE_BYTES }))?.items ?? []).map((i: { path: string }) => i.path);
  const symbols = (await callSc('search_symbol', { query: '^[A-Z]\\w{3,}$', match: 'regex', limit: 60, maxBytes: MAX_RESPONSE_BYTES }))?.items ?? [];
  const projects = ((await callSc('projects_under', { prefix: '', limit: 20, maxBytes: MAX_RESPONSE_BYTES }))?.items ?? []).map((i: { id: string }) => i.id);
  return {
    paths: files,
    names: symbols.map((s: { symbolId: string }) => /^[A-Z]:([^(@]*)/.exec(s.symbolId)?.[1]?.split('.').pop()).filter(Boolean),
    symbolIds: symbols.map((s: { symbolId: string }) => s.symbolId),
    projects,
  };
}

/** Whether a call gave a byte budget of its own. */
function hasBudget(args: unknown): boolean {
  const a = args as { maxBytes?: unknown; budget?: { maxBytes?: unknown } } | null;
  return !!a && typeof a === 'object' && (a.maxBytes !== undefined || (typeof a.budget === 'object' && a.budget !== null && Object.keys(a.budget).some((k) => k === 'maxBytes' || k === 'maxTokens')));
}

/** The budget a call asked for (the server's default when not a valid one). */
function budgetOf(args: unknown): number {
  const a = args as { maxBytes?: unknown; budget?: { maxBytes?: unknown } } | null;
  const m = a && typeof a === 'object' ? (a.maxBytes ?? a.budget?.maxBytes) : undefined;
  return typeof m === 'number' && Number.isInteger(m) && m >= MIN_RESPONSE_BYTES && m <= MAX_RESPONSE_BYTES ? m : DEFAULT_RESPONSE_BYTES;
}

export async function runFuzz(o: FuzzOptions): Promise<FuzzReport> {
  const t0 = Date.now();
  let root = o.workspace;
  let dispose = () => {};
  if (!root) {
    const hw = hostileWorkspace();
    fs.cpSync(cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 }).root, path.join(hw.root, 'gen'), { recursive: true });
    root = hw.root;
    dispose = () => hw.dispose();
  }
  const idx = tempDir('fuzz-idx');
  const c = o.connect ? await o.connect(root, idx) : await connectStdio(root, idx, o.engineArgs ?? [], o.nodeFlags ?? []);
  const pid = c.pid ?? 0;
  const report: FuzzReport = {
    calls: 0, tools: 0, perTool: {}, slowest: [], p50Ms: 0, p95Ms: 0, maxMs: 0, maxWithoutWaitMs: 0, rssStartMiB: 0, rssEndMiB: 0, rssPeakMiB: 0, rssByCalls: [], childrenRssEndMiB: 0, errorCodes: {}, crashes: [], malformed: [], protocolErrors: [], defaultBudgetFailures: [], overBudget: [], wallMs: 0,
  };
  let closed = false;
  c.client.onclose = () => {
    closed = true;
  };
  try {
    // Settled: fresh, symbols written, the project graph built.
    await waitFor(async () => {
      const r = await c.client.callTool({ name: 'repo_overview', arguments: {} });
      const i = (r.structuredContent as { index?: { status: string; symbolsPending?: number } } | undefined)?.index;
      return i?.status === 'fresh' && !i.symbolsPending && !(await c.client.callTool({ name: 'projects_under', arguments: { prefix: '' } })).isError;
    }, 600_000, 500);
    const facts = await workspaceFacts(c);
    // Every tool tools/list publishes, its arguments drawn from the full zod schema (the published one leaves bounds out).
    const { tools } = await c.client.listTools();
    const zodOf = new Map(ALL_TOOLS.map((t) => [t.name, t.input]));
    const arb = fc.oneof(
      ...tools.map((t) => {
        const input = zodOf.get(t.name);
        const schema = (input ? z.toJSONSchema(input, { io: 'input' }) : t.inputSchema) as JsonSchema;
        // A cursor the fuzz makes up is always refused (INVALID_CURSOR): keep one in a few calls only.
        return fc.tuple(argsArb(schema, facts), fc.nat(99)).map(([args, r]) => ({ name: t.name, args: r < 90 && args && typeof args === 'object' && 'cursor' in args ? { ...args, cursor: undefined } : args }));
      }),
    );
    await o.onPhase?.('start', pid);
    report.rssStartMiB = report.rssPeakMiB = rssMiB(pid);
    const times: number[] = [];
    const hangMs = o.hangMs ?? 60_000;
    const samples = fc.sample(arb, { numRuns: o.calls, seed: o.seed });
    for (const [i, { name, args }] of samples.entries()) {
      if (closed) {
        report.crashes.push(`the connection closed before call ${i}`);
        break;
      }
      const shown = (JSON.stringify(args) ?? 'undefined').slice(0, 300);
      const s = (report.perTool[name] ??= { calls: 0, errors: 0, maxMs: 0 });
      const t = performance.now();
      const startUs = Number(process.hrtime.bigint() / 1000n);
      try {
        const r = await c.client.callTool({ name, arguments: args as Record<string, unknown> }, undefined, { timeout: hangMs });
        const ms = performance.now() - t;
        times.push(ms);
        if (!(args && typeof args === 'object' && 'waitMs' in args)) report.maxWithoutWaitMs = Math.max(report.maxWithoutWaitMs, Math.round(ms));
        s.maxMs = Math.max(s.maxMs, Math.round(ms));
        report.slowest.push({ tool: name, ms: Math.round(ms), args: shown, startUs });
        if (report.slowest.length > 20) report.slowest = report.slowest.sort((a, b) => b.ms - a.ms).slice(0, 10);
        const text = (r.content as { type: string; text?: string }[])[0]?.text ?? '';
        if (r.isError) {
          s.errors++;
          const code = /^Error \[([A-Z_]+)\]/.exec(text)?.[1] ?? '(none)';
          report.errorCodes[code] = (report.errorCodes[code] ?? 0) + 1;
          if (!ERROR_FORM.test(text)) report.malformed.push(`${name} ${shown} → ${text.slice(0, 200)}`);
          if (/^Error \[INTERNAL\]/.test(text)) report.malformed.push(`${name} ${shown} → INTERNAL: ${text.slice(0, 200)}`);
          if (code === 'BUDGET_TOO_SMALL' && !hasBudget(args)) report.defaultBudgetFailures.push(`${name} ${shown} → ${text.slice(0, 200)}`);
        }
        const bytes = Math.max(Buffer.byteLength(text), r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : 0);
        if (bytes > budgetOf(args)) report.overBudget.push(`${name}: ${bytes} > ${budgetOf(args)} for ${shown}`);
      } catch (e) {
        const msg = (e as Error).message;
        times.push(performance.now() - t);
        // The SDK client refuses an answer breaking the tool's outputSchema, and a protocol error is not a tool answer.
        if (/timed out|Connection closed|not connected/i.test(msg) || closed) report.crashes.push(`${name} ${shown} → ${msg.slice(0, 200)}`);
        else if (/^MCP error -326\d\d/.test(msg) && (args === null || typeof args !== 'object' || Array.isArray(args))) report.protocolErrors.push(`${name} ${shown} → ${msg.slice(0, 120)}`);
        else report.malformed.push(`${name} ${shown} → ${msg.slice(0, 200)}`);
      }
      s.calls++;
      report.calls++;
      if (i % 50 === 0) report.rssPeakMiB = Math.max(report.rssPeakMiB, rssMiB(pid));
      if ((i + 1) % 500 === 0) report.rssByCalls.push([i + 1, Math.round(rssMiB(pid))]);
      if (o.progressEvery && (i + 1) % o.progressEvery === 0) {
        process.stderr.write(`fuzz: ${i + 1}/${o.calls} calls, slowest ${Math.round(Math.max(...times))} ms, RSS ${rssMiB(pid).toFixed(0)} MiB\n`);
      }
    }
    report.rssEndMiB = rssMiB(pid);
    await o.onPhase?.('end', pid);
    report.rssPeakMiB = Math.max(report.rssPeakMiB, report.rssEndMiB);
    report.childrenRssEndMiB = childrenRssMiB(pid);
    report.p50Ms = Math.round(pct(times, 50));
    report.p95Ms = Math.round(pct(times, 95));
    report.maxMs = Math.round(Math.max(0, ...times));
    report.slowest = report.slowest.sort((a, b) => b.ms - a.ms).slice(0, 10);
    report.tools = Object.keys(report.perTool).length;
    if (!closed && rssMiB(pid) === 0 && pid) report.crashes.push('the engine process is gone');
  } finally {
    await c.close().catch(() => {});
    removeDir(idx);
    dispose();
  }
  report.wallMs = Date.now() - t0;
  return report;
}

if (require.main === module) {
  const argv = process.argv.slice(2);
  const opt = (k: string) => {
    const i = argv.indexOf(k);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  runFuzz({ calls: Number(opt('--calls') ?? 10_000), seed: Number(opt('--seed') ?? 20261202), workspace: opt('--workspace'), progressEvery: 500, nodeFlags: (opt('--node-flags') ?? '').split(' ').filter(Boolean) })
    .then((r) => {
      process.stdout.write(JSON.stringify(r, null, 1) + '\n');
      process.exit(r.crashes.length || r.malformed.length || r.defaultBudgetFailures.length ? 1 : 0);
    })
    .catch((e: unknown) => {
      process.stderr.write(`fuzz failed: ${(e as Error).stack ?? String(e)}\n`);
      process.exit(2);
    });
}
