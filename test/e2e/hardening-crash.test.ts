/**
 * Crash safety of the persisted index against the built CLI: `sextant index` is killed with
 * SIGKILL at every named point of its snapshot write (index/testKillPoint.ts: the temp file
 * written, synced, both checksums named, renamed, done; the checksum file's and the warm state's
 * temp files), each twice, and at random moments of a run; after every kill the index on disk must
 * load cleanly (no recovery needed) and be the committed snapshot the point implies.
 * Corrupt and truncated files are detected, moved aside, rebuilt, and reported.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { IndexStore } from '../../server/src/index/store';
import type { KillPoint } from '../../server/src/index/testKillPoint';
import { CLI } from '../helpers/mcpClient';
import { removeDir, tempDir } from '../helpers/workspace';

const FILES = 200;

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

  it('after a SIGKILL at every point of the snapshot write (twice each) and at 8 random moments, the index loads without recovery', async () => {
    const first = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8' });
    assert.equal(first.status, 0, first.stderr);
    const base = await inspect(idx);
    assert.deepEqual([base.recovered, base.committed, base.files, base.integrity], [undefined, '1', FILES, 'ok']);
    let generation = Number(base.generation);
    let iter = 0;
    /** Changes 20 files (the run has something to index and persist), runs `sextant index`, kills it; checks the index a reader then loads. */
    const round = async (how: { at: KillPoint } | { afterMs: number } | 'none', expect: 'old' | 'new' | 'either'): Promise<{ killed: boolean; ms: number }> => {
      iter++;
      writeWorkspace(ws, iter, new Set(Array.from({ length: 20 }, (_, k) => (iter * 37 + k * 11) % FILES)));
      const env = typeof how === 'object' && 'at' in how ? { ...process.env, SEXTANT_TEST_KILL_AT: how.at } : process.env;
      const t0 = Date.now();
      const child = spawn(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { stdio: 'ignore', env });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
      if (typeof how === 'object' && 'afterMs' in how) {
        await Promise.race([exited, new Promise((r) => setTimeout(r, how.afterMs))]);
        if (running(child.pid as number)) process.kill(child.pid as number, 'SIGKILL');
      }
      const signal = await exited;
      const ms = Date.now() - t0;
      const what = `round ${iter} (${JSON.stringify(how)})`;
      if (typeof how === 'object' && 'at' in how) assert.equal(signal, 'SIGKILL', `${what}: the run reached its kill point`);
      if (how === 'none') assert.equal(signal, null, what);
      const seen = await inspect(idx);
      assert.equal(seen.recovered, undefined, `${what}: the index needed recovery`);
      assert.deepEqual([seen.committed, seen.files, seen.integrity], ['1', FILES, 'ok'], what);
      const g = Number(seen.generation);
      if (expect === 'old') assert.equal(g, generation, `${what}: killed before the rename, the last snapshot stays`);
      else if (expect === 'new') assert.equal(g, generation + 1, `${what}: killed after the rename, the new snapshot is committed`);
      else assert.ok(g === generation || g === generation + 1, `${what}: generation ${g} after ${generation}`);
      generation = g;
      return { killed: signal === 'SIGKILL', ms };
    };

    const points: [KillPoint, 'old' | 'new'][] = [
      ['persist:tmp-written', 'old'],
      ['persist:tmp-synced', 'old'],
      ['sum:tmp-written', 'old'],
      ['persist:sums-both', 'old'],
      ['persist:renamed', 'new'],
      ['persist:done', 'new'],
      ['warm:tmp-written', 'new'],
    ];
    for (let twice = 0; twice < 2; twice++) for (const [at, expect] of points) await round({ at }, expect);
    // Random moments over a whole run (walk, text phase, parse workers, persist), timed from one
    // unkilled run of the same size.
    const { ms: runMs } = await round('none', 'new');
    let killed = 0;
    for (let k = 0; k < 8; k++) if ((await round({ afterMs: Math.random() * runMs }, 'either')).killed) killed++;
    console.log(`      ${points.length * 2} kills at points, ${killed} of 8 random kills landed before the run ended (run ${runMs} ms)`);

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
