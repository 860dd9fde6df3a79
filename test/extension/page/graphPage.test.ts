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
import type { HostMessage, PageMessage } from '../../../src/graph/messages';

const ROOT = path.resolve(__dirname, '../../..');
const MEDIA = path.join(ROOT, 'media');

const projectGraph: HostMessage = {
  type: 'graph',
  kind: 'project',
  title: 'Project graph',
  options: { depth: 2, direction: 'both', production: true, test: true },
  data: {
    summary: '3 projects, 2 references',
    truncated: false,
    nodes: [
      { id: 'src/App/App.csproj', label: 'App', kind: 'csharp', path: 'src/App/App.csproj', line: 1, root: true },
      { id: 'src/Core/Core.csproj', label: 'Core', kind: 'csharp', path: 'src/Core/Core.csproj', line: 1 },
      { id: 'tests/App.Tests/App.Tests.csproj', label: 'App.Tests', kind: 'csharp', path: 'tests/App.Tests/App.Tests.csproj', line: 1, isTest: true },
    ],
    edges: [
      { from: 'src/App/App.csproj', to: 'src/Core/Core.csproj', kind: 'projectReference' },
      { from: 'tests/App.Tests/App.Tests.csproj', to: 'src/App/App.csproj', kind: 'projectReference' },
    ],
  },
};

describe('graph panel page (headless Chromium, fake VS Code API)', function () {
  this.timeout(60_000);
  let server: http.Server;
  let origin = '';
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];

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
    page.on('pageerror', (e) => console.error('page error:', e.message));
    // Strings, not functions: tsx would wrap functions with helpers the page does not have.
    await page.addInitScript('window.sent = []; window.acquireVsCodeApi = () => ({ postMessage: (m) => window.sent.push(m) });');
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
  const post = (m: HostMessage): Promise<void> => page.evaluate(`window.postMessage(${JSON.stringify(m)}, '*')`) as Promise<void>;

  it('draws every node and edge of a project graph and shows the summary', async () => {
    await post(projectGraph);
    const r = await waitForMessage('rendered');
    assert.deepEqual({ nodes: r.nodes, edges: r.edges }, { nodes: 3, edges: 2 });
    assert.ok(r.width > 500 && r.height > 400, `graph area ${r.width}x${r.height}`);
    assert.equal(await page.textContent('#summary'), '3 projects, 2 references');
    assert.equal(await page.textContent('#title'), 'Project graph');
    const png = await page.locator('#graph').screenshot();
    assert.ok(png.length > 3_000, `the graph area looks empty (${png.length} bytes of PNG)`);
  });

  it('clicking a node asks the extension to open its location', async () => {
    await post(projectGraph);
    await waitForMessage('rendered');
    const pos = (await page.evaluate("window.sextantGraph.nodePosition('src/Core/Core.csproj')")) as { x: number; y: number };
    const box = (await page.locator('#graph').boundingBox())!;
    await page.mouse.click(box.x + pos.x, box.y + pos.y);
    const open = await waitForMessage('open');
    assert.deepEqual(open, { type: 'open', path: 'src/Core/Core.csproj', line: 1 });
  });

  it('changing a control sends the new options', async () => {
    await post(projectGraph);
    await waitForMessage('rendered');
    await page.selectOption('#direction', 'dependents');
    await page.uncheck('#test');
    const all = (await sent()).filter((m): m is Extract<PageMessage, { type: 'options' }> => m.type === 'options');
    assert.deepEqual(all.at(-1)?.options, { depth: 2, direction: 'dependents', production: true, test: false });
  });

  it('a call graph offers incoming/outgoing and hides the production/test filters', async () => {
    await post({ ...projectGraph, kind: 'call', title: 'Call graph: totalArea', options: { depth: 2, direction: 'incoming', production: true, test: true } } as HostMessage);
    await waitForMessage('rendered');
    const options = (await page.evaluate("[...document.querySelectorAll('#direction option')].map((o) => o.value)")) as string[];
    assert.deepEqual(options, ['incoming', 'outgoing', 'both']);
    assert.equal(await page.isVisible('#test'), false);
  });

  it('shows an error from the extension', async () => {
    await post({ type: 'error', text: 'the Sextant engine for ts-app is restarting' });
    await page.waitForFunction("document.getElementById('summary').className === 'error'");
    assert.equal(await page.textContent('#summary'), 'the Sextant engine for ts-app is restarting');
  });

  it('loads nothing from outside its own origin', () => {
    const foreign = requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:'));
    assert.deepEqual(foreign, []);
  });
});
