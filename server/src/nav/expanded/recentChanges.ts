/**
 * recent_changes: what changed in the working tree (unstaged, staged, untracked) and, with
 * `since`, in the commits since a ref or a date — one row per changed file, each changed hunk
 * mapped to the declaration it touches (the symbol_at machinery on the file's current outline),
 * grouped by project with production before test. Only read-only git (see git.ts). Without git,
 * the files changed on disk since they were indexed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../../core/errors';
import * as L from '../../core/limits';
import type { OutlineSymbol } from '../../syntax/types';
import { languageForPath } from '../../syntax/languageConfig';
import type { Engine } from '../engine';
import { projectGraph } from '../projects';
import { fileOutline } from '../syntaxOutline';
import { isTestFile } from '../testLabels';
import { git, parseNameStatus, parseNumstat, parseUnifiedDiff, type Hunk } from './git';

/** Where a file's change is: in commits since the base, staged, unstaged, untracked. */
export type ChangeWhere = 'commit' | 'staged' | 'unstaged' | 'untracked';

export interface ChangedFile {
  path: string;
  /** Project id ('' when no project owns it). */
  project: string;
  test: boolean;
  /** A added, M modified, D deleted, T type changed (of the whole range base → working tree). */
  status: string;
  where: ChangeWhere[];
  /** Lines added / removed (base → working tree; untracked: the file's lines). */
  added: number;
  removed: number;
  /** Declarations the hunks touch: "kind Container.Name L10-20" (innermost at each changed line). */
  symbols: string[];
  /** Changed lines outside every declaration (usings, imports, top-level statements). */
  outside?: number;
  /** Declarations touched beyond RECENT_CHANGES_SYMBOLS_PER_FILE. */
  moreSymbols?: number;
}

export interface CommitInfo {
  sha: string;
  date: string;
  subject: string;
}

export interface RecentChanges {
  git: boolean;
  /** Why git is not used (not installed, not a repository). */
  reason?: string;
  /** The resolved base: a commit sha, or undefined (HEAD / working tree only). */
  base?: string;
  since?: string;
  commits: CommitInfo[];
  /** Commits in the range (the list above is bounded). */
  commitCount: number;
  /** The commit walk stopped at RECENT_CHANGES_MAX_COMMITS. */
  commitsCapped?: boolean;
  files: ChangedFile[];
  /** Files beyond RECENT_CHANGES_MAX_FILES (not listed). */
  filesCapped?: number;
  /** Files whose declarations were not mapped (unsupported language, too large, deadline). */
  unmapped: number;
  deadline?: boolean;
  /**
   * Untracked files were found among the files the index walk knows (a big tree; see
   * untrackedFiles): folders the index excludes (bin/, obj/, node_modules/…) and files over its
   * size cap were not looked at.
   */
  untrackedFromIndex?: boolean;
}

export interface RecentChangesQuery {
  scope?: string | undefined;
  since?: string | undefined;
  deadlineAt: number;
  /** How untracked files are found: `auto` (default) by the tree's size, `git` git's own walk, `index` the index's files (bench). */
  untracked?: 'auto' | 'git' | 'index';
  /** `full`: every diff walks the whole tree, as before the two phases (the bench's baseline). */
  diffPasses?: 'changed' | 'full';
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const RELATIVE = /^(\d+)\s*(second|minute|hour|day|week|month|year)s?(\s+ago)?$/i;
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** A `since` that is a date: epoch ms, or undefined when it is not date-shaped (then it is a ref). Throws on a date-shaped string that does not parse. */
export function parseSinceDate(since: string, now = Date.now()): number | undefined {
  const s = since.trim();
  const rel = RELATIVE.exec(s);
  if (rel) {
    const n = Number(rel[1]);
    const unit = { second: 1e3, minute: 6e4, hour: 36e5, day: 864e5, week: 6048e5, month: 2592e6, year: 31536e6 }[rel[2]!.toLowerCase() as 'day'];
    return now - n * unit;
  }
  if (/^(yesterday|today)$/i.test(s)) return now - (s.toLowerCase() === 'yesterday' ? 864e5 : 0) - (now % 864e5);
  if (DATE_LIKE.test(s) || /^\d{4}-\d{1,2}-\d{1,2}/.test(s)) {
    const t = Date.parse(s);
    if (Number.isNaN(t) || !DATE_LIKE.test(s)) {
      throw new ToolError('INVALID_ARGUMENT', `'since' (${s.slice(0, 60)}) is not a date this tool reads`, "pass a commit, branch or tag, an ISO date (2026-11-30 or 2026-11-30T14:00Z) or a relative one ('3 days ago')");
    }
    return t;
  }
  return undefined;
}

function refShapeProblem(s: string): boolean {
  return s.startsWith('-') || /[\s~^:?*[\\]/.test(s.replace(/[~^]\d*$/g, '')) || s.includes('..') || s.length > 200;
}

export async function recentChanges(engine: Engine, q: RecentChangesQuery): Promise<RecentChanges> {
  const scope = resolveScope(engine, q.scope);
  const since = q.since?.trim() || undefined;
  const sinceDate = since === undefined ? undefined : parseSinceDate(since);
  if (since !== undefined && sinceDate === undefined && refShapeProblem(since)) {
    throw new ToolError('INVALID_ARGUMENT', `'since' (${since.slice(0, 60)}) is neither a ref nor a date`, "pass a commit sha, branch or tag (e.g. main, HEAD~3, v1.2) or a date (2026-11-30, '3 days ago')");
  }
  const top = await git(engine.root, ['rev-parse', '--is-inside-work-tree']);
  if (!top.ok || top.out.trim() !== 'true') {
    const reason = !top.ok && top.missing ? 'git is not installed' : 'the workspace is not in a git repository';
    if (since !== undefined && sinceDate === undefined) {
      throw new ToolError('INVALID_ARGUMENT', `'since' names a ref (${since.slice(0, 60)}) but ${reason}`, "without git pass a date ('2 days ago') or no since: files changed since the last index are listed");
    }
    return withoutGit(engine, scope, reason, sinceDate, q.deadlineAt);
  }
  const headR = await git(engine.root, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  const head = headR.ok ? headR.out.trim() : undefined;
  let base = head ?? EMPTY_TREE;
  const commits: CommitInfo[] = [];
  let commitCount = 0;
  let commitsCapped = false;
  if (since !== undefined) {
    if (!head) throw new ToolError('INVALID_ARGUMENT', `'since' (${since.slice(0, 60)}) given, but the repository has no commit yet`, 'drop since: the working tree is listed');
    let range: string[];
    if (sinceDate === undefined) {
      const r = await git(engine.root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${since}^{commit}`]);
      if (!r.ok || !r.out.trim()) throw new ToolError('REF_NOT_FOUND', `No commit, branch or tag '${since.slice(0, 60)}' in this repository`, "check the name (git branch -a, git tag), or pass a date ('2 days ago')");
      const sha = r.out.trim();
      range = [`${sha}..HEAD`];
      // The diff base is where HEAD forked from the ref (the ref itself when it is an ancestor):
      // a branch's changes since `main`, not main's own later changes undone.
      const mb = await git(engine.root, ['merge-base', sha, 'HEAD']);
      base = mb.ok && mb.out.trim() ? mb.out.trim() : sha;
    } else {
      range = [`--since=@${Math.floor(sinceDate / 1000)}`, 'HEAD'];
    }
    const log = await git(engine.root, ['log', `--max-count=${L.RECENT_CHANGES_MAX_COMMITS + 1}`, '--format=%H%x1f%cI%x1f%s%x1e', ...range]);
    if (log.ok) {
      const all = log.out.split('\x1e').map((x) => x.trim()).filter(Boolean).map((x) => x.split('\x1f'));
      commitsCapped = all.length > L.RECENT_CHANGES_MAX_COMMITS;
      const inRange = all.slice(0, L.RECENT_CHANGES_MAX_COMMITS);
      commitCount = inRange.length;
      for (const c of inRange.slice(0, L.RECENT_CHANGES_COMMITS_LISTED)) commits.push({ sha: c[0]!.slice(0, 10), date: c[1]!, subject: (c[2] ?? '').slice(0, 120) });
      if (sinceDate !== undefined) {
        // The base of a date range: the parent of the oldest commit in it (the empty tree for a root commit).
        const oldest = inRange[inRange.length - 1]?.[0];
        if (!oldest) base = head;
        else {
          const p = await git(engine.root, ['rev-parse', '--verify', '--quiet', `${oldest}^1`]);
          base = p.ok && p.out.trim() ? p.out.trim() : EMPTY_TREE;
        }
      }
    }
  }
  const pathspec = scope.rel ? ['--', `:(literal)${scope.rel}`] : [];
  const diffArgs = ['--no-color', '--no-ext-diff', '--no-textconv', '--no-renames', '--relative'];
  const none = Promise.resolve({ ok: true as const, out: '' });
  const perFile = (only: string[]) =>
    Promise.all([
      git(engine.root, ['diff', '-U0', ...diffArgs, base, ...only]),
      git(engine.root, ['diff', '--name-status', '-z', ...diffArgs, base, ...only]),
      git(engine.root, ['diff', '--numstat', '-z', ...diffArgs, ...only]),
    ]);
  // The bench's baseline: every diff over the whole tree at once, as before the two phases.
  const early = q.diffPasses === 'full' ? perFile(pathspec) : undefined;
  // Phase 1: which files differ from the base (the one pass that stats the whole tree; --numstat
  // compares content), what is staged (index vs HEAD: no tree walk), untracked files, commits.
  const [numAll, staged, untracked, committed] = await Promise.all([
    git(engine.root, ['diff', '--numstat', '-z', ...diffArgs, base, ...pathspec]),
    head ? git(engine.root, ['diff', '--cached', '--numstat', '-z', ...diffArgs, ...pathspec]) : git(engine.root, ['ls-files', '-z', '--cached', ...pathspec]),
    untrackedFiles(engine, scope.rel, pathspec, q.untracked ?? 'auto'),
    since !== undefined && base !== head ? git(engine.root, ['diff', '--numstat', '-z', ...diffArgs, base, 'HEAD', ...pathspec]) : none,
  ]);
  if (!numAll.ok) throw new ToolError('INTERNAL', `git diff failed: ${numAll.error}`, numAll.tooLarge ? 'narrow with scope or a later since' : 'run git status in the workspace to see what git says');
  // Phase 2: hunks, statuses and unstaged changes of just those files (each would stat the whole
  // tree again: four passes over a 43k-file tree cost ~1 s on a loaded machine, one ~0.2 s).
  const differing = [...parseNumstat(numAll.out).keys()];
  const [diff, nameAll, unstaged] = early
    ? await early
    : differing.length === 0
      ? [await none, await none, await none]
      : await perFile(differing.length > L.RECENT_CHANGES_PATHSPEC_MAX_FILES ? pathspec : ['--', ...differing.map((p) => `:(literal)${p}`)]);
  for (const r of [diff, nameAll]) {
    if (!r.ok) throw new ToolError('INTERNAL', `git diff failed: ${r.error}`, r.tooLarge ? 'narrow with scope or a later since' : 'run git status in the workspace to see what git says');
  }
  // --numstat compares content: a file whose stat changed but whose content did not is not listed.
  const counts = parseNumstat(numAll.ok ? numAll.out : '');
  const status = parseNameStatus(nameAll.ok ? nameAll.out : '');
  const hunks = parseUnifiedDiff(diff.ok ? diff.out : '');
  const keys = (r: { ok: boolean; out?: string }) => new Set(r.ok && r.out ? parseNumstat(r.out).keys() : []);
  const sets = {
    commit: keys(committed),
    staged: head ? keys(staged) : nameSet(staged),
    unstaged: keys(unstaged),
  };
  const untrackedSet = nameSet(untracked);
  const fromIndex = untracked.ok && untracked.fromIndex;
  const paths = new Set<string>([...counts.keys(), ...untrackedSet]);
  const indexDir = indexDirRel(engine);
  const rows: Omit<ChangedFile, 'project' | 'test'>[] = [];
  for (const p of paths) {
    if (indexDir && (p === indexDir || p.startsWith(indexDir + '/'))) continue;
    const where: ChangeWhere[] = [];
    if (sets.commit.has(p)) where.push('commit');
    if (sets.staged.has(p)) where.push('staged');
    if (sets.unstaged.has(p)) where.push('unstaged');
    if (untrackedSet.has(p)) where.push('untracked');
    if (where.length === 0) continue; // changed and changed back
    const [added, removed] = counts.get(p) ?? [0, 0];
    const st = untrackedSet.has(p) ? 'A' : (status.get(p) ?? 'M');
    rows.push({ path: p, status: st, where, added, removed, symbols: [] });
  }
  // Untracked files have no diff: the whole file is new.
  return finish(engine, rows, hunks, untrackedSet, q.deadlineAt, {
    git: true,
    ...(base !== head ? { base: base === EMPTY_TREE ? 'empty tree' : base.slice(0, 10) } : {}),
    ...(since !== undefined ? { since } : {}),
    commits,
    commitCount,
    ...(commitsCapped ? { commitsCapped } : {}),
    ...(fromIndex ? { untrackedFromIndex: true } : {}),
  });
}

/**
 * Untracked, not ignored files (NUL-separated, as `git ls-files -z` prints). On a small tree git's
 * own walk (`ls-files --others --exclude-standard`). On a big one that walk is the slowest git
 * command of the answer (the whole tree read again, ~0.3 s idle and seconds on a loaded machine at
 * 43k files), so the walk the engine already did is used: the files it knows (and the watcher's
 * changed paths still on disk) minus git's tracked files (`ls-files --cached`, the index alone),
 * then `check-ignore --stdin` on just those. Folders the index excludes are not looked at; the
 * answer says so (`fromIndex`).
 */
async function untrackedFiles(engine: Engine, scopeRel: string, pathspec: string[], how: 'auto' | 'git' | 'index'): Promise<GitRunOk | { ok: false; error: string }> {
  const known = engine.catalog().all();
  const walk = () => git(engine.root, ['ls-files', '-z', '--others', '--exclude-standard', ...pathspec]);
  if (how === 'git' || (how === 'auto' && known.length < L.RECENT_CHANGES_UNTRACKED_GIT_WALK_MAX_FILES)) return walk();
  const tracked = await git(engine.root, ['ls-files', '-z', '--cached', ...pathspec]);
  if (!tracked.ok) return walk();
  const inTracked = nameSet(tracked);
  const under = scopeRel ? `${scopeRel}/` : '';
  const inScope = (p: string) => !scopeRel || p === scopeRel || p.startsWith(under);
  const candidates = new Set<string>();
  for (const f of known) if (inScope(f.path) && !inTracked.has(f.path)) candidates.add(f.path);
  for (const p of engine.pendingPaths()) if (inScope(p) && !inTracked.has(p) && fs.existsSync(path.join(engine.root, p))) candidates.add(p);
  // Files of a nested repository or submodule are not the outer index's (git's walk stops at them).
  const nested = new Map<string, boolean>();
  const inNested = (p: string): boolean => {
    for (let d = path.posix.dirname(p); d !== '.' && d !== ''; d = path.posix.dirname(d)) {
      let v = nested.get(d);
      if (v === undefined) nested.set(d, (v = fs.existsSync(path.join(engine.root, d, '.git'))));
      if (v) return true;
    }
    return false;
  };
  const list = [...candidates].filter((p) => !inNested(p));
  if (list.length === 0) return { ok: true, out: '', fromIndex: true };
  const ignored = await git(engine.root, ['check-ignore', '-z', '--stdin'], { input: list.join('\0') + '\0', okCodes: [1] });
  if (!ignored.ok) return walk();
  const out = nameSet(ignored);
  return { ok: true, out: list.filter((p) => !out.has(p)).join('\0'), fromIndex: true };
}

type GitRunOk = { ok: true; out: string; fromIndex?: boolean };

function nameSet(r: { ok: boolean; out?: string }): Set<string> {
  return new Set(r.ok && r.out ? r.out.split('\0').filter(Boolean) : []);
}

function indexDirRel(engine: Engine): string | undefined {
  if (!engine.indexRoot) return undefined;
  const rel = path.relative(engine.root, engine.indexRoot).split(path.sep).join('/');
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : undefined;
}

/** The scope: a workspace path prefix ('' = all); a path outside the workspace is refused by the path policy. */
function resolveScope(engine: Engine, scope: string | undefined): { rel: string } {
  if (scope === undefined || scope === '' || scope === '.') return { rel: '' };
  const r = engine.policy.resolve(scope);
  if (!r.exists) {
    // A project name: its folder.
    const g = projectGraph(engine);
    const p = g?.projects.find((x) => x.name === scope || x.id === scope);
    if (p) return { rel: dirOf(p.id) };
  }
  return { rel: r.rel };
}

const dirOf = (id: string) => (id.includes('/') ? id.slice(0, id.lastIndexOf('/')) : '');

/** Without git: the files the watcher saw change, plus indexed files whose size or mtime differ (or are newer than `since`). */
function withoutGit(engine: Engine, scope: { rel: string }, reason: string, sinceDate: number | undefined, deadlineAt: number): Promise<RecentChanges> {
  const inScope = (p: string) => !scope.rel || p === scope.rel || p.startsWith(scope.rel + '/');
  const rows: Omit<ChangedFile, 'project' | 'test'>[] = [];
  const seen = new Set<string>();
  const cat = engine.catalog();
  for (const p of engine.pendingPaths()) {
    if (!inScope(p) || seen.has(p)) continue;
    seen.add(p);
    rows.push({ path: p, status: cat.byRelPath(p) ? (fs.existsSync(path.join(engine.root, p)) ? 'M' : 'D') : 'A', where: [], added: 0, removed: 0, symbols: [] });
  }
  let stats = 0;
  for (const row of cat.all()) {
    if (!inScope(row.path) || seen.has(row.path)) continue;
    if (++stats > L.RECENT_CHANGES_MAX_STATS || Date.now() > deadlineAt) break;
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(path.join(engine.root, row.path));
    } catch {
      st = undefined;
    }
    const changed = !st ? true : sinceDate !== undefined ? st.mtimeMs >= sinceDate : st.size !== row.size || Math.floor(st.mtimeMs) !== row.mtimeMs;
    if (!changed) continue;
    seen.add(row.path);
    rows.push({ path: row.path, status: st ? 'M' : 'D', where: [], added: 0, removed: 0, symbols: [] });
  }
  return finish(engine, rows, new Map(), new Set(rows.map((r) => r.path)), deadlineAt, { git: false, reason, ...(sinceDate !== undefined ? { since: new Date(sinceDate).toISOString() } : {}), commits: [], commitCount: 0 });
}

/** Maps hunks to declarations, adds project and test, sorts by project, production first, path. */
async function finish(engine: Engine, rows: Omit<ChangedFile, 'project' | 'test'>[], hunks: Map<string, Hunk[]>, whole: ReadonlySet<string>, deadlineAt: number, head: Omit<RecentChanges, 'files' | 'unmapped'>): Promise<RecentChanges> {
  rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  let filesCapped: number | undefined;
  if (rows.length > L.RECENT_CHANGES_MAX_FILES) {
    filesCapped = rows.length - L.RECENT_CHANGES_MAX_FILES;
    rows = rows.slice(0, L.RECENT_CHANGES_MAX_FILES);
  }
  const g = projectGraph(engine);
  const projectDirs = (g?.projects ?? []).filter((p) => p.kind !== 'tsconfig').map((p) => ({ id: p.id, dir: dirOf(p.id) })).sort((a, b) => b.dir.length - a.dir.length);
  let unmapped = 0;
  let deadline = false;
  const out: ChangedFile[] = [];
  for (const r of rows) {
    const entries = g?.files.get(r.path) ?? [];
    const byKind = entries.map((e) => e.project).filter((id) => !id.endsWith('tsconfig.json') && !/tsconfig[^/]*\.json$/.test(id));
    const project = byKind[0] ?? projectDirs.find((p) => p.dir === '' || r.path.startsWith(p.dir + '/'))?.id ?? '';
    const fileClass = engine.catalog().byRelPath(r.path)?.fileClass;
    const test = isTestFile(engine, r.path, { ...(project ? { primaryProject: project } : {}), ...(fileClass ? { fileClass } : {}) });
    const f: ChangedFile = { ...r, project, test };
    const untrackedWhole = whole.has(r.path) && f.where.includes('untracked');
    const noDiff = whole.has(r.path);
    if (f.status !== 'D' && languageForPath(r.path)) {
      if (Date.now() > deadlineAt - L.RECENT_CHANGES_DEADLINE_MARGIN_MS) {
        deadline = true;
        unmapped++;
      } else {
        try {
          const o = await fileOutline(engine, r.path);
          if (untrackedWhole) f.added = o.lines;
          mapHunks(f, o.symbols, noDiff ? [] : (hunks.get(r.path) ?? []), noDiff);
        } catch {
          unmapped++;
        }
      }
    }
    out.push(f);
  }
  out.sort((a, b) => (a.project < b.project ? -1 : a.project > b.project ? 1 : 0) || Number(a.test) - Number(b.test) || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { ...head, files: out, ...(filesCapped ? { filesCapped } : {}), unmapped, ...(deadline ? { deadline } : {}) };
}

/**
 * The declarations a file's hunks touch: for each changed line range, every declaration that is
 * innermost at one of its lines (a hunk over two methods names both; a line in a class between
 * members names the class). A pure removal names the declaration around the removal point. A
 * whole new file (`topOnly`) names its outermost declarations below namespaces.
 */
export function mapHunks(f: ChangedFile, symbols: readonly OutlineSymbol[], hs: readonly Hunk[], topOnly: boolean): void {
  const hit = new Set<number>();
  let outside = 0;
  if (topOnly) {
    for (let i = 0; i < symbols.length; i++) {
      const s = symbols[i]!;
      const parent = s.parent >= 0 ? symbols[s.parent] : undefined;
      if (s.kind !== 'namespace' && s.kind !== 'module' && s.kind !== 'package' && (!parent || parent.kind === 'namespace' || parent.kind === 'module' || parent.kind === 'package')) hit.add(i);
    }
  } else {
    for (const h of hs) {
      const a = h.count === 0 ? Math.max(h.start, 1) : h.start;
      const b = h.count === 0 ? a : h.start + h.count - 1;
      // Innermost per line, walking runs of lines (bounded: a hunk is at most the file).
      let line = a;
      while (line <= b) {
        const inner = innermost(symbols, line);
        if (inner < 0) {
          // Lines up to the next declaration start are outside every declaration.
          const next = nextStart(symbols, line, b);
          outside += next - line;
          line = next;
          continue;
        }
        hit.add(inner);
        const s = symbols[inner]!;
        // Skip to the end of this declaration or the next nested start within it, whichever is first.
        const child = nextChildStart(symbols, inner, line, b);
        line = Math.min(s.endLine + 1, child);
      }
    }
  }
  const list = [...hit].sort((x, y) => x - y).map((i) => symbols[i]!);
  f.symbols = list.slice(0, L.RECENT_CHANGES_SYMBOLS_PER_FILE).map((s) => `${s.kind} ${s.container ? s.container + '.' : ''}${s.name} L${s.line}${s.endLine !== s.line ? '-' + s.endLine : ''}`);
  if (list.length > L.RECENT_CHANGES_SYMBOLS_PER_FILE) f.moreSymbols = list.length - L.RECENT_CHANGES_SYMBOLS_PER_FILE;
  if (outside > 0 && !topOnly) f.outside = outside;
}

function innermost(symbols: readonly OutlineSymbol[], line: number): number {
  let best = -1;
  for (let i = 0; i < symbols.length; i++) {
    const s = symbols[i]!;
    if (line < s.line || line > s.endLine) continue;
    // A namespace is never "the declaration a hunk touches": a line directly in it is outside.
    if (s.kind === 'namespace') continue;
    const b = best >= 0 ? symbols[best]! : undefined;
    if (!b || s.depth > b.depth || (s.depth === b.depth && s.line >= b.line)) best = i;
  }
  return best;
}

function nextStart(symbols: readonly OutlineSymbol[], line: number, b: number): number {
  let next = b + 1;
  for (const s of symbols) if (s.kind !== 'namespace' && s.line > line && s.line < next) next = s.line;
  return next;
}

function nextChildStart(symbols: readonly OutlineSymbol[], parent: number, line: number, b: number): number {
  let next = b + 1;
  for (let i = parent + 1; i < symbols.length; i++) {
    const s = symbols[i]!;
    if (s.parent === parent && s.line > line && s.line < next) next = s.line;
  }
  return next;
}
