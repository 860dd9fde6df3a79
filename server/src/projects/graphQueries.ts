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
  /** Add the solutions that list returned projects, with solutionMembership edges (within the caps). */
  includeSolutions?: boolean;
  /**
   * induced (default): every edge among returned nodes. walk: only the edges the walk followed
   * (from distance k to k+1 in the walk's direction) and edges between two start nodes — depth 1
   * around one project is then exactly its direct references, without the edges among them.
   */
  edges?: 'induced' | 'walk';
}

export interface GraphNodeRef {
  id: string;
  kind: ProjectNode['kind'] | 'package' | 'solution';
  name: string;
  /** Hops from the nearest start node. */
  distance: number;
  isTest?: boolean;
  status?: ProjectNode['status'];
  /** The project file exists in a folder the index leaves out (ProjectNode.notIndexed). */
  notIndexed?: true;
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
  /** Dense numbering of every edge endpoint (projects and packages) for the graph walk. */
  num: Map<string, number>;
  names: string[];
  isPackage: Uint8Array;
  /** Per node: outgoing / incoming non-solution edges and the neighbour numbers, aligned. */
  outE: ProjectEdge[][];
  outN: number[][];
  inE: ProjectEdge[][];
  inN: number[][];
}

const cache = new WeakMap<ProjectGraph, Index>();

function index(g: ProjectGraph): Index {
  let ix = cache.get(g);
  if (ix) return ix;
  const byId = new Map(g.projects.map((p) => [p.id, p]));
  const out = new Map<string, ProjectEdge[]>();
  const inn = new Map<string, ProjectEdge[]>();
  const num = new Map<string, number>();
  const names: string[] = [];
  const n = (id: string) => {
    let k = num.get(id);
    if (k === undefined) {
      k = names.length;
      num.set(id, k);
      names.push(id);
    }
    return k;
  };
  for (const p of g.projects) n(p.id);
  for (const e of g.edges) {
    if (e.kind === 'solutionMembership') continue;
    push(out, e.from, e);
    push(inn, e.to, e);
    n(e.from);
    n(e.to);
  }
  const outE: ProjectEdge[][] = names.map(() => []);
  const outN: number[][] = names.map(() => []);
  const inE: ProjectEdge[][] = names.map(() => []);
  const inN: number[][] = names.map(() => []);
  for (const e of g.edges) {
    if (e.kind === 'solutionMembership') continue;
    const a = num.get(e.from)!;
    const b = num.get(e.to)!;
    outE[a]!.push(e);
    outN[a]!.push(b);
    inE[b]!.push(e);
    inN[b]!.push(a);
  }
  const isPackage = new Uint8Array(names.length);
  names.forEach((id, i) => (isPackage[i] = id.startsWith(PACKAGE_ID_PREFIX) ? 1 : 0));
  ix = { byId, out, in: inn, sortedIds: [...byId.keys()].sort(), num, names, isPackage, outE, outN, inE, inN };
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

/**
 * Breadth-first walk from `starts` along project references (and package edges when asked), bounded.
 * Edges returned are those between returned nodes (the induced subgraph); `cut` counts the nodes
 * reached but not returned and the edges among reached nodes that were left out.
 */
export function graphAround(g: ProjectGraph, starts: string[], opts: GraphAroundOptions): GraphAround {
  const ix = index(g);
  const dist = new Int32Array(ix.names.length).fill(-1);
  const order: number[] = [];
  let frontier: number[] = [];
  const unknownStarts: string[] = [];
  for (const s of starts) {
    const k = ix.num.get(s);
    if (k === undefined) {
      if (!unknownStarts.includes(s)) unknownStarts.push(s);
      continue;
    }
    if (dist[k] === -1) {
      dist[k] = 0;
      order.push(k);
      frontier.push(k);
    }
  }
  const pk = opts.includePackages;
  const follow = (e: ProjectEdge) => e.kind === 'projectReference' || (pk && e.kind === 'packageReference');
  const down = opts.direction !== 'dependents';
  const up = opts.direction !== 'dependencies';
  let depthLimited = false;
  for (let d = 0; frontier.length > 0; d++) {
    if (d >= opts.depth) {
      // Only find out whether anything lies beyond.
      outer: for (const v of frontier) {
        if (down) {
          const es = ix.outE[v]!;
          const ns = ix.outN[v]!;
          for (let i = 0; i < es.length; i++) if (dist[ns[i]!] === -1 && follow(es[i]!)) { depthLimited = true; break outer; }
        }
        if (up) {
          const es = ix.inE[v]!;
          const ns = ix.inN[v]!;
          for (let i = 0; i < es.length; i++) if (dist[ns[i]!] === -1 && follow(es[i]!)) { depthLimited = true; break outer; }
        }
      }
      break;
    }
    const next: number[] = [];
    for (const v of frontier) {
      for (let side = 0; side < 2; side++) {
        if (side === 0 ? !down : !up) continue;
        const es = side === 0 ? ix.outE[v]! : ix.inE[v]!;
        const ns = side === 0 ? ix.outN[v]! : ix.inN[v]!;
        for (let i = 0; i < es.length; i++) {
          const w = ns[i]!;
          if (dist[w] !== -1 || !follow(es[i]!)) continue;
          dist[w] = d + 1;
          order.push(w);
          if (!ix.isPackage[w]) next.push(w);
        }
      }
    }
    frontier = next;
  }
  // Starts come first in `order`; with more starts than the cap (a large prefix), starts are cut too.
  const keep = Math.max(1, opts.maxNodes);
  const kept = order.slice(0, keep);
  const keptMark = new Uint8Array(ix.names.length);
  for (const k of kept) keptMark[k] = 1;
  let reachedEdges = 0;
  const edges: ProjectEdge[] = [];
  const walkOnly = opts.edges === 'walk';
  const walked = (v: number, w: number) => (dist[v] === 0 && dist[w] === 0) || (down && dist[w] === dist[v]! + 1) || (up && dist[v] === dist[w]! + 1);
  for (const v of order) {
    if (ix.isPackage[v]) continue;
    const es = ix.outE[v]!;
    const ns = ix.outN[v]!;
    for (let i = 0; i < es.length; i++) {
      const w = ns[i]!;
      if (dist[w] === -1 || !follow(es[i]!)) continue;
      if (walkOnly && !walked(v, w)) continue;
      reachedEdges++;
      if (edges.length < opts.maxEdges && keptMark[v] && keptMark[w]) edges.push(es[i]!);
    }
  }
  const nodes = kept.map((k): GraphNodeRef => {
    const id = ix.names[k]!;
    if (ix.isPackage[k]) return { id, kind: 'package', name: id.slice(PACKAGE_ID_PREFIX.length), distance: dist[k]! };
    const p = ix.byId.get(id);
    return p
      ? { id, kind: p.kind, name: p.name, distance: dist[k]!, isTest: p.isTest, status: p.status, ...(p.notIndexed ? { notIndexed: true as const } : {}) }
      : { id, kind: 'csharp', name: id, distance: dist[k]!, status: 'failed' };
  });
  for (const s of unknownStarts) nodes.unshift({ id: s, kind: 'csharp', name: s, distance: 0, status: 'failed' });
  let cutNodes = order.length - kept.length;
  let cutEdges = reachedEdges - edges.length;
  if (opts.includeSolutions) {
    // Solutions listing returned projects, most members first, within the remaining caps.
    const members = new Map<string, ProjectEdge[]>();
    for (const e of g.edges) {
      if (e.kind !== 'solutionMembership') continue;
      const k = ix.num.get(e.to);
      if (k === undefined || !keptMark[k]) continue;
      const l = members.get(e.from) ?? [];
      l.push(e);
      members.set(e.from, l);
    }
    const sols = [...members].sort((a, b) => b[1].length - a[1].length);
    for (const [sol, es] of sols) {
      if (nodes.length >= opts.maxNodes) {
        cutNodes++;
        cutEdges += es.length;
        continue;
      }
      nodes.push({ id: sol, kind: 'solution', name: sol.slice(sol.lastIndexOf('/') + 1), distance: 1 });
      for (const e of es) {
        if (edges.length < opts.maxEdges) edges.push(e);
        else cutEdges++;
      }
    }
  }
  return { nodes, edges, cut: { nodes: cutNodes, edges: cutEdges, depthLimited } };
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
