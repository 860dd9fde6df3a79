/**
 * The engine side of the extension connection (`sextant ipc`), driven over in-memory streams by a
 * client playing the extension: lifecycle, status, projects, the MCP endpoint, and call graphs
 * built from the editor bridge's answers (the editor is the other party here, so its answers are
 * scripted; the engine host is real).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';
import { EngineHost } from '../../../server/src/engineHost';
import { claimEngine, startSharedEndpoint } from '../../../server/src/mcp/transport/sharedEndpoint';
import { ExtensionConnection } from '../../../server/src/protocol/ExtensionConnection';
import {
  AgentActivityNotification,
  CallGraphRequest,
  EditorAvailabilityNotification,
  EditorQueryRequest,
  EngineStatusNotification,
  EngineStatusRequest,
  PROTOCOL_VERSION,
  ProjectListRequest,
  type AgentActivity,
  type EditorAnswer,
  type EditorQuery,
  type EngineInitOptions,
  type EngineStatus,
} from '../../../server/src/protocol/protocol';

interface Pair {
  client: MessageConnection;
  host: EngineHost;
  statuses: EngineStatus[];
  close(): Promise<void>;
}

function connect(): Pair {
  const up = new PassThrough();
  const down = new PassThrough();
  const client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
  const server = createMessageConnection(new StreamMessageReader(up), new StreamMessageWriter(down));
  const conn = ExtensionConnection.over(server);
  const host = new EngineHost(conn);
  const statuses: EngineStatus[] = [];
  client.onNotification(EngineStatusNotification.method, (s: unknown) => void statuses.push(s as EngineStatus));
  conn.listen();
  client.listen();
  return {
    client,
    host,
    statuses,
    async close() {
      await client.sendRequest('shutdown').catch(() => undefined);
      client.dispose();
      server.dispose();
    },
  };
}

function options(ws: string, indexRoot: string): EngineInitOptions {
  return {
    protocolVersion: PROTOCOL_VERSION,
    workspaceRoot: ws,
    indexRoot,
    exclude: [],
    languages: ['typescript'],
    maxFileBytes: 2 * 1024 * 1024,
    budget: { responseBytes: 8192, itemLimit: 20, toolDeadlineMs: 10_000 },
    useEditorProviders: true,
    lspCommands: {},
    httpPort: 0,
    clientName: 'test',
  };
}

async function until<T>(what: string, f: () => T | undefined, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('engine host (sextant ipc) over an in-memory connection', function () {
  this.timeout(60_000);
  let tmp: string;
  let ws: string;
  let pair: Pair;

  beforeEach(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-host-'));
    ws = path.join(tmp, 'ws');
    fs.cpSync(path.resolve(__dirname, '../../extension/fixtures/ts-app'), ws, { recursive: true });
    pair = connect();
  });

  afterEach(async () => {
    await pair.close();
    await pair.host.dispose();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('initialize returns the MCP endpoint; the engine indexes and reports ready', async () => {
    const r = (await pair.client.sendRequest('initialize', { processId: process.pid, capabilities: {}, initializationOptions: options(ws, path.join(tmp, 'index')) })) as {
      sextant: { endpoint?: { url: string; token: string; serverJson: string } };
    };
    const ep = r.sextant.endpoint!;
    assert.match(ep.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(ep.token.length >= 43);
    assert.equal(ep.serverJson, path.join(tmp, 'index', 'server.json'));
    assert.equal(fs.statSync(ep.serverJson).mode & 0o777, 0o600);
    const ready = await until('a ready status', () => pair.statuses.find((s) => s.state === 'ready'));
    assert.equal(ready.index.files, 4);
    assert.equal(ready.pid, process.pid);
    const status = (await pair.client.sendRequest(EngineStatusRequest.method)) as EngineStatus;
    assert.equal(status.endpoint?.url, ep.url);
  });

  it('a second window on the same index attaches to the running engine instead of indexing again', async () => {
    const indexRoot = path.join(tmp, 'index');
    const first = (await pair.client.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: options(ws, indexRoot) })) as { sextant: { endpoint: { url: string } } };
    const second = connect();
    try {
      const r = (await second.client.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: options(ws, indexRoot) })) as { sextant: { endpoint: { url: string; pid: number } } };
      assert.equal(r.sextant.endpoint.url, first.sextant.endpoint.url);
      const s = (await second.client.sendRequest(EngineStatusRequest.method)) as EngineStatus;
      assert.deepEqual(s.attachedTo, { pid: process.pid });
      assert.match(s.error ?? '', /attached to the Sextant engine/);
    } finally {
      await second.close();
      await second.host.dispose();
    }
  });

  it('MCP clients of the endpoint get the budget settings as defaults, and their calls are reported as agent activity', async () => {
    const activity: AgentActivity[] = [];
    pair.client.onNotification(AgentActivityNotification.method, (a: unknown) => void activity.push(a as AgentActivity));
    const o = { ...options(ws, path.join(tmp, 'index')), budget: { responseBytes: 4096, itemLimit: 1, toolDeadlineMs: 5_000 } };
    const r = (await pair.client.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: o })) as { sextant: { endpoint: { url: string; token: string } } };
    await until('ready', () => pair.statuses.find((s) => s.state === 'ready'));
    const mcp = new Client({ name: 'unit-agent', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(r.sextant.endpoint.url), { requestInit: { headers: { Authorization: `Bearer ${r.sextant.endpoint.token}` } } });
    await mcp.connect(transport);
    try {
      const res = await mcp.callTool({ name: 'find_file', arguments: { query: '.ts' } });
      const sc = res.structuredContent as { items: { path: string }[]; nextCursor?: string };
      assert.equal(sc.items.length, 1, 'sextant.budget.itemLimit = 1 is the default limit');
      assert.ok(sc.nextCursor, 'the rest is behind a cursor');
      const row = await until('the activity notification', () => activity.find((a) => a.tool === 'find_file'));
      assert.equal(row.client, 'http:unit-agent');
      assert.deepEqual(row.args, { query: '.ts' });
      assert.deepEqual(row.locations, [{ path: sc.items[0]!.path, line: 1 }]);
    } finally {
      await transport.terminateSession().catch(() => undefined);
      await mcp.close();
    }
  });

  it('attaches to an engine a terminal started on the workspace (sextant serve, default index root)', async () => {
    const cliRoot = path.join(fs.realpathSync(ws), '.sextant');
    const claim = await claimEngine(cliRoot, 0);
    assert.equal(claim.kind, 'owner');
    if (claim.kind !== 'owner') return;
    const terminal = await startSharedEndpoint(claim.lock, () => ({ connect: async () => undefined, close: async () => undefined }));
    try {
      const r = (await pair.client.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: options(ws, path.join(tmp, 'storage-index')) })) as { sextant: { endpoint: { url: string; serverJson: string } } };
      assert.equal(r.sextant.endpoint.url, terminal.url);
      assert.equal(r.sextant.endpoint.serverJson, path.join(cliRoot, 'server.json'));
      assert.equal(fs.existsSync(path.join(tmp, 'storage-index', 'engine.lock')), false, 'no second engine took the window index');
    } finally {
      await terminal.close();
    }
  });

  it('stops when the engine it attached to is gone, so the extension restarts it as the engine', async () => {
    const cliRoot = path.join(fs.realpathSync(ws), '.sextant');
    fs.mkdirSync(cliRoot, { recursive: true });
    // A stand-in "terminal engine": a live process that published a server.json, then stops.
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    let gone = false;
    const up = new PassThrough();
    const down = new PassThrough();
    const client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
    const server = createMessageConnection(new StreamMessageReader(up), new StreamMessageWriter(down));
    const host = new EngineHost(ExtensionConnection.over(server), () => (gone = true));
    server.listen();
    client.listen();
    fs.writeFileSync(path.join(cliRoot, 'server.json'), JSON.stringify({ pid: other.pid, port: 1, url: 'http://127.0.0.1:1/mcp', token: 't'.repeat(43), startedAt: new Date().toISOString() }), { mode: 0o600 });
    try {
      const r = (await client.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: options(ws, path.join(tmp, 'storage-index')) })) as { sextant: { endpoint: { url: string } } };
      assert.equal(r.sextant.endpoint.url, 'http://127.0.0.1:1/mcp');
      assert.equal(gone, false);
      other.kill('SIGKILL');
      await until('the host to notice', () => (gone ? true : undefined), 5_000);
    } finally {
      client.dispose();
      server.dispose();
      await host.dispose();
    }
  });

  it('refuses an extension speaking another protocol version', async () => {
    await assert.rejects(
      pair.client.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: { ...options(ws, path.join(tmp, 'index')), protocolVersion: 999 } }),
      /protocol version mismatch/,
    );
  });

  it('lists the fixture projects for the Projects view', async () => {
    await pair.client.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: options(ws, path.join(tmp, 'index')) });
    await until('ready', () => pair.statuses.find((s) => s.state === 'ready'));
    const l = (await pair.client.sendRequest(ProjectListRequest.method)) as { projects: { path: string; name: string; isTest: boolean }[] };
    assert.deepEqual(l.projects.map((p) => p.path).sort(), ['package.json', 'tsconfig.json']);
  });

  it('builds a call graph from the editor bridge, and labels it precise_partial when the editor reports gaps', async () => {
    await pair.client.sendRequest('initialize', { processId: null, capabilities: {}, initializationOptions: options(ws, path.join(tmp, 'index')) });
    await pair.client.sendNotification(EditorAvailabilityNotification.method, [{ language: 'typescript', state: 'ready', detail: 'test editor' }]);
    const item = (name: string, p: string, line: number) => ({ name, kind: 'function', path: p, line, column: 17, endLine: line, endColumn: 17 + name.length, data: { handle: line } });
    let gaps: string[] | undefined;
    const asked: string[] = [];
    pair.client.onRequest(EditorQueryRequest.method, (raw: unknown): unknown => {
      const q = raw as EditorQuery;
      asked.push(q.op);
      if (q.op === 'prepareCallHierarchy') return { kind: 'ok', value: [item('totalArea', 'src/shapes.ts', 12)] } satisfies EditorAnswer<unknown>;
      const it = q.args as { name: string };
      const value = it.name === 'totalArea' ? [{ from: item('report', 'src/main.ts', 3), sites: [{ line: 5, column: 19, endLine: 5, endColumn: 28 }] }] : [];
      return { kind: 'ok', value, ...(gaps ? { gaps } : {}) } satisfies EditorAnswer<unknown>;
    });
    const params = { position: { path: 'src/shapes.ts', line: 12, column: 17 }, depth: 2, direction: 'incoming' as const };
    const g = (await pair.client.sendRequest(CallGraphRequest.method, params)) as { mode: string; nodes: { label: string; root?: boolean }[]; edges: unknown[] };
    assert.equal(g.mode, 'precise');
    assert.deepEqual(g.nodes.map((n) => `${n.label}${n.root ? '*' : ''}`).sort(), ['report', 'totalArea*']);
    assert.equal(g.edges.length, 1);
    assert.deepEqual(asked, ['prepareCallHierarchy', 'incomingCalls', 'incomingCalls']);
    gaps = ['the editor\'s typescript language service was still loading'];
    const partial = (await pair.client.sendRequest(CallGraphRequest.method, params)) as { mode: string };
    assert.equal(partial.mode, 'precise_partial');
  });
});
