/**
 * Git co-change: the files changed in the same commits as a file, over its last
 * `AGENT_COCHANGE_COMMITS` commits. One read-only `git log` (no lock taken: GIT_OPTIONAL_LOCKS=0),
 * bounded in time and output; no git, no repository or a timeout is a value (`unavailable`), never
 * an error. Cached per index version and file.
 */
import { execFile } from 'node:child_process';
import { AGENT_COCHANGE_COMMITS, AGENT_COCHANGE_MAX_OUTPUT_BYTES, AGENT_COCHANGE_TIMEOUT_MS } from '../../core/limits';

/** Weight of a shared commit per step of age (tuned on the dev split of scripts/history-eval/: 0.97). */
export const COCHANGE_RECENCY_DECAY = 0.97;
import type { Engine } from '../engine';

export interface CoChange {
  /** Commits of the file that were read. */
  commits: number;
  /** Other files → commits they share with the file. */
  files: Map<string, number>;
  /**
   * Other files → the weight of the commits they share: each commit weighs
   * COCHANGE_RECENCY_DECAY^(its age in the file's commits, newest 0) / √(files it changed) — a recent
   * small commit says more about what moves with the file than an old sweep of hundreds of files.
   */
  weighted: Map<string, number>;
  unavailable?: string;
}

const caches = new WeakMap<Engine, { version: string; byPath: Map<string, Promise<CoChange>> }>();

export function coChange(engine: Engine, rel: string): Promise<CoChange> {
  let c = caches.get(engine);
  if (!c || c.version !== engine.version) caches.set(engine, (c = { version: engine.version, byPath: new Map() }));
  let p = c.byPath.get(rel);
  if (!p) c.byPath.set(rel, (p = read(engine.root, rel)));
  return p;
}

function read(root: string, rel: string): Promise<CoChange> {
  const args = ['-c', 'core.quotepath=off', 'log', `-n${AGENT_COCHANGE_COMMITS}`, '--no-renames', '--relative', '--full-diff', '--format=%x1e', '--name-only', '--', rel];
  return new Promise((resolve) => {
    execFile(
      'git',
      args,
      { cwd: root, timeout: AGENT_COCHANGE_TIMEOUT_MS, maxBuffer: AGENT_COCHANGE_MAX_OUTPUT_BYTES, env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' } },
      (error, stdout) => {
        if (error) {
          const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'git is not installed' : error.killed ? `git log took over ${AGENT_COCHANGE_TIMEOUT_MS} ms` : 'not a git repository (or git log failed)';
          resolve({ commits: 0, files: new Map(), weighted: new Map(), unavailable: why });
          return;
        }
        const files = new Map<string, number>();
        const weighted = new Map<string, number>();
        let commits = 0;
        for (const block of String(stdout).split('\x1e')) {
          const names = [...new Set(block.split('\n').map((l) => l.trim()).filter(Boolean))];
          if (!names.includes(rel)) continue;
          const w = COCHANGE_RECENCY_DECAY ** commits / Math.sqrt(names.length);
          commits++;
          for (const n of names) {
            if (n === rel) continue;
            files.set(n, (files.get(n) ?? 0) + 1);
            weighted.set(n, (weighted.get(n) ?? 0) + w);
          }
        }
        resolve({ commits, files, weighted });
      },
    );
  });
}
