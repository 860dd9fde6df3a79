/**
 * Queries over a ProjectGraph: the graph around projects (bounded, with counts of what was cut),
 * projects containing a file, shortest dependency paths, projects under a folder. Adjacency is
 * built once per graph object and cached.
 */
import { PACKAGE_ID_PREFIX, type ProjectEdge, type ProjectFileEntry, type ProjectGraph, type ProjectNode } from './ProjectGraph';

export type Direction = 'dependencies' | 'dependents' | 'both';

export interface GraphAroundOptions {
  depth: number;
  direction: Direction;
  includePackages: boolean;
  /** Node cap (projects + packages), the start nodes included. */
  maxNodes: number;
  /** Edge cap. */
  maxEdges: number;
}

export interface GraphNodeRef {
  id: string;
  kind: ProjectNode['kind'] | 'package';
  name: string;
  /** Hops from the nearest start node. */
  distance: number;
  isTest?: boolean;
  status?: ProjectNode['status'];
}

export interface GraphAround {
  nodes: GraphNodeRef[];
  edges: ProjectEdge[];
  /** What the bounds cut: nodes and edges not returned, and whether depth stopped the walk. */
  cut: { nodes: number; edges: number; depthLimited: boolean };
}

interface Index {
  byId: Map<string, ProjectNode>;
  out: Map<string, ProjectEdge[]>;
  in: Map<string, ProjectEdge[]>;
  sortedIds: string[];
}

const cache = new WeakMap<ProjectGraph, Index>();

function index(g: ProjectGraph): Index {
  let ix = cache.get(g);
  if (ix) return ix;
  const byId = new Map(g.projects.map((p) => [p.id, p]));
  const out = new Map<string, ProjectEdge[]>();
  const inn = new Map<string, ProjectEdge[]>();
  for (const e of g.edges) {
    if (e.kind === 'solutionMembership') continue;
    push(out, e.from, e);
    push(inn, e.to, e);
  }
  ix = { byId, out, in: inn, sortedIds: [...byId.keys()].sort() };
  cache.set(g, ix);
  return ix;
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

/** Finds a project by id (its path), by name / assembly name (case-insensitive), or undefined. */
export function findProjects(g: ProjectGraph, query: string): ProjectNode[] {
  const ix = index(g);
  const exact = ix.byId.get(query);
  if (exact) return [exact];
  const q = query.toLowerCase();
  return g.projects.filter((p) => p.name.toLowerCase() === q || p.assemblyName?.toLowerCase() === q);
}

/** Breadth-first walk from `starts` along project references (and package edges when asked), bounded. */
export function graphAround(g: ProjectGraph, starts: string[], opts: GraphAroundOptions): GraphAround {
  const ix = index(g);
  const dist = new Map<string, number>();
  const order: string[] = [];
  let frontier: string[] = [];
  for (const s of starts) {
    if (!dist.has(s)) {
      dist.set(s, 0);
      order.push(s);
      frontier.push(s);
    }
  }
  let depthLimited = false;
  const edgeSet = new Set<ProjectEdge>();
  const follow = (e: ProjectEdge) => e.kind === 'projectReference' || (opts.includePackages && e.kind === 'packageReference');
  for (let d = 0; frontier.length > 0; d++) {
    const next: string[] = [];
    for (const v of frontier) {
      const adj: [ProjectEdge, string][] = [];
      if (opts.direction !== 'dependents') for (const e of ix.out.get(v) ?? []) if (follow(e)) adj.push([e, e.to]);
      if (opts.direction !== 'dependencies') for (const e of ix.in.get(v) ?? []) if (follow(e)) adj.push([e, e.from]);
      for (const [e, w] of adj) {
        if (d >= opts.depth) {
          if (!dist.has(w)) depthLimited = true;
          else edgeSet.add(e);
          continue;
        }
        edgeSet.add(e);
        if (!dist.has(w)) {
          dist.set(w, d + 1);
          order.push(w);
          if (!w.startsWith(PACKAGE_ID_PREFIX)) next.push(w);
        }
      }
    }
    frontier = next;
  }
  const kept = order.slice(0, Math.max(opts.maxNodes, starts.length));
  const keptSet = new Set(kept);
  const inner = [...edgeSet].filter((e) => keptSet.has(e.from) && keptSet.has(e.to));
  const edges = inner.slice(0, opts.maxEdges);
  const nodes = kept.map((id): GraphNodeRef => {
    if (id.startsWith(PACKAGE_ID_PREFIX)) return { id, kind: 'package', name: id.slice(PACKAGE_ID_PREFIX.length), distance: dist.get(id)! };
    const p = ix.byId.get(id);
    return p
      ? { id, kind: p.kind, name: p.name, distance: dist.get(id)!, isTest: p.isTest, status: p.status }
      : { id, kind: 'csharp', name: id, distance: dist.get(id)!, status: 'failed' };
  });
  return { nodes, edges, cut: { nodes: order.length - kept.length, edges: edgeSet.size - edges.length, depthLimited } };
}

export interface ContainingProject {
  project: ProjectNode;
  /** Frameworks under which the file is compiled (the project's own when the entry has none). */
  targetFrameworks: string[];
  link?: string;
}

/** Every project that compiles, links or contains `file`. */
export function projectsContaining(g: ProjectGraph, file: string): ContainingProject[] {
  const ix = index(g);
  const entries: ProjectFileEntry[] = g.files.get(file) ?? [];
  const out: ContainingProject[] = [];
  for (const e of entries) {
    const p = ix.byId.get(e.project);
    if (!p) continue;
    const c: ContainingProject = { project: p, targetFrameworks: e.targetFrameworks ?? p.targetFrameworks };
    if (e.link) c.link = e.link;
    out.push(c);
  }
  return out;
}

export interface DependencyPaths {
  /** Shortest paths (each a list of project ids from `from` to `to`), at most `maxPaths`. */
  paths: string[][];
  /** Hops of the shortest path; undefined when `to` is unreachable. */
  length?: number;
  /** True when more shortest paths exist than were returned. */
  truncated: boolean;
}

/** Shortest projectReference paths from `from` to `to` (following dependencies). */
export function dependencyPaths(g: ProjectGraph, from: string, to: string, maxPaths: number): DependencyPaths {
  const ix = index(g);
  const dist = new Map<string, number>([[from, 0]]);
  const preds = new Map<string, string[]>();
  let frontier = [from];
  let found = from === to;
  while (frontier.length > 0 && !found) {
    const next: string[] = [];
    for (const v of frontier) {
      for (const e of ix.out.get(v) ?? []) {
        if (e.kind !== 'projectReference') continue;
        const w = e.to;
        const dv = dist.get(v)! + 1;
        const dw = dist.get(w);
        if (dw === undefined) {
          dist.set(w, dv);
          preds.set(w, [v]);
          next.push(w);
        } else if (dw === dv && !preds.get(w)!.includes(v)) preds.get(w)!.push(v);
      }
    }
    if (dist.has(to)) found = true;
    frontier = next;
  }
  if (!found) return { paths: [], truncated: false };
  if (from === to) return { paths: [[from]], length: 0, truncated: false };
  const paths: string[][] = [];
  let truncated = false;
  const walk = (v: string, suffix: string[]) => {
    if (paths.length >= maxPaths) {
      truncated = true;
      return;
    }
    if (v === from) {
      paths.push([from, ...suffix]);
      return;
    }
    for (const p of preds.get(v) ?? []) {
      walk(p, [v, ...suffix]);
      if (truncated) return;
    }
  };
  walk(to, []);
  return { paths, length: dist.get(to)!, truncated };
}

/** Projects whose file lies under a folder prefix ('' for all), sorted by path. */
export function projectsUnder(g: ProjectGraph, prefix: string): ProjectNode[] {
  const ix = index(g);
  const p = prefix.replace(/\/+$/, '');
  if (p === '') return ix.sortedIds.map((id) => ix.byId.get(id)!);
  const withSlash = p + '/';
  return ix.sortedIds.filter((id) => id.startsWith(withSlash)).map((id) => ix.byId.get(id)!);
}
