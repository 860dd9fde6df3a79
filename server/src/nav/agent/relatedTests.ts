/**
 * related_tests: the test methods likely to cover a symbol, each with its reasons and a confidence,
 * ranked. Evidence, strongest first:
 * - `reference`: a reference to the symbol inside a test method (precise when the provider is);
 * - `caller`: a test method calling one of the symbol's callers (call hierarchy, up to a depth);
 * - `mention`: the symbol's name written in a test method (text index, verified on the live file;
 *   used only when the references are not complete and precise, or backed by git co-change);
 * - `naming`: the test file is named after the symbol's type or file (`ShipTests.cs`,
 *   `fleetService.test.ts`), and for a member the test's name contains the member's;
 * - `naming`: also a test file whose name says the words of the type's (`ConfigurationValidation`
 *   for `ConfigurationValidator`, `StateManagerTests` for `JournaledStateManager`: the ranking
 *   index's name fields, nav/ranking/);
 * - `cochange`: the test file changed in the same commits as the symbol's file (git, bounded) — the
 *   best ranked co-changed files give their tests even when they never name the symbol;
 * - `project`: the test project references the symbol's project (a reason on rows, not a source).
 * Each reason starts with the signal that gave it (`reference: …`, `cochange: …`). Test files are
 * ranked by their evidence (testFileScore.ts), and the order spreads over files: every file's first
 * RELATED_TESTS_PER_FILE_TIER rows come before any file's next ones (then file evidence, score,
 * path, line, name), so a first page names the test files that matter instead of one file's every
 * test.
 * Rows are test methods (xunit [Fact]/[Theory], NUnit [Test]/[TestCase], MSTest [TestMethod],
 * mocha/jest/vitest `it`/`test`, or convention-only public methods of a `…Tests` class) with the
 * command that runs each alone when the framework is known. The whole ranked list is computed once
 * and paged by offset.
 */
import {
  RELATED_TESTS_CALLER_DEPTH,
  RELATED_TESTS_CALLER_EDGES,
  RELATED_TESTS_CALLER_WALK_MS,
  RELATED_TESTS_COCHANGE_FILES,
  RELATED_TESTS_MAX_ROWS,
  RELATED_TESTS_NAMED_FILES,
  RELATED_TESTS_PER_FILE_TIER,
  RELATED_TESTS_TEXT_FILES,
} from '../../core/limits';
import { timeSlice } from '../../core/timeSlice';
import { matchFiles } from '../../index/textIndex';
import type { NavigationMode } from '../../semantic/provider';
import type { Engine } from '../engine';
import { projectGraph } from '../projects';
import { currentRanking, similarlyNamed, type Ranking } from '../ranking/fileRanking';
import { callsQuery, referencesQuery, type AmbiguousAnswer, type NavOptions } from '../semanticQueries';
import { resolveTarget, type ResolvedTarget, type TargetInput, type TargetRef, type TargetSelection } from '../semanticTarget';
import { symbolIds } from '../symbolIds';
import { coChange } from './coChange';
import { nameWords, testFileScore } from './testFileScore';
import { CALLABLE, isTestCode, runCommand, testAt, testMethodsOf, testsOfTypeAt, type TestFramework, type TestMethod } from './testMethods';

export type TestConfidence = 'exact' | 'likely' | 'possible';

/** One row of related_tests: a test method. */
export interface RelatedTest {
  /** The test method's name (TS/JS: the `it`/`test` title). */
  name: string;
  /** Its class (C#) or describe blocks (TS/JS). */
  container?: string;
  path: string;
  line: number;
  endLine: number;
  /** The project compiling / owning the test file. */
  project?: string;
  framework?: TestFramework;
  confidence: TestConfidence;
  /** 0-100, the ranking key. */
  score: number;
  reasons: string[];
  /** Runs this test alone (framework known). */
  run?: string;
  target_ref: TargetRef;
}

/** How each source of evidence went (said once per answer). */
export interface RelatedTestSignals {
  references: string;
  callers: string;
  text: string;
  naming: string;
  git: string;
  projects: string;
}

export interface RelatedTestsAnswer {
  name: string;
  target_selection: TargetSelection;
  /** The references' mode; precise_partial when they are precise but the caller walk is not (or was cut). */
  mode: NavigationMode;
  provider?: string;
  reason?: string;
  gaps: string[];
  rows: RelatedTest[];
  signals: RelatedTestSignals;
  /** More tests than RELATED_TESTS_MAX_ROWS were found (the lowest ranked were dropped). */
  truncated?: 'cap';
}

export interface RelatedTestsOptions extends NavOptions {
  /** Caller hops (default RELATED_TESTS_CALLER_DEPTH). */
  depth?: number;
  /** Rows kept at most (default RELATED_TESTS_MAX_ROWS). */
  maxRows?: number;
  /** The target's references (includeDefinition false), when the caller asked them already (impact). */
  references?: Awaited<ReturnType<typeof referencesQuery>>;
}

type EvidenceKind = 'reference' | 'caller' | 'mention' | 'naming' | 'cochange';

interface Candidate {
  test: TestMethod;
  best: number;
  kinds: Set<EvidenceKind>;
  exact: boolean;
  reasons: string[];
}

const TYPE_KINDS = new Set(['class', 'struct', 'interface', 'record', 'enum', 'trait', 'module', 'testSuite']);

/**
 * The tests of a symbol, ranked (usable without MCP: context_pack calls it for "closest tests").
 * An ambiguous target returns its candidates; an unresolvable one throws TARGET_NOT_FOUND /
 * STALE_TARGET (ToolError) as the navigation queries do.
 */
export async function relatedTests(engine: Engine, target: TargetInput, o: RelatedTestsOptions = {}): Promise<RelatedTestsAnswer | AmbiguousAnswer> {
  const t = resolveTarget(engine, target);
  if ('ambiguous' in t) return { ambiguous: true, target_selection: t.selection };
  const sym = t.selection.symbol;
  const kind = sym?.kind ?? '';
  const name = sym?.name ?? t.name;
  const depth = o.depth ?? RELATED_TESTS_CALLER_DEPTH;
  const maxRows = o.maxRows ?? RELATED_TESTS_MAX_ROWS;
  const nav: NavOptions = { ...(o.deadlineAt !== undefined ? { deadlineAt: o.deadlineAt } : {}), ...(o.waitForReadyMs !== undefined ? { waitForReadyMs: o.waitForReadyMs } : {}) };
  const git = coChange(engine, t.position.path);
  // A turn for other calls between files (a test file's methods, a read for mentions): one related_tests
  // inside context_pack held the engine thread 1.3 s on efcore at load ~20.
  const slice = timeSlice();
  const found = new Map<string, Candidate>();
  const add = (test: TestMethod, k: EvidenceKind, score: number, text: string, exact = false) => {
    const key = `${test.path}\0${test.symbol.ordinal}`;
    let c = found.get(key);
    if (!c) found.set(key, (c = { test, best: 0, kinds: new Set(), exact: false, reasons: [] }));
    c.best = Math.max(c.best, score);
    c.kinds.add(k);
    c.exact ||= exact;
    const reason = `${k}: ${text}`;
    if (!c.reasons.includes(reason)) c.reasons.push(reason);
  };

  // 1. References from test code.
  const refs = o.references ?? (await referencesQuery(engine, target, { ...nav, includeDefinition: false }));
  if ('ambiguous' in refs) return { ambiguous: true, target_selection: refs.target_selection };
  const precise = refs.mode === 'precise' || refs.mode === 'precise_partial';
  const refWord = precise ? 'precise' : 'heuristic';
  let testRefs = 0;
  for (const r of refs.rows) {
    if (!r.isTest) continue;
    await slice();
    testRefs++;
    const test = testAt(engine, r.path, r.line);
    if (test) {
      add(test, 'reference', precise ? 100 : 60, `references ${name} at line ${r.line} (${refWord})`, precise);
      continue;
    }
    // Outside any test: a fixture's field, constructor or [SetUp] (or a describe body) — its tests use it.
    const fixture = testsOfTypeAt(engine, r.path, r.line);
    if (fixture) for (const x of fixture.tests) add(x, 'reference', precise ? 80 : 50, `its ${fixture.type.kind === 'testSuite' ? 'describe block' : 'class'} references ${name} at line ${r.line}, outside the tests (${refWord})`);
  }
  const signals: RelatedTestSignals = {
    references: `${refs.mode}: ${testRefs} of ${refs.rows.length} references in test code`,
    callers: 'not run (not a callable member)',
    text: precise && refs.mode === 'precise' ? 'not needed (references precise)' : 'none',
    naming: 'none',
    git: '',
    projects: 'none',
  };

  // 2. Tests calling the symbol's callers.
  let mode: NavigationMode = refs.mode;
  const gaps = [...refs.gaps];
  if (CALLABLE.has(kind) && depth >= 2) {
    const walkEnd = Math.min(o.deadlineAt ?? Infinity, Date.now() + RELATED_TESTS_CALLER_WALK_MS);
    const calls = await callsQuery(engine, target, 'incoming', depth, RELATED_TESTS_CALLER_EDGES, { ...nav, deadlineAt: walkEnd });
    if (!('ambiguous' in calls)) {
      // Precise references with a caller walk that is not (or was cut): precise, but partial.
      if ((mode === 'precise' || mode === 'precise_partial') && (calls.mode !== 'precise' || calls.truncated === 'deadline')) {
        mode = 'precise_partial';
        gaps.push(calls.truncated === 'deadline' ? `the caller walk stopped after ${RELATED_TESTS_CALLER_WALK_MS} ms: tests of further callers may be missing` : `the caller walk answered ${calls.mode}${calls.reason ? ` (${calls.reason})` : ''}: tests found through callers are not exact`);
      }
      for (const x of calls.gaps) if (!gaps.includes(x)) gaps.push(x);
      const exact = calls.mode === 'precise' || calls.mode === 'precise_partial';
      let n = 0;
      for (const e of calls.edges) {
        if (e.depth < 2 || !e.caller.isTest) continue;
        await slice();
        for (const s of e.sites) {
          const test = testAt(engine, e.caller.path, s.line);
          if (!test) continue;
          n++;
          add(test, 'caller', exact ? 90 - 10 * (e.depth - 2) : 50, `calls ${e.callee.name ?? 'a caller'}, which calls ${name} (${exact ? 'precise' : 'heuristic'}, depth ${e.depth})`, exact);
        }
      }
      signals.callers = `${calls.availability}, depth ${depth}: ${n} test call site${n === 1 ? '' : 's'} via callers${calls.truncated ? ` (walk cut: ${calls.truncated})` : ''}`;
    }
  } else if (CALLABLE.has(kind)) signals.callers = 'not run (depth 1: references cover direct calls)';

  // 3. Test projects referencing the symbol's project.
  const g = projectGraph(engine);
  const home = t.project ?? symbolIds(engine).primary(t.position.path)?.project.id ?? g?.files.get(t.position.path)?.[0]?.project;
  const testProjects = new Set<string>();
  if (g && home) {
    const isTestProject = new Map(g.projects.map((p) => [p.id, p.isTest]));
    for (const e of g.edges) if (e.kind === 'projectReference' && e.to === home && isTestProject.get(e.from)) testProjects.add(e.from);
    signals.projects = `${testProjects.size} test project${testProjects.size === 1 ? '' : 's'} reference ${home}`;
  }

  // 4. Text mentions (when references cannot be trusted to be complete), and 5. co-change.
  const cc = await git;
  signals.git = cc.unavailable ? `unavailable: ${cc.unavailable}` : `${cc.commits} commit${cc.commits === 1 ? '' : 's'} of ${t.position.path} read`;
  const mentionFiles = await testFilesMentioning(engine, name, testProjects, slice);
  const word = /^\w+$/.test(name) ? new RegExp(`\\b${name}\\b`) : undefined;
  // Mentions per test file: its references (precise or heuristic), and in a text read the lines naming it.
  const mentions = new Map<string, number>();
  for (const r of refs.rows) if (r.isTest) mentions.set(r.path, (mentions.get(r.path) ?? 0) + 1);
  if (refs.mode !== 'precise' && word) {
    let n = 0;
    for (const f of mentionFiles.slice(0, RELATED_TESTS_TEXT_FILES)) {
      await slice();
      const m = mentionsIn(engine, f, word);
      if (m.lines > (mentions.get(f) ?? 0)) mentions.set(f, m.lines);
      for (const test of m.tests) {
        n++;
        add(test, 'mention', 40, `mentions ${name} (text, not a precise reference)`);
      }
      // Named only outside the tests (a fixture's field, a helper, a base class's setup): the class's tests use it.
      if (!m.tests.length) {
        for (const line of m.at) {
          const fixture = testsOfTypeAt(engine, f, line);
          if (!fixture) continue;
          for (const x of fixture.tests) add(x, 'mention', 35, `its ${fixture.type.kind === 'testSuite' ? 'describe block' : 'class'} mentions ${name} at line ${line}, outside the tests (text)`);
          n += fixture.tests.length;
          break;
        }
      }
    }
    signals.text = `${n} test${n === 1 ? '' : 's'} mention ${name} in ${Math.min(mentionFiles.length, RELATED_TESTS_TEXT_FILES)} file${mentionFiles.length === 1 ? '' : 's'} read${mentionFiles.length > RELATED_TESTS_TEXT_FILES ? ` (of ${mentionFiles.length})` : ''}`;
  }
  const coFiles = new Map<string, number>();
  for (const [f, w] of cc.weighted) {
    await slice();
    if (isTestCode(engine, f)) coFiles.set(f, w);
  }
  for (const file of coFiles.keys()) {
    const reason = `changed with ${t.position.path} in ${cc.files.get(file) ?? 0} of ${cc.commits} commits`;
    for (const c of found.values()) if (c.test.path === file) add(c.test, 'cochange', 20, reason);
  }

  // 6. Name conventions.
  const typeName = TYPE_KINDS.has(kind) ? name : lastSegment(sym?.qualifiedName.slice(0, Math.max(0, sym.qualifiedName.length - name.length - 1)) ?? '');
  const conv = conventionFiles(engine, t, typeName);
  const member = TYPE_KINDS.has(kind) ? undefined : name.toLowerCase();
  const namedShare = new Map<string, number>();
  for (const f of conv) {
    await slice();
    namedShare.set(f, 1);
    for (const test of testMethodsOf(engine, f)) {
      const namedTest = member !== undefined && test.symbol.name.toLowerCase().includes(member);
      const key = `${test.path}\0${test.symbol.ordinal}`;
      if (member !== undefined && !namedTest && !found.has(key)) continue;
      add(test, 'naming', namedTest ? 45 : 30, `${baseName(f)} is named after ${typeName || f}${namedTest ? `; the test is named after ${name}` : ''}`);
    }
  }
  // Test files whose names say the type's words (not only its exact name + Tests).
  // The ranking index names test files like the type and knows each file's churn — when locate_code
  // (or a saved ranking.bin) has built it: related_tests never starts its build (a build beside the
  // precise questions cut the Roslyn caller walk to precise_partial on the Harbor fixture).
  const rk = readyRanking(engine);
  const alike = rk ? alikeFiles(engine, rk, [typeName || name, baseName(t.position.path).replace(/\.[^.]+$/, '')], new Set(conv)) : [];
  for (const a of alike) {
    await slice();
    namedShare.set(a.path, Math.max(namedShare.get(a.path) ?? 0, a.share));
    for (const test of testMethodsOf(engine, a.path)) {
      const key = `${test.path}\0${test.symbol.ordinal}`;
      if (member !== undefined && !found.has(key) && !test.symbol.name.toLowerCase().includes(member)) continue;
      add(test, 'naming', Math.round(15 + 15 * a.share), `${baseName(a.path)} is named like ${typeName || name} (${a.words.join(', ')})`);
    }
  }
  const namedNote = alike.length ? `; named like it: ${alike.slice(0, 3).map((a) => baseName(a.path)).join(', ')}` : rk ? '' : '; similar names not checked (the ranking index is built by the first locate_code question)';
  signals.naming = `${conv.length ? `${conv.length} test file${conv.length === 1 ? '' : 's'} named after ${typeName}: ${conv.slice(0, 3).join(', ')}` : `no test file named after ${typeName || t.position.path}`}${namedNote}`;

  // 7. Files by their evidence (testFileScore.ts); the best co-changed files without rows give theirs
  // (their tests mentioning the name, else all): a test file that keeps changing with the symbol's
  // file covers it even when it never names it.
  const bestRow = new Map<string, number>();
  for (const c of found.values()) bestRow.set(c.test.path, Math.max(bestRow.get(c.test.path) ?? 0, Math.min(100, c.best + (c.kinds.size - 1) * 5)));
  const fileKey = new Map<string, number>();
  for (const f of new Set([...bestRow.keys(), ...coFiles.keys()])) {
    fileKey.set(f, testFileScore({ mentions: mentions.get(f) ?? 0, cochange: coFiles.get(f) ?? 0, churn: rk?.history.churn.get(f) ?? 0, named: namedShare.get(f) ?? 0, bestRow: bestRow.get(f) ?? 0, nameWords: nameWords(f, typeName || name) }));
  }
  let coRows = 0;
  const ranked = [...fileKey.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  for (const [file] of ranked.slice(0, RELATED_TESTS_COCHANGE_FILES)) {
    if (bestRow.has(file) || !coFiles.has(file)) continue;
    await slice();
    const m = word ? mentionsIn(engine, file, word).tests : [];
    for (const test of m.length ? m : testMethodsOf(engine, file)) {
      add(test, 'cochange', m.length ? 45 : 30, `changed with ${t.position.path} in ${cc.files.get(file) ?? 0} of ${cc.commits} commits`);
      coRows++;
    }
  }
  if (coRows) signals.git += `; ${coRows} test${coRows === 1 ? '' : 's'} of co-changed files`;

  const ids = symbolIds(engine);
  const homeName = g?.projects.find((p) => p.id === home)?.name ?? home;
  let rows: RelatedTest[] = [...found.values()].map((c) => {
    const extra = (c.kinds.size - 1) * 5;
    const score = Math.min(100, c.best + extra);
    const s = c.test.symbol;
    const project = ids.primary(c.test.path)?.project.id ?? g?.files.get(c.test.path)?.[0]?.project;
    if (project && testProjects.has(project) && home) c.reasons.push(`its project references ${homeName}`);
    const row: RelatedTest = {
      name: s.name,
      path: c.test.path,
      line: s.line,
      endLine: s.endLine,
      confidence: c.exact ? 'exact' : score >= 50 ? 'likely' : 'possible',
      score,
      reasons: c.reasons,
      target_ref: { symbolId: ids.idFor(s.symbolId, c.test.path) },
    };
    if (s.container) row.container = s.container;
    if (project) row.project = project;
    if (c.test.framework) row.framework = c.test.framework;
    const run = runCommand(engine, c.test);
    if (run) row.run = run;
    return row;
  });
  rows = spreadOverFiles(rows, (p) => fileKey.get(p) ?? 0);
  let truncated: 'cap' | undefined;
  if (rows.length > maxRows) {
    rows = rows.slice(0, maxRows);
    truncated = 'cap';
  }
  const answer: RelatedTestsAnswer = { name, target_selection: t.selection, mode, gaps, rows, signals };
  if (refs.provider) answer.provider = refs.provider;
  if (refs.reason) answer.reason = refs.reason;
  if (truncated) answer.truncated = truncated;
  return answer;
}

const byScore = (a: RelatedTest, b: RelatedTest) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.line - b.line || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/**
 * Every file's first RELATED_TESTS_PER_FILE_TIER rows, then the next ones, …; inside a tier by the
 * file's evidence (`fileKey`), then score, path, line, name (one total order).
 */
export function spreadOverFiles(rows: RelatedTest[], fileKey: (path: string) => number): RelatedTest[] {
  const seen = new Map<string, number>();
  const tier = new Map<RelatedTest, number>();
  for (const r of [...rows].sort(byScore)) {
    const n = seen.get(r.path) ?? 0;
    seen.set(r.path, n + 1);
    tier.set(r, Math.floor(n / RELATED_TESTS_PER_FILE_TIER));
  }
  return rows.sort((a, b) => tier.get(a)! - tier.get(b)! || fileKey(b.path) - fileKey(a.path) || byScore(a, b));
}

/** The engine's ranking index when one was built (an older index version's is still good evidence of names and churn); nothing is started. */
function readyRanking(engine: Engine): Ranking | undefined {
  return currentRanking(engine);
}

/** Test files (other than `except`) named like the given names, the best first. */
function alikeFiles(engine: Engine, r: Ranking, names: string[], except: ReadonlySet<string>): { path: string; share: number; words: string[] }[] {
  return similarlyNamed(r, names, (d) => !except.has(d.path) && engine.catalog().byRelPath(d.path) !== undefined && isTestCode(engine, d.path), RELATED_TESTS_NAMED_FILES * 3)
    .filter((x) => x.share >= 0.5 && x.words.length >= 2)
    .slice(0, RELATED_TESTS_NAMED_FILES)
    .map((x) => ({ path: x.doc.path, share: x.share, words: x.words }));
}

/** Test files the text index says mention the name: those of the test projects first, then by path. */
async function testFilesMentioning(engine: Engine, name: string, preferred: ReadonlySet<string>, slice: () => Promise<void>): Promise<string[]> {
  if (!/^\w+$/.test(name)) return [];
  let ids: number[];
  try {
    ids = matchFiles(engine.store, `"${name.toLowerCase()}"`);
  } catch {
    return [];
  }
  const catalog = engine.catalog();
  const g = projectGraph(engine);
  const files: string[] = [];
  for (const id of ids) {
    await slice();
    const p = catalog.get(id)?.path;
    if (p !== undefined && isTestCode(engine, p)) files.push(p);
  }
  const inPreferred = (p: string) => (g?.files.get(p) ?? []).some((e) => preferred.has(e.project));
  return files.sort((a, b) => Number(inPreferred(b)) - Number(inPreferred(a)) || (a < b ? -1 : a > b ? 1 : 0));
}

/** A test file's lines naming the word (count, and the first few 1-based), and its test methods whose span does (live file). */
function mentionsIn(engine: Engine, rel: string, word: RegExp): { lines: number; at: number[]; tests: TestMethod[] } {
  let lines: string[];
  try {
    lines = engine.policy.readFile(rel).bytes.toString('utf8').split(/\r?\n/);
  } catch {
    return { lines: 0, at: [], tests: [] };
  }
  const tests = testMethodsOf(engine, rel).filter((t) => lines.slice(t.symbol.line - 1, t.symbol.endLine).some((l) => word.test(l)));
  const at: number[] = [];
  let n = 0;
  lines.forEach((l, i) => {
    if (!word.test(l)) return;
    n++;
    if (at.length < 8) at.push(i + 1);
  });
  return { lines: n, at, tests };
}

/** Test files named after the type (C#: `ShipTests.cs`…) or the file (`fleetService.test.ts`…). */
function conventionFiles(engine: Engine, t: ResolvedTarget, typeName: string): string[] {
  const stems = new Set<string>();
  const fileStem = baseName(t.position.path).replace(/\.[^.]+$/, '').toLowerCase();
  for (const base of [typeName.toLowerCase(), fileStem]) {
    if (!base) continue;
    for (const suffix of ['tests', 'test', 'specs', 'spec', 'facts', 'should']) stems.add(`${base}${suffix}`);
    for (const sep of ['.test', '.spec', '-test', '-spec', '_test']) stems.add(`${base}${sep}`);
    stems.add(`test${base}`);
  }
  const out: string[] = [];
  for (const f of engine.catalog().all()) {
    if (f.path === t.position.path) continue;
    const stem = f.lowerName.replace(/\.[^.]+$/, '');
    if (stems.has(stem) && isTestCode(engine, f.path)) out.push(f.path);
  }
  return out.sort();
}

function baseName(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

function lastSegment(qn: string): string {
  return qn.slice(qn.lastIndexOf('.') + 1);
}
