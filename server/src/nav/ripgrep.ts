/**
 * A bounded ripgrep scan for what the token index cannot answer (regular expressions, literals
 * with no identifier characters). ripgrep's regex engine is linear-time, so no pattern can
 * backtrack forever; the scan is also bounded by a deadline and a match cap.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../core/errors';
import { MAX_FILE_BYTES, MAX_MATCHES_PER_FILE } from '../core/limits';
import { DEFAULT_EXCLUDED_DIRS, workspaceDeclaredDirs } from '../workspace/ignoreRules';

export function ripgrepPath(): string {
  const bin = process.platform === 'win32' ? 'rg.exe' : 'rg';
  const local = path.join(__dirname, 'bin', bin);
  if (fs.existsSync(local)) return local;
  return require.resolve(`@vscode/ripgrep-${process.platform}-${process.arch}/bin/${bin}`);
}

export interface RgMatch {
  path: string;
  line: number;
  /** 1-based UTF-16 column of the match start. */
  column: number;
  /** Length of the match in UTF-16 units (on its first line). */
  length: number;
  lineText: string;
}

export interface RgResult {
  matches: RgMatch[];
  /** True when the cap or the deadline stopped the scan. */
  stopped: 'cap' | 'deadline' | undefined;
  durationMs: number;
}

export interface RgOptions {
  cwd: string;
  pattern: string;
  fixedStrings: boolean;
  caseInsensitive: boolean;
  wordRegexp: boolean;
  globs: readonly string[];
  include?: readonly string[];
  maxMatches: number;
  deadlineMs: number;
}

export function runRipgrep(o: RgOptions): Promise<RgResult> {
  const started = Date.now();
  const include = new Set([...(o.include ?? []), ...workspaceDeclaredDirs(o.cwd)].map((s) => s.toLowerCase()));
  const args = ['--json', '--no-config', '--no-require-git', '--max-filesize', String(MAX_FILE_BYTES), '--max-count', String(MAX_MATCHES_PER_FILE), '--max-columns', '2000'];
  if (o.fixedStrings) args.push('--fixed-strings');
  if (o.caseInsensitive) args.push('--ignore-case');
  else args.push('--case-sensitive');
  if (o.wordRegexp) args.push('--word-regexp');
  for (const d of DEFAULT_EXCLUDED_DIRS) if (!include.has(d.toLowerCase())) args.push('--glob', `!**/${d}/**`);
  for (const g of o.globs) args.push('--glob', g);
  args.push('--regexp', o.pattern, '--', '.');
  // A NUL cannot be passed on a command line (spawn throws): refuse it as a query problem.
  if (args.some((a) => a.includes('\0'))) {
    return Promise.reject(new ToolError('INVALID_QUERY', 'The query or a glob contains a NUL character', 'remove control characters from the query and globs'));
  }
  return new Promise((resolve, reject) => {
    const child = spawn(ripgrepPath(), args, { cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const matches: RgMatch[] = [];
    let stopped: RgResult['stopped'];
    let buf = '';
    let stderr = '';
    const timer = setTimeout(() => {
      stopped = 'deadline';
      child.kill('SIGKILL');
    }, o.deadlineMs);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buf += chunk;
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (!line.startsWith('{"type":"match"')) continue;
        try {
          const ev = JSON.parse(line) as { data: { path: { text?: string }; line_number: number; lines: { text?: string }; submatches: { start: number; end: number }[] } };
          const p = ev.data.path.text;
          const text = ev.data.lines.text;
          if (p === undefined || text === undefined) continue;
          const rel = p.startsWith('./') ? p.slice(2) : p;
          const lineBytes = Buffer.from(text, 'utf8');
          for (const sm of ev.data.submatches) {
            const col = lineBytes.subarray(0, sm.start).toString('utf8').length + 1;
            const len = lineBytes.subarray(sm.start, sm.end).toString('utf8').length;
            matches.push({ path: rel.split(path.sep).join('/'), line: ev.data.line_number, column: col, length: len, lineText: text.replace(/\r?\n$/, '') });
          }
          if (matches.length >= o.maxMatches && !stopped) {
            stopped = 'cap';
            child.kill('SIGKILL');
          }
        } catch {
          /* a line we cannot parse is skipped */
        }
      }
    });
    child.stderr.on('data', (c: Buffer) => {
      if (stderr.length < 4096) stderr += c.toString('utf8');
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new ToolError('INTERNAL', `ripgrep could not start: ${e.message}`, 'run sextant doctor'));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 2 && !stopped && matches.length === 0 && /regex parse error|error parsing|unclosed|repetition/i.test(stderr)) {
        reject(new ToolError('INVALID_REGEX', `The regular expression does not compile: ${stderr.trim().split('\n').slice(0, 6).join(' ').slice(0, 400)}`, 'regex mode uses Rust regex syntax (ripgrep); escape metacharacters or use mode "literal"'));
        return;
      }
      resolve({ matches: matches.slice(0, o.maxMatches), stopped, durationMs: Date.now() - started });
    });
  });
}
