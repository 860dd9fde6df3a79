/**
 * Messages between the graph panel (extension host) and its webview page (media/graph/main.ts).
 * Typed both ways; no `vscode` import, so the page bundle can use it too.
 */

export type GraphKind = 'project' | 'call';

/** Controls the page shows; a change is sent back as `options`. */
export interface GraphOptions {
  depth: number;
  /** Project graph: dependencies / dependents / both. Call graph: incoming / outgoing / both. */
  direction: string;
  production: boolean;
  test: boolean;
  /** Project graph: hide references implied by a longer path (transitive reduction). */
  reduce: boolean;
}

/** Legend classes: projects by kind and state, functions in a call graph. */
export type NodeCategory = 'production' | 'test' | 'failed' | 'partial' | 'excluded' | 'function' | 'cluster';

export interface ViewNode {
  id: string;
  label: string;
  category: NodeCategory;
  /** The node the graph is centred on. */
  focus?: true;
  path?: string;
  line?: number;
  column?: number;
  /** Hover text (lines). */
  detail: string;
  /** Project graph: the folder of a cluster node, or of the expanded cluster a project belongs to. */
  folder?: string;
  /** A cluster node's projects (workspace-relative project files). */
  members?: string[];
}

/** `reference`: project reference; `exact` / `heuristic`: call edges (drawn differently). */
export interface ViewEdge {
  from: string;
  to: string;
  style: 'reference' | 'exact' | 'heuristic';
  /** An edge to or from a cluster: how many project references it stands for. */
  count?: number;
}

/** What the page draws: every node and edge here is drawn, nothing else. */
export interface GraphView {
  nodes: ViewNode[];
  edges: ViewEdge[];
  /** Lines above the graph: what is drawn, then what was left out and why. */
  summary: string[];
  truncated: boolean;
  /** The focus node's id. */
  focus?: string;
  /** Edges hidden by transitive reduction. */
  hidden?: number;
  /** Call graph: the navigation mode in words (Precise, Partial, Heuristic — with why). */
  mode?: string;
}

/** Extension → page. */
export type HostMessage =
  | { type: 'graph'; kind: GraphKind; title: string; view: GraphView; options: GraphOptions; projects?: { id: string; name: string }[] }
  | { type: 'loading'; text: string }
  | { type: 'error'; text: string };

/** What the page measured after a layout (tests and logs). */
export interface RenderedReport {
  nodes: number;
  edges: number;
  width: number;
  height: number;
  /** Ids of the drawn edges as `from>to`. */
  drawnEdges: string[];
  /** Screen boxes of the visible node labels. */
  labels: { id: string; x: number; y: number; w: number; h: number }[];
  /** The summary text shown. */
  summary: string;
  layoutMs: number;
}

/** Page → extension. */
export type PageMessage =
  | { type: 'ready' }
  | { type: 'open'; path: string; line: number; column?: number }
  | { type: 'focus'; id: string }
  /** Project graph: draw the projects of a folder cluster one by one, or group them again. */
  | { type: 'expand'; folder: string }
  | { type: 'collapse'; folder?: string }
  | { type: 'options'; options: GraphOptions }
  | ({ type: 'rendered' } & RenderedReport);
