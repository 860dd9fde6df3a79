/**
 * The index converges on the disk after a refresh fails: a watched change whose refresh throws
 * (here a hook that fails once while rows are deleted) is indexed by a retry, without any further
 * change on disk — before, the index said `stale` until the next file changed. And a change
 * listener that throws does not keep the change from being indexed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultHooks } from '../../../server/src/index/hooks';
import type { IndexHook } from '../../../server/src/index/indexer';
import { Engine } from '../../../server/src/nav/engine';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

async function waitFor(what: string, cond: () => boolean, ms = 20_000): Promise<void> {
  const t = Date.now();
  while (!cond()) {
    if (Date.now() - t > ms) assert.fail(`waited ${ms / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('a refresh that fails is run again', function () {
  this.timeout(60_000);
  let ws: string;
  let e: Engine;
  let failures = 0;
  const flaky: IndexHook = {
    name: 'flaky',
    deleteFiles: () => {
      if (failures > 0) {
        failures--;
        throw new Error('a hook failed while rows were deleted');
      }
    },
  };

  before(async () => {
    ws = tempDir('retry-ws');
    writeTree(ws, { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n', 'src/c.ts': 'export const c = 3;\n' });
    e = await Engine.open({ workspaceRoot: ws, indexRoot: '', hooks: [...defaultHooks(), flaky] });
    await e.refresh();
    e.watch();
    await e.watchReady();
  });
  after(async () => {
    await e?.close();
    removeDir(ws);
  });

  it('a watched delete whose refresh throws is indexed by a retry: fresh again with no further change on disk', async () => {
    assert.equal(e.meta().status, 'fresh');
    failures = 1;
    fs.rmSync(path.join(ws, 'src/b.ts'));
    await waitFor('the failing refresh', () => failures === 0);
    await waitFor('b.ts dropped and the index fresh', () => e.catalog().byRelPath('src/b.ts') === undefined && e.meta().status === 'fresh' && e.meta().dirty === 0);
  });

  it('two failures in a row: retried again (after a longer wait)', async () => {
    failures = 2;
    fs.rmSync(path.join(ws, 'src/c.ts'));
    await waitFor('c.ts dropped and the index fresh', () => e.catalog().byRelPath('src/c.ts') === undefined && e.meta().status === 'fresh' && e.meta().dirty === 0);
    assert.equal(failures, 0);
  });

  it('a change listener that throws does not lose the change', async () => {
    e.onFileChanged(() => {
      throw new Error('a listener failed');
    });
    fs.writeFileSync(path.join(ws, 'src/d.ts'), 'export const d = 4;\n');
    await waitFor('d.ts indexed and the index fresh', () => e.catalog().byRelPath('src/d.ts') !== undefined && e.meta().status === 'fresh' && e.meta().dirty === 0);
  });
});
