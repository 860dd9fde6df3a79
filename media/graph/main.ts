/**
 * The graph panel page: draws a project graph or a call graph with cytoscape (bundled by
 * esbuild into media/graph/out/graph.js; nothing is loaded from the network), sends clicks back
 * as `open` messages and control changes as `options`. Talks to the extension only through the
 * typed messages in src/graph/messages.ts.
 */
import cytoscape from 'cytoscape';
import type { GraphOptions, HostMessage, PageMessage } from '../../src/graph/messages';

interface VsCodeApi {
  postMessage(message: PageMessage): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const container = $('graph');
const summary = $('summary');
const depth = $<HTMLSelectElement>('depth');
const direction = $<HTMLSelectElement>('direction');
const production = $<HTMLInputElement>('production');
const test = $<HTMLInputElement>('test');
let cy: cytoscape.Core | undefined;
let kind: 'project' | 'call' = 'project';

const css = (name: string, fallback: string): string => getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;

function setDirections(values: string[], selected: string): void {
  direction.replaceChildren(
    ...values.map((v) => {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v;
      o.selected = v === selected;
      return o;
    }),
  );
}

function options(): GraphOptions {
  return { depth: Number(depth.value), direction: direction.value, production: production.checked, test: test.checked };
}

for (const el of [depth, direction, production, test]) el.addEventListener('change', () => vscode.postMessage({ type: 'options', options: options() }));

function draw(msg: Extract<HostMessage, { type: 'graph' }>): void {
  kind = msg.kind;
  document.body.className = kind;
  $('title').textContent = msg.title;
  summary.textContent = msg.data.summary + (msg.data.mode ? ` — ${msg.data.mode}` : '') + (msg.data.truncated ? ' (truncated)' : '');
  summary.className = '';
  depth.value = String(msg.options.depth);
  setDirections(kind === 'project' ? ['dependencies', 'dependents', 'both'] : ['incoming', 'outgoing', 'both'], msg.options.direction);
  production.checked = msg.options.production;
  test.checked = msg.options.test;

  const fg = css('--vscode-foreground', '#222');
  const accent = css('--vscode-focusBorder', '#0078d4');
  const testColor = css('--vscode-charts-purple', '#8a5cc8');
  const nodeBg = css('--vscode-button-background', '#0e639c');
  const edge = css('--vscode-editorLineNumber-foreground', '#888');
  cy?.destroy();
  cy = cytoscape({
    container,
    elements: [
      ...msg.data.nodes.map((n) => ({ data: { ...n, id: n.id, label: n.label }, classes: [n.root ? 'root' : '', n.isTest ? 'test' : '', n.kind].filter(Boolean).join(' ') })),
      ...msg.data.edges.map((e, i) => ({ data: { id: `e${i}`, source: e.from, target: e.to, kind: e.kind } })),
    ],
    style: [
      {
        selector: 'node',
        style: {
          label: 'data(label)',
          color: fg,
          'font-size': 11,
          'text-valign': 'bottom',
          'text-margin-y': 4,
          'background-color': nodeBg,
          width: 18,
          height: 18,
        },
      },
      { selector: 'node.test', style: { 'background-color': testColor, shape: 'round-rectangle' } },
      { selector: 'node.failed', style: { 'background-color': css('--vscode-errorForeground', '#c00') } },
      { selector: 'node.root', style: { 'background-color': css('--vscode-charts-orange', '#d18616'), 'border-width': 2, 'border-color': accent, width: 26, height: 26 } },
      {
        selector: 'edge',
        style: { width: 1.5, 'line-color': edge, 'target-arrow-color': edge, 'target-arrow-shape': 'triangle', 'curve-style': 'bezier', 'arrow-scale': 0.9 },
      },
    ],
    layout: {
      name: 'breadthfirst',
      // Undirected walk from the root: callers and dependents sit below it, whatever the edge direction.
      directed: false,
      padding: 24,
      spacingFactor: 1.1,
      ...(msg.data.nodes.some((n) => n.root) ? { roots: msg.data.nodes.filter((n) => n.root).map((n) => `#${CSS.escape(n.id)}`).join(',') } : {}),
    },
    wheelSensitivity: 0.3,
  });
  cy.on('tap', 'node', (ev) => {
    const d = ev.target.data() as { path?: string; line?: number; column?: number };
    if (d.path && d.line) vscode.postMessage({ type: 'open', path: d.path, line: d.line, ...(d.column !== undefined ? { column: d.column } : {}) });
  });
  // For tests of the page alone: where each node is drawn.
  (window as unknown as { sextantGraph?: unknown }).sextantGraph = {
    nodePosition: (id: string) => cy?.getElementById(id).renderedPosition(),
    nodeIds: () => cy?.nodes().map((n) => n.id()) ?? [],
  };
  vscode.postMessage({ type: 'rendered', nodes: cy.nodes().length, edges: cy.edges().length, width: container.clientWidth, height: container.clientHeight });
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const msg = event.data;
  switch (msg.type) {
    case 'graph':
      draw(msg);
      break;
    case 'loading':
      summary.textContent = msg.text;
      summary.className = '';
      break;
    case 'error':
      summary.textContent = msg.text;
      summary.className = 'error';
      break;
  }
});

vscode.postMessage({ type: 'ready' });
