/**
 * The `sextant` entry point (bundled as dist/cli.js; the engine is dist/cliMain.js, from cli.ts).
 * `sextant index` with nothing changed since its last complete run is answered here, by `stat`
 * alone (index/warmCheck.ts), before the engine bundle is loaded — loading and compiling it costs
 * more than the check. Everything else, and any doubt (other flags, an engine holding the index,
 * no state, a time that moved), goes to the engine's CLI unchanged.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { LOCK_FILE } from './core/lock';
import { INDEX_FILE } from './index/indexFiles';
import { setEngineBuildFile, unchangedByStat, type WarmSummary } from './index/warmCheck';

/** The engine's CLI: the bundle beside this file, or (from sources) cli.ts. */
const BUNDLE = path.join(__dirname, 'cliMain.js');

interface EngineCli {
  run(argv: string[]): void;
}

/**
 * The options of `sextant index` this launcher understands; any other argument means the engine
 * decides. The walk options mean what they mean in cli.ts's engineOptions.
 */
function warmIndexArgs(argv: string[]): { workspaceRoot: string; indexRoot: string; exclude?: string[]; include?: string[]; json: boolean } | undefined {
  if (argv[0] !== 'index') return undefined;
  let values: { 'workspace-root'?: string; 'index-root'?: string; exclude?: string; include?: string; json?: boolean };
  try {
    values = parseArgs({
      args: argv.slice(1),
      strict: true,
      allowPositionals: false,
      options: { 'workspace-root': { type: 'string' }, 'index-root': { type: 'string' }, exclude: { type: 'string' }, include: { type: 'string' }, json: { type: 'boolean' } },
    }).values;
  } catch {
    return undefined;
  }
  const ws = values['workspace-root'] ?? process.cwd();
  if (values['index-root'] === '') return undefined;
  let indexRoot: string;
  try {
    if (!fs.statSync(ws).isDirectory()) return undefined;
    indexRoot = path.resolve(values['index-root'] ?? path.join(fs.realpathSync(path.resolve(ws)), '.sextant'));
  } catch {
    return undefined;
  }
  const out: { workspaceRoot: string; indexRoot: string; exclude?: string[]; include?: string[]; json: boolean } = { workspaceRoot: ws, indexRoot, json: values.json === true };
  if (values.exclude) out.exclude = values.exclude.split(',').filter(Boolean);
  if (values.include) out.include = values.include.split(',').filter(Boolean);
  return out;
}

/** What `sextant index` prints when nothing changed (the same line whichever process decided it). */
export function printUnchanged(summary: WarmSummary, checkMs: number, indexRoot: string, json: boolean): void {
  const c = process.cpuUsage();
  const at = { ms: Math.round(performance.now()), cpuMs: Math.round((c.user + c.system) / 1000) };
  const indexBytes = fs.statSync(path.join(indexRoot, INDEX_FILE)).size;
  const j = {
    ...summary,
    durationMs: checkMs,
    indexBytes,
    added: 0,
    changed: 0,
    deleted: 0,
    parsedFiles: 0,
    textReadyRefreshMs: checkMs,
    textReady: at,
    complete: at,
    symbolsPending: 0,
    status: 'fresh',
    recovered: null,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    unchanged: true,
    opened: at,
    walkMs: checkMs,
  };
  if (json) process.stdout.write(JSON.stringify(j) + '\n');
  else process.stderr.write(`Nothing changed since the last index: ${summary.files} files (${summary.sourceFiles} source/test), index ${(indexBytes / 1024 / 1024).toFixed(1)} MiB, version ${summary.indexVersion}\n`);
}

/** Answers a warm `sextant index` here; false when the engine's CLI has to. */
function answeredWarm(argv: string[]): boolean {
  const a = warmIndexArgs(argv);
  if (!a) return false;
  // An engine holds (or held) this index: whether it serves it or left a stale lock is the engine CLI's question.
  if (fs.existsSync(path.join(a.indexRoot, LOCK_FILE))) return false;
  try {
    const opts = { ...(a.exclude ? { exclude: a.exclude } : {}), ...(a.include ? { include: a.include } : {}) };
    const u = unchangedByStat(a.indexRoot, a.workspaceRoot, opts);
    if (!u) return false;
    printUnchanged(u.summary, u.checkMs, a.indexRoot, a.json);
    return true;
  } catch {
    return false;
  }
}

/** Runs the CLI as a process (sets the exit code); `bin/sextant.js` calls it. */
export function run(argv: string[]): void {
  const bundled = fs.existsSync(BUNDLE);
  if (bundled) setEngineBuildFile(BUNDLE);
  if (answeredWarm(argv)) {
    process.exitCode = 0;
    return;
  }
  // a computed name: the bundler leaves the engine out of this file
  const target = bundled ? BUNDLE : path.join(__dirname, 'cli');
  const cli = require(target) as EngineCli;
  cli.run(argv);
}

if (require.main === module) run(process.argv.slice(2));
