/**
 * A yield point for long loops on the engine thread: `await slice()` gives the event loop a turn
 * once NAV_WORK_SLICE_MS of work ran since the last turn (else it returns at once), so a walk over
 * thousands of files answers other agents' questions meanwhile.
 */
import { NAV_WORK_SLICE_MS } from './limits';

export function timeSlice(sliceMs = NAV_WORK_SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    since = performance.now();
  };
}

/**
 * Work written once as a generator of steps (`yield` where a turn may be given), run two ways:
 * to the end at once (offline tools, tests), or with `await slice()` at each step (the engine
 * thread, so a long computation holds it at most about NAV_WORK_SLICE_MS at a time).
 */
export function runSteps<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

export async function runStepsSliced<T>(steps: Generator<void, T>, slice: () => Promise<void> = timeSlice()): Promise<T> {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await slice();
  }
}
