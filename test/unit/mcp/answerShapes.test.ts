/**
 * Answer shapes spent on the question: references (default grouping) shows every group with its
 * count in one default-budget answer, locations spread over the groups, the group key not repeated
 * on each location; search_symbol puts the declarations that answer "where is X" first. Real engine,
 * index and project model; the heuristic provider (no language server) for references.
 */
import * as assert from 'node:assert/strict';
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import { spreadLocations } from '../../../server/src/mcp/tools/semantic';
import { Engine } from '../../../server/src/nav/engine';
import { disposeSemanticService, semanticService } from '../../../server/src/nav/semanticService';
import { symbolRowNames } from '../../../server/src/mcp/tools/syntax';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

const PROJECTS = 10;

describe('answer shapes: references groups and search_symbol ranking', function () {
  this.timeout(120_000);
  let ws: string;
  let engine: Engine;

  before(async () => {
    ws = tempDir('shapes');
    const files: Record<string, string> = {
      'src/Core/Core.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>',
      'src/Core/OrderManager.cs': 'namespace Core;\n\npublic interface IOrderManager { void Place(); }\n\npublic class OrderManager : IOrderManager\n{\n    public void Place() { }\n}\n',
      'src/Core/OrderManagerFactory.cs': 'namespace Core;\n\npublic class OrderManagerFactory { public OrderManager Create() => new OrderManager(); }\n',
      'tests/Core.Tests/Core.Tests.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup><ItemGroup><ProjectReference Include="../../src/Core/Core.csproj" /></ItemGroup></Project>',
      'tests/Core.Tests/OrderManagerTests.cs': 'namespace Core.Tests;\n\npublic class OrderManagerTests\n{\n    private readonly Core.OrderManager _orderManager = new();\n    public void Places() => _orderManager.Place();\n}\n',
    };
    for (let i = 0; i < PROJECTS; i++) {
      files[`src/App${i}/App${i}.csproj`] =
        '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup><ItemGroup><ProjectReference Include="../Core/Core.csproj" /></ItemGroup></Project>';
      const uses = Array.from({ length: 6 + i }, (_, k) => `    public Core.OrderManager M${k}(Core.OrderManager orderManager) => orderManager;`).join('\n');
      files[`src/App${i}/Service${i}.cs`] = `namespace App${i};\n\npublic class Service${i}\n{\n    private readonly Core.OrderManager _orderManager = new();\n    public Core.OrderManager OrderManager => _orderManager;\n${uses}\n}\n`;
    }
    writeTree(ws, files);
    engine = await Engine.open({ workspaceRoot: ws, indexRoot: '' });
    await engine.refresh();
    semanticService(engine, { noLsp: true });
  });

  after(async () => {
    await disposeSemanticService(engine);
    await engine.close();
    removeDir(ws);
  });

  async function tool(name: string, args: Record<string, unknown>): Promise<{ structured: any; text: string }> {
    const r = await callTool(engine, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, args, 60_000);
    if (r.isError) throw new Error((r.content[0] as { text: string }).text);
    return { structured: r.structuredContent, text: (r.content[0] as { text: string }).text };
  }

  it('spreadLocations fills level by level, within the cap and the allowance', () => {
    assert.deepEqual(spreadLocations([5, 1, 3], 10, 6), [3, 1, 2]);
    assert.deepEqual(spreadLocations([5, 1, 3], 2, 100), [2, 1, 2]);
    assert.deepEqual(spreadLocations([9, 9, 9, 9], 10, 2), [1, 1, 0, 0]);
    assert.deepEqual(spreadLocations([], 10, 24), []);
  });

  it('references by project: every group with its count in one default answer, locations spread, the project said once', async () => {
    const { structured: r, text } = await tool('references', { target: { qualifiedName: 'Core.OrderManager' } });
    const groups = r.items as { group: string; count: number; locations?: Record<string, unknown>[]; isTest?: boolean; more?: number }[];
    const appGroups = groups.filter((g) => g.group.startsWith('src/App'));
    assert.equal(appGroups.length, PROJECTS, `groups: ${groups.map((g) => g.group).join(', ')}`);
    assert.equal(r.nextCursor, undefined, 'one answer holds every group');
    assert.equal(r.completeness.truncated, false);
    for (const g of groups) {
      assert.ok(g.locations && g.locations.length >= 1 && g.locations.length <= g.count, `${g.group} lists no location`);
      assert.equal(g.more, undefined, 'what is not listed is count − locations, not said again');
      assert.notEqual(g.isTest, false, 'isTest only when true');
      for (const l of g.locations) assert.equal(l.project, undefined, 'the group already names the project');
    }
    assert.ok(Buffer.byteLength(JSON.stringify(r)) <= 8 * 1024 && Buffer.byteLength(text) <= 8 * 1024);
    const perGroupOne = await tool('references', { target: { qualifiedName: 'Core.OrderManager' }, per_group: 1 });
    assert.equal(perGroupOne.structured.items.length, groups.length, 'per_group is a maximum, not a reason to drop groups');
  });

  it('search_symbol: the type, then the I-interface, then members, then private fields; production before tests', async () => {
    const { structured: r } = await tool('search_symbol', { query: 'OrderManager', limit: 50 });
    const rows = (r.items as { kind: string; symbolId: string; path: string }[]).map((h) => ({ ...h, name: symbolRowNames(h).name }));
    const firstField = rows.findIndex((h) => h.kind === 'field');
    assert.equal(rows[0]!.kind, 'class');
    assert.equal(rows[0]!.name, 'OrderManager');
    assert.equal(rows[1]!.name, 'IOrderManager', rows.map((h) => `${h.kind} ${h.name}`).join(', '));
    const lastMember = rows.map((h) => h.kind).lastIndexOf('property');
    assert.ok(firstField < 0 || lastMember < firstField, 'members before fields');
    // Among same-named fields, production before tests.
    const fields = rows.filter((h) => h.kind === 'field').map((h) => h.path.startsWith('tests/'));
    assert.ok(fields.length > 1 && fields.indexOf(true) > 0 && fields.slice(fields.indexOf(true)).every(Boolean), `fields: ${fields.join(',')}`);
    const interfaceRow = await tool('search_symbol', { query: 'OrderManager', limit: 2 });
    assert.equal(interfaceRow.structured.items[1].match, 'interface', 'the I+name row says why it is there');
  });
});
