import * as assert from 'node:assert/strict';
import { settle, WarmTracker } from '../../../src/bridge/settle';

/** A fake clock: sleep advances time instantly. */
function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

const id = (s: string): string => s;

describe('editor answer stability (settle)', () => {
  it('a warm language is asked once and trusted', async () => {
    let calls = 0;
    const r = await settle(async () => (calls++, ['a']), id, { timeoutMs: 1000, intervalMs: 100, warm: true, ...clock() });
    assert.deepEqual(r, { value: ["a"], settled: true, changed: false, rounds: 1, emptyWhileCold: false });
    assert.equal(calls, 1);
  });

  it('a loading service that answers from one file first is asked again until its answer stops growing', async () => {
    const answers = [['main.ts:4'], ['main.ts:4', 'shapes.ts:5', 'main.ts:1'], ['main.ts:1', 'main.ts:4', 'shapes.ts:5']];
    let i = 0;
    const r = await settle(async () => answers[Math.min(i++, answers.length - 1)]!, id, { timeoutMs: 2000, intervalMs: 100, warm: false, ...clock() });
    assert.equal(r.settled, true);
    assert.equal(r.changed, true);
    assert.equal(r.rounds, 3);
    assert.deepEqual([...r.value].sort(), ['main.ts:1', 'main.ts:4', 'shapes.ts:5']);
  });

  it('an answer still changing when the time runs out is reported as not settled (precise_partial)', async () => {
    let n = 0;
    const r = await settle(async () => Array.from({ length: ++n }, (_, k) => `r${k}`), id, { timeoutMs: 500, intervalMs: 100, warm: false, ...clock() });
    assert.equal(r.settled, false);
    assert.equal(r.changed, true);
    assert.equal(r.value.length, r.rounds);
  });

  it('order does not matter, only the set of rows', async () => {
    const answers = [['b', 'a'], ['a', 'b']];
    let i = 0;
    const r = await settle(async () => answers[i++]!, id, { timeoutMs: 1000, intervalMs: 100, warm: false, ...clock() });
    assert.deepEqual({ settled: r.settled, changed: r.changed, rounds: r.rounds }, { settled: true, changed: false, rounds: 2 });
  });

  it('a language becomes warm after three settled first answers and cold again when one changed', () => {
    const w = new WarmTracker(3);
    for (let i = 0; i < 2; i++) w.record('typescript', { settled: true, changed: false });
    assert.equal(w.isWarm('typescript'), false);
    w.record('typescript', { settled: true, changed: false });
    assert.equal(w.isWarm('typescript'), true);
    assert.equal(w.isWarm('csharp'), false);
    w.record('typescript', { settled: true, changed: true });
    assert.equal(w.isWarm('typescript'), false);
  });
});

describe('editor answer stability while cold (empty answers)', () => {
  it('an empty answer from a cold service is re-asked until rows arrive', async () => {
    const answers = [[], [], ['report@main.ts:3']];
    let i = 0;
    const r = await settle(async () => answers[Math.min(i++, 2)]!, (s: string) => s, { timeoutMs: 5000, intervalMs: 300, warm: false, emptyGraceMs: 3000, ...clock() });
    assert.deepEqual(r.value, ['report@main.ts:3']);
    assert.equal(r.emptyWhileCold, false);
  });

  it('an answer still empty after the grace period is returned, flagged as possibly incomplete', async () => {
    const r = await settle(async () => [] as string[], (s: string) => s, { timeoutMs: 5000, intervalMs: 300, warm: false, emptyGraceMs: 1000, ...clock() });
    assert.deepEqual({ value: r.value, settled: r.settled, emptyWhileCold: r.emptyWhileCold }, { value: [], settled: true, emptyWhileCold: true });
    assert.ok(r.rounds >= 4);
  });
});
