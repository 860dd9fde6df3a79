/**
 * The Roslyn oracle from TypeScript: builds the .NET tool (test/oracle/tool, output under
 * test/.tmp/oracle), runs it on a throw-away copy of a workspace, asks the same questions of the
 * engine over a real MCP client on stdio (first pass, in question order, no warm-up) and scores
 * the engine's answers against the oracle's: precision / recall per op.
 *
 * The oracle may write obj/ (MSBuildWorkspace's design-time builds), so it is only ever run on its
 * own copy; locations in files that are not in the original tree (SDK-generated AssemblyInfo /
 * GlobalUsings written by those builds) are left out of the score.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export const ORACLE_DIR = path.resolve(__dirname, 'tool');
export const ORACLE_DLL = path.resolve(__dirname, '../.tmp/oracle/bin/Release/net10.0/sextant-oracle.dll');

export type OracleOp = 'definition' | 'references' | 'implementations' | 'callers';
export const ORACLE_OPS: readonly OracleOp[] = ['definition', 'references', 'implementations', 'callers'];

export interface Question {
  id: string;
  op: OracleOp;
  path: string;
  line: number;
  column: number;
  note?: string;
}

export interface OracleItem {
  path: string;
  line: number;
  column: number;
  generated?: boolean;
  sites?: { line: number; column: number }[];
  via?: string;
}

export interface OracleAnswer {
  id: string;
  op: OracleOp;
  symbol?: string;
  items?: OracleItem[];
  error?: string;
  ms: number;
}

export interface OracleResult {
  projects: number;
  loadMs: number;
  answerMs: number;
  workspaceDiagnostics: string[];
  questions: Question[];
  answers: OracleAnswer[];
}

const dotnetEnv = { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', MSBUILDDISABLENODEREUSE: '1', DOTNET_CLI_USE_MSBUILD_SERVER: '0' };

/** Builds the oracle tool when its sources are newer than the built dll (offline restore through the registry). */
export function ensureOracleBuilt(): string {
  const newest = Math.max(...fs.readdirSync(ORACLE_DIR).map((f) => fs.statSync(path.join(ORACLE_DIR, f)).mtimeMs));
  if (fs.existsSync(ORACLE_DLL) && fs.statSync(ORACLE_DLL).mtimeMs >= newest) return ORACLE_DLL;
  const r = spawnSync('dotnet', ['build', '-c', 'Release', '-v', 'q', '-nologo', '--disable-build-servers', '-p:NuGetAudit=false'], { cwd: ORACLE_DIR, encoding: 'utf8', env: dotnetEnv, timeout: 300_000 });
  if (r.status !== 0 || !fs.existsSync(ORACLE_DLL)) throw new Error(`Error [ORACLE_BUILD]: dotnet build of the oracle failed (${r.status}). Hint: ${(r.stdout + r.stderr).trim().slice(-2000)}`);
  fs.utimesSync(ORACLE_DLL, new Date(), new Date());
  return ORACLE_DLL;
}

export interface OracleRun {
  /** Root of the oracle's OWN copy (never the tree the engine reads). */
  root: string;
  solution?: string;
  projects?: string[];
  questions?: Question[];
  sample?: { count: number; seed: number; ops?: OracleOp[] };
  timeoutMs?: number;
}

export function runOracle(o: OracleRun): OracleResult {
  const dll = ensureOracleBuilt();
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-oracle-out-')), 'answers.json');
  const args = [dll, '--root', o.root, '--out', out, '--quiet'];
  if (o.solution) args.push('--solution', o.solution);
  for (const p of o.projects ?? []) args.push('--project', p);
  if (o.questions) {
    const qf = out.replace(/answers\.json$/, 'questions.json');
    fs.writeFileSync(qf, JSON.stringify(o.questions));
    args.push('--questions', qf);
  } else if (o.sample) {
    args.push('--sample', String(o.sample.count), '--seed', String(o.sample.seed));
    if (o.sample.ops) args.push('--ops', o.sample.ops.join(','));
  } else throw new Error('runOracle needs questions or sample');
  const r = spawnSync('dotnet', args, { encoding: 'utf8', env: dotnetEnv, timeout: o.timeoutMs ?? 1_200_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0 || !fs.existsSync(out)) throw new Error(`Error [ORACLE_RUN]: the oracle exited ${r.status}${r.signal ? ` (${r.signal})` : ''}. Hint: ${r.stderr.trim().slice(-2000)}`);
  const result = JSON.parse(fs.readFileSync(out, 'utf8')) as OracleResult;
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  return result;
}

/** Workspace-relative POSIX paths of every file in a tree (the original, before anyone wrote into a copy). */
export function fileSet(root: string): Set<string> {
  const out = new Set<string>();
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (e.name === '.git' || e.name === 'node_modules') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(dir, e.name), r);
      else out.add(r);
    }
  };
  walk(root, '');
  return out;
}

/** One engine answer as the scorer reads it. */
export interface EngineAnswer {
  id: string;
  op: OracleOp;
  mode: string;
  provider?: string;
  reason?: string;
  /** `path:line:column` keys (callers: of the caller's declaration). */
  items: string[];
  ms: number;
  error?: string;
}

const MAX_PAGES = 50;

async function callAll(client: Client, name: string, args: Record<string, unknown>): Promise<{ first: any; items: any[] }> {
  let first: any;
  const items: any[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await client.callTool({ name, arguments: cursor ? { ...args, cursor } : args }, undefined, { timeout: 600_000 });
    if (r.isError) throw new Error((r.content as { text: string }[])[0]?.text ?? 'tool error');
    const sc = r.structuredContent as any;
    first ??= sc;
    items.push(...(sc.items ?? []));
    cursor = sc.nextCursor;
    if (!cursor) break;
  }
  return { first, items };
}

const key = (r: { path: string; line: number; column: number }) => `${r.path}:${r.line}:${r.column}`;

/** Asks one question of the engine over MCP (first pass: one call, waiting as long as it needs). */
export async function askEngine(client: Client, q: Question, waitMs: number): Promise<EngineAnswer> {
  const target = { path: q.path, line: q.line, column: q.column };
  const t0 = Date.now();
  try {
    let r: { first: any; items: any[] };
    let items: string[];
    switch (q.op) {
      case 'definition':
        r = await callAll(client, 'definition', { target, waitMs, maxBytes: 65536 });
        items = r.items.map(key);
        break;
      case 'references':
        r = await callAll(client, 'references', { target, waitMs, group_by: 'none', include_definition: false, limit: 200, maxBytes: 65536 });
        items = r.items.filter((i) => i.role !== 'declaration' && i.role !== 'related').map(key);
        break;
      case 'implementations':
        r = await callAll(client, 'implementations', { target, waitMs, limit: 200, maxBytes: 65536 });
        items = r.items.map(key);
        break;
      case 'callers':
        r = await callAll(client, 'callers', { target, waitMs, depth: 1, limit: 200, maxBytes: 65536 });
        items = r.items.filter((e) => e.depth === 1).map((e) => key(e.caller));
        break;
    }
    const f = r.first;
    return { id: q.id, op: q.op, mode: f.mode ?? (f.target_selection?.status === 'ambiguous' ? 'ambiguous' : 'unknown'), provider: f.provider, reason: f.reason ?? f.partial, items: [...new Set(items)], ms: Date.now() - t0 };
  } catch (e) {
    return { id: q.id, op: q.op, mode: 'error', items: [], ms: Date.now() - t0, error: (e as Error).message.slice(0, 300) };
  }
}

export interface OpScore {
  op: OracleOp;
  questions: number;
  truth: number;
  answered: number;
  tp: number;
  precision: number;
  recall: number;
  modes: Record<string, number>;
}

export interface Miss {
  id: string;
  op: OracleOp;
  at: string;
  symbol?: string;
  mode: string;
  missing: string[];
  extra: string[];
}

export interface Score {
  ops: OpScore[];
  misses: Miss[];
  skipped: { id: string; reason: string }[];
}

/**
 * Precision and recall per op over all questions (micro-averaged: every location counts once).
 * Only locations in files of the original tree count; a question the oracle could not answer is
 * skipped (listed).
 */
export function score(questions: Question[], oracle: OracleAnswer[], engine: EngineAnswer[], originalFiles: Set<string>): Score {
  const byId = new Map(oracle.map((a) => [a.id, a]));
  const engineById = new Map(engine.map((a) => [a.id, a]));
  const ops = new Map<OracleOp, OpScore>();
  const misses: Miss[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const q of questions) {
    const o = byId.get(q.id);
    const e = engineById.get(q.id);
    if (!o || o.error || !o.items) {
      skipped.push({ id: q.id, reason: o?.error ?? 'no oracle answer' });
      continue;
    }
    if (!e) {
      skipped.push({ id: q.id, reason: 'not asked' });
      continue;
    }
    const truth = new Set(o.items.filter((i) => originalFiles.has(i.path)).map(key));
    const got = new Set(e.items.filter((k) => originalFiles.has(k.replace(/:\d+:\d+$/, ''))));
    const s = ops.get(q.op) ?? { op: q.op, questions: 0, truth: 0, answered: 0, tp: 0, precision: 1, recall: 1, modes: {} };
    ops.set(q.op, s);
    s.questions++;
    s.truth += truth.size;
    s.answered += got.size;
    s.modes[e.mode] = (s.modes[e.mode] ?? 0) + 1;
    let tp = 0;
    for (const k of got) if (truth.has(k)) tp++;
    s.tp += tp;
    if (tp !== truth.size || tp !== got.size) {
      misses.push({ id: q.id, op: q.op, at: key(q), ...(o.symbol ? { symbol: o.symbol } : {}), mode: e.mode, missing: [...truth].filter((k) => !got.has(k)).slice(0, 10), extra: [...got].filter((k) => !truth.has(k)).slice(0, 10) });
    }
  }
  for (const s of ops.values()) {
    s.precision = s.answered === 0 ? 1 : s.tp / s.answered;
    s.recall = s.truth === 0 ? 1 : s.tp / s.truth;
  }
  return { ops: ORACLE_OPS.filter((op) => ops.has(op)).map((op) => ops.get(op)!), misses, skipped };
}

/** The issue's targets per op. */
export const TARGETS: Record<OracleOp, { precision?: number; recall: number }> = {
  references: { precision: 0.995, recall: 0.99 },
  implementations: { recall: 0.99 },
  definition: { recall: 0.99 },
  callers: { recall: 0.98 },
};

export function formatScore(title: string, s: Score): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [`${title}`, '  op               questions  truth  answered  precision  recall   target          modes'];
  for (const o of s.ops) {
    const t = TARGETS[o.op];
    const target = `${t.precision ? `P≥${pct(t.precision)} ` : ''}R≥${pct(t.recall)}`;
    const modes = Object.entries(o.modes).map(([m, n]) => `${m} ${n}`).join(', ');
    lines.push(`  ${o.op.padEnd(16)} ${String(o.questions).padStart(9)}  ${String(o.truth).padStart(5)}  ${String(o.answered).padStart(8)}  ${pct(o.precision).padStart(9)}  ${pct(o.recall).padStart(6)}   ${target.padEnd(15)} ${modes}`);
  }
  if (s.skipped.length) lines.push(`  skipped: ${s.skipped.length} (${s.skipped.slice(0, 3).map((x) => `${x.id}: ${x.reason}`).join('; ')})`);
  return lines.join('\n');
}

export function meetsTargets(s: Score): { ok: boolean; failures: string[] } {
  const failures: string[] = [];
  for (const o of s.ops) {
    const t = TARGETS[o.op];
    if (t.precision !== undefined && o.precision < t.precision) failures.push(`${o.op} precision ${o.precision.toFixed(4)} < ${t.precision}`);
    if (o.recall < t.recall) failures.push(`${o.op} recall ${o.recall.toFixed(4)} < ${t.recall}`);
  }
  return { ok: failures.length === 0, failures };
}
