/**
 * The Roslyn host provider through the engine (real host from roslyn/out/host, real project
 * model, real index) on a restored copy of the multi-project fixture (src/Geometry, src/App,
 * tests/Geometry.Tests, a linked shared/Units.cs) plus bad input: a generated partial under obj/,
 * an analyzer project referenced but never built, a file outside every project, a deleted file,
 * a saved edit, a killed host. Expected locations are the fixture's (checked against csharp-ls's
 * test and by hand; 1-based line:column of the identifier).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { disposeSemanticService, semanticService, type SemanticService } from '../../../server/src/nav/semanticService';
import { locateRoslynHost, findDotnet } from '../../../server/src/semantic/roslyn/roslynHost';
import type { OpArgs, OpResult, SemanticOp } from '../../../server/src/semantic/provider';
import type { SemanticAnswer } from '../../../server/src/semantic/registry';
import { alive, ats, copyFixture, pos, removeDir, restoreCSharp, waitFor } from './fixture';

describe('semantic: Roslyn host provider (real host, real project model)', function () {
  this.timeout(300_000);
  let dir: string;
  let engine: Engine;
  let svc: SemanticService;
  let firstPreciseMs = 0;

  const ask = <K extends SemanticOp>(op: K, args: OpArgs<K>, deadlineMs = 60_000): Promise<SemanticAnswer<OpResult<K>>> =>
    svc.request(op, 'csharp', args, { deadlineAt: Date.now() + deadlineMs, waitForReadyMs: deadlineMs });
  const value = async <K extends SemanticOp>(op: K, args: OpArgs<K>): Promise<OpResult<K>> => {
    const a = await ask(op, args);
    assert.equal(a.mode, 'precise', `${op} answered ${a.mode}: ${a.reason ?? ''} ${a.gaps.join('; ')}`);
    assert.equal(a.provider, 'roslyn');
    return a.value!;
  };

  before(async function () {
    const host = locateRoslynHost();
    if (!host.ok) {
      // CI builds the host in npm install; a machine with dotnet but no host is a broken install.
      if (findDotnet()) throw new Error(`dotnet is installed but ${host.reason}; run node scripts/build-roslyn-host.mjs`);
      this.skip();
    }
    dir = copyFixture('csharp');
    // Bad input beside the good: an analyzer project every project references but nobody built,
    // a source generator's output under obj/ (as EmitCompilerGeneratedFiles leaves it), a stray file.
    fs.mkdirSync(path.join(dir, 'src/Analyzers'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src/Analyzers/Analyzers.csproj'), '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>netstandard2.0</TargetFramework></PropertyGroup></Project>\n');
    fs.writeFileSync(path.join(dir, 'src/Analyzers/Rule.cs'), 'namespace Analyzers;\npublic static class Rule { }\n');
    const props = path.join(dir, 'Directory.Build.props');
    fs.writeFileSync(
      props,
      fs
        .readFileSync(props, 'utf8')
        .replace(
          '</Project>',
          `  <ItemGroup Condition="'$(MSBuildProjectName)' != 'Analyzers'">\n    <ProjectReference Include="$(MSBuildThisFileDirectory)src/Analyzers/Analyzers.csproj" OutputItemType="Analyzer" ReferenceOutputAssembly="false" />\n  </ItemGroup>\n</Project>`,
        ),
    );
    fs.writeFileSync(path.join(dir, 'Stray.cs'), 'public class Stray { }\n');
    // An attribute used by its short name only: no file of App names `AuditedAttribute`.
    fs.writeFileSync(path.join(dir, 'src/Geometry/AuditedAttribute.cs'), 'namespace Geometry;\npublic sealed class AuditedAttribute : System.Attribute { }\n');
    // A member calling Circle.Area both directly and through IShape: one caller row with both sites.
    fs.writeFileSync(path.join(dir, 'src/App/Both.cs'), 'namespace App;\npublic static class Both\n{\n    public static double Twice(Geometry.Circle c) => c.Area() + ((Geometry.IShape)c).Area();\n}\n');
    fs.writeFileSync(path.join(dir, 'src/App/Audit.cs'), 'namespace App;\n[Geometry.Audited]\npublic class AuditedThing { }\n');
    restoreCSharp(dir);
    const gen = path.join(dir, 'src/Geometry/obj/Debug/net10.0/generated/Fake.Generator/Square.Generated.g.cs');
    fs.mkdirSync(path.dirname(gen), { recursive: true });
    fs.writeFileSync(gen, 'namespace Geometry;\n\npublic partial class Square\n{\n    public double Generated() => 1;\n}\n');
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
    // By need only here (what each question loads is asserted); the background start has its own test.
    svc = semanticService(engine, { csharpProvider: 'roslyn', roslynPrewarm: false });
    assert.equal(svc.csharpBackend.choice, 'roslyn');
  });

  after(async function () {
    if (!engine) return;
    const pid = svc.roslyn?.host.status().pid;
    await disposeSemanticService(engine);
    await engine.close();
    if (pid !== undefined) assert.ok(await waitFor(() => !alive(pid), 5_000), 'the Roslyn host is still running after dispose');
    removeDir(dir);
  });

  it('first precise answer: definition across projects, loading only the position project and its references', async () => {
    const t0 = Date.now();
    const a = await ask('definition', pos('src/App/Program.cs:10:33'));
    firstPreciseMs = Date.now() - t0;
    assert.equal(a.mode, 'precise', a.reason);
    assert.equal(a.provider, 'roslyn');
    assert.deepEqual(ats(a.value!), ['src/Geometry/ShapeMath.cs:5:21']);
    // App and Geometry only: the test project is not needed for a definition.
    assert.deepEqual([...svc.roslyn!.ensuredKeys()].sort(), ['src/App/App.csproj|net10.0', 'src/Geometry/Geometry.csproj|net10.0']);
    const st = svc.roslyn!.host.status();
    console.log(`      host ready after ${st.readyAfterMs} ms; first precise answer ${firstPreciseMs} ms after the first question (cold host)`);
  });

  it('the unbuilt analyzer project is dropped and reported, never failing a question', () => {
    const unresolved = svc.roslyn!.unresolvedOf('src/App/App.csproj|net10.0');
    assert.ok(unresolved.some((u) => u.kind === 'analyzer' && /Analyzers\.dll/.test(u.name)), JSON.stringify(unresolved));
  });

  it('definition of a partial type lists every part, the generated one under obj/ included', async () => {
    const parts = await value('definition', pos('src/Geometry/Square.cs:3:22'));
    assert.deepEqual(ats(parts), ['src/Geometry/Square.Metrics.cs:5:22', 'src/Geometry/Square.cs:3:22', 'src/Geometry/obj/Debug/net10.0/generated/Fake.Generator/Square.Generated.g.cs:3:22'].sort());
    assert.deepEqual(ats(await value('definition', pos('src/App/Program.cs:11:35'))), ['src/Geometry/ShapeExtensions.cs:5:26']);
    assert.deepEqual(ats(await value('definition', pos('src/App/ReportBuilder.cs:10:43'))), ['src/Geometry/ShapeMath.cs:15:26']);
  });

  it('references of a class span production and test projects (uses through its constructor included)', async () => {
    const a = await ask('references', { ...pos('src/Geometry/Circle.cs:3:21'), includeDeclaration: false });
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    assert.deepEqual(ats(a.value!), ['src/App/Both.cs:4:41', 'src/App/Program.cs:9:45', 'tests/Geometry.Tests/CircleTests.cs:13:47', 'tests/Geometry.Tests/CircleTests.cs:9:26']);
    assert.ok(svc.roslyn!.ensuredKeys().has('tests/Geometry.Tests/Geometry.Tests.csproj|net10.0'));
    const withDecl = await value('references', { ...pos('src/Geometry/Circle.cs:3:21'), includeDeclaration: true });
    assert.ok(ats(withDecl).includes('src/Geometry/Circle.cs:3:21'));
  });

  it('references of an attribute class include its uses by the short name ([Audited])', async () => {
    assert.deepEqual(ats(await value('references', { ...pos('src/Geometry/AuditedAttribute.cs:2:21'), includeDeclaration: false })), ['src/App/Audit.cs:2:11']);
  });

  it('references of a member of a linked file: every project compiling the file is searched', async () => {
    const refs = await value('references', { ...pos('shared/Units.cs:5:26'), includeDeclaration: false });
    assert.deepEqual(ats(refs), ['src/App/ReportBuilder.cs:10:27', 'src/Geometry/Square.Metrics.cs:9:59']);
  });

  it('references of an override are its own; related rows only on request', async () => {
    const own = await value('references', { ...pos('src/Geometry/Circle.cs:9:28'), includeDeclaration: false });
    assert.deepEqual(ats(own), ['src/App/Both.cs:4:56', 'tests/Geometry.Tests/CircleTests.cs:10:32']);
    const withRelated = await value('references', { ...pos('src/Geometry/Circle.cs:9:28'), includeDeclaration: false, includeRelated: true });
    assert.ok(withRelated.length > own.length);
    assert.deepEqual(ats(withRelated.filter((r) => !r.related)), ['src/App/Both.cs:4:56', 'tests/Geometry.Tests/CircleTests.cs:10:32']);
  });

  it('implementations: implementors and derived types of an interface, overrides of an abstract member', async () => {
    assert.deepEqual(ats(await value('implementation', pos('src/Geometry/IShape.cs:6:12'))), ['src/Geometry/Circle.cs:9:28', 'src/Geometry/Shape.cs:6:28', 'src/Geometry/Square.cs:9:28', 'src/Geometry/Triangle.cs:11:19']);
    assert.deepEqual(ats(await value('implementation', pos('src/Geometry/Shape.cs:6:28'))), ['src/Geometry/Circle.cs:9:28', 'src/Geometry/Square.cs:9:28']);
    assert.deepEqual(ats(await value('implementation', pos('src/Geometry/Shape.cs:12:31'))), ['src/Geometry/Circle.cs:13:31', 'src/Geometry/Square.Metrics.cs:9:31']);
  });

  it('callers across projects, and callers through the interface are included (precise, not partial)', async () => {
    const [total] = await value('prepareCallHierarchy', pos('src/Geometry/ShapeMath.cs:15:26'));
    assert.equal(total!.name, 'TotalArea');
    assert.equal(total!.detail, 'Geometry.ShapeMath');
    const calls = await value('incomingCalls', total!);
    assert.deepEqual(calls.map((c) => `${c.from.name} ${c.from.path} @${c.sites.map((s) => `${s.line}:${s.column}`).join(',')}`), ['Build src/App/ReportBuilder.cs @10:43']);
    const [area] = await value('prepareCallHierarchy', pos('src/Geometry/Circle.cs:9:28'));
    const areaCalls = await value('incomingCalls', area!);
    const callers = areaCalls.map((c) => `${c.from.name} ${c.from.path}`).sort();
    // csharp-ls finds only the direct call; the host adds the calls through IShape.Area / Shape.Area.
    assert.ok(callers.includes('AreaOfUnitCircleIsPi tests/Geometry.Tests/CircleTests.cs'), callers.join('; '));
    // Circle.Area overrides Shape.Area, which implements IShape.Area: calls through IShape.Area reach it.
    assert.ok(callers.includes('TotalArea src/Geometry/ShapeMath.cs'), callers.join('; '));
    // One row per calling member, whatever it called through.
    assert.equal(new Set(callers).size, callers.length, callers.join('; '));
    assert.deepEqual(areaCalls.filter((c) => c.from.name === 'Twice').map((c) => c.sites.map((x) => `${x.line}:${x.column}`).sort()), [['4:56', '4:86']]);
    const [shapeArea] = await value('prepareCallHierarchy', pos('src/Geometry/Shape.cs:6:28'));
    const through = (await value('incomingCalls', shapeArea!)).map((c) => `${c.from.name} ${c.from.path}`).sort();
    console.log('      callers of Circle.Area: ' + callers.join('; ') + ' | of Shape.Area: ' + through.join('; '));
    assert.ok(through.some((c) => c.startsWith('TotalArea ') || c.startsWith('Largest ') || c.startsWith('Describe ')), through.join('; '));
  });

  it('callees and the type hierarchy', async () => {
    const [build] = await value('prepareCallHierarchy', pos('src/App/ReportBuilder.cs:8:26'));
    const names = (await value('outgoingCalls', build!)).map((c) => `${c.to.name}@${c.to.path}`);
    assert.ok(names.includes('TotalArea@src/Geometry/ShapeMath.cs'), names.join(', '));
    assert.ok(names.includes('Diagonal@src/Geometry/Square.Metrics.cs'), names.join(', '));
    const [circle] = await value('prepareTypeHierarchy', pos('src/Geometry/Circle.cs:3:21'));
    assert.deepEqual((await value('supertypes', circle!)).map((t) => `${t.name} ${t.path}:${t.line}:${t.column}`), ['Shape src/Geometry/Shape.cs:4:23']);
    const [ishape] = await value('prepareTypeHierarchy', pos('src/Geometry/IShape.cs:4:18'));
    assert.deepEqual((await value('subtypes', ishape!)).map((t) => t.name).sort(), ['Shape', 'Triangle']);
  });

  it('a position outside every project is a labelled heuristic answer; the next question works', async () => {
    const a = await ask('definition', pos('Stray.cs:1:14'));
    assert.notEqual(a.mode, 'precise');
    assert.match(a.reason ?? '', /roslyn: Stray\.cs is compiled by no C# project/);
    assert.deepEqual(ats(await value('definition', pos('src/App/Program.cs:10:33'))), ['src/Geometry/ShapeMath.cs:5:21']);
  });

  it('a saved edit is reflected in the next answer (the watcher pushes it to the host)', async () => {
    engine.watch(50);
    const file = path.join(dir, 'src/App/Program.cs');
    const before = fs.readFileSync(file, 'utf8');
    const refs0 = await value('references', { ...pos('src/Geometry/ShapeMath.cs:5:21'), includeDeclaration: false });
    fs.writeFileSync(file, before.replace(/\n$/, '') + '\nstatic class Extra { static void M() => Geometry.ShapeMath.Largest(new[] { 1, 2 }); }\n');
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const line = lines.findIndex((l) => l.includes('static class Extra')) + 1;
    await waitFor(() => false, 400);
    const refs1 = await value('references', { ...pos('src/Geometry/ShapeMath.cs:5:21'), includeDeclaration: false });
    assert.equal(refs1.length, refs0.length + 1, ats(refs1).join(', '));
    assert.ok(ats(refs1).some((r) => r.startsWith(`src/App/Program.cs:${line}:`)), ats(refs1).join(', '));
    fs.writeFileSync(file, before);
  });

  it('a rebuilt generator output under obj/ is reflected in the next answer (the watcher tells the host)', async () => {
    engine.watch(50);
    await engine.watchReady();
    const gen = path.join(dir, 'src/Geometry/obj/Debug/net10.0/generated/Fake.Generator/Square.Generated.g.cs');
    const use = path.join(dir, 'src/Geometry/UsesGenerated.cs');
    const genBefore = fs.readFileSync(gen, 'utf8');
    const usage = 'public static class UsesGenerated { public static double M(Square s) => s.Generated(); }';
    const at = pos(`src/Geometry/UsesGenerated.cs:2:${usage.indexOf('Generated()') + 1}`);
    const definitionOfUse = async (want: string): Promise<string[]> => {
      let got: string[] = [];
      for (let i = 0; i < 50 && got[0] !== want; i++) {
        await waitFor(() => false, 100);
        const a = await ask('definition', at);
        got = a.mode === 'precise' ? ats(a.value!) : [];
      }
      return got;
    };
    const genPath = 'src/Geometry/obj/Debug/net10.0/generated/Fake.Generator/Square.Generated.g.cs';
    try {
      fs.writeFileSync(use, `namespace Geometry;\n${usage}\n`);
      assert.deepEqual(await definitionOfUse(`${genPath}:5:19`), [`${genPath}:5:19`], 'the use resolves into the generated part');
      // Only the generator output changes (a rebuild moves the member a line down).
      fs.writeFileSync(gen, genBefore.replace('    public double Generated() => 1;\n', '    // regenerated\n    public double Generated() => 1;\n'));
      assert.deepEqual(await definitionOfUse(`${genPath}:6:19`), [`${genPath}:6:19`]);
    } finally {
      fs.writeFileSync(gen, genBefore);
      fs.rmSync(use, { force: true });
    }
  });

  it('a deleted document is a labelled answer, not a crash', async () => {
    const file = path.join(dir, 'src/Geometry/Resizer.cs');
    fs.rmSync(file);
    svc.roslyn!.filesChanged(['src/Geometry/Resizer.cs']);
    const a = await ask('definition', pos('src/Geometry/Resizer.cs:1:1'));
    assert.notEqual(a.mode, 'precise');
    assert.ok(a.reason && a.reason.length > 0);
    assert.deepEqual(ats(await value('definition', pos('src/App/Program.cs:10:33'))), ['src/Geometry/ShapeMath.cs:5:21']);
  });

  it('a killed host restarts with backoff; the next question is precise again on one new process', async () => {
    const before = svc.roslyn!.host.status();
    process.kill(before.pid!, 'SIGKILL');
    assert.ok(await waitFor(() => svc.roslyn!.host.status().state === 'crashed', 5_000));
    const a = await ask('definition', pos('src/App/ReportBuilder.cs:10:43'));
    assert.equal(a.mode, 'precise', a.reason);
    assert.deepEqual(ats(a.value!), ['src/Geometry/ShapeMath.cs:15:26']);
    const after = svc.roslyn!.host.status();
    assert.equal(after.generation, before.generation + 1);
    assert.equal(after.restarts, before.restarts + 1);
    assert.notEqual(after.pid, before.pid);
  });
});
