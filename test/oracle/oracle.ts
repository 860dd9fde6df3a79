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

export type OracleOp = 'definition' | 'references' | 'implementations' | 'callers' | 'type_hierarchy';
export const ORACLE_OPS: readonly OracleOp[] = ['definition', 'references', 'implementations', 'callers', 'type_hierarchy'];

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
  /** A source generator's document: its hint name (file name), what an engine's virtual path is matched by. */
  hint?: string;
  /** type_hierarchy: supertype | subtype. */
  relation?: string;
  /** type_hierarchy: a framework / package type (documentation id) and its simple name. */
  meta?: string;
  name?: string;
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
  /** Every document the oracle compiled (workspace-relative): the scope its truth covers. */
  documents?: string[];
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
  /** Add questions at use sites of framework / package symbols (the tool's --framework). */
  framework?: boolean;
  /** Add issue 23's other framework-and-package shapes, ids x… (the tool's --shapes). */
  shapes?: boolean;
  /** Also load the project files under the root the solution / project list leaves out (the tool's --all-projects). */
  allProjects?: boolean;
  timeoutMs?: number;
}

export function runOracle(o: OracleRun): OracleResult {
  const dll = ensureOracleBuilt();
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-oracle-out-')), 'answers.json');
  const args = [dll, '--root', o.root, '--out', out, '--quiet'];
  if (o.solution) args.push('--solution', o.solution);
  for (const p of o.projects ?? []) args.push('--project', p);
  if (o.allProjects) args.push('--all-projects');
  if (o.questions) {
    const qf = out.replace(/answers\.json$/, 'questions.json');
    fs.writeFileSync(qf, JSON.stringify(o.questions));
    args.push('--questions', qf);
  } else if (o.sample) {
    args.push('--sample', String(o.sample.count), '--seed', String(o.sample.seed));
    if (o.sample.ops) args.push('--ops', o.sample.ops.join(','));
  } else throw new Error('runOracle needs questions or sample');
  if (o.framework) args.push('--framework');
  if (o.shapes) args.push('--shapes');
  // A real repository under load takes long (MassTransit, 64 projects, load 19: > 20 min): SEXTANT_ORACLE_TIMEOUT_MS.
  const r = spawnSync('dotnet', args, { encoding: 'utf8', env: dotnetEnv, timeout: o.timeoutMs ?? (Number(process.env.SEXTANT_ORACLE_TIMEOUT_MS) || 1_200_000), maxBuffer: 64 * 1024 * 1024 });
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
  /**
   * `path:line:column` keys (callers: of the caller's declaration); a generated document's row as
   * `gen:<file name>:line:column`, a metadata type as `meta:<name>`.
   */
  items: string[];
  /** Of those, the rows the engine marked `confidence: "unbound"` (mentions it could not bind). */
  unbound?: string[];
  /** A generated row's key → the folder of the project whose generator wrote it (scored only when that project is in the truth's scope). */
  genProjects?: Record<string, string>;
  /** Rows with what the engine said about them beyond the key (via, binds_to, confidence, kind), for diagnosing a miss. */
  detail?: string[];
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

/**
 * A generator's hint name without the per-run hash some generators put in it: Orleans' code
 * generator names its proxies `<assembly>.orleans.proxy.<type>.<8 hex>.g.cs` with a hash that is not
 * the same in two runs over the same sources (the oracle's copy and the host gave different ones for
 * every one of Orleans xi-idisposable's 192 generated rows), so rows matched by hint never met.
 */
export function stableHint(hint: string): string {
  return hint.replace(/\.[0-9A-Fa-f]{8}(\.g(\.i)?\.cs)$/, '$1');
}

/** The folder of the project a generated document belongs to (`generated:<project key>/…`, `<project>/obj/…`); undefined when the path does not say. */
export function generatedProjectDir(p: string): string | undefined {
  const v = /^(?:sextant-)?generated:(.*?)[^/]*\.(?:cs|vb|fs)proj\b/.exec(p);
  if (v) return v[1]!.replace(/\/$/, '');
  const o = /^(.*?)\/obj\//.exec(p);
  return o ? o[1] : undefined;
}

/** A generated document's row: by its file name (the generator's hint name), whatever path form the engine gives it. */
const isGeneratedPath = (p: string) => /(^|\/)obj\//.test(p) || /\.g(\.i)?\.cs$/.test(p) || /^(generated|sextant-generated):/.test(p);

/** An engine row as the scorer reads it (the MCP tools' row fields it uses). */
export interface EngineRow {
  path: string;
  line: number;
  column: number;
  isGenerated?: boolean;
  external?: boolean;
  name?: string;
  /** A framework / package declaration: `System.Net.Http 10.0.0.0`. */
  assembly?: string;
}

/**
 * The key a row is matched by. A metadata (framework / package) symbol is matched by name; its
 * definition row also by its assembly's simple name (`meta:SendAsync@System.Net.Http`: the issue's
 * "assembly, package and version"; the version is the compilation's and not compared, a
 * multi-targeting file sees several), and `readable: false` (its source view could not be read)
 * keys it apart so it counts as missing.
 */
export function engineKey(r: EngineRow, op?: OracleOp, readable = true, asked?: string): string {
  // a definition's metadata row (`decompiled:` path) names no member: the asked symbol's name stands in
  const metaName = r.external && r.name ? r.name : r.path.startsWith('decompiled:') ? (r.name ?? memberName(asked)) : undefined;
  if (metaName) {
    const name = metaName.replace(/[<(].*$/, '');
    if (op !== 'definition') return `meta:${name}`;
    return `${readable ? 'meta' : 'meta-unreadable'}:${name}@${(r.assembly ?? '').split(' ')[0]}`;
  }
  return r.isGenerated || isGeneratedPath(r.path) ? `gen:${stableHint(path.posix.basename(r.path))}:${r.line}:${r.column}` : key(r);
}

/** `N.T.M<X>(a, b)` → `M`: the member a question's note (the oracle's display string) names. */
export function memberName(display: string | undefined): string | undefined {
  if (!display) return undefined;
  const head = display.replace(/\(.*$/, '').replace(/<[^<>]*>/g, '').replace(/<[^<>]*>/g, '');
  return head.slice(head.lastIndexOf('.') + 1) || undefined;
}

export function truthKey(i: OracleItem & { assembly?: string }, op?: OracleOp): string {
  if (i.meta) return op === 'definition' ? `meta:${i.name ?? i.meta}@${i.assembly ?? ''}` : `meta:${i.name ?? i.meta}`;
  return i.hint ? `gen:${stableHint(i.hint)}:${i.line}:${i.column}` : key(i);
}

/** A row's key with the fields that say how the engine found it (none: a plain row). */
function rowDetail(r: any): string | undefined {
  const row = r.caller ?? r;
  const plain = (f: string) => r[f] === undefined || (f === 'depth' && r[f] === 1) || (f === 'confidence' && r[f] === 'precise');
  const said = ['via', 'binds_to', 'confidence', 'kind', 'blocked_by', 'depth', 'assembly', 'package'].filter((f) => !plain(f)).map((f) => `${f}=${typeof r[f] === 'string' ? r[f] : JSON.stringify(r[f])}`);
  if (Array.isArray(r.sites)) said.push(`sites=${r.sites.map((x: { line: number; column?: number }) => `${x.line}:${x.column ?? ''}`).join(',')}`);
  return said.length ? `${engineKey(row)} ${said.join(' ')}` : undefined;
}

/**
 * A source_context slice (`  N| text` lines) shows `name` declared at the row: on the row's own line,
 * at its column (1-based, UTF-16). A row at the containing type's line, or at another member near
 * the asked one, does not (Orleans xd-whenall: the row of Task.WhenAll was `Task.cs:10:14`, the
 * `public class Task` line, while WhenAll is declared at 1162:24 of the same view).
 */
export function holdsName(slice: string, row: { line: number; column: number }, name: string): boolean {
  const bare = name.replace(/[<(].*$/, '');
  for (const l of slice.split('\n')) {
    const m = /^\s*(\d+)\| ?(.*)$/.exec(l);
    if (m && Number(m[1]) === row.line) return bare.length > 0 && m[2]!.slice(row.column - 1).startsWith(bare);
  }
  return false;
}

/** A metadata declaration's source view (source_context of its decompiled path) shows its name at the row. */
async function readable(client: Client, row: EngineRow): Promise<boolean> {
  if (!row.name) return false;
  try {
    const r = await client.callTool({ name: 'source_context', arguments: { spans: [{ path: row.path, line: row.line }], contextLines: 3 } }, undefined, { timeout: 120_000 });
    const slice = ((r.structuredContent as { items?: { text?: string }[] } | undefined)?.items ?? [])[0];
    return !r.isError && typeof slice?.text === 'string' && holdsName(slice.text, row, row.name);
  } catch {
    return false;
  }
}

/** Asks one question of the engine over MCP (first pass: one call, waiting as long as it needs). */
export async function askEngine(client: Client, q: Question, waitMs: number): Promise<EngineAnswer> {
  const target = { path: q.path, line: q.line, column: q.column };
  const t0 = Date.now();
  try {
    let r: { first: any; items: any[] };
    let items: string[];
    let unbound: string[] = [];
    switch (q.op) {
      case 'definition': {
        r = await callAll(client, 'definition', { target, waitMs, maxBytes: 65536 });
        const keys: string[] = [];
        for (const row of r.items) {
          const meta = row.external || String(row.path).startsWith('decompiled:');
          keys.push(engineKey(row, 'definition', meta ? await readable(client, { ...row, name: row.name ?? memberName(q.note) }) : true, q.note));
        }
        items = keys;
        break;
      }
      case 'references':
        r = await callAll(client, 'references', { target, waitMs, group_by: 'none', include_definition: false, limit: 200, maxBytes: 65536 });
        r.items = r.items.filter((i) => i.role !== 'declaration' && i.role !== 'related');
        items = r.items.map((x) => engineKey(x));
        break;
      case 'implementations':
        r = await callAll(client, 'implementations', { target, waitMs, limit: 200, maxBytes: 65536 });
        items = r.items.map((x) => engineKey(x));
        break;
      case 'callers':
        r = await callAll(client, 'callers', { target, waitMs, depth: 1, limit: 200, maxBytes: 65536 });
        items = r.items.filter((e) => e.depth === 1).map((e) => engineKey(e.caller));
        unbound = r.items.filter((e) => e.depth === 1 && e.confidence === 'unbound').map((e) => engineKey(e.caller));
        break;
      case 'type_hierarchy':
        r = await callAll(client, 'type_hierarchy', { target, waitMs, direction: 'both', depth: 1, limit: 200, maxBytes: 65536 });
        items = r.items.filter((n) => n.relation !== 'self' && n.depth === 1).map((x) => engineKey(x));
        break;
    }
    if (q.op !== 'callers') unbound = r.items.filter((i) => i.confidence === 'unbound').map((x) => engineKey(x, q.op, true, q.note));
    const detail = r.items.map(rowDetail).filter((d): d is string => d !== undefined);
    const genProjects: Record<string, string> = {};
    for (const x of r.items) {
      const row = q.op === 'callers' ? x.caller : x;
      if (!row?.path) continue;
      const k = engineKey(row, q.op, true, q.note);
      const dir = k.startsWith('gen:') ? generatedProjectDir(String(row.path)) : undefined;
      if (dir !== undefined) genProjects[k] = dir;
    }
    const f = r.first;
    return {
      id: q.id,
      op: q.op,
      mode: f.mode ?? (f.target_selection?.status === 'ambiguous' ? 'ambiguous' : 'unknown'),
      provider: f.provider,
      reason: f.reason ?? f.partial ?? (Array.isArray(f.gaps) && f.gaps.length ? f.gaps.join('; ') : undefined),
      items: [...new Set(items)],
      ...(unbound.length ? { unbound: [...new Set(unbound)] } : {}),
      ...(detail.length ? { detail } : {}),
      ...(Object.keys(genProjects).length ? { genProjects } : {}),
      ms: Date.now() - t0,
    };
  } catch (e) {
    return { id: q.id, op: q.op, mode: 'error', items: [], ms: Date.now() - t0, error: (e as Error).message.slice(0, 300) };
  }
}

export interface OpScore {
  op: OracleOp;
  questions: number;
  truth: number;
  answered: number;
  /** Of `answered`, the rows the engine marked unbound (labelled candidates, not claims), and how many of them are in the truth. */
  unbound: number;
  unboundRight: number;
  tp: number;
  /** True positives among the rows the engine did not mark unbound (what it bound itself). */
  tpBound: number;
  /** Over the rows the engine claims (bound): an unbound row is a candidate its answer says it could not check. */
  precision: number;
  recall: number;
  /** Recall counting only bound rows (unbound mentions left out). */
  recallBound: number;
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
  /** How many truth rows are missing (the lists above are cut at 10). */
  missingCount: number;
}

/** Answers with a missing row, by the label they carried: `precise` here is a lie. */
export interface HonestyRow {
  op: OracleOp;
  mode: string;
  answers: number;
  withMissing: number;
  missingRows: number;
}

export interface Score {
  ops: OpScore[];
  misses: Miss[];
  honesty: HonestyRow[];
  skipped: { id: string; reason: string }[];
}

/**
 * A source generator's rows by hint name and rank, not line: `gen:<hint>:L:C` → `gen:<hint>#n`
 * (the n-th of that hint in line order). The LoggerMessage generator of Microsoft.Extensions.Logging
 * 10.0.5 orders its output differently in every process (rhost, Orleans i48: the same part at line
 * 2189 in the oracle's run, 2697 in the host's), so no producer can reproduce another's line; the
 * number of parts per hint is what both sides agree on. Give it distinct keys (a part at the same
 * place in two frameworks' outputs is one row).
 */
export function byHint(keys: readonly string[]): string[] {
  const gen = keys.filter((k) => k.startsWith('gen:')).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const rank = new Map<string, number>();
  const renamed = new Map<string, string>();
  for (const k of gen) {
    const hint = k.replace(/:\d+:\d+$/, '');
    const n = (rank.get(hint) ?? 0) + 1;
    rank.set(hint, n);
    renamed.set(k, `${hint}#${n}`);
  }
  return keys.map((k) => renamed.get(k) ?? k);
}

/**
 * Precision and recall per op over all questions (micro-averaged: every location counts once).
 * Precision is over the rows the engine claims: a row it marked `confidence: "unbound"` (a mention
 * it could not bind, in an answer that says precise_partial) is counted apart (`unbound`, and how
 * many of them the truth has); recall counts it as found, `recallBound` does not.
 * Only locations in files of the original tree count (and, when the oracle says which documents
 * it compiled, only those: it loaded a subset of the projects); a source generator's document
 * counts by its file name; a question the oracle could not answer is skipped (listed).
 */
export function score(questions: Question[], oracle: OracleAnswer[], engine: EngineAnswer[], originalFiles: Set<string>, documents?: readonly string[]): Score {
  const byId = new Map(oracle.map((a) => [a.id, a]));
  const engineById = new Map(engine.map((a) => [a.id, a]));
  const ops = new Map<OracleOp, OpScore>();
  const honesty = new Map<string, HonestyRow>();
  const misses: Miss[] = [];
  const skipped: { id: string; reason: string }[] = [];
  const docs = documents ? new Set(documents) : undefined;
  // the project folders of the truth's scope (a hand-written document under them)
  const scopeDirs = docs ? new Set([...docs].filter((d) => !/(^|\/)obj\//.test(d)).flatMap((d) => d.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/')))) : undefined;
  const inScope = (k: string, e?: EngineAnswer) => {
    if (k.startsWith('meta:')) return true;
    if (k.startsWith('gen:')) {
      // a generated row of a project the truth did not compile (the oracle loaded a subset) is out of scope
      const dir = e?.genProjects?.[k];
      return !scopeDirs || dir === undefined || scopeDirs.has(dir);
    }
    const p = k.replace(/:\d+:\d+$/, '');
    return originalFiles.has(p) && (!docs || docs.has(p));
  };
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
    const truth = new Set(byHint([...new Set(o.items.map((i) => truthKey(i, q.op)).filter((k) => inScope(k)))]));
    // saved answers (--rescore) may hold keys made before stableHint
    const norm = (k: string) => k.replace(/^gen:(.*)(:\d+:\d+)$/, (_m, h: string, at: string) => `gen:${stableHint(h)}${at}`);
    const scoped = [...new Set(e.items.filter((k) => inScope(k, e)).map(norm))];
    const renamed = byHint(scoped);
    const got = new Set(renamed);
    const as = new Map(scoped.map((k, i) => [k, renamed[i]!]));
    const unbound = new Set((e.unbound ?? []).map(norm).map((k) => as.get(k) ?? k));
    const s = ops.get(q.op) ?? { op: q.op, questions: 0, truth: 0, answered: 0, unbound: 0, unboundRight: 0, tp: 0, tpBound: 0, precision: 1, recall: 1, recallBound: 1, modes: {} };
    ops.set(q.op, s);
    s.questions++;
    s.truth += truth.size;
    s.answered += got.size;
    s.modes[e.mode] = (s.modes[e.mode] ?? 0) + 1;
    let tp = 0;
    let tpBound = 0;
    for (const k of got) {
      if (unbound.has(k)) s.unbound++;
      if (truth.has(k)) {
        tp++;
        if (!unbound.has(k)) tpBound++;
        else s.unboundRight++;
      }
    }
    s.tp += tp;
    s.tpBound += tpBound;
    const missing = [...truth].filter((k) => !got.has(k));
    const h = honesty.get(`${q.op} ${e.mode}`) ?? { op: q.op, mode: e.mode, answers: 0, withMissing: 0, missingRows: 0 };
    honesty.set(`${q.op} ${e.mode}`, h);
    h.answers++;
    if (missing.length) {
      h.withMissing++;
      h.missingRows += missing.length;
    }
    if (tp !== truth.size || tp !== got.size) {
      misses.push({ id: q.id, op: q.op, at: key(q), ...(o.symbol ? { symbol: o.symbol } : {}), mode: e.mode, missing: missing.slice(0, 10), extra: [...got].filter((k) => !truth.has(k)).slice(0, 10), missingCount: missing.length });
    }
  }
  for (const s of ops.values()) {
    s.precision = s.answered - s.unbound === 0 ? 1 : s.tpBound / (s.answered - s.unbound);
    s.recall = s.truth === 0 ? 1 : s.tp / s.truth;
    s.recallBound = s.truth === 0 ? 1 : s.tpBound / s.truth;
  }
  const opOrder = (op: OracleOp) => ORACLE_OPS.indexOf(op);
  return {
    ops: ORACLE_OPS.filter((op) => ops.has(op)).map((op) => ops.get(op)!),
    misses,
    honesty: [...honesty.values()].sort((a, b) => opOrder(a.op) - opOrder(b.op) || (a.mode < b.mode ? -1 : 1)),
    skipped,
  };
}

/** The issue's targets per op (issue 23: references P/R ≥ 0.999, callers R ≥ 0.98, definition R = 1 with generated parts, type_hierarchy all precise). */
export const TARGETS: Record<OracleOp, { precision?: number; recall: number; preciseShare?: number }> = {
  references: { precision: 0.999, recall: 0.999 },
  implementations: { recall: 0.99 },
  definition: { recall: 1 },
  callers: { recall: 0.98 },
  type_hierarchy: { recall: 0, preciseShare: 1 },
};

const preciseShare = (o: OpScore) => (o.modes['precise'] ?? 0) / Math.max(1, o.questions);

export function formatScore(title: string, s: Score): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const lines = [`${title}`, '  op               questions  truth  answered  unbound(right)  precision  recall  bound-only   target              modes'];
  for (const o of s.ops) {
    const t = TARGETS[o.op];
    const target = `${t.precision ? `P≥${pct(t.precision)} ` : ''}${t.recall ? `R≥${pct(t.recall)}` : ''}${t.preciseShare ? `precise ${pct(t.preciseShare)}` : ''}`;
    const modes = Object.entries(o.modes).map(([m, n]) => `${m} ${n}`).join(', ');
    lines.push(`  ${o.op.padEnd(16)} ${String(o.questions).padStart(9)}  ${String(o.truth).padStart(5)}  ${String(o.answered).padStart(8)}  ${`${o.unbound}(${o.unboundRight})`.padStart(14)}  ${pct(o.precision).padStart(9)}  ${pct(o.recall).padStart(6)}  ${pct(o.recallBound).padStart(10)}   ${target.padEnd(19)} ${modes}`);
  }
  lines.push('  honesty (answers with a missing row, by label):', '    op               label                  answers  with missing  missing rows');
  for (const h of s.honesty) lines.push(`    ${h.op.padEnd(16)} ${h.mode.padEnd(22)} ${String(h.answers).padStart(7)}  ${String(h.withMissing).padStart(12)}  ${String(h.missingRows).padStart(12)}${h.mode === 'precise' && h.withMissing ? '   <- labelled precise with rows missing' : ''}`);
  if (s.skipped.length) lines.push(`  skipped: ${s.skipped.length} (${s.skipped.slice(0, 3).map((x) => `${x.id}: ${x.reason}`).join('; ')})`);
  return lines.join('\n');
}

export function meetsTargets(s: Score): { ok: boolean; failures: string[] } {
  const failures: string[] = [];
  for (const o of s.ops) {
    const t = TARGETS[o.op];
    if (t.precision !== undefined && o.precision < t.precision) failures.push(`${o.op} precision ${o.precision.toFixed(4)} < ${t.precision}`);
    if (o.recall < t.recall) failures.push(`${o.op} recall ${o.recall.toFixed(4)} < ${t.recall}`);
    if (t.preciseShare !== undefined && preciseShare(o) < t.preciseShare) failures.push(`${o.op} precise share ${preciseShare(o).toFixed(3)} < ${t.preciseShare}`);
  }
  const lies = s.honesty.filter((h) => h.mode === 'precise' && h.withMissing > 0).reduce((n, h) => n + h.withMissing, 0);
  if (lies > 0) failures.push(`${lies} answer(s) labelled precise with rows missing`);
  return { ok: failures.length === 0, failures };
}
