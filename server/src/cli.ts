/**
 * `sextant` — index | mcp | serve | query | stats | doctor.
 * Only argument parsing and wiring live here; stdout is reserved for protocol output in `mcp`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from './core/errors';
import { runEngineHost } from './engineHost';
import { log, redirectConsoleToStderr } from './core/log';
import type { RefreshProgress, RefreshStats } from './index/indexer';
import { INDEX_FILE, loadSqlJs } from './index/store';
import { busyError, claimEngineFor, runMcp, runToolOnce, runToolRemote, toolNames } from './mcp/main';
import { buildServer, SERVER_VERSION } from './mcp/server';
import { startSharedEndpoint } from './mcp/transport/sharedEndpoint';
import { Engine, indexRootFor } from './nav/engine';
import { ripgrepPath } from './nav/ripgrep';
import { LspProvider } from './semantic/lsp/lspProvider';
import { readGitState } from './workspace/gitState';

interface Args {
  command: string;
  positional: string[];
  flags: Map<string, string | true>;
}

function parseArgs(argv: string[]): Args {
  const [command = 'help', ...rest] = argv;
  const flags = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]!;
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      if (eq > 0) flags.set(a.slice(2, eq), a.slice(eq + 1));
      else if (i + 1 < rest.length && !rest[i + 1]!.startsWith('--')) flags.set(a.slice(2), rest[++i]!);
      else flags.set(a.slice(2), true);
    } else positional.push(a);
  }
  return { command, positional, flags };
}

const USAGE = `sextant — code navigation for AI agents over MCP

  sextant index  --workspace-root D [--index-root D] [--json]   index (incremental) and print a summary
  sextant mcp    --workspace-root D [--index-root D]            serve MCP over stdio
  sextant serve  --workspace-root D [--index-root D]            index, print attach snippets, serve MCP
  sextant query  TOOL --workspace-root D [--args JSON]          run one tool, print structuredContent
  sextant stats  --workspace-root D [--index-root D]            index statistics as JSON
  sextant doctor [--workspace-root D]                           what is installed and available
Options: --exclude a,b (extra ignore globs)  --include packages,out (re-admit default-excluded folders)`;

function str(a: Args, name: string): string | undefined {
  const v = a.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

function engineOptions(a: Args) {
  const ws = str(a, 'workspace-root') ?? a.positional[0] ?? process.cwd();
  if (!fs.existsSync(ws) || !fs.statSync(ws).isDirectory()) {
    throw new ToolError('INVALID_ARGUMENT', `Workspace root '${ws}' is not a folder`, 'pass --workspace-root with an existing folder');
  }
  const o: Parameters<typeof Engine.open>[0] = { workspaceRoot: ws };
  const ir = str(a, 'index-root');
  if (ir !== undefined) o.indexRoot = ir;
  const ex = str(a, 'exclude');
  if (ex) o.exclude = ex.split(',').filter(Boolean);
  const inc = str(a, 'include');
  if (inc) o.include = inc.split(',').filter(Boolean);
  return o;
}

function progressPrinter(enabled: boolean): (p: RefreshProgress) => void {
  if (!enabled) return () => undefined;
  let last = 0;
  return (p) => {
    const now = Date.now();
    if (p.phase === 'index' && now - last < 100) return;
    last = now;
    const width = 30;
    const frac = p.total > 0 ? p.done / p.total : p.phase === 'done' ? 1 : 0;
    const bar = '█'.repeat(Math.round(frac * width)).padEnd(width, '░');
    const label = p.phase === 'index' ? `text + files ${p.done}/${p.total}` : p.phase === 'finish' && p.total > 0 ? `outlines + symbols ${p.done}/${p.total}` : p.phase;
    process.stderr.write(`\r${bar} ${label}`.padEnd(70) + (p.phase === 'done' ? '\n' : ''));
  };
}

function indexSize(engine: Engine): number {
  const f = engine.indexRoot ? path.join(engine.indexRoot, INDEX_FILE) : '';
  return f && fs.existsSync(f) ? fs.statSync(f).size : 0;
}

/** Process time (ms since start) and CPU (ms, all threads) at one point of `sextant index`. */
interface Mark {
  ms: number;
  cpuMs: number;
}
function mark(): Mark {
  const c = process.cpuUsage();
  return { ms: Math.round(performance.now()), cpuMs: Math.round((c.user + c.system) / 1000) };
}

function summaryJson(engine: Engine, s: RefreshStats, textReady?: Mark, complete?: Mark) {
  return {
    files: s.files,
    sourceFiles: s.sourceFiles,
    bytes: s.bytes,
    durationMs: s.durationMs,
    indexBytes: indexSize(engine),
    indexVersion: engine.version,
    added: s.added,
    changed: s.changed,
    deleted: s.deleted,
    parsedFiles: s.parsedFiles,
    skippedTooLarge: s.skippedTooLarge,
    /** Refresh phases as measured inside the engine (ms from the refresh's start). */
    textReadyRefreshMs: s.textReadyMs,
    /** Since process start: text + files committed (and persisted when parsing followed); find_file/search_text answer from here. */
    textReady: textReady ?? null,
    /** Since process start: outlines + symbols written and the index persisted. */
    complete: complete ?? null,
    symbolsPending: engine.symbolsPending(),
    status: engine.meta().status,
    recovered: engine.meta().recovered ?? null,
    /** Peak resident set size of this process so far, in bytes (getrusage maxrss). */
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  };
}

function printSummary(engine: Engine, s: RefreshStats, textReady?: Mark, complete?: Mark): void {
  const j = summaryJson(engine, s, textReady, complete);
  const mb = (n: number) => (n / 1024 / 1024).toFixed(1) + ' MiB';
  process.stderr.write(
    `Indexed ${j.files} files (${j.sourceFiles} source/test, ${mb(j.bytes)}) in ${(j.durationMs / 1000).toFixed(1)} s: ` +
      `${j.added} added, ${j.changed} changed, ${j.deleted} deleted; index ${mb(j.indexBytes)}, version ${j.indexVersion}` +
      (j.skippedTooLarge ? `; ${j.skippedTooLarge} files over the size cap skipped` : '') +
      (textReady && complete ? `\nText + files ready at ${(textReady.ms / 1000).toFixed(1)} s, outlines + symbols at ${(complete.ms / 1000).toFixed(1)} s (process CPU ${(complete.cpuMs / 1000).toFixed(1)} s)` : '') +
      (j.symbolsPending ? `\nOutlines/symbols of ${j.symbolsPending} file(s) are not indexed yet (they changed while indexing; run again)` : '') +
      (j.recovered ? `\nNote: ${j.recovered}` : '') +
      '\n',
  );
}

async function cmdIndex(a: Args): Promise<number> {
  const opts = engineOptions(a);
  // One writer per index: while an engine serves this index it keeps it fresh itself.
  const claim = await claimEngineFor(opts, 0);
  if (claim.kind !== 'owner') {
    const pid = claim.kind === 'attach' ? claim.server.pid : claim.owner.pid;
    throw new ToolError('INDEX_UNAVAILABLE', `A Sextant engine (pid ${pid}) is serving this index and keeps it fresh`, 'query it with sextant query, or stop it before re-indexing');
  }
  const engine = await Engine.open({ ...opts, gitAtOpen: false }).catch((e: unknown) => {
    claim.lock?.release();
    throw e;
  });
  try {
    const opened = mark();
    let textReady: Mark | undefined;
    const stats = await engine.refresh(progressPrinter(process.stderr.isTTY && !a.flags.has('json')), () => (textReady = mark()));
    const complete = mark();
    if (a.flags.has('json')) process.stdout.write(JSON.stringify({ ...summaryJson(engine, stats, textReady, complete), opened, walkMs: stats.discovery.durationMs }) + '\n');
    else printSummary(engine, stats, textReady, complete);
    return 0;
  } finally {
    await engine.close();
    claim.lock?.release();
  }
}

async function cmdMcp(a: Args): Promise<number> {
  redirectConsoleToStderr();
  // The engine (stdio + shared HTTP endpoint), or a proxy to the engine already serving this index.
  await runMcp(engineOptions(a));
  return 0;
}

async function cmdServe(a: Args): Promise<number> {
  const opts = engineOptions(a);
  const claim = await claimEngineFor(opts);
  if (claim.kind === 'attach') {
    process.stderr.write(`A Sextant engine (pid ${claim.server.pid}) already serves this index at ${claim.server.url}; attach to it (sextant mcp does so).\n`);
    return 2;
  }
  if (claim.kind === 'busy') throw busyError(claim, indexRootFor(opts));
  let engine: Engine | undefined;
  try {
    engine = await Engine.open(opts);
    const e = engine;
    const shared = claim.lock ? await startSharedEndpoint(claim.lock, () => buildServer(e), { workspaceRoot: e.root, version: SERVER_VERSION }) : undefined;
    const stats = await e.refresh(progressPrinter(process.stderr.isTTY));
    printSummary(e, stats);
    e.watch();
    const cli = path.resolve(__dirname, '..', 'bin', 'sextant.js');
    const ws = e.root;
    process.stderr.write(
      (shared ? `\nMCP over HTTP: ${shared.url} (bearer token in ${shared.serverJson}, owner-only)\n` : '') +
        `\nAttach an agent (stdio; attaches to this engine while it runs):\n` +
        `  Claude Code:  claude mcp add sextant -- node ${cli} mcp --workspace-root ${ws}\n` +
        `  VS Code (.vscode/mcp.json):\n` +
        JSON.stringify({ servers: { sextant: { type: 'stdio', command: 'node', args: [cli, 'mcp', '--workspace-root', ws] } } }, null, 2)
          .split('\n')
          .map((l) => '    ' + l)
          .join('\n') +
        `\n\nKeeping the index fresh while files change (Ctrl-C to stop).\n`,
    );
    await new Promise<void>((resolve) => {
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await shared?.close();
  } finally {
    claim.lock?.release();
    await engine?.close();
  }
  return 0;
}

async function cmdQuery(a: Args): Promise<number> {
  const tool = a.positional[0];
  if (!tool) throw new ToolError('INVALID_ARGUMENT', 'No tool named', `sextant query TOOL --args JSON; tools: ${toolNames().join(', ')}`);
  let args: unknown = {};
  const raw = str(a, 'args');
  if (raw !== undefined) {
    try {
      args = JSON.parse(raw);
    } catch (e) {
      throw new ToolError('INVALID_ARGUMENT', `--args is not valid JSON: ${(e as Error).message}`, `pass an object, e.g. --args '{"query":"Foo"}'`);
    }
  }
  const opts = engineOptions({ ...a, positional: a.positional.slice(1) });
  const claim = await claimEngineFor(opts, 0);
  if (claim.kind === 'attach') return printToolResult(await runToolRemote(claim.server, tool, args));
  if (claim.kind === 'busy') throw busyError(claim, indexRootFor(opts));
  const engine = await Engine.open(opts).catch((e: unknown) => {
    claim.lock?.release();
    throw e;
  });
  try {
    await engine.refresh();
    return printToolResult(await runToolOnce(engine, tool, args));
  } finally {
    await engine.close();
    claim.lock?.release();
  }
}

function printToolResult(r: { ok: true; structured: unknown } | { ok: false; error: string }): number {
  if (!r.ok) {
    process.stderr.write(r.error + '\n');
    return 2;
  }
  process.stdout.write(JSON.stringify(r.structured, null, 2) + '\n');
  return 0;
}

async function cmdStats(a: Args): Promise<number> {
  const engine = await Engine.open(engineOptions(a));
  try {
    const count = (sql: string) => Number(engine.store.db.exec(sql)[0]?.values[0]?.[0] ?? 0);
    process.stdout.write(
      JSON.stringify(
        {
          workspaceRoot: engine.root,
          indexRoot: engine.indexRoot,
          indexVersion: engine.version,
          indexBytes: indexSize(engine),
          files: count('SELECT COUNT(*) FROM files'),
          terms: engine.dict.size,
          lastRefresh: engine.store.getMeta('last_refresh') ?? null,
          schemaVersion: Number(engine.store.getMeta('schema_version') ?? 0),
          status: engine.meta().status,
        },
        null,
        2,
      ) + '\n',
    );
    return 0;
  } finally {
    await engine.close();
  }
}

async function cmdDoctor(a: Args): Promise<number> {
  const checks: { name: string; ok: boolean; detail: string }[] = [];
  checks.push({ name: 'node', ok: true, detail: process.version });
  try {
    await loadSqlJs();
    checks.push({ name: 'sql.js', ok: true, detail: 'wasm loaded' });
  } catch (e) {
    checks.push({ name: 'sql.js', ok: false, detail: (e as Error).message });
  }
  try {
    checks.push({ name: 'ripgrep', ok: fs.existsSync(ripgrepPath()), detail: ripgrepPath() });
  } catch (e) {
    checks.push({ name: 'ripgrep', ok: false, detail: (e as Error).message });
  }
  const ws = str(a, 'workspace-root') ?? process.cwd();
  const git = await readGitState(ws);
  checks.push({ name: 'git', ok: git.available, detail: git.available ? `HEAD ${git.head?.slice(0, 12)}` : (git.reason ?? 'unavailable') });
  const idx = path.join(str(a, 'index-root') ?? path.join(ws, '.sextant'), INDEX_FILE);
  checks.push({ name: 'index', ok: fs.existsSync(idx), detail: fs.existsSync(idx) ? `${idx} (${fs.statSync(idx).size} bytes)` : `no index at ${idx} yet (run sextant index)` });
  // Language servers (never started here): found, version; a missing one makes answers heuristic, not an error.
  const servers = await new LspProvider({ root: ws }).doctor();
  for (const s of servers) {
    const detail = s.found ? `${s.version ?? 'version unknown'} (${s.executable}) for ${s.languages.join(', ')}` : `not found: ${s.languages.join(', ')} answers are heuristic (run npm install in the Sextant checkout)`;
    checks.push({ name: s.name, ok: s.found, detail });
  }
  for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'MISS'} ${c.name.padEnd(10)} ${c.detail}\n`);
  return checks.every((c) => c.ok || c.name === 'index' || c.name === 'git' || servers.some((s) => s.name === c.name)) ? 0 : 1;
}

export async function main(argv: string[]): Promise<number> {
  const a = parseArgs(argv);
  try {
    switch (a.command) {
      case 'index':
        return await cmdIndex(a);
      case 'mcp':
        return await cmdMcp(a);
      case 'serve':
        return await cmdServe(a);
      case 'query':
        return await cmdQuery(a);
      case 'stats':
        return await cmdStats(a);
      case 'doctor':
        return await cmdDoctor(a);
      case 'ipc': // started by the VS Code extension (vscode-languageclient, node IPC); options arrive in `initialize`
        return await runEngineHost();
      case 'help':
      case '--help':
      case '-h':
        process.stdout.write(USAGE + '\n');
        return 0;
      default:
        process.stderr.write(`Error [INVALID_ARGUMENT]: Unknown command '${a.command}'. Hint: see sextant --help\n${USAGE}\n`);
        return 2;
    }
  } catch (e) {
    if (e instanceof ToolError) {
      process.stderr.write(e.render() + '\n');
      return 2;
    }
    process.stderr.write(`Error [INTERNAL]: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

/** Runs the CLI as a process (sets the exit code); `bin/sextant.js` calls it. */
export function run(argv: string[]): void {
  void main(argv).then((code) => {
    process.exitCode = code;
    if (a_command(argv[0])) setTimeout(() => process.exit(code), 50).unref();
  });
}

if (require.main === module) run(process.argv.slice(2));

/** Short-lived commands exit promptly even if a library left a handle open. */
function a_command(c: string | undefined): boolean {
  return c !== 'mcp' && c !== 'serve' && c !== 'ipc';
}
