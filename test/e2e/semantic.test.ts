/**
 * The semantic tools over real stdio (`sextant mcp`, built dist/cli.js) on a restored copy of the
 * C# fixture, with the REAL csharp-ls behind them: the first answers are labelled heuristic while
 * csharp-ls loads, then precise; every tool, target form and bad input is exercised.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { skipWithoutCsharpLs } from '../helpers/csharpLs';
import { call, callError, connectStdio, type Connected } from '../helpers/mcpClient';
import { copyFixture, percentile, removeDir, restoreCSharp } from '../integration/semantic/fixture';

describe('MCP over stdio: semantic tools (real csharp-ls) @e2e', function () {
  this.timeout(300_000);
  let dir: string;
  let indexRoot: string;
  let c: Connected;
  let connectedAt = 0;

  before(async function () {
    skipWithoutCsharpLs(this);
    dir = copyFixture('csharp');
    restoreCSharp(dir);
    indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-sem-e2e-idx-'));
    connectedAt = Date.now();
    // csharp-ls behaviour is what these tests pin (the Roslyn host has its own: test/integration/semantic/roslynProvider.test.ts).
    c = await connectStdio(dir, indexRoot, ['--csharp-provider', 'csharp-ls']);
  });

  after(async function () {
    await c?.close();
    if (dir) removeDir(dir);
    if (indexRoot) removeDir(indexRoot);
  });

  const largest = { path: 'src/App/Program.cs', line: 10, column: 33 };

  it('answers at once with a labelled heuristic while csharp-ls loads, then precisely', async () => {
    // Wait for the syntax index (the heuristic provider reads it).
    let first: any;
    for (let i = 0; i < 100; i++) {
      first = await call(c.client, 'definition', { target: largest, waitMs: 0 });
      if (first.items.length > 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    if (first.mode === 'heuristic_no_precise') {
      assert.match(first.reason, /csharp-ls/);
      assert.equal(first.items[0].confidence, 'heuristic');
      assert.match(first.summary, /Heuristic/);
    }
    let precise: any;
    for (let i = 0; i < 40 && precise?.mode !== 'precise'; i++) precise = await call(c.client, 'definition', { target: largest, waitMs: 9_000 });
    const ms = Date.now() - connectedAt;
    console.log(`      sextant mcp start → first precise C# answer: ${ms} ms (first answer was ${first.mode})`);
    assert.equal(precise.mode, 'precise');
    assert.equal(precise.provider, 'lsp');
    const [row] = precise.items;
    assert.equal(`${row.path}:${row.line}:${row.column}`, 'src/Geometry/ShapeMath.cs:5:21');
    assert.equal(row.confidence, 'exact');
    assert.equal(row.name, 'Largest');
    assert.equal(row.kind, 'method');
    assert.equal(row.project, 'src/Geometry/Geometry.csproj');
    assert.match(row.signature, /public static T Largest<T>/);
    // The ref is a target form itself: the declaration's id, nothing the row already says.
    assert.deepEqual(row.target_ref, { symbolId: 'M:Geometry.ShapeMath.Largest``1(IEnumerable{``0})@Geometry|net10.0' });
    assert.equal(precise.target_selection.via, 'direct_location');
  });

  it('definition of a partial type lists both declarations', async () => {
    const r = await call(c.client, 'definition', { target: { qualifiedName: 'Geometry.Square' } });
    assert.equal(r.mode, 'precise');
    assert.deepEqual(r.items.map((i: any) => `${i.path}:${i.line}`).sort(), ['src/Geometry/Square.Metrics.cs:5', 'src/Geometry/Square.cs:3']);
    assert.equal(r.target_selection.via, 'qualified_name');
    assert.equal(r.target_selection.symbol.symbolId, 'T:Geometry.Square@Geometry|net10.0');
  });

  it('references are grouped by project with a production/test summary', async () => {
    const r = await call(c.client, 'references', { target: { qualifiedName: 'Geometry.Circle' } });
    assert.equal(r.mode, 'precise');
    assert.equal(r.summary, '5 references to Circle across 3 projects (2 production, 1 test).');
    assert.deepEqual(r.counts, { total: 5, projects: 3, productionProjects: 2, testProjects: 1, production: 3, test: 2, generated: 0, handwritten: 5 });
    assert.deepEqual(
      r.items.map((g: any) => `${g.group} ${g.count} ${g.isTest ?? false}`),
      ['src/Geometry/Geometry.csproj 2 false', 'src/App/App.csproj 1 false', 'tests/Geometry.Tests/Geometry.Tests.csproj 2 true'],
    );
    const decl = r.items[0].locations.find((l: any) => l.line === 3);
    assert.equal(decl.role, 'declaration');
  });

  it('references filter by scope and project, and page with a cursor', async () => {
    const tests = await call(c.client, 'references', { target: { qualifiedName: 'Geometry.Circle' }, scope: 'test', group_by: 'none' });
    assert.deepEqual(tests.items.map((i: any) => `${i.path}:${i.line}:${i.column}`).sort(), ['tests/Geometry.Tests/CircleTests.cs:13:47', 'tests/Geometry.Tests/CircleTests.cs:9:26']);
    const app = await call(c.client, 'references', { target: { qualifiedName: 'Geometry.Circle' }, project: 'src/App/**', include_definition: false });
    assert.equal(app.counts.total, 1);
    const p1 = await call(c.client, 'references', { target: { qualifiedName: 'Geometry.Circle' }, group_by: 'none', limit: 2 });
    assert.equal(p1.items.length, 2);
    assert.ok(p1.nextCursor);
    const p2 = await call(c.client, 'references', { target: { qualifiedName: 'Geometry.Circle' }, group_by: 'none', limit: 2, cursor: p1.nextCursor });
    assert.equal(p2.items.length, 2);
    assert.notDeepEqual(p2.items[0], p1.items[0]);
  });

  it('references of an override leave out the interface cascade unless asked', async () => {
    const own = await call(c.client, 'references', { target: { symbolId: 'M:Geometry.Circle.Area' }, include_definition: false, group_by: 'none' });
    assert.deepEqual(own.items.map((i: any) => `${i.path}:${i.line}:${i.column}`), ['tests/Geometry.Tests/CircleTests.cs:10:32']);
    const all = await call(c.client, 'references', { target: { symbolId: 'M:Geometry.Circle.Area' }, include_definition: false, include_related: true, group_by: 'none' });
    assert.equal(all.counts.total, 5);
    assert.equal(all.items.filter((i: any) => i.role === 'related').length, 4);
  });

  it('implementations of an abstract member are its overrides', async () => {
    const r = await call(c.client, 'implementations', { target: { symbolId: 'M:Geometry.Shape.Area' } });
    assert.equal(r.mode, 'precise');
    assert.deepEqual(r.items.map((i: any) => `${i.path}:${i.line}`).sort(), ['src/Geometry/Circle.cs:9', 'src/Geometry/Square.cs:9']);
  });

  it('callers across projects, and an honest partial label for an override', async () => {
    const r = await call(c.client, 'callers', { target: { symbolId: 'M:Geometry.ShapeMath.TotalArea(IEnumerable{IShape})' }, depth: 2 });
    assert.equal(r.availability, 'available');
    assert.equal(r.mode, 'precise');
    assert.deepEqual(r.items.map((e: any) => `${e.depth} ${e.caller.name} -> ${e.callee.name} @${e.caller.path}:${e.sites[0].line}`), [
      '1 Build -> TotalArea @src/App/ReportBuilder.cs:10',
      '2 Main -> Build @src/App/Program.cs:12',
    ]);
    const partial = await call(c.client, 'callers', { target: { symbolId: 'M:Geometry.Circle.Area' } });
    assert.equal(partial.mode, 'precise_partial');
    assert.equal(partial.availability, 'partial');
    assert.match(partial.completeness.partial, /through interface or base members/);
  });

  it('callees are provisional', async () => {
    const r = await call(c.client, 'callees', { target: { path: 'src/App/ReportBuilder.cs', line: 8 } });
    assert.equal(r.trust, 'provisional');
    assert.equal(r.target_selection.note, 'no column: used the declaration of Build on line 8');
    const names = r.items.map((e: any) => e.callee.name);
    assert.ok(names.includes('TotalArea') && names.includes('Diagonal'), names.join(', '));
    assert.ok(r.items.every((e: any) => e.confidence !== 'exact'));
  });

  it('type hierarchy: supertypes and subtypes, partial type as one node', async () => {
    const r = await call(c.client, 'type_hierarchy', { target: { qualifiedName: 'Geometry.Shape' } });
    assert.equal(r.availability, 'available');
    assert.deepEqual(r.items.map((n: any) => `${n.relation}:${n.name}`).sort(), ['self:Shape', 'subtype:Circle', 'subtype:Square', 'supertype:IShape']);
    const square = r.items.find((n: any) => n.name === 'Square');
    assert.equal(square.partials.length, 1);
  });

  it('a target_ref copied from a row targets the next tool', async () => {
    const d = await call(c.client, 'definition', { target: largest });
    const refs = await call(c.client, 'references', { target: d.items[0].target_ref, group_by: 'none' });
    assert.equal(refs.target_selection.via, 'direct_symbol');
    // A use row carries no ref: its own path/line/column is the target.
    const use = refs.items.find((i: any) => i.path === 'src/App/Program.cs');
    assert.equal(use.target_ref, undefined);
    const again = await call(c.client, 'definition', { target: { path: use.path, line: use.line, column: use.column } });
    assert.equal(`${again.items[0].path}:${again.items[0].line}`, 'src/Geometry/ShapeMath.cs:5');
    assert.deepEqual(refs.items.map((i: any) => `${i.path}:${i.line}`).sort(), ['src/App/Program.cs:10', 'src/Geometry/ShapeMath.cs:5']);
  });

  it('bad targets: two forms, stale id, ambiguity, whitespace, unsupported language', async () => {
    assert.match(await callError(c.client, 'definition', { target: { symbolId: 'T:Geometry.Shape', path: 'src/Geometry/Shape.cs', line: 4 } }), /INVALID_ARGUMENT.*symbolId and path\/line\/column/);
    const stale = await callError(c.client, 'references', { target: { symbolId: 'M:Geometry.ShapeMath.TotalArea(System.Int32)' } });
    assert.match(stale, /^Error \[STALE_TARGET\]/);
    assert.match(stale, /pass \{symbolId: "M:Geometry\.ShapeMath\.TotalArea\(IEnumerable\{IShape\}\)@Geometry\|net10\.0"\}/);
    const amb = await call(c.client, 'definition', { target: { qualifiedName: 'Geometry.Resizer.Resize' } });
    assert.equal(amb.target_selection.status, 'ambiguous');
    assert.equal(amb.items.length, 0);
    assert.deepEqual(amb.target_selection.candidates.map((x: any) => x.symbolId).sort(), ['M:Geometry.Resizer.Resize(System.Double,System.Double)@Geometry|net10.0', 'M:Geometry.Resizer.Resize(System.Double,System.Int32)@Geometry|net10.0']);
    const snapped = await call(c.client, 'definition', { target: { path: 'src/App/Program.cs', line: 10, column: 2 } });
    assert.match(snapped.target_selection.note, /snapped to 'var'/);
    assert.match(await callError(c.client, 'definition', { target: { path: 'Shapes.sln', line: 3 } }), /UNSUPPORTED_LANGUAGE/);
    assert.match(await callError(c.client, 'definition', { target: { qualifiedName: 'Nope.Nothing' } }), /TARGET_NOT_FOUND/);
  });

  it('latency over stdio (warm): definition and grouped references', async () => {
    const def: number[] = [];
    const refs: number[] = [];
    for (let i = 0; i < 20; i++) {
      let t = Date.now();
      await call(c.client, 'definition', { target: largest });
      def.push(Date.now() - t);
      t = Date.now();
      await call(c.client, 'references', { target: { symbolId: 'T:Geometry.IShape' } });
      refs.push(Date.now() - t);
    }
    console.log(`      over stdio (n=20): definition p50 ${percentile(def, 50)} ms p95 ${percentile(def, 95)} ms; references (grouped) p50 ${percentile(refs, 50)} ms p95 ${percentile(refs, 95)} ms`);
    assert.ok(percentile(def, 95) < 2_000);
  });
});
