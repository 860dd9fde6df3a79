/**
 * What the workspace's git history says about each file, for ranking: how many of the last
 * RANK_HISTORY_COMMITS commits changed it (churn: code that changes often is where the next change
 * lands), and the words of those commits' subjects (a title like the question's changed it
 * before). One read-only `git log` (no lock), bounded in time and output, cached per HEAD; no git,
 * no repository or a timeout is a value (`unavailable`). Merge commits list no files (their
 * branch's own commits carry the subjects), so a merged pull request counts once.
 */
import { execFile } from 'node:child_process';
import { RANK_HISTORY_COMMITS, RANK_HISTORY_MAX_OUTPUT_BYTES, RANK_HISTORY_TIMEOUT_MS } from '../../core/limits';
import type { Engine } from '../engine';
import { QUESTION_STOP_WORDS, stem, words } from './words';

export interface FileHistory {
  /** Commits read. */
  commits: number;
  /** Path → commits that changed it. */
  churn: Map<string, number>;
  /** Path → stem → times its commits' subjects used it. */
  subjects: Map<string, Map<string, number>>;
  unavailable?: string;
}

const caches = new WeakMap<Engine, { head: string; history: Promise<FileHistory> }>();

export function fileHistory(engine: Engine): Promise<FileHistory> {
  const head = engine.git.head ?? '';
  const c = caches.get(engine);
  if (c && c.head === head) return c.history;
  const history = head ? read(engine.root) : Promise.resolve(none(engine.git.reason ?? 'not a git repository'));
  caches.set(engine, { head, history });
  return history;
}

function none(why: string): FileHistory {
  return { commits: 0, churn: new Map(), subjects: new Map(), unavailable: why };
}

function read(root: string): Promise<FileHistory> {
  const args = ['-c', 'core.quotepath=off', 'log', `-n${RANK_HISTORY_COMMITS}`, '--no-renames', '--relative', '--format=%x1e%s', '--name-only'];
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      { cwd: root, timeout: RANK_HISTORY_TIMEOUT_MS, maxBuffer: RANK_HISTORY_MAX_OUTPUT_BYTES, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' } },
      (error, stdout) => {
        if (error) {
          const e = error as NodeJS.ErrnoException & { killed?: boolean };
          resolve(none(e.code === 'ENOENT' ? 'git is not installed' : e.killed ? `git log took over ${RANK_HISTORY_TIMEOUT_MS} ms` : 'git log failed'));
          return;
        }
        resolve(parseLog(String(stdout)));
      },
    );
  });
}

/** `git log --format=%x1e%s --name-only` output → churn and subject words per path. */
export function parseLog(out: string): FileHistory {
  const churn = new Map<string, number>();
  const subjects = new Map<string, Map<string, number>>();
  let commits = 0;
  for (const block of out.split('\x1e')) {
    if (!block) continue;
    const lines = block.split('\n');
    const subject = lines[0] ?? '';
    const files = lines.slice(1).map((l) => l.trim()).filter(Boolean);
    commits++;
    if (!files.length) continue;
    const stems = [...new Set(words(subject.replace(/\(#\d+\)\s*$/, '')).filter((w) => !QUESTION_STOP_WORDS.has(w)).map(stem))];
    for (const f of files) {
      churn.set(f, (churn.get(f) ?? 0) + 1);
      let m = subjects.get(f);
      if (!m) subjects.set(f, (m = new Map()));
      for (const s of stems) m.set(s, (m.get(s) ?? 0) + 1);
    }
  }
  return { commits, churn, subjects };
}
