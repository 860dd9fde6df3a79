/**
 * Restore into Sextant's state, the engine's own logic (the real `dotnet restore` runs in
 * test/integration/semantic/readOnly.test.ts): permission, the plan's refusal of trees that move
 * restore output themselves, the state layout, and what answers say while a run goes on and after
 * it — with a stand-in `dotnet` that writes one project's assets where the props file says and
 * prints NuGet's lines for a package the registry does not serve and an unreachable source.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { restoreLayout, restoreOverrides, stateAssetsFile } from '../../../server/src/semantic/restore/restoreLayout';
import { restorePermission } from '../../../server/src/semantic/restore/restorePlan';
import { RestoreService } from '../../../server/src/semantic/restore/restoreService';

describe('restore into state (engine logic, stand-in dotnet)', () => {
  const dirs: string[] = [];
  const temp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-restore-unit-'));
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('is off unless asked, and says how to turn it on', () => {
    const saved = process.env.SEXTANT_RESTORE;
    delete process.env.SEXTANT_RESTORE;
    try {
      assert.deepEqual(restorePermission(true), { allowed: true });
      const off = restorePermission(undefined);
      assert.equal(off.allowed, false);
      assert.match((off as { why: string }).why, /--restore .* sextant\.restore in a trusted VS Code workspace/);
      process.env.SEXTANT_RESTORE = '1';
      assert.deepEqual(restorePermission(undefined), { allowed: true });
      assert.equal(restorePermission(false).allowed, false);
    } finally {
      if (saved === undefined) delete process.env.SEXTANT_RESTORE;
      else process.env.SEXTANT_RESTORE = saved;
    }
  });

  it('refuses a tree whose project or .targets file sets restore output itself (Directory.Build.props is overridden)', () => {
    const files: Record<string, string> = {
      'a/A.csproj': '<Project><PropertyGroup><OutputPath>bin/x</OutputPath></PropertyGroup></Project>',
      'b/B.csproj': '<Project><PropertyGroup><RestoreOutputPath>obj2/</RestoreOutputPath></PropertyGroup></Project>',
      'Directory.Build.props': '<Project><PropertyGroup><BaseIntermediateOutputPath>o/</BaseIntermediateOutputPath></PropertyGroup></Project>',
      'Directory.Build.targets': '<Project><!-- <MSBuildProjectExtensionsPath>x</MSBuildProjectExtensionsPath> --></Project>',
    };
    assert.deepEqual(restoreOverrides(Object.keys(files), (f) => files[f]), ['b/B.csproj']);
  });

  it('mirrors the props file layout: <state>/out/<project folder>/obj/project.assets.json', () => {
    const l = restoreLayout('/state');
    assert.equal(stateAssetsFile(l, 'src/A/A.csproj'), path.join('/state/out/src/A/obj/project.assets.json'));
    assert.equal(stateAssetsFile(l, 'Root.csproj'), path.join('/state/out/obj/project.assets.json'));
  });

  it('announces a run while it goes on, then reports what restored and what the registry did not serve', async function () {
    this.timeout(20_000);
    const root = temp();
    const state = temp();
    // Writes A's assets where the props file's layout puts them, prints NuGet's lines, takes a while.
    const fake = path.join(temp(), 'dotnet');
    fs.writeFileSync(
      fake,
      `#!/bin/sh\nsleep 1\nmkdir -p "$SextantRestoreRoot/src/A/obj" && echo '{}' > "$SextantRestoreRoot/src/A/obj/project.assets.json"\n` +
        `echo "/w/src/B/B.csproj : error NU1101: Unable to find package Acme.Unserved. No packages exist with this id in source(s): nuget.org"\n` +
        `echo "/w/src/B/B.csproj : warning NU1801: Unable to load the service index for source https://feed.invalid/v3/index.json."\nexit 1\n`,
      { mode: 0o755 },
    );
    const restored: string[][] = [];
    const s = new RestoreService({ root, stateDir: state, permission: { allowed: true }, dotnet: fake, onRestored: (p) => restored.push(p) });
    assert.equal(s.note(), undefined);
    s.start(['src/A/A.csproj', 'src/B/B.csproj']);
    assert.match(s.note()!, /^restoring 0 of 2 projects into Sextant's state \(\d+ s so far\)/);
    await s.whenDone();
    const st = s.status();
    assert.equal(st.phase, 'done');
    assert.equal(st.restored, 1);
    assert.deepEqual(st.unresolved, ['Acme.Unserved']);
    assert.deepEqual(st.failures, ['package source https://feed.invalid/v3/index.json could not be reached']);
    assert.deepEqual(restored, [['src/A/A.csproj']]);
    assert.ok(s.stateAssets('src/A/A.csproj'));
    assert.match(s.note()!, /^restore into Sextant's state: 1 of 2 projects restored in \d+ s; 1 package\(s\) not served by the registry stay unresolved \(Acme\.Unserved\); package source https:\/\/feed\.invalid/);
    assert.ok(fs.readdirSync(state).includes('Sextant.Restore.props'));
    assert.deepEqual(fs.readdirSync(root), [], 'nothing written into the workspace');
  });

  it('not allowed: nothing runs, and the note says what is missing', () => {
    const s = new RestoreService({ root: temp(), stateDir: temp(), permission: { allowed: false, why: 'it is off' }, dotnet: '/nonexistent/dotnet' });
    s.start(['a/A.csproj', 'b/B.csproj', 'c/C.csproj']);
    assert.equal(s.status().phase, 'not_allowed');
    assert.equal(s.note(), 'restore is not allowed (it is off): 3 project(s) without project.assets.json compile without their packages, so uses through package types can be missing');
  });
});
