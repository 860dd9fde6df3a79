/**
 * context_pack, the gathering half: one target resolved once, then the definition with its source
 * span, direct callers, the closest tests, implementations, the config keys the definition reads
 * and wider references, each as ranked rows with a reason, plus the owner project, where the
 * symbol is exposed, risks, and what coverage was missing. Plain data: the budget is applied by
 * the tool (mcp/tools/context.ts), deterministically, in FILL_ORDER.
 *
 * Tests come from related_tests (nav/agent/relatedTests.ts: test methods referencing the target,
 * tests of its callers, naming conventions, git co-change), ranked by its score, with their run command.
 */
import picomatch from 'picomatch';
import {
  CONTEXT_PACK_CONFIG_HITS_PER_KEY,
  CONTEXT_PACK_DEFINITION_MAX_LINES,
  CONTEXT_PACK_KEPT_ANSWERS,
  CONTEXT_PACK_MAX_CALLER_EDGES,
  CONTEXT_PACK_MAX_CONFIG_KEYS,
  CONTEXT_PACK_ROWS_PER_CATEGORY,
  PREVIEW_CHARS,
} from '../../core/limits';
import { HeuristicProvider } from '../../semantic/heuristic/heuristicProvider';
import type { NavigationMode } from '../../semantic/provider';
import type { Engine } from '../engine';
import { callsQuery, definitionQuery, implementationsQuery, referencesQuery, type NavMeta, type NavRow } from '../semanticQueries';
import type { TargetInput, TargetSelection } from '../semanticTarget';
import { projectGraph } from '../projects';
import { searchText } from '../textSearch';
import { relatedTests, type RelatedTestsAnswer } from './relatedTests';

export type PackTask = 'investigate_bug' | 'rename' | 'add_feature' | 'review' | 'explore';
export type PackCategory = 'definition' | 'included' | 'caller' | 'test' | 'implementation' | 'config' | 'reference';

/** The fixed order a pack is filled in (issue 12): what does not fit is omitted from the end. */
export const FILL_ORDER: readonly PackCategory[] = ['definition', 'included', 'caller', 'test', 'implementation', 'config', 'reference'];

/**
 * Rows per category a task asks for (its ranking): a bug hunt wants callers and tests, a rename
 * every reference, a feature the implementations and config, a review the tests.
 */
export const TASK_QUOTAS: Record<PackTask, Record<Exclude<PackCategory, 'definition' | 'included'>, number>> = {
  investigate_bug: { caller: 6, test: 4, implementation: 2, config: 3, reference: 2 },
  rename: { caller: 4, test: 3, implementation: 5, config: 1, reference: 12 },
  add_feature: { caller: 3, test: 3, implementation: 5, config: 4, reference: 3 },
  review: { caller: 4, test: 6, implementation: 3, config: 2, reference: 3 },
  explore: { caller: 5, test: 3, implementation: 3, config: 2, reference: 3 },
};

export interface PackRow {
  cat: PackCategory;
  path: string;
  line: number;
  /** Last line of the span (definition rows: the declaration's end). */
  endLine?: number;
  name?: string;
  project?: string;
  reason: string;
  /** The source line at `line`, trimmed (supporting rows). */
  snippet?: string;
  /** The declaration's source, lines `line`..`endLine` (the primary row only). */
  source?: string;
  /** Only when not exact (tests: related_tests' likely / possible). */
  confidence?: 'heuristic' | 'stale' | 'partial' | 'likely' | 'possible';
  /** Tests: the command that runs this test alone. */
  run?: string;
}

export interface PackGather {
  /** Set when the target did not resolve to one declaration: no rows, the candidates. */
  ambiguous?: TargetSelection;
  selection?: TargetSelection;
  name: string;
  kind?: string;
  owner?: string;
  exposedVia: string[];
  /** Ranked rows per category (before quotas and budget). */
  rows: Record<PackCategory, PackRow[]>;
  /** Rows found per category (a category's count can exceed its rows: callers of callers are not gathered). */
  found: Partial<Record<PackCategory, number>>;
  risks: string[];
  /** Coverage missing, per section (not budget). */
  partial: string[];
  mode: NavigationMode;
  /** A note on where the tests came from, when it matters (empty: related_tests). */
  testSource: string;
}

export interface PackOptions {
  task: PackTask;
  mustInclude: string[];
  exclude: string[];
  deadlineAt: number;
}

const RANK: Record<NavigationMode, number> = { precise: 0, precise_partial: 1, heuristic_no_precise: 2, unavailable_no_precise: 3 };

/**
 * Precise gathers kept per index version (an agent re-asks with another budget after
 * BUDGET_TOO_SMALL or omissions; the provider questions are the cost). A heuristic or partial
 * gather is never kept: a provider still loading answers better a moment later.
 */
const kept = new WeakMap<Engine, Map<string, PackGather>>();

export async function gatherContext(engine: Engine, target: TargetInput, o: PackOptions): Promise<PackGather> {
  const key = JSON.stringify([engine.version, target, o.task, o.mustInclude, o.exclude]);
  let byKey = kept.get(engine);
  if (!byKey) kept.set(engine, (byKey = new Map()));
  const hit = byKey.get(key);
  if (hit) return hit;
  const g = await gatherOnce(engine, target, o);
  if (!g.ambiguous && g.mode === 'precise' && !g.partial.some((p) => /stopped at/.test(p))) {
    for (const k of byKey.keys()) if (!k.startsWith(JSON.stringify([engine.version]).slice(0, -1))) byKey.delete(k);
    if (byKey.size >= CONTEXT_PACK_KEPT_ANSWERS) byKey.delete(byKey.keys().next().value!);
    byKey.set(key, g);
  }
  return g;
}

async function gatherOnce(engine: Engine, target: TargetInput, o: PackOptions): Promise<PackGather> {
  const def = await definitionQuery(engine, target, { deadlineAt: o.deadlineAt });
  const empty = (): Record<PackCategory, PackRow[]> => ({ definition: [], included: [], caller: [], test: [], implementation: [], config: [], reference: [] });
  if ('ambiguous' in def) return { ambiguous: def.target_selection, name: '', exposedVia: [], rows: empty(), found: {}, risks: [], partial: [], mode: 'precise', testSource: '' };
  const rows = empty();
  const partial: string[] = [];
  let worst: NavigationMode = def.mode;
  // Sections with the same mode and reason are said once: "callers, references: heuristic_no_precise (…)".
  const bySame = new Map<string, string[]>();
  const note = (section: string, m: NavMeta) => {
    if (RANK[m.mode] > RANK[worst]) worst = m.mode;
    if (m.mode === 'precise') return;
    const why = m.mode === 'precise_partial' ? (m.gaps[0] ?? 'coverage incomplete') : (m.reason ?? '');
    const key = `${m.mode}${why ? ` (${clip(why, 140)})` : ''}`;
    (bySame.get(key) ?? bySame.set(key, []).get(key)!).push(section);
  };
  const modeNotes = () => [...bySame].map(([k, secs]) => `${secs.join(', ')}: ${k}`);
  note('definition', def);
  const first = def.rows[0];
  const sym = def.target_selection.symbol;
  const name = sym?.name ?? def.name;
  if (!first) {
    return { selection: def.target_selection, name, exposedVia: [], rows, found: {}, risks: [], partial: [...modeNotes(), ...partial, 'definition: not found'], mode: worst, testSource: '' };
  }
  // The primary row: the declaration's whole span, its source clipped.
  const decl = HeuristicProvider.declaredAt(engine.store, first.path, first.line, first.column) ?? HeuristicProvider.enclosing(engine.store, first.path, first.line);
  const start = decl?.line ?? first.line;
  const end = decl?.endLine ?? first.endLine;
  const lines = readLines(engine, first.path);
  const shownEnd = Math.min(end, start + CONTEXT_PACK_DEFINITION_MAX_LINES - 1);
  const source = lines ? lines.slice(start - 1, shownEnd).join('\n') : undefined;
  const kind = decl?.kind ?? first.kind ?? sym?.kind;
  const signature = decl?.signature ?? first.signature ?? sym?.signature ?? '';
  const owner = first.project;
  const primary: PackRow = {
    cat: 'definition',
    path: first.path,
    line: start,
    endLine: end,
    name: sym?.qualifiedName ?? name,
    ...(owner ? { project: owner } : {}),
    reason: `target ${kind ?? 'declaration'}${shownEnd < end ? ` (source: first ${shownEnd - start + 1} of ${end - start + 1} lines)` : ''}`,
    ...(source !== undefined ? { source } : {}),
    ...conf(first),
  };
  rows.definition.push(primary);
  for (const r of def.rows.slice(1)) rows.definition.push({ cat: 'definition', path: r.path, line: r.line, reason: 'another part of the declaration', ...(r.project ? { project: r.project } : {}), ...conf(r) });

  const excluded = pathFilter(o.exclude);
  const keep = (p: string) => !excluded(p);
  const focus = (p: string) => o.mustInclude.length > 0 && pathFilter(o.mustInclude)(p);
  const ownFile = (r: { path: string; line: number }) => r.path === first.path && r.line >= start && r.line <= end;

  // Callers, references and implementations at once (each is one provider question).
  const wantsImpl = /^(interface|class|struct|record|method|property|event|function|abstract)/.test(kind ?? '') && kind !== 'enum';
  // Tests from engineer agent's related_tests (references from test methods, tests of callers, naming, git co-change).
  const testsAnswer = relatedTests(engine, target, { deadlineAt: o.deadlineAt }).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
  const [calls, refs, impls, rt] = await Promise.all([
    callsQuery(engine, target, 'incoming', 1, CONTEXT_PACK_MAX_CALLER_EDGES, { deadlineAt: o.deadlineAt }),
    referencesQuery(engine, target, { deadlineAt: o.deadlineAt, includeDefinition: false }),
    wantsImpl ? implementationsQuery(engine, target, { deadlineAt: o.deadlineAt }) : Promise.resolve(undefined),
    testsAnswer,
  ]);

  // ── callers (production; test callers are tests) ──
  const testRows: PackRow[] = [];
  const callerSeen = new Set<string>();
  let callersFound = 0;
  if (!('ambiguous' in calls)) {
    note('callers', calls);
    if (calls.availability === 'unavailable') partial.push(`callers: unavailable (${clip(calls.reason ?? 'no call hierarchy', 120)})`);
    if (calls.truncated) partial.push(`callers: stopped at ${calls.truncated}`);
    for (const e of calls.edges) {
      const c = e.caller;
      const site = e.sites[0] ?? { line: c.line, column: c.column };
      callerSeen.add(`${c.path}:${site.line}`);
      for (const s of e.sites) callerSeen.add(`${c.path}:${s.line}`);
      // Test callers are tests: related_tests ranks them (with the test method and its run command).
      if (!keep(c.path) || c.isTest) continue;
      const row: PackRow = {
        cat: 'caller',
        path: c.path,
        line: site.line,
        ...(c.name ? { name: c.name } : {}),
        ...(c.project ? { project: c.project } : {}),
        reason: `calls ${name}${e.sites.length > 1 ? ` (${e.sites.length} sites)` : ''}`,
        ...snippetOf(lines, engine, c.path, site.line),
        ...conf(e),
      };
      rows.caller.push(row);
      callersFound++;
    }
  }

  // ── references: tests (minimal source), wider references, exposure ──
  const refProjects = new Map<string, number>();
  let refFiles = 0;
  let testRefFiles = 0;
  let refTotal = 0;
  if (!('ambiguous' in refs)) {
    note('references', refs);
    refTotal = refs.rows.length;
    const byFile = new Map<string, NavRow[]>();
    for (const r of refs.rows) {
      if (ownFile(r)) continue;
      (byFile.get(r.path) ?? byFile.set(r.path, []).get(r.path)!).push(r);
      if (!r.isTest && r.project && r.project !== owner) refProjects.set(r.project, (refProjects.get(r.project) ?? 0) + 1);
    }
    refFiles = byFile.size;
    for (const [p, rs] of byFile) {
      if (!keep(p)) continue;
      const r0 = rs[0]!;
      if (r0.isTest) {
        testRefFiles++;
        continue;
      }
      for (const r of rs) {
        if (callerSeen.has(`${r.path}:${r.line}`)) continue;
        rows.reference.push({
          cat: 'reference',
          path: r.path,
          line: r.line,
          ...(r.project ? { project: r.project } : {}),
          reason: `references ${name}${r.project && r.project !== owner ? ' from another project' : ''}`,
          ...snippetOf(lines, engine, r.path, r.line),
          ...conf(r),
        });
      }
    }
  }
  if (rt instanceof Error) partial.push(`tests: related_tests failed (${clip(rt.message, 120)})`);
  else if (!('ambiguous' in rt)) {
    note('tests', rt as unknown as NavMeta);
    for (const t of (rt as RelatedTestsAnswer).rows) {
      if (!keep(t.path)) continue;
      testRows.push({
        cat: 'test',
        path: t.path,
        line: t.line,
        endLine: t.endLine,
        name: t.name,
        ...(t.project ? { project: t.project } : {}),
        reason: clip(t.reasons.join('; '), 200),
        ...(t.run ? { run: t.run } : {}),
        ...(t.confidence !== 'exact' ? { confidence: t.confidence } : {}),
      });
    }
  }
  rows.test = testRows;

  // ── implementations ──
  if (impls && !('ambiguous' in impls)) {
    note('implementations', impls);
    for (const r of impls.rows) {
      if (ownFile(r) || !keep(r.path)) continue;
      rows.implementation.push({
        cat: 'implementation',
        path: r.path,
        line: r.line,
        ...(r.name ? { name: r.name } : {}),
        ...(r.project ? { project: r.project } : {}),
        reason: `${r.isTest ? 'test double ' : ''}implements or overrides ${name}`,
        ...snippetOf(lines, engine, r.path, r.line),
        ...conf(r),
      });
    }
  }

  // ── config the definition reads ──
  const keys = configKeys(lines ? lines.slice(start - 1, end).join('\n') : '');
  for (const key of keys) {
    const leaf = key.env ? key.key : key.key.split(':').pop()!;
    const r = await searchText(engine, {
      query: key.env ? leaf : `"${leaf}"`,
      mode: key.env ? 'word' : 'literal',
      caseMode: 'sensitive',
      classes: ['config'],
      offset: 0,
      limit: CONTEXT_PACK_CONFIG_HITS_PER_KEY,
      deadlineAt: o.deadlineAt,
    });
    for (const h of r.hits) {
      if (!keep(h.path)) continue;
      rows.config.push({ cat: 'config', path: h.path, line: h.line, reason: `${key.env ? 'environment variable' : 'config key'} ${key.key} read by the definition`, snippet: h.preview.trim().slice(0, PREVIEW_CHARS) });
    }
  }

  // ── ranking: must_include first in each category; production callers spread over projects ──
  const spread = (list: PackRow[]) => {
    const seenP = new Map<string, number>();
    const keyed = list.map((r, i) => {
      const k = r.project ?? '';
      const n = seenP.get(k) ?? 0;
      seenP.set(k, n + 1);
      return { r, i, n };
    });
    return keyed.sort((a, b) => Number(!focus(a.r.path)) - Number(!focus(b.r.path)) || a.n - b.n || a.i - b.i).map((x) => x.r);
  };
  rows.caller = spread(rows.caller.sort(cmpPath));
  rows.reference = spread(rows.reference.sort(cmpPath));
  rows.implementation = spread(rows.implementation.sort(cmpPath));
  // Closest tests first: a test file named after the target's type (or name), then one test per file
  // before a second of any file, then related_tests' ranking.
  const typeName = (kind && /^(class|struct|interface|record|enum)/.test(kind) ? name : (sym?.qualifiedName ?? name).split('.').slice(-2, -1)[0]) ?? name;
  const stem = (p: string) => p.slice(p.lastIndexOf('/') + 1).replace(/\.[^.]*$/, '').toLowerCase();
  const close = (r: PackRow) => (stem(r.path).startsWith(typeName.toLowerCase()) ? 0 : 1);
  const perFile = new Map<string, number>();
  rows.test = rows.test
    .map((r, i) => {
      const n = perFile.get(r.path) ?? 0;
      perFile.set(r.path, n + 1);
      return { r, i, n };
    })
    .sort((a, b) => Number(!focus(a.r.path)) - Number(!focus(b.r.path)) || close(a.r) - close(b.r) || a.n - b.n || a.i - b.i)
    .map((x) => x.r);

  // must_include_paths with no row yet: a row of their own, at the first mention of the name.
  for (const p of o.mustInclude) {
    if (/[*?[{]/.test(p)) continue;
    const inRows = FILL_ORDER.some((c) => rows[c].some((r) => r.path === p || r.path.startsWith(p.replace(/\/?$/, '/'))));
    if (inRows || !keep(p)) continue;
    const hit = await searchText(engine, { query: name, mode: 'word', caseMode: 'sensitive', paths: new Set([p]), offset: 0, limit: 1, deadlineAt: o.deadlineAt }).catch(() => undefined);
    const line = hit?.hits[0]?.line ?? 1;
    rows.included.push({ cat: 'included', path: p, line, reason: hit?.hits[0] ? `asked for (must_include_paths); mentions ${name}` : 'asked for (must_include_paths); does not mention the target', ...snippetOf(lines, engine, p, line) });
  }

  const found: Partial<Record<PackCategory, number>> = {};
  for (const c of FILL_ORDER) if (rows[c].length) found[c] = rows[c].length;
  for (const c of FILL_ORDER) rows[c] = rows[c].slice(0, CONTEXT_PACK_ROWS_PER_CATEGORY);

  // ── summary facts and risks ──
  const exposed = [...refProjects.entries()].sort((a, b) => Number(!isEntryProject(b[0])) - Number(!isEntryProject(a[0])) || b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const exposedVia = exposed.slice(0, 3).map(([p]) => p);
  const isPublic = /\b(public|export|protected)\b/.test(signature) || /^\s*export\b/.test(lines?.[start - 1] ?? '');
  const risks: string[] = [];
  const impl = found.implementation ?? 0;
  const byTask: Record<PackTask, string[]> = {
    investigate_bug: ['callers', 'tests', 'coverage', 'public', 'impl'],
    rename: ['refs', 'public', 'impl', 'tests', 'coverage'],
    add_feature: ['impl', 'public', 'callers', 'tests', 'coverage'],
    review: ['tests', 'public', 'callers', 'impl', 'coverage'],
    explore: ['public', 'callers', 'tests', 'impl', 'coverage'],
  };
  const tests = found.test ?? 0;
  const facts: Record<string, string | undefined> = {
    public: isPublic && exposed.length ? `public API: used from ${exposed.length} other project${exposed.length === 1 ? '' : 's'}; a signature change breaks them` : undefined,
    callers: callersFound ? `${callersFound} direct production caller${callersFound === 1 ? '' : 's'} in ${new Set(rows.caller.map((r) => r.project ?? '')).size} project(s) depend on its current behaviour` : undefined,
    tests: tests ? `${tests} test${tests === 1 ? ' exercises' : 's exercise'} it and pin${tests === 1 ? 's' : ''} current behaviour` : 'no related test found (references, callers, naming, co-change): a change is not covered by tests found here',
    impl: impl ? `${impl} implementation${impl === 1 ? '' : 's'}/override${impl === 1 ? '' : 's'} must change with it` : undefined,
    refs: refTotal ? `rename touches ${refTotal} reference${refTotal === 1 ? '' : 's'} in ${refFiles} file${refFiles === 1 ? '' : 's'} (${testRefFiles} test)` : undefined,
    coverage: partial.length || bySame.size ? `coverage is incomplete (see completeness.partial): treat zero counts as unknown` : undefined,
  };
  for (const k of byTask[o.task]) if (facts[k]) risks.push(facts[k]!);

  // Projects by name (unique ones; a shared name keeps its project-file path): shorter rows.
  const g = projectGraph(engine);
  const nameCount = new Map<string, number>();
  for (const p of g?.projects ?? []) nameCount.set(p.name, (nameCount.get(p.name) ?? 0) + 1);
  const byId = new Map((g?.projects ?? []).map((p) => [p.id, nameCount.get(p.name) === 1 ? p.name : p.id]));
  const pname = (id: string) => byId.get(id) ?? id;
  for (const c of FILL_ORDER) for (const r of rows[c]) if (r.project) r.project = pname(r.project);
  return {
    selection: def.target_selection,
    name,
    ...(kind ? { kind } : {}),
    ...(owner ? { owner: pname(owner) } : {}),
    exposedVia: exposedVia.map(pname),
    rows,
    found,
    risks,
    partial: [...modeNotes(), ...partial],
    mode: worst,
    testSource: '',
  };
}

/** Literal config keys and environment variables a span reads. */
export function configKeys(text: string): { key: string; env: boolean }[] {
  const out = new Map<string, boolean>();
  const add = (k: string, env: boolean) => {
    if (out.size < CONTEXT_PACK_MAX_CONFIG_KEYS && k.length <= 120) out.set(k, env);
  };
  for (const m of text.matchAll(/"([A-Za-z][\w.-]*(?::[A-Za-z_][\w.-]*)+)"/g)) add(m[1]!, false);
  for (const m of text.matchAll(/(?:GetSection|GetValue(?:<[^>]*>)?|GetConnectionString|GetRequiredSection|Configuration\s*\[|config(?:uration)?\s*\[|\.get)\(?\s*"([A-Za-z_][\w.:-]*)"/g)) add(m[1]!, false);
  for (const m of text.matchAll(/process\.env(?:\.([A-Z_][A-Z0-9_]*)|\[\s*['"]([A-Z_][A-Z0-9_]*)['"]\s*\])/g)) add((m[1] ?? m[2])!, true);
  for (const m of text.matchAll(/GetEnvironmentVariable\(\s*"([A-Za-z_][\w]*)"/g)) add(m[1]!, true);
  return [...out].map(([key, env]) => ({ key, env }));
}

/** A project that is an entry point by name (Api, Web, Host, App, Cli, Server): listed first under "exposed via". */
function isEntryProject(p: string): boolean {
  return /(^|[./\\-])(api|web|host|app|cli|server|functions?|worker)([./\\-]|\.csproj$|$)/i.test(p);
}

/** A matcher for path filters: a glob, or a path / folder prefix. */
export function pathFilter(globs: string[]): (p: string) => boolean {
  if (globs.length === 0) return () => false;
  const ms = globs.map((g) => (/[*?[{]/.test(g) ? picomatch(g, { dot: true }) : (p: string) => p === g || p.startsWith(g.replace(/\/?$/, '/'))));
  return (p) => ms.some((m) => m(p));
}

function readLines(engine: Engine, p: string): string[] | undefined {
  try {
    return engine.policy.readFile(p).bytes.toString('utf8').split(/\r?\n/);
  } catch {
    return undefined;
  }
}

const fileLines = new WeakMap<Engine, { version: string; byPath: Map<string, string[] | undefined> }>();
function snippetOf(_primary: string[] | undefined, engine: Engine, p: string, line: number): { snippet?: string } {
  let c = fileLines.get(engine);
  if (!c || c.version !== engine.version) fileLines.set(engine, (c = { version: engine.version, byPath: new Map() }));
  if (!c.byPath.has(p)) {
    if (c.byPath.size > 64) c.byPath.clear();
    c.byPath.set(p, readLines(engine, p));
  }
  const t = c.byPath.get(p)?.[line - 1]?.trim();
  return t ? { snippet: t.slice(0, PREVIEW_CHARS) } : {};
}

function conf(r: { confidence: string }): { confidence?: 'heuristic' | 'stale' | 'partial' } {
  return r.confidence === 'exact' ? {} : { confidence: r.confidence as 'heuristic' | 'stale' | 'partial' };
}

function cmpPath(a: { path: string; line: number }, b: { path: string; line: number }): number {
  return (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.line - b.line;
}



function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}
