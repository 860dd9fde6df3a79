/**
 * Builds the history evaluation's question sets from merged pull requests of real repositories
 * (the mirrors under /work/.mirror, or any `--mirror-root` holding `<owner>+<name>/repo`):
 *
 *   npx tsx scripts/history-eval/build.ts [--mirror-root DIR] [--only owner+name,...]
 *
 * writes test/fixtures/history/<owner>+<name>.json — titles, commit ids and paths only, no code.
 * Per repository, the newest pull requests that pass the rules of rules.ts are taken, then grouped:
 * `perSnapshot` consecutive ones share one snapshot, the first-parent commit just before the oldest
 * of them (so the tree holds none of them, nor anything after), and their answer files are those
 * that exist in that snapshot. Each question:
 *   - locate: the title → the production files it changed;
 *   - related tests (when it changed test files that exist in the snapshot): the production files
 *     whose main type is asked (at most three, largest change first) → the test files it changed.
 * A question is in the `dev` or `test` split by a hash of repository and number (about half each):
 * the ranking is tuned on dev only; both are reported.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { git } from './snapshot';
import { cleanTitle, isBotAuthor, MAX_CHANGED_FILES, MAX_PRODUCTION_FILES, normalisedTitle, REPOS, roleOf, titleAccepted, type RepoConfig } from './rules';

export interface HistoryQuestion {
  /** Pull request number (or, for kind `commit`, the issue the commit fixes). */
  pr: number;
  kind: 'squash' | 'merge' | 'commit';
  title: string;
  /** The merge (or squash) commit. */
  commit: string;
  split: 'dev' | 'test';
  /** Production C# files it changed that exist in the snapshot, largest change first. */
  production: string[];
  /** Test C# files it changed that exist in the snapshot. */
  tests: string[];
  /** Files of the change, all kinds (for the record). */
  changedFiles: number;
}

export interface HistorySnapshot {
  /** The commit the questions are asked on (before all of them). */
  commit: string;
  date: string;
  questions: HistoryQuestion[];
}

export interface HistorySet {
  repo: string;
  branch: string;
  builtFrom: string;
  rules: string;
  snapshots: HistorySnapshot[];
}

export const FIXTURE_DIR = path.resolve(__dirname, '../../test/fixtures/history');

interface Candidate {
  commit: string;
  parent: string;
  pr: number;
  kind: HistoryQuestion['kind'];
  title: string;
  /** First-parent position (0 = newest). */
  pos: number;
  production: { path: string; lines: number }[];
  tests: string[];
  changedFiles: number;
}

function splitOf(repo: string, pr: number): 'dev' | 'test' {
  return crypto.createHash('sha1').update(`${repo}#${pr}`).digest()[0]! % 2 === 0 ? 'dev' : 'test';
}

function candidates(gitDir: string, cfg: RepoConfig, skipped: Map<string, number>): Candidate[] {
  const skip = (why: string) => skipped.set(why, (skipped.get(why) ?? 0) + 1);
  // Newest first; %x1f between fields, %x1e between commits.
  const log = git(gitDir, ['log', '--first-parent', '-n', '4000', '--format=%H%x1f%P%x1f%an <%ae>%x1f%s%x1f%b%x1e']);
  const out: Candidate[] = [];
  const seen = new Set<string>();
  let pos = -1;
  for (const rec of log.split('\x1e')) {
    // Enough to fill the groups even when some lose all their answers to the snapshot.
    if (out.length >= cfg.questions * 2 + 20) break;
    const [commit, parents, author, subject, body] = rec.replace(/^\n/, '').split('\x1f');
    if (!commit || !parents || subject === undefined) continue;
    pos++;
    const parent = parents.split(' ')[0]!;
    let kind: HistoryQuestion['kind'];
    let pr: number;
    let title: string;
    let m: RegExpMatchArray | null;
    if ((m = subject.match(/^Merge pull request #(\d+) from /))) {
      kind = 'merge';
      pr = Number(m[1]);
      title = (body ?? '').split('\n').map((l) => l.trim()).find((l) => l.length > 0) ?? '';
    } else if ((m = subject.match(/\(#(\d+)\)\s*$/))) {
      kind = 'squash';
      pr = Number(m[1]);
      title = subject;
    } else if (cfg.fixCommits && (m = subject.match(/^Fix(?:ed|es)? #(\d+)\s*[-:–]\s*(.+)$/i))) {
      kind = 'commit';
      pr = Number(m[1]);
      title = m[2]!;
    } else {
      skip('not a pull request');
      continue;
    }
    if (isBotAuthor(author ?? '')) {
      skip('bot author');
      continue;
    }
    title = cleanTitle(title);
    const bad = titleAccepted(title);
    if (bad) {
      skip(bad);
      continue;
    }
    const norm = normalisedTitle(title);
    if (seen.has(norm)) {
      skip('title seen already (backport)');
      continue;
    }
    // Changes against the first parent: the pull request's whole diff (a merge's too). `--raw` needs
    // no blob (the mirror lacks some large ones); a rename is its old path deleted and its new one added.
    const raw = git(gitDir, ['diff', '--raw', '-z', '--no-renames', parent, commit]).split('\0');
    const files: { path: string; lines: number }[] = [];
    for (let k = 0; k + 1 < raw.length; k += 2) if (raw[k]!.startsWith(':')) files.push({ path: raw[k + 1]!, lines: 0 });
    if (files.length > MAX_CHANGED_FILES) {
      skip(`more than ${MAX_CHANGED_FILES} files`);
      continue;
    }
    const prod = files.filter((f) => roleOf(f.path) === 'production');
    if (prod.length === 0) {
      skip('no production C# file');
      continue;
    }
    if (prod.length > MAX_PRODUCTION_FILES) {
      skip(`more than ${MAX_PRODUCTION_FILES} production files`);
      continue;
    }
    seen.add(norm);
    // Lines changed per production file (the largest change first); a file whose blob is missing counts 0.
    try {
      const num = git(gitDir, ['diff', '--numstat', '--no-renames', parent, commit, '--', ...prod.map((f) => f.path)]);
      for (const l of num.split('\n')) {
        const [add, del, name] = l.split('\t');
        const f = prod.find((x) => x.path === name);
        if (f) f.lines = (Number(add) || 0) + (Number(del) || 0);
      }
    } catch {
      /* keep 0 */
    }
    out.push({
      commit,
      parent,
      pr,
      kind,
      title,
      pos,
      production: prod.sort((a, b) => b.lines - a.lines || (a.path < b.path ? -1 : 1)),
      tests: files.filter((f) => roleOf(f.path) === 'test').map((f) => f.path),
      changedFiles: files.length,
    });
  }
  return out;
}

/** Paths of `paths` that exist at `commit`. */
function existing(gitDir: string, commit: string, paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  const out = git(gitDir, ['cat-file', '--batch-check=%(objecttype)'], paths.map((p) => `${commit}:${p}`).join('\n') + '\n').split('\n');
  return new Set(paths.filter((_, i) => out[i] === 'blob'));
}

export function buildRepo(mirrorRoot: string, cfg: RepoConfig): { set: HistorySet; skipped: Map<string, number> } {
  const gitDir = path.join(mirrorRoot, cfg.id, 'repo');
  const skipped = new Map<string, number>();
  const branch = git(gitDir, ['symbolic-ref', '--short', 'HEAD']).trim();
  const cands = candidates(gitDir, cfg, skipped);
  const snapshots: HistorySnapshot[] = [];
  let taken = 0;
  let i = 0;
  while (i < cands.length && taken < cfg.questions) {
    // A group of consecutive candidates (newest first); the snapshot is the parent of the oldest.
    const group: Candidate[] = [];
    let j = i;
    while (j < cands.length && group.length < cfg.perSnapshot && taken + group.length < cfg.questions) group.push(cands[j++]!);
    // Answers must exist in the snapshot: drop a candidate left without any, take the next one instead.
    for (;;) {
      const oldest = group[group.length - 1]!;
      const snap = oldest.parent;
      const kept: HistoryQuestion[] = [];
      for (const c of group) {
        const have = existing(gitDir, snap, [...c.production.map((p) => p.path), ...c.tests]);
        const production = c.production.map((p) => p.path).filter((p) => have.has(p));
        if (production.length === 0) {
          skipped.set('no production file exists before it (all added)', (skipped.get('no production file exists before it (all added)') ?? 0) + 1);
          continue;
        }
        kept.push({ pr: c.pr, kind: c.kind, title: c.title, commit: c.commit, split: splitOf(cfg.id, c.pr), production, tests: c.tests.filter((t) => have.has(t)), changedFiles: c.changedFiles });
      }
      if (kept.length < group.length && j < cands.length && taken + kept.length < cfg.questions) {
        // Refill the group from older candidates (the snapshot moves back with its oldest member).
        const need = group.length - kept.length;
        const keep = new Set(kept.map((k) => k.commit));
        const rest = group.filter((g) => keep.has(g.commit));
        group.length = 0;
        group.push(...rest);
        for (let n = 0; n < need && j < cands.length; n++) group.push(cands[j++]!);
        continue;
      }
      const date = git(gitDir, ['log', '-1', '--format=%cI', snap]).trim();
      snapshots.push({ commit: snap, date, questions: kept });
      taken += kept.length;
      break;
    }
    i = j;
  }
  return {
    set: { repo: cfg.id, branch, builtFrom: `first-parent history of ${branch} up to ${cands[0]?.commit ?? '?'}`, rules: 'scripts/history-eval/rules.ts', snapshots },
    skipped,
  };
}

function main(): void {
  const args = process.argv.slice(2);
  let mirrorRoot = '/work/.mirror';
  let only: string[] | undefined;
  for (let k = 0; k < args.length; k++) {
    if (args[k] === '--mirror-root') mirrorRoot = args[++k]!;
    else if (args[k] === '--only') only = args[++k]!.split(',');
    else throw new Error(`unknown argument ${args[k]}`);
  }
  fs.mkdirSync(FIXTURE_DIR, { recursive: true });
  for (const cfg of REPOS) {
    if (only && !only.includes(cfg.id)) continue;
    const { set, skipped } = buildRepo(mirrorRoot, cfg);
    const qs = set.snapshots.flatMap((s) => s.questions);
    fs.writeFileSync(path.join(FIXTURE_DIR, `${cfg.id}.json`), JSON.stringify(set, null, 1) + '\n');
    const withTests = qs.filter((q) => q.tests.length > 0).length;
    process.stdout.write(
      `${cfg.id}: ${qs.length} questions (${qs.filter((q) => q.split === 'dev').length} dev), ${withTests} with tests, ${set.snapshots.length} snapshots; skipped: ${[...skipped.entries()].map(([k, v]) => `${k} ${v}`).join(', ')}\n`,
    );
  }
}

if (require.main === module) main();
