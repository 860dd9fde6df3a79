/**
 * Precise facts that outlive the process (real Roslyn host, the Harbor fixture): `scip export`
 * shards merge to the single-process export (decoded with the generated SCIP types), an engine
 * that imported the shards answers from them without asking the host — row for row what the host
 * answers live — a stale imported document is resolved live and labelled, an edit of a bound
 * declaration or of the project's references invalidates the facts, and a truncated index is
 * refused while the others load.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { deserializeSCIP } from '@c4312/scip';
import { Engine } from '../../../server/src/nav/engine';
import { semanticService } from '../../../server/src/nav/semanticService';
import { runScipExport } from '../../../server/src/scipCommand';
import { locateRoslynHost } from '../../../server/src/semantic/roslyn/roslynHost';
import { compareWithLive, questionsOf, sortedRows as sorted } from './preciseCompare';
import { copyTree, ROSLYN_FIXTURE } from './roslynFixture';

const hostBuilt = locateRoslynHost().ok;

type Row = { path: string; line: number; column: number; endLine: number; endColumn: number };

(hostBuilt ? describe : describe.skip)('precise facts from SCIP shards (real Roslyn host)', function () {
  this.timeout(900_000);
  let dir: string;
  let out: string;
  const quiet = () => undefined;

  before(async () => {
    dir = copyTree(ROSLYN_FIXTURE, 'scip');
    out = fs.mkdtempSync(path.join(path.dirname(dir), 'sextant-scip-out-'));
    const engine = { workspaceRoot: dir, indexRoot: '' };
    await runScipExport({ engine, out: path.join(out, 'whole.scip'), argv: [], log: quiet });
    await runScipExport({ engine, shard: '1/2', out: path.join(out, 'shard1.scip'), argv: [], log: quiet });
    await runScipExport({ engine, shard: '2/2', out: path.join(out, 'shard2.scip'), argv: [], log: quiet });
  });
  after(() => {
    fs.rmSync(dir, { recursive: true, force: true });
    fs.rmSync(out, { recursive: true, force: true });
  });

  it('two shards decode with the generated SCIP types and merge to the single-process export', () => {
    const docs = (f: string) => deserializeSCIP(fs.readFileSync(path.join(out, f))).documents.map((d) => JSON.stringify({ p: d.relativePath, o: d.occurrences.map((o) => [o.range, o.symbol, o.symbolRoles, o.enclosingRange]), s: d.symbols.map((s) => [s.symbol, s.relationships.map((r) => r.symbol)]) }));
    const whole = docs('whole.scip').sort();
    const one = docs('shard1.scip');
    const two = docs('shard2.scip');
    assert.ok(one.length > 0 && two.length > 0, `both shards hold documents (${one.length}, ${two.length})`);
    assert.deepEqual([...one, ...two].sort(), whole);
    assert.ok(whole.length >= 15, `${whole.length} documents`);
  });

  describe('an engine that imported the shards', () => {
    let engine: Engine;
    let service: ReturnType<typeof semanticService>;
    before(async () => {
      fs.writeFileSync(path.join(out, 'truncated.scip'), fs.readFileSync(path.join(out, 'shard1.scip')).subarray(0, 200));
      engine = await Engine.open({ workspaceRoot: dir, indexRoot: '', gitAtOpen: false });
      await engine.refresh();
      service = semanticService(engine, { scip: [path.join(out, 'shard1.scip'), path.join(out, 'shard2.scip'), path.join(out, 'truncated.scip')], roslynPrewarm: false, tsPrewarm: false });
      await service.precise.ready;
    });
    after(async () => engine.close());

    it('refuses the truncated index with the reason and loads the others', () => {
      assert.deepEqual(service.precise.refused().map((r) => path.basename(r.file)), ['truncated.scip']);
      assert.match(service.precise.refused()[0]!.reason, /truncated/);
      assert.equal(service.precise.units().length, 2);
    });

    it('answers references, definitions and implementations from the shards, row for row as the host answers live', async () => {
      const questions = questionsOf([path.join(out, 'whole.scip')]);
      assert.ok(questions.length >= 200, `${questions.length} questions`);
      const c = await compareWithLive(service, service.roslyn!, 'csharp', questions);
      assert.deepEqual(c.differences, [], 'every store answer equals the host\'s');
      assert.equal(c.merged, 0, 'nothing changed since the export');
      assert.ok(c.store >= questions.length * 0.6, `${c.store} of ${questions.length} answered from the shards alone (the rest: framework symbols, asked live)`);
    });

    it("a generator's document is exported under the host's virtual path and answers definitions into it", async () => {
      const whole = deserializeSCIP(fs.readFileSync(path.join(out, 'whole.scip')));
      const gen = whole.documents.find((d) => d.relativePath.startsWith('generated:src/Harbor.Text/Harbor.Text.csproj|net10.0/') && d.relativePath.endsWith('/RegexGenerator.g.cs'));
      assert.ok(gen, `documents: ${whole.documents.map((d) => d.relativePath).join(', ')}`);
      // ContainerCode() at its use: the partial declaration and the generator's implementing part
      const args = { path: 'src/Harbor.Text/ManifestParser.cs', line: 11, column: 52 };
      const a = await service.registry.request('definition', 'csharp', args, { deadlineMs: 120_000 });
      assert.equal(a.provider, 'scip');
      assert.ok((a.value ?? []).some((r) => r.path === gen.relativePath), JSON.stringify(a.value));
      // Flag() from Harbor.App (net10.0 only): the NET10_0 declaration, not the other framework's
      const flag = await service.registry.request('definition', 'csharp', { path: 'src/Harbor.App/Dock.cs', line: 9, column: 73 }, { deadlineMs: 120_000 });
      assert.equal(flag.provider, 'scip');
      assert.deepEqual((flag.value ?? []).map((r) => `${r.path}:${r.line}`), ['src/Harbor.Core/Ship.cs:12']);
    });

    it('resolves a document edited since the export live and says so', async () => {
      const dock = path.join(dir, 'src/Harbor.App/Dock.cs');
      const before = fs.readFileSync(dock, 'utf8');
      fs.writeFileSync(dock, '// edited\n' + before);
      try {
        await engine.refresh();
        const args = { path: 'src/Harbor.Core/Ship.cs', line: 3, column: 22, includeDeclaration: true };
        const a = await service.registry.request('references', 'csharp', args, { deadlineMs: 120_000 });
        assert.equal(a.mode, 'precise');
        assert.equal(a.provider, 'scip+roslyn');
        assert.match(a.notes!.join('\n'), /resolved live by roslyn: src\/Harbor\.App\/Dock\.cs \(edited since its facts were recorded\)/);
        assert.ok((a.provenance?.live ?? 0) > 0 && (a.provenance?.scip ?? 0) > 0, JSON.stringify(a.provenance));
        const live = await service.roslyn!.request('references', 'csharp', args, { signal: new AbortController().signal, deadline: Date.now() + 120_000, waitForReadyMs: 120_000 });
        assert.deepEqual(sorted(a.value as Row[]), sorted((live.kind === 'ok' ? live.value : []) as Row[]));
      } finally {
        fs.writeFileSync(dock, before);
        await engine.refresh();
      }
    });

    it('an edit of a declaration a document binds to, and a change of its project references, invalidate its facts', async () => {
      const why = (p: string) => {
        const c = service.precise.answers.current(p);
        return 'why' in c ? c.why : 'holds';
      };
      assert.equal(why('src/Harbor.Core/Ship.cs'), 'holds');
      const entity = path.join(dir, 'src/Harbor.Core/EntityBase.cs');
      const was = fs.readFileSync(entity, 'utf8');
      fs.writeFileSync(entity, was.replace(/Describe\(/g, 'DescribeIt('));
      await engine.refresh();
      assert.equal(why('src/Harbor.Core/Ship.cs'), 'declarations it uses in src/Harbor.Core/EntityBase.cs changed');
      fs.writeFileSync(entity, was);
      await engine.refresh();
      assert.equal(why('src/Harbor.Core/Ship.cs'), 'holds');
      const csproj = path.join(dir, 'tests/Harbor.Tests/Harbor.Tests.csproj');
      const proj = fs.readFileSync(csproj, 'utf8');
      assert.match(proj, /<ProjectReference Include="[^"]*Harbor\.Text[^"]*"/);
      fs.writeFileSync(csproj, proj.replace(/\s*<ProjectReference Include="[^"]*Harbor\.Text[^"]*"\s*\/>/, ''));
      await engine.refresh();
      assert.match(why('tests/Harbor.Tests/ShipTests.cs'), /the compilation inputs of tests\/Harbor\.Tests\/Harbor\.Tests\.csproj\|net10\.0 changed/);
      fs.writeFileSync(csproj, proj);
      await engine.refresh();
      assert.equal(why('tests/Harbor.Tests/ShipTests.cs'), 'holds');
    });
  });

  it('facts imported for every project: the background start neither describes nor compiles any, the persisted layer resolves nothing, questions are answered from them', async () => {
    const indexRoot = fs.mkdtempSync(path.join(path.dirname(dir), 'sextant-scip-index-'));
    const engine = await Engine.open({ workspaceRoot: dir, indexRoot, gitAtOpen: false });
    try {
      await engine.refresh();
      const s = semanticService(engine, { scip: [path.join(out, 'whole.scip')], roslynPrewarm: true, tsPrewarm: false, precisePersist: { idleMs: 3_600_000 } });
      await s.precise.ready;
      const t0 = Date.now();
      while (!s.roslynStart!.leftOut && Date.now() - t0 < 600_000) await new Promise((r) => setTimeout(r, 200));
      const left = s.roslynStart!.leftOut;
      assert.ok(left && left.projects >= 5 && left.projects === left.of, JSON.stringify(left));
      // nothing handed to the host in the background: no description, no compile
      await new Promise((r) => setTimeout(r, 2_000));
      assert.equal(s.roslyn!.prewarming, undefined);
      assert.equal(s.roslyn!.lastPrewarm, undefined);
      assert.equal(await s.persisted!.runOnce(), 0, 'nothing to persist: the imported facts cover it');
      const a = await s.registry.request('references', 'csharp', { path: 'src/Harbor.Core/Ship.cs', line: 3, column: 22, includeDeclaration: true }, { deadlineMs: 120_000 });
      assert.equal(a.provider, 'scip');
      assert.equal(s.roslyn!.stats.questions, 0);
    } finally {
      await engine.close();
      fs.rmSync(indexRoot, { recursive: true, force: true });
    }
  });

  it('the persisted layer: a second engine on the same index answers from what the first\'s host resolved in the background, until an edit', async () => {
    const indexRoot = fs.mkdtempSync(path.join(path.dirname(dir), 'sextant-scip-index-'));
    try {
      const first = await Engine.open({ workspaceRoot: dir, indexRoot, gitAtOpen: false });
      await first.refresh();
      const s1 = semanticService(first, { scip: [], roslynPrewarm: false, tsPrewarm: false, precisePersist: { idleMs: 3_600_000 } });
      assert.ok(s1.persisted, 'the persisted layer runs beside the Roslyn host');
      // The engine's host is up (it answered a question): the pass asks it, no second host
      const warm = await s1.roslyn!.request('definition', 'csharp', { path: 'src/Harbor.App/Dock.cs', line: 9, column: 73 }, { signal: new AbortController().signal, deadline: Date.now() + 120_000, waitForReadyMs: 120_000 });
      assert.equal(warm.kind, 'ok');
      assert.ok((await s1.persisted.runOnce()) >= 5, 'projects persisted');
      assert.equal(s1.persisted.stats.byLiveHost, s1.persisted.stats.projects, "every project by the engine's own host");
      assert.equal(await s1.persisted.runOnce(), 0, 'nothing left to persist');
      await first.close();

      const second = await Engine.open({ workspaceRoot: dir, indexRoot, gitAtOpen: false });
      try {
        await second.refresh();
        const s2 = semanticService(second, { scip: [], roslynPrewarm: false, tsPrewarm: false, precisePersist: false });
        await s2.precise.ready;
        const args = { path: 'src/Harbor.Core/Ship.cs', line: 3, column: 22, includeDeclaration: true };
        const a = await s2.registry.request('references', 'csharp', args, { deadlineMs: 120_000 });
        assert.equal(a.provider, 'persisted');
        assert.deepEqual(a.attempts.map((x) => x.provider), ['persisted']);
        assert.equal(s2.roslyn!.stats.questions, 0, 'the host was not asked');
        const live = await s2.roslyn!.request('references', 'csharp', args, { signal: new AbortController().signal, deadline: Date.now() + 120_000, waitForReadyMs: 120_000 });
        assert.deepEqual(sorted(a.value as Row[]), sorted((live.kind === 'ok' ? live.value : []) as Row[]));
        const tests = path.join(dir, 'tests/Harbor.Tests/ShipTests.cs');
        const was = fs.readFileSync(tests, 'utf8');
        fs.writeFileSync(tests, was + '\n// edited\n');
        try {
          await second.refresh();
          const b = await s2.registry.request('references', 'csharp', args, { deadlineMs: 120_000 });
          assert.equal(b.provider, 'persisted+roslyn');
          assert.match(b.notes!.join('\n'), /tests\/Harbor\.Tests\/ShipTests\.cs \(edited since its facts were recorded\)/);
        } finally {
          fs.writeFileSync(tests, was);
        }
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(indexRoot, { recursive: true, force: true });
    }
  });
});
