/**
 * Bench: `outline` of large C# files from a fresh parse (the live path, not the index): read,
 * decode, parse + outline in this thread, as nav/syntaxOutline does for a changed file.
 *   npx tsx test/bench/syntax/liveOutline.ts <dir> [--files N] [--repeat N] [--whole]
 * Picks the N C# files closest to 5,000 lines (the target size) and, separately, the N
 * files of at least 1,000 lines with the most `#if` groups; prints per-set p50/p95 of wall and
 * CPU milliseconds (best of --repeat runs per file, after one warm-up parse) and the slowest file.
 * --whole parses files whole (no skeleton parse), for comparison. Not a timed test.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { readWithOneHandle } from '../../../server/src/core/paths';
import { MAX_FILE_BYTES } from '../../../server/src/core/limits';
import { decodeSource } from '../../../server/src/syntax/parseBatch';
import { parseTextSync, prepareLanguage } from '../../../server/src/syntax/parseFile';

export interface OutlineFile {
  abs: string;
  rel: string;
  lines: number;
  conditionals: number;
}

export interface LatencyStats {
  files: number;
  lines: string;
  wallP50: number;
  wallP95: number;
  cpuP50: number;
  cpuP95: number;
  slowest: string;
  reparsed: number;
}

function* walkCs(dir: string): Generator<string> {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (e.name === 'node_modules' || e.name === '.git') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walkCs(p);
    else if (e.isFile() && e.name.endsWith('.cs')) yield p;
  }
}

function countLines(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** The `count` C# files closest to 5,000 lines, and the `count` most `#if`-heavy ones of ≥ 1,000 lines. */
export function pickOutlineFiles(root: string, count: number): { near5000: OutlineFile[]; conditional: OutlineFile[] } {
  const all: OutlineFile[] = [];
  for (const abs of walkCs(root)) {
    let size = 0;
    try {
      size = fs.statSync(abs).size;
    } catch {
      continue;
    }
    if (size < 20_000 || size > MAX_FILE_BYTES) continue; // < ~1,000 lines: never a candidate
    const text = fs.readFileSync(abs, 'utf8');
    const lines = countLines(text);
    if (lines < 1000) continue;
    const conditionals = (text.match(/^[ \t]*#[ \t]*if\b/gm) ?? []).length;
    all.push({ abs, rel: path.relative(root, abs).split(path.sep).join('/'), lines, conditionals });
  }
  const near5000 = [...all].sort((a, b) => Math.abs(a.lines - 5000) - Math.abs(b.lines - 5000) || a.rel.localeCompare(b.rel)).slice(0, count);
  const conditional = all.filter((f) => f.conditionals > 0).sort((a, b) => b.conditionals - a.conditionals || a.rel.localeCompare(b.rel)).slice(0, count);
  return { near5000, conditional };
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return +(s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0).toFixed(1);
}

/** Live outline latency over `files`: best of `repeat` runs per file (after a warm-up run). */
export async function measureLiveOutline(files: OutlineFile[], repeat: number, options: { skeleton?: boolean } = {}): Promise<LatencyStats> {
  const config = await prepareLanguage('csharp');
  if (!config) throw new Error('no csharp language config');
  const walls: number[] = [];
  const cpus: number[] = [];
  let slowest = '';
  let slowestMs = -1;
  let reparsed = 0;
  for (const f of files) {
    let bestWall = Infinity;
    let bestCpu = Infinity;
    for (let r = 0; r <= repeat; r++) {
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      const { bytes } = readWithOneHandle(f.abs, f.rel, MAX_FILE_BYTES);
      const text = decodeSource(bytes) ?? '';
      const result = parseTextSync(f.rel, text, config, { skeleton: options.skeleton !== false });
      const c = process.cpuUsage(c0);
      const wall = performance.now() - t0;
      if (r === 0) {
        if (result.diagnostics.reparsedWith.length) reparsed++;
        continue; // warm-up: first contact with the file's pages and shapes
      }
      bestWall = Math.min(bestWall, wall);
      bestCpu = Math.min(bestCpu, (c.user + c.system) / 1000);
    }
    walls.push(bestWall);
    cpus.push(bestCpu);
    if (bestWall > slowestMs) {
      slowestMs = bestWall;
      slowest = `${f.rel} (${f.lines} lines, ${f.conditionals} #if) ${bestWall.toFixed(1)} ms`;
    }
  }
  const lines = files.map((f) => f.lines);
  return {
    files: files.length,
    lines: files.length ? `${Math.min(...lines)}-${Math.max(...lines)}` : '',
    wallP50: pct(walls, 50),
    wallP95: pct(walls, 95),
    cpuP50: pct(cpus, 50),
    cpuP95: pct(cpus, 95),
    slowest,
    reparsed,
  };
}

async function main(): Promise<void> {
  const dir = path.resolve(process.argv[2] ?? '.');
  const arg = (k: string): string | undefined => {
    const i = process.argv.indexOf(k);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const count = Number(arg('--files') ?? 20);
  const repeat = Number(arg('--repeat') ?? 3);
  const whole = process.argv.includes('--whole');
  const picked = pickOutlineFiles(dir, count);
  const near5000 = await measureLiveOutline(picked.near5000, repeat, { skeleton: !whole });
  const conditional = await measureLiveOutline(picked.conditional, repeat, { skeleton: !whole });
  console.log(JSON.stringify({ dir, mode: whole ? 'whole files' : 'skeleton first', repeat, near5000, conditional }, null, 1));
}

if (require.main === module) void main();
