/**
 * Read-only git for recent_changes: every command is a reader (rev-parse, log, diff, ls-files,
 * merge-base, check-ignore), runs with GIT_OPTIONAL_LOCKS=0, `--no-optional-locks` and
 * `diff.autoRefreshIndex=false` (git 2.39's porcelain `git diff` rewrites .git/index to refresh
 * stat data even under --no-optional-locks; with the setting off it does not, and stat-only
 * changes are told apart by --numstat, which compares content), no pager, no external diff or
 * textconv, a timeout and an output bound. Never throws for git's own failures: the caller gets `{ ok: false, error }`.
 */
import { execFile } from 'node:child_process';
import { RECENT_CHANGES_GIT_MAX_OUTPUT_BYTES, RECENT_CHANGES_GIT_TIMEOUT_MS } from '../../core/limits';

export type GitRun = { ok: true; out: string } | { ok: false; error: string; missing?: boolean; tooLarge?: boolean; timedOut?: boolean };

/** The only subcommands this module runs (each reads; none writes a ref, the index or the tree). */
const READERS = new Set(['rev-parse', 'log', 'diff', 'ls-files', 'merge-base', 'check-ignore']);

/**
 * Runs one reader. `input` goes to its stdin (check-ignore --stdin). `okCodes`: exit codes that
 * are answers, not failures (check-ignore exits 1 when no path is ignored).
 */
export function git(cwd: string, args: string[], o: { input?: string; okCodes?: number[]; timeoutMs?: number; maxBytes?: number } = {}): Promise<GitRun> {
  const timeout = o.timeoutMs ?? RECENT_CHANGES_GIT_TIMEOUT_MS;
  if (!READERS.has(args[0]!)) throw new Error(`git ${args[0]} is not a read-only command this module runs`);
  return new Promise((resolve) => {
    const child = execFile(
      'git',
      ['--no-optional-locks', '-c', 'core.quotePath=false', '-c', 'diff.autoRefreshIndex=false', '--no-pager', ...args],
      {
        cwd,
        timeout,
        maxBuffer: o.maxBytes ?? RECENT_CHANGES_GIT_MAX_OUTPUT_BYTES,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' },
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (!error) return resolve({ ok: true, out: stdout });
        const e = error as NodeJS.ErrnoException & { code?: unknown; killed?: boolean };
        if (typeof e.code === 'number' && o.okCodes?.includes(e.code)) return resolve({ ok: true, out: stdout });
        if (e.code === 'ENOENT') return resolve({ ok: false, error: 'git is not installed', missing: true });
        if (e.killed && e.code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return resolve({ ok: false, error: `git ${args[0]} took over ${timeout} ms`, timedOut: true });
        if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return resolve({ ok: false, error: 'git output over the bound', tooLarge: true });
        resolve({ ok: false, error: (String(stderr || '').trim().split('\n')[0] || e.message).slice(0, 300) });
      },
    );
    if (o.input !== undefined) {
      child.stdin?.on('error', () => undefined); // git exited early: its own error is the answer
      child.stdin?.end(o.input);
    } else child.stdin?.end();
  });
}

/** One hunk of a `-U0` diff on the new side: lines start..start+count-1 (count 0: lines removed after `start`). */
export interface Hunk {
  start: number;
  count: number;
  removed: number;
}

/**
 * A file's hunks from `git diff -U0` (paths as git prints them, relative with --relative). Hunk
 * bodies are skipped by count, so a removed line reading "-- x" is never taken for a header.
 */
export function parseUnifiedDiff(out: string): Map<string, Hunk[]> {
  const files = new Map<string, Hunk[]>();
  let cur: Hunk[] | undefined;
  let body = 0;
  for (const line of out.split('\n')) {
    if (body > 0) {
      if (line.startsWith('\\')) continue; // "\ No newline at end of file"
      body--;
      continue;
    }
    if (line.startsWith('+++ ')) {
      const p = line.slice(4);
      if (p === '/dev/null') continue; // deleted: kept under its old name
      const name = unquote(p).replace(/^b\//, '');
      cur = files.get(name) ?? [];
      files.set(name, cur);
    } else if (line.startsWith('--- ')) {
      const p = line.slice(4);
      cur = undefined;
      // A deleted file has no +++ side: listed under its old name with no hunks.
      if (p !== '/dev/null') {
        const name = unquote(p).replace(/^a\//, '');
        if (!files.has(name)) files.set(name, (cur = []));
        else cur = files.get(name);
      }
    } else if (line.startsWith('@@') && cur) {
      const m = /^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      if (m) {
        const h = { start: Number(m[2]), count: m[3] === undefined ? 1 : Number(m[3]), removed: m[1] === undefined ? 1 : Number(m[1]) };
        cur.push(h);
        body = h.count + h.removed;
      }
    } else if (line.startsWith('diff ')) cur = undefined;
  }
  return files;
}

/** `"a/x\tb"` → `a/x<tab>b` (git quotes unusual names even with core.quotePath=false). */
function unquote(p: string): string {
  if (!p.startsWith('"')) return p.replace(/\t$/, '');
  try {
    return JSON.parse(p.replace(/\\([0-7]{3})/g, (_, o: string) => `\\u00${parseInt(o, 8).toString(16).padStart(2, '0')}`)) as string;
  } catch {
    return p.slice(1, -1);
  }
}

/** `git diff --numstat -z` → path → [added, removed] (binary: 0, 0); lists only files whose content differs. */
export function parseNumstat(out: string): Map<string, [number, number]> {
  const m = new Map<string, [number, number]>();
  for (const rec of out.split('\0')) {
    const t = /^(-|\d+)\t(-|\d+)\t([\s\S]+)$/.exec(rec.replace(/^\n/, ''));
    if (t) m.set(t[3]!, [t[1] === '-' ? 0 : Number(t[1]), t[2] === '-' ? 0 : Number(t[2])]);
  }
  return m;
}

/** `git diff --name-status -z` → path → status letter (A, M, D, T, U). */
export function parseNameStatus(out: string): Map<string, string> {
  const m = new Map<string, string>();
  const parts = out.split('\0');
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const code = parts[i]!;
    if (!code) break;
    m.set(parts[i + 1]!, code[0]!);
  }
  return m;
}
