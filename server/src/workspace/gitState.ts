/**
 * Git state of the workspace: HEAD sha and the files git reports as changed. Degrades to
 * `available: false` when git or the repository is missing; never throws.
 */
import { execFile } from 'node:child_process';

export interface GitState {
  available: boolean;
  head: string | undefined;
  branch: string | undefined;
  dirtyFiles: string[];
  reason?: string;
}

const GIT_TIMEOUT_MS = 5_000;

function run(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    // Read-only: `git status` would otherwise refresh and rewrite .git/index (an optional lock).
    execFile('git', ['--no-optional-locks', ...args], { cwd, timeout: GIT_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0' } }, (error, stdout) => {
      if (error) reject(error);
      else resolve(stdout);
    });
  });
}

export async function readGitState(root: string): Promise<GitState> {
  try {
    // Three processes at once (status is the slow one; it stats every tracked file).
    const headP = run(root, ['rev-parse', 'HEAD']);
    const branchP = run(root, ['rev-parse', '--abbrev-ref', 'HEAD']).catch(() => '');
    const statusP = run(root, ['status', '--porcelain=v1', '-z', '--untracked-files=normal']);
    statusP.catch(() => undefined); // awaited below only when HEAD resolved
    const head = (await headP).trim();
    const branch = (await branchP).trim() || undefined;
    const status = await statusP;
    const dirtyFiles: string[] = [];
    const parts = status.split('\0');
    for (let i = 0; i < parts.length; i++) {
      const p = parts[i]!;
      if (p.length < 4) continue;
      const code = p.slice(0, 2);
      dirtyFiles.push(p.slice(3));
      if (code[0] === 'R' || code[0] === 'C') i++; // the original path follows a rename
    }
    return { available: true, head, branch, dirtyFiles };
  } catch (e) {
    const msg = (e as Error).message ?? String(e);
    const reason = /ENOENT/.test(msg) ? 'git is not installed' : /not a git repository/i.test(msg) ? 'not a git repository' : 'git failed: ' + msg.split('\n')[0];
    return { available: false, head: undefined, branch: undefined, dirtyFiles: [], reason };
  }
}
