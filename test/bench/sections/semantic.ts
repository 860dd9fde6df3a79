/**
 * Semantic latency against real csharp-ls: `definition` and grouped `references`, each measured
 * twice on the same warm language server — through the provider alone (LspProvider.request, the
 * csharp-ls round trip plus Sextant's csharp-ls work-arounds) and through the engine (an MCP tool
 * call over an in-memory transport: validation, target resolution, decoration, grouping,
 * rendering) — so the engine's overhead is visible. Also the time from `sextant mcp` start (a
 * fresh index, stdio) to the first precise C# answer.
 *
 * csharp-ls needs restored projects. A generated workspace is copied once to
 * <tmp>/sextant-bench-restored/<key>/ws and restored there (the generated cache is never
 * modified); a workspace given as PATH must already be restored (the bench says when it is not).
 * Targets are picked from the sources (types with many word occurrences in code) and then by
 * csharp-ls: the candidate with the most references at or under 1,000 (the issue's "symbol with
 * ≤ 1,000 references"); definition is asked at one of its references in another folder.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildServer } from '../../../server/src/mcp/server';
import { Engine } from '../../../server/src/nav/engine';
import { semanticService } from '../../../server/src/nav/semanticService';
import type { SourcePosition } from '../../../server/src/semantic/types';
import { fmt } from '../report';
import { median, p95 } from '../stats';
import type { BenchContext, BenchSection, Metric } from '../types';

/** Generated workspaces bigger than this are not restored and loaded (use --projects 100). */
const MAX_GENERATED_PROJECTS = 300;
/** The issue's reference bound for the references target. */
const MAX_TARGET_REFERENCES = 1000;
/** Give up waiting for the first precise answer after this long. */
const FIRST_PRECISE_CAP_MS = 900_000;

interface SemanticLocationLike {
  path: string;
  line: number;
  column: number;
  external?: boolean;
}

interface Targets {
  name: string;
  /** The declaration's name token. */
  decl: SourcePosition;
  /** A use of the name in another folder (definition target). */
  use: SourcePosition;
  occurrences: number;
}

export const section: BenchSection = {
  name: 'semantic',
  order: 50,
  description: 'definition / grouped references on real csharp-ls: provider alone vs through the engine (MCP call), warm; sextant mcp start → first precise C# answer',
  appliesTo: (t) => hasCSharpProjects(t.root),
  async run(ctx) {
    const notes: string[] = [];
    let root = ctx.target.root;
    if (ctx.target.manifest) {
      if (ctx.target.manifest.projects.length > MAX_GENERATED_PROJECTS) {
        return { metrics: [], notes: [`skipped: ${ctx.target.manifest.projects.length} projects; csharp-ls loads are measured on ≤ ${MAX_GENERATED_PROJECTS} (run with --projects 100)`] };
      }
      ctx.progress('restoring a copy of the generated workspace…');
      const r = restoredCopy(root);
      root = r.root;
      notes.push(r.note);
    } else {
      const { projects, restored } = restoreState(root);
      notes.push(`${restored}/${projects} projects restored (obj/project.assets.json)${restored < projects ? ': csharp-ls cannot load the others; run dotnet restore first' : ''}`);
    }
    ctx.progress('picking targets…');
    const candidates = pickCandidates(root);
    if (candidates.length === 0) return { metrics: [], notes: [...notes, 'no C# type with uses in another folder found'] };

    // 1. sextant mcp start → first precise answer (fresh index, real stdio, the CLI the bench runs).
    ctx.progress('sextant mcp start → first precise C# answer…');
    const first = await timeToFirstPrecise(ctx, root, candidates[0]!.use);
    notes.push(`first precise: ${first.note}; asked: definition at ${fmtPos(candidates[0]!.use)}`);

    // 2. Warm latency on one engine: provider alone vs through the engine, interleaved.
    ctx.progress('warm engine + csharp-ls…');
    const warm: Warm = await warmLatency(ctx, root, candidates).catch((e: unknown) => ({
      defProvider: [],
      defEngine: [],
      refProvider: [],
      refEngine: [],
      cpu: { engineMs: 0, providerMs: 0 },
      notes: [`warm phase failed: ${(e as Error).message.split('\n')[0]}`],
    }));
    notes.push(...warm.notes);
    const t = warm.target ?? candidates[0]!;

    const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? a / b : undefined);
    const over = (a: number | undefined, b: number | undefined) => (a !== undefined && b !== undefined && b > 0 ? ((a - b) / b) * 100 : undefined);
    const metrics: Metric[] = [
      { name: 'sextant mcp start → first precise C# answer', value: first.ms !== undefined ? first.ms / 1000 : undefined, unit: 's', detail: first.detail },
      { name: 'definition p95 through the engine', value: p95(warm.defEngine), unit: 'ms', target: { op: '<=', value: 150 } },
      { name: 'definition p95, provider alone', value: p95(warm.defProvider), unit: 'ms' },
      { name: 'definition engine/provider at p95', value: ratio(p95(warm.defEngine), p95(warm.defProvider)), unit: 'ratio', target: { op: '<=', value: 1.2 }, detail: 'overhead ≤ 20%' },
      { name: 'references (grouped) p95 through the engine', value: p95(warm.refEngine), unit: 'ms', target: { op: '<=', value: 500 }, detail: `${warm.refCount ?? '?'} references` },
      { name: 'references p95, provider alone', value: p95(warm.refProvider), unit: 'ms' },
      { name: 'references engine/provider at p95', value: ratio(p95(warm.refEngine), p95(warm.refProvider)), unit: 'ratio', target: { op: '<=', value: 1.2 }, detail: 'overhead ≤ 20%' },
    ];
    const row = (label: string, provider: number[], engine: number[]) => [
      label,
      fmt(median(provider), 'ms'),
      fmt(p95(provider), 'ms'),
      fmt(median(engine), 'ms'),
      fmt(p95(engine), 'ms'),
      pct(over(median(engine), median(provider))),
      pct(over(p95(engine), p95(provider))),
      String(engine.length),
    ];
    const table = [
      ['query', 'provider p50', 'provider p95', 'engine p50', 'engine p95', 'overhead p50', 'overhead p95', 'n'],
      row(`definition (use of ${t.name})`, warm.defProvider, warm.defEngine),
      row(`references grouped (${warm.refCount ?? '?'} refs)`, warm.refProvider, warm.refEngine),
    ];
    return { metrics, table, notes, data: { root, targets: t, candidates, first, warm } };
  },
};

// ─── time to first precise ─────────────────────────────────────────────────────

async function timeToFirstPrecise(ctx: BenchContext, root: string, use: SourcePosition): Promise<{ ms?: number; detail: string; note: string; polls: number; modes: string[] }> {
  const indexRoot = fs.mkdtempSync(path.join(ctx.scratch, 'first-'));
  const [command, ...lead] = ctx.options.cli;
  const load0 = os.loadavg()[0]!;
  const started = performance.now();
  const transport = new StdioClientTransport({ command: command!, args: [...lead, 'mcp', '--workspace-root', root, '--index-root', indexRoot], stderr: 'pipe' });
  // Milestones from the engine's log: when the project model exists, when csharp-ls is ready.
  const milestones: string[] = [];
  transport.stderr?.on('data', (c: Buffer) => {
    for (const line of c.toString('utf8').split('\n')) {
      const m = /project graph rebuilt|csharp-ls ready/.exec(line);
      if (m) milestones.push(`${m[0]} at ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
  });
  const client = new Client({ name: 'sextant-bench', version: '0' });
  const modes: string[] = [];
  let ms: number | undefined;
  try {
    await client.connect(transport);
    while (performance.now() - started < FIRST_PRECISE_CAP_MS) {
      const r = await client.callTool({ name: 'definition', arguments: { target: use, waitMs: 9_000 } });
      const sc = r.structuredContent as { mode?: string; items?: unknown[] } | undefined;
      const mode = r.isError ? 'error' : (sc?.mode ?? '?');
      if (modes[modes.length - 1] !== mode) modes.push(mode);
      if (mode === 'precise' && (sc?.items?.length ?? 0) > 0) {
        ms = performance.now() - started;
        break;
      }
      if (r.isError) await new Promise((res) => setTimeout(res, 500));
    }
  } finally {
    await client.close().catch(() => undefined);
  }
  const load = `load ${load0.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}`;
  const detail = `${modes.join(' → ')}; ${milestones.join(', ')}${milestones.length ? '; ' : ''}${load}`;
  return { ...(ms !== undefined ? { ms } : {}), detail, note: ms !== undefined ? `${(ms / 1000).toFixed(1)} s (${detail})` : `none within ${FIRST_PRECISE_CAP_MS / 1000} s (${detail})`, polls: modes.length, modes };
}

// ─── warm latency ──────────────────────────────────────────────────────────────

interface Warm {
  target?: Targets;
  defProvider: number[];
  defEngine: number[];
  refProvider: number[];
  refEngine: number[];
  refCount?: number;
  cpu: { engineMs: number; providerMs: number; csharpLsMs?: number };
  notes: string[];
}

async function warmLatency(ctx: BenchContext, root: string, candidates: Targets[]): Promise<Warm> {
  const n = ctx.options.quick ? 8 : 30;
  const notes: string[] = [];
  const engine = await Engine.open({ workspaceRoot: root, indexRoot: fs.mkdtempSync(path.join(ctx.scratch, 'warm-')) });
  const server = buildServer(engine);
  const [a, b] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const client = new Client({ name: 'sextant-bench', version: '0' });
  await client.connect(b);
  const out: Warm = { defProvider: [], defEngine: [], refProvider: [], refEngine: [], cpu: { engineMs: 0, providerMs: 0 }, notes };
  try {
    await engine.refresh();
    const svc = semanticService(engine);
    const tool = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content).slice(0, 300)}`);
      return r.structuredContent as { mode: string; items: unknown[]; counts?: { total: number } };
    };
    // Load: the engine's first C# request chooses the projects and starts csharp-ls.
    const t0 = performance.now();
    let mode = '';
    while (mode !== 'precise' && performance.now() - t0 < FIRST_PRECISE_CAP_MS) mode = (await tool('definition', { target: candidates[0]!.use, waitMs: 9_000 })).mode;
    notes.push(`in-process engine: precise after ${((performance.now() - t0) / 1000).toFixed(1)} s (index built first); csharp-ls scope: ${svc.csharpScope}`);
    if (mode !== 'precise') return out;
    const lsp = svc.lsp!;
    const provider = async <T>(op: 'definition' | 'references', args: object): Promise<T> => {
      for (let i = 0; ; i++) {
        const ac = new AbortController();
        const r = await lsp.request(op, 'csharp', args as never, { signal: ac.signal, deadline: Date.now() + 60_000, waitForReadyMs: 50_000 });
        if (r.kind === 'ok') return r.value as T;
        // A grown project set is still loading: wait for it.
        if (r.kind === 'unavailable' && r.state === 'loading' && i < 20) continue;
        throw new Error(`provider ${op}: ${r.kind} ${'reason' in r ? r.reason : ''}`);
      }
    };
    // The candidate with the most real references at or under the bound; its definition is asked
    // at a reference in another folder (another project when there is one).
    const counted: string[] = [];
    let best: { t: Targets; refs: SemanticLocationLike[] } | undefined;
    for (const c of candidates) {
      // Through the engine first: it loads the projects that may use the name (csharp-ls restarts
      // on the grown set), so the count is over every project that can reference it.
      let r: { mode: string } | undefined;
      for (let i = 0; i < 60 && r?.mode !== 'precise'; i++) r = await tool('references', { target: c.decl, group_by: 'none', limit: 1, waitMs: 9_000 }).catch(() => undefined);
      const refs = await provider<SemanticLocationLike[]>('references', { ...c.decl, includeDeclaration: true }).catch(() => [] as SemanticLocationLike[]);
      counted.push(`${c.name} ${refs.length}`);
      if (refs.length <= MAX_TARGET_REFERENCES && (!best || refs.length > best.refs.length)) best = { t: c, refs };
    }
    notes.push(`csharp-ls scope after the candidates: ${svc.csharpScope}`);
    if (!best) return out;
    const declDir = path.posix.dirname(best.t.decl.path);
    const away = best.refs.find((r) => !r.external && path.posix.dirname(r.path) !== declDir && !r.path.startsWith(declDir.split('/').slice(0, -1).join('/') + '/'))
      ?? best.refs.find((r) => !r.external && path.posix.dirname(r.path) !== declDir);
    const t: Targets = { ...best.t, ...(away ? { use: { path: away.path, line: away.line, column: away.column } } : {}) };
    out.target = t;
    notes.push(`references per candidate (provider): ${counted.join(', ')}`);
    notes.push(`targets: ${t.name}, ${best.refs.length} references, declared at ${fmtPos(t.decl)}; definition asked at ${fmtPos(t.use)}`);
    const refArgs = { ...t.decl, includeDeclaration: true };
    // Warm-up: both paths, both queries.
    for (let i = 0; i < 3; i++) {
      await provider('definition', t.use);
      await tool('definition', { target: t.use });
      out.refCount = (await provider<unknown[]>('references', refArgs)).length;
      const e = await tool('references', { target: t.decl });
      if (e.counts && e.counts.total !== out.refCount) notes.push(`engine counted ${e.counts.total} references, provider returned ${out.refCount}`);
    }
    const pid = lsp.serverForLanguage('csharp')?.status().pid;
    const lsCpu0 = pid ? procCpuMs(pid) : undefined;
    const timed = async (into: number[], cpuKey: 'engineMs' | 'providerMs', fn: () => Promise<unknown>) => {
      const c = process.cpuUsage();
      const s = performance.now();
      await fn();
      into.push(performance.now() - s);
      const d = process.cpuUsage(c);
      out.cpu[cpuKey] += (d.user + d.system) / 1000;
    };
    for (let i = 0; i < n; i++) {
      ctx.progress(`semantic warm ${i + 1}/${n}…`);
      // Alternate which side goes first, so neither always meets a just-warmed server.
      const pairs: [() => Promise<void>, () => Promise<void>][] = [
        [() => timed(out.defProvider, 'providerMs', () => provider('definition', t.use)), () => timed(out.defEngine, 'engineMs', () => tool('definition', { target: t.use }))],
        [() => timed(out.refProvider, 'providerMs', () => provider('references', refArgs)), () => timed(out.refEngine, 'engineMs', () => tool('references', { target: t.decl }))],
      ];
      for (const [p, e] of pairs) {
        if (i % 2 === 0) {
          await p();
          await e();
        } else {
          await e();
          await p();
        }
      }
    }
    if (pid && lsCpu0 !== undefined) {
      const lsCpu = procCpuMs(pid);
      if (lsCpu !== undefined) out.cpu.csharpLsMs = lsCpu - lsCpu0;
    }
    notes.push(
      `CPU over the timed runs: bench process ${Math.round(out.cpu.engineMs)} ms during engine calls, ${Math.round(out.cpu.providerMs)} ms during provider calls; csharp-ls ${out.cpu.csharpLsMs !== undefined ? Math.round(out.cpu.csharpLsMs) + ' ms' : 'n/a'}; load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')}`,
    );
  } finally {
    await client.close().catch(() => undefined);
    await engine.close();
  }
  return out;
}

// ─── workspace preparation ─────────────────────────────────────────────────────

export function hasCSharpProjects(root: string): boolean {
  const walk = (d: string, depth: number): boolean => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return false;
    }
    for (const e of entries) {
      if (e.isFile() && /\.(csproj|sln|slnx)$/.test(e.name)) return true;
      if (e.isDirectory() && depth < 3 && !SKIP_DIRS.has(e.name)) if (walk(path.join(d, e.name), depth + 1)) return true;
    }
    return false;
  };
  return walk(root, 0);
}

const SKIP_DIRS = new Set(['.git', 'bin', 'obj', 'node_modules', '.sextant', '.vs']);

function csFiles(root: string, ext: RegExp): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name)) walk(path.join(d, e.name));
      } else if (e.isFile() && ext.test(e.name)) out.push(path.relative(root, path.join(d, e.name)).split(path.sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}

function restoreState(root: string): { projects: number; restored: number } {
  const projects = csFiles(root, /\.csproj$/);
  const restored = projects.filter((p) => fs.existsSync(path.join(root, path.dirname(p), 'obj', 'project.assets.json'))).length;
  return { projects: projects.length, restored };
}

/** A restored copy of a generated workspace (made once; a marker records a finished restore). */
export function restoredCopy(root: string): { root: string; note: string } {
  const key = path.basename(path.dirname(root));
  const dir = path.join(os.tmpdir(), 'sextant-bench-restored', key);
  const ws = path.join(dir, 'ws');
  const marker = path.join(dir, 'restored');
  if (fs.existsSync(marker)) return { root: ws, note: `restored copy reused: ${ws}` };
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  fs.cpSync(root, ws, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
  const sln = csFiles(ws, /\.sln$/)
    .map((s) => ({ s, n: (fs.readFileSync(path.join(ws, s), 'utf8').match(/^Project\(/gm) ?? []).length }))
    .sort((a, b) => b.n - a.n)[0]?.s;
  const t = performance.now();
  const r = spawnSync('dotnet', ['restore', ...(sln ? [sln] : []), '--disable-build-servers', '-v', 'q'], {
    cwd: ws,
    encoding: 'utf8',
    env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', MSBUILDDISABLENODEREUSE: '1' },
    timeout: 900_000,
    maxBuffer: 1 << 26,
  });
  const errors = [...new Set((r.stdout + r.stderr).match(/error NU\d+[^[\n]*/g) ?? [])];
  if (r.status === 0) fs.writeFileSync(marker, new Date().toISOString());
  const state = restoreState(ws);
  return {
    root: ws,
    note: `restored a copy (${sln ?? 'all projects'}) in ${((performance.now() - t) / 1000).toFixed(0)} s: exit ${r.status}, ${state.restored}/${state.projects} projects restored${errors.length ? `; ${errors.slice(0, 3).join('; ')}` : ''}`,
  };
}

/**
 * Types declared once, with the most whole-word occurrences in code (comments and strings left
 * out), each with a use in another folder: the warm phase asks csharp-ls how many references each
 * really has and keeps the biggest at or under the bound.
 */
export function pickCandidates(root: string, max = 8): Targets[] {
  const files = csFiles(root, /\.cs$/).filter((f) => !/\.g\.cs$|\.Designer\.cs$/.test(f));
  const counts = new Map<string, number>();
  const decls = new Map<string, SourcePosition[]>();
  const texts = new Map<string, string[]>();
  for (const f of files) {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    const lines = text.split(/\r?\n/);
    texts.set(f, lines);
    // Count code only: comments and string literals dropped (log messages mention type names).
    const code = text.replace(/\/\/.*$/gm, '').replace(/@?\$?"(?:[^"\\\n]|\\.)*"/g, '""');
    for (const m of code.matchAll(/\b[A-Z][A-Za-z0-9_]{3,}\b/g)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
    lines.forEach((l, i) => {
      const m = /\b(?:class|interface|record|struct)\s+([A-Z][A-Za-z0-9_]{3,})\b/.exec(l);
      if (m && !/\bpartial\b/.test(l)) (decls.get(m[1]!) ?? decls.set(m[1]!, []).get(m[1]!)!).push({ path: f, line: i + 1, column: m.index + m[0].length - m[1]!.length + 1 });
    });
  }
  const ranked = [...decls.entries()]
    .filter(([name, d]) => d.length === 1 && (counts.get(name) ?? 0) <= MAX_TARGET_REFERENCES * 3)
    .sort((a, b) => (counts.get(b[0]) ?? 0) - (counts.get(a[0]) ?? 0));
  const out: Targets[] = [];
  for (const [name, [decl]] of ranked) {
    if (out.length >= max) break;
    const re = new RegExp(`\\b${name}\\b`);
    search: for (const f of files) {
      if (path.posix.dirname(f) === path.posix.dirname(decl!.path)) continue;
      const lines = texts.get(f)!;
      for (let i = 0; i < lines.length; i++) {
        const l = lines[i]!;
        if (/^\s*(\/\/|using\b)/.test(l)) continue;
        const m = re.exec(l);
        if (m && !/"/.test(l.slice(0, m.index))) {
          out.push({ name, decl: decl!, use: { path: f, line: i + 1, column: m.index + 1 }, occurrences: counts.get(name) ?? 0 });
          break search;
        }
      }
    }
  }
  return out;
}

function procCpuMs(pid: number): number | undefined {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    return (ticks * 1000) / 100;
  } catch {
    return undefined;
  }
}

function fmtPos(p: SourcePosition): string {
  return `${p.path}:${p.line}:${p.column}`;
}

function pct(v: number | undefined): string {
  return v === undefined ? '—' : `${v >= 0 ? '+' : ''}${v.toFixed(0)}%`;
}
