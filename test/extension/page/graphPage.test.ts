/**
 * The graph panel's page alone, in headless Chromium with a fake `acquireVsCodeApi`: fast UI tests
 * of drawing, clicks and controls without starting VS Code. The page is served from 127.0.0.1
 * with the same HTML (CSP, nonce) the panel uses. Needs `npm run build` (media/graph/out/graph.js).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { graphHtml } from '../../../src/graph/graphHtml';
import type { GraphView, HostMessage, PageMessage, RenderedReport } from '../../../src/graph/messages';
import { focusProjectGraph } from '../../../src/graph/projectModel';
import { GRAPH_CLUSTER_ABOVE_PROJECTS } from '../../../src/extensionLimits';
import type { ProjectNode } from '../../../server/src/protocol/protocol';
import { layeredProjects, projectNodes } from '../fixtures/layeredProjects';

const ARTIFACTS = path.join(path.resolve(__dirname, '../../..'), 'test/.tmp/extension-page');

const ROOT = path.resolve(__dirname, '../../..');
const MEDIA = path.join(ROOT, 'media');

const small = projectNodes([
  { name: 'App', path: 'src/App/App.csproj', isTest: false, references: ['src/Core/Core.csproj', 'src/Shared/Shared.csproj'] },
  { name: 'Core', path: 'src/Core/Core.csproj', isTest: false, references: ['src/Shared/Shared.csproj'] },
  { name: 'Shared', path: 'src/Shared/Shared.csproj', isTest: false, references: [] },
  { name: 'App.Tests', path: 'tests/App.Tests/App.Tests.csproj', isTest: true, references: ['src/App/App.csproj'] },
]);
const OPTIONS = { depth: 2, direction: 'both', production: true, test: true, reduce: true };
const FOCUS = { focus: 'src/App/App.csproj', depth: 2, direction: 'both' as const, production: true, test: true, reduce: true, maxNodes: 200 };
const projectGraph: HostMessage = {
  type: 'graph',
  kind: 'project',
  title: 'Projects around App',
  options: OPTIONS,
  view: focusProjectGraph(small, FOCUS),
  projects: small.map((p) => ({ id: p.path, name: p.name })),
};

/** Asserts what the done-when asks of a drawn graph, from the page's own measurements. */
function assertReadable(r: RenderedReport, view: GraphView, model: ProjectNode[] | undefined): void {
  assert.equal(r.nodes, view.nodes.length, 'every node of the view is drawn');
  assert.equal(r.edges, view.edges.length, 'every edge of the view is drawn');
  // No two labels overlap (screen boxes, sorted by x and swept).
  const boxes = [...r.labels].sort((a, b) => a.x - b.x);
  for (let i = 0; i < boxes.length; i++) {
    const a = boxes[i]!;
    for (let j = i + 1; j < boxes.length && boxes[j]!.x < a.x + a.w; j++) {
      const b = boxes[j]!;
      const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
      assert.ok(!overlap, `labels ${a.id} and ${b.id} overlap: ${JSON.stringify(a)} ${JSON.stringify(b)}`);
    }
  }
  if (model) {
    // An edge to or from a folder cluster stands for references of its projects: at least one.
    const refs = new Set(model.flatMap((p) => p.references.map((q) => `${p.path}>${q}`)));
    const ends = (id: string): string[] => view.nodes.find((n) => n.id === id)?.members ?? [id];
    for (const e of r.drawnEdges) {
      const [from, to] = e.split('>') as [string, string];
      assert.ok(ends(from).some((a) => ends(to).some((b) => refs.has(`${a}>${b}`))), `drawn edge ${e} is not a reference in the model`);
    }
  }
  const m = /Drawn: (\d+) projects?(?:, (\d+) folder clusters? \(\d+ projects\))? and (\d+) references?/.exec(r.summary);
  if (model) {
    assert.ok(m, r.summary);
    assert.deepEqual([Number(m[1]) + Number(m[2] ?? 0), Number(m[3])], [r.nodes, r.edges], `summary counts equal what is drawn: ${r.summary}`);
  }
}

describe('graph panel page (headless Chromium, fake VS Code API)', function () {
  this.timeout(60_000);
  let server: http.Server;
  let origin = '';
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const problems: string[] = [];

  before(async () => {
    assert.ok(fs.existsSync(path.join(MEDIA, 'graph/out/graph.js')), 'run npm run build first');
    server = http.createServer((req, res) => {
      const u = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (u.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(
          graphHtml({ cspSource: origin, nonce: 'dGVzdG5vbmNlMTIzNDU2Nw==', scriptUri: `${origin}/media/graph/out/graph.js`, styleUri: `${origin}/media/graph/graph.css` }),
        );
        return;
      }
      if (u.pathname === '/favicon.ico') return void res.writeHead(204).end();
      const file = path.join(ROOT, path.normalize(u.pathname));
      if (!file.startsWith(MEDIA + path.sep) || !fs.existsSync(file)) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': file.endsWith('.js') ? 'text/javascript' : 'text/css' }).end(fs.readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const addr = server.address();
    origin = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    browser = await chromium.launch({ executablePath: process.env.SEXTANT_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  });

  after(async () => {
    await browser?.close();
    server?.close();
  });

  beforeEach(async () => {
    page = await browser.newPage({ viewport: { width: 900, height: 700 } });
    page.on('request', (r) => requests.push(r.url()));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
    });
    // Strings, not functions: tsx would wrap functions with helpers the page does not have.
    await page.addInitScript(
      "window.sent = []; window.state = undefined; window.acquireVsCodeApi = () => ({ postMessage: (m) => window.sent.push(m), getState: () => window.state, setState: (s) => { window.state = s; } });" +
        "document.addEventListener('securitypolicyviolation', (e) => window.sent.push({ type: 'csp', directive: e.violatedDirective, blocked: e.blockedURI }));",
    );
    await page.goto(origin + '/');
    await waitForMessage('ready');
  });

  afterEach(async () => {
    await page?.close();
  });

  const sent = (): Promise<PageMessage[]> => page.evaluate('window.sent') as Promise<PageMessage[]>;
  async function waitForMessage<T extends PageMessage['type']>(type: T): Promise<Extract<PageMessage, { type: T }>> {
    for (let i = 0; i < 100; i++) {
      const m = (await sent()).find((x) => x.type === type);
      if (m) return m as Extract<PageMessage, { type: T }>;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`the page sent no '${type}' message; sent: ${JSON.stringify(await sent())}`);
  }
  /** Resizes the page and waits for the small graph's relayout (the resize observer's callback). */
  async function resizeAndWait(width: number, height: number): Promise<void> {
    const before = (await page.evaluate('window.sextantGraph.layouts()')) as number;
    await page.setViewportSize({ width, height });
    for (let i = 0; i < 200 && ((await page.evaluate('window.sextantGraph.layouts()')) as number) === before; i++) await new Promise((r) => setTimeout(r, 50));
    assert.notEqual(await page.evaluate('window.sextantGraph.layouts()'), before, `no relayout after resizing to ${width}x${height}`);
  }
  const post = (m: HostMessage): Promise<void> => page.evaluate(`window.postMessage(${JSON.stringify(m)}, '*')`) as Promise<void>;

  it('draws every node and edge of the focused project graph, with the summary of what is drawn and hidden', async () => {
    await post(projectGraph);
    const r = await waitForMessage('rendered');
    // App -> Shared is implied by App -> Core -> Shared: hidden by transitive reduction.
    assert.deepEqual(r.drawnEdges.sort(), ['src/App/App.csproj>src/Core/Core.csproj', 'src/Core/Core.csproj>src/Shared/Shared.csproj', 'tests/App.Tests/App.Tests.csproj>src/App/App.csproj']);
    assertReadable(r, (projectGraph as Extract<HostMessage, { type: 'graph' }>).view, small);
    assert.equal(
      r.summary,
      'Drawn: 4 projects and 3 references — App with its dependencies and dependents to depth 2.\nNot drawn: 1 reference implied by a longer path hidden (transitive reduction).',
    );
    assert.ok(r.width > 500 && r.height > 300, `graph area ${r.width}x${r.height}`);
    assert.equal(await page.textContent('#title'), 'Projects around App');
    assert.equal(await page.locator('#graph svg .node.focus').count(), 1);
    // The legend names only the node kinds drawn (no cluster, failed, partial or excluded here).
    assert.equal(await page.isVisible('#legend [data-cat="cluster"]'), false);
    assert.equal(await page.isVisible('#legend [data-cat="failed"]'), false);
    assert.equal(await page.isVisible('#legend .sw.test'), true);
  });

  it('a click selects a node and shows its details without replacing the graph; Open and double-click open it; Focus here re-centres', async () => {
    await post(projectGraph);
    await waitForMessage('rendered');
    const pos = (await page.evaluate("window.sextantGraph.nodePosition('src/Core/Core.csproj')")) as { x: number; y: number };
    const box = (await page.locator('#graph').boundingBox())!;
    await page.mouse.click(box.x + pos.x, box.y + pos.y);
    assert.ok((await page.textContent('#details'))?.startsWith('Core — src/Core/Core.csproj'), await page.textContent('#details') ?? '');
    assert.equal(await page.locator('#graph svg .node').count(), 4, 'the graph is still drawn');
    assert.equal((await sent()).filter((m) => m.type === 'open').length, 0, 'a single click opens nothing');
    await page.click('#open-selected');
    assert.deepEqual(await waitForMessage('open'), { type: 'open', path: 'src/Core/Core.csproj', line: 1 });
    await page.click('#focus-selected');
    assert.deepEqual(await waitForMessage('focus'), { type: 'focus', id: 'src/Core/Core.csproj' });
    await page.mouse.dblclick(box.x + pos.x, box.y + pos.y);
    assert.equal((await sent()).filter((m) => m.type === 'open').length, 2);
  });

  it('the search box focuses the graph on a project by name; fit and zoom change the view', async () => {
    await post(projectGraph);
    await waitForMessage('rendered');
    // The suggestions are built when the box is first used, not before the first drawing.
    assert.equal(await page.locator('#project-list option').count(), 0);
    await page.fill('#search', 'shared');
    assert.equal(await page.locator('#project-list option').count(), 4);
    await page.press('#search', 'Enter');
    assert.deepEqual(await waitForMessage('focus'), { type: 'focus', id: 'src/Shared/Shared.csproj' });
    const before = (await page.evaluate('window.sextantGraph.view()')) as { k: number };
    await page.click('#zoom-in');
    const after = (await page.evaluate('window.sextantGraph.view()')) as { k: number };
    assert.ok(after.k > before.k, `zoom in: ${before.k} -> ${after.k}`);
    await page.click('#fit');
    const fitted = (await page.evaluate('window.sextantGraph.view()')) as { k: number };
    assert.equal(fitted.k, before.k);
  });

  it('relayouts when the panel is resized, and keeps its graph in the webview state', async () => {
    await post(projectGraph);
    await waitForMessage('rendered');
    const before = (await page.evaluate('window.sextantGraph.view()')) as { x: number; k: number };
    await page.setViewportSize({ width: 1400, height: 700 });
    await page.waitForFunction(`window.sextantGraph.view().x !== ${before.x}`);
    const state = (await page.evaluate('window.state')) as { msg?: { title: string } };
    assert.equal(state.msg?.title, 'Projects around App');
  });

  it('changing a control sends the new options', async () => {
    await post(projectGraph);
    await waitForMessage('rendered');
    await page.selectOption('#direction', 'dependents');
    await page.uncheck('#test');
    await page.uncheck('#reduce');
    const all = (await sent()).filter((m): m is Extract<PageMessage, { type: 'options' }> => m.type === 'options');
    assert.deepEqual(all.at(-1)?.options, { depth: 2, direction: 'dependents', production: true, test: false, reduce: false });
  });

  it('a call graph draws exact and heuristic calls differently, says the mode in words, and hides the project controls', async () => {
    const view: GraphView = {
      nodes: [
        { id: 'a', label: 'totalArea', category: 'function', focus: true, path: 'src/shapes.ts', line: 3, detail: 'function' },
        { id: 'b', label: 'report', category: 'function', path: 'src/main.ts', line: 5, detail: 'function' },
        { id: 'c', label: 'save', category: 'function', path: 'src/x.ts', line: 9, detail: 'method' },
      ],
      edges: [
        { from: 'b', to: 'a', style: 'exact' },
        { from: 'c', to: 'a', style: 'heuristic' },
      ],
      summary: ['Drawn: 3 functions and 2 calls (1 exact, 1 heuristic) — callers of totalArea to depth 1.', 'Heuristic: no language service answered, so calls were matched by name — some may be wrong or missing.'],
      truncated: false,
      focus: 'a',
    };
    await post({ type: 'graph', kind: 'call', title: 'Calls of totalArea', view, options: { depth: 1, direction: 'incoming', production: true, test: true, reduce: false } });
    const r = await waitForMessage('rendered');
    assertReadable(r, view, undefined);
    const options = (await page.evaluate("[...document.querySelectorAll('#direction option')].map((o) => o.value)")) as string[];
    assert.deepEqual(options, ['incoming', 'outgoing', 'both']);
    assert.equal(await page.isVisible('#test'), false);
    assert.equal(await page.isVisible('#search'), false);
    assert.equal(await page.locator('path.edge.heuristic').count(), 1);
    assert.equal(await page.locator('path.edge.exact').count(), 1);
    const dash = await page.locator('path.edge.heuristic').evaluate('(e) => getComputedStyle(e).strokeDasharray');
    assert.notEqual(dash, 'none');
    assert.match((await page.textContent('#summary')) ?? '', /Heuristic: no language service answered/);
  });

  for (const total of [42, 3000]) {
    it(`a generated ${total.toLocaleString('en-US')}-project workspace focused on one project: no label overlaps, drawn edges are references, the summary counts what is drawn (screenshot)`, async () => {
      const model = projectNodes(layeredProjects(total));
      // A busy project: a Core library in the middle of the graph.
      const focus = model.filter((p) => p.path.startsWith('src/Core/')).sort((a, b) => b.dependents.length - a.dependents.length)[0]!;
      const focusOptions = { ...FOCUS, focus: focus.path, clusterAbove: GRAPH_CLUSTER_ABOVE_PROJECTS };
      const view = focusProjectGraph(model, focusOptions);
      await page.setViewportSize({ width: 1280, height: 800 });
      const projects = model.map((p) => ({ id: p.path, name: p.name }));
      await post({ type: 'graph', kind: 'project', title: `Projects around ${focus.name}`, options: OPTIONS, view, projects });
      const r = await waitForMessage('rendered');
      assertReadable(r, view, model);
      fs.mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, `project-graph-${total}.png`) });
      console.log(`      · ${total} projects, focus ${focus.name}: drew ${r.nodes} nodes, ${r.edges} edges, layout ${r.layoutMs} ms; ${r.summary.replace(/\n/g, ' ')}`);
      const clusters = view.nodes.filter((n) => n.category === 'cluster');
      if (total === 42) return void assert.equal(clusters.length, 0, 'a small graph has no clusters');
      // 3,000: folder clusters; a click on one asks to expand it, and the expanded graph is readable too.
      assert.ok(clusters.length > 0, r.summary);
      assert.equal(await page.isVisible('#legend [data-cat="cluster"]'), true);
      // The clustered graph is small: the first view shows all of it, also in a narrow panel.
      await resizeAndWait(950, 700);
      for (const n of view.nodes) {
        const c = (await page.evaluate(`window.sextantGraph.nodePosition(${JSON.stringify(n.id)})`)) as { x: number; y: number };
        assert.ok(c.x > 0 && c.x < 950 && c.y > 0, `${n.label} is outside the first view at 950 px: ${JSON.stringify(c)}`);
      }
      await page.screenshot({ path: path.join(ARTIFACTS, `project-graph-${total}-narrow.png`) });
      await resizeAndWait(1280, 800);
      const largest = clusters.sort((a, b) => b.members!.length - a.members!.length)[0]!;
      const pos = (await page.evaluate(`window.sextantGraph.nodePosition(${JSON.stringify(largest.id)})`)) as { x: number; y: number };
      const box = (await page.locator('#graph').boundingBox())!;
      await page.mouse.click(box.x + pos.x, box.y + pos.y);
      assert.deepEqual(await waitForMessage('expand'), { type: 'expand', folder: largest.folder });
      const expanded = focusProjectGraph(model, { ...focusOptions, expanded: [largest.folder!] });
      await page.evaluate('window.sent = []');
      await post({ type: 'graph', kind: 'project', title: `Projects around ${focus.name}`, options: OPTIONS, view: expanded, projects });
      const r2 = await waitForMessage('rendered');
      assertReadable(r2, expanded, model);
      assert.equal(r2.nodes, r.nodes - 1 + largest.members!.length);
      await page.screenshot({ path: path.join(ARTIFACTS, `project-graph-${total}-expanded.png`) });
      console.log(`      · expanded ${largest.folder}/: drew ${r2.nodes} nodes, ${r2.edges} edges, layout ${r2.layoutMs} ms`);
      // A project of the expanded folder offers to collapse it again.
      const member = largest.members![0]!;
      await page.click('#fit');
      const mp = (await page.evaluate(`window.sextantGraph.nodePosition(${JSON.stringify(member)})`)) as { x: number; y: number };
      await page.mouse.click(box.x + mp.x, box.y + mp.y);
      await page.click('#collapse-selected');
      assert.deepEqual(await waitForMessage('collapse'), { type: 'collapse', folder: largest.folder });
    });
  }

  it('shows an error from the extension', async () => {
    await post({ type: 'error', text: 'the Sextant engine for ts-app is restarting' });
    await page.waitForFunction("document.getElementById('summary').className === 'error'");
    assert.equal(await page.textContent('#summary'), 'the Sextant engine for ts-app is restarting');
  });

  it('loads nothing from outside its own origin, violates no CSP rule, and logs no error or warning', async () => {
    await post(projectGraph);
    await waitForMessage('rendered');
    const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
    assert.deepEqual(foreign, []);
    assert.deepEqual((await sent()).filter((m) => (m as { type: string }).type === 'csp'), []);
    assert.deepEqual(problems, []);
  });
});
