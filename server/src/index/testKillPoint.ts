/**
 * Named points in the writes of the index files where the crash test (test/e2e/hardening-crash)
 * kills the process: with SEXTANT_TEST_KILL_AT=<point> set, the process SIGKILLs itself there,
 * as a crash at that moment would (nothing after it runs: no handler, no flush). Deterministic
 * where a kill from outside at a random time rarely lands inside a window of milliseconds.
 * Unset (always, outside that test), a point is one environment read.
 */
export type KillPoint = 'persist:tmp-written' | 'persist:tmp-synced' | 'persist:sums-both' | 'persist:renamed' | 'persist:done' | 'sum:tmp-written' | 'warm:tmp-written';

export function testKillPoint(point: KillPoint): void {
  if (process.env.SEXTANT_TEST_KILL_AT === point) process.kill(process.pid, 'SIGKILL');
}
