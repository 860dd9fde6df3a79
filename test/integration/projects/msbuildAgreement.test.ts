/**
 * The project model against the real evaluator: every Compile item, ProjectReference and target
 * framework of the fixture workspaces must match `dotnet msbuild -getItem/-getProperty` (per target
 * framework for multi-targeting projects). Shared projects (.shproj) are left out: the dotnet CLI
 * cannot evaluate them (their CodeSharing imports ship with Visual Studio only).
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorkspaceFiles } from '../../../server/src/projects/WorkspaceFiles';
import { readMsbuildProject } from '../../../server/src/projects/msbuild/readMsbuildProject';
import { parseXml } from '../../../server/src/projects/msbuild/xmlDocument';
import { compareWithMsbuild, copyFixture, listFiles, type Agreement } from './msbuildOracle';

const FIXTURES = path.resolve(__dirname, '../../fixtures/projects');

/** Build output, IDE folders and node_modules that default globbing must skip (not checked in). */
const NOISE: Record<string, string[]> = {
  tricky: ['src/Core/bin/Debug/net8.0/Gen.cs', 'src/Core/obj/Debug/net8.0/Core.AssemblyInfo.cs', 'src/Core/.vs/Junk.cs', 'src/Web/node_modules/pkg/x.cs', 'src/Web/Properties/PublishProfiles/Profile.cs', 'src/Multi/bin/x.cs'],
  // Custom/ moves the output folder to out/: its out/ is excluded, its bin/ is compiled.
  edgecases: ['Outer/obj/o.cs', 'Outer/Inner/bin/b.cs', 'Funcs/.git/g.cs', 'Custom/App/out/x/InOut.cs', 'Custom/App/bin/InBin.cs'],
};

/** `batch`: one MSBuild process for the whole fixture; otherwise one `dotnet msbuild <proj> -getItem…` per evaluation. */
async function agreementFor(fixture: string, batch: boolean): Promise<Agreement> {
  const root = copyFixture(path.join(FIXTURES, fixture), `sextant-msbuild-${fixture}-`);
  try {
    for (const f of NOISE[fixture] ?? []) {
      fs.mkdirSync(path.dirname(path.join(root, f)), { recursive: true });
      fs.writeFileSync(path.join(root, f), 'class Noise { }\n');
    }
    const list = listFiles(root);
    const files = new WorkspaceFiles(list);
    const readXml = (rel: string) => parseXml(fs.readFileSync(path.join(root, rel), 'utf8'));
    const projects = list.filter((f) => /\.(csproj|fsproj|vbproj)$/.test(f)).map((p) => readMsbuildProject({ root, files, readXml }, p));
    const r = await compareWithMsbuild(root, projects, 2, batch);
    const avg = r.msbuildMs.reduce((a, b) => a + b, 0) / Math.max(1, r.msbuildMs.length);
    console.log(
      `      ${fixture}: ${r.projects} projects, ${r.evaluations} msbuild evaluations (${batch ? 'one process' : `avg ${Math.round(avg)} ms each`}); ` +
        `compile ${r.compile.agreed}/${r.compile.compared}, references ${r.projectReferences.agreed}/${r.projectReferences.compared}, ` +
        `frameworks ${r.targetFrameworks.agreed}/${r.targetFrameworks.compared}, names ${r.names.agreed}/${r.names.compared}`,
    );
    return r;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

function assertFullAgreement(r: Agreement): void {
  assert.deepEqual(r.disagreements, [], JSON.stringify(r.disagreements, null, 2));
  assert.equal(r.compile.agreed, r.compile.compared);
  assert.equal(r.projectReferences.agreed, r.projectReferences.compared);
  assert.equal(r.targetFrameworks.agreed, r.targetFrameworks.compared);
  assert.ok(r.compile.compared > 10, 'the fixture compares real items');
}

describe('projects: agreement with dotnet msbuild', function () {
  this.timeout(300_000);

  it('tricky fixture: multi-targeting with conditions, linked files, Compile Remove, nested props, central packages, legacy, VB, F#, Web', async () => {
    const r = await agreementFor('tricky', false);
    assertFullAgreement(r);
    assert.equal(r.projects, 9);
    assert.ok(r.evaluations >= 11, 'multi-targeting projects are compared per framework');
  });

  it('edge cases: wildcard imports, Directory.Build.targets items and excludes, BaseOutputPath, OutputPath, $(IntermediateOutputPath)/$(ProjectDir) in items, $(OS), nested project folders, Choose, property functions, Update', async () => {
    const r = await agreementFor('edgecases', true);
    assertFullAgreement(r);
    assert.equal(r.projects, 8);
  });
});
