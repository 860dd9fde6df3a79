import * as assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { StdioTransport, type StdioTransportOptions } from '../../../server/src/mcp/transport/stdio';
import { setLogSink } from '../../../server/src/core/log';

/** A transport on in-memory streams; `replies` collects parsed output lines, `got` what was delivered. */
function harness(opts: Omit<StdioTransportOptions, 'input' | 'output'> = {}, output?: Writable) {
  const input = new PassThrough();
  const out = output ?? new PassThrough();
  const t = new StdioTransport({ ...opts, input, output: out });
  const got: JSONRPCMessage[] = [];
  const replies: Array<{ id?: unknown; error?: { code: number; message: string }; result?: unknown }> = [];
  const raw: string[] = [];
  let buffered = '';
  if (!output) {
    out.on('data', (d: Buffer) => {
      buffered += d.toString('utf8');
      let nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        raw.push(line);
        replies.push(JSON.parse(line));
      }
    });
  }
  t.onmessage = (m) => got.push(m);
  return { t, input, out, got, replies, raw };
}

const tick = () => new Promise((r) => setImmediate(r));
const req = (id: unknown, method = 'ping') => JSON.stringify({ jsonrpc: '2.0', id, method }) + '\n';

describe('stdio transport: bad frames are answered and the session continues', () => {
  let logged: string[] = [];
  beforeEach(() => {
    logged = [];
    setLogSink((l) => logged.push(l));
  });
  afterEach(() => setLogSink((l) => process.stderr.write(l + '\n')));

  it('answers invalid JSON with -32700 and id null, then serves the next request', async () => {
    const h = harness();
    await h.t.start();
    h.input.write('{"jsonrpc": "2.0", "id": 1, "method": \n' + req(2));
    await tick();
    assert.deepEqual(h.replies, [{ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the frame is not valid JSON' } }]);
    assert.deepEqual(h.got, [{ jsonrpc: '2.0', id: 2, method: 'ping' }]);
  });

  it('answers valid JSON that is not JSON-RPC with -32600, echoing a short id only', async () => {
    const h = harness();
    await h.t.start();
    const longId = 'i'.repeat(100_000);
    h.input.write('{"id": 7, "hello": 1}\n[1,2]\n"str"\n' + JSON.stringify({ id: longId, x: 1 }) + '\n' + JSON.stringify({ id: { nested: true } }) + '\n');
    await tick();
    assert.deepEqual(h.replies.map((r) => [r.id, r.error?.code]), [[7, -32600], [null, -32600], [null, -32600], [null, -32600], [null, -32600]]);
    const longest = Math.max(...h.raw.map((l) => l.length));
    assert.ok(longest < 120, `reply to a 100,000-char id is ${longest} bytes`);
    assert.equal(h.got.length, 0);
  });

  it('refuses a valid request whose id is too long to echo, instead of reflecting it', async () => {
    const h = harness();
    await h.t.start();
    h.input.write(req('x'.repeat(300)) + req('y'.repeat(200)));
    await tick();
    assert.equal(h.replies.length, 1);
    assert.deepEqual([h.replies[0]?.id, h.replies[0]?.error?.code], [null, -32600]);
    assert.ok((h.raw[0] ?? '').length < 120);
    assert.deepEqual(h.got.map((m) => (m as { id: string }).id.length), [200]);
  });

  it('accepts CRLF and blank lines; survives pathological nesting', async () => {
    const h = harness();
    await h.t.start();
    h.input.write('\n\r\n  \n' + req(1).replace('\n', '\r\n') + '['.repeat(1_000_000) + ']'.repeat(1_000_000) + '\n' + req(2));
    await tick();
    assert.deepEqual(h.got.map((m) => (m as { id: number }).id), [1, 2]);
    assert.deepEqual(h.replies.map((r) => r.error?.code), [-32600]);
  });

  it('discards a frame over the size cap up to the next newline, with one error, in chunks', async () => {
    const h = harness({ maxFrameBytes: 1024 });
    await h.t.start();
    // 5 chunks of 600 bytes without a newline, then the end of that frame and a valid request.
    for (let i = 0; i < 5; i++) h.input.write('a'.repeat(600));
    h.input.write('tail-of-the-big-frame\n' + req(3));
    // a frame exactly at the cap is accepted (1024 bytes including padding spaces)
    const padded = JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'ping' });
    h.input.write(padded + ' '.repeat(1024 - padded.length) + '\n');
    // one over the cap arriving in a single chunk with its newline
    h.input.write('b'.repeat(1025) + '\n' + req(5));
    await tick();
    assert.deepEqual(h.replies.map((r) => [r.id, r.error?.code, r.error?.message]), [
      [null, -32600, 'Frame larger than 1024 bytes discarded'],
      [null, -32600, 'Frame larger than 1024 bytes discarded'],
    ]);
    assert.deepEqual(h.got.map((m) => (m as { id: number }).id), [3, 4, 5]);
    assert.equal(h.t.stats().oversizedFrames, 2);
  });

  it('sends at most 64 error replies per run of bad frames, then one notice; a valid frame resets the budget', async () => {
    const h = harness();
    await h.t.start();
    h.input.write('x\n'.repeat(20_000));
    await tick();
    assert.equal(h.replies.length, 64);
    assert.equal(logged.filter((l) => l.includes('too many malformed frames')).length, 1, 'exactly one notice');
    h.input.write(req(1) + '{}\n'.repeat(10));
    await tick();
    assert.equal(h.replies.length, 74, 'the budget resets after a valid message');
    const s = h.t.stats();
    assert.deepEqual([s.badFrames, s.errorReplies, s.suppressedErrorReplies, s.floodNotices], [20_010, 74, 19_936, 1]);
  });
});

describe('stdio transport: bounded memory when the client does not read', function () {
  // A regression here tends to leave promises pending forever: fail in seconds, not hang.
  this.timeout(20_000);
  /** A stdout whose reader has stopped: writes are accepted into its buffer and never flushed until release(). */
  function stalledOutput() {
    let release: (() => void) | undefined;
    const held: Array<() => void> = [];
    let received = 0;
    const w = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _enc, cb) {
        received += chunk.length;
        if (release) cb();
        else held.push(cb);
      },
    });
    return {
      w,
      received: () => received,
      release: () => {
        release = () => undefined;
        for (const cb of held.splice(0)) cb();
      },
    };
  }

  it('pauses input while answers pile up and answers every request once the client reads again', async () => {
    const o = stalledOutput();
    const h = harness({}, o.w);
    const answerBytes = 64 * 1024;
    h.t.onmessage = (m) => {
      const id = (m as { id: number }).id;
      // answered asynchronously, like an MCP handler
      setImmediate(() => void h.t.send({ jsonrpc: '2.0', id, result: { text: 'x'.repeat(answerBytes) } }).catch(() => undefined));
    };
    await h.t.start();
    const n = 400; // 25 MiB of answers
    let all = '';
    for (let i = 1; i <= n; i++) all += req(i);
    h.input.write(all);
    for (let i = 0; i < 50; i++) await tick();
    const s = h.t.stats();
    assert.ok(s.inputPaused, 'input is paused');
    assert.ok(s.maxPendingBytes <= 4 * 1024 * 1024 + 2 * answerBytes, `peak pending ${s.maxPendingBytes} bytes`);
    assert.ok(s.maxInflightRequests <= 32);
    assert.ok(s.drainListeners <= 1, `${s.drainListeners} drain listeners`);
    assert.equal(s.sendsRefused, 0);
    o.release();
    for (let i = 0; i < 2000 && o.received() < n * answerBytes; i++) await tick();
    assert.ok(o.received() >= n * answerBytes, `client received ${o.received()} bytes`);
    const end = h.t.stats();
    assert.deepEqual([end.inputPaused, end.inflightRequests, end.queuedBytes, end.sendsRefused], [false, 0, 0, 0]);
  });

  it('refuses sends beyond the outbound cap instead of buffering, and keeps one drain listener', async () => {
    const o = stalledOutput();
    const h = harness({ maxOutboundBytes: 1024 * 1024 }, o.w);
    await h.t.start();
    let refused = 0;
    const sends = Array.from({ length: 5000 }, (_, i) =>
      h.t.send({ jsonrpc: '2.0', method: 'notifications/message', params: { i, data: 'x'.repeat(1000) } }).catch(() => void refused++),
    );
    await tick();
    const s = h.t.stats();
    assert.ok(refused > 3500, `${refused} of 5000 sends refused`);
    assert.ok(s.queuedBytes <= 1024 * 1024);
    assert.equal(o.w.listenerCount('drain'), 1);
    await h.t.close();
    assert.equal(o.w.listenerCount('drain'), 0, 'close() removes the drain listener');
    assert.equal(h.input.listenerCount('data'), 0);
    await Promise.all(sends);
  });

  it('close() rejects queued sends and reports onclose once', async () => {
    const o = stalledOutput();
    const h = harness({}, o.w);
    let closes = 0;
    h.t.onclose = () => closes++;
    await h.t.start();
    const sends = Array.from({ length: 100 }, () => h.t.send({ jsonrpc: '2.0', method: 'x', params: { d: 'y'.repeat(10_000) } }));
    await h.t.close();
    await h.t.close();
    const settled = await Promise.allSettled(sends);
    assert.ok(settled.filter((r) => r.status === 'rejected').length >= 90);
    assert.equal(closes, 1);
  });

  it('a cancelled request (which the SDK never answers) frees its in-flight slot', async () => {
    const h = harness({ maxInflightRequests: 2 });
    await h.t.start();
    const cancel1 = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }) + '\n';
    h.input.write(req(1) + req(2) + req(3) + cancel1 + req(4));
    await tick();
    const ids = () => h.got.map((m) => (m as { id?: number }).id ?? 'cancel');
    assert.deepEqual(ids(), [1, 2], 'the cap holds request 3');
    await h.t.send({ jsonrpc: '2.0', id: 2, result: {} });
    await tick();
    // a slot frees: 3 is read, then the cancellation frees request 1's slot, so 4 is read too
    assert.deepEqual(ids(), [1, 2, 3, 'cancel', 4]);
    assert.equal(h.t.stats().inflightRequests, 2);
  });

  it('a client that goes away (EPIPE) closes the transport without an unhandled error', async () => {
    const out = new Writable({ write: (_c, _e, cb) => cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' })) });
    const h = harness({}, out);
    const errors: string[] = [];
    let closed = false;
    h.t.onerror = (e) => errors.push(e.message);
    h.t.onclose = () => (closed = true);
    await h.t.start();
    await h.t.send({ jsonrpc: '2.0', id: 1, result: {} }).catch(() => undefined);
    await tick();
    assert.ok(closed);
    assert.deepEqual(errors, ['write EPIPE']);
  });
});
