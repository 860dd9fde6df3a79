/**
 * The hardened stdio transport in a real child process (test/unit/hardening/stdioHarness.ts: an
 * McpServer with echo/memory/stray tools), driven over real pipes by a client that stops reading.
 */
import * as assert from 'node:assert/strict';
import { RawStdioClient, type Reply } from '../unit/hardening/rawStdioClient';

interface MemoryReport {
  gc: boolean;
  heapUsed: number;
  arrayBuffers: number;
  rss: number;
  stdoutDrainListeners: number;
  errorReplies: number;
  suppressedErrorReplies: number;
  floodNotices: number;
  badFrames: number;
  oversizedFrames: number;
  maxPendingBytes: number;
  maxInflightRequests: number;
  inputPauses: number;
  sendsRefused: number;
  queuedBytes: number;
}

const MiB = 1024 * 1024;
const errorsAmong = (rs: Reply[]) => rs.filter((r) => r.error !== undefined && (r.error.code === -32700 || r.error.code === -32600));

/** 200,000 malformed lines of assorted kinds: broken JSON, JSON that is not JSON-RPC, junk. */
function* malformedLines(n: number): Generator<string> {
  for (let i = 0; i < n; i++) {
    switch (i % 4) {
      case 0:
        yield `{"jsonrpc":"2.0","id":${i},"method":`;
        break;
      case 1:
        yield `{"id":${i},"not":"jsonrpc"}`;
        break;
      case 2:
        yield `garbage line ${i} \u0000\u0001`;
        break;
      default:
        yield `[${i},{"jsonrpc":"1.0"}]`;
    }
  }
}

describe('stdio transport in a real process @e2e', function () {
  this.timeout(120_000);
  let c: RawStdioClient;
  let seq = 0;
  const memory = () => c.callTool<MemoryReport>(`mem-${++seq}`, 'memory', {}, true);

  beforeEach(async () => {
    c = new RawStdioClient();
    await c.initialize();
  });
  afterEach(async () => {
    await c.close();
  });

  it('a 200,000-line malformed flood from a client that does not read: ≤ 64 replies, ≤ 2 MiB retained, still serving', async () => {
    // Warm-up: every code path the flood takes runs once before the baseline is taken.
    let warm = '';
    for (const l of malformedLines(1000)) warm += l + '\n';
    await c.write(warm);
    await c.request('warm', 'ping');
    const before = await memory();
    assert.ok(before.gc, 'the harness runs with --expose-gc');
    const repliesBefore = c.replies.length;

    c.stopReading();
    let batch = '';
    let lines = 0;
    let bytes = 0;
    for (const l of malformedLines(200_000)) {
      batch += l + '\n';
      lines++;
      if (batch.length > 256 * 1024) {
        bytes += batch.length;
        await c.write(batch);
        batch = '';
      }
    }
    bytes += batch.length;
    await c.write(batch);
    assert.equal(lines, 200_000);
    const pong = c.request('after-flood', 'ping');
    c.resumeReading();
    assert.deepEqual((await pong).result, {}, 'a valid request after the flood is answered');
    const after = await memory();

    const floodReplies = c.replies.slice(repliesBefore);
    const errorReplies = errorsAmong(floodReplies).length;
    const retained = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    console.log(
      `      flood: ${lines} lines (${(bytes / MiB).toFixed(1)} MiB) → ${errorReplies} error replies, ` +
        `${after.suppressedErrorReplies - before.suppressedErrorReplies} suppressed, retained ${(retained / MiB).toFixed(2)} MiB ` +
        `(heap ${(before.heapUsed / MiB).toFixed(1)} → ${(after.heapUsed / MiB).toFixed(1)} MiB), drain listeners ${after.stdoutDrainListeners}`,
    );
    assert.ok(errorReplies <= 64, `${errorReplies} error replies`);
    assert.equal(errorReplies, 64);
    assert.equal(after.badFrames - before.badFrames, 200_000);
    assert.equal(after.floodNotices - before.floodNotices, 1, 'one notice');
    assert.equal((c.stderr.match(/too many malformed frames/g) ?? []).length, 2, 'one notice per run (warm-up + flood) on stderr');
    assert.ok(retained <= 2 * MiB, `retained ${retained} bytes after GC`);
    assert.ok(after.stdoutDrainListeners <= 1);
    assert.deepEqual(c.unparsable, [], 'stdout carries JSON-RPC only');
  });

  it('a frame over 10 MiB is discarded to its newline with one error, and the next request is answered', async () => {
    const before = await memory();
    c.stopReading();
    const chunk = 'a'.repeat(MiB);
    for (let i = 0; i < 12; i++) await c.write(chunk);
    await c.write('\n');
    const pong = c.request('after-big', 'ping');
    c.resumeReading();
    assert.deepEqual((await pong).result, {});
    const after = await memory();
    const errs = errorsAmong(c.replies);
    assert.deepEqual(errs.map((r) => [r.id, r.error?.code, r.error?.message]), [[null, -32600, 'Frame larger than 10485760 bytes discarded']]);
    assert.equal(after.oversizedFrames, 1);
    const retained = after.heapUsed + after.arrayBuffers - (before.heapUsed + before.arrayBuffers);
    console.log(`      12 MiB frame: retained ${(retained / MiB).toFixed(2)} MiB after GC`);
    assert.ok(retained <= 2 * MiB, `retained ${retained} bytes`);
  });

  it('400 requests for 64 KiB answers from a client that does not read: stdin pauses, memory stays bounded, all answered', async () => {
    const n = 400;
    const answerBytes = 64 * 1024;
    c.stopReading();
    let all = '';
    for (let i = 0; i < n; i++) all += JSON.stringify({ jsonrpc: '2.0', id: `e${i}`, method: 'tools/call', params: { name: 'echo', arguments: { bytes: answerBytes } } }) + '\n';
    const answers = Array.from({ length: n }, (_, i) => new Promise<Reply>((resolve) => (c as unknown as { waiters: Map<string, (r: Reply) => void> }).waiters.set(JSON.stringify(`e${i}`), resolve)));
    await c.write(all);
    await new Promise((r) => setTimeout(r, 1500)); // the child fills its pipe and queue, then pauses stdin
    c.resumeReading();
    const got = await Promise.all(answers);
    assert.equal(got.filter((r) => (r.result?.content?.[0]?.text?.length ?? 0) === answerBytes).length, n);
    const s = await memory();
    console.log(
      `      backpressure: ${n} × 64 KiB answers (${((n * answerBytes) / MiB).toFixed(0)} MiB): peak pending ${(s.maxPendingBytes / MiB).toFixed(2)} MiB, ` +
        `peak in flight ${s.maxInflightRequests}, stdin paused ${s.inputPauses}×, refused ${s.sendsRefused}, rss ${(s.rss / MiB).toFixed(0)} MiB`,
    );
    assert.ok(s.inputPauses >= 1, 'stdin was paused');
    assert.ok(s.maxPendingBytes <= 4 * MiB + 2 * (answerBytes + 200), `peak pending ${s.maxPendingBytes}`);
    assert.ok(s.maxInflightRequests <= 32);
    assert.equal(s.sendsRefused, 0);
    assert.ok(s.stdoutDrainListeners <= 1);
  });

  it('a stray console.log never reaches stdout', async () => {
    assert.equal(await c.callTool('s1', 'stray'), 'done');
    await c.request('p', 'ping');
    assert.deepEqual(c.unparsable, []);
    assert.match(c.stderr, /stray console\.log output/);
    assert.match(c.stderr, /\{"stray":true\}/);
  });
});
