/**
 * file_dependencies on C# with the real Roslyn host (roslyn/out/host) on a restored copy of the
 * Harbor fixture (test/fixtures/roslyn: four projects, a linked file, a partial type), and the
 * heuristic path (no headless provider) on the same copy. Expected rows checked by hand against
 * the fixture's sources.
 */
import * as assert from 'node:assert/strict';
import { Engine } from '../../../server/src/nav/engine';
import { fileDependencies, type DepFileRow, type FileDependencies } from '../../../server/src/nav/fileDependencies';
import { disposeSemanticService, semanticService } from '../../../server/src/nav/semanticService';
import { findDotnet, locateRoslynHost } from '../../../server/src/semantic/roslyn/roslynHost';
import { copyTree, restoreHarbor, ROSLYN_FIXTURE } from '../semantic/roslynFixture';
import { removeDir } from '../semantic/fixture';

const CORE = 'src/Harbor.Core/Harbor.Core.csproj';
const APP = 'src/Harbor.App/Harbor.App.csproj';

describe('file_dependencies on C# (Harbor fixture)', function () {
  this.timeout(600_000);
  let dir: string;
  let engine: Engine;

  const ask = (path: string, direction: 'dependencies' | 'dependents', depth = 1): Promise<FileDependencies> =>
    fileDependencies(engine, { path, direction, depth, includeTypeOnly: true, deadlineAt: Date.now() + 120_000 });
  const brief = (r: FileDependencies) => (r.rows as DepFileRow[]).map((x) => `${x.project} ${x.path}:${x.line} ${x.uses?.join(',')}`);

  before(async function () {
    if (!locateRoslynHost().ok) {
      if (findDotnet()) throw new Error('dotnet is installed but the Roslyn host is not built; run node scripts/build-roslyn-host.mjs');
      this.skip();
    }
    dir = copyTree(ROSLYN_FIXTURE, 'deps-harbor');
    restoreHarbor(dir);
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
  });

  after(async function () {
    if (engine) {
      await disposeSemanticService(engine);
      await engine.close();
    }
    if (dir) removeDir(dir);
  });

  describe('precise (Roslyn host)', function () {
    before(async function () {
      semanticService(engine, { csharpProvider: 'roslyn' });
      // The host loads the projects on the first questions: ask until the answer is precise (bounded).
      for (let i = 0; i < 20; i++) {
        if ((await ask('src/Harbor.App/Dock.cs', 'dependencies')).mode === 'precise') return;
      }
      assert.fail('the Roslyn host never answered precisely');
    });

    it('dependencies: the files declaring the types and members Program.cs uses, grouped by project, with the names', async function () {
      const r = await ask('src/Harbor.App/Program.cs', 'dependencies');
      assert.equal(r.mode, 'precise', r.partial);
      assert.deepEqual(brief(r), [
        `${APP} shared/Clock.cs:18 Clock,Stamp`, // a linked file: its first compilation's project
        `${APP} src/Harbor.App/Dock.cs:17 Berth,Dock`,
        `${CORE} src/Harbor.Core/IRepository.cs:12 All,IRepository`,
        `${CORE} src/Harbor.Core/Registry.cs:15 Register,Registry,TotalWeight`,
        `${CORE} src/Harbor.Core/Ship.Cargo.cs:12 Ship`, // both parts of the partial type
        `${CORE} src/Harbor.Core/Ship.cs:12 Ship`,
        `${CORE} src/Harbor.Core/ShipRepository.cs:12 ShipRepository`,
        `${CORE} src/Harbor.Core/Tanker.cs:16 Tanker`,
        'src/Harbor.Net/Harbor.Net.csproj src/Harbor.Net/RemoteRepository.cs:13 RemoteRepository',
        'src/Harbor.Text/Harbor.Text.csproj src/Harbor.Text/ManifestParser.cs:14 ManifestParser,Parse',
      ]);
    });

    it('dependencies: members used through a base type name the file declaring them (Dock.Berth → EntityBase)', async function () {
      const r = await ask('src/Harbor.App/Dock.cs', 'dependencies');
      assert.equal(r.mode, 'precise');
      const rows = r.rows as DepFileRow[];
      assert.deepEqual(rows.find((x) => x.path === 'src/Harbor.Core/EntityBase.cs')?.uses, ['Describe', 'EntityBase', 'Weight']);
      assert.ok(rows.some((x) => x.path === 'src/Harbor.Core/Ship.cs'));
    });

    it('dependents: the files using the types Ship.cs declares, across projects and tests', async function () {
      const r = await ask('src/Harbor.Core/Ship.cs', 'dependents');
      assert.equal(r.mode, 'precise', r.partial);
      assert.deepEqual(brief(r), [
        `${APP} src/Harbor.App/Dock.cs:9 Ship`,
        `${APP} src/Harbor.App/Program.cs:12 Ship`,
        `${CORE} src/Harbor.Core/ShipRepository.cs:3 Ship`,
        `${CORE} src/Harbor.Core/Tanker.cs:3 Ship`,
        'src/Harbor.Net/Harbor.Net.csproj src/Harbor.Net/RemoteRepository.cs:6 Ship',
        'src/Harbor.Text/Harbor.Text.csproj src/Harbor.Text/ManifestParser.cs:13 Ship',
        'tests/Harbor.Tests/Harbor.Tests.csproj tests/Harbor.Tests/ShipTests.cs:10 Ship',
      ]);
    });

    it('depth 2: the second hop is labelled heuristic in partial', async function () {
      const r = await ask('src/Harbor.Core/EntityBase.cs', 'dependents', 2);
      assert.equal(r.mode, 'precise_partial');
      assert.match(r.partial ?? '', /beyond the first .*heuristic/);
      const second = (r.rows as DepFileRow[]).filter((x) => x.depth === 2);
      assert.ok(second.length > 0 && second.every((x) => x.via !== undefined), JSON.stringify(r.rows));
      assert.ok(second.some((x) => x.path === 'src/Harbor.Text/ManifestParser.cs' && x.via === 'src/Harbor.Core/Ship.cs'), JSON.stringify(second));
    });
  });

  describe('heuristic (no headless provider)', function () {
    before(async function () {
      await disposeSemanticService(engine);
      semanticService(engine, { noLsp: true });
    });

    it('dependencies from using directives + the symbol index: the types, not members', async function () {
      const r = await ask('src/Harbor.App/Program.cs', 'dependencies');
      assert.equal(r.mode, 'heuristic_no_precise');
      assert.deepEqual(brief(r), [
        `${APP} shared/Clock.cs:18 Clock`,
        `${APP} src/Harbor.App/Dock.cs:17 Dock`,
        `${CORE} src/Harbor.Core/IRepository.cs:12 IRepository`,
        `${CORE} src/Harbor.Core/Registry.cs:15 Registry`,
        `${CORE} src/Harbor.Core/Ship.Cargo.cs:12 Ship`,
        `${CORE} src/Harbor.Core/Ship.cs:12 Ship`,
        `${CORE} src/Harbor.Core/ShipRepository.cs:12 ShipRepository`,
        `${CORE} src/Harbor.Core/Tanker.cs:16 Tanker`,
        'src/Harbor.Net/Harbor.Net.csproj src/Harbor.Net/RemoteRepository.cs:13 RemoteRepository',
        'src/Harbor.Text/Harbor.Text.csproj src/Harbor.Text/ManifestParser.cs:14 ManifestParser',
      ]);
    });

    it('dependents from the text index and namespace visibility', async function () {
      const r = await ask('src/Harbor.Core/Ship.cs', 'dependents');
      assert.equal(r.mode, 'heuristic_no_precise');
      assert.deepEqual((r.rows as DepFileRow[]).map((x) => x.path), [
        'src/Harbor.App/Dock.cs',
        'src/Harbor.App/Program.cs', // not Ship.Cargo.cs: another part of the partial type declares it, not a use
        'src/Harbor.Core/ShipRepository.cs',
        'src/Harbor.Core/Tanker.cs',
        'src/Harbor.Net/RemoteRepository.cs',
        'src/Harbor.Text/ManifestParser.cs',
        'tests/Harbor.Tests/ShipTests.cs',
      ]);
    });
  });
});
