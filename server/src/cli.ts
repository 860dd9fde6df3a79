/**
 * `sextant` — index | mcp | serve | query | stats | doctor.
 * Only argument parsing and wiring live here; stdout is reserved for protocol output in `mcp`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs as nodeParseArgs } from 'node:util';
import { ToolError } from './core/errors';
import { printUnchanged } from './cliLauncher';
import { runEngineHost } from './engineHost';
import { log, redirectConsoleToStderr, setLogSink, stderrSink } from './core/log';
import type { RefreshProgress, RefreshStats } from './index/indexer';
import { INDEX_FILE, loadSqlJs } from './index/store';
import { dropWarmState, unchangedSinceWarmState, writeWarmState } from './index/warmState';
import { busyError, claimEngineFor, runMcp, runToolOnce, runToolRemote, toolNames } from './mcp/main';
import { buildServer, SERVER_VERSION } from './mcp/server';
import { startSharedEndpoint } from './mcp/transport/sharedEndpoint';
import { Engine, indexRootFor } from './nav/engine';
import { ripgrepPath } from './nav/ripgrep';
import { LspProvider } from './semantic/lsp/lspProvider';
import { probeVersion } from './semantic/lsp/doctor';
import { locateRoslynHost } from './semantic/roslyn/roslynHost';
import { chooseCSharpProvider } from './nav/semanticService';
import { parseShard, runScipExport } from './scipCommand';
import { readGitState } from './workspace/gitState';
import { nativeWatcherCheck } from './workspace/watcher';

interface Args {
  command: string;
  positional: string[];
  flags: Map<string, string | true>;
}

type OptionSpec = { type: 'string' | 'boolean'; short?: string; value?: string; help: string };

const ENGINE_OPTIONS: Record<string, OptionSpec> = {
  'workspace-root': { type: 'string', value: 'D', help: 'the folder to index (default: the current folder)' },
  'index-root': { type: 'string', value: 'D', help: 'folder of the index and server.json (default: <workspace>/.sextant)' },
  exclude: { type: 'string', value: 'G,…', help: 'extra ignore globs, workspace-relative' },
  include: { type: 'string', value: 'F,…', help: 're-admit default-excluded folders (e.g. packages,out)' },
  'csharp-provider': { type: 'string', value: 'P', help: 'headless C# backend: roslyn (default when the Roslyn host is built) or csharp-ls; env SEXTANT_CSHARP_PROVIDER' },
  scip: { type: 'string', value: 'P,…', help: 'SCIP indexes to import (files or folders; default <workspace>/.sextant/scip/); env SEXTANT_SCIP' },
};

/** Restore runs the repository's MSBuild logic: opt-in headless (in VS Code: a trusted workspace and sextant.restore). */
const RESTORE_OPTION: OptionSpec = { type: 'boolean', help: "restore C# projects without project.assets.json into Sextant's state (runs the repository's MSBuild; nothing written under the workspace); env SEXTANT_RESTORE=1" };

interface CommandSpec {
  summary: string;
  /** Names of positional arguments (`query` takes TOOL); any other positional is refused. */
  positionals?: string[];
  options: Record<string, OptionSpec>;
}

/** Every command with its flags: the parser refuses anything else, and `--help` lists exactly these. */
const COMMANDS: Record<string, CommandSpec> = {
  index: { summary: 'index (incremental) and print a summary', options: { ...ENGINE_OPTIONS, json: { type: 'boolean', help: 'print the summary as one JSON line on stdout' } } },
  mcp: { summary: 'serve MCP over stdio (or attach to the engine already serving this index)', options: { ...ENGINE_OPTIONS, restore: RESTORE_OPTION } },
  serve: { summary: 'index, print attach snippets, serve MCP over HTTP and keep the index fresh', options: { ...ENGINE_OPTIONS, restore: RESTORE_OPTION } },
  query: {
    summary: 'run one tool, print its structuredContent as JSON (a tool error exits 2)',
    positionals: ['TOOL'],
    options: { ...ENGINE_OPTIONS, args: { type: 'string', value: 'JSON', help: "the tool's arguments, e.g. '{\"query\":\"Foo\"}'" } },
  },
  stats: { summary: 'index statistics as JSON', options: ENGINE_OPTIONS },
  scip: {
    summary: 'export: write the precise facts of C# projects as a SCIP index (a CI shard with --shard K/N)',
    positionals: ['ACTION'],
    options: {
      'workspace-root': ENGINE_OPTIONS['workspace-root']!,
      'index-root': ENGINE_OPTIONS['index-root']!,
      exclude: ENGINE_OPTIONS.exclude!,
      include: ENGINE_OPTIONS.include!,
      projects: { type: 'string', value: 'GLOB', help: 'only the projects whose path or name matches' },
      shard: { type: 'string', value: 'K/N', help: 'the K-th of N shards of the project graph (dependency order, balanced by files)' },
      out: { type: 'string', value: 'FILE', help: 'the SCIP file to write (required)' },
    },
  },
  doctor: { summary: 'what is installed and available', options: { 'workspace-root': ENGINE_OPTIONS['workspace-root']!, 'index-root': ENGINE_OPTIONS['index-root']! } },
};

function synopsis(name: string): string {
  const c = COMMANDS[name]!;
  const parts = [`sextant ${name}`, ...(c.positionals ?? [])];
  for (const [flag, o] of Object.entries(c.options)) parts.push(`[--${flag}${o.type === 'string' ? ' ' + (o.value ?? 'V') : ''}]`);
  return parts.join(' ');
}

function commandHelp(name: string): string {
  const c = COMMANDS[name]!;
  const lines = [`usage: ${synopsis(name)}`, `  ${c.summary}`];
  for (const [flag, o] of Object.entries(c.options)) lines.push(`  --${(flag + (o.type === 'string' ? ' ' + (o.value ?? 'V') : '')).padEnd(22)} ${o.help}`);
  return lines.join('\n');
}

const USAGE = [
  'sextant — code navigation for AI agents over MCP',
  '',
  ...Object.keys(COMMANDS).map((n) => commandHelp(n) + '\n'),
  'sextant --version | sextant --help | sextant COMMAND --help',
].join('\n');

/** The usage line printed with every refused command line. */
function usageLine(command?: string): string {
  return command && COMMANDS[command] ? `usage: ${synopsis(command)}` : `usage: sextant ${Object.keys(COMMANDS).join('|')} [options]  (sextant --help lists them)`;
}

/** A command line the CLI does not understand: exits 2 with the error and the usage line. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

/**
 * Strict parsing (node's util.parseArgs): an unknown flag, a flag without its value, a value for a
 * switch, an empty value and a stray argument are refused, never ignored.
 */
export function parseCommandLine(argv: string[]): Args | { help: string } | { version: true } {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') return { help: USAGE };
  if (command === '--version' || command === '-V' || command === 'version') return { version: true };
  // Started by the VS Code extension (node IPC); vscode-languageclient adds flags of its own.
  if (command === 'ipc') return { command, positional: [], flags: new Map() };
  const spec = COMMANDS[command];
  if (!spec) throw new UsageError(`Unknown command '${command}'`);
  let parsed: ReturnType<typeof nodeParseArgs>;
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { help: { type: 'boolean', short: 'h' } };
  for (const [k, o] of Object.entries(spec.options)) options[k] = { type: o.type };
  try {
    parsed = nodeParseArgs({ args: rest, options, strict: true, allowPositionals: true });
  } catch (e) {
    throw new UsageError(parseErrorMessage(e as Error & { code?: string }), command);
  }
  if (parsed.values.help) return { help: commandHelp(command) };
  const names = spec.positionals ?? [];
  if (parsed.positionals.length > names.length) throw new UsageError(`Unexpected argument '${parsed.positionals[names.length]}'`, command);
  const flags = new Map<string, string | true>();
  for (const [k, v] of Object.entries(parsed.values)) {
    if (v === undefined || v === false) continue;
    if (v === '') throw new UsageError(`Option '--${k}' needs a value`, command);
    flags.set(k, typeof v === 'string' ? v : true);
  }
  return { command, positional: parsed.positionals, flags };
}

/** util.parseArgs's message, cut to what went wrong (its advice about `--` does not apply here). */
function parseErrorMessage(e: Error & { code?: string }): string {
  const quoted = /'([^']*)'/.exec(e.message)?.[1] ?? '';
  const opt = quoted.split(' ')[0];
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `Unknown option '${opt}'`;
  if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') return `Unexpected argument '${quoted}'`;
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return /does not take/.test(e.message) ? `Option '${opt}' takes no value` : `Option '${opt}' needs a value`;
  return e.message.split('\n')[0]!;
}

function str(a: Args, name: string): string | undefined {
  const v = a.flags.get(name);
  return typeof v === 'string' ? v : undefined;
}

function engineOptions(a: Args) {
  const ws = str(a, 'workspace-root') ?? process.cwd();
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
  const cs = str(a, 'csharp-provider');
  if (cs !== undefined) {
    if (cs !== 'roslyn' && cs !== 'csharp-ls') throw new ToolError('INVALID_ARGUMENT', `--csharp-provider '${cs}' is not known`, 'use roslyn (the default when the Roslyn host is built) or csharp-ls');
    // Read by the semantic service when it is created (nav/semanticService.ts).
    process.env.SEXTANT_CSHARP_PROVIDER = cs;
  }
  // Read by the semantic service when it is created (semantic/restore/restorePlan.ts).
  if (a.flags.get('restore') === true) process.env.SEXTANT_RESTORE = '1';
  const scip = str(a, 'scip');
  // Read by the semantic service when it is created, like the C# provider choice.
  if (scip !== undefined) process.env.SEXTANT_SCIP = scip.split(',').filter(Boolean).map((p) => path.resolve(p)).join(path.delimiter);
  return o;
}

/** The progress bar on stderr; log lines are printed above it, never inside it; `end()` closes it. */
interface ProgressPrinter {
  (p: RefreshProgress): void;
  end(): void;
}

function progressPrinter(enabled: boolean): ProgressPrinter {
  let last = 0;
  let shown = '';
  const width = 30;
  const clear = () => shown && process.stderr.write('\r' + ' '.repeat(shown.length) + '\r');
  const draw = (text: string) => {
    clear();
    shown = text;
    process.stderr.write(text);
  };
  const printer = ((p: RefreshProgress) => {
    if (!enabled) return;
    const now = Date.now();
    if (p.phase === 'index' && now - last < 100) return;
    last = now;
    // 'done' can come before 'persist': the bar ends only with end(), after the refresh.
    const frac = p.total > 0 ? p.done / p.total : p.phase === 'discover' ? 0 : 1;
    const label = p.phase === 'index' ? `text + files ${p.done}/${p.total}` : p.phase === 'finish' && p.total > 0 ? `outlines + symbols ${p.done}/${p.total}` : p.phase;
    draw(`${'█'.repeat(Math.round(frac * width)).padEnd(width, '░')} ${label}`);
  }) as ProgressPrinter;
  printer.end = () => {
    if (!enabled || !shown) return;
    draw(`${'█'.repeat(width)} done`);
    process.stderr.write('\n');
    shown = '';
    setLogSink(stderrSink);
  };
  if (enabled) {
    setLogSink((line) => {
      const bar = shown;
      clear();
      shown = '';
      process.stderr.write(line + '\n');
      if (bar) draw(bar);
    });
  }
  return printer;
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
  const indexRoot = indexRootFor(opts);
  // Nothing changed since the last complete `sextant index` (index/warmState.ts): answered without loading the index.
  const unchanged = indexRoot ? await unchangedSinceWarmState(indexRoot, opts.workspaceRoot, opts).catch(() => undefined) : undefined;
  if (unchanged) {
    try {
      printUnchanged(unchanged.summary, unchanged.walkMs, indexRoot, a.flags.has('json'));
      return 0;
    } finally {
      claim.lock?.release();
    }
  }
  const engine = await Engine.open({ ...opts, gitAtOpen: false, indexOnly: true }).catch((e: unknown) => {
    claim.lock?.release();
    throw e;
  });
  let done: RefreshStats | undefined;
  try {
    const opened = mark();
    let textReady: Mark | undefined;
    const progress = progressPrinter(process.stderr.isTTY && !a.flags.has('json'));
    const stats = await engine.refresh(progress, () => (textReady = mark())).finally(() => progress.end());
    const complete = mark();
    const j = summaryJson(engine, stats, textReady, complete);
    if (a.flags.has('json')) process.stdout.write(JSON.stringify({ ...j, opened, walkMs: stats.discovery.durationMs }) + '\n');
    else printSummary(engine, stats, textReady, complete);
    // A complete refresh (every listed file read, nothing owed) is what the next run compares with.
    if (j.status === 'fresh' && j.symbolsPending === 0 && stats.unreadable === 0 && stats.hookSkipped === 0 && !stats.discovery.truncated) done = stats;
    return 0;
  } finally {
    const version = engine.version;
    const sourceFiles = done?.sourceFiles ?? 0;
    await engine.close();
    if (indexRoot) {
      if (done) writeWarmState(indexRoot, opts.workspaceRoot, opts, done.discovery, { files: done.files, sourceFiles, bytes: done.bytes, indexVersion: version, skippedTooLarge: done.skippedTooLarge });
      else dropWarmState(indexRoot);
    }
    claim.lock?.release();
  }
}

/**
 * One line for stderr at `mcp` / `serve` start: which semantic provider serves each language and
 * what is missing (nothing is started here; the same facts `doctor` prints).
 */
export function providersLine(ws: string): string {
  // Statuses only: found or not, no version probe (that would delay the start by a process launch).
  const servers = new LspProvider({ root: ws }).statuses().map((s) => ({ id: s.id, found: s.executable !== undefined }));
  const server = (id: string) => servers.find((s) => s.id === id);
  const csharpLs = server('csharp');
  const csharp = chooseCSharpProvider();
  let cs: string;
  if (csharp.choice === 'roslyn') cs = `C#: Sextant's Roslyn host${csharpLs?.found ? ' (csharp-ls as fallback)' : ''}`;
  else if (csharpLs?.found) cs = `C#: csharp-ls (${csharp.why})`;
  else cs = `C#: no Roslyn host and csharp-ls not installed — C# answers are heuristic; run npm install in the Sextant checkout`;
  const tsls = server('typescript');
  const tsOwn = !process.env.SEXTANT_NO_TS_PROGRAMS;
  let ts: string;
  if (tsOwn) ts = `TS/JS: Sextant's TypeScript host (every tsconfig program)${tsls?.found ? ', typescript-language-server as fallback' : ''}`;
  else if (tsls?.found) ts = 'TS/JS: typescript-language-server';
  else ts = 'TS/JS: typescript-language-server not found — TS/JS answers are heuristic; run npm install';
  return `semantic providers: ${cs}; ${ts}\n`;
}

async function cmdMcp(a: Args): Promise<number> {
  redirectConsoleToStderr();
  process.stderr.write(providersLine(str(a, 'workspace-root') ?? process.cwd()));
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
  process.stderr.write(providersLine(opts.workspaceRoot));
  let engine: Engine | undefined;
  try {
    engine = await Engine.open(opts);
    const e = engine;
    const shared = claim.lock ? await startSharedEndpoint(claim.lock, () => buildServer(e), { workspaceRoot: e.root, version: SERVER_VERSION }) : undefined;
    const progress = progressPrinter(process.stderr.isTTY);
    const stats = await e.refresh(progress).finally(() => progress.end());
    printSummary(e, stats);
    e.watch();
    const cli = path.resolve(__dirname, '..', 'bin', 'sextant.js');
    const args = [cli, ...attachArgs(a, e)];
    const attach = await checkAttach(args.slice(1));
    process.stderr.write(
      (shared ? `\nMCP over HTTP: ${shared.url} (bearer token in ${shared.serverJson}, owner-only)\n` : '') +
        `\nAttach an agent (stdio; attaches to this engine while it runs):\n` +
        `  Claude Code:  claude mcp add sextant -- node ${args.map(shellQuote).join(' ')}\n` +
        `  VS Code (.vscode/mcp.json):\n` +
        JSON.stringify({ servers: { sextant: { type: 'stdio', command: 'node', args } } }, null, 2)
          .split('\n')
          .map((l) => '    ' + l)
          .join('\n') +
        `\n${attach}\n` +
        `\nKeeping the index fresh while files change (Ctrl-C to stop).\n`,
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

/** `mcp` arguments that reach the engine `serve` started: same workspace, same index root, same filters. */
function attachArgs(a: Args, e: Engine): string[] {
  const out = ['mcp', '--workspace-root', e.root];
  if (str(a, 'index-root') !== undefined) out.push('--index-root', path.resolve(str(a, 'index-root')!));
  for (const f of ['exclude', 'include']) if (str(a, f) !== undefined) out.push(`--${f}`, str(a, f)!);
  return out;
}

/**
 * Runs the snippet's argument list through the same parser and engine claim `sextant mcp` uses,
 * and says whether it would attach to this process (it must: otherwise it would start a second
 * engine with its own index).
 */
async function checkAttach(args: string[]): Promise<string> {
  const p = parseCommandLine(args);
  if (!('command' in p)) return 'Warning: the snippet above does not parse as `sextant mcp`.';
  const claim = await claimEngineFor(engineOptions(p), 0);
  if (claim.kind === 'attach' && claim.server.pid === process.pid) return `Checked: the snippet's command attaches to this engine (pid ${process.pid}).`;
  claim.kind === 'owner' && claim.lock?.release();
  const who = claim.kind === 'attach' ? `the engine of pid ${claim.server.pid}` : claim.kind === 'busy' ? `a busy index (pid ${claim.owner.pid})` : 'a new engine of its own';
  return `Warning: the snippet's command would reach ${who}, not this engine (pid ${process.pid}).`;
}

/** Quotes an argument for a POSIX shell when it needs it. */
function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

async function cmdScip(a: Args, argv: string[]): Promise<number> {
  if (a.positional[0] !== 'export') throw new UsageError(`No action '${a.positional[0] ?? ''}' (scip takes export)`, 'scip');
  const out = str(a, 'out');
  if (!out) throw new UsageError(`Option '--out' is required`, 'scip');
  const shard = str(a, 'shard');
  if (shard !== undefined) parseShard(shard);
  const opts = engineOptions(a);
  const claim = await claimEngineFor(opts, 0);
  // An engine serving this index holds it: the export indexes in memory instead.
  const owner = claim.kind === 'owner';
  try {
    const r = await runScipExport({
      engine: owner ? opts : { ...opts, indexRoot: '' },
      ...(str(a, 'projects') !== undefined ? { projects: str(a, 'projects')! } : {}),
      ...(shard !== undefined ? { shard } : {}),
      out,
      argv,
      log: (l) => process.stderr.write(l + '\n'),
    });
    process.stderr.write(`scip export: ${r.documents} documents of ${r.projects} project(s), ${r.bytes} bytes in ${(r.ms / 1000).toFixed(1)} s → ${path.resolve(out)}\n`);
    return 0;
  } finally {
    if (owner) claim.lock?.release();
  }
}

async function cmdQuery(a: Args): Promise<number> {
  const tool = a.positional[0];
  if (!tool) throw new UsageError(`No tool named (one of ${toolNames().join(', ')})`, 'query');
  let args: unknown = {};
  const raw = str(a, 'args');
  if (raw !== undefined) {
    try {
      args = JSON.parse(raw);
    } catch (e) {
      throw new ToolError('INVALID_ARGUMENT', `--args is not valid JSON: ${(e as Error).message}`, `pass an object, e.g. --args '{"query":"Foo"}'`);
    }
  }
  const opts = engineOptions(a);
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
  // The status `index` and `query` would report: verified against the tree by a refresh (which
  // parses nothing on an unchanged tree), or the serving engine's own when one serves this index.
  const opts = engineOptions(a);
  const claim = await claimEngineFor(opts, 0);
  if (claim.kind === 'busy') throw busyError(claim, indexRootFor(opts));
  let served: string | undefined;
  if (claim.kind === 'attach') {
    const r = await runToolRemote(claim.server, 'server_capabilities', {});
    served = r.ok ? (r.structured as { index?: { status?: string } }).index?.status : undefined;
  }
  const engine = await Engine.open(claim.kind === 'owner' ? { ...opts, gitAtOpen: false } : opts).catch((e: unknown) => {
    if (claim.kind === 'owner') claim.lock?.release();
    throw e;
  });
  try {
    if (claim.kind === 'owner') await engine.refresh();
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
          status: served ?? engine.meta().status,
        },
        null,
        2,
      ) + '\n',
    );
    return 0;
  } finally {
    await engine.close();
    if (claim.kind === 'owner') claim.lock?.release();
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
  checks.push({ name: 'watcher', ...nativeWatcherCheck() });
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
  // Sextant's Roslyn host (never started here): built, its version, the dotnet that runs it, who serves C#.
  const host = locateRoslynHost();
  const csharp = chooseCSharpProvider();
  if (host.ok) {
    const [version, dotnetVersion] = await Promise.all([probeVersion(host.command.dotnet, [host.command.dll, '--version']), probeVersion(host.command.dotnet, ['--version'])]);
    checks.push({ name: 'roslyn-host', ok: true, detail: `${version} (${host.command.dll}; dotnet ${dotnetVersion} at ${host.command.dotnet}); C#: ${csharp.choice}` });
  } else checks.push({ name: 'roslyn-host', ok: false, detail: `${host.reason}; C# is served by csharp-ls when installed, else heuristic` });
  for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'MISS'} ${c.name.padEnd(10)} ${c.detail}\n`);
  return checks.every((c) => c.ok || c.name === 'index' || c.name === 'git' || c.name === 'watcher' || c.name === 'roslyn-host' || servers.some((s) => s.name === c.name)) ? 0 : 1;
}

export async function main(argv: string[]): Promise<number> {
  try {
    const p = parseCommandLine(argv);
    if ('help' in p) {
      process.stdout.write(p.help + '\n');
      return 0;
    }
    if ('version' in p) {
      process.stdout.write(`sextant ${SERVER_VERSION}\n`);
      return 0;
    }
    const a = p;
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
      case 'scip':
        return await cmdScip(a, argv);
      case 'ipc':
        return await runEngineHost();
    }
    throw new UsageError(`Unknown command '${a.command}'`);
  } catch (e) {
    if (e instanceof UsageError) {
      const hint = e.command ? `see sextant ${e.command} --help` : 'see sextant --help';
      process.stderr.write(`Error [INVALID_ARGUMENT]: ${e.message}. Hint: ${hint}\n${usageLine(e.command)}\n`);
      return 2;
    }
    if (e instanceof ToolError) {
      process.stderr.write(e.render() + '\n');
      return 2;
    }
    process.stderr.write(`Error [INTERNAL]: ${(e as Error).stack ?? String(e)}\n`);
    return 1;
  }
}

/** Runs the CLI as a process (sets the exit code); the launcher (cliLauncher.ts) calls it. */
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
