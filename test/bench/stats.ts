/** Small statistics and timing helpers for the bench. */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Value at quantile q (0..1) of `values`, nearest-rank on a sorted copy; undefined when empty. */
export function quantile(values: readonly number[], q: number): number | undefined {
  if (values.length === 0) return undefined;
  const s = [...values].sort((a, b) => a - b);
  const rank = Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1));
  return s[rank];
}

export const median = (v: readonly number[]) => quantile(v, 0.5);
export const p95 = (v: readonly number[]) => quantile(v, 0.95);

/** Milliseconds since `start` (from performance.now()). */
export function since(start: number): number {
  return performance.now() - start;
}

/**
 * Run `fn` `warmup` times untimed, then up to `n` times timed; returns the durations in ms. With
 * `budgetMs`, stops early once the timed runs used the budget and at least `minRuns` were made
 * (slow queries get fewer samples instead of dominating the bench's wall time).
 */
export async function timeIt<T>(n: number, warmup: number, fn: () => Promise<T> | T, onResult?: (r: T) => void, budgetMs = Infinity, minRuns = 3): Promise<number[]> {
  for (let i = 0; i < warmup; i++) onResult?.(await fn());
  const out: number[] = [];
  let spent = 0;
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    const r = await fn();
    const ms = since(t);
    out.push(ms);
    spent += ms;
    onResult?.(r);
    if (spent > budgetMs && out.length >= minRuns) break;
  }
  return out;
}

export function mib(bytes: number): number {
  return bytes / 1024 / 1024;
}

/** Total size of the files under `dir` (recursive). */
export function dirBytes(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) total += fs.statSync(p).size;
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return total;
}
