/**
 * The LSP backend against the REAL csharp-ls on a restored copy of the multi-project fixture
 * (src/Geometry, src/App, tests/Geometry.Tests, a linked shared/Units.cs). Expected locations were
 * checked by hand against the fixture sources (1-based line:column of the identifier).
 */
import * as assert from 'node:assert/strict';
import { LspProvider } from '../../../server/src/semantic/lsp/lspProvider';
import { SemanticRegistry } from '../../../server/src/semantic/registry';
import type { OpArgs, OpResult, SemanticOp } from '../../../server/src/semantic/provider';
import type { HierarchyItem } from '../../../server/src/semantic/types';
import { skipWithoutCsharpLs } from '../../helpers/csharpLs';
import { alive, at, ats, copyFixture, percentile, pos, removeDir, restoreCSharp, waitFor } from './fixture';

describe('semantic: csharp-ls (real server)', function () {
  this.timeout(240_000);
  let dir: string;
  let provider: LspProvider;
  let registry: SemanticRegistry;
  let startedAt = 0;
  let firstPreciseMs = 0;

  const ask = <K extends SemanticOp>(op: K, args: OpArgs<K>, deadlineMs = 30_000) =>
    registry.request(op, 'csharp', args, { deadlineMs, waitForReadyMs: deadlineMs });
  const value = async <K extends SemanticOp>(op: K, args: OpArgs<K>): Promise<OpResult<K>> => {
    const a = await ask(op, args);
    assert.ok(a.value, `${op} answered ${a.mode}: ${a.reason}`);
    return a.value;
  };

  before(function () {
    skipWithoutCsharpLs(this);
    dir = copyFixture('csharp');
    restoreCSharp(dir);
    provider = new LspProvider({ root: dir, csharp: { solution: 'Shapes.sln' }, idleStopMs: 0 });
    registry = new SemanticRegistry();
    registry.register(provider, 'lsp');
  });

  after(async function () {
    if (!provider) return;
    const pid = provider.serverForLanguage('csharp')?.status().pid;
    await registry.dispose();
    if (pid !== undefined) assert.ok(await waitFor(() => !alive(pid), 5_000), 'csharp-ls is still running after dispose');
    removeDir(dir);
  });

  it('reports loading while csharp-ls loads the solution, then the first precise answer', async () => {
    assert.equal(provider.availability('csharp').started, false);
    startedAt = Date.now();
    // An impatient caller gets a labelled answer at once instead of waiting for the load.
    const early = await registry.request('definition', 'csharp', pos('src/App/Program.cs:10:33'), { waitForReadyMs: 0 });
    assert.equal(early.mode, 'unavailable_no_precise');
    assert.equal(early.attempts[0]?.outcome, 'loading');
    assert.match(early.reason ?? '', /csharp-ls/);
    assert.equal(provider.availability('csharp').state, 'loading');

    const a = await ask('definition', pos('src/App/Program.cs:10:33'), 120_000);
    firstPreciseMs = Date.now() - startedAt;
    assert.equal(a.mode, 'precise');
    assert.deepEqual(ats(a.value!), ['src/Geometry/ShapeMath.cs:5:21']);
    const av = provider.availability('csharp');
    assert.equal(av.state, 'ready');
    assert.deepEqual(av.progress, { done: 3, total: 3 });
    const st = provider.serverForLanguage('csharp')!.status();
    console.log(`      csharp-ls: ready after ${st.readyAfterMs} ms; first precise answer ${firstPreciseMs} ms after the first request`);
  });

  it('definition of a partial class returns every declaration span', async () => {
    const defs = await value('definition', pos('src/App/Program.cs:9:60'));
    // `new Square(2)` binds to the constructor; the type name itself has both partial parts.
    assert.deepEqual(ats(defs), ['src/Geometry/Square.cs:5:12']);
    const parts = await value('definition', pos('src/App/ReportBuilder.cs:11:26'));
    assert.deepEqual(ats(parts), ['src/Geometry/Square.cs:5:12']);
    const typeParts = await value('definition', pos('src/Geometry/Square.cs:3:22'));
    assert.deepEqual(ats(typeParts), ['src/Geometry/Square.Metrics.cs:5:22', 'src/Geometry/Square.cs:3:22']);
  });

  it('definition across projects: an extension method and a generic method', async () => {
    assert.deepEqual(ats(await value('definition', pos('src/App/Program.cs:11:35'))), ['src/Geometry/ShapeExtensions.cs:5:26']);
    assert.deepEqual(ats(await value('definition', pos('tests/Geometry.Tests/CircleTests.cs:13:57'))), ['src/Geometry/ShapeExtensions.cs:5:26']);
    assert.deepEqual(ats(await value('definition', pos('src/App/ReportBuilder.cs:10:43'))), ['src/Geometry/ShapeMath.cs:15:26']);
  });

  it('references of a class span production and test projects', async () => {
    const a = await ask('references', { ...pos('src/Geometry/Circle.cs:3:21'), includeDeclaration: false });
    assert.equal(a.mode, 'precise');
    assert.deepEqual(ats(a.value!), [
      'src/App/Program.cs:9:45',
      'tests/Geometry.Tests/CircleTests.cs:13:47',
      'tests/Geometry.Tests/CircleTests.cs:9:26',
    ]);
    const withDecl = await value('references', { ...pos('src/Geometry/Circle.cs:3:21'), includeDeclaration: true });
    assert.ok(ats(withDecl).includes('src/Geometry/Circle.cs:3:21'));
    assert.equal(withDecl.find((r) => at(r) === 'src/Geometry/Circle.cs:3:21')?.isDeclaration, true);
  });

  it('references of an override are its own, not the interface cascade', async () => {
    // csharp-ls returns every use of IShape.Area for Circle.Area; only circle.Area() is Circle's.
    const own = await value('references', { ...pos('src/Geometry/Circle.cs:9:28'), includeDeclaration: false });
    assert.deepEqual(ats(own), ['tests/Geometry.Tests/CircleTests.cs:10:32']);
    const withRelated = await value('references', { ...pos('src/Geometry/Circle.cs:9:28'), includeDeclaration: false, includeRelated: true });
    assert.equal(withRelated.length, 5);
    assert.deepEqual(ats(withRelated.filter((r) => !r.related)), ['tests/Geometry.Tests/CircleTests.cs:10:32']);
  });

  it('references of an interface member are the calls through the interface', async () => {
    const refs = await value('references', { ...pos('src/Geometry/IShape.cs:6:12'), includeDeclaration: false });
    assert.deepEqual(ats(refs), [
      'src/Geometry/ShapeExtensions.cs:5:89',
      'src/Geometry/ShapeMath.cs:10:35',
      'src/Geometry/ShapeMath.cs:10:49',
      'src/Geometry/ShapeMath.cs:15:85',
    ]);
  });

  it('references of an extension method and a generic method across projects', async () => {
    const describe = await value('references', { ...pos('src/Geometry/ShapeExtensions.cs:5:26'), includeDeclaration: false });
    assert.deepEqual(ats(describe), ['src/App/Program.cs:11:35', 'tests/Geometry.Tests/CircleTests.cs:13:57']);
    const largest = await value('references', { ...pos('src/Geometry/ShapeMath.cs:5:21'), includeDeclaration: true });
    assert.deepEqual(ats(largest), ['src/App/Program.cs:10:33', 'src/Geometry/ShapeMath.cs:5:21']);
  });

  it('implementations of an interface are its implementors and derived classes', async () => {
    const impl = await value('implementation', pos('src/Geometry/IShape.cs:4:18'));
    assert.deepEqual(ats(impl), [
      'src/Geometry/Circle.cs:3:21',
      'src/Geometry/Shape.cs:4:23',
      'src/Geometry/Square.Metrics.cs:5:22',
      'src/Geometry/Square.cs:3:22',
      'src/Geometry/Triangle.cs:3:14',
    ]);
  });

  it('implementations of an interface member include the overrides below it', async () => {
    const impl = await value('implementation', pos('src/Geometry/IShape.cs:6:12'));
    assert.deepEqual(ats(impl), [
      'src/Geometry/Circle.cs:9:28',
      'src/Geometry/Shape.cs:6:28',
      'src/Geometry/Square.cs:9:28',
      'src/Geometry/Triangle.cs:11:19',
    ]);
  });

  it('implementations of an abstract member are its overrides (csharp-ls gives none)', async () => {
    const a = await ask('implementation', pos('src/Geometry/Shape.cs:6:28'));
    assert.equal(a.mode, 'precise');
    assert.deepEqual(ats(a.value!), ['src/Geometry/Circle.cs:9:28', 'src/Geometry/Square.cs:9:28']);
    // A protected abstract member overridden in a partial part.
    const perimeter = await value('implementation', pos('src/Geometry/Shape.cs:12:31'));
    assert.deepEqual(ats(perimeter), ['src/Geometry/Circle.cs:13:31', 'src/Geometry/Square.Metrics.cs:9:31']);
    // A sealed override has none.
    assert.deepEqual(await value('implementation', pos('src/Geometry/Circle.cs:9:28')), []);
  });

  it('callers across projects', async () => {
    const [item] = await value('prepareCallHierarchy', pos('src/Geometry/ShapeMath.cs:15:26'));
    assert.ok(item);
    assert.equal(item.name, 'TotalArea(IEnumerable<IShape>)');
    assert.equal(item.detail, 'Geometry.ShapeMath');
    const calls = await ask('incomingCalls', item);
    assert.equal(calls.mode, 'precise');
    assert.deepEqual(
      calls.value!.map((c) => `${c.from.name} ${c.from.path} @${c.sites.map((s) => `${s.line}:${s.column}`).join(',')}`),
      ['Build(IEnumerable<IShape>) src/App/ReportBuilder.cs @10:43'],
    );
  });

  it('callers of an override are labelled partial: calls through the interface are missed', async () => {
    const [item] = await value('prepareCallHierarchy', pos('src/Geometry/Circle.cs:9:28'));
    const calls = await ask('incomingCalls', item!);
    assert.equal(calls.mode, 'precise_partial');
    assert.match(calls.gaps[0] ?? '', /through interface or base members/);
    assert.deepEqual(calls.value!.map((c) => `${c.from.name} ${c.from.path}`), ['AreaOfUnitCircleIsPi() tests/Geometry.Tests/CircleTests.cs']);
  });

  it('callees of a method', async () => {
    const [item] = await value('prepareCallHierarchy', pos('src/App/ReportBuilder.cs:8:26'));
    const calls = await value('outgoingCalls', item!);
    const names = calls.map((c) => `${c.to.name}@${c.to.path}`);
    assert.ok(names.includes('TotalArea(IEnumerable<IShape>)@src/Geometry/ShapeMath.cs'), names.join(', '));
    assert.ok(names.includes('Diagonal()@src/Geometry/Square.Metrics.cs'), names.join(', '));
  });

  it('type hierarchy: supertypes and direct subtypes', async () => {
    const [circle] = await value('prepareTypeHierarchy', pos('src/Geometry/Circle.cs:3:21'));
    const supers = await value('supertypes', circle!);
    assert.deepEqual(supers.map((t) => `${t.name} ${at(t)}`), ['Shape src/Geometry/Shape.cs:4:23']);
    const shapeSupers = await value('supertypes', supers[0]!);
    assert.deepEqual(shapeSupers.map((t) => t.name), ['IShape']);
    const [ishape] = await value('prepareTypeHierarchy', pos('src/Geometry/IShape.cs:4:18'));
    assert.deepEqual((await value('subtypes', ishape!)).map((t) => t.name).sort(), ['Shape', 'Triangle']);
    const shapeSubs = await value('subtypes', supers[0]!);
    assert.deepEqual(shapeSubs.map((t) => t.name).sort(), ['Circle', 'Square']);
    // The partial Square is one item with its second declaration attached.
    const square = shapeSubs.find((t) => t.name === 'Square')!;
    assert.deepEqual([at(square), ...ats(square.partials ?? [])].sort(), ['src/Geometry/Square.Metrics.cs:5:22', 'src/Geometry/Square.cs:3:22']);
  });

  it('an item from another provider is prepared again by position', async () => {
    const foreign: HierarchyItem = { path: 'src/Geometry/ShapeMath.cs', line: 15, column: 26, endLine: 15, endColumn: 35, name: 'TotalArea', kind: 'method', origin: 'heuristic' };
    const calls = await value('incomingCalls', foreign);
    assert.deepEqual(calls.map((c) => c.from.path), ['src/App/ReportBuilder.cs']);
  });

  it('document and workspace symbols', async () => {
    const outline = await value('documentSymbols', { path: 'src/Geometry/Square.cs' });
    const names: string[] = [];
    const walk = (n: typeof outline) => n.forEach((s) => (names.push(`${s.kind}:${s.name}`), walk(s.children)));
    walk(outline);
    assert.ok(names.includes('class:Square'), names.join(', '));
    assert.ok(names.includes('method:Area()'), names.join(', '));
    const syms = await value('workspaceSymbols', { query: 'TotalArea' });
    assert.deepEqual(syms.map((s) => at(s.location)), ['src/Geometry/ShapeMath.cs:15:26']);
  });

  it('a linked file (in two projects) is reported unavailable, not empty', async () => {
    const a = await ask('references', { ...pos('shared/Units.cs:5:26'), includeDeclaration: true });
    assert.equal(a.mode, 'unavailable_no_precise');
    assert.match(a.reason ?? '', /shared\/Units\.cs/);
    assert.match(a.reason ?? '', /linked file/);
    // The same symbol asked from a file with one project works.
    const from = await value('references', { ...pos('src/App/ReportBuilder.cs:10:27'), includeDeclaration: false });
    assert.ok(ats(from).includes('src/App/ReportBuilder.cs:10:27'));
  });

  it('a position on whitespace answers an empty precise result', async () => {
    const a = await ask('definition', pos('src/App/Program.cs:2:1'));
    assert.equal(a.mode, 'precise');
    assert.deepEqual(a.value, []);
  });

  it('an edited file is re-sent before the next request', async () => {
    const fs = await import('node:fs');
    const path = await import('node:path');
    const file = path.join(dir, 'src/App/Program.cs');
    const original = fs.readFileSync(file, 'utf8');
    // Insert two lines above Main: the call to Largest moves from line 10 to line 12.
    fs.writeFileSync(file, original.replace('    public static int Main()', '    // moved\n    // down\n    public static int Main()'));
    try {
      const defs = await value('definition', pos('src/App/Program.cs:12:33'));
      assert.deepEqual(ats(defs), ['src/Geometry/ShapeMath.cs:5:21']);
    } finally {
      fs.writeFileSync(file, original);
    }
    assert.deepEqual(ats(await value('definition', pos('src/App/Program.cs:10:33'))), ['src/Geometry/ShapeMath.cs:5:21']);
  });

  it('latency: definition and references (warm)', async () => {
    const defMs: number[] = [];
    const refMs: number[] = [];
    const provMs: number[] = [];
    for (let i = 0; i < 20; i++) {
      const a = await ask('definition', pos('src/App/Program.cs:10:33'));
      defMs.push(a.elapsedMs);
      provMs.push(a.attempts[0]!.elapsedMs);
      const r = await ask('references', { ...pos('src/Geometry/Circle.cs:9:28'), includeDeclaration: false });
      refMs.push(r.elapsedMs);
    }
    console.log(
      `      csharp-ls warm latency (n=20): definition p50 ${percentile(defMs, 50)} ms p95 ${percentile(defMs, 95)} ms; ` +
        `references (cascade-filtered) p50 ${percentile(refMs, 50)} ms p95 ${percentile(refMs, 95)} ms`,
    );
    assert.ok(percentile(defMs, 95) < 1_000);
    assert.ok(percentile(refMs, 95) < 3_000);
  });

  it('a server killed mid-request gives a labelled answer, and the next one is precise again', async () => {
    const server = provider.serverForLanguage('csharp')!;
    const pid = server.status().pid!;
    assert.ok(pid > 0);
    const pending = ask('references', { ...pos('src/Geometry/IShape.cs:4:18'), includeDeclaration: true });
    // Kill after the request is on its way.
    await new Promise((r) => setImmediate(r));
    process.kill(pid, 'SIGKILL');
    const a = await pending;
    assert.equal(a.mode, 'unavailable_no_precise');
    assert.equal(a.attempts[0]?.outcome, 'error');
    assert.match(a.reason ?? '', /csharp-ls exited \(signal SIGKILL\)/);
    assert.equal(provider.availability('csharp').state, 'failed');

    const restartStart = Date.now();
    const again = await ask('definition', pos('src/App/Program.cs:10:33'), 120_000);
    assert.equal(again.mode, 'precise');
    assert.deepEqual(ats(again.value!), ['src/Geometry/ShapeMath.cs:5:21']);
    const st = server.status();
    assert.equal(st.restarts, 1);
    assert.notEqual(st.pid, pid);
    console.log(`      csharp-ls restart after SIGKILL: precise again after ${Date.now() - restartStart} ms`);
  });

  it('doctor lists csharp-ls: found, version, ready', async () => {
    const rows = await provider.doctor();
    const cs = rows.find((r) => r.id === 'csharp')!;
    assert.equal(cs.found, true);
    assert.match(cs.version ?? '', /^0\.\d+\./);
    assert.equal(cs.state, 'ready');
    const ts = rows.find((r) => r.id === 'typescript')!;
    assert.equal(ts.found, true);
    assert.match(ts.version ?? '', /^\d+\.\d+\.\d+/);
    assert.equal(ts.state, 'stopped');
  });
});
