/**
 * Background work yields to cheap questions (core/timeSlice.ts): a background slice waits while a
 * question marked foreground is in flight, bounded by BACKGROUND_WAIT_MAX_MS; ordinary slices
 * (a heavy question's own work) only give the event loop a turn.
 */
import * as assert from 'node:assert/strict';
import { BACKGROUND_WAIT_MAX_MS } from '../../../server/src/core/limits';
import { asForeground, backgroundSlice, timeSlice } from '../../../server/src/core/timeSlice';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A loop of 2 ms steps with a slice after each; returns its step count and a stop. */
function loop(slice: () => Promise<void>): { steps: () => number; stop: () => Promise<void> } {
  let steps = 0;
  let stopped = false;
  const done = (async () => {
    while (!stopped) {
      const t = performance.now();
      while (performance.now() - t < 2);
      steps++;
      await slice();
    }
  })();
  return { steps: () => steps, stop: async () => ((stopped = true), await done) };
}

describe('time slices: background work waits for cheap questions', () => {
  it('a background loop makes no progress while a cheap question is in flight, and goes on after it; an ordinary loop goes on meanwhile', async () => {
    const bg = loop(backgroundSlice(1));
    const plain = loop(timeSlice(1));
    await sleep(30);
    const [bg0, plain0] = [bg.steps(), plain.steps()];
    await asForeground(() => sleep(100));
    const [bgDuring, plainDuring] = [bg.steps() - bg0, plain.steps() - plain0];
    await sleep(50);
    const bgAfter = bg.steps() - bg0 - bgDuring;
    await bg.stop();
    await plain.stop();
    assert.ok(bgDuring <= 2, `background steps during the question: ${bgDuring}`);
    assert.ok(plainDuring >= 3, `ordinary steps during the question: ${plainDuring}`);
    assert.ok(bgAfter >= 1, `background steps after it: ${bgAfter}`);
  });

  it(`a cheap question that runs long delays background work by at most ${BACKGROUND_WAIT_MAX_MS} ms a turn`, async () => {
    const bg = loop(backgroundSlice(1));
    await sleep(10);
    const s0 = bg.steps();
    await asForeground(() => sleep(BACKGROUND_WAIT_MAX_MS * 3 + 100));
    const during = bg.steps() - s0;
    await bg.stop();
    assert.ok(during >= 1 && during <= 6, `background steps during a ${BACKGROUND_WAIT_MAX_MS * 3 + 100} ms question: ${during}`);
  });
});
