/**
 * Unit tests of the engine side of the Roslyn host: project descriptions from the real project
 * model of the semantic fixture (real evaluator, no host), the SDK's framework rules, and the
 * provider's own logic (coverage labels, hang → kill → restart with backoff, no process left
 * behind) against a scripted fake host that speaks the protocol's framing. The real host is
 * tested in test/integration/semantic/roslynProvider.test.ts.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PathPolicy } from '../../../server/src/core/paths';
import { buildProjectGraph } from '../../../server/src/projects/buildProjectGraph';
import { SemanticRegistry } from '../../../server/src/semantic/registry';
import { defaultLangVersion, frameworkDefines, nearestFramework, ProjectDescriber } from '../../../server/src/semantic/roslyn/projectDescriptions';
import { coverageGaps, RoslynProvider } from '../../../server/src/semantic/roslyn/roslynProvider';

const FIXTURE = path.resolve(__dirname, '../../fixtures/semantic/csharp');

function listFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) {
      if (e.name !== 'obj' && e.name !== 'bin') out.push(...listFiles(root, r));
    } else out.push(r);
  }
  return out;
}

function describerFor(root: string): ProjectDescriber {
  const files = listFiles(root);
  const graph = buildProjectGraph({ root, files });
  return new ProjectDescriber({ root: fs.realpathSync(root), graph, files, policy: new PathPolicy(root) });
}

describe('roslyn: project descriptions from the project model', () => {
  it('describes a project: documents with linked files, references by key, defines, usings, options', () => {
    const d = describerFor(FIXTURE);
    assert.deepEqual(d.keysOfFile('shared/Units.cs').sort(), ['src/App/App.csproj|net10.0', 'src/Geometry/Geometry.csproj|net10.0']);
    const r = d.describe('src/App/App.csproj|net10.0');
    assert.ok(r.ok);
    const a = r.description;
    assert.deepEqual(a.documents, [{ path: 'src/App/Program.cs' }, { path: 'src/App/ReportBuilder.cs' }, { path: 'shared/Units.cs', linkPath: 'Units.cs' }]);
    assert.deepEqual(a.projectReferences, ['src/Geometry/Geometry.csproj|net10.0']);
    assert.equal(a.outputKind, 'exe');
    assert.equal(a.nullable, 'enable');
    assert.equal(a.langVersion, '14.0');
    assert.equal(a.assemblyName, 'App');
    for (const sym of ['TRACE', 'DEBUG', 'NET', 'NET10_0', 'NET10_0_OR_GREATER', 'NET5_0_OR_GREATER', 'NETCOREAPP', 'NETCOREAPP3_1_OR_GREATER']) assert.ok(a.defines.includes(sym), `${sym} in ${a.defines.join(' ')}`);
    assert.ok(!a.defines.includes('NET11_0_OR_GREATER'));
    assert.deepEqual(a.globalUsings.map((u) => u.name), ['System', 'System.Collections.Generic', 'System.IO', 'System.Linq', 'System.Net.Http', 'System.Threading', 'System.Threading.Tasks']);
    assert.deepEqual(a.frameworkReferences, ['Microsoft.NETCore.App']);
    assert.equal(a.assetsFile, undefined, 'the fixture is not restored: no assets file');
    assert.match(a.hash, /^[0-9a-f]{40}$/);
    // Unchanged input, same hash; the library project is a library.
    assert.equal(describerFor(FIXTURE).describe('src/App/App.csproj|net10.0').ok && (describerFor(FIXTURE).describe('src/App/App.csproj|net10.0') as { description: { hash: string } }).description.hash, a.hash);
    const g = d.describe('src/Geometry/Geometry.csproj|net10.0');
    assert.ok(g.ok && g.description.outputKind === 'library' && g.description.projectReferences.length === 0);
  });

  it('Using items, an analyzer project reference, generated files under obj/ and a failing project', () => {
    const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-desc-')));
    try {
      fs.cpSync(FIXTURE, dir, { recursive: true });
      fs.mkdirSync(path.join(dir, 'src/Gen'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'src/Gen/Gen.csproj'), '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>netstandard2.0</TargetFramework><AssemblyName>My.Gen</AssemblyName></PropertyGroup></Project>');
      fs.writeFileSync(
        path.join(dir, 'src/Geometry/Geometry.csproj'),
        `<Project Sdk="Microsoft.NET.Sdk.Web">
  <PropertyGroup><DefineConstants>$(DefineConstants);EXTRA</DefineConstants><LangVersion>preview</LangVersion><AllowUnsafeBlocks>true</AllowUnsafeBlocks></PropertyGroup>
  <ItemGroup>
    <Compile Include="../../shared/Units.cs" Link="Units.cs" />
    <Using Include="System.Text" />
    <Using Include="System.Math" Static="true" />
    <Using Include="System.Collections.Generic.List&lt;int&gt;" Alias="Ints" />
    <Using Remove="System.Net.Http" />
    <ProjectReference Include="../Gen/Gen.csproj" OutputItemType="Analyzer" ReferenceOutputAssembly="false" />
    <FrameworkReference Include="Microsoft.Extra.App" />
    <Reference Include="Legacy"><HintPath>../../lib/Legacy.dll</HintPath></Reference>
  </ItemGroup>
</Project>`,
      );
      fs.writeFileSync(path.join(dir, 'src/Bad.csproj'), '<Project><PropertyGroup>');
      const gen = path.join(dir, 'src/Geometry/obj/Debug/net10.0');
      fs.mkdirSync(path.join(gen, 'generated/Some.Generator'), { recursive: true });
      fs.writeFileSync(path.join(gen, 'generated/Some.Generator/Thing.cs'), 'partial class Thing {}');
      fs.writeFileSync(path.join(gen, 'View.g.cs'), 'partial class View {}');
      fs.writeFileSync(path.join(gen, 'Geometry.GlobalUsings.g.cs'), 'global using System;');
      fs.writeFileSync(path.join(gen, 'Geometry.AssemblyInfo.cs'), '');
      const d = describerFor(dir);
      const r = d.describe('src/Geometry/Geometry.csproj|net10.0');
      assert.ok(r.ok, !r.ok ? r.reason : '');
      const g = r.description;
      assert.deepEqual(
        g.documents.filter((x) => x.generated).map((x) => x.path),
        ['src/Geometry/obj/Debug/net10.0/View.g.cs', 'src/Geometry/obj/Debug/net10.0/generated/Some.Generator/Thing.cs'],
      );
      const usings = g.globalUsings.map((u) => `${u.name}${u.alias ? `=${u.alias}` : ''}${u.static ? ' static' : ''}`);
      assert.ok(usings.includes('Microsoft.AspNetCore.Builder') && usings.includes('System.Text') && usings.includes('System.Math static') && usings.includes('System.Collections.Generic.List<int>=Ints'), usings.join(', '));
      assert.ok(!usings.includes('System.Net.Http'), 'a <Using Remove> removes an implicit using');
      assert.deepEqual(g.analyzers, [`${dir}/src/Gen/bin/Debug/netstandard2.0/My.Gen.dll`]);
      assert.deepEqual(g.projectReferences, []);
      assert.deepEqual(g.frameworkReferences, ['Microsoft.NETCore.App', 'Microsoft.AspNetCore.App', 'Microsoft.Extra.App']);
      assert.deepEqual(g.references, [`${dir}/lib/Legacy.dll`]);
      assert.ok(g.defines.includes('EXTRA') && g.defines.includes('DEBUG'));
      assert.equal(g.langVersion, 'preview');
      assert.equal(g.allowUnsafe, true);
      const bad = d.describe('src/Bad.csproj|');
      assert.ok(!bad.ok);
      assert.match(bad.reason, /could not be evaluated|could not be read/);
      assert.ok(!d.describe('nope/None.csproj|net8.0').ok);
      // Nothing was written into the tree by describing it.
      assert.ok(!fs.existsSync(path.join(dir, 'src/App/obj')) && !fs.existsSync(path.join(dir, 'src/Gen/bin')));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('project references are listed transitively, as the SDK flows them (PrivateAssets="all" and DisableTransitiveProjectReferences stop it)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-desc-trans-'));
    try {
      const proj = (name: string, refs: string[], extra = '') => {
        fs.mkdirSync(path.join(dir, name), { recursive: true });
        fs.writeFileSync(path.join(dir, name, `${name}.csproj`), `<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework>${extra}</PropertyGroup><ItemGroup>${refs.join('')}</ItemGroup></Project>\n`);
        fs.writeFileSync(path.join(dir, name, 'C.cs'), `namespace ${name}; public class C { }\n`);
      };
      const ref = (n: string, attrs = '') => `<ProjectReference Include="../${n}/${n}.csproj"${attrs} />`;
      proj('Base', []);
      proj('Hidden', []);
      proj('Mid', [ref('Base'), ref('Hidden', ' PrivateAssets="all"')]);
      proj('Top', [ref('Mid')]);
      proj('Alone', [ref('Mid')], '<DisableTransitiveProjectReferences>true</DisableTransitiveProjectReferences>');
      const d = describerFor(dir);
      const refsOf = (n: string) => {
        const r = d.describe(`${n}/${n}.csproj|net10.0`);
        assert.ok(r.ok, n);
        return [...r.description.projectReferences].sort();
      };
      assert.deepEqual(refsOf('Mid'), ['Base/Base.csproj|net10.0', 'Hidden/Hidden.csproj|net10.0']);
      assert.deepEqual(refsOf('Top'), ['Base/Base.csproj|net10.0', 'Mid/Mid.csproj|net10.0']);
      assert.deepEqual(refsOf('Alone'), ['Mid/Mid.csproj|net10.0']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the SDK rules: framework defines, nearest framework, default language version', () => {
    assert.deepEqual(frameworkDefines('netstandard2.0'), ['NETSTANDARD', 'NETSTANDARD2_0', 'NETSTANDARD1_0_OR_GREATER', 'NETSTANDARD1_1_OR_GREATER', 'NETSTANDARD1_2_OR_GREATER', 'NETSTANDARD1_3_OR_GREATER', 'NETSTANDARD1_4_OR_GREATER', 'NETSTANDARD1_5_OR_GREATER', 'NETSTANDARD1_6_OR_GREATER', 'NETSTANDARD2_0_OR_GREATER']);
    assert.deepEqual(frameworkDefines('net472').slice(0, 2), ['NETFRAMEWORK', 'NET472']);
    assert.ok(frameworkDefines('net472').includes('NET462_OR_GREATER') && !frameworkDefines('net472').includes('NET48_OR_GREATER'));
    assert.ok(frameworkDefines('net8.0-windows').includes('WINDOWS'));
    assert.equal(nearestFramework('net8.0', ['netstandard2.0', 'net6.0']), 'net6.0');
    assert.equal(nearestFramework('net8.0', ['net9.0', 'netstandard2.1']), 'netstandard2.1');
    assert.equal(nearestFramework('net48', ['netstandard2.0', 'net8.0']), 'netstandard2.0');
    assert.equal(nearestFramework('net8.0', ['net9.0']), undefined);
    assert.equal(defaultLangVersion('net8.0'), '12.0');
    assert.equal(defaultLangVersion('net10.0'), '14.0');
    assert.equal(defaultLangVersion('netstandard2.0'), '7.3');
  });
});

describe('roslyn: coverage labels', () => {
  it('precise only when every candidate was searched; a partial zero names the counts', () => {
    const scope = { keys: ['a|x', 'b|x', 'c|x'], dropped: [] };
    assert.deepEqual(coverageGaps(scope, { searched: ['a|x', 'b|x', 'c|x'], notSearched: [] }, 0), []);
    const zero = coverageGaps(scope, { searched: ['a|x'], notSearched: [{ key: 'b|x', reason: 'memoryCap' }, { key: 'c|x', reason: 'deadline' }] }, 0);
    assert.deepEqual(zero, ['none found in the 1 project(s) searched (2 not searched): b (memoryCap), c (deadline)']);
    const some = coverageGaps({ keys: ['a|x'], dropped: [{ key: 'd|x', reason: 'could not be loaded: boom' }] }, { searched: ['a|x'], notSearched: [] }, 4);
    assert.deepEqual(some, ['searched 1 of 2 candidate project(s) (1 not searched): d (could not be loaded: boom)']);
  });
});

/** A fake host: answers the protocol's requests from a script; `mode` decides how `query` behaves. */
function fakeHost(dir: string): string {
  const file = path.join(dir, 'fakeHost.js');
  const rpc = require.resolve('vscode-jsonrpc/node');
  fs.writeFileSync(
    file,
    `const rpc = require(${JSON.stringify(rpc)});
const fs = require('fs');
const c = rpc.createMessageConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout));
const mode = fs.readFileSync(${JSON.stringify(path.join(dir, 'mode'))}, 'utf8').trim();
c.onRequest('initialize', () => ({ protocolVersion: 1, hostVersion: 'fake', dotnetRoot: null }));
c.onRequest('projects/ensure', (p) => ({ results: p.projects.map((d) => ({ key: d.key, status: 'loaded', documents: d.documents.length, unresolved: [] })), evicted: [] }));
c.onRequest('documents/changed', () => ({ updated: 0, removed: 0 }));
c.onRequest('shutdown', () => ({}));
// status answers at once, also while a query runs (as the real host's); a hung fake does not answer it
c.onRequest('status', () => (mode === 'hang' ? new Promise(() => {}) : { knownProjects: 0 }));
c.onNotification('exit', () => process.exit(0));
// slowdiag: a diagnostics request runs (holding the one request slot, as the real host does) until
// it is cancelled or 4 s passed; the first is slow, later ones answer at once.
let busy = Promise.resolve();
let diags = 0;
const note = (s) => fs.appendFileSync(${JSON.stringify(path.join(dir, 'events'))}, s + '\\n');
c.onRequest('query', async (p, token) => {
  if (mode === 'slowdiag' && p.op === 'diagnostics') {
    diags++;
    note('diagnostics ' + diags);
    if (diags > 1) return { symbol: null, items: [], searched: p.scope, notSearched: [] };
    let done;
    busy = new Promise((r) => (done = r));
    const cancelled = await new Promise((r) => { const t = setTimeout(() => r(false), 4000); token.onCancellationRequested(() => (clearTimeout(t), r(true))); });
    note(cancelled ? 'cancelled' : 'ran to the end');
    done();
    if (cancelled) throw new rpc.ResponseError(-32800, 'cancelled');
    return { symbol: null, items: [], searched: p.scope, notSearched: [] };
  }
  // cutdiag: the host's deadline (protocol 4) cut every diagnostics query: a document keeps its parse errors.
  if (mode === 'cutdiag' && p.op === 'diagnostics') {
    note('diagnostics deadlineMs=' + (p.options && p.options.deadlineMs));
    if (p.position) return { symbol: null, items: [{ path: p.position.path, line: 2, column: 5, endLine: 2, endColumn: 6, id: 'CS1002', severity: 'error', message: '; expected', projectKey: p.position.projectKey }], searched: [], notSearched: [{ key: p.position.projectKey, reason: 'deadline' }], syntaxOnly: true };
    return { symbol: null, items: [], searched: [], notSearched: p.scope.map((key) => ({ key, reason: 'deadline' })) };
  }
  await busy;
  if (mode === 'slowdiag') note('query ' + p.op);
  if (mode === 'slowquery' && p.op === 'references') {
    const cancelled = await new Promise((r) => { const t = setTimeout(() => r(false), 2500); token.onCancellationRequested(() => (clearTimeout(t), r(true))); });
    note(cancelled ? 'cancelled' : 'finished');
  }
  const sym = { name: 'Circle', kind: 'class', docId: 'T:Geometry.Circle', projectKey: 'src/Geometry/Geometry.csproj|net10.0', locations: [{ path: 'src/Geometry/Circle.cs', line: 3, column: 21, endLine: 3, endColumn: 27 }] };
  if (mode === 'hang' && p.op !== 'symbolInfo') return new Promise(() => {});
  if (p.op === 'symbolInfo') return { symbol: sym, items: [], searched: p.scope || [], notSearched: [] };
  // half: the host's deadline cuts every references search after half its scope (one row per project
  // searched); slowrefs: it answers the whole scope, 1.5 s late.
  if (p.op === 'references' && (mode === 'half' || mode === 'slowrefs')) {
    note('references ' + p.scope.join(','));
    if (mode === 'slowrefs') await new Promise((r) => setTimeout(r, 1500));
    const n = mode === 'half' ? Math.ceil(p.scope.length / 2) : p.scope.length;
    const searched = p.scope.slice(0, n);
    const rowOf = (key) => ({ path: key.split('|')[0].replace(/[^/]+$/, 'Uses.cs'), line: 1, column: 1, endLine: 1, endColumn: 7, definition: 'T:Geometry.Circle', projectKey: key });
    return { symbol: sym, items: searched.map(rowOf), searched, notSearched: p.scope.slice(n).map((key) => ({ key, reason: 'deadline' })) };
  }
  // slowvariant: the net8.0 compilation of the declaring project answers 3 s late (a cold second framework).
  if (p.op === 'references' && mode === 'slowvariant') {
    note('references ' + p.symbol.projectKey + ' ' + p.scope.join(','));
    if (p.symbol.projectKey.endsWith('|net8.0')) await new Promise((r) => setTimeout(r, 3000));
    const rowOf = (key) => ({ path: key.split('|')[0].replace(/[^/]+$/, 'Uses.cs'), line: 1, column: 1, endLine: 1, endColumn: 7, definition: 'T:Geometry.Circle', projectKey: key });
    return { symbol: sym, items: p.scope.map(rowOf), searched: p.scope, notSearched: [] };
  }
  if (mode === 'partial') return { symbol: sym, items: [], searched: [p.scope[0]], notSearched: p.scope.slice(1).map((key) => ({ key, reason: 'memoryCap' })) };
  return { symbol: sym, items: [{ path: 'src/App/Program.cs', line: 9, column: 45, endLine: 9, endColumn: 51, definition: 'T:Geometry.Circle' }], searched: p.scope || [], notSearched: [] };
});
c.listen();
process.stdin.on('end', () => process.exit(0));
`,
  );
  return file;
}

describe('roslyn: provider logic against a scripted fake host', function () {
  this.timeout(30_000);
  let dir: string;
  let provider: RoslynProvider;
  let registry: SemanticRegistry;
  const setMode = (m: string) => fs.writeFileSync(path.join(dir, 'mode'), m);

  beforeEach(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-fakehost-')));
    setMode('ok');
    const describer = describerFor(FIXTURE);
    provider = new RoslynProvider({
      root: FIXTURE,
      command: { argv: [process.execPath, fakeHost(dir)] },
      hangGraceMs: 300,
      model: {
        describer: () => describer,
        dependents: (p) => new Set(p === 'src/Geometry/Geometry.csproj' ? ['src/App/App.csproj', 'tests/Geometry.Tests/Geometry.Tests.csproj'] : []),
        projectsMentioning: () => new Set(['src/App/App.csproj', 'tests/Geometry.Tests/Geometry.Tests.csproj', 'src/Geometry/Geometry.csproj']),
      },
    });
    registry = new SemanticRegistry();
    registry.register(provider, 'lsp');
  });

  afterEach(async () => {
    const pid = provider.host.status().pid;
    await registry.dispose();
    if (pid !== undefined) {
      let gone = false;
      for (let i = 0; i < 50 && !gone; i++) {
        try {
          process.kill(pid, 0);
          await new Promise((r) => setTimeout(r, 50));
        } catch {
          gone = true;
        }
      }
      assert.ok(gone, 'the host process outlived dispose');
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const refs = () => registry.request('references', 'csharp', { path: 'src/Geometry/Circle.cs', line: 3, column: 21, includeDeclaration: false }, { deadlineMs: 5_000, waitForReadyMs: 5_000 });

  it('references search the declaring project and its dependents: precise when all were searched', async () => {
    const a = await refs();
    assert.equal(a.mode, 'precise', a.reason);
    assert.equal(a.value!.length, 1);
    assert.deepEqual([...provider.ensuredKeys()].sort(), ['src/App/App.csproj|net10.0', 'src/Geometry/Geometry.csproj|net10.0', 'tests/Geometry.Tests/Geometry.Tests.csproj|net10.0']);
  });

  it('a partial search is precise_partial and its zero says how many projects were searched', async () => {
    setMode('partial');
    const a = await refs();
    assert.equal(a.mode, 'precise_partial');
    assert.deepEqual(a.value, []);
    assert.match(a.gaps[0]!, /^none found in the 1 project\(s\) searched \(2 not searched\)/);
  });

  it('diagnostics cut at the host\'s deadline: a document keeps its parse errors (labelled), a project not compiled is named and its files unchecked', async () => {
    setMode('cutdiag');
    const a = await registry.request('diagnostics', 'csharp', { paths: ['src/App/Program.cs', 'src/App/ReportBuilder.cs', 'src/Geometry/Circle.cs'] }, { deadlineMs: 5_000, waitForReadyMs: 5_000, preciseOnly: true });
    console.log(`      ${a.mode}: ${JSON.stringify(a.value)} ${a.gaps.join(' | ')}`);
    assert.equal(a.mode, 'precise_partial');
    assert.deepEqual(a.value!.rows.map((d) => `${d.severity} ${d.code} ${d.path}:${d.line}:${d.column}`), ['error CS1002 src/Geometry/Circle.cs:2:5']);
    assert.deepEqual(a.value!.unchecked, ['src/App/Program.cs', 'src/App/ReportBuilder.cs']);
    assert.deepEqual(a.gaps, [
      'src/Geometry/Circle.cs: parse diagnostics only (src/Geometry/Geometry.csproj was not compiled by the deadline: ask again)',
      '1 of 2 C# project(s) not compiled by the deadline (compiled ones are kept: ask again): src/App/App.csproj',
    ]);
    // Each query carried the host's own deadline, before the provider's.
    const sent = fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n').map((e) => Number(/deadlineMs=(\d+)/.exec(e)?.[1]));
    assert.equal(sent.length, 2);
    for (const ms of sent) assert.ok(ms >= 300 && ms <= 5_000 - 700, String(ms));
  });

  it('a host stuck past its deadline is killed and restarted with backoff; the next question works', async () => {
    setMode('hang');
    const a = await registry.request('definition', 'csharp', { path: 'src/App/Program.cs', line: 10, column: 33 }, { deadlineMs: 1_500, waitForReadyMs: 1_000 });
    assert.notEqual(a.mode, 'precise');
    const first = provider.host.status();
    for (let i = 0; i < 40 && provider.host.status().state !== 'crashed'; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(provider.host.status().state, 'crashed', provider.host.status().detail);
    assert.match(provider.host.status().detail, /no answer to query 300 ms after its deadline: hung\); it restarts on the next question/);
    setMode('ok');
    const b = await refs();
    assert.equal(b.mode, 'precise', b.reason);
    const st = provider.host.status();
    assert.equal(st.generation, first.generation + 1);
    assert.equal(st.restarts, 1);
  });

  it('a question goes first: the background request the host is running is cancelled, then sent again', async () => {
    setMode('slowdiag');
    const events = () => (fs.existsSync(path.join(dir, 'events')) ? fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n') : []);
    const ac = new AbortController();
    const keys = ['src/Geometry/Geometry.csproj|net10.0', 'src/App/App.csproj|net10.0'];
    const warm = provider.prewarm({ signal: ac.signal, order: () => keys });
    for (let i = 0; i < 200 && !events().includes('diagnostics 1'); i++) await new Promise((r) => setTimeout(r, 25));
    assert.deepEqual(events(), ['diagnostics 1']);
    const a = await refs();
    assert.equal(a.mode, 'precise', a.reason);
    const r = await warm;
    assert.equal(r.state, 'done', r.detail);
    assert.equal(r.yielded, 1);
    const ev = events();
    // The running step was cancelled before the question's first query; it ran again afterwards.
    assert.equal(ev[1], 'cancelled', ev.join(', '));
    assert.ok(ev.indexOf('query symbolInfo') > 1, ev.join(', '));
    assert.ok(ev.lastIndexOf('diagnostics 2') > ev.indexOf('query references'), ev.join(', '));
    assert.equal(r.compiled, 2);
  });

  it('past a question\'s deadline the host is not cancelled: it goes on with the work (kept for the next questions)', async () => {
    setMode('slowquery');
    await refs(); // the host is started and the projects handed over
    fs.rmSync(path.join(dir, 'events'), { force: true });
    // Another search than the first (with the declaration): the first one's rows are kept and would answer at once.
    const a = await registry.request('references', 'csharp', { path: 'src/Geometry/Circle.cs', line: 3, column: 21, includeDeclaration: true }, { deadlineMs: 1_200, waitForReadyMs: 5_000 });
    assert.notEqual(a.mode, 'precise');
    const events = () => (fs.existsSync(path.join(dir, 'events')) ? fs.readFileSync(path.join(dir, 'events'), 'utf8').trim() : '');
    for (let i = 0; i < 160 && !events(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(events(), 'finished');
    assert.equal(provider.host.status().generation, 1, 'the host was restarted');
  });

  const events = () => (fs.existsSync(path.join(dir, 'events')) ? fs.readFileSync(path.join(dir, 'events'), 'utf8').trim().split('\n') : []);
  const refScopes = () => events().filter((e) => e.startsWith('references ')).map((e) => e.slice('references '.length).split(','));
  const until = async (what: () => boolean, ms = 10_000) => {
    for (const t = Date.now(); !what() && Date.now() - t < ms; ) await new Promise((r) => setTimeout(r, 25));
    return what();
  };
  const uses = (rows: { path: string }[] | undefined) => (rows ?? []).map((r) => r.path).sort();
  const ALL_USES = ['src/App/Uses.cs', 'src/Geometry/Uses.cs', 'tests/Geometry.Tests/Uses.cs'];

  it('a references search cut at its deadline, asked again, searches only the projects not searched yet; the first ask\'s rows are kept', async () => {
    setMode('half');
    const a = await refs();
    assert.equal(a.mode, 'precise_partial');
    assert.equal(a.value!.length, 2, JSON.stringify(a.value));
    const b = await refs();
    const scopes = refScopes();
    assert.equal(scopes[0]!.length, 3, scopes.join(' | '));
    const first = new Set(scopes[0]!.slice(0, 2));
    // Every later search (the second ask's, or the background continuation's) asks only for the rest.
    for (const s of scopes.slice(1)) for (const k of s) assert.ok(!first.has(k), `${k} searched again: ${scopes.join(' | ')}`);
    assert.equal(b.mode, 'precise', `${b.reason} ${b.gaps}`);
    assert.deepEqual(uses(b.value), ALL_USES);
  });

  it('between questions the cut search goes on by itself; the next ask is answered from what it found, without a search', async () => {
    setMode('half');
    const a = await refs();
    assert.equal(a.mode, 'precise_partial');
    assert.ok(await until(() => provider.stats.continuationSteps >= 1 && !provider.continuationRunning()), `no continuation: ${JSON.stringify(provider.stats)}`);
    const searches = refScopes().length;
    assert.equal(searches, 2, refScopes().join(' | '));
    assert.equal(refScopes()[1]!.length, 1, 'the continuation asked for the project not searched');
    const b = await refs();
    assert.equal(b.mode, 'precise', `${b.reason} ${b.gaps}`);
    assert.deepEqual(uses(b.value), ALL_USES);
    assert.equal(refScopes().length, searches, 'the complete search was not sent again');
  });

  it('the answer of a search the engine stopped waiting for is kept when it comes late', async () => {
    setMode('slowrefs');
    const a = await registry.request('references', 'csharp', { path: 'src/Geometry/Circle.cs', line: 3, column: 21, includeDeclaration: false }, { deadlineMs: 1_000, waitForReadyMs: 5_000 });
    assert.notEqual(a.mode, 'precise');
    assert.ok(await until(() => provider.stats.lateAnswersKept >= 1), 'the late answer was not kept');
    const b = await refs();
    assert.equal(b.mode, 'precise', `${b.reason} ${b.gaps}`);
    assert.deepEqual(uses(b.value), ALL_USES);
    assert.equal(refScopes().length, 1, `searched again: ${refScopes().join(' | ')}`);
  });

  it('a later framework variant that does not answer in time leaves the variants that did: partial, then complete in the background', async () => {
    // Geometry targets net10.0 and net8.0; App (net8.0) binds to the net8.0 compilation, whose search is slow.
    const copy = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-variants-')));
    fs.cpSync(FIXTURE, copy, { recursive: true });
    const geo = path.join(copy, 'src/Geometry/Geometry.csproj');
    fs.writeFileSync(geo, fs.readFileSync(geo, 'utf8').replace('<ItemGroup>', '<PropertyGroup><TargetFramework></TargetFramework><TargetFrameworks>net10.0;net8.0</TargetFrameworks></PropertyGroup>\n  <ItemGroup>'));
    const app = path.join(copy, 'src/App/App.csproj');
    fs.writeFileSync(app, fs.readFileSync(app, 'utf8').replace('<OutputType>Exe</OutputType>', '<OutputType>Exe</OutputType><TargetFramework>net8.0</TargetFramework>'));
    setMode('slowvariant');
    const describer = describerFor(copy);
    const p = new RoslynProvider({
      root: copy,
      command: { argv: [process.execPath, fakeHost(dir)] },
      model: {
        describer: () => describer,
        dependents: (id) => new Set(id === 'src/Geometry/Geometry.csproj' ? ['src/App/App.csproj', 'tests/Geometry.Tests/Geometry.Tests.csproj'] : []),
        projectsMentioning: () => new Set(['src/App/App.csproj', 'tests/Geometry.Tests/Geometry.Tests.csproj', 'src/Geometry/Geometry.csproj']),
      },
    });
    const reg = new SemanticRegistry();
    reg.register(p, 'lsp');
    try {
      const ask = (ms: number) => reg.request('references', 'csharp', { path: 'src/Geometry/Circle.cs', line: 3, column: 21, includeDeclaration: false }, { deadlineMs: ms, waitForReadyMs: 5_000 });
      assert.equal((await ask(8_000)).mode, 'precise'); // host started, descriptions handed over (both variants answer within 8 s)
      fs.rmSync(path.join(dir, 'events'), { force: true });
      const q = (ms: number) => reg.request('references', 'csharp', { path: 'src/Geometry/Circle.cs', line: 3, column: 21, includeDeclaration: true }, { deadlineMs: ms, waitForReadyMs: 5_000 });
      const a = await q(1_500);
      assert.equal(a.mode, 'precise_partial', `${a.mode}: ${a.reason ?? ''}`);
      assert.deepEqual(uses(a.value), ['src/Geometry/Uses.cs', 'tests/Geometry.Tests/Uses.cs']);
      assert.match(a.gaps.join(' '), /src\/App\/App\.csproj \(deadline: the net8\.0 compilation of the declaring project was not searched in time\)/);
      // The net8.0 search answers late (kept) or goes on between questions: asked again, complete.
      assert.ok(await until(() => !p.continuationRunning() && events().filter((e) => e.includes('|net8.0 ')).length >= 1 && p.stats.lateAnswersKept >= 1, 10_000), events().join(' | '));
      const b = await q(5_000);
      assert.equal(b.mode, 'precise', `${b.reason ?? ''} ${b.gaps.join('; ')}`);
      assert.deepEqual(uses(b.value), ALL_USES);
    } finally {
      await reg.dispose();
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('a file in no C# project is a labelled refusal; the host is not even started', async () => {
    const a = await registry.request('definition', 'csharp', { path: 'Nowhere.cs', line: 1, column: 1 }, { deadlineMs: 2_000 });
    assert.equal(a.mode, 'unavailable_no_precise');
    assert.match(a.reason ?? '', /roslyn: Nowhere\.cs is compiled by no C# project/);
    assert.equal(provider.host.status().state, 'stopped');
  });
});
