/**
 * Detects answers that a still-loading language service gives from part of the program.
 *
 * A language service that is loading can answer with a partial set (the TypeScript service
 * answers references from the open file first and from the whole project a moment later).
 * Nothing in the VS Code API says which answer is complete, so while a language is "warming"
 * the bridge asks again after a pause and compares: two equal answers in a row are taken as
 * settled; an answer that keeps changing until the time runs out is returned as partial.
 * Once a language has settled a few times in a row it is "warm" and asked once.
 *
 * Pure logic with injected clock and sleep, so it is unit-tested without VS Code.
 */

export interface SettleOptions {
  /** Time for all rounds together. */
  timeoutMs: number;
  /** Pause between rounds. */
  intervalMs: number;
  /** Ask once and trust the answer. */
  warm: boolean;
  /**
   * While not warm, an empty answer is suspect (a service that has not loaded the program yet
   * answers nothing): keep asking for up to this long before accepting it. 0 = accept at once.
   */
  emptyGraceMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface Settled<T> {
  value: T[];
  /** False when the answer was still changing when the time ran out. */
  settled: boolean;
  /** True when a later round differed from the first (the first answer was partial). */
  changed: boolean;
  rounds: number;
  /** True when a cold service answered nothing for the whole grace period (maybe incomplete). */
  emptyWhileCold: boolean;
}

/** Asks until two consecutive answers have the same keys, or the time runs out. */
export async function settle<T>(ask: () => Promise<T[]>, key: (t: T) => string, o: SettleOptions): Promise<Settled<T>> {
  const now = o.now ?? Date.now;
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const start = now();
  let last = await ask();
  let rounds = 1;
  if (o.warm) return { value: last, settled: true, changed: false, rounds, emptyWhileCold: false };
  const firstKeys = keysOf(last, key);
  const grace = o.emptyGraceMs ?? 0;
  let changed = false;
  while (now() - start + o.intervalMs < o.timeoutMs) {
    await sleep(o.intervalMs);
    const next = await ask();
    rounds++;
    const same = keysOf(next, key) === keysOf(last, key);
    if (keysOf(next, key) !== firstKeys) changed = true;
    last = next;
    if (same && (last.length > 0 || now() - start >= grace)) {
      return { value: last, settled: true, changed, rounds, emptyWhileCold: last.length === 0 && grace > 0 };
    }
  }
  return { value: last, settled: false, changed, rounds, emptyWhileCold: last.length === 0 && grace > 0 };
}

function keysOf<T>(list: T[], key: (t: T) => string): string {
  return list.map(key).sort().join('\n');
}

/**
 * Per-language warm-up state: a language becomes warm after `needed` settled answers in a row
 * whose first round was already complete, and cold again when an answer changed between rounds.
 */
export class WarmTracker {
  private readonly streak = new Map<string, number>();
  constructor(private readonly needed = 3) {}

  isWarm(language: string): boolean {
    return (this.streak.get(language) ?? 0) >= this.needed;
  }

  record(language: string, result: { settled: boolean; changed: boolean; emptyWhileCold?: boolean }): void {
    if (result.emptyWhileCold) return; // an empty answer says nothing about readiness
    if (!result.settled || result.changed) this.streak.set(language, 0);
    else this.streak.set(language, (this.streak.get(language) ?? 0) + 1);
  }

  /** Makes a language cold again (its extension restarted or reloaded a project). */
  reset(language?: string): void {
    if (language === undefined) this.streak.clear();
    else this.streak.delete(language);
  }
}
