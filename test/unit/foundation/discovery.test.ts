import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discoverWorkspace, discoverWorkspaceAsync, startWalk, type DiscoveryOptions } from '../../../server/src/workspace/discover';
import { classify, languageOf } from '../../../server/src/workspace/fileClass';
import { readGitState } from '../../../server/src/workspace/gitState';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

describe('workspace discovery', function () {
  let root: string;
  let outside: string;
  before(function () {
    root = tempDir('disc');
    outside = tempDir('outside');
    writeTree(outside, { 'secret.cs': 'class Secret {}', 'dir/a.cs': 'class A {}' });
    writeTree(root, {
      '.gitignore': '*.tmp\nbuild-output/\n!keep.tmp\n',
      'src/a.cs': 'class A {}',
      'src/.gitignore': 'local-only.cs\n',
      'src/local-only.cs': 'x',
      'src/sub/b.tmp': 'x',
      'src/sub/keep.tmp': 'x',
      'build-output/x.cs': 'x',
      'bin/Debug/x.dll': 'x',
      'obj/x.cs': 'x',
      'node_modules/p/i.js': 'x',
      'packages/lib/code.cs': 'x',
      'big.cs': Buffer.alloc(3 * 1024 * 1024, 97),
    });
    fs.symlinkSync(path.join(outside, 'secret.cs'), path.join(root, 'src/link-out.cs'));
    fs.symlinkSync(path.join(outside, 'dir'), path.join(root, 'src/dir-out'));
    fs.symlinkSync(path.join(root, 'src/a.cs'), path.join(root, 'src/link-in.cs'));
    fs.symlinkSync(root, path.join(root, 'src/loop'));
  });
  after(function () {
    removeDir(root);
    removeDir(outside);
  });

  it('honours nested .gitignore files, negations and default exclusions', function () {
    const r = discoverWorkspace(root);
    const paths = r.files.map((f) => f.path);
    assert.deepEqual(paths, ['.gitignore', 'src/.gitignore', 'src/a.cs', 'src/link-in.cs', 'src/sub/keep.tmp']);
    assert.deepEqual(r.skippedTooLarge, ['big.cs']);
    assert.equal(r.skippedLinks, 3, 'link to an outside file, an outside folder and a folder loop');
  });

  it('the walk in a worker thread lists what the walk in this thread lists (links, sizes, skips, rules stamp)', async function () {
    const view = (r: ReturnType<typeof discoverWorkspace>) => ({
      ...r,
      durationMs: 0,
      files: r.files.map((f) => ({ path: f.path, size: f.size, mtimeMs: f.mtimeMs, fileClass: f.fileClass, language: f.language, linkTarget: f.linkTarget })),
    });
    // The third: a refresh's options, which also hold hooks and callbacks (not for the worker).
    const refreshLike = { exclude: ['src/sub/**'], onProgress: () => undefined, hooks: [{ deleteFiles() {} }] } as DiscoveryOptions;
    for (const opts of [{}, { include: ['packages'], exclude: ['src/sub/**'] }, refreshLike]) {
      const here = discoverWorkspace(root, opts);
      const there = await discoverWorkspaceAsync(root, opts, undefined, { inWorker: true });
      assert.deepEqual(view(there), view(here));
      const known = { paths: new Set(here.files.map((f) => f.path)), rulesStamp: here.rulesStamp };
      assert.deepEqual(view(await discoverWorkspaceAsync(root, opts, known, { inWorker: true })), view(here), 'with the known-paths shortcut');
      // Started before the known paths are read (as the engine does while its index loads).
      const pending = startWalk(root, opts, { inWorker: true });
      await new Promise((r) => setTimeout(r, 50));
      pending.provide(known);
      assert.deepEqual(view(await pending.result), view(here), 'known paths handed over later');
      const stale = startWalk(root, opts, { inWorker: true });
      stale.provide({ paths: new Set(['src/sub/b.tmp', 'src/local-only.cs']), rulesStamp: 'other rules' });
      assert.deepEqual(view(await stale.result), view(here), 'paths known under other rules are tested again');
    }
    assert.ok(discoverWorkspace(root).files.find((f) => f.path === 'src/link-in.cs')?.linkTarget, 'the fixture has an in-root link');
  });

  it('a walk on this thread (no worker) gives the event loop turns while it lists, with the same result', async function () {
    const big = tempDir('discbig');
    try {
      const files: Record<string, string> = { '.gitignore': '*.tmp\n' };
      for (let d = 0; d < 200; d++) for (let f = 0; f < 15; f++) files[`p${d}/src/F${f}.${f % 5 === 0 ? 'tmp' : 'cs'}`] = 'class F {}';
      writeTree(big, files);
      const here = discoverWorkspace(big);
      let turns = 0;
      let walking = true;
      const tick = (): void => {
        turns++;
        if (walking) setImmediate(tick);
      };
      setImmediate(tick);
      const started = Date.now();
      const sliced = await discoverWorkspaceAsync(big, {}, undefined, { inWorker: false });
      const tookMs = Date.now() - started;
      walking = false;
      assert.deepEqual(sliced.files.map((f) => [f.path, f.size, f.mtimeMs]), here.files.map((f) => [f.path, f.size, f.mtimeMs]));
      assert.equal(sliced.rulesStamp, here.rulesStamp);
      assert.equal(sliced.files.length, 200 * 12 + 1);
      // one turn per NAV_WORK_SLICE_MS of walking at least (a walk in one piece gives none)
      assert.ok(turns >= Math.min(3, Math.floor(tookMs / 20)), `${turns} turns in a ${tookMs} ms walk`);
    } finally {
      removeDir(big);
    }
  });

  it('lets users re-admit a default-excluded folder and add exclusions', function () {
    const r = discoverWorkspace(root, { include: ['packages'], exclude: ['src/sub/**'] });
    const paths = r.files.map((f) => f.path);
    assert.ok(paths.includes('packages/lib/code.cs'));
    assert.ok(!paths.includes('src/sub/keep.tmp'));
  });

  it('classifies generated, test, vendor, build and config files', function () {
    assert.equal(classify('src/Foo.g.cs'), 'generated');
    assert.equal(classify('src/Form1.Designer.cs'), 'generated');
    assert.equal(classify('src/Api.generated.cs'), 'generated');
    assert.equal(classify('src/obj/Debug/X.cs'), 'generated');
    assert.equal(classify('src/Plain.cs', '// <auto-generated>\n// This code was generated'), 'generated');
    assert.equal(classify('tests/Billing.Tests/InvoiceTests.cs'), 'test');
    assert.equal(classify('src/Billing.Tests/Helpers.cs'), 'test');
    assert.equal(classify('web/app.spec.ts'), 'test');
    assert.equal(classify('web/vendor/jquery.js'), 'vendor');
    assert.equal(classify('web/app.min.js'), 'vendor');
    assert.equal(classify('src/App/App.csproj'), 'build');
    assert.equal(classify('Directory.Build.props'), 'build');
    assert.equal(classify('src/App/appsettings.json'), 'config');
    assert.equal(classify('src/App/Program.cs'), 'source');
    assert.equal(classify('README.md'), 'other');
    assert.equal(languageOf('a/b.TSX'), 'tsx');
    assert.equal(languageOf('Makefile'), undefined);
  });

  it('a walk that reuses the last walk\'s paths lists the same files, and is redone when a .gitignore changes', function () {
    const ws = tempDir('disc-known');
    try {
      writeTree(ws, { '.gitignore': '*.tmp\n', 'src/a.cs': 'a', 'src/b.cs': 'b', 'src/deep/c.cs': 'c', 'x.tmp': 'x' });
      const first = discoverWorkspace(ws);
      const known = () => ({ paths: new Set(first.files.map((f) => f.path)), rulesStamp: first.rulesStamp });
      const list = (r: ReturnType<typeof discoverWorkspace>) => r.files.map((f) => `${f.path}:${f.size}`);
      assert.deepEqual(list(discoverWorkspace(ws, {}, known())), list(first));
      // Same rules: a new file is listed, a deleted one is gone, a rewritten one has its new size.
      writeTree(ws, { 'src/deep/new.cs': 'new', 'src/a.cs': 'a longer body' });
      fs.rmSync(path.join(ws, 'src/b.cs'));
      const again = discoverWorkspace(ws, {}, known());
      assert.equal(again.rulesStamp, first.rulesStamp);
      assert.deepEqual(list(again), ['.gitignore:6', 'src/a.cs:13', 'src/deep/c.cs:1', 'src/deep/new.cs:3']);
      // A .gitignore now excludes known paths: the shortcut must not keep them.
      writeTree(ws, { 'src/.gitignore': 'a.cs\ndeep/\n' });
      const changed = discoverWorkspace(ws, {}, known());
      assert.notEqual(changed.rulesStamp, first.rulesStamp);
      assert.deepEqual(list(changed), list(discoverWorkspace(ws)));
      assert.deepEqual(changed.files.map((f) => f.path), ['.gitignore', 'src/.gitignore']);
      // Different options are different rules too.
      assert.notEqual(discoverWorkspace(ws, { exclude: ['*.md'] }).rulesStamp, changed.rulesStamp);
    } finally {
      removeDir(ws);
    }
  });

  it('reports git state, or why it is unavailable', async function () {
    const none = await readGitState(root);
    assert.equal(none.available, false);
    assert.ok(none.reason);
    const self = await readGitState(path.resolve(__dirname, '../../..'));
    if (self.available) assert.match(self.head ?? '', /^[0-9a-f]{40}$/);
  });
});
