/**
 * The project graph the panel draws, computed in the extension host from the engine's project
 * list (`sextant/projects`: every project with its references and dependents): the focus project,
 * its dependencies and dependents to a depth, the production/test filter, the node limit (nearest
 * projects first), and transitive reduction (a reference implied by a longer path among the drawn
 * projects is hidden and counted). The summary says exactly what is drawn and what was left out
 * and why. Above a size, the projects of one folder are drawn as one cluster node that expands on
 * click (`clusterAbove`, `expanded`). No `vscode` import: unit-tested alone (test/unit/extension/projectModel.test.ts).
 */
import type { ProjectNode } from '../../server/src/protocol/protocol';
import type { GraphView, ViewEdge, ViewNode } from './messages';

export type ProjectDirection = 'dependencies' | 'dependents' | 'both';

export interface ProjectFocusOptions {
  /** Workspace-relative project file the graph is centred on. */
  focus: string;
  depth: number;
  direction: ProjectDirection;
  production: boolean;
  test: boolean;
  /** Hide references implied by a longer path among the drawn projects. */
  reduce: boolean;
  maxNodes: number;
  /** Group the drawn projects by folder when more than this many are drawn (undefined: never). */
  clusterAbove?: number;
  /** Folders (cluster keys) the user expanded: their projects are drawn one by one. */
  expanded?: readonly string[];
}

/**
 * The folder cluster of a project: the folder holding its project folder
 * (`src/Billing/Billing.Core/Billing.Core.csproj` → `src/Billing`); none at the top level.
 */
export function clusterKeyOf(projectPath: string): string | undefined {
  const parts = projectPath.split('/');
  return parts.length >= 3 ? parts.slice(0, -2).join('/') : undefined;
}

/** A folder with fewer drawn projects is not grouped (two boxes read as well as one cluster box). */
const CLUSTER_MIN_PROJECTS = 3;

/** The node id of a folder cluster. */
export const clusterId = (key: string): string => `cluster:${key}`;

/** The project whose folder holds `rel` (a workspace-relative file path), deepest folder first. */
export function projectOfFile(projects: readonly ProjectNode[], rel: string): ProjectNode | undefined {
  let best: ProjectNode | undefined;
  let bestLen = -1;
  for (const p of projects) {
    if (p.path === rel) return p;
    const dir = p.path.includes('/') ? p.path.slice(0, p.path.lastIndexOf('/') + 1) : '';
    if (rel.startsWith(dir) && dir.length > bestLen) {
      best = p;
      bestLen = dir.length;
    }
  }
  return best;
}

/** The focused graph and its summary. */
export function focusProjectGraph(projects: readonly ProjectNode[], o: ProjectFocusOptions): GraphView {
  const byPath = new Map(projects.map((p) => [p.path, p]));
  const focus = byPath.get(o.focus);
  if (!focus) {
    return { nodes: [], edges: [], summary: [`No project ${o.focus} in the index (${projects.length} projects).`], truncated: false, focus: o.focus };
  }
  const keep = (p: ProjectNode): boolean => p === focus || (p.isTest ? o.test : o.production);
  const depth = Math.max(1, Math.floor(o.depth));
  // Breadth-first from the focus; each project keeps its nearest distance and side.
  const dist = new Map<string, { d: number; side: 'focus' | 'dependency' | 'dependent' }>([[focus.path, { d: 0, side: 'focus' }]]);
  const filteredSeen = new Set<string>();
  const walk = (side: 'dependency' | 'dependent'): void => {
    let frontier = [focus];
    for (let d = 1; d <= depth && frontier.length > 0; d++) {
      const next: ProjectNode[] = [];
      for (const p of frontier) {
        for (const q of side === 'dependency' ? p.references : p.dependents) {
          const n = byPath.get(q);
          if (!n || dist.has(q)) continue;
          if (!keep(n)) {
            filteredSeen.add(q);
            continue;
          }
          dist.set(q, { d, side });
          next.push(n);
        }
      }
      frontier = next;
    }
  };
  if (o.direction !== 'dependents') walk('dependency');
  if (o.direction !== 'dependencies') walk('dependent');
  // Beyond the depth: how many neighbours of the outermost ring were not followed.
  const reached = [...dist.keys()];
  // The node limit keeps the nearest projects (then by name).
  const ordered = reached
    .map((id) => ({ id, ...dist.get(id)!, name: byPath.get(id)!.name }))
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name));
  const drawnIds = ordered.slice(0, Math.max(1, o.maxNodes));
  const cutByLimit = ordered.length - drawnIds.length;
  const drawn = new Set(drawnIds.map((x) => x.id));
  let beyondDepth = 0;
  const beyondSeen = new Set<string>();
  for (const x of ordered) {
    if (x.d !== depth) continue;
    const p = byPath.get(x.id)!;
    const further = x.side === 'dependency' ? p.references : x.side === 'dependent' ? p.dependents : [];
    for (const q of further) if (!dist.has(q) && !beyondSeen.has(q) && byPath.has(q)) beyondSeen.add(q), beyondDepth++;
  }

  // Every reference among the drawn projects, then the reduction.
  const all: { from: string; to: string }[] = [];
  for (const id of drawn) for (const to of byPath.get(id)!.references) if (drawn.has(to) && to !== id) all.push({ from: id, to });
  const implied = o.reduce ? impliedEdges(drawn, all) : new Set<number>();
  const edges: ViewEdge[] = all.filter((_, i) => !implied.has(i)).map((e) => ({ from: e.from, to: e.to, style: 'reference' }));

  // Folder clusters: when many projects are drawn, those of one folder (three or more, the focus
  // never) become one node that expands on click; edges to and from its projects become one edge
  // per neighbour, and references between its own projects are counted, not drawn.
  const expanded = new Set(o.expanded ?? []);
  const members = new Map<string, string[]>();
  if (o.clusterAbove !== undefined && drawnIds.length > o.clusterAbove) {
    for (const x of drawnIds) {
      const key = x.side === 'focus' ? undefined : clusterKeyOf(x.id);
      if (key === undefined || expanded.has(key)) continue;
      members.set(key, [...(members.get(key) ?? []), x.id]);
    }
    for (const [key, list] of members) if (list.length < CLUSTER_MIN_PROJECTS) members.delete(key);
  }
  const repOf = new Map<string, string>();
  for (const [key, list] of members) for (const id of list) repOf.set(id, clusterId(key));
  const rep = (id: string): string => repOf.get(id) ?? id;
  let insideClusters = 0;
  let intoClusters = 0;
  const merged = new Map<string, ViewEdge>();
  for (const e of edges) {
    const from = rep(e.from);
    const to = rep(e.to);
    if (from === to) {
      insideClusters++;
      continue;
    }
    if (from !== e.from || to !== e.to) intoClusters++;
    const k = `${from}>${to}`;
    const known = merged.get(k);
    if (known) known.count = (known.count ?? 1) + 1;
    else merged.set(k, { from, to, style: 'reference', ...(from !== e.from || to !== e.to ? { count: 1 } : {}) });
  }
  const drawnEdges = [...merged.values()];
  const clusterEdges = drawnEdges.filter((e) => e.count !== undefined).length;

  const inExpanded = (id: string): string | undefined => {
    const key = clusterKeyOf(id);
    return key !== undefined && expanded.has(key) ? key : undefined;
  };
  const nodes: ViewNode[] = [];
  const emitted = new Set<string>();
  for (const x of drawnIds) {
    const p = byPath.get(x.id)!;
    const cid = repOf.get(x.id);
    if (cid !== undefined) {
      if (emitted.has(cid)) continue;
      emitted.add(cid);
      const key = cid.slice('cluster:'.length);
      const list = members.get(key)!;
      const tests = list.filter((id) => byPath.get(id)!.isTest).length;
      const failed = list.filter((id) => byPath.get(id)!.status === 'failed').length;
      const partial = list.filter((id) => byPath.get(id)!.status === 'partial').length;
      nodes.push({
        id: cid,
        label: `${key}/ (${list.length})`,
        category: 'cluster',
        folder: key,
        members: list,
        detail: [
          `folder ${key}/: ${list.length} of the drawn projects (${list.length - tests} production, ${tests} test${failed ? `, ${failed} failed` : ''}${partial ? `, ${partial} partial` : ''})`,
          'click to expand',
        ].join('\n'),
      });
      continue;
    }
    const folder = inExpanded(x.id);
    nodes.push({
      id: p.path,
      label: p.name,
      category: p.notIndexed ? 'excluded' : p.status === 'failed' ? 'failed' : p.status === 'partial' ? 'partial' : p.isTest ? 'test' : 'production',
      ...(x.side === 'focus' ? { focus: true } : {}),
      path: p.path,
      line: 1,
      detail: [
        p.path,
        `${p.isTest ? 'test' : 'production'} project${p.notIndexed ? ', not indexed (excluded folder)' : p.status !== 'complete' ? `, ${p.status}` : ''}`,
        `${p.references.length} references, ${p.dependents.length} dependents, ${p.fileCount} files`,
        x.side === 'focus' ? 'the focus' : `${x.side} at distance ${x.d}`,
        ...p.reasons.slice(0, 3),
      ].join('\n'),
      ...(folder !== undefined ? { folder } : {}),
    });
  }

  const dirWords = o.direction === 'both' ? 'dependencies and dependents' : o.direction;
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const projectNodes = nodes.filter((n) => n.category !== 'cluster').length;
  const clustered = [...members.values()].reduce((a, l) => a + l.length, 0);
  const summary = [
    members.size === 0
      ? `Drawn: ${plural(projectNodes, 'project')} and ${plural(drawnEdges.length, 'reference')} — ${focus.name} with its ${dirWords} to depth ${depth}.`
      : `Drawn: ${plural(projectNodes, 'project')}, ${plural(members.size, 'folder cluster')} (${plural(clustered, 'project')}) and ${plural(drawnEdges.length, 'reference')} — ${focus.name} with its ${dirWords} to depth ${depth}.`,
  ];
  if (members.size > 0) {
    const sizes = [...members].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]));
    const named = sizes.slice(0, 6).map(([k, l]) => `${k}/ ${l.length}`);
    summary.push(
      `Clusters (click one to expand it): ${named.join(', ')}${sizes.length > 6 ? `, ${sizes.length - 6} more` : ''}; ${plural(clusterEdges, 'edge')} to or from a cluster stand${clusterEdges === 1 ? 's' : ''} for ${plural(intoClusters, 'reference')} of its projects.`,
    );
  }
  const cut: string[] = [];
  if (insideClusters > 0) cut.push(`${plural(insideClusters, 'reference')} between projects of one cluster`);
  if (implied.size > 0) cut.push(`${implied.size} reference${implied.size === 1 ? '' : 's'} implied by a longer path hidden (transitive reduction)`);
  if (cutByLimit > 0) cut.push(`${cutByLimit} farther project${cutByLimit === 1 ? '' : 's'} not drawn (limit ${o.maxNodes} projects)`);
  for (const isTest of [false, true]) {
    const n = [...filteredSeen].filter((q) => byPath.get(q)!.isTest === isTest).length;
    if (n > 0) cut.push(`${n} ${isTest ? 'test' : 'production'} project${n === 1 ? '' : 's'} hidden by the filter (and what lies behind them)`);
  }
  if (beyondDepth > 0) cut.push(`${beyondDepth} more beyond depth ${depth}`);
  summary.push(cut.length > 0 ? `Not drawn: ${cut.join('; ')}.` : `Nothing left out (${projects.length} projects in the workspace).`);
  return { nodes, edges: drawnEdges, summary, truncated: cutByLimit > 0, focus: focus.path, hidden: implied.size };
}

/**
 * Indexes of the edges u→v for which v is also reachable from u through another drawn node
 * (transitive reduction of the drawn subgraph; on a cycle the edges inside it are kept).
 */
function impliedEdges(nodes: Set<string>, edges: { from: string; to: string }[]): Set<number> {
  const out = new Map<string, string[]>();
  for (const id of nodes) out.set(id, []);
  for (const e of edges) out.get(e.from)!.push(e.to);
  const reachCache = new Map<string, Set<string>>();
  const reach = (start: string): Set<string> => {
    const known = reachCache.get(start);
    if (known) return known;
    const seen = new Set<string>();
    const stack = [start];
    while (stack.length) {
      const n = stack.pop()!;
      for (const m of out.get(n) ?? []) if (!seen.has(m)) seen.add(m), stack.push(m);
    }
    reachCache.set(start, seen);
    return seen;
  };
  const implied = new Set<number>();
  edges.forEach((e, i) => {
    if (reach(e.to).has(e.from)) return; // on a cycle: keep
    for (const w of out.get(e.from)!) {
      if (w === e.to) continue;
      if (reach(w).has(e.to)) {
        implied.add(i);
        return;
      }
    }
  });
  return implied;
}
