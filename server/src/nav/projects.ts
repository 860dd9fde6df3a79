/**
 * Project questions in editor terms, answered from the project graph the index stores (loaded once
 * per index version): the graph around a project, projects containing a file, dependency paths,
 * projects under a folder, the project of a file row, and the repo_overview section.
 */
import { ToolError } from '../core/errors';
import { PROJECT_GRAPH_BLOB, PROJECT_GRAPH_STAMP } from '../index/projectsHook';
import { dependencyPaths, findProjects, graphAround, projectsContaining, projectsUnder, type Direction, type GraphAround } from '../projects/graphQueries';
import { PACKAGE_ID_PREFIX, type ProjectEdge, type ProjectGraph, type ProjectNode } from '../projects/ProjectGraph';
import { deserializeProjectGraph } from '../projects/serializeProjectGraph';
import type { Engine } from './engine';

/**
 * A project's status as tools show it: a project whose file exists in a folder the index leaves out
 * is `not_indexed` (the graph's `failed` + `notIndexed`; the VS Code view's "not indexed"), not a failure.
 */
export type ShownStatus = ProjectNode['status'] | 'not_indexed';
export const shownStatus = (p: Pick<ProjectNode, 'status' | 'notIndexed'>): ShownStatus => (p.notIndexed ? 'not_indexed' : p.status);

/** A project as tools show it: compact, with the reasons when it is not complete. */
export interface ProjectRow {
  id: string;
  name: string;
  kind: ProjectNode['kind'];
  isTest: boolean;
  targetFrameworks: string[];
  status: ShownStatus;
  reasons?: string[];
  assemblyName?: string;
  rootNamespace?: string;
  files: number;
}

/** The graph last loaded per engine, keyed by the stamp the index hook writes with it. */
const loaded = new WeakMap<Engine, { version: string; graph: ProjectGraph | undefined }>();

/** The stored graph (reloaded when the index hook stored a new one), or undefined before the first build. */
export function projectGraph(engine: Engine): ProjectGraph | undefined {
  const version = engine.store.getMeta(PROJECT_GRAPH_STAMP) ?? 'none';
  const hit = loaded.get(engine);
  if (hit && hit.version === version) return hit.graph;
  const text = engine.store.getBlobText(PROJECT_GRAPH_BLOB);
  const graph = text === undefined ? undefined : deserializeProjectGraph(text);
  loaded.set(engine, { version, graph });
  return graph;
}

/** The graph, or a ToolError saying it is not built yet. */
export function requireGraph(engine: Engine): ProjectGraph {
  const g = projectGraph(engine);
  if (!g) {
    throw new ToolError('INDEX_UNAVAILABLE', 'The project graph is not built yet', 'retry when repo_overview reports the index as fresh');
  }
  return g;
}

export function projectRow(p: ProjectNode, maxReasons = 3): ProjectRow {
  const row: ProjectRow = { id: p.id, name: p.name, kind: p.kind, isTest: p.isTest, targetFrameworks: p.targetFrameworks, status: shownStatus(p), files: p.fileCount };
  if (p.reasons.length > 0) row.reasons = p.reasons.slice(0, maxReasons);
  if (p.assemblyName !== undefined && p.assemblyName !== p.name) row.assemblyName = p.assemblyName;
  if (p.rootNamespace !== undefined && p.rootNamespace !== p.name) row.rootNamespace = p.rootNamespace;
  return row;
}

/** Resolves a project argument: a project file path, a name or an assembly name. */
export function resolveProject(g: ProjectGraph, query: string): ProjectNode {
  const hits = findProjects(g, query.trim().replace(/\\/g, '/'));
  if (hits.length === 1) return hits[0]!;
  if (hits.length === 0) {
    throw new ToolError('PROJECT_NOT_FOUND', `No project '${query}'`, 'pass a project file path (e.g. src/App/App.csproj) or a project name; projects_under lists them');
  }
  throw new ToolError('AMBIGUOUS_TARGET', `'${query}' names ${hits.length} projects`, `pass one of the paths: ${hits.slice(0, 5).map((h) => h.id).join(', ')}`, {
    candidates: hits.slice(0, 20).map((h) => h.id),
  });
}

export interface GraphQuery {
  /** A project (path or name) or a solution path (.sln/.slnx/.slnf: starts from its projects). */
  project?: string | undefined;
  prefix?: string | undefined;
  depth: number;
  direction: Direction;
  includePackages: boolean;
  includeSolutions?: boolean;
  maxNodes: number;
  maxEdges: number;
}

export interface GraphAnswer extends GraphAround {
  starts: string[];
  projects: Map<string, ProjectNode>;
}

/** The bounded graph around one project or every project under a folder prefix. */
export function graphQuery(engine: Engine, q: GraphQuery): GraphAnswer {
  const g = requireGraph(engine);
  let starts: string[];
  const solution = q.project !== undefined ? g.solutions.find((s) => s.path === q.project!.trim().replace(/\\/g, '/')) : undefined;
  if (solution) {
    const have = new Set(g.projects.map((p) => p.id));
    starts = solution.projects.filter((p) => have.has(p));
    if (starts.length === 0) throw new ToolError('PROJECT_NOT_FOUND', `${solution.path} lists no project that could be read`, 'see projects_under for the projects of the workspace');
  } else if (q.project !== undefined) starts = [resolveProject(g, q.project).id];
  else if (q.prefix !== undefined) {
    starts = projectsUnder(g, q.prefix).map((p) => p.id);
    if (starts.length === 0) throw new ToolError('PROJECT_NOT_FOUND', `No project under '${q.prefix}'`, 'pass a folder that holds project files, or a project');
  } else throw new ToolError('INVALID_ARGUMENT', 'Pass either project or prefix', 'e.g. {"project": "src/App/App.csproj"} or {"prefix": "src/Billing"}');
  const r = graphAround(g, starts, q);
  return { ...r, starts, projects: new Map(g.projects.map((p) => [p.id, p])) };
}

export interface ContainingRow {
  project: string;
  name: string;
  kind: ProjectNode['kind'];
  isTest: boolean;
  targetFrameworks: string[];
  link?: string;
  status: ShownStatus;
}

/** Every project that compiles, links or contains the file. */
export function containing(engine: Engine, path: string): ContainingRow[] {
  const g = requireGraph(engine);
  return projectsContaining(g, path).map((c) => {
    const row: ContainingRow = { project: c.project.id, name: c.project.name, kind: c.project.kind, isTest: c.project.isTest, targetFrameworks: c.targetFrameworks, status: shownStatus(c.project) };
    if (c.link) row.link = c.link;
    return row;
  });
}

export interface PathAnswer {
  from: ProjectNode;
  to: ProjectNode;
  paths: string[][];
  length?: number;
  truncated: boolean;
  /** Set when there is no path from → to but there is one to → from. */
  reverse?: boolean;
}

/** Shortest project-reference paths from one project to another (tries the reverse when none). */
export function dependencyPath(engine: Engine, from: string, to: string, maxPaths: number): PathAnswer {
  const g = requireGraph(engine);
  const a = resolveProject(g, from);
  const b = resolveProject(g, to);
  const r = dependencyPaths(g, a.id, b.id, maxPaths);
  if (r.paths.length > 0) return { from: a, to: b, ...r };
  const back = dependencyPaths(g, b.id, a.id, maxPaths);
  if (back.paths.length > 0) return { from: a, to: b, paths: back.paths, ...(back.length !== undefined ? { length: back.length } : {}), truncated: back.truncated, reverse: true };
  return { from: a, to: b, paths: [], truncated: false };
}

/** Projects under a folder prefix, sorted by path. */
export function under(engine: Engine, prefix: string): ProjectNode[] {
  return projectsUnder(requireGraph(engine), prefix);
}

const filesCache = new WeakMap<ProjectGraph, Map<string, Set<string>>>();

/**
 * The files a project compiles or contains, plus the files under its folder (project files,
 * configuration) — the `project` filter of find_file and search_text.
 */
export function filesOfProject(engine: Engine, project: string): { project: ProjectNode; paths: Set<string> } {
  const g = requireGraph(engine);
  const p = resolveProject(g, project);
  let byProject = filesCache.get(g);
  if (!byProject) {
    byProject = new Map();
    for (const [file, entries] of g.files) {
      for (const e of entries) {
        const set = byProject.get(e.project) ?? new Set<string>();
        set.add(file);
        byProject.set(e.project, set);
      }
    }
    filesCache.set(g, byProject);
  }
  const paths = new Set(byProject.get(p.id) ?? []);
  const slash = p.id.lastIndexOf('/');
  const dir = slash < 0 ? '' : p.id.slice(0, slash + 1);
  for (const row of engine.catalog().all()) if (row.path.startsWith(dir)) paths.add(row.path);
  return { project: p, paths };
}

/** Project ids of a file (for `project` on find_file / search_text rows); empty when none or no graph. */
export function projectsOfFile(engine: Engine, path: string): string[] {
  const g = projectGraph(engine);
  if (!g) return [];
  return (g.files.get(path) ?? []).map((e) => e.project);
}

export interface ProjectsOverview {
  total: number;
  byKind: Record<string, { production: number; test: number }>;
  readiness: { complete: number; partial: number; failed: number };
  /** Up to five projects that are not complete, with their first reason. */
  notComplete: { id: string; status: ShownStatus; reason: string }[];
  /** The first solutions (see solutionCount for all). */
  solutions: { path: string; kind: string; projects: number; status: string }[];
  solutionCount: number;
  targetFrameworks: Record<string, number>;
  packages: number;
}

/** The repo_overview section: projects by kind (production/test), readiness, solutions, frameworks. */
export function projectsOverview(engine: Engine, maxSolutions = 10): ProjectsOverview | undefined {
  const g = projectGraph(engine);
  if (!g) return undefined;
  const byKind: ProjectsOverview['byKind'] = {};
  const readiness = { complete: 0, partial: 0, failed: 0 };
  const tfms: Record<string, number> = {};
  const notComplete: ProjectsOverview['notComplete'] = [];
  for (const p of g.projects) {
    const k = (byKind[p.kind] ??= { production: 0, test: 0 });
    if (p.isTest) k.test++;
    else k.production++;
    readiness[p.status]++;
    if (p.status !== 'complete' && notComplete.length < 5) notComplete.push({ id: p.id, status: shownStatus(p), reason: p.reasons[0] ?? '' });
    for (const t of p.targetFrameworks) tfms[t] = (tfms[t] ?? 0) + 1;
  }
  const packages = new Set(g.edges.filter((e: ProjectEdge) => e.kind === 'packageReference').map((e) => e.to.slice(PACKAGE_ID_PREFIX.length))).size;
  return {
    total: g.projects.length,
    byKind,
    readiness,
    notComplete,
    solutions: g.solutions.slice(0, maxSolutions).map((s) => ({ path: s.path, kind: s.kind, projects: s.projects.length, status: s.status })),
    solutionCount: g.solutions.length,
    targetFrameworks: tfms,
    packages,
  };
}
