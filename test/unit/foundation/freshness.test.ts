/**
 * A saved file is re-indexed from the watcher's paths: no walk of the workspace, no project-graph
 * rebuild, no synchronous persist; symbols and outlines see it. A created file still gets a walk
 * (the ignore rules decide), and a project file change rebuilds the graph.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PROJECT_GRAPH_STAMP } from '../../../server/src/index/projectsHook';
import { Engine } from '../../../server/src/nav/engine';
import { removeDir, writeTree } from '../../helpers/workspace';

describe('freshness: watcher-driven refresh', function () {
  this.timeout(120_000);
  let ws: string;
  let idx: string;
  let e: Engine;

  before(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-fresh-ws-'));
    idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-fresh-idx-'));
    writeTree(ws, {
      'src/App/App.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>\n',
      'src/App/Widget.cs': 'namespace App { public class Widget { } }\n',
      'src/App/Other.cs': 'namespace App { public class Other { } }\n',
    });
    e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
  });
  after(async () => {
    await e?.close();
    removeDir(ws);
    removeDir(idx);
  });

  const symbols = (name: string) => e.store.rows('SELECT count(*) FROM symbols WHERE name = ?', [name])[0]![0];

  it('an in-place change is indexed without a walk or a graph rebuild, and the index is persisted at close', async () => {
    const stamp = e.store.getMeta(PROJECT_GRAPH_STAMP);
    const before = fs.statSync(path.join(idx, 'index.db')).mtimeMs;
    fs.writeFileSync(path.join(ws, 'src/App/Widget.cs'), 'namespace App { public class Widget { } public class Gadget { } }\n');
    const s = await e.refresh(undefined, undefined, new Set(['src/App/Widget.cs']));
    assert.equal(s.discovery.durationMs, 0, 'the last walk was patched, not redone');
    assert.equal(s.changed, 1);
    assert.equal(symbols('Gadget'), 1);
    assert.equal(e.catalog().byRelPath('src/App/Widget.cs')!.size, fs.statSync(path.join(ws, 'src/App/Widget.cs')).size);
    assert.equal(e.store.getMeta(PROJECT_GRAPH_STAMP), stamp, 'the project graph was not rebuilt');
    assert.equal(fs.statSync(path.join(idx, 'index.db')).mtimeMs, before, 'not persisted synchronously');
    // A second engine on the same index after close sees the change (persisted at close).
    await e.close();
    e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    assert.equal(symbols('Gadget'), 1);
    assert.ok(e.dict.has('gadget'), 'the dictionary terms were written with it');
  });

  it('a created file walks the workspace; a changed project file rebuilds the graph', async () => {
    await e.refresh();
    fs.writeFileSync(path.join(ws, 'src/App/New.cs'), 'namespace App { public class Fresh { } }\n');
    const s = await e.refresh(undefined, undefined, new Set(['src/App/New.cs']));
    assert.ok(s.discovery.files.some((f) => f.path === 'src/App/New.cs'));
    assert.equal(symbols('Fresh'), 1);
    const stamp = e.store.getMeta(PROJECT_GRAPH_STAMP);
    fs.writeFileSync(path.join(ws, 'src/App/App.csproj'), '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup></Project>\n');
    await e.refresh(undefined, undefined, new Set(['src/App/App.csproj']));
    assert.notEqual(e.store.getMeta(PROJECT_GRAPH_STAMP), stamp);
  });

  it('the watcher picks a save up and makes it visible to symbols', async () => {
    e.watch();
    await new Promise((r) => setTimeout(r, 200));
    fs.writeFileSync(path.join(ws, 'src/App/Other.cs'), 'namespace App { public class Other { } public class Saved { } }\n');
    const t = Date.now();
    while (symbols('Saved') === 0 && Date.now() - t < 20_000) await new Promise((r) => setTimeout(r, 10));
    assert.equal(symbols('Saved'), 1);
  });
});
