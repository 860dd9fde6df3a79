/**
 * A yield point for long loops on the engine thread: `await slice()` gives the event loop a turn
 * once NAV_WORK_SLICE_MS of work ran since the last turn (else it returns at once), so a walk over
 * thousands of files answers other agents' questions meanwhile.
 *
 * Background work nobody waits for (the symbol table prebuild, restore planning, the Roslyn
 * host's background describing) yields harder: at each turn it also waits while a cheap question
 * is in flight (`asForeground`, marked by the MCP layer), at most BACKGROUND_WAIT_MAX_MS, so a
 * cheap call is not interleaved with background slices at every one of its awaits.
 */
import { BACKGROUND_WAIT_MAX_MS, NAV_WORK_SLICE_MS } from './limits';

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

let foregroundCalls = 0;
const waiting = new Set<() => void>();

/** Runs a cheap question: while it is in flight, background slices wait (foregroundIdle). */
export async function asForeground<T>(fn: () => Promise<T>): Promise<T> {
  foregroundCalls++;
  try {
    return await fn();
  } finally {
    if (--foregroundCalls === 0) for (const resume of [...waiting]) resume();
  }
}

/** Resolves when no cheap question is in flight, or after BACKGROUND_WAIT_MAX_MS (background work is delayed, never stopped). */
export function foregroundIdle(): Promise<void> {
  if (foregroundCalls === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const resume = () => {
      clearTimeout(timer);
      waiting.delete(resume);
      resolve();
    };
    const timer = setTimeout(resume, BACKGROUND_WAIT_MAX_MS);
    waiting.add(resume);
  });
}

/** timeSlice for background work: each turn also waits for the cheap questions in flight (foregroundIdle). */
export function backgroundSlice(sliceMs = NAV_WORK_SLICE_MS): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await new Promise<void>((resolve) => setImmediate(resolve));
    await foregroundIdle();
    since = performance.now();
  };
}
