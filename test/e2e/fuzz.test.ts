/**
 * The fuzz harness's small variant (test/fuzz/mcpFuzz.ts; the 10,000-call run is the `fuzz` bench
 * section): a few hundred schema-derived hostile calls over every tool through a real MCP client
 * on real stdio — no crash, no malformed answer, none over its budget, no call with default
 * arguments failing for size, every call answered by its answer deadline (STILL_WORKING after it).
 */
import * as assert from 'node:assert/strict';
import { TOOL_ANSWER_MS } from '../../server/src/core/limits';
import { runFuzz } from '../fuzz/mcpFuzz';

/** Scheduling slack on a loaded 2-core CI machine (transport, rendering, a busy event loop). */
const SLACK_MS = 2_500;

describe('fuzz: schema-derived hostile calls over every tool, real stdio @e2e', function () {
  this.timeout(900_000);

  it('300 calls: no crash, no malformed error, within budget, answered by the answer deadline', async () => {
    const r = await runFuzz({ calls: 300, seed: Number(process.env['SEXTANT_FUZZ_SEED'] ?? 20261202) });
    console.log(`      ${r.calls} calls over ${r.tools} tools: p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms, slowest ${r.maxMs} ms (${r.slowest[0]?.tool}); RSS ${r.rssStartMiB.toFixed(0)} → ${r.rssEndMiB.toFixed(0)} MiB; errors ${JSON.stringify(r.errorCodes)}`);
    assert.deepEqual(r.crashes, []);
    assert.deepEqual(r.malformed.slice(0, 5), []);
    assert.deepEqual(r.overBudget.slice(0, 5), []);
    assert.deepEqual(r.defaultBudgetFailures.slice(0, 5), []);
    assert.ok(r.tools >= 25, `only ${r.tools} tools drawn`);
    assert.ok(r.maxWithoutWaitMs <= TOOL_ANSWER_MS + SLACK_MS, `slowest call without waitMs ${r.maxWithoutWaitMs} ms: ${JSON.stringify(r.slowest.slice(0, 3))}`);
  });
});
