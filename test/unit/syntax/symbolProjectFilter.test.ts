import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { searchSymbols } from '../../../server/src/nav/syntaxSymbols';

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('syntax: search_symbol filtered by project', function () {
  this.timeout(120_000);
  let root: string;
  let engine: Engine;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-symproj-'));
    write(root, 'src/A/A.csproj', '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>\n');
    write(root, 'src/B/B.csproj', '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>' +
      '<ItemGroup><Compile Include="../Shared/Linked.cs" Link="Linked.cs" /></ItemGroup></Project>\n');
    write(root, 'src/A/Widget.cs', 'namespace A;\npublic class Widget { public void Spin() { } }\n');
    write(root, 'src/B/Widget.cs', 'namespace B;\npublic class Widget { public void Spin() { } }\n');
    write(root, 'src/Shared/Linked.cs', 'namespace Shared;\npublic class LinkedWidget { }\n');
    engine = await Engine.open({ workspaceRoot: root, indexRoot: '' });
    await engine.refresh();
  });

  after(async () => {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const search = (query: string, project?: string) =>
    searchSymbols(engine, { query, match: 'substring', project, offset: 0, limit: 20, deadlineAt: Date.now() + 5000 }).hits.map((h) => h.qualifiedName).sort();

  it('answers only declarations in the files the project compiles, linked files included', () => {
    assert.deepEqual(search('Widget'), ['A.Widget', 'B.Widget', 'Shared.LinkedWidget']);
    assert.deepEqual(search('Widget', 'A'), ['A.Widget']);
    assert.deepEqual(search('Widget', 'src/B/B.csproj'), ['B.Widget', 'Shared.LinkedWidget']);
    assert.deepEqual(search('LinkedWidget', 'B'), ['Shared.LinkedWidget']);
    assert.deepEqual(search('LinkedWidget', 'A'), []);
  });
});
