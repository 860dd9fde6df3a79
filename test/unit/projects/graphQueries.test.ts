import { strict as assert } from 'node:assert';
import { dependencyPaths, findProjects, graphAround, projectsContaining, projectsUnder } from '../../../server/src/projects/graphQueries';
import { graphWorkspace, sdkProject, type GraphWorkspace } from './graphWorkspace';

const ref = (...targets: string[]) => `<ItemGroup>${targets.map((t) => `<ProjectReference Include="../${t}/${t}.csproj" />`).join('')}</ItemGroup>`;

describe('projects: graph queries', () => {
  let ws: GraphWorkspace;
  before(() => {
    // App → Api → Domain; App → Infra → Domain; Tests → App; Infra uses a package.
    ws = graphWorkspace({
      'src/App/App.csproj': sdkProject(ref('Api', 'Infra')),
      'src/App/Program.cs': '',
      'src/Api/Api.csproj': sdkProject(ref('Domain')),
      'src/Infra/Infra.csproj': sdkProject(ref('Domain') + '<ItemGroup><PackageReference Include="Dapper" Version="2.1.0" /></ItemGroup>'),
      'src/Domain/Domain.csproj': sdkProject(),
      'src/Domain/Order.cs': '',
      'src/Tests/Tests.csproj': sdkProject(ref('App') + '<ItemGroup><PackageReference Include="xunit" Version="2.9.0" /></ItemGroup>'),
    });
  });
  after(() => ws.dispose());

  it('graph around a project: dependencies to a depth, with what depth cut', () => {
    const r = graphAround(ws.graph, ['src/App/App.csproj'], { depth: 1, direction: 'dependencies', includePackages: false, maxNodes: 50, maxEdges: 50 });
    assert.deepEqual(r.nodes.map((n) => `${n.id}@${n.distance}`).sort(), ['src/Api/Api.csproj@1', 'src/App/App.csproj@0', 'src/Infra/Infra.csproj@1']);
    assert.equal(r.edges.length, 2);
    assert.equal(r.cut.depthLimited, true);
  });

  it('graph around a project: dependents, both directions, packages and node caps', () => {
    const dependents = graphAround(ws.graph, ['src/Domain/Domain.csproj'], { depth: 5, direction: 'dependents', includePackages: false, maxNodes: 50, maxEdges: 50 });
    assert.deepEqual(dependents.nodes.map((n) => n.id).sort(), ['src/Api/Api.csproj', 'src/App/App.csproj', 'src/Domain/Domain.csproj', 'src/Infra/Infra.csproj', 'src/Tests/Tests.csproj']);
    const pk = graphAround(ws.graph, ['src/Infra/Infra.csproj'], { depth: 1, direction: 'both', includePackages: true, maxNodes: 50, maxEdges: 50 });
    assert.ok(pk.nodes.some((n) => n.id === 'package:Dapper' && n.kind === 'package'));
    assert.ok(pk.edges.some((e) => e.kind === 'packageReference' && e.version === '2.1.0'));
    const capped = graphAround(ws.graph, ['src/Domain/Domain.csproj'], { depth: 5, direction: 'dependents', includePackages: false, maxNodes: 2, maxEdges: 50 });
    assert.equal(capped.nodes.length, 2);
    assert.equal(capped.cut.nodes, 3);
    assert.ok(capped.edges.every((e) => capped.nodes.some((n) => n.id === e.from) && capped.nodes.some((n) => n.id === e.to)));
  });

  it('projects containing a file, with target frameworks', () => {
    const r = projectsContaining(ws.graph, 'src/Domain/Order.cs');
    assert.deepEqual(r.map((c) => [c.project.id, c.targetFrameworks]), [['src/Domain/Domain.csproj', ['net8.0']]]);
    assert.deepEqual(projectsContaining(ws.graph, 'nowhere.cs'), []);
  });

  it('shortest dependency paths: every shortest one, none when unreachable', () => {
    const r = dependencyPaths(ws.graph, 'src/Tests/Tests.csproj', 'src/Domain/Domain.csproj', 10);
    assert.equal(r.length, 3);
    assert.deepEqual(r.paths.map((p) => p.join(' > ')).sort(), [
      'src/Tests/Tests.csproj > src/App/App.csproj > src/Api/Api.csproj > src/Domain/Domain.csproj',
      'src/Tests/Tests.csproj > src/App/App.csproj > src/Infra/Infra.csproj > src/Domain/Domain.csproj',
    ]);
    const one = dependencyPaths(ws.graph, 'src/Tests/Tests.csproj', 'src/Domain/Domain.csproj', 1);
    assert.equal(one.paths.length, 1);
    assert.equal(one.truncated, true);
    assert.deepEqual(dependencyPaths(ws.graph, 'src/Domain/Domain.csproj', 'src/App/App.csproj', 10), { paths: [], truncated: false });
  });

  it('projects under a folder prefix and lookup by name', () => {
    assert.deepEqual(projectsUnder(ws.graph, 'src/A').map((p) => p.id), []);
    assert.deepEqual(projectsUnder(ws.graph, 'src/App/').map((p) => p.id), ['src/App/App.csproj']);
    assert.equal(projectsUnder(ws.graph, 'src').length, 5);
    assert.deepEqual(findProjects(ws.graph, 'infra').map((p) => p.id), ['src/Infra/Infra.csproj']);
    assert.equal(ws.project('src/Tests/Tests.csproj').isTest, true);
  });
});
