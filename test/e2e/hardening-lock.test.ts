/**
 * The engine lock under a real race: 8 processes start at once on the same index root.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { startLockHarness, staleLock } from '../unit/hardening/lockHelpers';

describe('engine lock under a real race @e2e', function () {
  this.timeout(120_000);
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-lockrace-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('of 8 engines starting at once on a stale lock, exactly one wins (3 rounds)', async () => {
    const rounds: string[] = [];
    for (let round = 0; round < 3; round++) {
      const root = path.join(tmp, `race-${round}`);
      if (round > 0) staleLock(root, {});
      // The winner holds the lock until every process has answered (a loaded machine may start the
      // last one seconds after the first), then all are released and must exit.
      const release = path.join(tmp, `release-${round}`);
      const children = Array.from({ length: 8 }, () => startLockHarness(root, 60_000, release));
      const results = await Promise.all(children.map((c) => c.result));
      fs.writeFileSync(release, '');
      await Promise.all(children.map((c) => c.exited));
      const winners = results.filter((x) => x.kind === 'acquired');
      rounds.push(`${winners.length} acquired, ${results.length - winners.length} held`);
      assert.equal(winners.length, 1, JSON.stringify(results));
      const winner = winners[0]!.pid;
      assert.ok(results.filter((x) => x.kind === 'held').every((x) => x.owner === winner), 'every loser names the winner');
    }
    assert.deepEqual(rounds, ['1 acquired, 7 held', '1 acquired, 7 held', '1 acquired, 7 held']);
  });

});
