/**
 * The Roslyn oracle itself (test/oracle/tool: MSBuildWorkspace + SymbolFinder), on a restored copy
 * of the multi-project semantic fixture: its ground truth must be what the fixture's sources say
 * (the expected locations were checked by hand, the same ones the csharp-ls tests use), and the
 * scorer must count what it is given.
 */
import * as assert from 'node:assert/strict';
import { copyFixture, removeDir, restoreCSharp } from '../semantic/fixture';
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
    { id: 'nothing-there', op: 'definition', path: 'src/Geometry/Circle.cs', line: 999, column: 1 },
  ];
  const items = (id: string) => {
    const a = r.answers.find((x) => x.id === id)!;
    assert.ok(a.items, `${id}: ${a.error}`);
    return a.items.map((i) => `${i.path}:${i.line}:${i.column}`).sort();
  };

  before(function () {
    dir = copyFixture('csharp');
    restoreCSharp(dir);
    r = runOracle({ root: dir, solution: 'Shapes.sln', questions });
  });
  after(() => removeDir(dir));

  it('loads every project of the solution', () => {
    assert.equal(r.projects, 3);
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
});
