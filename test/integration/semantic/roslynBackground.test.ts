/**
 * The Roslyn host started in the background (no question asked) once the project model exists,
 * on a restored copy of the Harbor fixture (test/fixtures/roslyn): every C# project described to
 * it, the most depended-on compiled first; then questions answered precisely without waiting for a
 * host start, on the same process. Plus two answers the oracle pinned down on this fixture:
 * - callers of RemoteRepository.Save (Harbor.Net) include Registry.Register in Harbor.Core, which
 *   calls it through IRepository<T>.Save — a project that does not depend on Harbor.Net at all;
 * - implementations of a type follow derived types into projects that never name it;
 * - a project with a package no feed serves gets precise answers that name the package;
 * - a target-typed `new(...)` is not a reference of the type: SymbolFinder reports it as an
 *   implicit reference of the constructor (at the `new` keyword, the type's name is not written).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { disposeSemanticService, semanticService, type SemanticService } from '../../../server/src/nav/semanticService';
import { findDotnet, locateRoslynHost } from '../../../server/src/semantic/roslyn/roslynHost';
import type { OpArgs, OpResult, SemanticOp } from '../../../server/src/semantic/provider';
import type { SemanticAnswer } from '../../../server/src/semantic/registry';
import { alive, ats, pos, removeDir, waitFor } from './fixture';
import { copyTree, restoreHarbor, ROSLYN_FIXTURE } from './roslynFixture';

describe('semantic: Roslyn host started in the background (real host, Harbor fixture)', function () {
  this.timeout(300_000);
  let dir: string;
  let engine: Engine;
  let svc: SemanticService;

  // No waiting for a host start: the background start must have done it.
  const ask = <K extends SemanticOp>(op: K, args: OpArgs<K>): Promise<SemanticAnswer<OpResult<K>>> => svc.request(op, 'csharp', args, { deadlineAt: Date.now() + 60_000, waitForReadyMs: 0 });
  const value = async <K extends SemanticOp>(op: K, args: OpArgs<K>): Promise<OpResult<K>> => {
    const a = await ask(op, args);
    assert.equal(a.mode, 'precise', `${op} answered ${a.mode}: ${a.reason ?? ''} ${a.gaps.join('; ')}`);
    assert.equal(a.provider, 'roslyn');
    return a.value!;
  };

  before(async function () {
    const host = locateRoslynHost();
    if (!host.ok) {
      if (findDotnet()) throw new Error(`dotnet is installed but ${host.reason}; run node scripts/build-roslyn-host.mjs`);
      this.skip();
    }
    dir = copyTree(ROSLYN_FIXTURE, 'roslyn-bg');
    // A target-typed construction of a source type beside an explicit one.
    fs.writeFileSync(path.join(dir, 'src/Harbor.App/Fleet.cs'), 'using Harbor.Core;\n\nnamespace Harbor.App;\n\npublic static class Fleet\n{\n    public static Ship Flagship() { Ship s = new(7, "Flag"); return s; }\n    public static Ship Spare() => new Ship(8, "Spare");\n}\n');
    // A class two levels below EntityBase in a project that never names EntityBase.
    fs.writeFileSync(path.join(dir, 'tests/Harbor.Tests/Convoy.cs'), 'namespace Harbor.Tests;\n\npublic class Convoy : Harbor.Core.Ship\n{\n    public Convoy() : base(5, "convoy") { }\n}\n');
    restoreHarbor(dir);
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
    svc = semanticService(engine, { csharpProvider: 'roslyn' });
  });

  after(async function () {
    if (!engine) return;
    const pid = svc.roslyn?.host.status().pid;
    await disposeSemanticService(engine);
    await engine.close();
    if (pid !== undefined) assert.ok(await waitFor(() => !alive(pid), 5_000), 'the Roslyn host is still running after dispose');
    removeDir(dir);
  });

  it('starts the host and describes every C# project to it before any question', async () => {
    assert.ok(await waitFor(() => svc.roslyn!.lastPrewarm !== undefined, 180_000), 'the background start never finished');
    const r = svc.roslyn!.lastPrewarm!;
    console.log(`      background start: ${JSON.stringify(r)}`);
    assert.equal(r.state, 'done', r.detail);
    assert.equal(svc.roslyn!.stats.questions, 0);
    assert.equal(svc.roslyn!.host.status().state, 'ready');
    const keys = [...svc.roslyn!.ensuredKeys()].map((k) => k.split('|')[0]);
    for (const p of ['src/Harbor.Core/Harbor.Core.csproj', 'src/Harbor.Text/Harbor.Text.csproj', 'src/Harbor.Net/Harbor.Net.csproj', 'src/Harbor.App/Harbor.App.csproj', 'tests/Harbor.Tests/Harbor.Tests.csproj']) {
      assert.ok(keys.includes(p), `${p} not described to the host: ${keys.join(', ')}`);
    }
    // Harbor.Core is referenced by every other project: compiled first.
    assert.ok(r.compiled >= 1);
  });

  it('the first questions are precise at once, on the same host process', async () => {
    const generation = svc.roslyn!.host.status().generation;
    const ensuredBefore = svc.roslyn!.stats.ensured;
    // Callers of RemoteRepository.Save: Registry.Register calls it through IRepository<T>.Save
    // from Harbor.Core, which Harbor.Net depends on (not the other way round).
    const [save] = await value('prepareCallHierarchy', pos('src/Harbor.Net/RemoteRepository.cs:12:17'));
    assert.equal(save!.name, 'Save');
    const callers = (await value('incomingCalls', save!)).map((c) => `${c.from.name} ${c.from.path}`);
    assert.ok(callers.includes('Register src/Harbor.Core/Registry.cs'), callers.join('; '));
    // References of Ship: the explicit `new Ship(...)` is one, the target-typed `new(...)` is not.
    const refs = ats(await value('references', { ...pos('src/Harbor.Core/Ship.cs:3:22'), includeDeclaration: false }));
    const fleet = refs.filter((r) => r.startsWith('src/Harbor.App/Fleet.cs:'));
    assert.deepEqual(fleet, ['src/Harbor.App/Fleet.cs:7:19', 'src/Harbor.App/Fleet.cs:7:37', 'src/Harbor.App/Fleet.cs:8:19', 'src/Harbor.App/Fleet.cs:8:39'], `the target-typed new(...) at 7:46 is not a use of the name: ${refs.join(' ')}`);
    // Implementations of EntityBase are transitive: Convoy derives from Ship in a project that
    // mentions only Ship (found in the first round), so that project is searched too.
    const impls = ats(await value('implementation', pos('src/Harbor.Core/EntityBase.cs:3:23')));
    assert.ok(impls.includes('tests/Harbor.Tests/Convoy.cs:3:14'), impls.join(' '));
    assert.ok(impls.includes('src/Harbor.Core/Tanker.cs:3:21'), impls.join(' '));
    // Harbor.Net references a package no feed serves: answers about its own symbols stay precise
    // and name what it compiles without.
    const remote = await ask('references', { ...pos('src/Harbor.Net/RemoteRepository.cs:6:21'), includeDeclaration: false });
    assert.equal(remote.mode, 'precise', `${remote.reason} ${remote.gaps}`);
    assert.deepEqual(ats(remote.value!), ['src/Harbor.App/Program.cs:13:26']);
    assert.ok(remote.notes?.some((n) => n.includes('package Harbor.Telemetry.Unpublished')), JSON.stringify(remote.notes));
    console.log(`      notes: ${JSON.stringify(remote.notes)}`);
    assert.equal(svc.roslyn!.host.status().generation, generation, 'the host restarted');
    assert.equal(svc.roslyn!.stats.ensured, ensuredBefore, 'a question had to describe projects the background start had not');
  });
});
