/**
 * impact: the blast radius of a change before it is made, as typed sections in a closed
 * vocabulary — `symbol`, `references` (by project, production/test), `incoming_calls`,
 * `implementations` (implementations and overrides), `dependent_projects`, `tests`, `public_api`.
 * Each section says whether it ran (`execution`: included | omitted_by_policy |
 * not_run_target_unresolved), what it rests on (`mode` for navigation sections, `trust`), its exact
 * `count` (rows show at most IMPACT_ROWS_PER_SECTION; `drill` names the tool that lists all), and
 * what cut it (`truncated`, `partial`). A zero in an included section is evidence; an omitted one
 * is not. `change_kind` selects the sections and ranks the risks.
 */
import { IMPACT_DEPENDENTS_DEPTH, IMPACT_ROWS_PER_SECTION, IMPACT_TESTS, SEMANTIC_CALLS_MAX_EDGES } from '../../core/limits';
import type { NavigationMode } from '../../semantic/provider';
import type { Engine } from '../engine';
import { projectGraph } from '../projects';
import { callsQuery, definitionQuery, implementationsQuery, referencesQuery, type AmbiguousAnswer, type NavOptions, type NavRow } from '../semanticQueries';
import { resolveTarget, type TargetInput, type TargetRef, type TargetSelection } from '../semanticTarget';
import { symbolIds } from '../symbolIds';
import { relatedTests } from './relatedTests';
import { CALLABLE, fileSymbols } from './testMethods';

export const IMPACT_SECTIONS = ['symbol', 'references', 'incoming_calls', 'implementations', 'dependent_projects', 'tests', 'public_api'] as const;
export type ImpactSectionName = (typeof IMPACT_SECTIONS)[number];
export type ChangeKind = 'signature' | 'behavior' | 'rename' | 'delete';
export type Execution = 'included' | 'omitted_by_policy' | 'not_run_target_unresolved';

export interface ImpactSection {
  section: ImpactSectionName;
  execution: Execution;
  /** Navigation precision of what the section rests on (navigation sections). */
  mode?: NavigationMode;
  /** What the section rests on besides navigation: `project_graph`, `syntax`, `ranked_evidence`. */
  trust?: string;
  /** Exact number of findings (references, callers, projects…); rows list at most IMPACT_ROWS_PER_SECTION. */
  count?: number;
  truncated?: 'cap' | 'deadline';
  /** Coverage is missing: the count is a lower bound. */
  partial?: string;
  /** Why it was omitted (execution omitted_by_policy). */
  why?: string;
  /** The tool (and arguments besides the target) listing the whole section. */
  drill?: string;
  rows?: Record<string, unknown>[];
}

export interface ImpactRisk {
  level: 'high' | 'medium' | 'low';
  section: ImpactSectionName;
  text: string;
}

export interface ImpactAnswer {
  name: string;
  target_selection: TargetSelection;
  /** The target's ref, said once (sections drill in with it). */
  target_ref?: TargetRef;
  sections: ImpactSection[];
  risks: ImpactRisk[];
}

/** Which sections each change kind runs, and why the others are left out. */
const POLICY: Record<ChangeKind, Partial<Record<ImpactSectionName, string>>> = {
  signature: {},
  delete: {},
  behavior: {
    references: 'a behaviour change keeps every use compiling: callers and tests say who depends on the behaviour',
    dependent_projects: 'a behaviour change needs no rebuild of dependents to be found; callers and tests carry it',
  },
  rename: {
    incoming_calls: 'a rename touches every reference, calls included: see references',
    tests: 'a rename changes no behaviour: the build finds what it breaks',
  },
};

const TYPE_KINDS = new Set(['class', 'struct', 'interface', 'record', 'enum', 'trait', 'module']);

export async function impact(engine: Engine, target: TargetInput, changeKind: ChangeKind, o: NavOptions = {}): Promise<ImpactAnswer | (AmbiguousAnswer & { sections: ImpactSection[] })> {
  const t = resolveTarget(engine, target);
  if ('ambiguous' in t) {
    return { ambiguous: true, target_selection: t.selection, sections: IMPACT_SECTIONS.map((section) => ({ section, execution: 'not_run_target_unresolved' as const })) };
  }
  const sym = t.selection.symbol;
  const name = sym?.name ?? t.name;
  const kind = sym?.kind ?? '';
  const policy = { ...POLICY[changeKind] };
  if (sym && !CALLABLE.has(kind)) policy.incoming_calls = `a ${kind} is not called: see references`;
  const runs = (s: ImpactSectionName) => policy[s] === undefined;
  const g = projectGraph(engine);
  const home = t.project ?? symbolIds(engine).primary(t.position.path)?.project.id ?? g?.files.get(t.position.path)?.[0]?.project;
  const projectName = (id: string | undefined) => (id === undefined ? '(no project)' : (g?.projects.find((p) => p.id === id)?.name ?? id));

  // The navigation questions, at once (each has its own share of the deadline inside the registry).
  const needRefs = runs('references') || runs('dependent_projects') || runs('public_api') || runs('tests');
  const [def, refs, calls, impls] = await Promise.all([
    definitionQuery(engine, target, o),
    needRefs ? referencesQuery(engine, target, { ...o, includeDefinition: false }) : undefined,
    runs('incoming_calls') ? callsQuery(engine, target, 'incoming', 1, SEMANTIC_CALLS_MAX_EDGES, o) : undefined,
    runs('implementations') ? implementationsQuery(engine, target, o) : undefined,
  ]);
  const tests = runs('tests') ? await relatedTests(engine, target, { ...o, maxRows: IMPACT_TESTS * 10, ...(refs ? { references: refs } : {}) }) : undefined;

  const sections: ImpactSection[] = [];
  const omitted = (section: ImpactSectionName): ImpactSection => ({ section, execution: 'omitted_by_policy', why: policy[section]! });
  const partialOf = (a: { mode: NavigationMode; gaps: string[]; reason?: string }) =>
    a.mode === 'precise_partial' ? { partial: a.gaps.join('; ') || 'coverage incomplete' } : a.mode === 'unavailable_no_precise' ? { partial: a.reason ?? 'no provider answered' } : {};

  // symbol
  const decl = 'ambiguous' in def ? [] : def.rows;
  const own = fileSymbols(engine, t.position.path).find((s) => s.nameLine === t.position.line && s.nameColumn === t.position.column);
  const exposure = exposureOf(engine, t.position.path, t.position.line, t.position.column);
  sections.push({
    section: 'symbol',
    execution: 'included',
    ...('ambiguous' in def ? {} : { mode: def.mode }),
    trust: 'resolved_target',
    count: decl.length,
    rows: [
      {
        name,
        kind,
        ...(sym?.signature ? { signature: sym.signature } : {}),
        ...(home ? { project: projectName(home) } : {}),
        exposure,
        declarations: (decl.length ? decl : [{ path: t.position.path, line: own?.line ?? t.position.line }]).map((d) => `${d.path}:${d.line}`),
      },
    ],
  });

  // references, by project
  if (runs('references') && refs && !('ambiguous' in refs)) {
    const groups = byProject(refs.rows);
    sections.push({
      section: 'references',
      execution: 'included',
      mode: refs.mode,
      count: refs.counts.total,
      ...partialOf(refs),
      drill: 'references group_by=project',
      // A project's test references are said apart when the project mixes both (a package with its tests inside).
      rows: groups.slice(0, IMPACT_ROWS_PER_SECTION).map((x) => ({ project: projectName(x.project), ...(x.isTest ? { isTest: true } : {}), count: x.count, ...(!x.isTest && x.test ? { test: x.test } : {}) })),
      ...(groups.length > IMPACT_ROWS_PER_SECTION ? { truncated: 'cap' as const } : {}),
    });
  } else if (!runs('references')) sections.push(omitted('references'));

  // incoming calls
  if (calls && !('ambiguous' in calls)) {
    const callers = calls.edges;
    sections.push({
      section: 'incoming_calls',
      execution: 'included',
      mode: calls.mode,
      count: callers.length,
      ...(calls.availability === 'unavailable' ? { partial: `call hierarchy unavailable: ${calls.reason ?? 'no provider'} (not "no callers")` } : partialOf(calls)),
      ...(calls.truncated ? { truncated: calls.truncated } : {}),
      drill: 'callers',
      rows: callers.slice(0, IMPACT_ROWS_PER_SECTION).map((e) => ({ caller: e.caller.name ?? e.caller.path, path: e.caller.path, line: e.sites[0]?.line ?? e.caller.line, ...(e.caller.project ? { project: projectName(e.caller.project) } : {}), ...(e.caller.isTest ? { isTest: true } : {}), ...(e.caller.target_ref ? { target_ref: e.caller.target_ref } : {}) })),
      ...(callers.length > IMPACT_ROWS_PER_SECTION && !calls.truncated ? { truncated: 'cap' as const } : {}),
    });
  } else if (!runs('incoming_calls')) sections.push(omitted('incoming_calls'));

  // implementations and overrides
  if (impls && !('ambiguous' in impls)) {
    const rows = impls.rows.filter((r) => !(r.path === t.position.path && r.line === t.position.line));
    sections.push({
      section: 'implementations',
      execution: 'included',
      mode: impls.mode,
      count: rows.length,
      ...partialOf(impls),
      drill: TYPE_KINDS.has(kind) ? 'implementations (or type_hierarchy)' : 'implementations',
      rows: rows.slice(0, IMPACT_ROWS_PER_SECTION).map((r) => ({ ...(r.name ? { name: r.container ? `${r.container}.${r.name}` : r.name } : {}), path: r.path, line: r.line, ...(r.project ? { project: projectName(r.project) } : {}), ...(r.target_ref ? { target_ref: r.target_ref } : {}) })),
      ...(rows.length > IMPACT_ROWS_PER_SECTION ? { truncated: 'cap' as const } : {}),
    });
  } else if (!runs('implementations')) sections.push(omitted('implementations'));

  // dependent projects (project graph), with the references found in each
  if (runs('dependent_projects')) {
    const deps = dependents(g, home);
    const refsBy = new Map((refs && !('ambiguous' in refs) ? byProject(refs.rows) : []).map((x) => [x.project, x.count]));
    const rows = deps.rows
      .map((d) => ({ project: projectName(d.id), distance: d.distance, ...(d.isTest ? { isTest: true } : {}), references: refsBy.get(d.id) ?? 0 }))
      .sort((a, b) => Number(b.references > 0) - Number(a.references > 0) || a.distance - b.distance || (a.project < b.project ? -1 : 1));
    sections.push({
      section: 'dependent_projects',
      execution: home ? 'included' : 'not_run_target_unresolved',
      trust: 'project_graph',
      count: rows.length,
      ...(home ? {} : { partial: 'the target is in no project of the project model' }),
      ...(deps.cut ? { partial: `${deps.cut} dependents beyond depth ${IMPACT_DEPENDENTS_DEPTH} not walked` } : {}),
      drill: 'project_graph direction=dependents',
      rows: rows.slice(0, IMPACT_ROWS_PER_SECTION),
      ...(rows.length > IMPACT_ROWS_PER_SECTION ? { truncated: 'cap' as const } : {}),
    });
  } else sections.push(omitted('dependent_projects'));

  // tests
  if (tests && !('ambiguous' in tests)) {
    sections.push({
      section: 'tests',
      execution: 'included',
      mode: tests.mode,
      trust: 'ranked_evidence',
      count: tests.rows.length,
      ...(tests.mode === 'precise_partial' ? { partial: tests.gaps.join('; ') } : {}),
      ...(tests.truncated ? { truncated: tests.truncated } : {}),
      drill: 'related_tests',
      rows: tests.rows.slice(0, Math.min(IMPACT_TESTS, IMPACT_ROWS_PER_SECTION)).map((r) => ({ name: r.container ? `${r.container}.${r.name}` : r.name, path: r.path, line: r.line, confidence: r.confidence, ...(r.run ? { run: r.run } : {}) })),
      ...(tests.rows.length > IMPACT_ROWS_PER_SECTION && !tests.truncated ? { truncated: 'cap' as const } : {}),
    });
  } else if (!runs('tests')) sections.push(omitted('tests'));

  // public API exposure: declared accessibility, and uses from other projects
  if (runs('public_api')) {
    const outside = refs && !('ambiguous' in refs) ? byProject(refs.rows).filter((x) => x.project !== home) : [];
    const uses = outside.reduce((n, x) => n + x.count, 0);
    sections.push({
      section: 'public_api',
      execution: 'included',
      ...(refs && !('ambiguous' in refs) ? { mode: refs.mode } : {}),
      trust: 'syntax',
      count: outside.length,
      ...(refs && !('ambiguous' in refs) ? partialOf(refs) : {}),
      rows: [{ exposure, otherProjects: outside.length, otherProjectReferences: uses, ...(outside.length ? { projects: outside.slice(0, IMPACT_ROWS_PER_SECTION).map((x) => projectName(x.project)) } : {}) }],
    });
  }

  const order = new Map(IMPACT_SECTIONS.map((s, i) => [s, i]));
  sections.sort((a, b) => order.get(a.section)! - order.get(b.section)!);
  const answer: ImpactAnswer = { name, target_selection: t.selection, sections, risks: risksOf(sections, changeKind, exposure) };
  const ref = decl[0]?.target_ref;
  if (ref) answer.target_ref = ref;
  return answer;
}

function byProject(rows: readonly NavRow[]): { project: string | undefined; isTest: boolean; count: number; test: number }[] {
  const m = new Map<string | undefined, { project: string | undefined; isTest: boolean; count: number; test: number }>();
  for (const r of rows) {
    const g = m.get(r.project) ?? m.set(r.project, { project: r.project, isTest: true, count: 0, test: 0 }).get(r.project)!;
    g.count++;
    if (r.isTest) g.test++;
    g.isTest &&= r.isTest;
  }
  // Production projects first, then by count, then by key: one total order.
  return [...m.values()].sort((a, b) => Number(a.isTest) - Number(b.isTest) || b.count - a.count || ((a.project ?? '') < (b.project ?? '') ? -1 : 1));
}

/** Projects depending on `home` through project references, nearest first (bounded depth). */
function dependents(g: ReturnType<typeof projectGraph>, home: string | undefined): { rows: { id: string; distance: number; isTest: boolean }[]; cut: number } {
  if (!g || !home) return { rows: [], cut: 0 };
  const into = new Map<string, string[]>();
  for (const e of g.edges) if (e.kind === 'projectReference') (into.get(e.to) ?? into.set(e.to, []).get(e.to)!).push(e.from);
  const isTest = new Map(g.projects.map((p) => [p.id, p.isTest]));
  const seen = new Map<string, number>([[home, 0]]);
  let frontier = [home];
  let cut = 0;
  for (let d = 1; frontier.length; d++) {
    const next: string[] = [];
    for (const p of frontier) {
      for (const q of into.get(p) ?? []) {
        if (seen.has(q)) continue;
        if (d > IMPACT_DEPENDENTS_DEPTH) {
          cut++;
          seen.set(q, d);
          continue;
        }
        seen.set(q, d);
        next.push(q);
      }
    }
    frontier = d > IMPACT_DEPENDENTS_DEPTH ? [] : next;
  }
  const rows = [...seen.entries()].filter(([id, d]) => id !== home && d <= IMPACT_DEPENDENTS_DEPTH).map(([id, distance]) => ({ id, distance, isTest: isTest.get(id) ?? false }));
  return { rows, cut };
}

/**
 * The declared exposure of a declaration: the narrowest accessibility on its chain of containers
 * (C#: public / protected / internal / private, defaults internal for top-level types and private
 * for members; TS/JS: `exported` when the top-level declaration is exported, `private` /
 * `protected` members, else `module`).
 */
export function exposureOf(engine: Engine, rel: string, line: number, column: number): string {
  const syms = fileSymbols(engine, rel);
  const self = syms.find((s) => s.nameLine === line && s.nameColumn === column);
  if (!self) return 'unknown';
  const byOrdinal = new Map(syms.map((s) => [s.ordinal, s]));
  const chain = [self];
  for (let p = byOrdinal.get(self.parent); p && chain.length < 32; p = byOrdinal.get(p.parent)) if (p.kind !== 'namespace') chain.push(p);
  if (/\.cs$/i.test(rel)) {
    const rank = { public: 0, protected: 1, internal: 2, private: 3 } as const;
    let worst: keyof typeof rank = 'public';
    for (const [i, s] of chain.entries()) {
      const m = s.modifiers;
      const parentIsInterface = chain[i + 1]?.kind === 'interface';
      const own: keyof typeof rank = m.includes('public') || parentIsInterface ? 'public' : m.includes('protected') && !m.includes('private') ? 'protected' : m.includes('internal') ? 'internal' : m.includes('private') ? 'private' : i === chain.length - 1 ? 'internal' : 'private';
      if (rank[own] > rank[worst]) worst = own;
    }
    return worst;
  }
  if (self.modifiers.includes('private') || self.modifiers.includes('protected')) return self.modifiers.includes('private') ? 'private' : 'protected';
  const top = chain[chain.length - 1]!;
  try {
    const text = engine.policy.readFile(rel).bytes.toString('utf8').split(/\r?\n/)[top.line - 1] ?? '';
    return /^\s*export\b/.test(text) ? 'exported' : 'module';
  } catch {
    return 'unknown';
  }
}

/** Risks of the change, most serious first (section order breaks ties). */
function risksOf(sections: ImpactSection[], kind: ChangeKind, exposure: string): ImpactRisk[] {
  const s = (n: ImpactSectionName) => sections.find((x) => x.section === n && x.execution === 'included');
  const out: ImpactRisk[] = [];
  const refs = s('references');
  const api = s('public_api');
  const impls = s('implementations');
  const calls = s('incoming_calls');
  const tests = s('tests');
  const deps = s('dependent_projects');
  const breaking = kind !== 'behavior';
  const other = (api?.rows?.[0]?.otherProjects as number | undefined) ?? 0;
  if (breaking && api && (exposure === 'public' || exposure === 'exported' || exposure === 'protected')) {
    out.push({ level: other > 0 ? 'high' : 'medium', section: 'public_api', text: other > 0 ? `${exposure} API used from ${other} other project${other === 1 ? '' : 's'} (${String(api.rows![0]!.otherProjectReferences)} references): they break` : `${exposure}: no other project of the workspace uses it, but code outside the workspace may` });
  }
  if (breaking && refs && (refs.count ?? 0) > 0) out.push({ level: kind === 'delete' || (refs.count ?? 0) > 20 ? 'high' : 'medium', section: 'references', text: `${refs.count} reference${refs.count === 1 ? '' : 's'} to update${refs.partial ? ' (at least: coverage partial)' : ''}` });
  if (breaking && impls && (impls.count ?? 0) > 0) out.push({ level: 'high', section: 'implementations', text: `${impls.count} implementation${impls.count === 1 ? '' : 's'} / override${impls.count === 1 ? '' : 's'} change with it` });
  if (kind === 'behavior' || kind === 'delete') {
    if (calls && (calls.count ?? 0) > 0) out.push({ level: (calls.count ?? 0) > 10 ? 'high' : 'medium', section: 'incoming_calls', text: `${calls.count} caller${calls.count === 1 ? '' : 's'} rely on the current behaviour` });
    if (kind === 'behavior' && impls && (impls.count ?? 0) > 0) out.push({ level: 'medium', section: 'implementations', text: `${impls.count} implementation${impls.count === 1 ? '' : 's'} / override${impls.count === 1 ? '' : 's'} may need the same change` });
  }
  if (tests && kind !== 'rename') {
    const exact = (tests.rows ?? []).filter((r) => r.confidence === 'exact').length;
    if ((tests.count ?? 0) === 0) out.push({ level: kind === 'behavior' ? 'high' : 'medium', section: 'tests', text: 'no test found that covers it: the change is unguarded' });
    else out.push({ level: 'low', section: 'tests', text: `${tests.count} related test${tests.count === 1 ? '' : 's'} (${exact} shown exact): run them` });
  }
  if (deps && (deps.count ?? 0) > 0 && breaking) out.push({ level: 'medium', section: 'dependent_projects', text: `${deps.count} project${deps.count === 1 ? '' : 's'} depend on its project: rebuild them` });
  for (const x of sections) if (x.execution === 'included' && x.partial) out.push({ level: 'low', section: x.section, text: `${x.section} is partial (${x.partial}): its count is a lower bound` });
  const lv = { high: 0, medium: 1, low: 2 } as const;
  const order = new Map(IMPACT_SECTIONS.map((n, i) => [n, i]));
  return out.sort((a, b) => lv[a.level] - lv[b.level] || order.get(a.section)! - order.get(b.section)!);
}
