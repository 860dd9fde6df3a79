/**
 * The project graph the panel draws, computed in the extension host from the engine's project
 * list (`sextant/projects`: every project with its references and dependents): the focus project,
 * its dependencies and dependents to a depth, the production/test filter, the node limit (nearest
 * projects first), and transitive reduction (a reference implied by a longer path among the drawn
 * projects is hidden and counted). The summary says exactly what is drawn and what was left out
 * and why. No `vscode` import: unit-tested alone (test/unit/extension/projectModel.test.ts).
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
}

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

  const nodes: ViewNode[] = drawnIds.map((x) => {
    const p = byPath.get(x.id)!;
    return {
      id: p.path,
      label: p.name,
      category: p.status === 'failed' ? 'failed' : p.status === 'partial' ? 'partial' : p.isTest ? 'test' : 'production',
      ...(x.side === 'focus' ? { focus: true } : {}),
      path: p.path,
      line: 1,
      detail: [
        p.path,
        `${p.isTest ? 'test' : 'production'} project${p.status !== 'complete' ? `, ${p.status}` : ''}`,
        `${p.references.length} references, ${p.dependents.length} dependents, ${p.fileCount} files`,
        x.side === 'focus' ? 'the focus' : `${x.side} at distance ${x.d}`,
        ...p.reasons.slice(0, 3),
      ].join('\n'),
    };
  });

  const dirWords = o.direction === 'both' ? 'dependencies and dependents' : o.direction;
  const summary = [
    `Drawn: ${nodes.length} project${nodes.length === 1 ? '' : 's'} and ${edges.length} reference${edges.length === 1 ? '' : 's'} — ${focus.name} with its ${dirWords} to depth ${depth}.`,
  ];
  const cut: string[] = [];
  if (implied.size > 0) cut.push(`${implied.size} reference${implied.size === 1 ? '' : 's'} implied by a longer path hidden (transitive reduction)`);
  if (cutByLimit > 0) cut.push(`${cutByLimit} farther project${cutByLimit === 1 ? '' : 's'} not drawn (limit ${o.maxNodes} projects)`);
  for (const isTest of [false, true]) {
    const n = [...filteredSeen].filter((q) => byPath.get(q)!.isTest === isTest).length;
    if (n > 0) cut.push(`${n} ${isTest ? 'test' : 'production'} project${n === 1 ? '' : 's'} hidden by the filter (and what lies behind them)`);
  }
  if (beyondDepth > 0) cut.push(`${beyondDepth} more beyond depth ${depth}`);
  summary.push(cut.length > 0 ? `Not drawn: ${cut.join('; ')}.` : `Nothing left out (${projects.length} projects in the workspace).`);
  return { nodes, edges, summary, truncated: cutByLimit > 0, focus: focus.path, hidden: implied.size };
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
