/**
 * The workspace watcher on the real filesystem (no mock of the watcher): a deep change, a folder
 * created after start, a delete, a rename (file and folder) are indexed; a change under obj/ is
 * never reported; the native backend is the one running; close() leaves no handle (the process
 * exits by itself). Events are awaited with generous timeouts; nothing asserts how fast.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { WorkspaceWatcher } from '../../../server/src/workspace/watcher';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

const WAIT_MS = 60_000;

async function waitFor(what: string, cond: () => boolean): Promise<void> {
  const t = Date.now();
  while (!cond()) {
    if (Date.now() - t > WAIT_MS) assert.fail(`waited ${WAIT_MS / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('workspace watcher: real filesystem', function () {
  this.timeout(180_000);
  let ws: string;
  let e: Engine;
  const seen: string[] = [];

  before(async () => {
    ws = tempDir('watch-ws');
    writeTree(ws, {
      'src/App/App.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>\n',
      'src/App/Deep/Er/Still/Deeper/Widget.cs': 'namespace App { public class Widget { } }\n',
      'src/App/Gone.cs': 'namespace App { public class GoneSoon { } }\n',
      'src/App/Old.cs': 'namespace App { public class Renamed { } }\n',
      'src/App/Folder/Moved.cs': 'namespace App { public class InMovedFolder { } }\n',
      'src/App/obj/Debug/net8.0/App.AssemblyInfo.cs': '// generated\n',
    });
    e = await Engine.open({ workspaceRoot: ws, indexRoot: '' });
    await e.refresh();
    e.onFileChanged((rel) => seen.push(rel));
    e.watch();
    await e.watchReady();
  });
  after(async () => {
    await e?.close();
    removeDir(ws);
  });

  const symbols = (name: string) => Number(e.store.rows('SELECT count(*) FROM symbols WHERE name = ?', [name])[0]![0]);
  const indexed = (rel: string) => e.catalog().byRelPath(rel) !== undefined;

  it('runs the native backend, ready once the tree is watched', () => {
    assert.deepEqual(e.watchStatus(), { backend: 'native', ready: true });
  });

  it('a file changed in a deep folder is reported and indexed', async () => {
    fs.writeFileSync(path.join(ws, 'src/App/Deep/Er/Still/Deeper/Widget.cs'), 'namespace App { public class Widget { } public class DeepSaved { } }\n');
    await waitFor('DeepSaved indexed', () => symbols('DeepSaved') === 1);
    assert.ok(seen.includes('src/App/Deep/Er/Still/Deeper/Widget.cs'), seen.join(', '));
  });

  it('folders created after start are watched, nested ones too (mkdir -p): files written in them, then changed, are indexed', async () => {
    fs.mkdirSync(path.join(ws, 'src/App/Later/Sub/A/B/C'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src/App/Later/Sub/Late.cs'), 'namespace App { public class LateOne { } }\n');
    fs.writeFileSync(path.join(ws, 'src/App/Later/Sub/A/B/C/Deepest.cs'), 'namespace App { public class DeepOne { } }\n');
    await waitFor('LateOne and DeepOne indexed', () => symbols('LateOne') === 1 && symbols('DeepOne') === 1);
    // The new folders themselves are watched: later changes inside them are seen as well.
    await new Promise((r) => setTimeout(r, 300));
    fs.writeFileSync(path.join(ws, 'src/App/Later/Sub/Late.cs'), 'namespace App { public class LateTwo { } }\n');
    fs.writeFileSync(path.join(ws, 'src/App/Later/Sub/A/B/C/Deepest.cs'), 'namespace App { public class DeepTwo { } }\n');
    await waitFor('LateTwo and DeepTwo indexed', () => symbols('LateTwo') === 1 && symbols('DeepTwo') === 1 && symbols('LateOne') === 0);
    // A folder created inside a new folder later on is watched too.
    fs.mkdirSync(path.join(ws, 'src/App/Later/Sub/A/B/C/D/E'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src/App/Later/Sub/A/B/C/D/E/Third.cs'), 'namespace App { public class ThirdOne { } }\n');
    await waitFor('ThirdOne indexed', () => symbols('ThirdOne') === 1);
    await new Promise((r) => setTimeout(r, 300));
    fs.writeFileSync(path.join(ws, 'src/App/Later/Sub/A/B/C/D/E/Third.cs'), 'namespace App { public class ThirdTwo { } }\n');
    await waitFor('ThirdTwo indexed', () => symbols('ThirdTwo') === 1);
  });

  it('a delete removes the file from the index', async () => {
    assert.equal(symbols('GoneSoon'), 1);
    fs.rmSync(path.join(ws, 'src/App/Gone.cs'));
    await waitFor('Gone.cs dropped', () => !indexed('src/App/Gone.cs') && symbols('GoneSoon') === 0);
  });

  it('a rename moves the file in the index; a folder renamed as a whole drops its old paths', async () => {
    fs.renameSync(path.join(ws, 'src/App/Old.cs'), path.join(ws, 'src/App/New.cs'));
    await waitFor('Old.cs → New.cs', () => !indexed('src/App/Old.cs') && indexed('src/App/New.cs') && symbols('Renamed') === 1);
    fs.renameSync(path.join(ws, 'src/App/Folder'), path.join(ws, 'src/App/Folder2'));
    await waitFor('Folder → Folder2', () => !indexed('src/App/Folder/Moved.cs') && indexed('src/App/Folder2/Moved.cs') && symbols('InMovedFolder') === 1);
    // Moved out of the workspace: one event for the folder, none per file; its files leave the index.
    const outside = tempDir('watch-out');
    try {
      fs.renameSync(path.join(ws, 'src/App/Folder2'), path.join(outside, 'Folder2'));
      await waitFor('Folder2 dropped', () => !indexed('src/App/Folder2/Moved.cs') && symbols('InMovedFolder') === 0);
    } finally {
      removeDir(outside);
    }
  });

  it('a change under obj/ is not indexed; a generated C# file there is told to the semantic listeners', async () => {
    const before = seen.length;
    fs.writeFileSync(path.join(ws, 'src/App/obj/Debug/net8.0/App.AssemblyInfo.cs'), '// generated again\n');
    fs.writeFileSync(path.join(ws, 'src/App/obj/Debug/net8.0/App.cache'), 'x\n');
    // A folder tree created in one go, as a first build does (obj/…/generated/<generator>/…).
    fs.mkdirSync(path.join(ws, 'src/App/obj/Debug/net9.0/generated/Gen/Gen.Tool'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src/App/obj/Debug/net9.0/generated/Gen/Gen.Tool/New.g.cs'), '// generated\n');
    fs.writeFileSync(path.join(ws, 'src/App/App.deps.json'), '{}\n'); // a sibling outside obj/: reported
    await waitFor('the sibling reported', () => seen.slice(before).includes('src/App/App.deps.json'));
    await waitFor('the generated files told', () => ['src/App/obj/Debug/net8.0/App.AssemblyInfo.cs', 'src/App/obj/Debug/net9.0/generated/Gen/Gen.Tool/New.g.cs'].every((p) => seen.slice(before).includes(p)));
    // Events arrive in order per watcher; give the rest of obj/ a further moment to (wrongly) show up.
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(seen.slice(before).filter((p) => p.includes('/obj/') && !p.endsWith('.cs')), [], 'only C# files of obj/');
    assert.deepEqual([...e.pendingPaths()].filter((p) => p.includes('/obj/')), [], 'nothing under obj/ is owed to the index');
    assert.equal(indexed('src/App/obj/Debug/net8.0/App.AssemblyInfo.cs'), false);
  });

  it('the fs.watch fallback reports changes through the same filter', async () => {
    const got: string[] = [];
    const w = new WorkspaceWatcher(ws, (rels) => got.push(...rels), { backend: 'fs.watch' });
    try {
      await w.ready;
      assert.equal(w.status.backend, 'fs.watch');
      fs.writeFileSync(path.join(ws, 'src/App/obj/Debug/net8.0/App.AssemblyInfo.cs'), '// third\n');
      fs.writeFileSync(path.join(ws, 'src/App/Deep/Er/Still/Deeper/Widget.cs'), 'namespace App { public class Widget { } }\n');
      await waitFor('fs.watch event', () => got.includes('src/App/Deep/Er/Still/Deeper/Widget.cs'));
      assert.deepEqual(got.filter((p) => p.includes('obj/')), []);
    } finally {
      await w.close();
    }
  });

  it('catch-up: once ready, paths changed since the last walk and before the watch covered them are reported', async () => {
    const dir = tempDir('watch-catchup');
    try {
      writeTree(dir, { 'a/Old.cs': '// old\n', 'a/b/Changed.cs': '// v1\n', 'obj/Gen.cs': '// gen\n', 'c/Unrelated.cs': '// old\n' });
      const hourAgo = new Date(Date.now() - 3_600_000);
      for (const f of ['a/Old.cs', 'a/b/Changed.cs', 'obj/Gen.cs', 'c/Unrelated.cs']) fs.utimesSync(path.join(dir, f), hourAgo, hourAgo);
      for (const d of ['a', 'a/b', 'c', 'obj']) fs.utimesSync(path.join(dir, d), hourAgo, hourAgo);
      // ctime cannot be set back: wait until it is older than the sweep's floor (its slack included).
      await new Promise((r) => setTimeout(r, 2_500));
      const since = Date.now();
      fs.writeFileSync(path.join(dir, 'a/b/Changed.cs'), '// v2, written before the watcher existed\n');
      fs.writeFileSync(path.join(dir, 'obj/Gen.cs'), '// regenerated\n');
      const got: string[] = [];
      const w = new WorkspaceWatcher(dir, (rels) => got.push(...rels), { catchUpSinceMs: since });
      try {
        await w.ready;
        assert.ok(got.includes('a/b/Changed.cs'), got.join(', '));
        assert.ok(!got.includes('a/Old.cs') && !got.includes('c/Unrelated.cs'), got.join(', '));
        assert.deepEqual(got.filter((p) => p.startsWith('obj')), []);
      } finally {
        await w.close();
      }
    } finally {
      removeDir(dir);
    }
  });

  it('until the watcher covers the tree, the index meta says a change may not show yet; once it does, nothing', async () => {
    const dir = tempDir('watch-meta');
    writeTree(dir, { 'src/A.cs': 'class A { }\n', 'src/Deep/B.cs': 'class B { }\n' });
    const e2 = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    try {
      await e2.refresh();
      assert.equal(e2.meta().watch, undefined, 'not asked to watch: nothing to say');
      e2.watch();
      assert.match(e2.meta().watch ?? '', /^the watcher is still covering the tree: a file changed on disk since start may not show yet$/);
      await e2.watchReady();
      assert.equal(e2.meta().watch, undefined);
      // The fixture was written just before the walk (inside the catch-up slack): indexed as it is, so not a change.
      assert.deepEqual([...e2.pendingPaths()], []);
      assert.equal(e2.meta().status, 'fresh');
    } finally {
      await e2.close();
      removeDir(dir);
    }
  });

  it('close() leaves no handle open: a process that watched and closed exits by itself', async () => {
    const script = [
      "const { Engine } = require('./server/src/nav/engine');",
      '(async () => {',
      `  const e = await Engine.open({ workspaceRoot: ${JSON.stringify(ws)}, indexRoot: '' });`,
      '  await e.refresh();',
      '  e.watch();',
      '  await e.watchReady();',
      "  process.stdout.write(JSON.stringify(e.watchStatus()) + '\\n');",
      '  await e.close();',
      '})();',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null | 'hung'>((resolve) => {
      const t = setTimeout(() => {
        child.kill('SIGKILL');
        resolve('hung');
      }, WAIT_MS);
      child.on('exit', (c) => {
        clearTimeout(t);
        resolve(c);
      });
    });
    assert.equal(code, 0, `exit ${code}; stderr: ${err.slice(-2000)}`);
    assert.match(out, /"backend":"native","ready":true/);
  });
});
