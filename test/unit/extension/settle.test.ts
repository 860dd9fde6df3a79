import * as assert from 'node:assert/strict';
import { settle, WarmTracker } from '../../../src/bridge/settle';

/** A fake clock: sleep advances time instantly. */
function clock() {
  let t = 0;
  return { now: () => t, sleep: async (ms: number) => void (t += ms) };
}

const id = (s: string): string => s;
/** Rows are `file:line`; an answer confined to the asked file (or empty) is suspect. */
const confinedTo = (file: string) => (v: string[]) => v.every((r) => r.startsWith(`${file}:`));

/** The sequence measured in code-server (3,000-file TS project, just changed): nothing, the declaration alone, then everything. */
function loadingService(roundsEmpty: number, roundsOneFile: number) {
  let i = 0;
  return async (): Promise<string[]> => {
    i++;
    if (i <= roundsEmpty) return [];
    if (i <= roundsEmpty + roundsOneFile) return ['shapes.ts:5'];
    return ['shapes.ts:5', 'main.ts:1', 'main.ts:4', 'gen/m1.ts:1'];
  };
}

describe('editor answers from a loading language service (settle)', () => {
  it('a warm language is asked once and trusted, even when its answer stays in one file', async () => {
    let calls = 0;
    const r = await settle(async () => (calls++, ['shapes.ts:5']), id, { timeoutMs: 5000, intervalMs: 300, warm: true, suspect: confinedTo('shapes.ts'), ...clock() });
    assert.deepEqual({ value: r.value, trusted: r.trusted, rounds: r.rounds }, { value: ['shapes.ts:5'], trusted: true, rounds: 1 });
    assert.equal(calls, 1);
  });

  it('two equal answers from the asked file alone are not trusted: it asks again until the answer reaches other files', async () => {
    const r = await settle(loadingService(1, 8), id, { timeoutMs: 5000, intervalMs: 300, warm: false, suspect: confinedTo('shapes.ts'), ...clock() });
    assert.equal(r.trusted, true);
    assert.equal(r.changed, true);
    assert.equal(r.rounds, 10);
    assert.deepEqual(r.value, ['shapes.ts:5', 'main.ts:1', 'main.ts:4', 'gen/m1.ts:1']);
    assert.equal(r.elapsedMs, 9 * 300);
  });

  it('an answer still confined to the asked file when the time runs out is returned untrusted (precise_partial)', async () => {
    const r = await settle(loadingService(1, 1000), id, { timeoutMs: 5000, intervalMs: 300, warm: false, suspect: confinedTo('shapes.ts'), ...clock() });
    assert.deepEqual({ value: r.value, trusted: r.trusted, changed: r.changed }, { value: ['shapes.ts:5'], trusted: false, changed: true });
    assert.ok(r.elapsedMs <= 5000 && r.elapsedMs > 4000, `${r.elapsedMs} ms`);
  });

  it('an answer that reaches another file on the first round is trusted at once', async () => {
    const r = await settle(async () => ['main.ts:5'], id, { timeoutMs: 5000, intervalMs: 300, warm: false, suspect: confinedTo('shapes.ts'), ...clock() });
    assert.deepEqual({ trusted: r.trusted, rounds: r.rounds, elapsedMs: r.elapsedMs }, { trusted: true, rounds: 1, elapsedMs: 0 });
  });

  it('a re-ask that fails keeps the earlier answer, untrusted', async () => {
    let i = 0;
    const ask = async (): Promise<string[]> => {
      if (++i === 1) return ['shapes.ts:5'];
      throw new Error('timeout');
    };
    const r = await settle(ask, id, { timeoutMs: 5000, intervalMs: 300, warm: false, suspect: confinedTo('shapes.ts'), ...clock() });
    assert.deepEqual({ value: r.value, trusted: r.trusted, rounds: r.rounds }, { value: ['shapes.ts:5'], trusted: false, rounds: 1 });
  });

  it('files changed just now: an answer asked before the quiet period ends is asked again after it', async () => {
    const c = clock();
    let i = 0;
    const ask = async (): Promise<string[]> => (++i === 1 ? ['shapes.ts:5', 'main.ts:1'] : ['shapes.ts:5', 'main.ts:1', 'gen/m1.ts:1']);
    const r = await settle(ask, id, { timeoutMs: 5000, intervalMs: 300, warm: false, suspect: confinedTo('shapes.ts'), notBefore: 1500, ...c });
    assert.deepEqual({ value: r.value, trusted: r.trusted, rounds: r.rounds, elapsedMs: r.elapsedMs }, { value: ['shapes.ts:5', 'main.ts:1', 'gen/m1.ts:1'], trusted: true, rounds: 2, elapsedMs: 1500 });
  });

  it('files changed just now and no time to ask again: the answer is returned untrusted', async () => {
    const r = await settle(async () => ['shapes.ts:5', 'main.ts:1'], id, { timeoutMs: 1000, intervalMs: 300, warm: true, suspect: confinedTo('shapes.ts'), notBefore: 1500, ...clock() });
    assert.deepEqual({ trusted: r.trusted, rounds: r.rounds }, { trusted: false, rounds: 1 });
  });

  it('a change makes the language cold and sets the quiet period', () => {
    let t = 10_000;
    const w = new WarmTracker(1500, () => t);
    w.markWarm('typescript');
    assert.equal(w.notBefore('typescript'), 0);
    w.reset('typescript');
    assert.equal(w.isWarm('typescript'), false);
    assert.equal(w.notBefore('typescript'), 11_500);
    t = 20_000;
    w.reset();
    assert.equal(w.notBefore('csharp'), 21_500);
  });

  it('a language is warm once proven, and cold again after its project may have reloaded', () => {
    const w = new WarmTracker();
    assert.equal(w.isWarm('typescript'), false);
    w.markWarm('typescript');
    assert.equal(w.isWarm('typescript'), true);
    assert.equal(w.isWarm('csharp'), false);
    w.reset('typescript');
    assert.equal(w.isWarm('typescript'), false);
    w.markWarm('csharp');
    w.reset();
    assert.equal(w.isWarm('csharp'), false);
  });
});
