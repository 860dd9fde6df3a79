/**
 * Bench: parse + outline every source file under a directory through the parse worker pool.
 *   npx tsx test/bench/syntax/parseThroughput.ts <dir> [--workers N] [--ext .cs]
 * Prints files, MiB, lines, symbols, wall-clock and CPU seconds (process-wide, all threads). Not a
 * timed test: on a shared machine wall time depends on the load, CPU seconds much less.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ParsePool } from '../../../server/src/syntax/parsePool';
import type { ParseRequest } from '../../../server/src/syntax/types';

function* walk(dir: string, ext: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p, ext);
    else if (e.name.endsWith(ext)) yield p;
  }
}

async function main(): Promise<void> {
  const dir = path.resolve(process.argv[2] ?? '.');
  const arg = (k: string): string | undefined => {
    const i = process.argv.indexOf(k);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const workers = Number(arg('--workers') ?? 2);
  const ext = arg('--ext') ?? '.cs';
  const files: ParseRequest[] = [];
  let bytes = 0;
  for (const abs of walk(dir, ext)) {
    files.push({ path: path.relative(dir, abs).split(path.sep).join('/'), language: '', abs });
    bytes += fs.statSync(abs).size;
  }
  const pool = new ParsePool({ workers });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  const results = await pool.parseFiles(files);
  const wall = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const cpuSeconds = (cpu.user + cpu.system) / 1e6;
  await pool.dispose();
  const lines = results.reduce((a, r) => a + r.lineCount, 0);
  const symbols = results.reduce((a, r) => a + r.symbols.length, 0);
  const errors = results.filter((r) => r.error).length;
  const withSyntaxErrors = results.filter((r) => r.diagnostics.hasErrors).length;
  console.log(JSON.stringify({ dir, workers: pool.workerCount, files: files.length, MiB: +(bytes / 1048576).toFixed(1), lines, symbols, fileErrors: errors, filesWithSyntaxErrors: withSyntaxErrors, wallSeconds: +wall.toFixed(1), cpuSeconds: +cpuSeconds.toFixed(1), MiBPerCpuSecond: +(bytes / 1048576 / cpuSeconds).toFixed(2), MiBPerSecond: +(bytes / 1048576 / wall).toFixed(2) }));
}
void main();
