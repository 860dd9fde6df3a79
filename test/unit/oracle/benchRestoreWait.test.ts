/**
 * The csharp-restore bench's wait for restore into state (test/bench/sections/csharpRestore.ts):
 * what ends it, on made-up restore notes (the engine's wording) and a fake clock.
 */
import * as assert from 'node:assert/strict';
import { waitForRestore } from '../../bench/sections/csharpRestore';

function run(notes: (string | undefined)[]) {
  let t = 0;
  let asks = 0;
  const ask = async () => notes[Math.min(asks++, notes.length - 1)];
  return waitForRestore(ask, undefined, () => t, async (ms) => void (t += ms)).then((r) => ({ ...r, asks, t }));
}

describe('csharp-restore bench: waiting for restore into state', () => {
  it('silence before restore is announced is planning, not the end (the 2026-12-02 18:06 run ended its wait there)', async () => {
    const r = await run([undefined, undefined, 'restoring 0 of 59 projects into Sextant\'s state (1 s so far): …', 'restoring 40 of 59 projects …', undefined]);
    assert.deepEqual([r.seen, r.note, r.asks], [true, undefined, 5]);
  });

  it('ends at a note that says restore ended, was refused or is not allowed', async () => {
    const done = await run(['restoring 0 of 59 projects …', "restore into Sextant's state: 59 of 59 projects restored in 445 s; 18 package(s) not served by the registry stay unresolved"]);
    assert.deepEqual([done.seen, done.asks], [true, 2]);
    assert.match(done.note!, /restored in 445 s/);
    const refused = await run(["restore into Sextant's state was not run: src/A.csproj set restore's output paths themselves"]);
    assert.deepEqual([refused.seen, refused.asks], [false, 1]);
  });

  it('gives up when restore is never announced, saying so (seen: false)', async () => {
    const r = await run([undefined]);
    assert.equal(r.seen, false);
    assert.ok(r.t >= 600_000 && r.t < 610_000, String(r.t));
  });
});
