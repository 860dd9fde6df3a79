/**
 * The graph panel page: lays out a project graph or a call graph in layers with dagre
 * (@dagrejs/dagre, bundled by esbuild into media/graph/out/graph.js; nothing is loaded from the
 * network) and draws it as SVG. Every label sits inside its node box and dagre never overlaps
 * nodes, so labels never overlap. Left to right: dependents / callers, the focus, dependencies /
 * callees (top to bottom for a small graph that fits the panel better so). Pan by dragging, zoom with the wheel or the buttons, Fit shows everything; the view is
 * fitted again when the panel is resized (until the user moved it). A click selects a node and
 * shows its details (it never replaces the graph); Open / double-click opens its file, Focus here
 * re-centres a project graph on it. A folder cluster (many projects of one folder) expands on click;
 * Collapse in a member's details groups it again. No inline styles (CSP): only attributes and classes.
 * Talks to the extension only through the typed messages in src/graph/messages.ts.
 */
import * as dagre from '@dagrejs/dagre';
import type { GraphOptions, GraphView, HostMessage, PageMessage, RenderedReport, ViewNode } from '../../src/graph/messages';

interface VsCodeApi {
  postMessage(message: PageMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

type GraphMessage = Extract<HostMessage, { type: 'graph' }>;

const SVG = 'http://www.w3.org/2000/svg';
const MAX_LABEL_CHARS = 48;
const NODE_HEIGHT = 24;
const NODE_PAD_X = 10;
/** Below this scale labels are hard to read: the first view centres on the focus instead of fitting. */
const MIN_READABLE_SCALE = 0.65;
/** Up to this many nodes a graph too wide for the panel may be laid out top to bottom instead. */
const SMALL_GRAPH_NODES = 40;
/** The node labels' font size (graph.css `.node text`). */
const NODE_FONT_PX = 12;

const vscode = acquireVsCodeApi();
const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const container = $('graph');
const summary = $('summary');
const details = $('details');
const depth = $<HTMLSelectElement>('depth');
const direction = $<HTMLSelectElement>('direction');
const production = $<HTMLInputElement>('production');
const test = $<HTMLInputElement>('test');
const reduce = $<HTMLInputElement>('reduce');
const search = $<HTMLInputElement>('search');
const projectList = $<HTMLDataListElement>('project-list');

let current: GraphMessage | undefined;
let svg: SVGSVGElement | undefined;
let viewport: SVGGElement | undefined;
let view = { x: 0, y: 0, k: 1 };
let size = { w: 0, h: 0 };
let moved = false;
let selected: string | undefined;
const positions = new Map<string, { x: number; y: number; w: number; h: number }>();
const nodeEls = new Map<string, SVGGElement>();

function el<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, parent?: Element): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  parent?.appendChild(e);
  return e;
}

function setDirections(values: string[], selectedValue: string): void {
  direction.replaceChildren(
    ...values.map((v) => {
      const o = document.createElement('option');
      o.value = v;
      o.textContent = v;
      o.selected = v === selectedValue;
      return o;
    }),
  );
}

function options(): GraphOptions {
  return { depth: Number(depth.value), direction: direction.value, production: production.checked, test: test.checked, reduce: reduce.checked };
}

for (const e of [depth, direction, production, test, reduce]) e.addEventListener('change', () => vscode.postMessage({ type: 'options', options: options() }));

const shortLabel = (s: string): string => (s.length > MAX_LABEL_CHARS ? `${s.slice(0, MAX_LABEL_CHARS - 1)}…` : s);

let measureCtx: CanvasRenderingContext2D | null = null;
/** Width of a node label as drawn: the node text's own size (graph.css), bold for a cluster. */
function textWidth(s: string, bold = false): number {
  measureCtx ??= document.createElement('canvas').getContext('2d');
  if (!measureCtx) return s.length * 7;
  const cs = getComputedStyle(document.body);
  measureCtx.font = `${bold ? '600 ' : ''}${NODE_FONT_PX}px ${cs.fontFamily}`;
  return Math.ceil(measureCtx.measureText(s).width);
}

/** Draws a graph; `relayout`: the same graph again for a new panel size (selection kept, not reported). */
let layoutCount = 0;
function draw(msg: GraphMessage, restore?: { view: typeof view; selected?: string }, relayout = false): void {
  layoutCount++;
  const keep = relayout ? selected : undefined;
  const t0 = performance.now();
  current = msg;
  vscode.setState({ msg });
  document.body.classList.toggle('call', msg.kind === 'call');
  document.body.classList.toggle('project', msg.kind === 'project');
  $('title').textContent = msg.title;
  summary.replaceChildren(
    ...msg.view.summary.map((line) => {
      const p = document.createElement('p');
      p.textContent = line;
      return p;
    }),
  );
  summary.className = '';
  depth.value = String(msg.options.depth);
  setDirections(msg.kind === 'project' ? ['dependencies', 'dependents', 'both'] : ['incoming', 'outgoing', 'both'], msg.options.direction);
  production.checked = msg.options.production;
  test.checked = msg.options.test;
  reduce.checked = msg.options.reduce;
  // The legend names the optional node kinds (partial, failed, excluded, cluster) only when drawn.
  const present = new Set(msg.view.nodes.map((n) => n.category));
  for (const span of document.querySelectorAll<HTMLElement>('#legend [data-cat]')) span.classList.toggle('absent', !present.has(span.dataset.cat as ViewNode['category']));
  // The search box's suggestions (every project: 3,000 options) are built when it is first used,
  // not on the way to the first drawing.
  if (msg.projects && msg.projects !== listed) listedStale = true;

  // Layout: one box per node sized to its label; ranks left to right (dependents / callers on the
  // left: an edge from a dependent to its dependency points right). A small graph too wide for the
  // panel at a readable scale (few nodes in many ranks, e.g. folder clusters) is laid out top to
  // bottom instead when that fits better.
  const nodeById = new Map(msg.view.nodes.map((n) => [n.id, n]));
  const edges = msg.view.edges.filter((e) => nodeById.has(e.from) && nodeById.has(e.to) && e.from !== e.to);
  const widths = new Map(msg.view.nodes.map((n) => [n.id, textWidth(shortLabel(n.label), n.category === 'cluster') + 2 * NODE_PAD_X]));
  const layout = (rankdir: 'LR' | 'TB'): dagre.graphlib.Graph => {
    const lg = new dagre.graphlib.Graph({ multigraph: false });
    lg.setGraph({ rankdir, nodesep: rankdir === 'LR' ? 10 : 24, ranksep: rankdir === 'LR' ? 60 : 40, edgesep: 6, marginx: 20, marginy: 20 });
    lg.setDefaultEdgeLabel(() => ({}));
    for (const n of msg.view.nodes) lg.setNode(n.id, { width: widths.get(n.id)!, height: NODE_HEIGHT });
    for (const e of edges) lg.setEdge(e.from, e.to);
    dagre.layout(lg);
    return lg;
  };
  const fitScale = (lg: dagre.graphlib.Graph): number => Math.min(1.25, container.clientWidth / (lg.graph().width ?? 1), container.clientHeight / (lg.graph().height ?? 1));
  let g = layout('LR');
  if (msg.view.nodes.length <= SMALL_GRAPH_NODES && container.clientWidth > 0 && fitScale(g) < MIN_READABLE_SCALE) {
    const tb = layout('TB');
    if (fitScale(tb) > fitScale(g)) g = tb;
  }

  container.replaceChildren();
  positions.clear();
  nodeEls.clear();
  svg = el('svg', { class: 'canvas', role: 'img', 'aria-label': msg.title }, container);
  const defs = el('defs', {}, svg);
  for (const id of ['arrow', 'arrow-hot']) {
    // Sized in user space: a thick cluster edge keeps a normal arrow head.
    const m = el('marker', { id, viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse' }, defs);
    el('path', { d: 'M 0 0 L 10 5 L 0 10 z', class: id }, m);
  }
  viewport = el('g', { class: 'viewport' }, svg);
  const edgeLayer = el('g', { class: 'edges' }, viewport);
  const nodeLayer = el('g', { class: 'nodes' }, viewport);
  const drawnEdges: string[] = [];
  for (const e of edges) {
    const pts = g.edge(e.from, e.to)?.points ?? [];
    if (pts.length < 2) continue;
    const d = pts.map((p: { x: number; y: number }, i: number) => `${i === 0 ? 'M' : 'L'} ${p.x.toFixed(1)} ${p.y.toFixed(1)}`).join(' ');
    // An edge to or from a cluster is thicker the more references it stands for.
    const weight = e.count === undefined ? '' : e.count >= 10 ? ' cluster heavy' : e.count >= 3 ? ' cluster many' : ' cluster';
    const path = el('path', { d, class: `edge ${e.style}${weight}`, 'marker-end': 'url(#arrow)', 'data-from': e.from, 'data-to': e.to }, edgeLayer);
    if (e.count !== undefined) {
      el('title', {}, path).textContent = `${e.count} reference${e.count === 1 ? '' : 's'}`;
    }
    drawnEdges.push(`${e.from}>${e.to}`);
  }
  for (const n of msg.view.nodes) {
    const p = g.node(n.id);
    if (!p) continue;
    const box = { x: p.x - p.width / 2, y: p.y - p.height / 2, w: p.width, h: p.height };
    positions.set(n.id, box);
    const grp = el('g', { class: `node ${n.category}${n.focus ? ' focus' : ''}`, 'data-id': n.id, tabindex: 0 }, nodeLayer);
    el('rect', { x: box.x, y: box.y, width: box.w, height: box.h, rx: 4 }, grp);
    const text = el('text', { x: p.x, y: p.y, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, grp);
    text.textContent = shortLabel(n.label);
    el('title', {}, grp).textContent = `${n.label}\n${n.detail}`;
    grp.addEventListener('click', (ev) => {
      ev.stopPropagation();
      // A folder cluster expands on click (its projects are drawn one by one).
      if (n.category === 'cluster' && n.folder !== undefined) vscode.postMessage({ type: 'expand', folder: n.folder });
      else select(n.id);
    });
    grp.addEventListener('dblclick', (ev) => {
      ev.stopPropagation();
      open(n);
    });
    grp.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') {
        if (n.category === 'cluster' && n.folder !== undefined) vscode.postMessage({ type: 'expand', folder: n.folder });
        else open(n);
      }
    });
    grp.addEventListener('mouseenter', () => highlight(n.id, true));
    grp.addEventListener('mouseleave', () => highlight(n.id, false));
    nodeEls.set(n.id, grp);
  }
  const graphSize = g.graph();
  bounds = { w: graphSize.width ?? 0, h: graphSize.height ?? 0 };
  installPanZoom(svg);
  size = { w: container.clientWidth, h: container.clientHeight };
  if (restore) {
    view = restore.view;
    moved = true;
    apply();
  } else {
    moved = false;
    initialView();
  }
  selected = undefined;
  const reselect = restore?.selected ?? keep;
  if (reselect && nodeById.has(reselect)) select(reselect);
  else showDetails(undefined);

  const report = measure(drawnEdges, performance.now() - t0);
  (window as unknown as { sextantGraph?: unknown }).sextantGraph = {
    nodePosition: (id: string) => screenCenter(id),
    nodeIds: () => [...positions.keys()],
    report: () => measure(drawnEdges, report.layoutMs),
    view: () => ({ ...view }),
    /** How many layouts the page has done (tests wait for a relayout after a resize). */
    layouts: () => layoutCount,
  };
  if (!relayout) vscode.postMessage({ type: 'rendered', ...report });
}

let bounds = { w: 0, h: 0 };

/** What is on screen: drawn edges, label boxes in screen pixels, the summary. */
function measure(drawnEdges: string[], layoutMs: number): RenderedReport {
  const labels: RenderedReport['labels'] = [];
  for (const [id, grp] of nodeEls) {
    const r = grp.querySelector('text')!.getBoundingClientRect();
    labels.push({ id, x: r.x, y: r.y, w: r.width, h: r.height });
  }
  return {
    nodes: nodeEls.size,
    edges: drawnEdges.length,
    width: container.clientWidth,
    height: container.clientHeight,
    drawnEdges,
    labels,
    summary: [...summary.querySelectorAll('p')].map((p) => p.textContent ?? '').join('\n'),
    layoutMs: Math.round(layoutMs),
  };
}

function apply(): void {
  viewport?.setAttribute('transform', `translate(${view.x.toFixed(1)} ${view.y.toFixed(1)}) scale(${view.k.toFixed(4)})`);
  const st = vscode.getState() as { msg?: GraphMessage } | undefined;
  vscode.setState({ ...(st ?? {}), view, ...(selected ? { selected } : {}) });
}

function fit(): void {
  if (size.w === 0 || bounds.w === 0) return;
  const k = Math.min(1.25, size.w / bounds.w, size.h / bounds.h);
  view = { k, x: (size.w - bounds.w * k) / 2, y: (size.h - bounds.h * k) / 2 };
  apply();
}

/** Fits when the whole graph is readable that way, else centres the focus at a readable scale. */
function initialView(): void {
  if (size.w === 0 || bounds.w === 0) return;
  const k = Math.min(1.25, size.w / bounds.w, size.h / bounds.h);
  if (k >= MIN_READABLE_SCALE) return fit();
  const f = current?.view.focus ? positions.get(current.view.focus) : undefined;
  const cx = f ? f.x + f.w / 2 : bounds.w / 2;
  const cy = f ? f.y + f.h / 2 : bounds.h / 2;
  view = { k: MIN_READABLE_SCALE, x: size.w / 2 - cx * MIN_READABLE_SCALE, y: size.h / 2 - cy * MIN_READABLE_SCALE };
  apply();
}

function zoomBy(factor: number, cx = size.w / 2, cy = size.h / 2): void {
  const k = Math.max(0.02, Math.min(4, view.k * factor));
  view = { k, x: cx - ((cx - view.x) * k) / view.k, y: cy - ((cy - view.y) * k) / view.k };
  moved = true;
  apply();
}

function centreOn(id: string): void {
  const b = positions.get(id);
  if (!b) return;
  const k = Math.max(view.k, MIN_READABLE_SCALE);
  view = { k, x: size.w / 2 - (b.x + b.w / 2) * k, y: size.h / 2 - (b.y + b.h / 2) * k };
  moved = true;
  apply();
}

function screenCenter(id: string): { x: number; y: number } | undefined {
  const b = positions.get(id);
  return b ? { x: view.x + (b.x + b.w / 2) * view.k, y: view.y + (b.y + b.h / 2) * view.k } : undefined;
}

function installPanZoom(s: SVGSVGElement): void {
  let drag: { x: number; y: number; vx: number; vy: number } | undefined;
  s.addEventListener('pointerdown', (ev) => {
    if ((ev.target as Element).closest('.node')) return;
    drag = { x: ev.clientX, y: ev.clientY, vx: view.x, vy: view.y };
    s.setPointerCapture(ev.pointerId);
  });
  s.addEventListener('pointermove', (ev) => {
    if (!drag) return;
    view = { ...view, x: drag.vx + ev.clientX - drag.x, y: drag.vy + ev.clientY - drag.y };
    moved = true;
    apply();
  });
  s.addEventListener('pointerup', () => (drag = undefined));
  s.addEventListener('click', () => select(undefined));
  s.addEventListener(
    'wheel',
    (ev) => {
      ev.preventDefault();
      const r = s.getBoundingClientRect();
      zoomBy(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
    },
    { passive: false },
  );
}

function highlight(id: string, on: boolean): void {
  if (!svg) return;
  for (const p of svg.querySelectorAll<SVGPathElement>('path.edge')) {
    if (p.dataset.from === id || p.dataset.to === id) {
      p.classList.toggle('hot', on);
      p.setAttribute('marker-end', on ? 'url(#arrow-hot)' : 'url(#arrow)');
    }
  }
}

function select(id: string | undefined): void {
  if (selected) nodeEls.get(selected)?.classList.remove('selected');
  selected = id;
  if (id) nodeEls.get(id)?.classList.add('selected');
  showDetails(id ? current?.view.nodes.find((n) => n.id === id) : undefined);
  apply();
}

function open(n: ViewNode): void {
  if (n.path && n.line) vscode.postMessage({ type: 'open', path: n.path, line: n.line, ...(n.column !== undefined ? { column: n.column } : {}) });
}

function button(label: string, onClick: () => void, id?: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.textContent = label;
  if (id) b.id = id;
  b.addEventListener('click', onClick);
  return b;
}

function showDetails(n: ViewNode | undefined): void {
  if (!n) {
    details.replaceChildren(document.createTextNode('Click a node for its details; double-click opens it.'));
    details.className = 'hint';
    return;
  }
  details.className = '';
  const name = document.createElement('strong');
  name.textContent = n.label;
  const info = document.createElement('span');
  info.textContent = ` — ${n.detail.split('\n').join(' · ')} `;
  const parts: Node[] = [name, info];
  if (n.path) parts.push(button('Open', () => open(n), 'open-selected'));
  if (current?.kind === 'project' && !n.focus) parts.push(button('Focus here', () => vscode.postMessage({ type: 'focus', id: n.id }), 'focus-selected'));
  const folder = n.folder;
  if (current?.kind === 'project' && folder !== undefined && n.category !== 'cluster') parts.push(button(`Collapse ${folder}/`, () => vscode.postMessage({ type: 'collapse', folder }), 'collapse-selected'));
  details.replaceChildren(...parts);
}

function runSearch(): void {
  const q = search.value.trim().toLowerCase();
  if (!q || !current) return;
  const drawn = current.view.nodes.find((n) => n.label.toLowerCase() === q) ?? current.view.nodes.find((n) => n.label.toLowerCase().includes(q));
  if (drawn && current.kind === 'call') {
    select(drawn.id);
    centreOn(drawn.id);
    return;
  }
  const all = current.projects ?? [];
  const hit = all.find((p) => p.name.toLowerCase() === q) ?? all.find((p) => p.id.toLowerCase() === q) ?? all.find((p) => p.name.toLowerCase().includes(q));
  if (hit) vscode.postMessage({ type: 'focus', id: hit.id });
  else if (drawn) {
    select(drawn.id);
    centreOn(drawn.id);
  } else {
    details.className = 'error';
    details.textContent = `No project matches “${search.value}”.`;
  }
}

let listed: GraphMessage['projects'];
let listedStale = false;
function fillProjectList(): void {
  if (!listedStale || !current?.projects) return;
  listedStale = false;
  listed = current.projects;
  projectList.replaceChildren(
    ...listed.map((p) => {
      const o = document.createElement('option');
      o.value = p.name;
      o.label = p.id;
      return o;
    }),
  );
}
search.addEventListener('focus', fillProjectList);
search.addEventListener('input', fillProjectList);
search.addEventListener('keydown', (ev) => {
  if (ev.key === 'Enter') runSearch();
});
$('search-go').addEventListener('click', runSearch);
$('zoom-in').addEventListener('click', () => zoomBy(1.25));
$('zoom-out').addEventListener('click', () => zoomBy(0.8));
$('fit').addEventListener('click', () => {
  moved = false;
  fit();
});

// Relayout on resize: the view is fitted to the new size unless the user moved it.
new ResizeObserver(() => {
  const w = container.clientWidth;
  const h = container.clientHeight;
  if (w === size.w && h === size.h) return;
  size = { w, h };
  if (moved) return;
  // A small graph may change between left-to-right and top-to-bottom; a large one is refitted.
  if (current && current.view.nodes.length <= SMALL_GRAPH_NODES) draw(current, undefined, true);
  else initialView();
}).observe(container);

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const msg = event.data;
  switch (msg.type) {
    case 'graph':
      draw(msg);
      break;
    case 'loading':
      summary.replaceChildren(document.createTextNode(msg.text));
      summary.className = 'loading';
      break;
    case 'error':
      summary.replaceChildren(document.createTextNode(msg.text));
      summary.className = 'error';
      break;
  }
});

// State restore (the panel was reloaded): draw the last graph again at its last view.
const saved = vscode.getState() as { msg?: GraphMessage; view?: typeof view; selected?: string } | undefined;
if (saved?.msg) draw(saved.msg, saved.view ? { view: saved.view, ...(saved.selected ? { selected: saved.selected } : {}) } : undefined);
vscode.postMessage({ type: 'ready' });

export type { GraphView };
