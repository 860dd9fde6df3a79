/**
 * ProjectGraph ⇄ JSON text (the index stores the graph whole, so the engine loads it in one read).
 * A version field guards against reading a graph written by an incompatible build.
 */
import type { ProjectFileEntry, ProjectGraph } from './ProjectGraph';

/** Bumped whenever the stored shape changes; a stored graph of another format is rebuilt. */
export const PROJECT_GRAPH_FORMAT = 1;

export function serializeProjectGraph(g: ProjectGraph): string {
  return JSON.stringify({ format: PROJECT_GRAPH_FORMAT, root: g.root, projects: g.projects, edges: g.edges, solutions: g.solutions, files: [...g.files], buildMs: g.buildMs });
}

/** The graph, or undefined when the text is not a graph of this format. */
export function deserializeProjectGraph(text: string): ProjectGraph | undefined {
  try {
    const o = JSON.parse(text) as { format?: number; files?: [string, ProjectFileEntry[]][] } & Omit<ProjectGraph, 'files'>;
    if (o.format !== PROJECT_GRAPH_FORMAT || !Array.isArray(o.projects) || !Array.isArray(o.files)) return undefined;
    return { root: o.root, projects: o.projects, edges: o.edges, solutions: o.solutions, files: new Map(o.files), buildMs: o.buildMs };
  } catch {
    return undefined;
  }
}
