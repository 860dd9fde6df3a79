/**
 * Test methods as the syntax index knows them, for related_tests and impact: which declaration of
 * a file is a test (C#: a method with a test attribute — xunit, NUnit, MSTest — the outline marks
 * it; TS/JS: a mocha/jest/vitest `it`/`test` call, kind `test`), the test enclosing a line, the
 * framework it belongs to and the command that runs it alone.
 *
 * A C# method without a test attribute counts as a test only by convention: public, in a test file,
 * in a class named `…Tests`/`…Test`/`…Spec(s)`/`…Fixture`, in a file with no attributed test (a
 * convention-only test class; its rows have no framework and no command).
 */
import * as path from 'node:path';
import { AGENT_FILE_SYMBOLS_CACHE_FILES, TEST_IMPORT_SCAN_BYTES } from '../../core/limits';
import type { Engine } from '../engine';
import { projectGraph } from '../projects';
import { symbolIds } from '../symbolIds';
import { isTestFile } from '../testLabels';

export type TestFramework = 'xunit' | 'nunit' | 'mstest' | 'mocha' | 'jest' | 'vitest';

/** One declaration of a file, as the test logic needs it. */
export interface FileSymbol {
  name: string;
  kind: string;
  qualifiedName: string;
  container: string;
  line: number;
  endLine: number;
  nameLine: number;
  nameColumn: number;
  attributes: string[];
  modifiers: string[];
  /** The outline's test mark (a test attribute, a test call, or a type/suite holding tests). */
  isTest: boolean;
  symbolId: string;
  ordinal: number;
  parent: number;
}

/** A test method (a row of related_tests). */
export interface TestMethod {
  path: string;
  symbol: FileSymbol;
  /** Undefined for a convention-only test (no attribute, no test call). */
  framework?: TestFramework;
}

const SELECT = `SELECT s.name, s.kind, s.qualified_name, s.container, s.line, s.end_line, s.name_line, s.name_col, s.attributes, s.modifiers, s.flags, s.symbol_id, s.ordinal, s.parent
  FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.path = ? ORDER BY s.ordinal`;

const XUNIT = new Set(['Fact', 'Theory', 'SkippableFact', 'SkippableTheory']);
const NUNIT = new Set(['Test', 'TestCase', 'TestCaseSource']);
const MSTEST = new Set(['TestMethod', 'DataTestMethod']);
const CONVENTION_CLASS = /(Tests?|Specs?|Fixture)$/;
const CSHARP = /\.cs$/i;

const caches = new WeakMap<Engine, { version: string; byPath: Map<string, FileSymbol[]> }>();

/** Every declaration of an indexed file, in outline order (cached per index version, bounded). */
export function fileSymbols(engine: Engine, rel: string): FileSymbol[] {
  let c = caches.get(engine);
  if (!c || c.version !== engine.version) caches.set(engine, (c = { version: engine.version, byPath: new Map() }));
  const hit = c.byPath.get(rel);
  if (hit) return hit;
  const rows = engine.store.rows(SELECT, [rel]).map(
    (r): FileSymbol => ({
      name: String(r[0]),
      kind: String(r[1]),
      qualifiedName: String(r[2]),
      container: String(r[3] ?? ''),
      line: Number(r[4]),
      endLine: Number(r[5]),
      nameLine: Number(r[6]),
      nameColumn: Number(r[7]),
      attributes: r[8] ? String(r[8]).split(' ').map(normAttr) : [],
      modifiers: r[9] ? String(r[9]).split(' ') : [],
      isTest: (Number(r[10]) & 1) !== 0,
      symbolId: String(r[11]),
      ordinal: Number(r[12]),
      parent: Number(r[13]),
    }),
  );
  if (c.byPath.size >= AGENT_FILE_SYMBOLS_CACHE_FILES) c.byPath.delete(c.byPath.keys().next().value!);
  c.byPath.set(rel, rows);
  return rows;
}

/** `[Xunit.Fact()]`, `FactAttribute` → `Fact`. */
function normAttr(a: string): string {
  return a.replace(/\(.*$/, '').replace(/^.*\./, '').replace(/Attribute$/, '');
}

function csharpFramework(s: FileSymbol): TestFramework | undefined {
  for (const a of s.attributes) {
    if (XUNIT.has(a)) return 'xunit';
    if (NUNIT.has(a)) return 'nunit';
    if (MSTEST.has(a)) return 'mstest';
  }
  return undefined;
}

/**
 * The engine's test decision for a file, with what the navigation rows pass (its primary project and
 * its file class): a file of a C# test project outside any `tests/` folder (AutoMapper's
 * `src/UnitTests/`) is test code. testLabels.ts caches one decision per path, so every caller asks
 * the same way.
 */
export function isTestCode(engine: Engine, rel: string): boolean {
  const project = symbolIds(engine).primary(rel)?.project.id ?? projectGraph(engine)?.files.get(rel)?.[0]?.project;
  const fileClass = engine.catalog().byRelPath(rel)?.fileClass;
  return isTestFile(engine, rel, { ...(project !== undefined ? { primaryProject: project } : {}), ...(fileClass ? { fileClass } : {}) });
}

/** The test methods of a file (empty for a file that holds none). */
export function testMethodsOf(engine: Engine, rel: string): TestMethod[] {
  const syms = fileSymbols(engine, rel);
  if (CSHARP.test(rel)) {
    const attributed = syms.filter((s) => s.kind === 'method' && csharpFramework(s) !== undefined);
    if (attributed.length) return attributed.map((s) => ({ path: rel, symbol: s, framework: csharpFramework(s)! }));
    if (!isTestCode(engine, rel)) return [];
    const byOrdinal = new Map(syms.map((s) => [s.ordinal, s]));
    return syms
      .filter((s) => s.kind === 'method' && s.modifiers.includes('public') && CONVENTION_CLASS.test(byOrdinal.get(s.parent)?.name ?? s.container))
      .map((s) => ({ path: rel, symbol: s }));
  }
  const tests = syms.filter((s) => s.kind === 'test');
  if (!tests.length) return [];
  const fw = scriptFramework(engine, rel);
  return tests.map((s) => (fw ? { path: rel, symbol: s, framework: fw } : { path: rel, symbol: s }));
}

/** The innermost test method whose span holds `line`. */
export function testAt(engine: Engine, rel: string, line: number): TestMethod | undefined {
  let best: TestMethod | undefined;
  for (const t of testMethodsOf(engine, rel)) {
    if (t.symbol.line <= line && line <= t.symbol.endLine && (!best || t.symbol.line >= best.symbol.line)) best = t;
  }
  return best;
}

/** The test methods of the innermost class / struct / record holding `line` (a fixture's tests). */
export function testsOfTypeAt(engine: Engine, rel: string, line: number): { type: FileSymbol; tests: TestMethod[] } | undefined {
  let type: FileSymbol | undefined;
  for (const s of fileSymbols(engine, rel)) if (FIXTURE_KINDS.has(s.kind) && s.line <= line && line <= s.endLine && (!type || s.line >= type.line)) type = s;
  if (!type) return undefined;
  const t = type;
  const tests = testMethodsOf(engine, rel).filter((m) => m.symbol.line >= t.line && m.symbol.endLine <= t.endLine);
  return tests.length ? { type: t, tests } : undefined;
}

const FIXTURE_KINDS: ReadonlySet<string> = new Set(['class', 'struct', 'record', 'testSuite']);

/** The innermost callable declaration (method, function, constructor, property…) holding `line`. */
export function callableAt(engine: Engine, rel: string, line: number): FileSymbol | undefined {
  let best: FileSymbol | undefined;
  for (const s of fileSymbols(engine, rel)) {
    if (!CALLABLE.has(s.kind)) continue;
    if (s.line <= line && line <= s.endLine && (!best || s.line >= best.line)) best = s;
  }
  return best;
}

export const CALLABLE: ReadonlySet<string> = new Set(['method', 'constructor', 'function', 'property', 'indexer', 'operator', 'test']);

const SCRIPT_FRAMEWORKS: { fw: TestFramework; dep: string }[] = [
  { fw: 'vitest', dep: 'vitest' },
  { fw: 'jest', dep: 'jest' },
  { fw: 'mocha', dep: 'mocha' },
];

const pkgCaches = new WeakMap<Engine, { version: string; byDir: Map<string, TestFramework | null> }>();

/**
 * A TS/JS test file's framework: what the file imports (vitest, @jest/globals), else the nearest
 * package.json (inside the workspace) that depends on vitest, jest or mocha.
 */
export function scriptFramework(engine: Engine, rel: string): TestFramework | undefined {
  try {
    const head = engine.policy.readFile(rel).bytes.subarray(0, TEST_IMPORT_SCAN_BYTES).toString('utf8');
    if (/['"]vitest['"]/.test(head)) return 'vitest';
    if (/['"]@jest\/globals['"]/.test(head)) return 'jest';
  } catch {
    // unreadable: decide from package.json alone
  }
  let c = pkgCaches.get(engine);
  if (!c || c.version !== engine.version) pkgCaches.set(engine, (c = { version: engine.version, byDir: new Map() }));
  const catalog = engine.catalog();
  const walked: string[] = [];
  let dir = path.posix.dirname(rel);
  let found: TestFramework | null = null;
  for (;;) {
    const hit = c.byDir.get(dir);
    if (hit !== undefined) {
      found = hit;
      break;
    }
    walked.push(dir);
    const pj = dir === '.' ? 'package.json' : `${dir}/package.json`;
    if (catalog.byRelPath(pj)) {
      found = frameworkOfPackage(engine, pj);
      if (found) break;
    }
    if (dir === '.') break;
    dir = path.posix.dirname(dir);
  }
  for (const d of walked) c.byDir.set(d, found);
  return found ?? undefined;
}

function frameworkOfPackage(engine: Engine, pj: string): TestFramework | null {
  try {
    const j = JSON.parse(engine.policy.readFile(pj).bytes.toString('utf8')) as Record<string, unknown>;
    const deps = { ...(j.dependencies as object), ...(j.devDependencies as object) } as Record<string, unknown>;
    for (const { fw, dep } of SCRIPT_FRAMEWORKS) if (dep in deps) return fw;
    const test = String((j.scripts as Record<string, unknown> | undefined)?.test ?? '');
    for (const { fw, dep } of SCRIPT_FRAMEWORKS) if (new RegExp(`\\b${dep}\\b`).test(test)) return fw;
  } catch {
    // malformed package.json: no framework from it
  }
  return null;
}

/** The full title of a TS/JS test: its describe blocks' titles and its own, joined by spaces. */
export function fullTitle(engine: Engine, t: TestMethod): string {
  const syms = fileSymbols(engine, t.path);
  const byOrdinal = new Map(syms.map((s) => [s.ordinal, s]));
  const parts = [t.symbol.name];
  for (let p = byOrdinal.get(t.symbol.parent); p && parts.length < 16; p = byOrdinal.get(p.parent)) if (p.kind === 'testSuite') parts.unshift(p.name);
  return parts.join(' ');
}

/** The command that runs this one test, when its framework is known. */
export function runCommand(engine: Engine, t: TestMethod): string | undefined {
  if (!t.framework) return undefined;
  if (t.framework === 'xunit' || t.framework === 'nunit' || t.framework === 'mstest') {
    const project = symbolIds(engine).primary(t.path)?.project.id ?? projectGraph(engine)?.files.get(t.path)?.[0]?.project;
    // `~` (contains): a Theory / TestCase's full name carries its arguments.
    return `dotnet test ${project ? shellQuote(project) + ' ' : ''}--filter "FullyQualifiedName~${t.symbol.qualifiedName.replace(/[\\"$`]/g, '\\$&')}"`;
  }
  const title = shellQuote(`^${escapeRegExp(fullTitle(engine, t))}$`);
  const file = shellQuote(t.path);
  if (t.framework === 'mocha') return `npx mocha ${file} -g ${title}`;
  if (t.framework === 'jest') return `npx jest ${file} -t ${title}`;
  return `npx vitest run ${file} -t ${title}`;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Single-quoted for a POSIX shell when it holds anything but safe characters. */
export function shellQuote(s: string): string {
  return /^[\w./@:+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
