/**
 * C# symbol ids with their compilation (`<doc-id>@<project>|<tfm>`): the format and its parsing,
 * then the ids the tools show and accept over a real engine, index and project model (no language
 * server: the heuristic provider answers, which is enough to check target resolution).
 */
import * as assert from 'node:assert/strict';
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import { formatSymbolId, splitSymbolId, SymbolIdSpace } from '../../../server/src/nav/symbolIds';
import type { ProjectGraph, ProjectNode } from '../../../server/src/projects/ProjectGraph';
import { heuristicEngine } from '../../helpers/heuristicEngine';
import { tempDir, writeTree } from '../../helpers/workspace';

function node(id: string, name: string, tfms: string[]): ProjectNode {
  return { id, path: id, name, kind: 'csharp', isTest: false, targetFrameworks: tfms, status: 'complete', reasons: [], fileCount: 1 };
}

describe('symbol ids: format and parsing', () => {
  const core = node('src/Core/Core.csproj', 'Core', ['net8.0', 'net10.0']);
  const appA = node('src/A/App.csproj', 'App', ['net10.0']);
  const appB = node('src/B/App.csproj', 'App', ['net10.0']);
  const legacy = node('src/Old/Old.csproj', 'Old', []);
  const graph: ProjectGraph = {
    root: '/ws',
    projects: [core, appA, appB, legacy],
    edges: [],
    solutions: [],
    files: new Map([
      ['src/Core/Guard.cs', [{ project: core.id }]],
      ['shared/Info.cs', [{ project: appB.id, link: 'Info.cs' }, { project: core.id, link: 'Info.cs', targetFrameworks: ['net10.0'] }, { project: appA.id, link: 'Info.cs' }]],
      ['src/A/Program.cs', [{ project: appA.id }]],
      ['src/Old/X.cs', [{ project: legacy.id }]],
    ]),
    buildMs: 0,
  };
  const ids = new SymbolIdSpace(graph);

  it('projects are named by name, or by path when the name is shared', () => {
    assert.equal(ids.projectKey(core), 'Core');
    assert.equal(ids.projectKey(appA), 'src/A/App.csproj');
    assert.equal(ids.projectKey(appB), 'src/B/App.csproj');
  });

  it('a file has one compilation per project and framework; the owning project comes first', () => {
    assert.deepEqual(ids.compilationLabels('src/Core/Guard.cs'), ['Core|net8.0', 'Core|net10.0']);
    // Linked everywhere: by key; Core compiles it for net10.0 only.
    assert.deepEqual(ids.compilationLabels('shared/Info.cs'), ['Core|net10.0', 'src/A/App.csproj|net10.0', 'src/B/App.csproj|net10.0']);
    assert.deepEqual(ids.compilationLabels('src/Old/X.cs'), ['Old']);
    assert.deepEqual(ids.compilationLabels('not/in/any.cs'), []);
  });

  it('ids carry the primary compilation; other languages keep their id', () => {
    assert.equal(ids.idFor('T:Core.Guard', 'src/Core/Guard.cs'), 'T:Core.Guard@Core|net8.0');
    assert.equal(ids.idFor('T:Old.X', 'src/Old/X.cs'), 'T:Old.X@Old');
    assert.equal(ids.idFor('T:Loose', 'not/in/any.cs'), 'T:Loose');
    assert.equal(ids.idFor('src/a.ts#A.b', 'src/a.ts'), 'src/a.ts#A.b');
    assert.equal(formatSymbolId('M:N.T.M(System.Int32@)', { key: 'Core', tfm: 'net8.0' }), 'M:N.T.M(System.Int32@)@Core|net8.0');
  });

  it('parsing finds the suffix from the end, past by-reference markers', () => {
    assert.deepEqual(strip(ids.parse('M:N.T.M(System.Int32@)@Core|net8.0')), { docId: 'M:N.T.M(System.Int32@)', projectKey: 'Core', project: core.id, tfm: 'net8.0' });
    assert.deepEqual(strip(ids.parse('M:N.T.M(System.Int32@,System.String@)')), { docId: 'M:N.T.M(System.Int32@,System.String@)' });
    assert.deepEqual(strip(ids.parse('T:App.Program@src/B/App.csproj|net10.0')), { docId: 'T:App.Program', projectKey: 'src/B/App.csproj', project: appB.id, tfm: 'net10.0' });
    assert.deepEqual(strip(ids.parse('T:Core.Guard@core')), { docId: 'T:Core.Guard', projectKey: 'core', project: core.id });
    assert.deepEqual(strip(ids.parse('T:Core.Guard')), { docId: 'T:Core.Guard' });
    // An unknown project is still split off (it resolves to STALE_TARGET, not to a wrong doc-id).
    assert.deepEqual(strip(ids.parse('T:Core.Guard@Gone|net8.0')), { docId: 'T:Core.Guard', projectKey: 'Gone', tfm: 'net8.0' });
    assert.deepEqual(splitSymbolId('src/a.ts#A.b@x', () => undefined), { docId: 'src/a.ts#A.b@x' });
  });

  function strip(p: ReturnType<SymbolIdSpace['parse']>): Record<string, unknown> {
    const { project, ...rest } = p;
    return project ? { ...rest, project: project.id } : rest;
  }
});

describe('symbol ids in tool answers (engine, index and project model; heuristic provider)', function () {
  this.timeout(60_000);
  const engine = heuristicEngine(() => {
    const ws = tempDir('ids');
    writeTree(ws, {
      'src/Core/Core.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFrameworks>net8.0;net10.0</TargetFrameworks></PropertyGroup></Project>',
      'src/Core/Guard.cs': 'namespace Core;\n\npublic static class Guard\n{\n    public static void NotNull(object value) { }\n}\n',
      'src/App/App.csproj':
        '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>' +
        '<ItemGroup><ProjectReference Include="../Core/Core.csproj" /><Compile Include="../../shared/BuildInfo.cs" Link="BuildInfo.cs" /></ItemGroup></Project>',
      'src/App/Program.cs': 'namespace App;\n\npublic class Program\n{\n    public static void Main() { Core.Guard.NotNull(BuildInfo.Name); }\n}\n',
      'src/Tool/Tool.csproj':
        '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>' +
        '<ItemGroup><Compile Include="../../shared/BuildInfo.cs" Link="BuildInfo.cs" /></ItemGroup></Project>',
      'src/Tool/Program.cs': 'namespace App;\n\npublic class Program\n{\n    public static void Run() { }\n}\n',
      'shared/BuildInfo.cs': 'namespace App;\n\npublic static class BuildInfo\n{\n    public const string Name = "x";\n}\n',
    });
    return ws;
  });

  async function tool(name: string, args: Record<string, unknown>): Promise<any> {
    const r = await callTool(engine(), ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, args, 20_000);
    if (r.isError) throw new Error((r.content[0] as { text: string }).text);
    return r.structuredContent;
  }
  async function toolError(name: string, args: Record<string, unknown>): Promise<string> {
    const r = await callTool(engine(), ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, args, 20_000);
    assert.equal(r.isError, true, `expected an error, got ${JSON.stringify(r).slice(0, 600)}`);
    return (r.content[0] as { text: string }).text;
  }

  it('outline, symbol_at and search_symbol show ids with project and framework', async () => {
    const o = await tool('outline', { path: 'src/Core/Guard.cs', ids: true });
    assert.deepEqual(o.items.map((i: any) => i.id), ['N:Core@Core|net8.0', 'T:Core.Guard@Core|net8.0', 'M:Core.Guard.NotNull(System.Object)@Core|net8.0']);
    assert.deepEqual(o.file.compilations, ['Core|net8.0', 'Core|net10.0']);
    const at = await tool('symbol_at', { path: 'src/Core/Guard.cs', line: 5 });
    assert.equal(at.items[0].symbolId, 'M:Core.Guard.NotNull(System.Object)@Core|net8.0');
    assert.deepEqual(at.containers.map((c: any) => c.symbolId), ['N:Core@Core|net8.0', 'T:Core.Guard@Core|net8.0']);
    const s = await tool('search_symbol', { query: 'Guard' });
    assert.equal(s.items[0].symbolId, 'T:Core.Guard@Core|net8.0');
  });

  it('the same doc-id in two projects is two symbols', async () => {
    const s = await tool('search_symbol', { query: 'Program', kinds: ['class'] });
    assert.deepEqual(s.items.map((i: any) => i.symbolId).sort(), ['T:App.Program@App|net10.0', 'T:App.Program@Tool|net10.0']);
    assert.ok(s.items.every((i: any) => i.otherSpans === undefined));
    const one = await tool('search_symbol', { query: 'T:App.Program@Tool|net10.0', match: 'qualified' });
    assert.deepEqual(one.items.map((i: any) => `${i.symbolId} ${i.path}`), ['T:App.Program@Tool|net10.0 src/Tool/Program.cs']);
  });

  it('a linked file compiled by two projects has one id per project; each resolves', async () => {
    const o = await tool('outline', { path: 'shared/BuildInfo.cs', ids: true });
    assert.deepEqual(o.file.compilations, ['App|net10.0', 'Tool|net10.0']);
    assert.equal(o.items[1].id, 'T:App.BuildInfo@App|net10.0');
    for (const id of ['T:App.BuildInfo@App|net10.0', 'T:App.BuildInfo@Tool|net10.0']) {
      const d = await tool('definition', { target: { symbolId: id } });
      assert.equal(d.target_selection.symbol.symbolId, id);
      assert.equal(d.target_selection.via, 'direct_symbol');
    }
  });

  it('a full id resolves; its target_ref round-trips', async () => {
    const d = await tool('definition', { target: { symbolId: 'T:Core.Guard@Core|net10.0' } });
    assert.equal(d.target_selection.status, 'resolved');
    assert.equal(d.target_selection.symbol.symbolId, 'T:Core.Guard@Core|net10.0');
    assert.deepEqual(d.items[0].target_ref, { symbolId: 'T:Core.Guard@Core|net8.0' });
    const again = await tool('definition', { target: d.items[0].target_ref });
    assert.equal(again.target_selection.via, 'direct_symbol');
    assert.equal(again.target_selection.symbol.symbolId, 'T:Core.Guard@Core|net8.0');
  });

  it('a bare doc-id resolves when one compilation has it, else returns the candidates', async () => {
    const one = await tool('definition', { target: { symbolId: 'M:App.Program.Run' } });
    assert.equal(one.target_selection.symbol.symbolId, 'M:App.Program.Run@Tool|net10.0');
    assert.match(one.target_selection.note, /bare documentation id: resolved to M:App\.Program\.Run@Tool\|net10\.0/);
    const frameworks = await tool('definition', { target: { symbolId: 'T:Core.Guard' } });
    assert.equal(frameworks.target_selection.status, 'ambiguous');
    assert.deepEqual(frameworks.target_selection.candidates.map((c: any) => c.symbolId), ['T:Core.Guard@Core|net8.0', 'T:Core.Guard@Core|net10.0']);
    const projects = await tool('references', { target: { symbolId: 'T:App.Program' } });
    assert.equal(projects.target_selection.status, 'ambiguous');
    assert.deepEqual(projects.target_selection.candidates.map((c: any) => `${c.symbolId} ${c.path}`).sort(), ['T:App.Program@App|net10.0 src/App/Program.cs', 'T:App.Program@Tool|net10.0 src/Tool/Program.cs']);
  });

  it('an id that no longer resolves is STALE_TARGET with the replacement', async () => {
    const tfm = await toolError('definition', { target: { symbolId: 'T:Core.Guard@Core|net6.0' } });
    assert.match(tfm, /^Error \[STALE_TARGET\]: Symbol id T:Core\.Guard@Core\|net6\.0 does not resolve .*not compiled in Core for net6\.0; it is in T:Core\.Guard@Core\|net8\.0, T:Core\.Guard@Core\|net10\.0/);
    assert.match(tfm, /Hint: pass \{symbolId: "T:Core\.Guard@Core\|net8\.0"\}/);
    const gone = await toolError('definition', { target: { symbolId: 'T:App.BuildInfo@Gone|net10.0' } });
    assert.match(gone, /not compiled in a project named 'Gone'/);
    const sig = await toolError('references', { target: { symbolId: 'M:Core.Guard.NotNull(System.String)@Core|net10.0' } });
    assert.match(sig, /^Error \[STALE_TARGET\]/);
    assert.match(sig, /pass \{symbolId: "M:Core\.Guard\.NotNull\(System\.Object\)@Core\|net10\.0"\}/);
  });
});
