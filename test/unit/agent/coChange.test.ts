/**
 * Git co-change (related_tests' co-change signal) over a real git repository made here: the files
 * changed in the same commits as a file, counted per file; no repository is a value, not an error.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { COCHANGE_RECENCY_DECAY, coChange } from '../../../server/src/nav/agent/coChange';
import type { Engine } from '../../../server/src/nav/engine';

describe('agent: git co-change', function () {
  this.timeout(30_000);
  let root: string;
  const git = (...args: string[]): void => void execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd: root });
  const commit = (files: Record<string, string>, message: string): void => {
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    git('add', '-A');
    git('commit', '-q', '-m', message);
  };
  // coChange reads only the root and the index version of the engine
  const engineAt = (dir: string, version: string): Engine => ({ root: dir, version }) as unknown as Engine;

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-cochange-'));
    git('init', '-q');
    commit({ 'src/Orders.cs': '1', 'tests/OrdersTests.cs': '1', 'README.md': '1' }, 'first');
    commit({ 'src/Orders.cs': '2', 'tests/OrdersTests.cs': '2' }, 'orders and their tests');
    commit({ 'src/Orders.cs': '3' }, 'orders alone');
    commit({ 'src/Billing.cs': '1', 'tests/OrdersTests.cs': '3' }, 'unrelated to orders');
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  it('counts the other files of each commit that changed the file', async () => {
    const c = await coChange(engineAt(root, 'v1'), 'src/Orders.cs');
    assert.equal(c.unavailable, undefined);
    assert.equal(c.commits, 3);
    assert.deepEqual([...c.files.entries()].sort(), [['README.md', 1], ['tests/OrdersTests.cs', 2]]);
  });

  it('weighs each shared commit by its age and size: the newest small one most', async () => {
    const c = await coChange(engineAt(root, 'v2'), 'src/Orders.cs');
    // Newest first: 'orders alone' (age 0), 'orders and their tests' (age 1, 2 files), 'first' (age 2, 3 files).
    const d = COCHANGE_RECENCY_DECAY;
    assert.ok(Math.abs(c.weighted.get('tests/OrdersTests.cs')! - (d / Math.SQRT2 + d ** 2 / Math.sqrt(3))) < 1e-9);
    assert.ok(Math.abs(c.weighted.get('README.md')! - d ** 2 / Math.sqrt(3)) < 1e-9);
  });

  it('outside a repository it says why instead of failing', async () => {
    const plain = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-cochange-nogit-'));
    try {
      const c = await coChange(engineAt(plain, 'v1'), 'src/Orders.cs');
      assert.equal(c.commits, 0);
      assert.match(c.unavailable ?? '', /not a git repository|git is not installed/);
    } finally {
      fs.rmSync(plain, { recursive: true, force: true });
    }
  });
});
