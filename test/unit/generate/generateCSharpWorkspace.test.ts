import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cachedWorkspace } from '../../fixtures/generate/cachedWorkspace';
import { planWorkspace, resolveCSharpOptions } from '../../fixtures/generate/csharp/plan';
import { generateCSharpWorkspace } from '../../fixtures/generate/generateCSharpWorkspace';
import { factById, type WorkspaceManifest } from '../../fixtures/generate/manifest';
import { countWholeWord, isExcludedPath } from '../../fixtures/generate/treeWriter';

const repoRoot = path.resolve(__dirname, '../../..');

/** Every file under `dir` (POSIX relative path, sorted). */
function listFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string, rel: string) => {
    for (const e of fs.readdirSync(abs, { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(abs, e.name), r);
      else out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

function treeHash(dir: string): string {
  const h = crypto.createHash('sha256');
  for (const f of listFiles(dir)) {
    h.update(f + '\0');
    h.update(fs.readFileSync(path.join(dir, f)));
    h.update('\0');
  }
  return h.digest('hex');
}

const isExcluded = isExcludedPath;

describe('C# workspace generator', () => {
  let tmp: string;
  let ws: string;
  let manifest: WorkspaceManifest;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-gen-cs-'));
    ws = path.join(tmp, 'a');
    manifest = generateCSharpWorkspace(ws, { projects: 12, seed: 7 });
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('the same seed gives byte-identical trees', () => {
    const again = path.join(tmp, 'b');
    generateCSharpWorkspace(again, { projects: 12, seed: 7 });
    assert.equal(treeHash(again), treeHash(ws));
  });

  it('a different seed gives a different tree', () => {
    const other = path.join(tmp, 'c');
    generateCSharpWorkspace(other, { projects: 12, seed: 8 });
    assert.notEqual(treeHash(other), treeHash(ws));
  });

  it('refuses to write into a folder that is not empty', () => {
    assert.throws(() => generateCSharpWorkspace(ws, { projects: 12, seed: 7 }), /not empty/);
  });

  it('manifest totals equal the files on disk', () => {
    const files = listFiles(ws);
    let lines = 0;
    let bytes = 0;
    for (const f of files) {
      const buf = fs.readFileSync(path.join(ws, f));
      bytes += buf.length;
      for (const c of buf) if (c === 10) lines++;
    }
    assert.deepEqual(manifest.totals, { files: files.length, lines, bytes });
    assert.equal(manifest.excluded.files, files.filter(isExcluded).length);
    assert.equal(manifest.projects.length, 12);
  });

  it('has solutions, nested Directory.Build.props and the 12 project files', () => {
    for (const f of ['Acme.sln', 'Acme.slnx', 'Acme.Core.slnf', 'Directory.Build.props', 'Directory.Build.targets', 'global.json', 'NuGet.config', 'tests/Directory.Build.props', 'shared/AcmeBuildInfo.cs']) {
      assert.ok(fs.existsSync(path.join(ws, f)), `${f} exists`);
    }
    assert.match(fs.readFileSync(path.join(ws, 'tests/Directory.Build.props'), 'utf8'), /GetPathOfFileAbove\('Directory\.Build\.props'/);
    for (const p of manifest.projects) {
      const text = fs.readFileSync(path.join(ws, p.path), 'utf8');
      assert.match(text, /^(\uFEFF)?<Project Sdk="Microsoft\.NET\.Sdk(\.Web)?">/);
    }
    for (const s of ['Acme.sln', 'Acme.slnx', 'Acme.Core.slnf']) assert.ok(manifest.solutions.includes(s), s);
    for (const s of manifest.solutions) assert.ok(fs.existsSync(path.join(ws, s)), `${s} exists`);
  });

  it('ProjectReferences resolve to generated projects and form a DAG', () => {
    const byPath = new Map(manifest.projects.map((p) => [p.path, p]));
    const edges = new Map<string, string[]>();
    for (const p of manifest.projects) {
      const text = fs.readFileSync(path.join(ws, p.path), 'utf8');
      const refs = [...text.matchAll(/<ProjectReference Include="([^"]+)"/g)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(p.path), (m[1] as string).replace(/\\/g, '/'))));
      for (const r of refs) assert.ok(byPath.has(r), `${p.path} references ${r}, which is generated`);
      assert.deepEqual(refs.map((r) => byPath.get(r)?.name), p.references);
      edges.set(p.path, refs);
    }
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (n: string, trail: string[]) => {
      if (state.get(n) === 'done') return;
      assert.notEqual(state.get(n), 'visiting', `cycle: ${[...trail, n].join(' -> ')}`);
      state.set(n, 'visiting');
      for (const m of edges.get(n) ?? []) visit(m, [...trail, n]);
      state.set(n, 'done');
    };
    for (const n of edges.keys()) visit(n, []);
  });

  it('test projects use xunit and NUnit with their test SDK packages and attributes', () => {
    const tests = manifest.projects.filter((p) => p.isTest);
    assert.equal(tests.length, 3);
    assert.deepEqual([...new Set(tests.map((t) => t.testFramework))].sort(), ['nunit', 'xunit']);
    for (const t of tests) {
      assert.ok(t.packages.includes('Microsoft.NET.Test.Sdk'));
      assert.ok(t.packages.includes(t.testFramework === 'xunit' ? 'xunit' : 'NUnit'));
    }
    const xunit = factById(manifest, 'xunitTestClass', 'symbol');
    const xText = fs.readFileSync(path.join(ws, xunit.declarations[0]?.path ?? ''), 'utf8');
    assert.match(xText, /\[Fact\]/);
    const nunit = factById(manifest, 'nunitTestClass', 'symbol');
    const nText = fs.readFileSync(path.join(ws, nunit.declarations[0]?.path ?? ''), 'utf8');
    assert.match(nText, /\[TestFixture\][\s\S]*\[Test(Case\(.*\))?\]/);
  });

  it('every symbol fact names its declaration line and column, and mention counts match a rescan', () => {
    const files = listFiles(ws).filter((f) => !isExcluded(f));
    const texts = new Map(files.map((f) => [f, fs.readFileSync(path.join(ws, f), 'utf8')]));
    for (const fact of manifest.facts) {
      if (fact.kind === 'symbol') {
        assert.ok(fact.declarations.length >= 1, `${fact.id} has a declaration`);
        for (const d of fact.declarations) {
          const line = (texts.get(d.path) ?? '').replace(/^\uFEFF/, '').split(/\r?\n/)[d.line - 1] ?? '';
          assert.equal(line.slice(d.column - 1, d.column - 1 + fact.name.length), fact.name, `${fact.id} at ${d.path}:${d.line}:${d.column}`);
        }
        const mentioning = files.filter((f) => countWholeWord(texts.get(f) ?? '', fact.name) > 0);
        assert.equal(fact.mentionFiles, mentioning.length, `${fact.id} mentionFiles`);
      } else {
        const mentioning = files.filter((f) => (texts.get(f) ?? '').includes(fact.text));
        assert.equal(fact.mentionFiles, mentioning.length, `${fact.id} mentionFiles`);
      }
    }
  });

  it('covers the constructs that trip naive parsers', () => {
    const split = factById(manifest, 'ifSplitMethod', 'symbol');
    assert.equal(split.declarations.length, 2, 'one declaration per #if branch');
    const scoring = fs.readFileSync(path.join(ws, split.declarations[0]?.path ?? ''), 'utf8');
    assert.match(scoring, /#if NET10_0_OR_GREATER[\s\S]*\{\n#else[\s\S]*\{\n[\s\S]*#endif/);
    assert.equal(factById(manifest, 'partialClass', 'symbol').declarations.length, 2);
    const generated = factById(manifest, 'generatedOnly', 'symbol');
    assert.match(generated.declarations[0]?.path ?? '', /\.g\.cs$/);
    assert.match(fs.readFileSync(path.join(ws, generated.declarations[0]?.path ?? ''), 'utf8'), /^\/\/ <auto-generated\/>/);
    const removed = manifest.projects.flatMap((p) => p.compileRemoved);
    assert.ok(removed.length >= 1 && removed.every((f) => fs.existsSync(path.join(ws, f))));
    const linking = manifest.projects.filter((p) => p.linkedFiles.length > 0);
    assert.ok(linking.length >= 1);
    for (const p of linking) {
      const csproj = fs.readFileSync(path.join(ws, p.path), 'utf8');
      const include = /<Compile Include="([^"]+)" Link="/.exec(csproj)?.[1] ?? '';
      assert.ok(fs.existsSync(path.join(ws, path.dirname(p.path), include.replace(/\\/g, '/'))), `${p.name}: linked ${include} exists`);
    }
    assert.ok(manifest.projects.some((p) => p.targetFrameworks.join(';') === 'net8.0;net10.0'), 'a multi-targeting project');
    const sln = fs.readFileSync(path.join(ws, 'Acme.sln'), 'utf8');
    assert.match(sln, /GlobalSection\(NestedProjects\)/);
    for (const m of sln.matchAll(/^Project\("\{9A19103F[^"]*"\) = "[^"]+", "([^"]+)"/gm)) {
      assert.ok(fs.existsSync(path.join(ws, (m[1] as string).replace(/\\/g, '/'))), `${m[1]} exists`);
    }
    const slnf = JSON.parse(fs.readFileSync(path.join(ws, 'Acme.Core.slnf'), 'utf8')) as { solution: { path: string; projects: string[] } };
    for (const p of slnf.solution.projects) assert.ok(sln.includes(`"${p}"`), `${p} is in Acme.sln`);
  });

  it('the default scale plan has 3,000 projects, a quarter of them tests, ten ~5,000-line files and references that point down', () => {
    const plan = planWorkspace(resolveCSharpOptions({}));
    assert.equal(plan.projects.length, 3000);
    assert.equal(plan.projects.filter((p) => p.role === 'Tests').length, 750);
    assert.equal(plan.projects.filter((p) => p.huge).length, 10);
    for (const p of plan.projects) for (const q of p.refs) assert.ok(q.layer < p.layer, `${p.name} -> ${q.name}`);
    assert.ok(plan.centralAreas.size > 0 && plan.isolatedArea !== undefined);
  });

  it('cachedWorkspace generates once and then reuses the tree', () => {
    const prev = process.env['SEXTANT_GENERATED_DIR'];
    process.env['SEXTANT_GENERATED_DIR'] = path.join(tmp, 'cache');
    try {
      const first = cachedWorkspace('csharp', { projects: 6, seed: 3 });
      const second = cachedWorkspace('csharp', { projects: 6, seed: 3 });
      assert.equal(first.generated, true);
      assert.equal(second.generated, false);
      assert.equal(second.root, first.root);
      assert.deepEqual(second.manifest.totals, first.manifest.totals);
      assert.ok(fs.existsSync(path.join(first.root, 'Acme.sln')));
    } finally {
      if (prev === undefined) delete process.env['SEXTANT_GENERATED_DIR'];
      else process.env['SEXTANT_GENERATED_DIR'] = prev;
    }
  });

  it('the CLI writes a workspace and prints a summary', () => {
    const out = path.join(tmp, 'cli');
    const stdout = execFileSync(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'test/fixtures/generate/cli.ts'), '--kind', 'csharp', '--projects', '5', '--seed', '2', '--out', out], { cwd: repoRoot, encoding: 'utf8' });
    assert.match(stdout, /^csharp: 5 projects, \d+ files, \d+ lines/);
    assert.ok(fs.existsSync(path.join(out, 'Acme.sln')));
  });

  const dotnet = spawnSync('dotnet', ['--version'], { encoding: 'utf8' });
  if (dotnet.status === 0) {
    it('dotnet msbuild evaluates a generated multi-targeting project (dotnet on PATH)', function () {
      this.timeout(120_000);
      const multi = manifest.projects.find((p) => p.targetFrameworks.length > 1);
      assert.ok(multi, 'a multi-targeting project');
      const r = spawnSync('dotnet', ['msbuild', path.join(ws, multi.path), '-getProperty:TargetFrameworks', '-nologo'], {
        encoding: 'utf8',
        env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1' },
      });
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.equal(r.stdout.trim(), 'net8.0;net10.0');
    });
  }
});
