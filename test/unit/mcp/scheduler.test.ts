/**
 * The engine's scheduler on its own (mcp/scheduler.ts): heavy calls share the slots round robin
 * over sessions, cheap calls never wait, and a call past its answer deadline is joined when asked
 * again. The end-to-end behaviour (real sessions over MCP) is the shared_engine bench section and
 * test/e2e/stillWorking.test.ts.
 */
import * as assert from 'node:assert/strict';
import { heavyCall, Scheduler } from '../../../server/src/mcp/scheduler';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

function gate(): { open: () => void; wait: Promise<void> } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { open, wait };
}

describe('scheduler: one engine, many agents', () => {
  it('a session with a burst of heavy calls does not starve another session: slots go round robin', async () => {
    const s = new Scheduler(1);
    const order: string[] = [];
    const g = gate();
    const first = s.run(1, true, async () => {
      order.push('a0');
      await g.wait;
    });
    const burst = [1, 2, 3].map((i) => s.run(1, true, async () => void order.push(`a${i}`)));
    const other = s.run(2, true, async () => void order.push('b0'));
    await tick(5);
    assert.deepEqual(order, ['a0'], 'one slot: the others wait');
    assert.deepEqual(s.load(), { running: 1, waiting: 4 });
    g.open();
    await Promise.all([first, ...burst, other]);
    assert.deepEqual(order, ['a0', 'a1', 'b0', 'a2', 'a3'], 'session 2 is served after one more call of session 1, not after its whole burst');
    assert.deepEqual(s.load(), { running: 0, waiting: 0 });
  });

  it('cheap calls never wait for a heavy slot', async () => {
    const s = new Scheduler(1);
    const g = gate();
    const heavy = s.run(1, true, () => g.wait);
    let cheapDone = false;
    await s.run(2, false, async () => {
      cheapDone = true;
    });
    assert.equal(cheapDone, true);
    g.open();
    await heavy;
  });

  it('a slot is freed when a heavy call throws', async () => {
    const s = new Scheduler(1);
    await assert.rejects(s.run(1, true, async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(await s.run(2, true, async () => 42), 42);
    assert.deepEqual(s.load(), { running: 0, waiting: 0 });
  });

  it('past its answer deadline a call is pending; asked again it is joined, not started again', async () => {
    const s = new Scheduler(2);
    let started = 0;
    const g = gate();
    const work = async () => {
      started++;
      await g.wait;
      return 'answer';
    };
    const first = await s.within('q', 20, work);
    assert.ok('pending' in first);
    const second = s.within('q', 1_000, work);
    await tick(5);
    g.open();
    const r = await second;
    assert.ok('value' in r && r.value === 'answer');
    assert.equal(started, 1, 'the second ask joined the first computation');
    // Handed out once: a third ask computes again.
    const third = await s.within('q', 1_000, async () => 'again');
    assert.ok('value' in third && third.value === 'again');
  });

  it('an answer within the deadline is not kept', async () => {
    const s = new Scheduler(2);
    let n = 0;
    await s.within('q', 1_000, async () => ++n);
    const r = await s.within('q', 1_000, async () => ++n);
    assert.ok('value' in r && r.value === 2);
  });

  it('heavy: providers, scans and walks; search_text only for regex or an exact count', () => {
    assert.equal(heavyCall('references', {}), true);
    assert.equal(heavyCall('search_structural', {}), true);
    assert.equal(heavyCall('search_symbol', {}), false);
    assert.equal(heavyCall('outline', {}), false);
    assert.equal(heavyCall('search_text', { query: 'x' }), false);
    assert.equal(heavyCall('search_text', { query: 'x', mode: 'regex' }), true);
    assert.equal(heavyCall('search_text', { query: 'x', count: true }), true);
  });
});
