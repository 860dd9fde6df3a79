/** Project-reference adjacency of a project graph, and reachability along it. */
import type { ProjectGraph } from '../projects/ProjectGraph';

export interface ProjectRefs {
  /** Project → the projects it references. */
  down: Map<string, string[]>;
  /** Project → the projects referencing it. */
  up: Map<string, string[]>;
}

const adjacency = new WeakMap<ProjectGraph, ProjectRefs>();

/** Project-reference adjacency both ways (cached per graph). */
export function projectRefs(g: ProjectGraph): ProjectRefs {
  let a = adjacency.get(g);
  if (a) return a;
  a = { down: new Map(), up: new Map() };
  for (const e of g.edges) {
    if (e.kind !== 'projectReference') continue;
    (a.down.get(e.from) ?? a.down.set(e.from, []).get(e.from)!).push(e.to);
    (a.up.get(e.to) ?? a.up.set(e.to, []).get(e.to)!).push(e.from);
  }
  adjacency.set(g, a);
  return a;
}

/** The start projects and everything reachable from them along `next`. */
export function reachable(next: Map<string, string[]>, start: Iterable<string>): Set<string> {
  const out = new Set(start);
  const queue = [...out];
  while (queue.length) {
    const p = queue.shift()!;
    for (const n of next.get(p) ?? []) {
      if (out.has(n)) continue;
      out.add(n);
      queue.push(n);
    }
  }
  return out;
}
