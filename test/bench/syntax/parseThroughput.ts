/**
 * Bench: parse + outline every source file under a directory through the parse worker pool.
 *   npx tsx test/bench/syntax/parseThroughput.ts <dir> [--workers N] [--ext .cs] [--whole]
 * Prints files, MiB, lines, symbols, wall-clock and CPU seconds (process-wide, all threads), the
 * load average around the run, and how files were parsed (skeleton, #if variants, whole). Not a
 * timed test: on a shared machine wall time depends on the load, CPU seconds much less.
 * --whole parses files whole (no skeleton parse), for comparison.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ParsePool } from '../../../server/src/syntax/parsePool';
import type { ParseRequest } from '../../../server/src/syntax/types';

export interface ThroughputResult {
  dir: string;
  workers: number;
  files: number;
  MiB: number;
  lines: number;
  symbols: number;
  fileErrors: number;
  filesWithSyntaxErrors: number;
  reparsedFiles: number;
  wallSeconds: number;
  cpuSeconds: number;
  MiBPerCpuSecond: number;
  MiBPerSecond: number;
  loadAverage: { before: number[]; after: number[] };
}

function* walk(dir: string, ext: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== '.git' && e.name !== 'node_modules') yield* walk(p, ext);
    } else if (e.isFile() && e.name.endsWith(ext)) yield p;
  }
}

const load = (): number[] => os.loadavg().map((x) => +x.toFixed(2));

/** Parses every `ext` file under `dir` with a pool of `workers` threads (files read by the workers). */
export async function measureParseThroughput(dir: string, workers: number, ext = '.cs', options: { skeleton?: boolean } = {}): Promise<ThroughputResult> {
  const files: ParseRequest[] = [];
  let bytes = 0;
  for (const abs of walk(dir, ext)) {
    const req: ParseRequest = { path: path.relative(dir, abs).split(path.sep).join('/'), language: '', abs };
    if (options.skeleton === false) req.skeleton = false;
    files.push(req);
    bytes += fs.statSync(abs).size;
  }
  const pool = new ParsePool({ workers });
  const before = load();
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const results = await pool.parseFiles(files);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const after = load();
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  const workerCount = pool.workerCount;
  await pool.dispose();
  return {
    dir,
    workers: workerCount,
    files: files.length,
    MiB: +(bytes / 1048576).toFixed(1),
    lines: results.reduce((a, r) => a + r.lineCount, 0),
    symbols: results.reduce((a, r) => a + r.symbols.length, 0),
    fileErrors: results.filter((r) => r.error).length,
    filesWithSyntaxErrors: results.filter((r) => r.diagnostics.hasErrors).length,
    reparsedFiles: results.filter((r) => r.diagnostics.reparsedWith.length > 0).length,
    wallSeconds: +wall.toFixed(1),
    cpuSeconds: +cpuSeconds.toFixed(1),
    MiBPerCpuSecond: +(bytes / 1048576 / cpuSeconds).toFixed(2),
    MiBPerSecond: +(bytes / 1048576 / wall).toFixed(2),
    loadAverage: { before, after },
  };
}

async function main(): Promise<void> {
  const dir = path.resolve(process.argv[2] ?? '.');
  const arg = (k: string): string | undefined => {
    const i = process.argv.indexOf(k);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const r = await measureParseThroughput(dir, Number(arg('--workers') ?? 2), arg('--ext') ?? '.cs', { skeleton: !process.argv.includes('--whole') });
  console.log(JSON.stringify({ mode: process.argv.includes('--whole') ? 'whole files' : 'skeleton first', ...r }));
}

if (require.main === module) void main();
