/**
 * Git co-change: the files changed in the same commits as a file, over its last
 * `AGENT_COCHANGE_COMMITS` commits. One read-only `git log` (no lock taken: GIT_OPTIONAL_LOCKS=0),
 * bounded in time and output; no git, no repository or a timeout is a value (`unavailable`), never
 * an error. Cached per index version and file.
 */
import { AGENT_COCHANGE_COMMITS, AGENT_COCHANGE_MAX_OUTPUT_BYTES, AGENT_COCHANGE_TIMEOUT_MS } from '../../core/limits';

/** Weight of a shared commit per step of age (tuned on the dev split of scripts/history-eval/: 0.97). */
export const COCHANGE_RECENCY_DECAY = 0.97;
import type { Engine } from '../engine';
import { git } from '../expanded/git';

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

async function read(root: string, rel: string): Promise<CoChange> {
  const r = await git(root, ['log', `-n${AGENT_COCHANGE_COMMITS}`, '--no-renames', '--relative', '--full-diff', '--format=%x1e', '--name-only', '--', rel], { timeoutMs: AGENT_COCHANGE_TIMEOUT_MS, maxBytes: AGENT_COCHANGE_MAX_OUTPUT_BYTES });
  if (!r.ok) {
    const why = r.missing ? 'git is not installed' : r.timedOut ? `git log took over ${AGENT_COCHANGE_TIMEOUT_MS} ms` : 'not a git repository (or git log failed)';
    return { commits: 0, files: new Map(), weighted: new Map(), unavailable: why };
  }
  const files = new Map<string, number>();
  const weighted = new Map<string, number>();
  let commits = 0;
  for (const block of r.out.split('\x1e')) {
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
  return { commits, files, weighted };
}
