/**
 * The Roslyn oracle itself (test/oracle/tool: MSBuildWorkspace + SymbolFinder), on a restored copy
 * of the multi-project semantic fixture: its ground truth must be what the fixture's sources say
 * (the expected locations were checked by hand, the same ones the csharp-ls tests use), and the
 * scorer must count what it is given.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { copyFixture, removeDir, restoreCSharp } from '../semantic/fixture';
import { copyTree, HARBOR_SOLUTION, restoreHarbor, ROSLYN_FIXTURE, UNSERVED_PACKAGE } from '../semantic/roslynFixture';
import { runOracle, score, type OracleResult, type Question } from '../../oracle/oracle';

describe('Roslyn oracle (real MSBuildWorkspace + SymbolFinder)', function () {
  this.timeout(600_000);
  let dir: string;
  let r: OracleResult;
  const questions: Question[] = [
    { id: 'def-partial', op: 'definition', path: 'src/Geometry/Square.cs', line: 3, column: 22 },
    { id: 'def-ctor', op: 'definition', path: 'src/App/Program.cs', line: 9, column: 60 },
    { id: 'def-linked', op: 'definition', path: 'src/App/ReportBuilder.cs', line: 10, column: 21 },
    { id: 'refs-class', op: 'references', path: 'src/Geometry/Circle.cs', line: 3, column: 21 },
    { id: 'refs-override', op: 'references', path: 'src/Geometry/Circle.cs', line: 9, column: 28 },
    { id: 'refs-interface-member', op: 'references', path: 'src/Geometry/IShape.cs', line: 6, column: 12 },
    { id: 'impl-interface', op: 'implementations', path: 'src/Geometry/IShape.cs', line: 4, column: 18 },
    { id: 'impl-interface-member', op: 'implementations', path: 'src/Geometry/IShape.cs', line: 6, column: 12 },
    { id: 'impl-abstract', op: 'implementations', path: 'src/Geometry/Shape.cs', line: 6, column: 28 },
    { id: 'callers-direct', op: 'callers', path: 'src/Geometry/ShapeMath.cs', line: 15, column: 26 },
    { id: 'callers-through-interface', op: 'callers', path: 'src/Geometry/Circle.cs', line: 9, column: 28 },
    { id: 'callers-of-interface-member', op: 'callers', path: 'src/Geometry/IShape.cs', line: 6, column: 12 },
    { id: 'nothing-there', op: 'definition', path: 'src/Geometry/Circle.cs', line: 999, column: 1 },
  ];
  const items = (id: string) => {
    const a = r.answers.find((x) => x.id === id)!;
    assert.ok(a.items, `${id}: ${a.error}`);
    return a.items.map((i) => `${i.path}:${i.line}:${i.column}`).sort();
  };

  before(function () {
    dir = copyFixture('csharp');
    // A project the solution leaves out (as MassTransit's tests/MassTransit.Benchmark): the engine
    // searches it, so --all-projects makes the oracle load it too.
    fs.mkdirSync(path.join(dir, 'tools/Probe'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'tools/Probe/Probe.csproj'), '<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n    <ProjectReference Include="../../src/Geometry/Geometry.csproj" />\n  </ItemGroup>\n</Project>\n');
    fs.writeFileSync(path.join(dir, 'tools/Probe/Probe.cs'), 'using Geometry;\n\nnamespace Probe;\n\npublic static class Run\n{\n    public static double Once() => new Triangle(1, 2).Area();\n}\n');
    restoreCSharp(dir);
    restoreCSharp(dir, 'tools/Probe/Probe.csproj');
    r = runOracle({ root: dir, solution: 'Shapes.sln', allProjects: true, questions });
  });
  after(() => removeDir(dir));

  it('loads every project of the solution, and with --all-projects the one it leaves out', () => {
    assert.equal(r.projects, 4);
    assert.ok(r.workspaceDiagnostics.includes('Added: tools/Probe/Probe.csproj (not in the solution)'), r.workspaceDiagnostics.join('\n'));
    assert.equal(r.answers.length, questions.length);
  });

  it('definition: both parts of a partial type, a constructor, a linked file', () => {
    assert.deepEqual(items('def-partial'), ['src/Geometry/Square.Metrics.cs:5:22', 'src/Geometry/Square.cs:3:22']);
    assert.deepEqual(items('def-ctor'), ['src/Geometry/Square.cs:5:12']);
    assert.deepEqual(items('def-linked'), ['shared/Units.cs:3:23']);
  });

  it("references: the symbol's own (new T() included, the interface cascade left out)", () => {
    assert.deepEqual(items('refs-class'), ['src/App/Program.cs:9:45', 'tests/Geometry.Tests/CircleTests.cs:13:47', 'tests/Geometry.Tests/CircleTests.cs:9:26']);
    assert.deepEqual(items('refs-override'), ['tests/Geometry.Tests/CircleTests.cs:10:32']);
    assert.deepEqual(items('refs-interface-member'), ['src/Geometry/ShapeExtensions.cs:5:89', 'src/Geometry/ShapeMath.cs:10:35', 'src/Geometry/ShapeMath.cs:10:49', 'src/Geometry/ShapeMath.cs:15:85']);
  });

  it('implementations: implementors and derived types, implementing members and overrides', () => {
    assert.deepEqual(items('impl-interface'), ['src/Geometry/Circle.cs:3:21', 'src/Geometry/Shape.cs:4:23', 'src/Geometry/Square.Metrics.cs:5:22', 'src/Geometry/Square.cs:3:22', 'src/Geometry/Triangle.cs:3:14']);
    assert.deepEqual(items('impl-interface-member'), ['src/Geometry/Circle.cs:9:28', 'src/Geometry/Shape.cs:6:28', 'src/Geometry/Square.cs:9:28', 'src/Geometry/Triangle.cs:11:19']);
    assert.deepEqual(items('impl-abstract'), ['src/Geometry/Circle.cs:9:28', 'src/Geometry/Square.cs:9:28']);
  });

  it('callers: direct, and through the interface member an override implements', () => {
    const direct = r.answers.find((x) => x.id === 'callers-direct')!;
    assert.deepEqual(direct.items, [{ path: 'src/App/ReportBuilder.cs', line: 8, column: 26, sites: [{ line: 10, column: 43 }] }]);
    const through = r.answers.find((x) => x.id === 'callers-through-interface')!;
    assert.deepEqual(items('callers-through-interface'), ['src/Geometry/ShapeExtensions.cs:5:26', 'src/Geometry/ShapeMath.cs:15:26', 'src/Geometry/ShapeMath.cs:5:21', 'tests/Geometry.Tests/CircleTests.cs:7:17']);
    assert.equal(through.items!.find((i) => i.path.startsWith('tests/'))!.via, undefined);
    assert.equal(through.items!.find((i) => i.path === 'src/Geometry/ShapeMath.cs' && i.line === 5)!.via, 'Geometry.IShape.Area()');
  });

  it("callers of an interface member include calls bound to its implementations (issue 23's 'through implementations')", () => {
    const a = r.answers.find((x) => x.id === 'callers-of-interface-member')!;
    assert.deepEqual(items('callers-of-interface-member'), ['src/Geometry/ShapeExtensions.cs:5:26', 'src/Geometry/ShapeMath.cs:15:26', 'src/Geometry/ShapeMath.cs:5:21', 'tests/Geometry.Tests/CircleTests.cs:7:17', 'tools/Probe/Probe.cs:7:26']);
    const via = (p: string) => a.items!.find((i) => i.path === p)!.via;
    assert.equal(via('src/Geometry/ShapeMath.cs'), undefined);
    assert.equal(via('tests/Geometry.Tests/CircleTests.cs'), 'Geometry.Circle.Area()');
    assert.equal(via('tools/Probe/Probe.cs'), 'Geometry.Triangle.Area()');
  });

  it('a position with no symbol is an error value, not a crash', () => {
    assert.match(r.answers.find((x) => x.id === 'nothing-there')!.error ?? '', /no symbol/);
  });

  it('the scorer counts precision and recall per op, only over files of the original tree', () => {
    const engine = questions.map((q) => {
      const a = r.answers.find((x) => x.id === q.id)!;
      const keys = (a.items ?? []).map((i) => `${i.path}:${i.line}:${i.column}`);
      // One wrong extra on refs-class; one missing on impl-interface; an extra in a file outside the tree is ignored.
      if (q.id === 'refs-class') keys.push('src/App/Program.cs:1:1', 'obj/Debug/x.AssemblyInfo.cs:3:1');
      if (q.id === 'impl-interface') keys.pop();
      return { id: q.id, op: q.op, mode: 'precise', items: keys, ms: 1 };
    });
    const files = new Set(r.answers.flatMap((a) => (a.items ?? []).map((i) => i.path)));
    files.add('src/App/Program.cs');
    const s = score(questions, r.answers, engine, files);
    const refs = s.ops.find((o) => o.op === 'references')!;
    assert.deepEqual([refs.truth, refs.answered, refs.tp], [8, 9, 8]);
    const impl = s.ops.find((o) => o.op === 'implementations')!;
    assert.deepEqual([impl.truth, impl.tp], [11, 10]);
    assert.equal(s.skipped.length, 1);
    assert.deepEqual(s.misses.map((m) => m.id).sort(), ['impl-interface', 'refs-class']);
  });

  it('the scorer counts a row the engine marked unbound apart: not against precision, toward recall only as found', () => {
    const engine = questions.map((q) => {
      const keys = (r.answers.find((x) => x.id === q.id)!.items ?? []).map((i) => `${i.path}:${i.line}:${i.column}`);
      // callers-direct: its one right row reported as unbound, plus a wrong unbound candidate
      if (q.id === 'callers-direct') return { id: q.id, op: q.op, mode: 'precise_partial', items: [...keys, 'src/App/Program.cs:7:23'], unbound: [keys[0]!, 'src/App/Program.cs:7:23'], ms: 1 };
      return { id: q.id, op: q.op, mode: 'precise', items: keys, ms: 1 };
    });
    const files = new Set(r.answers.flatMap((a) => (a.items ?? []).map((i) => i.path)));
    files.add('src/App/Program.cs');
    const callers = score(questions, r.answers, engine, files).ops.find((o) => o.op === 'callers')!;
    assert.deepEqual([callers.answered, callers.unbound, callers.unboundRight, callers.precision], [11, 2, 1, 1]);
    assert.equal(callers.recall, 1);
    assert.equal(callers.recallBound, 9 / 10);
  });
});

describe('Roslyn oracle on the Harbor host fixture (multi-targeting, linked file, generated part, unbuilt analyzer, unserved package)', function () {
  this.timeout(600_000);
  let dir: string;
  let r: OracleResult;
  const q = (id: string, op: Question['op'], at: string): Question => {
    const [p, line, column] = at.split(':');
    return { id, op, path: p!, line: Number(line), column: Number(column) };
  };
  const questions: Question[] = [
    q('def-generated-part', 'definition', 'src/Harbor.Text/ManifestParser.cs:9:33'),
    q('def-partial-across-files', 'definition', 'src/Harbor.Core/Ship.cs:3:22'),
    q('refs-linked', 'references', 'shared/Clock.cs:8:26'),
    q('refs-net10-only', 'references', 'src/Harbor.Core/ShipRepository.cs:18:16'),
    q('refs-in-unrestorable-project', 'references', 'src/Harbor.Net/RemoteRepository.cs:6:21'),
    q('impl-generic-interface', 'implementations', 'src/Harbor.Core/IRepository.cs:3:18'),
    q('impl-virtual', 'implementations', 'src/Harbor.Core/EntityBase.cs:11:24'),
    q('callers-through-base', 'callers', 'src/Harbor.Core/Tanker.cs:9:25'),
  ];
  const answer = (id: string) => {
    const a = r.answers.find((x) => x.id === id)!;
    assert.ok(a.items, `${id}: ${a.error}`);
    return a;
  };
  const items = (id: string) => answer(id).items!.map((i) => `${i.path}:${i.line}:${i.column}`).sort();

  before(function () {
    dir = copyTree(ROSLYN_FIXTURE, 'oracle-harbor');
    restoreHarbor(dir);
    r = runOracle({ root: dir, solution: HARBOR_SOLUTION, questions });
  });
  after(() => removeDir(dir));

  it('loads every project (two compilations for the multi-targeting one) and drops the unbuilt analyzer', () => {
    assert.equal(r.projects, 7);
    assert.ok(r.workspaceDiagnostics.some((d) => /Dropped: unresolved analyzer .*Harbor\.Analyzers\.dll of Harbor\.Core\(net8\.0\)/.test(d)), r.workspaceDiagnostics.join('\n'));
    assert.ok(r.workspaceDiagnostics.some((d) => d.includes(UNSERVED_PACKAGE)));
  });

  it('definition of a [GeneratedRegex] method includes the generated part (run by the generator), flagged with its hint name', () => {
    const a = answer('def-generated-part');
    const gen = 'src/Harbor.Text/obj/Debug/net10.0/generated/System.Text.RegularExpressions.Generator/System.Text.RegularExpressions.Generator.RegexGenerator/RegexGenerator.g.cs';
    assert.deepEqual(a.items, [
      { path: 'src/Harbor.Text/ManifestParser.cs', line: 9, column: 33 },
      { path: gen, line: 21, column: 76, generated: true, hint: 'RegexGenerator.g.cs' },
    ]);
    // The checked-in file is what the generator produces (same path, same position).
    assert.ok(fs.readFileSync(path.join(ROSLYN_FIXTURE, gen), 'utf8').split('\n')[20]!.includes('ContainerCode()'));
    assert.deepEqual(items('def-partial-across-files'), ['src/Harbor.Core/Ship.Cargo.cs:3:22', 'src/Harbor.Core/Ship.cs:3:22']);
  });

  it('references: a linked file in three compilations, a net10.0-only member, a project whose package is missing', () => {
    assert.equal(answer('refs-linked').symbol, 'Harbor.Shared.Clock.Stamp(string)');
    assert.deepEqual(items('refs-linked'), ['src/Harbor.App/Program.cs:18:33', 'src/Harbor.Core/Registry.cs:10:22']);
    assert.equal((answer('refs-linked') as { compilations?: number }).compilations, 3);
    assert.deepEqual(items('refs-net10-only'), []);
    assert.deepEqual(items('refs-in-unrestorable-project'), ['src/Harbor.App/Program.cs:13:26']);
  });

  it('implementations of a generic interface and of a virtual member', () => {
    assert.deepEqual(items('impl-generic-interface'), ['src/Harbor.Core/ShipRepository.cs:3:14', 'src/Harbor.Net/RemoteRepository.cs:6:21']);
    assert.deepEqual(items('impl-virtual'), ['src/Harbor.Core/Ship.Cargo.cs:11:25', 'src/Harbor.Core/Tanker.cs:9:25']);
  });

  it('callers through base members, without base.M() calls (they do not dispatch)', () => {
    assert.deepEqual(items('callers-through-base'), ['src/Harbor.App/Dock.cs:7:26', 'src/Harbor.Core/Registry.cs:13:23', 'src/Harbor.Core/ShipRepository.cs:18:16', 'tests/Harbor.Tests/ShipTests.cs:17:17']);
  });
});

describe("Roslyn oracle on the Lantern fixture (generators run in the oracle's compilations, framework and package symbols)", function () {
  this.timeout(600_000);
  let dir: string;
  let r: OracleResult;
  const questions: Question[] = [
    { id: 'impl-partial-with-generated-parts', op: 'implementations', path: 'src/Lantern.Multi/Relay.cs', line: 5, column: 18 },
    { id: 'def-generated-parts', op: 'definition', path: 'src/Lantern.Multi/Relay.cs', line: 10, column: 29 },
    { id: 'def-framework-type', op: 'definition', path: 'src/Lantern.Core/Fetcher.cs', line: 5, column: 29 },
  ];
  const answer = (id: string) => {
    const a = r.answers.find((x) => x.id === id)!;
    assert.ok(a?.items, `${id}: ${a?.error}`);
    return a;
  };

  before(function () {
    dir = copyTree(path.resolve(__dirname, '../../fixtures/lantern'), 'oracle-lantern');
    restoreCSharp(dir, 'Lantern.slnx');
    r = runOracle({ root: dir, solution: 'Lantern.slnx', questions, shapes: true });
  });
  after(() => removeDir(dir));

  it("implementations list a partial class once, at its hand-written part (its generated parts are definition's, not implementations)", () => {
    assert.deepEqual(answer('impl-partial-with-generated-parts').items, [{ path: 'src/Lantern.Multi/Relay.cs', line: 10, column: 29 }]);
    // the same class has a LoggerMessage part per framework (net10.0, net9.0): definition lists them
    const parts = answer('def-generated-parts').items!;
    assert.equal(parts.filter((i) => i.generated && i.hint === 'LoggerMessage.g.cs').length, 2, JSON.stringify(parts));
  });

  it('definition of a framework type is one metadata row: documentation id, name, assembly, version', () => {
    const [row, ...rest] = answer('def-framework-type').items!;
    assert.deepEqual(rest, []);
    assert.equal(row!.meta, 'T:System.Net.Http.HttpClient');
    assert.equal(row!.name, 'HttpClient');
    assert.equal((row as { assembly?: string }).assembly, 'System.Net.Http');
    assert.match((row as { version?: string }).version ?? '', /^\d+\.\d+\.\d+\.\d+$/);
  });

  it('--shapes samples the framework-and-package shapes under x ids: a package type definition, IDisposable implementations, a class implementing a package interface', () => {
    const x = r.questions.filter((q) => q.id.startsWith('x')).map((q) => `${q.op} ${q.path}:${q.line}:${q.column} ${q.note}`);
    assert.ok(x.includes('definition src/Lantern.Core/Fetcher.cs:5:46 Microsoft.Extensions.Logging.ILogger'), x.join('\n'));
    assert.ok(x.some((s) => s.startsWith('implementations ') && s.endsWith(' System.IDisposable')), x.join('\n'));
    assert.ok(x.includes('type_hierarchy src/Lantern.Core/QuietLogger.cs:5:14 Lantern.Core.QuietLogger'), x.join('\n'));
    const th = r.answers.find((a) => a.id === r.questions.find((q) => q.op === 'type_hierarchy' && q.path.endsWith('QuietLogger.cs'))!.id)!;
    assert.deepEqual(th.items!.map((i) => `${i.relation} ${i.meta ? `meta:${i.name}` : `${i.path}:${i.line}:${i.column}`}`).sort(), ['subtype src/Lantern.App/TaggedLogger.cs:3:21', 'supertype meta:ILogger', 'supertype meta:Object']);
    const impl = r.answers.find((a) => a.id === r.questions.find((q) => q.op === 'implementations' && q.note === 'System.IDisposable')!.id)!;
    assert.deepEqual(impl.items!.map((i) => `${i.path}:${i.line}:${i.column}`).sort(), ['src/Lantern.App/Cleanup.cs:3:21', 'src/Lantern.Core/Fetcher.cs:5:21']);
  });
});
