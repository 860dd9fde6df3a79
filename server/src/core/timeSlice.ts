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
