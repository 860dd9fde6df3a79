/**
 * The Roslyn host itself over its real stdio protocol (roslyn/PROTOCOL.md), through the engine's
 * client (semantic/roslyn/roslynHost.ts) but without the engine's project model: hand-written
 * project descriptions of small C# projects in a temp folder (framework references from the
 * installed SDK's packs; nothing to restore). Covers what the provider tests cannot pin down:
 * callers through an interface one override down when the interface's project is outside the
 * scope, transitive project references, unsaved editor buffers, and growth that keeps compiled
 * state.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findDotnet, locateRoslynHost, RoslynHost } from '../../../server/src/semantic/roslyn/roslynHost';
import { HostMethods } from '../../../server/src/semantic/roslyn/hostProtocol';

interface Row {
  from?: { name: string; display: string };
  via?: string;
  sites?: unknown[];
  path?: string;
  line?: number;
}
interface Answer {
  symbol: { name: string; display: string; projectKey?: string } | null;
  items: Row[];
  searched: string[];
  dispatchScope?: string[];
  dispatchers?: { docId: string | null }[];
}

describe('roslyn host: protocol behaviour on hand-written projects', function () {
  this.timeout(240_000);
  let dir: string;
  let host: RoslynHost;
  const ac = new AbortController();
  const req = <R>(method: string, params: unknown) => host.request<R>(method, params, { signal: ac.signal, deadline: Date.now() + 120_000 });
  const query = (params: unknown) => req<Answer>(HostMethods.query, params);
  const status = () => req<{ loadedProjects: number; knownProjects: number }>(HostMethods.status, {});

  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  };
  const describeProject = (name: string, refs: string[], docs: string[]) => ({
    key: `${name}/${name}.csproj|net10.0`,
    projectPath: `${name}/${name}.csproj`,
    name,
    assemblyName: name,
    targetFramework: 'net10.0',
    defines: ['NET', 'NET10_0'],
    globalUsings: [{ name: 'System' }],
    documents: docs.map((p) => ({ path: p })),
    projectReferences: refs.map((r) => `${r}/${r}.csproj|net10.0`),
    packageReferences: [],
    frameworkReferences: [],
    references: [],
    analyzers: [],
    hash: `${name}:${refs.join(',')}:${docs.join(',')}`,
  });
  const key = (name: string) => `${name}/${name}.csproj|net10.0`;

  before(async function () {
    const located = locateRoslynHost();
    if (!located.ok) {
      if (findDotnet()) throw new Error(`dotnet is installed but ${located.reason}; run node scripts/build-roslyn-host.mjs`);
      this.skip();
    }
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-roslyn-host-')));
    // Core: an interface, a base class implementing it, and the calls through both.
    write('Core/Repo.cs', 'namespace Core;\npublic interface IRepo { void Save(); }\npublic abstract class RepoBase : IRepo { public virtual void Save() { } }\n');
    write(
      'Core/Use.cs',
      'namespace Core;\npublic static class Use\n{\n    public static void ThroughInterface(IRepo r) => r.Save();\n    public static void ThroughBase(RepoBase b) => b.Save();\n    public static void Untyped(object o) => o.ToString();\n}\n',
    );
    // Net: an override one level below the interface's implementation.
    write('Net/Remote.cs', 'namespace Net;\npublic sealed class Remote : Core.RepoBase\n{\n    public override void Save() { }\n    public static void Direct(Remote r) => r.Save();\n}\n');
    write('Core/Store.cs', 'namespace Core;\n/// <summary>Keeps items <c>safe</c>.</summary>\npublic class Store\n{\n    public int Count(string s) { int n = s.Length; return n; }\n    public void Broken() { Missing(); }\n}\n');
    // App references Net only, and uses Core's type directly (a transitive project reference).
    write('App/Program.cs', 'namespace App;\npublic static class Program\n{\n    public static void Main() => Core.Use.ThroughInterface(new Net.Remote());\n}\n');
    host = new RoslynHost({ root: dir });
    const got = await host.acquire(60_000, ac.signal);
    assert.ok(got.ok, `host did not start: ${JSON.stringify(got)}`);
    const ens = await req<{ results: { key: string; status: string }[] }>(HostMethods.ensure, {
      projects: [describeProject('Core', [], ['Core/Repo.cs', 'Core/Use.cs', 'Core/Store.cs']), describeProject('Net', ['Core'], ['Net/Remote.cs']), describeProject('App', ['Net'], ['App/Program.cs'])],
    });
    assert.deepEqual(
      ens.results.map((r) => r.status),
      ['loaded', 'loaded', 'loaded'],
    );
  });

  after(() => {
    host?.kill();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('callers of an override include calls through the interface its base implements, also from projects outside the scope', async () => {
    // The scope the engine passes: the declaring project and its dependents (Core is neither).
    const r = await query({ op: 'callers', position: { path: 'Net/Remote.cs', line: 4, column: 26 }, scope: [key('Net'), key('App')] });
    assert.equal(r.symbol?.name, 'Save');
    const rows = r.items.map((c) => `${c.from!.name}|${c.via ?? ''}`).sort();
    assert.deepEqual(rows, ['Direct|', 'ThroughBase|base', 'ThroughInterface|interface']);
    assert.deepEqual(r.dispatchScope, [key('Core')]);
    assert.ok(r.searched.includes(key('Core')), `searched ${r.searched.join(', ')}`);
    assert.deepEqual(r.dispatchers?.map((d) => d.docId).sort(), ['M:Core.IRepo.Save', 'M:Core.RepoBase.Save']);
    // Candidate documents from the engine: the rest of the scope is not read; widened projects are.
    const docs = await query({ op: 'callers', position: { path: 'Net/Remote.cs', line: 4, column: 26 }, scope: [key('Net'), key('App')], options: { documents: ['App/Program.cs'] } });
    assert.deepEqual(docs.items.map((c) => `${c.from!.name}|${c.via ?? ''}`).sort(), ['ThroughBase|base', 'ThroughInterface|interface']);
    assert.deepEqual(docs.searched.sort(), [key('App'), key('Core'), key('Net')].sort());
    // Under a deadline the likely documents (naming Remote, IRepo or RepoBase) go first, one unit per
    // project, and the batches skip them: given the time, the same rows and coverage as one pass.
    for (const op of ['callers', 'references'] as const) {
      const ask = (options?: object) => query({ op, position: { path: 'Net/Remote.cs', line: 4, column: 26 }, scope: [key('Net'), key('App')], ...(options ? { options } : {}) });
      const rowsOf = (a: Answer) => a.items.map((c) => (c.from ? `${c.from.name}|${c.via ?? ''}|${c.sites?.length}` : `${c.path}:${c.line}`)).sort();
      const [plain, timed] = [await ask(), await ask({ deadlineMs: 120_000 })];
      assert.ok(plain.items.length > 0, op);
      assert.deepEqual(rowsOf(timed), rowsOf(plain), op);
      assert.deepEqual(timed.searched.sort(), plain.searched.sort(), op);
    }
    // Without widening only the given scope is searched.
    const narrow = await query({ op: 'callers', position: { path: 'Net/Remote.cs', line: 4, column: 26 }, scope: [key('Net'), key('App')], options: { widenDispatch: false } });
    assert.deepEqual(
      narrow.items.map((c) => c.from!.name),
      ['Direct'],
    );
  });

  it('a type of a project reached only through another reference binds (transitive project references)', async () => {
    const r = await query({ op: 'definition', position: { path: 'App/Program.cs', line: 4, column: 39 } });
    assert.equal(r.symbol?.name, 'Use');
    assert.equal(r.symbol?.projectKey, key('Core'));
    const d = await query({ op: 'diagnostics', position: { path: 'App/Program.cs', line: 1, column: 1 } });
    assert.deepEqual(
      d.items.filter((x) => (x as { severity?: string }).severity === 'error'),
      [],
    );
  });

  it('an unsaved buffer is what the next answer reads; a change without text goes back to the disk', async () => {
    const refs = async () => (await query({ op: 'references', position: { path: 'Core/Repo.cs', line: 2, column: 18 }, scope: [key('Core'), key('Net'), key('App')] })).items.map((x) => `${x.path}:${x.line}`).sort();
    const before = await refs();
    assert.deepEqual(before, ['Core/Repo.cs:3', 'Core/Use.cs:4']);
    const edited = fs.readFileSync(path.join(dir, 'App/Program.cs'), 'utf8').replace('public static void Main()', 'public static Core.IRepo? Field;\n    public static void Main()');
    await req(HostMethods.documentsChanged, { changes: [{ path: 'App/Program.cs', kind: 'changed', text: edited }] });
    assert.deepEqual(await refs(), ['App/Program.cs:4', 'Core/Repo.cs:3', 'Core/Use.cs:4']);
    // evicted and reloaded by need, the project still reads the buffer
    assert.deepEqual((await req<{ evicted: string[] }>(HostMethods.evict, { keys: [key('App')] })).evicted, [key('App')]);
    assert.deepEqual(await refs(), ['App/Program.cs:4', 'Core/Repo.cs:3', 'Core/Use.cs:4']);
    await req(HostMethods.documentsChanged, { changes: [{ path: 'App/Program.cs', kind: 'changed' }] });
    assert.deepEqual(await refs(), before);
    assert.ok(!fs.readFileSync(path.join(dir, 'App/Program.cs'), 'utf8').includes('Field'), 'the host wrote the buffer to disk');
  });

  it('growing the workspace by many projects keeps the compiled state of the loaded ones', async () => {
    await query({ op: 'references', position: { path: 'Core/Repo.cs', line: 2, column: 18 } });
    const loadedBefore = (await status()).loadedProjects;
    assert.ok(loadedBefore >= 3, `loaded ${loadedBefore}`);
    const more = [];
    for (let i = 0; i < 60; i++) {
      write(`Leaf${i}/Leaf.cs`, `namespace Leaf${i};\npublic class Leaf${i} : Core.RepoBase { }\n`);
      more.push(describeProject(`Leaf${i}`, ['Core'], [`Leaf${i}/Leaf.cs`]));
    }
    await req(HostMethods.ensure, { projects: more });
    const st = await status();
    assert.equal(st.knownProjects, 63);
    assert.equal(st.loadedProjects, loadedBefore, 'compiled projects were dropped by the growth');
    const impl = await query({ op: 'implementations', position: { path: 'Core/Repo.cs', line: 3, column: 23 } });
    assert.equal(impl.items.length, 61);
  });

  it('implementations and subtypes streamed batch by batch equal the one-pass answer (a type two levels down behind another batch included)', async () => {
    write('Mid/Mid.cs', 'namespace Mid;\npublic class Mid : Core.RepoBase { public override void Save() { } }\n');
    write('Low/Low.cs', 'namespace Low;\npublic class Low : Mid.Mid { public override void Save() { } }\n');
    await req(HostMethods.ensure, { projects: [describeProject('Mid', ['Core'], ['Mid/Mid.cs']), describeProject('Low', ['Mid'], ['Low/Low.cs'])] });
    const names = (r: Answer) => r.items.map((x) => `${(x as { display?: string }).display}|${(x as { relation?: string }).relation}`).sort();
    const ask = async (op: string, at: { path: string; line: number; column: number }, options: object = {}) => {
      const one = await query({ op, position: at, options });
      const streamed = await query({ op, position: at, options: { ...options, batchProjects: 1 } });
      assert.deepEqual(names(streamed), names(one), `${op} at ${at.path}:${at.line}:${at.column}`);
      assert.equal(streamed.searched.length, 65);
      return names(one);
    };
    const ofInterface = await ask('implementations', { path: 'Core/Repo.cs', line: 2, column: 18 });
    assert.equal(ofInterface.length, 64); // RepoBase, Remote, Mid, Low, 60 leaves
    assert.ok(ofInterface.includes('Low.Low|implementation'));
    const ofClass = await ask('implementations', { path: 'Core/Repo.cs', line: 3, column: 23 });
    assert.ok(ofClass.includes('Low.Low|derivedClass'));
    const ofMember = await ask('implementations', { path: 'Core/Repo.cs', line: 3, column: 62 });
    assert.deepEqual(ofMember, ['void Low.Low.Save()|override', 'void Mid.Mid.Save()|override', 'void Net.Remote.Save()|override']);
    const ofIfaceMember = await ask('implementations', { path: 'Core/Repo.cs', line: 2, column: 31 });
    assert.ok(ofIfaceMember.includes('void Core.RepoBase.Save()|implementation'), ofIfaceMember.join(', '));
    const sub = await ask('typeHierarchy', { path: 'Core/Repo.cs', line: 3, column: 23 }, { direction: 'subtypes', transitive: false });
    assert.equal(sub.length, 62); // Remote, Mid, 60 leaves (Low is two levels down)
  });

  it('symbol info, documentation and diagnostics per document and per project', async () => {
    const info = await query({ op: 'symbolInfo', position: { path: 'Core/Store.cs', line: 5, column: 38 } });
    const row = info.items[0] as unknown as { symbol: { name: string; kind: string }; type?: { name: string }; isFromSource: boolean };
    assert.deepEqual([row.symbol.name, row.symbol.kind, row.type?.name, row.isFromSource], ['n', 'variable', 'Int32', true]);
    const doc = await query({ op: 'documentation', position: { path: 'Core/Store.cs', line: 3, column: 14 } });
    assert.equal((doc.items[0] as unknown as { summary?: string }).summary, 'Keeps items safe.');
    const diag = (await query({ op: 'diagnostics', position: { path: 'Core/Store.cs', line: 1, column: 1 } })).items as unknown as { id: string; severity: string; line: number }[];
    assert.deepEqual(
      diag.filter((d) => d.severity === 'error').map((d) => `${d.id}:${d.line}`),
      ['CS0103:6'],
    );
    const perProject = await query({ op: 'diagnostics', scope: [key('Core'), key('App')] });
    const rows = perProject.items as unknown as { id: string; projectKey: string; severity: string }[];
    assert.deepEqual(
      rows.filter((d) => d.severity === 'error').map((d) => `${d.id}|${d.projectKey}`),
      [`CS0103|${key('Core')}`],
    );
    assert.deepEqual(perProject.searched.sort(), [key('App'), key('Core')].sort());
  });

  it('diagnostics and a definition answer by their deadline: projects not compiled by then are listed, a document keeps its syntax errors', async () => {
    // Fresh projects (never compiled) of 150 documents each: no 1 ms deadline can be met by them.
    const filler = (ns: string) =>
      Array.from({ length: 150 }, (_, i) => {
        write(`${ns}/F${i}.cs`, `namespace ${ns};\npublic class F${i}\n{\n${Array.from({ length: 20 }, (_, j) => `    public int M${j}(int a) { var b = a * ${j}; return b + M${(j + 1) % 20}(a - 1); }\n`).join('')}}\n`);
        return `${ns}/F${i}.cs`;
      });
    write('Diag1/Bad.cs', 'namespace Diag1;\npublic class Bad\n{\n    public void M() { Missing(); int x = 1 }\n}\n');
    write('Diag2/Other.cs', 'namespace Diag2;\npublic class Other { public void N() { AlsoMissing(); } }\n');
    write('Diag3/Third.cs', 'namespace Diag3;\npublic class Third { }\n');
    await req(HostMethods.ensure, { projects: [describeProject('Diag1', [], ['Diag1/Bad.cs', ...filler('Diag1')]), describeProject('Diag2', [], ['Diag2/Other.cs', ...filler('Diag2')]), describeProject('Diag3', [], ['Diag3/Third.cs', ...filler('Diag3')])] });
    type DiagAnswer = { items: { id: string; projectKey: string; severity: string }[]; searched: string[]; notSearched: { key: string; reason: string }[]; syntaxOnly?: boolean };
    const doc = (await query({ op: 'diagnostics', position: { path: 'Diag1/Bad.cs', line: 1, column: 1 }, options: { deadlineMs: 1 } })) as unknown as DiagAnswer;
    assert.equal(doc.syntaxOnly, true);
    assert.deepEqual(doc.items.filter((d) => d.severity === 'error').map((d) => d.id), ['CS1002']); // "; expected" (the parse), not CS0103 (binding)
    assert.deepEqual(doc.notSearched.map((n) => `${n.key}|${n.reason}`), [`${key('Diag1')}|deadline`]);
    // (Diag1 is now compiling off the queue; Diag2 and Diag3 were never touched)
    const scope = (await query({ op: 'diagnostics', scope: [key('Diag2'), key('Diag3')], options: { deadlineMs: 1 } })) as unknown as DiagAnswer;
    assert.deepEqual(scope.searched, []);
    assert.deepEqual(scope.notSearched.map((n) => `${n.key}|${n.reason}`).sort(), [`${key('Diag2')}|deadline`, `${key('Diag3')}|deadline`]);
    assert.deepEqual(scope.items, []);
    // A definition on a project still cold answers by its deadline (unanswered, not "no symbol"), then works.
    type DefAnswer = { symbol: { name: string } | null; reason?: string; notSearched: { key: string; reason: string }[]; items: unknown[] };
    write('Diag4/Use.cs', 'namespace Diag4;\npublic class Use { public int M() => new F1().M0(1); }\n');
    await req(HostMethods.ensure, { projects: [describeProject('Diag4', [], ['Diag4/Use.cs', ...filler('Diag4')])] });
    const cold = (await query({ op: 'definition', position: { path: 'Diag4/Use.cs', line: 2, column: 47 }, options: { deadlineMs: 1 } })) as unknown as DefAnswer;
    assert.equal(cold.symbol ?? null, null);
    assert.match(String(cold.reason), /^deadline: /);
    assert.deepEqual(cold.notSearched.map((n) => `${n.key}|${n.reason}`), [`${key('Diag4')}|deadline`]);
    const warm = (await query({ op: 'definition', position: { path: 'Diag4/Use.cs', line: 2, column: 47 } })) as unknown as DefAnswer;
    assert.equal(warm.symbol?.name, 'M0');
    assert.equal(warm.items.length, 1);
    // Without a deadline: everything, as before.
    const full = (await query({ op: 'diagnostics', scope: [key('Diag1'), key('Diag2')] })) as unknown as DiagAnswer;
    assert.deepEqual(full.items.filter((d) => d.severity === 'error').map((d) => d.id).sort(), ['CS0103', 'CS0103', 'CS1002']);
    assert.equal(full.notSearched.length, 0);
    assert.equal(full.syntaxOnly, undefined);
  });

  it('a references search cut at its deadline answers partial and compiles the projects it did not reach in the background', async () => {
    for (let i = 0; i < 8; i++) {
      write(`Late${i}/Late.cs`, `namespace Late${i};\npublic class Late${i} : Core.RepoBase { }\n`);
    }
    await req(HostMethods.ensure, { projects: Array.from({ length: 8 }, (_, i) => describeProject(`Late${i}`, ['Core'], [`Late${i}/Late.cs`])) });
    const lateKeys = Array.from({ length: 8 }, (_, i) => key(`Late${i}`));
    const r = (await query({ op: 'references', position: { path: 'Core/Repo.cs', line: 3, column: 23 }, scope: lateKeys, options: { deadlineMs: 1, batchProjects: 1 } })) as unknown as { notSearched: { key: string; reason: string }[] };
    assert.ok(r.notSearched.length > 0 && r.notSearched.every((n) => n.reason === 'deadline'), JSON.stringify(r.notSearched));
    const logged = () => host.status().stderrTail.some((l) => /background compile after a deadline: [1-9]\d* projects/.test(l));
    for (let i = 0; i < 200 && !logged(); i++) await new Promise((res) => setTimeout(res, 100));
    assert.ok(logged(), host.status().stderrTail.slice(-5).join(' | '));
    // asked again, the same search is complete
    const again = await query({ op: 'references', position: { path: 'Core/Repo.cs', line: 3, column: 23 }, scope: lateKeys });
    assert.equal(again.searched.length, 8);
  });

  it('symbol info lists the overridden chain and every source member a call dispatches through (protocol 3)', async () => {
    const info = await query({ op: 'symbolInfo', position: { path: 'Net/Remote.cs', line: 4, column: 26 } });
    const row = info.items[0] as unknown as { overriddenChain?: { docId: string }[]; dispatchers?: { docId: string; via: string }[] };
    assert.deepEqual(row.overriddenChain?.map((o) => o.docId), ['M:Core.RepoBase.Save']);
    assert.deepEqual(row.dispatchers?.map((d) => `${d.docId}|${d.via}`).sort(), ['M:Core.IRepo.Save|interface', 'M:Core.RepoBase.Save|base']);
  });

  it('a doc id naming a type the compilation cannot resolve still finds its symbol', async () => {
    write('Loose/Sender.cs', 'namespace Loose;\npublic class Sender\n{\n    public void Send<T>(Missing.Thing<T> t, int n) { }\n    public void Send(int n) { }\n    public static void Call(Sender s) => s.Send<int>(null!, 1);\n}\n');
    await req(HostMethods.ensure, { projects: [describeProject('Loose', [], ['Loose/Sender.cs'])] });
    const info = await query({ op: 'symbolInfo', position: { path: 'Loose/Sender.cs', line: 4, column: 17 } });
    const docId = info.symbol?.display && (info.items[0] as unknown as { symbol: { docId: string } }).symbol.docId;
    assert.match(String(docId), /^M:Loose\.Sender\.Send``1\(/);
    const byId = await query({ op: 'callers', symbol: { docId, projectKey: key('Loose') }, scope: [key('Loose')] });
    assert.equal(byId.symbol?.name, 'Send');
    assert.deepEqual(byId.items.map((c) => c.from!.name), ['Call']);
  });
});

describe('roslyn host: a question bigger than a small memory cap', function () {
  this.timeout(240_000);
  let dir: string;
  let host: RoslynHost;
  const ac = new AbortController();
  const req = <R>(method: string, params: unknown) => host.request<R>(method, params, { signal: ac.signal, deadline: Date.now() + 180_000 });
  const key = (name: string) => `${name}/${name}.csproj|net10.0`;
  const describeProject = (name: string, refs: string[], docs: string[]) => ({
    key: key(name),
    projectPath: `${name}/${name}.csproj`,
    name,
    assemblyName: name,
    targetFramework: 'net10.0',
    defines: ['NET'],
    globalUsings: [],
    documents: docs.map((p) => ({ path: p })),
    projectReferences: refs.map(key),
    packageReferences: [],
    frameworkReferences: [],
    references: [],
    analyzers: [],
    hash: `${name}:${refs.join(',')}`,
  });

  before(async function () {
    if (!locateRoslynHost().ok) this.skip();
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-roslyn-cap-')));
    const projects = [describeProject('Core', [], ['Core/Base.cs'])];
    fs.mkdirSync(path.join(dir, 'Core'));
    fs.writeFileSync(path.join(dir, 'Core/Base.cs'), 'namespace Core;\npublic abstract class Base { }\n');
    for (let i = 0; i < 40; i++) {
      fs.mkdirSync(path.join(dir, `L${i}`));
      fs.writeFileSync(path.join(dir, `L${i}/L.cs`), `namespace L${i};\npublic class L${i} : Core.Base { }\n`);
      projects.push(describeProject(`L${i}`, ['Core'], [`L${i}/L.cs`]));
    }
    // 1 MB: every batch leaves the managed heap over the cap, so the host evicts between batches.
    host = new RoslynHost({ root: dir, memoryCapMb: 1 });
    assert.ok((await host.acquire(60_000, ac.signal)).ok);
    await req(HostMethods.ensure, { projects });
  });

  after(() => {
    host?.kill();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('streams its scope through (load, search, evict) and the answer is still complete', async () => {
    const r = await req<{ items: { path: string }[]; searched: string[]; notSearched: unknown[]; stats: { projectsEvicted: number } }>(HostMethods.query, {
      op: 'references',
      position: { path: 'Core/Base.cs', line: 2, column: 23 },
      options: { batchProjects: 4 },
    });
    assert.deepEqual(r.notSearched, []);
    assert.equal(r.searched.length, 41);
    assert.deepEqual(
      r.items.map((x) => x.path).sort(),
      Array.from({ length: 40 }, (_, i) => `L${i}/L.cs`).sort(),
    );
    assert.ok(r.stats.projectsEvicted > 0, `evicted ${r.stats.projectsEvicted}`);
    const st = await req<{ evictions: number; loadedProjects: number }>(HostMethods.status, {});
    assert.ok(st.evictions > 0 && st.loadedProjects < 41, JSON.stringify(st));
  });
});
