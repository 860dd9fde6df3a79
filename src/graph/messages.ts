/**
 * Messages between the graph panel (extension host) and its webview page (media/graph/main.ts).
 * Typed both ways; no `vscode` import, so the page bundle can use it too.
 */
import type { GraphData } from '../../server/src/protocol/protocol';

export type GraphKind = 'project' | 'call';

/** Controls the page shows; a change is sent back as `options`. */
export interface GraphOptions {
  depth: number;
  /** Project graph: dependencies / dependents / both. Call graph: incoming / outgoing / both. */
  direction: string;
  production: boolean;
  test: boolean;
}

/** Extension → page. */
export type HostMessage =
  | { type: 'graph'; kind: GraphKind; title: string; data: GraphData; options: GraphOptions }
  | { type: 'loading'; text: string }
  | { type: 'error'; text: string };

/** Page → extension. */
export type PageMessage =
  | { type: 'ready' }
  | { type: 'open'; path: string; line: number; column?: number }
  | { type: 'options'; options: GraphOptions }
  /** Sent after each layout: what is on screen (tests and logs). */
  | { type: 'rendered'; nodes: number; edges: number; width: number; height: number };
