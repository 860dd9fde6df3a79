/**
 * One engine, many clients: 8 MCP sessions over the real HTTP transport each ask queries while the
 * workspace changes and the engine refreshes again and again, until 30 refreshes have committed
 * under them (at least 200 queries each). Zero errors; zero torn
 * reads: every answer that names an index version shows exactly the content committed under that
 * version (find_file over the changing folder), and every answer stays within its byte budget.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildServer } from '../../server/src/mcp/server';
import { McpHttpServer } from '../../server/src/mcp/transport/http';
import { Engine } from '../../server/src/nav/engine';
import { findFiles } from '../../server/src/nav/findFile';
import { removeDir, tempDir } from '../helpers/workspace';
import { callSettled } from '../helpers/mcpClient';

const CLIENTS = 8;
/** Each client asks until the refresher has committed REFRESHES_MIN refreshes under its queries (and QUERIES_MIN are asked), at most QUERIES_MAX. */
const QUERIES_MAX = 1_000;
const QUERIES_MIN = 200;
const REFRESHES_MIN = 30;
const GEN_FILES = 40;
const BUDGET = 8 * 1024;

function writeGeneration(ws: string, g: number): void {
  const dir = path.join(ws, 'gen');
  fs.mkdirSync(dir, { recursive: true });
  for (let i = 0; i < GEN_FILES; i++) {
    fs.writeFileSync(path.join(dir, `G${g}_F${i}.cs`), `namespace Gen;\npublic class G${g}F${i} { string marker = "genmark gen${g}"; }\n`);
  }
}
function removeGeneration(ws: string, g: number): void {
  for (let i = 0; i < GEN_FILES; i++) fs.rmSync(path.join(ws, 'gen', `G${g}_F${i}.cs`), { force: true });
}

describe('concurrent clients during refreshes @e2e', function () {
  this.timeout(600_000);
  let ws: string;
  let engine: Engine;
  let http: McpHttpServer;
  const clients: Client[] = [];

  before(async () => {
    ws = tempDir('concws');
    for (let i = 0; i < 60; i++) {
      fs.mkdirSync(path.join(ws, 'stable'), { recursive: true });
      fs.writeFileSync(path.join(ws, 'stable', `S${i}.cs`), `namespace Stable;\npublic class S${i} { int stableword${i} = ${i}; }\n`);
    }
    writeGeneration(ws, 0);
    engine = await Engine.open({ workspaceRoot: ws, indexRoot: '' });
    // A hook that yields to the event loop while preparing each batch, as one waiting on a worker
    // or on I/O does: requests are served between every step of a refresh.
    engine.addHook({
      name: 'yields',
      async prepare() {
        await new Promise((r) => setTimeout(r, 2));
        return undefined;
      },
      deleteFiles() {},
    });
    await engine.refresh();
    http = new McpHttpServer({ createServer: () => buildServer(engine) });
    const { url, token } = await http.listen();
    for (let c = 0; c < CLIENTS; c++) {
      const client = new Client({ name: `c${c}`, version: '0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
    }
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await http?.close();
    await engine?.close();
    removeDir(ws);
  });

  it('8 clients querying through 30 refreshes: zero errors, zero torn reads, all within budget', async () => {
    /** version → the sorted paths under gen/ committed with it (taken from the engine between refreshes). */
    const committed = new Map<string, string>();
    const snapshot = () => {
      const r = findFiles(engine, { query: 'gen/**', offset: 0, limit: 200 });
      committed.set(engine.version, r.hits.map((h) => h.path).sort().join(','));
    };
    snapshot();

    let stop = false;
    let refreshes = 0;
    const refresher = (async () => {
      for (let g = 1; !stop; g++) {
        writeGeneration(ws, g);
        removeGeneration(ws, g - 1);
        await engine.refresh();
        snapshot();
        refreshes++;
      }
    })();

    const errors: string[] = [];
    const torn: string[] = [];
    const overBudget: string[] = [];
    const seen = new Map<string, string>(); // version → gen/ paths observed by clients
    let answered = 0;
    let asked = 0;
    const queries = [
      { name: 'find_file', arguments: { query: 'gen/**', limit: 200, maxBytes: 64 * 1024 } },
      { name: 'search_text', arguments: { query: 'genmark', limit: 50 } },
      { name: 'find_file', arguments: { query: 'S1' } },
      { name: 'search_text', arguments: { query: 'stableword7' } },
      { name: 'repo_overview', arguments: {} },
    ];
    await Promise.all(
      clients.map(async (client, c) => {
        for (let q = 0; q < QUERIES_MAX && !(q >= QUERIES_MIN && refreshes >= REFRESHES_MIN); q++) {
          asked++;
          const call = queries[(q + c) % queries.length]!;
          try {
            const r = await callSettled(client, call.name, call.arguments);
            const text = (r.content as Array<{ text: string }>)[0]?.text ?? '';
            if (r.isError) {
              errors.push(`${call.name}: ${text.slice(0, 200)}`);
              continue;
            }
            answered++;
            const sc = r.structuredContent as { index: { version: string }; items: Array<{ path: string }> };
            const limit = (call.arguments as { maxBytes?: number }).maxBytes ?? BUDGET;
            const bytes = Math.max(Buffer.byteLength(text), Buffer.byteLength(JSON.stringify(sc)));
            if (bytes > limit) overBudget.push(`${call.name}: ${bytes} > ${limit}`);
            if (call.name === 'find_file' && call.arguments.query === 'gen/**') {
              const paths = sc.items.map((i) => i.path).sort().join(',');
              const prev = seen.get(sc.index.version);
              if (prev !== undefined && prev !== paths) torn.push(`version ${sc.index.version} answered two different file sets`);
              seen.set(sc.index.version, paths);
              if (sc.items.length !== GEN_FILES) torn.push(`version ${sc.index.version}: ${sc.items.length} files under gen/ (a consistent snapshot has ${GEN_FILES})`);
            }
          } catch (e) {
            errors.push(`${call.name}: ${(e as Error).message}`);
          }
        }
      }),
    );
    stop = true;
    await refresher;
    // Every version a client saw must show what was committed under it.
    for (const [v, paths] of seen) {
      const want = committed.get(v);
      if (want !== undefined && want !== paths) torn.push(`version ${v}: clients saw a different file set than was committed`);
    }
    console.log(`      ${answered} answers from ${CLIENTS} clients during ${refreshes} refreshes; ${seen.size} versions observed; errors ${errors.length}, torn ${torn.length}, over budget ${overBudget.length}`);
    assert.ok(refreshes >= REFRESHES_MIN, `only ${refreshes} refreshes ran during the queries`);
    assert.ok(seen.size >= REFRESHES_MIN, `clients saw only ${seen.size} versions`);
    assert.deepEqual(errors.slice(0, 5), []);
    assert.deepEqual(torn.slice(0, 5), []);
    assert.deepEqual(overBudget.slice(0, 5), []);
    assert.equal(answered, asked);
  });
});
