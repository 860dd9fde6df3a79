import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { McpHttpServer, type HttpServerOptions } from '../../../server/src/mcp/transport/http';

/** A tiny tool server; `gate` holds `slow` calls until released (to fill concurrency slots). */
function factory() {
  const made: McpServer[] = [];
  let release: () => void = () => undefined;
  let gate = new Promise<void>((r) => (release = r));
  const create = () => {
    const s = new McpServer({ name: 'http-test', version: '0' });
    s.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    s.registerTool('slow', {}, async () => {
      await gate;
      return { content: [{ type: 'text', text: 'slow done' }] };
    });
    s.registerTool('whoami', {}, async () => ({ content: [{ type: 'text', text: String(made.indexOf(s)) }] }));
    made.push(s);
    return s;
  };
  return {
    create,
    made,
    open: () => release(),
    close: () => (gate = new Promise<void>((r) => (release = r))),
  };
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request with full control over Host, Origin and the body. */
function raw(port: number, opts: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Buffer; chunks?: Buffer[] }): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: opts.method ?? 'POST', path: opts.path ?? '/mcp', headers: opts.headers ?? {}, setHost: !(opts.headers && 'host' in opts.headers) }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.chunks) {
      for (const c of opts.chunks) req.write(c);
      req.end();
    } else req.end(opts.body);
  });
}

const INIT = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });

describe('HTTP transport: loopback, token, Host/Origin, caps', function () {
  this.timeout(30_000);
  let f: ReturnType<typeof factory>;
  let srv: McpHttpServer;
  let port: number;
  let token: string;
  const clients: Client[] = [];

  async function start(extra: Partial<HttpServerOptions> = {}) {
    f = factory();
    srv = new McpHttpServer({ createServer: f.create, ...extra });
    ({ port, token } = await srv.listen());
  }
  const auth = () => ({ authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });

  async function connect(): Promise<Client> {
    const c = new Client({ name: 't', version: '0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(srv.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(c);
    return c;
  }
  const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>)[0]?.text;

  afterEach(async () => {
    f?.open();
    for (const c of clients.splice(0)) await c.close().catch(() => undefined);
    await srv?.close();
  });

  it('listens on 127.0.0.1 only, with a 256-bit token, and serves each session its own server', async () => {
    await start();
    const addr = (srv as unknown as { http: http.Server }).http.address() as net.AddressInfo;
    assert.equal(addr.address, '127.0.0.1');
    assert.ok(Buffer.from(token, 'base64url').length >= 32, 'token has at least 256 bits');
    const a = await connect();
    const b = await connect();
    assert.equal(text(await a.callTool({ name: 'echo', arguments: { text: 'hi' } })), 'hi');
    assert.deepEqual([text(await a.callTool({ name: 'whoami', arguments: {} })), text(await b.callTool({ name: 'whoami', arguments: {} }))], ['0', '1']);
    assert.equal(srv.stats().sessions, 2);
  });

  it('answers 401 without the right bearer token, before reading the body', async () => {
    await start();
    const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const wrong = 'A'.repeat(token.length);
    const cases = [
      await raw(port, { headers: base, body: INIT }),
      await raw(port, { headers: { ...base, authorization: `Bearer ${wrong}` }, body: INIT }),
      await raw(port, { headers: { ...base, authorization: `Basic ${Buffer.from('u:' + token).toString('base64')}` }, body: INIT }),
      await raw(port, { headers: { ...base, authorization: `Bearer ${token}x` }, body: INIT }),
      await raw(port, { path: `/mcp?token=${token}`, headers: base, body: INIT }),
    ];
    assert.deepEqual(cases.map((c) => c.status), [401, 401, 401, 401, 401]);
    assert.equal(cases[0]?.headers['www-authenticate'], 'Bearer realm="sextant"');
    assert.equal(srv.stats().sessions, 0);
    const ok = await raw(port, { headers: auth(), body: INIT });
    assert.equal(ok.status, 200);
    // 100 MB announced, nothing sent: the 401 comes at once, the body is never waited for.
    const sock = net.connect(port, '127.0.0.1');
    sock.on('error', () => undefined);
    let answer = '';
    const got = new Promise<void>((r) => sock.on('data', (d: Buffer) => ((answer += d.toString()), r())));
    sock.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000000\r\n\r\n`);
    await got;
    sock.destroy();
    assert.match(answer, /^HTTP\/1\.1 401/);
  });

  it('answers 403 to a foreign Host (DNS rebinding) and to any browser Origin, even with the token', async () => {
    await start();
    const h = auth();
    const cases = {
      rebinding: await raw(port, { headers: { ...h, host: `attacker.example:${port}` }, body: INIT }),
      otherPort: await raw(port, { headers: { ...h, host: `127.0.0.1:${port + 1}` }, body: INIT }),
      noPort: await raw(port, { headers: { ...h, host: '127.0.0.1' }, body: INIT }),
      origin: await raw(port, { headers: { ...h, origin: 'https://attacker.example' }, body: INIT }),
      sameOrigin: await raw(port, { headers: { ...h, origin: `http://127.0.0.1:${port}` }, body: INIT }),
      fetchSite: await raw(port, { headers: { ...h, 'sec-fetch-site': 'cross-site' }, body: INIT }),
    };
    assert.deepEqual(Object.fromEntries(Object.entries(cases).map(([k, v]) => [k, v.status])), { rebinding: 403, otherPort: 403, noPort: 403, origin: 403, sameOrigin: 403, fetchSite: 403 });
    assert.equal((await raw(port, { headers: { ...h, host: `localhost:${port}` }, body: INIT })).status, 200);
    assert.equal(srv.stats().sessions, 1);
  });

  it('refuses a body over the cap with 413, declared or streamed, and keeps serving', async () => {
    await start({ maxBodyBytes: 64 * 1024 });
    const big = Buffer.alloc(256 * 1024, 0x20);
    const declared = await raw(port, { headers: { ...auth(), 'content-length': String(big.length) }, body: big });
    const chunked = await raw(port, { headers: { ...auth(), 'transfer-encoding': 'chunked' }, chunks: Array.from({ length: 8 }, () => Buffer.alloc(32 * 1024, 0x20)) });
    assert.deepEqual([declared.status, chunked.status], [413, 413]);
    assert.equal(srv.stats().rejected.size, 2);
    const c = await connect();
    assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'x'.repeat(60_000) } }))?.length, 60_000);
  });

  it('caps requests in flight per session with 429 and serves again once they finish', async () => {
    await start({ maxInflightPerSession: 2 });
    const c = await connect();
    const slow = [c.callTool({ name: 'slow', arguments: {} }), c.callTool({ name: 'slow', arguments: {} })];
    while (srv.stats().inflight < 2) await new Promise((r) => setTimeout(r, 10));
    await assert.rejects(c.callTool({ name: 'echo', arguments: { text: 'third' } }), /429|Too many requests/);
    const other = await connect();
    assert.equal(text(await other.callTool({ name: 'echo', arguments: { text: 'other session' } })), 'other session', 'one busy client does not block another');
    f.open();
    assert.deepEqual((await Promise.all(slow)).map(text), ['slow done', 'slow done']);
    assert.equal(text(await c.callTool({ name: 'echo', arguments: { text: 'again' } })), 'again');
    assert.equal(srv.stats().rejected.busy, 1);
  });

  it('cuts a slow client that trickles its headers', async () => {
    await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    const t0 = Date.now();
    const closed = new Promise<number>((r) => sock.once('close', () => r(Date.now() - t0)));
    sock.on('error', () => undefined);
    sock.write('POST /mcp HTTP/1.1\r\n');
    const trickle = setInterval(() => sock.writable && sock.write('X-Slow: 1\r\n'), 100);
    const ms = await closed;
    clearInterval(trickle);
    assert.ok(ms < 3000, `closed after ${ms} ms`);
  });

  it('cuts a slow client that trickles its body after complete headers', async () => {
    await start({ headersTimeoutMs: 300, requestTimeoutMs: 600 });
    const sock = net.connect(port, '127.0.0.1');
    await new Promise((r) => sock.once('connect', r));
    const t0 = Date.now();
    let answer = '';
    sock.on('data', (d: Buffer) => (answer += d.toString()));
    sock.on('error', () => undefined);
    const closed = new Promise<number>((r) => sock.once('close', () => r(Date.now() - t0)));
    sock.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n`);
    const trickle = setInterval(() => sock.writable && sock.write(' '), 50);
    const ms = await closed;
    clearInterval(trickle);
    assert.ok(ms < 3000, `closed after ${ms} ms`);
    assert.match(answer, /^HTTP\/1\.1 408/);
  });

  it('closes sessions that stay idle', async () => {
    await start({ sessionIdleMs: 200 });
    const c = await connect();
    assert.equal(srv.stats().sessions, 1);
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(srv.stats().sessions, 0);
    assert.equal(srv.stats().sessionsClosedIdle, 1);
    await assert.rejects(c.callTool({ name: 'echo', arguments: { text: 'late' } }), /404|Session not found/);
  });

  it('answers 404 for an unknown session and 400 for a request without one', async () => {
    await start();
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    assert.equal((await raw(port, { headers: { ...auth(), 'mcp-session-id': 'nope' }, body: list })).status, 404);
    assert.equal((await raw(port, { headers: auth(), body: list })).status, 400);
    assert.equal((await raw(port, { headers: auth(), body: '{not json' })).status, 400);
    assert.equal((await raw(port, { path: '/other', headers: auth(), body: INIT })).status, 404);
    assert.equal((await raw(port, { method: 'PUT', headers: auth(), body: INIT })).status, 405);
  });

  it('keeps at most maxSessions sessions, closing the least recently used idle one', async () => {
    await start({ maxSessions: 2 });
    const a = await connect();
    await connect();
    await connect();
    assert.equal(srv.stats().sessions, 2);
    await assert.rejects(a.callTool({ name: 'echo', arguments: { text: 'a' } }), /404|Session not found/);
  });
});
