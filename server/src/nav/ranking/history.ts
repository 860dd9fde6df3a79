/**
 * What the workspace's git history says about each file, for ranking: how many of the last
 * RANK_HISTORY_COMMITS commits changed it (churn: code that changes often is where the next change
 * lands), and the words of those commits' subjects (a title like the question's changed it
 * before). One read-only `git log` (no lock), bounded in time and output, cached per HEAD; no git,
 * no repository or a timeout is a value (`unavailable`); a timeout (a loaded machine) is read again
 * by a question RANK_HISTORY_RETRY_MS later (`retryAt`). Merge commits list no files (their
 * branch's own commits carry the subjects), so a merged pull request counts once.
 */
import { RANK_HISTORY_COMMITS, RANK_HISTORY_MAX_OUTPUT_BYTES, RANK_HISTORY_RETRY_MS, RANK_HISTORY_TIMEOUT_MS } from '../../core/limits';
import { runSteps, runStepsSliced } from '../../core/timeSlice';
import type { Engine } from '../engine';
import { git } from '../expanded/git';
import { QUESTION_STOP_WORDS, stem, words } from './words';

export interface FileHistory {
  /** Commits read. */
  commits: number;
  /** Per commit that changed files: its subject's stems (distinct) and the files. */
  changes: { stems: string[]; files: string[] }[];
  /** Stem → commits (index into `changes`) whose subject has it. */
  bySubject: Map<string, number[]>;
  /** Path → commits that changed it. */
  churn: Map<string, number>;
  /** Path → stem → times its commits' subjects used it. */
  subjects: Map<string, Map<string, number>>;
  unavailable?: string;
  /** Set when the read timed out: from this time (ms since the epoch) it is read again. */
  retryAt?: number;
}

/** What the engine's history is read with (tests give their own runner). */
export interface HistoryReadOptions {
  timeoutMs?: number;
  retryMs?: number;
  run?: typeof git;
}

const caches = new WeakMap<Pick<Engine, 'git' | 'root'>, { head: string; history: Promise<FileHistory> }>();

export async function fileHistory(engine: Pick<Engine, 'git' | 'root'>, o: HistoryReadOptions = {}): Promise<FileHistory> {
  const head = engine.git.head ?? '';
  const c = caches.get(engine);
  if (c && c.head === head) {
    const had = await c.history;
    if (had.retryAt === undefined || Date.now() < had.retryAt || caches.get(engine) !== c) return had;
  }
  // A failed `git status` (a timeout under load on a large tree) leaves the engine without a HEAD,
  // but the history is still there to read: only "no repository" / "no git" mean none.
  const failed = engine.git.reason?.startsWith('git failed') === true;
  const history = head || failed ? read(engine.root, o) : Promise.resolve(none(engine.git.reason ?? 'not a git repository'));
  caches.set(engine, { head, history });
  return history;
}

function none(why: string, retryAt?: number): FileHistory {
  return { commits: 0, changes: [], bySubject: new Map(), churn: new Map(), subjects: new Map(), unavailable: why, ...(retryAt !== undefined ? { retryAt } : {}) };
}

async function read(root: string, o: HistoryReadOptions): Promise<FileHistory> {
  const timeoutMs = o.timeoutMs ?? RANK_HISTORY_TIMEOUT_MS;
  const r = await (o.run ?? git)(root, ['log', `-n${RANK_HISTORY_COMMITS}`, '--no-renames', '--relative', '--format=%x1e%s', '--name-only'], { timeoutMs, maxBytes: RANK_HISTORY_MAX_OUTPUT_BYTES });
  // Parsed in slices (3,000 commits of efcore held the engine thread ~0.6 s in one piece at load ~20).
  if (r.ok) return runStepsSliced(parseLogSteps(r.out));
  if (r.timedOut) return none(`git log took over ${timeoutMs} ms`, Date.now() + (o.retryMs ?? RANK_HISTORY_RETRY_MS));
  return none(r.missing ? 'git is not installed' : 'git log failed');
}

/** `git log --format=%x1e%s --name-only` output → churn and subject words per path. */
export function parseLog(out: string): FileHistory {
  return runSteps(parseLogSteps(out));
}

/** parseLog as steps (core/timeSlice.ts): one per commit. */
export function* parseLogSteps(out: string): Generator<void, FileHistory> {
  const churn = new Map<string, number>();
  const subjects = new Map<string, Map<string, number>>();
  const changes: FileHistory['changes'] = [];
  const bySubject = new Map<string, number[]>();
  let commits = 0;
  for (const block of out.split('\x1e')) {
    if (!block) continue;
    yield;
    const lines = block.split('\n');
    const subject = lines[0] ?? '';
    const files = lines.slice(1).map((l) => l.trim()).filter(Boolean);
    commits++;
    if (!files.length) continue;
    const stems = [...new Set(words(subject.replace(/\(#\d+\)\s*$/, '')).filter((w) => !QUESTION_STOP_WORDS.has(w)).map(stem))];
    const n = changes.length;
    changes.push({ stems, files });
    for (const st of stems) {
      let l = bySubject.get(st);
      if (!l) bySubject.set(st, (l = []));
      l.push(n);
    }
    for (const f of files) {
      churn.set(f, (churn.get(f) ?? 0) + 1);
      let m = subjects.get(f);
      if (!m) subjects.set(f, (m = new Map()));
      for (const s of stems) m.set(s, (m.get(s) ?? 0) + 1);
    }
  }
  return { commits, changes, bySubject, churn, subjects };
}

/**
 * Past commits whose subjects are most like the question (BM25 over the subjects, which are
 * short: no length normalisation), each voting for the files it changed — a commit that changed
 * many files spreads its vote over them. Returns file → vote, the best file at 1.
 */
export function historyVotes(h: FileHistory, terms: readonly { stem: string; weight: number }[], k: number): Map<string, number> {
  const n = h.changes.length;
  const score = new Map<number, number>();
  for (const t of terms) {
    const l = h.bySubject.get(t.stem);
    if (!l || !l.length) continue;
    const idf = Math.log(1 + (n - l.length + 0.5) / (l.length + 0.5));
    for (const c of l) score.set(c, (score.get(c) ?? 0) + t.weight * idf);
  }
  const top = [...score.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k);
  const votes = new Map<string, number>();
  for (const [c, s] of top) {
    const files = h.changes[c]!.files;
    const share = s / Math.sqrt(files.length);
    for (const f of files) votes.set(f, (votes.get(f) ?? 0) + share);
  }
  let max = 0;
  for (const v of votes.values()) max = Math.max(max, v);
  if (max > 0) for (const [f, v] of votes) votes.set(f, v / max);
  return votes;
}
