/**
 * A project whose file exists in a folder the index leaves out (here `packages/`, excluded by
 * default) is `not_indexed` in the MCP project tools, with the exclusion named — as the VS Code view
 * says "not indexed (excluded folder)" — not a `failed` project. Real MCP client on real stdio.
 */
import * as assert from 'node:assert/strict';
import { call } from '../helpers/mcpClient';
import { servedTree } from '../helpers/servedTree';

const sdk = (body = '') => `<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup>${body}</Project>\n`;

describe('projects in excluded folders over MCP: not_indexed, not failed @e2e', function () {
  const served = servedTree('notindexed', {
    'A/A.csproj': sdk('<ItemGroup><ProjectReference Include="../packages/Lib/Lib.csproj" /><ProjectReference Include="../Gone/Gone.csproj" /></ItemGroup>'),
    'A/Program.cs': 'namespace A;\npublic static class Program { }\n',
    'packages/Lib/Lib.csproj': sdk(),
    'packages/Lib/Lib.cs': 'namespace Lib;\npublic class Lib { }\n',
  });

  it('projects_under, the status filter and project_graph say not_indexed with the folder rule; a missing file stays failed', async function () {
    const r = await call(served.c.client, 'projects_under', { prefix: '' });
    const brief = r.items.map((p: any) => `${p.project ?? p.id} ${p.status ?? 'complete'}`);
    console.log(`      ${JSON.stringify(r.items)}`);
    assert.deepEqual(brief.sort(), ['A/A.csproj partial', 'Gone/Gone.csproj failed', 'packages/Lib/Lib.csproj not_indexed']);
    const lib = r.items.find((p: any) => (p.project ?? p.id) === 'packages/Lib/Lib.csproj');
    assert.deepEqual(lib.reasons, ['the file exists but is not indexed (excluded by default: packages/ folders are not indexed unless the workspace re-admits them; referenced by A/A.csproj)']);
    const a = r.items.find((p: any) => (p.project ?? p.id) === 'A/A.csproj');
    assert.equal(a.reasons[0], 'references packages/Lib/Lib.csproj, which exists but is not indexed (excluded by default: packages/ folders are not indexed unless the workspace re-admits them); not read');
    const only = await call(served.c.client, 'projects_under', { prefix: '', status: ['not_indexed'] });
    assert.deepEqual(only.items.map((p: any) => p.project ?? p.id), ['packages/Lib/Lib.csproj']);
    const g = await call(served.c.client, 'project_graph', { project: 'A/A.csproj', depth: 1 });
    assert.deepEqual(g.items.map((n: any) => `${n.id} ${n.status ?? 'complete'}`).sort(), ['A/A.csproj partial', 'Gone/Gone.csproj failed', 'packages/Lib/Lib.csproj not_indexed']);
    assert.match(g.summary + '\n' + JSON.stringify(g.items), /not_indexed/);
  });
});
