/**
 * How long the engine thread is held in one piece while a computation runs, in CPU time: the
 * thread's own run time (Linux schedstat) between turns of a 1 ms timer. Wall time on a machine
 * shared by many processes is mostly waiting for a core; the CPU time of the longest turn is what
 * other agents' questions would wait on a quiet one. Undefined off Linux (tests skip).
 */
import * as fs from 'node:fs';

const statFile = `/proc/self/task/${process.pid}/schedstat`;

function cpuNs(): number | undefined {
  try {
    return Number(fs.readFileSync(statFile, 'utf8').split(' ')[0]);
  } catch {
    return undefined;
  }
}

export const threadCpuMeasurable = cpuNs() !== undefined;

/** Runs `fn` and returns its value with the longest CPU stretch (ms) between event-loop turns meanwhile. */
export async function longestHold<T>(fn: () => Promise<T>): Promise<{ value: T; longestMs: number }> {
  let last = cpuNs() ?? 0;
  let longest = 0;
  const tick = () => {
    const now = cpuNs() ?? 0;
    longest = Math.max(longest, (now - last) / 1e6);
    last = now;
  };
  const timer = setInterval(tick, 1);
  try {
    const value = await fn();
    tick();
    return { value, longestMs: longest };
  } finally {
    clearInterval(timer);
  }
}
