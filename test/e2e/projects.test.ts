/**
 * The project tools over real stdio with the MCP SDK client, against `dist/cli.js mcp` on the
 * hand-written tricky fixture (solutions, multi-targeting, linked and shared files, central
 * packages, legacy/VB/F#/Web projects) plus configuration files.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, callError, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, tempDir, writeTree } from '../helpers/workspace';

const FIXTURE = path.resolve(__dirname, '../fixtures/projects/tricky');
const PROJECT_TOOLS = ['project_graph', 'projects_containing', 'dependency_path', 'projects_under', 'namespace_layout', 'config_lookup'];

describe('MCP over stdio: project tools', function () {
  this.timeout(120_000);
  let ws: string;
  let idx: string;
  let c: Connected;

  before(async function () {
    ws = tempDir('projects-ws');
    idx = tempDir('projects-idx');
    fs.cpSync(FIXTURE, ws, { recursive: true });
    writeTree(ws, {
      'src/Web/appsettings.json': JSON.stringify({ Logging: { LogLevel: { Default: 'Information' } }, ConnectionStrings: { Default: 'Server=.' } }, null, 2),
      'src/Web/appsettings.Development.json': '{\n  // local overrides\n  "Logging": { "LogLevel": { "Default": "Debug", }, },\n}\n',
      'src/Web/Properties/launchSettings.json': JSON.stringify({ profiles: { Web: { commandName: 'Project' } } }, null, 2),
      'src/Core/Default.txt': 'Default',
      'src/Core/Nested.cs': 'namespace Fixtures.Core\n{\n    namespace Inner\n    {\n        public class N { }\n    }\n}\n',
    });
    c = await connectStdio(ws, idx);
    await waitFor(async () => {
      const o = await call(c.client, 'repo_overview', {});
      return o.index.status === 'fresh' && o.projects !== null;
    }, 60_000);
  });

  after(async function () {
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });

  it('lists the project tools with strict inputs, output schemas and read-only annotations', async function () {
    const { tools } = await c.client.listTools();
    for (const n of PROJECT_TOOLS) {
      const t = tools.find((x) => x.name === n);
      assert.ok(t, `missing ${n}`);
      assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false);
      assert.ok(t.outputSchema);
      assert.equal(t.annotations?.readOnlyHint, true);
      assert.equal(t.annotations?.openWorldHint, false);
    }
  });

  it('repo_overview gains projects by kind, readiness, solutions and target frameworks', async function () {
    const o = await call(c.client, 'repo_overview', {});
    const p = o.projects;
    assert.deepEqual(p.byKind.csharp, { production: 7, test: 1 });
    assert.deepEqual(p.byKind.vb, { production: 1, test: 0 });
    assert.equal(p.byKind.shared.production, 1);
    assert.equal(p.readiness.failed, 1, 'the project Tricky.sln lists but that does not exist');
    assert.equal(p.notComplete[0].id, 'src/Gone/Gone.csproj');
    assert.deepEqual(p.solutions.map((s: { path: string }) => s.path).sort(), ['Tricky.Core.slnf', 'Tricky.sln', 'Tricky.slnx']);
    assert.equal(p.targetFrameworks['net8.0'], 7);
    assert.equal(p.targetFrameworks['net472'], 1);
  });

  /** Every page of a project_graph answer, as nodes by id and edges by endpoint ids. */
  async function graphAll(args: Record<string, unknown>) {
    const rows: any[] = [];
    let first: any;
    let cursor: string | undefined;
    do {
      const r = await call(c.client, 'project_graph', { ...args, ...(cursor ? { cursor } : {}) });
      first ??= r;
      rows.push(...r.items);
      cursor = r.nextCursor;
    } while (cursor);
    const byKey = new Map(rows.map((n) => [n.n, n]));
    assert.deepEqual(rows.map((n) => n.n), rows.map((_, i) => i), 'node keys are the positions, every page in order');
    const edges = rows.flatMap((n) => (n.to ?? []).map((t: number) => ({ from: n.id, to: byKey.get(t)!.id, ...(n.via?.[String(t)] ?? {}) })));
    return { first, nodes: rows, ids: rows.map((n) => n.id as string), edges };
  }

  it('project_graph returns one node table whose rows list their references, with package versions from central management', async function () {
    const g = await graphAll({ project: 'Core.Tests', depth: 3, includePackages: true });
    assert.deepEqual(g.nodes.filter((n) => n.d === 0).map((n) => n.id), ['tests/Core.Tests/Core.Tests.csproj']);
    for (const id of ['src/Core/Core.csproj', 'src/Multi/Multi.csproj', 'package:xunit', 'package:Newtonsoft.Json']) assert.ok(g.ids.includes(id), `missing node ${id}`);
    const xunit = g.edges.find((e) => e.to === 'package:xunit');
    assert.equal(xunit.v, '2.9.0');
    const pkg = g.nodes.find((n) => n.id === 'package:xunit');
    assert.equal(pkg.kind, 'package');
    assert.equal(pkg.name, undefined, 'a name derivable from the id is left out');
    assert.equal(g.first.cut, undefined, 'nothing was cut');
    // Multi -> Core is conditional on the framework; Multi is at distance 1 and Core too, so the
    // edge among neighbours comes only with allEdges.
    assert.ok(!g.edges.some((e) => e.from === 'src/Multi/Multi.csproj' && e.to === 'src/Core/Core.csproj'));
    const all = await graphAll({ project: 'Core.Tests', depth: 3, includePackages: true, allEdges: true });
    const multiToCore = all.edges.find((e) => e.from === 'src/Multi/Multi.csproj' && e.to === 'src/Core/Core.csproj');
    assert.deepEqual(multiToCore.tf, ['net8.0'], 'the reference is conditional on the framework');
    assert.ok(!JSON.stringify(g.first.items).includes('"kind":"csharp"'), 'the default kind is left out of rows');
  });

  it('project_graph depth 1 lists every direct neighbour, pages exactly, and says what it cut and why', async function () {
    const shallow = await graphAll({ project: 'src/Core/Core.csproj', direction: 'dependents', depth: 1 });
    assert.deepEqual([...shallow.ids].sort(), ['src/Core/Core.csproj', 'src/Legacy/Legacy.csproj', 'src/Multi/Multi.csproj', 'src/Web/Web.csproj', 'tests/Core.Tests/Core.Tests.csproj']);
    assert.equal(shallow.first.cut, undefined, 'nothing new lies beyond depth 1');
    assert.deepEqual(shallow.edges.map((e) => e.to), Array(4).fill('src/Core/Core.csproj'), 'only the edges to the start');
    const paged = await graphAll({ project: 'src/Core/Core.csproj', direction: 'dependents', depth: 1, limit: 1 });
    assert.deepEqual(paged.nodes, shallow.nodes, 'pages of one row concatenate to the one-page answer');
    const small = await call(c.client, 'project_graph', { project: 'src/Core/Core.csproj', direction: 'dependents', depth: 5, maxNodes: 2 });
    assert.equal(small.items.length, 2);
    assert.ok(small.cut.maxNodes >= 3, JSON.stringify(small.cut));
    assert.match(small.summary, /left out by maxNodes 2/);
    const cutByDepth = await call(c.client, 'project_graph', { project: 'Core.Tests', depth: 1, includePackages: true });
    assert.equal(cutByDepth.cut.depth, true, "Core's and Multi's packages lie at depth 2");
    assert.ok(!cutByDepth.items.some((n: { id: string }) => n.id === 'package:Newtonsoft.Json'));
    const all = await call(c.client, 'project_graph', { prefix: '', maxNodes: 3 });
    assert.equal(all.items.length, 3, 'a prefix with more projects than the cap is cut too');
    assert.ok(all.cut.maxNodes >= 8, JSON.stringify(all.cut));
    const tight = await c.client.callTool({ name: 'project_graph', arguments: { prefix: 'src', direction: 'both', includePackages: true, maxBytes: 1024 } });
    assert.ok(Buffer.byteLength(JSON.stringify(tight.structuredContent)) <= 1024);
    assert.ok(Buffer.byteLength((tight.content as { text: string }[])[0]!.text) <= 1024);
    const whole = await graphAll({ prefix: 'src', direction: 'both', includePackages: true });
    const pagedTight = await graphAll({ prefix: 'src', direction: 'both', includePackages: true, maxBytes: 1024 });
    assert.deepEqual(pagedTight.nodes, whole.nodes, 'budget-cut pages concatenate to the whole answer');
  });

  it('project_graph starts from a solution filter and adds solution membership on request', async function () {
    const g = await graphAll({ project: 'Tricky.Core.slnf', depth: 1, includeSolutions: true });
    assert.deepEqual(g.nodes.filter((n) => n.d === 0).map((n) => n.id), ['src/Core/Core.csproj', 'tests/Core.Tests/Core.Tests.csproj']);
    const solutions = g.nodes.filter((n) => n.kind === 'solution').map((n) => n.id).sort();
    assert.deepEqual(solutions, ['Tricky.Core.slnf', 'Tricky.sln', 'Tricky.slnx']);
    assert.ok(g.edges.some((e) => e.from === 'Tricky.slnx' && e.to === 'src/Multi/Multi.csproj'));
    assert.match(g.first.summary, /the 2 projects of Tricky\.Core\.slnf/);
  });

  it('projects_containing: linked, shared and conditionally compiled files', async function () {
    const shared = await call(c.client, 'projects_containing', { path: 'src/Shared/SharedCode.cs' });
    assert.deepEqual(shared.items.map((i: { project: string }) => i.project).sort(), ['src/Shared/Shared.shproj', 'src/UsesShared/UsesShared.csproj']);
    const linked = await call(c.client, 'projects_containing', { path: 'tools/Gen/Polyfill.cs' });
    assert.deepEqual(linked.items.map((i: { project: string; targetFrameworks: string[]; link: string }) => [i.project, i.targetFrameworks, i.link]), [['src/Multi/Multi.csproj', ['netstandard2.0'], 'Polyfills/Polyfill.cs']]);
    const removed = await call(c.client, 'projects_containing', { path: 'src/Core/Legacy/Old.cs' });
    assert.equal(removed.items.length, 0);
    assert.match(removed.summary, /No project compiles or contains/);
  });

  it('dependency_path finds shortest paths and flags the reverse direction', async function () {
    const fwd = await call(c.client, 'dependency_path', { from: 'tests/Core.Tests/Core.Tests.csproj', to: 'Core' });
    assert.deepEqual(fwd.items, [{ hops: 1, path: ['tests/Core.Tests/Core.Tests.csproj', 'src/Core/Core.csproj'] }]);
    assert.equal(fwd.reverse, false);
    const rev = await call(c.client, 'dependency_path', { from: 'Core', to: 'Core.Tests' });
    assert.equal(rev.reverse, true);
    const none = await call(c.client, 'dependency_path', { from: 'Vb', to: 'Fs' });
    assert.equal(none.items.length, 0);
  });

  it('projects_under filters by kind and tests, pages with a cursor, and shows reasons', async function () {
    const first = await call(c.client, 'projects_under', { prefix: 'src', tests: 'exclude', limit: 3 });
    assert.equal(first.completeness.total, 10);
    assert.equal(first.items.length, 3);
    const second = await call(c.client, 'projects_under', { prefix: 'src', tests: 'exclude', limit: 3, cursor: first.nextCursor });
    assert.notDeepEqual(second.items[0].id, first.items[0].id);
    const failed = await call(c.client, 'projects_under', { prefix: '', status: ['failed'] });
    assert.deepEqual(failed.items.map((p: { id: string }) => p.id), ['src/Gone/Gone.csproj']);
    assert.match(failed.items[0].reasons[0], /does not exist \(referenced by Tricky\.sln\)/);
    const vb = await call(c.client, 'projects_under', { prefix: '', kinds: ['vb', 'fsharp'] });
    assert.deepEqual(vb.items.map((p: { id: string }) => p.id), ['src/Fs/Fs.fsproj', 'src/Vb/Vb.vbproj']);
    // Defaults are left out: name = file name, kind csharp, not a test, status complete.
    const core = (await call(c.client, 'projects_under', { prefix: 'src/Core' })).items.find((p: { id: string }) => p.id === 'src/Core/Core.csproj');
    assert.deepEqual(Object.keys(core).filter((k) => ['name', 'kind', 'isTest', 'status'].includes(k)), [], JSON.stringify(core));
    assert.equal(vb.items[0].kind, 'fsharp');
  });

  it('namespace_layout groups declared namespaces with file and project counts', async function () {
    const r = await call(c.client, 'namespace_layout', { prefix: 'Fixtures', depth: 1 });
    const core = r.items.find((i: { namespace: string }) => i.namespace === 'Fixtures.Core');
    assert.ok(core, JSON.stringify(r.items));
    assert.ok(core.topProjects.includes('src/Core/Core.csproj'));
    const shared = r.items.find((i: { namespace: string }) => i.namespace === 'Fixtures.Shared');
    assert.ok(shared.projects >= 3, 'linked and shared files count for every project that compiles them');
    assert.equal(r.navigationLayer, 'syntax', 'namespace declarations come from the symbols index');
    const deep = await call(c.client, 'namespace_layout', { prefix: 'Fixtures.Core' });
    const inner = deep.items.find((i: { namespace: string }) => i.namespace === 'Fixtures.Core.Inner');
    assert.deepEqual(inner?.topProjects, ['src/Core/Core.csproj'], 'a nested namespace has its full name');
  });

  it('config_lookup matches .NET configuration paths against JSON nesting and MSBuild properties as text', async function () {
    const r = await call(c.client, 'config_lookup', { key: 'Logging:LogLevel:Default' });
    assert.deepEqual(r.items.map((h: { path: string }) => h.path).sort(), ['src/Web/appsettings.Development.json', 'src/Web/appsettings.json']);
    assert.ok(r.items.every((h: { keyPath: string; project: string; fileKind: string }) => h.keyPath === 'Logging:LogLevel:Default' && h.project === 'src/Web/Web.csproj' && h.fileKind === 'appsettings'));
    const env = await call(c.client, 'config_lookup', { key: 'ConnectionStrings__Default' });
    assert.deepEqual(env.items.map((h: { path: string }) => h.path), ['src/Web/appsettings.json']);
    const prop = await call(c.client, 'config_lookup', { key: 'ManagePackageVersionsCentrally' });
    assert.deepEqual(prop.items.map((h: { path: string; line: number; fileKind: string }) => [h.path, h.line, h.fileKind]), [['Directory.Packages.props', 3, 'msbuild']]);
  });

  it('find_file and search_text rows carry the projects of the file', async function () {
    const f = await call(c.client, 'find_file', { query: 'SharedCode.cs' });
    assert.deepEqual(f.items[0].projects.sort(), ['src/Shared/Shared.shproj', 'src/UsesShared/UsesShared.csproj']);
    const t = await call(c.client, 'search_text', { query: 'class Widget' });
    assert.deepEqual(t.items[0].projects, ['src/Core/Core.csproj']);
    assert.equal(t.items[0].hits.length, 1);
    assert.equal(t.items[0].hits[0].projects, undefined, 'projects are said once per file, not per hit');
  });

  it('find_file and search_text filter by project (compiled files, linked ones included)', async function () {
    const f = await call(c.client, 'find_file', { query: '*.cs', project: 'src/Core/Core.csproj', limit: 50 });
    assert.deepEqual(f.items.map((i: { path: string }) => i.path).sort(), ['shared/Linked.cs', 'src/Core/Legacy/Old.cs', 'src/Core/Nested.cs', 'src/Core/Scratch/Scratch.cs', 'src/Core/Sub/Deep/Deep.cs', 'src/Core/Widget.cs']);
    const t = await call(c.client, 'search_text', { query: 'namespace Fixtures', project: 'Multi', limit: 50 });
    assert.deepEqual([...new Set(t.items.map((i: { path: string }) => i.path))].sort(), ['shared/Gen/Extra.cs', 'src/Multi/Api.cs', 'src/Multi/Modern/Span8.cs', 'src/Multi/Polyfills/Local.cs', 'tools/Gen/Polyfill.cs']);
    assert.match(await callError(c.client, 'find_file', { query: 'x', project: 'Nope' }), /^Error \[PROJECT_NOT_FOUND\]/);
  });

  it('bad project arguments answer with codes and hints', async function () {
    assert.match(await callError(c.client, 'project_graph', { project: 'NoSuchProject' }), /^Error \[PROJECT_NOT_FOUND\]: .*Hint: /);
    assert.match(await callError(c.client, 'project_graph', { project: 'Core', prefix: 'src' }), /^Error \[INVALID_ARGUMENT\]: Pass exactly one of project or prefix/);
    assert.match(await callError(c.client, 'projects_containing', { path: '../outside.cs' }), /^Error \[PATH_OUTSIDE_ROOT\]/);
  });

  it('a change to a project file is picked up by the next refresh', async function () {
    fs.writeFileSync(
      path.join(ws, 'src/Vb/Vb.vbproj'),
      '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>\n  <ItemGroup><ProjectReference Include="../Fs/Fs.fsproj" /></ItemGroup>\n</Project>\n',
    );
    await waitFor(async () => (await call(c.client, 'dependency_path', { from: 'Vb', to: 'Fs' })).items.length === 1, 30_000, 200);
  });
});
