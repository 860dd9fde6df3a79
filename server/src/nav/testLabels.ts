/**
 * Which files are test code, for the `isTest` of navigation rows and the production/test counts
 * of grouped answers. A file is a test file when any of these holds:
 * - the project model says so: a test project (C#: the file's primary project; Node: the package
 *   that owns the file, or every tsconfig program that includes it);
 * - its path follows a test convention: `*.test.*` / `*.spec.*` (also `-spec.`), or a `test/`,
 *   `tests/` or `__tests__/` folder on the way;
 * - it is a TS/JS file that imports a test framework (mocha, jest, vitest, node:test,
 *   playwright's test runner), read from its first `TEST_IMPORT_SCAN_BYTES`;
 * - the file classifier called it `test` (workspace/fileClass.ts: C# and other conventions).
 * Decisions are cached per index version.
 */
import { TEST_IMPORT_SCAN_BYTES } from '../core/limits';
import type { ProjectGraph } from '../projects/ProjectGraph';
import type { Engine } from './engine';
import { projectGraph } from './projects';

const TEST_FOLDER = /(^|\/)(test|tests|__tests__)\//i;
const TEST_NAME = /[.-](test|spec)\.[cm]?[jt]sx?$/i;
const SCRIPT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/i;
const FRAMEWORKS = String.raw`mocha|jest|@jest/globals|vitest|vitest/[\w/-]+|node:test|@playwright/test|playwright/test`;
const FRAMEWORK_IMPORT = new RegExp(String.raw`(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"](?:${FRAMEWORKS})['"]`);

/** True when the path follows a test naming convention (name or folder). */
export function isTestPath(path: string): boolean {
  return TEST_NAME.test(path) || TEST_FOLDER.test(path);
}

/** True when the source text imports a test framework. */
export function importsTestFramework(text: string): boolean {
  return FRAMEWORK_IMPORT.test(text);
}

/**
 * True when the project model makes the file test code: its primary project is a test project
 * (C#), or the Node package owning it is, or every tsconfig program including it is.
 */
export function isTestByProjects(g: ProjectGraph | undefined, path: string, primary?: string): boolean {
  if (!g) return false;
  const byId = projectIndex(g);
  if (primary !== undefined && byId.get(primary)?.isTest && byId.get(primary)?.kind !== 'node' && byId.get(primary)?.kind !== 'tsconfig') return true;
  const entries = g.files.get(path) ?? [];
  const nodes = entries.map((e) => byId.get(e.project)).filter((p) => p !== undefined);
  if (nodes.some((p) => p.kind === 'node' && p.isTest)) return true;
  const configs = nodes.filter((p) => p.kind === 'tsconfig');
  return configs.length > 0 && configs.every((p) => p.isTest);
}

const indexes = new WeakMap<ProjectGraph, Map<string, ProjectGraph['projects'][number]>>();
function projectIndex(g: ProjectGraph): Map<string, ProjectGraph['projects'][number]> {
  let m = indexes.get(g);
  if (!m) indexes.set(g, (m = new Map(g.projects.map((p) => [p.id, p]))));
  return m;
}

const caches = new WeakMap<Engine, { version: string; byPath: Map<string, boolean> }>();

/** The engine's test decision for a workspace file (cached per index version). */
export function isTestFile(engine: Engine, path: string, o: { primaryProject?: string; fileClass?: string } = {}): boolean {
  let c = caches.get(engine);
  if (!c || c.version !== engine.version) caches.set(engine, (c = { version: engine.version, byPath: new Map() }));
  const hit = c.byPath.get(path);
  if (hit !== undefined) return hit;
  const v = o.fileClass === 'test' || isTestPath(path) || isTestByProjects(projectGraph(engine), path, o.primaryProject) || (SCRIPT.test(path) && headImportsFramework(engine, path));
  c.byPath.set(path, v);
  return v;
}

function headImportsFramework(engine: Engine, path: string): boolean {
  try {
    const bytes = engine.policy.readFile(path).bytes;
    return importsTestFramework(bytes.subarray(0, TEST_IMPORT_SCAN_BYTES).toString('utf8'));
  } catch {
    return false;
  }
}
