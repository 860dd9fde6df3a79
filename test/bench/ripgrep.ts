/**
 * ripgrep over the same files the engine indexes: the engine's default-excluded folders, its
 * size cap, hidden files included, .gitignore honoured (also outside a git repository).
 */
import { spawn } from 'node:child_process';
import { MAX_FILE_BYTES } from '../../server/src/core/limits';
import { ripgrepPath } from '../../server/src/nav/ripgrep';
import { DEFAULT_EXCLUDED_DIRS } from '../../server/src/workspace/ignoreRules';

export interface RgRun {
  ms: number;
  /** Total matches (sum of --count-matches). */
  matches: number;
  files: number;
}

export function rgArgs(pattern: string, opts: { fixed: boolean; word: boolean }): string[] {
  const args = ['--no-config', '--no-require-git', '--hidden', '--case-sensitive', '--max-filesize', String(MAX_FILE_BYTES), '--count-matches'];
  if (opts.fixed) args.push('--fixed-strings');
  if (opts.word) args.push('--word-regexp');
  for (const d of DEFAULT_EXCLUDED_DIRS) args.push('--glob', `!**/${d}/**`);
  args.push('--regexp', pattern, '--', '.');
  return args;
}

export function runRg(root: string, args: readonly string[]): Promise<RgRun> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepPath(), args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = performance.now() - started;
      if (code !== 0 && code !== 1) return reject(new Error(`rg exited ${code}: ${err.slice(0, 300)}`));
      let matches = 0;
      let files = 0;
      for (const line of out.split('\n')) {
        const i = line.lastIndexOf(':');
        if (i <= 0) continue;
        matches += Number(line.slice(i + 1));
        files++;
      }
      resolve({ ms, matches, files });
    });
  });
}
