/**
 * The simplest rankings an agent could script, computed in the same run as the tools they are
 * compared with:
 * - locate: BM25 (k1 1.2, b 0.75) over the identifier-split, lower-cased tokens of each production
 *   file's path and content (`SqlServerMigrationsSqlGenerator` → sql server migrations sql
 *   generator), the title split the same way minus English stop words. Its universe is the
 *   production C# files of the snapshot (rules.ts), which is where every answer is: a restriction
 *   the tool does not get.
 * - related tests: `rg -c -w <Type>` over the snapshot's test files, most mentions first (path
 *   order for ties).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ripgrepPath } from '../../server/src/nav/ripgrep';
import { roleOf } from './rules';

const STOP = new Set(
  'a an the and or not no of to in on at by for from with without into onto as is are was were be been being it its this that these those when where which while if then else than so such can could should would will shall may might must do does did done have has had having only also all any each every some more most other same too very just over under after before about against between through during above below up down out off again further once here there why how what who whom'.split(' '),
);

/** Identifier-split, lower-cased words of a text (camelCase, acronyms, digits, `_`). */
export function splitTokens(text: string): string[] {
  const out: string[] = [];
  const re = /[A-Za-z0-9]+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const parts = m[0].replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2').split(' ');
    for (const p of parts) if (p.length >= 2) out.push(p.toLowerCase());
  }
  return out;
}

export class Bm25Baseline {
  private readonly docs: { path: string; tf: Map<string, number>; len: number }[] = [];
  private readonly df = new Map<string, number>();
  private avgLen = 0;

  constructor(root: string, paths: string[]) {
    let total = 0;
    for (const p of paths) {
      let text: string;
      try {
        text = fs.readFileSync(path.join(root, p), 'utf8');
      } catch {
        continue;
      }
      const tf = new Map<string, number>();
      const toks = [...splitTokens(p), ...splitTokens(text)];
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const t of tf.keys()) this.df.set(t, (this.df.get(t) ?? 0) + 1);
      this.docs.push({ path: p, tf, len: toks.length });
      total += toks.length;
    }
    this.avgLen = total / Math.max(1, this.docs.length);
  }

  get size(): number {
    return this.docs.length;
  }

  /** The best `k` paths for a question. */
  rank(question: string, k: number): string[] {
    const q = splitTokens(question).filter((t) => !STOP.has(t));
    const n = this.docs.length;
    const k1 = 1.2;
    const b = 0.75;
    const scored: { path: string; s: number }[] = [];
    for (const d of this.docs) {
      let s = 0;
      for (const t of q) {
        const f = d.tf.get(t);
        if (!f) continue;
        const df = this.df.get(t) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        s += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + (b * d.len) / this.avgLen));
      }
      if (s > 0) scored.push({ path: d.path, s });
    }
    scored.sort((x, y) => y.s - x.s || (x.path < y.path ? -1 : 1));
    return scored.slice(0, k).map((x) => x.path);
  }
}

/** Production C# files of a snapshot (the baseline's universe), by the rules' classes. */
export function productionFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (e.name === '.git' || e.name === 'node_modules' || e.name === 'bin' || e.name === 'obj') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else if (e.isFile() && roleOf(r) === 'production') out.push(r);
    }
  };
  walk('');
  return out.sort();
}

/** `rg -c -w <name>` over the test C# files of a snapshot: the `k` files with most mentions. */
export function mentionCount(root: string, name: string, k: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const args = ['--no-config', '--no-require-git', '--hidden', '--case-sensitive', '--count', '--word-regexp', '--fixed-strings', '--glob', '*.cs', '--glob', '!.git', '--regexp', name, '--', '.'];
    const child = spawn(ripgrepPath(), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0 && code !== 1) return reject(new Error(`rg exited ${code}`));
      const rows: { path: string; n: number }[] = [];
      for (const line of out.split('\n')) {
        const i = line.lastIndexOf(':');
        if (i <= 0) continue;
        const p = line.slice(0, i).replace(/^\.\//, '');
        if (roleOf(p) === 'test') rows.push({ path: p, n: Number(line.slice(i + 1)) });
      }
      rows.sort((a, b) => b.n - a.n || (a.path < b.path ? -1 : 1));
      resolve(rows.slice(0, k).map((r) => r.path));
    });
  });
}
