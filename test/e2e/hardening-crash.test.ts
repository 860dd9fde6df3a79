/**
 * Crash safety of the persisted index against the built CLI: `sextant index` is killed with
 * SIGKILL at random moments and at the moment its snapshot is being written, 50 times; after every
 * kill the index on disk must load cleanly (no recovery needed) and be a committed snapshot.
 * Corrupt and truncated files are detected, moved aside, rebuilt, and reported.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IndexStore } from '../../server/src/index/store';
import { CLI } from '../helpers/mcpClient';
import { removeDir, tempDir } from '../helpers/workspace';

const FILES = 400;

function writeWorkspace(ws: string, generation: number, only?: Set<number>): void {
  for (let i = 0; i < FILES; i++) {
    if (only && !only.has(i)) continue;
    const dir = path.join(ws, 'src', `P${i % 20}`);
    fs.mkdirSync(dir, { recursive: true });
    let s = `namespace P${i % 20};\npublic class C${i} {\n`;
    for (let m = 0; m < 60; m++) s += `  public int Method${m}_${i}(int x) => x * ${m}; // gen${generation} token${i * m}\n`;
    fs.writeFileSync(path.join(dir, `C${i}.cs`), s + '}\n');
  }
}

/** Loads the index as the engine would; returns what a reader would see. */
async function inspect(idx: string): Promise<{ recovered: string | undefined; committed: string | undefined; files: number; generation: string | undefined; integrity: string }> {
  const store = await IndexStore.open(idx);
  try {
    const files = Number(store.db.exec('SELECT COUNT(*) FROM files')[0]?.values[0]?.[0] ?? 0);
    const integrity = String(store.db.exec('PRAGMA integrity_check')[0]?.values[0]?.[0] ?? '');
    return { recovered: store.recovery ? `${store.recovery.kind}: ${store.recovery.reason}` : undefined, committed: store.getMeta('committed'), files, generation: store.getMeta('generation'), integrity };
  } finally {
    store.close();
  }
}

/** Linux: true while the process exists and is not a zombie. */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe('crash-safe index: kill -9 during indexing and persisting @e2e', function () {
  this.timeout(600_000);
  let ws: string;
  let idx: string;

  before(() => {
    ws = tempDir('crashws');
    idx = tempDir('crashidx');
    writeWorkspace(ws, 0);
  });
  after(() => {
    removeDir(ws);
    removeDir(idx);
  });

  it('after each of 50 SIGKILLs (25 at random times, 25 while the snapshot is written) the index loads without recovery', async () => {
    const first = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8' });
    assert.equal(first.status, 0, first.stderr);
    const fullRunMs = JSON.parse(first.stdout).durationMs as number;
    const base = await inspect(idx);
    assert.deepEqual([base.recovered, base.committed, base.files, base.integrity], [undefined, '1', FILES, 'ok']);

    const outcomes = { duringPersist: 0, beforePersist: 0, afterExit: 0, newSnapshot: 0, oldSnapshot: 0 };
    let generation = Number(base.generation);
    for (let iter = 1; iter <= 50; iter++) {
      // Change 40 files so the run has something to index and persist.
      const touched = new Set(Array.from({ length: 40 }, (_, k) => (iter * 37 + k * 11) % FILES));
      writeWorkspace(ws, iter, touched);
      const child = spawn(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { stdio: 'ignore' });
      const pid = child.pid as number;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      let inPersist = false;
      if (iter % 2 === 0) {
        // Wait until the snapshot is being written — a temp file appears, or index.db itself starts
        // to change (a writer that does not use a temp file) — synchronously, then kill.
        const before = fs.statSync(path.join(idx, 'index.db'));
        const deadline = Date.now() + 60_000;
        while (Date.now() < deadline && running(pid)) {
          let now: fs.Stats | undefined;
          try {
            now = fs.statSync(path.join(idx, 'index.db'));
          } catch {
            now = undefined;
          }
          if (fs.readdirSync(idx).some((n) => n.startsWith('index.db.tmp-')) || !now || now.size !== before.size || now.mtimeMs !== before.mtimeMs || now.ino !== before.ino) {
            inPersist = true;
            break;
          }
        }
      } else {
        await new Promise((r) => setTimeout(r, Math.random() * Math.max(500, fullRunMs + 700)));
        inPersist = fs.readdirSync(idx).some((n) => n.startsWith('index.db.tmp-'));
      }
      const wasRunning = running(pid);
      if (wasRunning) process.kill(pid, 'SIGKILL');
      await exited;
      if (!wasRunning) outcomes.afterExit++;
      else if (inPersist) outcomes.duringPersist++;
      else outcomes.beforePersist++;

      const seen = await inspect(idx);
      assert.equal(seen.recovered, undefined, `iteration ${iter}: the index needed recovery`);
      assert.deepEqual([seen.committed, seen.files, seen.integrity], ['1', FILES, 'ok'], `iteration ${iter}`);
      const g = Number(seen.generation);
      assert.ok(g === generation || g === generation + 1, `iteration ${iter}: generation ${g} after ${generation}`);
      if (g > generation) outcomes.newSnapshot++;
      else outcomes.oldSnapshot++;
      generation = g;
    }
    console.log(`      50 kills: ${JSON.stringify(outcomes)}`);
    assert.ok(outcomes.duringPersist >= 20, `only ${outcomes.duringPersist} kills landed while the snapshot was written`);

    // A run that is not killed takes over the dead runs' lock and leaves a fresh, committed index.
    const last = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8' });
    assert.equal(last.status, 0, last.stderr);
    assert.equal(JSON.parse(last.stdout).status, 'fresh');
    assert.deepEqual(fs.readdirSync(idx).filter((n) => n.includes('.tmp-')), [], 'temp files of dead runs are cleaned up');
  });
});

describe('crash-safe index: damaged files are detected, moved aside, rebuilt and reported @e2e', function () {
  this.timeout(120_000);
  let ws: string;
  let idx: string;
  beforeEach(() => {
    ws = tempDir('dmgws');
    idx = tempDir('dmgidx');
    writeWorkspace(ws, 0);
    const r = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });
  afterEach(() => {
    removeDir(ws);
    removeDir(idx);
  });

  const damages: Record<string, (file: string) => void> = {
    'truncated to half': (f) => fs.truncateSync(f, Math.floor(fs.statSync(f).size / 2)),
    'truncated to zero bytes': (f) => fs.truncateSync(f, 0),
    'a page scribbled over': (f) => {
      const b = fs.readFileSync(f);
      b.fill(0x5a, 8192, 12288);
      fs.writeFileSync(f, b);
    },
    'bytes flipped inside a data page': (f) => {
      const b = fs.readFileSync(f);
      for (let i = 0; i < 64; i++) {
        const at = Math.floor(b.length / 2) + i * 97;
        b[at] = (b[at] ?? 0) ^ 0xff;
      }
      fs.writeFileSync(f, b);
    },
    'replaced by random bytes': (f) => fs.writeFileSync(f, Buffer.from(Array.from({ length: 65536 }, () => Math.floor(Math.random() * 256)))),
  };

  for (const [name, damage] of Object.entries(damages)) {
    it(`${name}: the next run reports it, keeps the damaged file aside and rebuilds a loadable index`, async () => {
      damage(path.join(idx, 'index.db'));
      const r = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      const out = JSON.parse(r.stdout);
      assert.match(String(out.recovered), /corrupt|unreadable/, `reported: ${out.recovered}`);
      assert.equal(out.added, FILES, 'rebuilt from scratch');
      assert.ok(fs.readdirSync(idx).some((n) => /^index\.db\.(corrupt|unreadable)-/.test(n)), 'damaged file kept aside');
      const seen = await inspect(idx);
      assert.deepEqual([seen.recovered, seen.committed, seen.files, seen.integrity], [undefined, '1', FILES, 'ok']);
    });
  }
});
