/**
 * Source generators run in the Roslyn host, and framework / package symbols as first-class targets
 * (issue 23 items 3 and 4), through the engine's nav queries with the real host on the Lantern
 * fixture (test/fixtures/lantern: restored, never built). Expected locations are the fixture's
 * (1-based line:column of the identifier).
 */
import * as assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { definitionQuery, implementationsQuery, referencesQuery, typeHierarchyQuery, type NavRow } from '../../../server/src/nav/semanticQueries';
import { disposeSemanticService, semanticService, type SemanticService } from '../../../server/src/nav/semanticService';
import { readSpans } from '../../../server/src/nav/sourceContext';
import { fileOutline } from '../../../server/src/nav/syntaxOutline';
import { findDotnet, locateRoslynHost } from '../../../server/src/semantic/roslyn/roslynHost';
import { alive, removeDir, restoreCSharp, waitFor } from './fixture';

/** A source generator that throws on every run (compiled in the test: no binary in the fixture). */
const THROWING_GENERATOR = `using Microsoft.CodeAnalysis;
[Generator]
public sealed class ThrowingGenerator : IIncrementalGenerator
{
    public void Initialize(IncrementalGeneratorInitializationContext context) =>
        context.RegisterSourceOutput(context.CompilationProvider, (spc, c) => throw new System.InvalidOperationException("the fixture generator fails on purpose"));
}
`;

/** Compiles `source` to `out` with the SDK's csc against the reference pack and the host's own Roslyn (so the generator loads in it). */
function compileGenerator(dotnet: string, hostDll: string, source: string, out: string): void {
  const root = path.dirname(fs.realpathSync(dotnet));
  const newest = (dir: string) => fs.readdirSync(dir).filter((v) => /^\d+\./.test(v)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true })).pop()!;
  const csc = path.join(root, 'sdk', newest(path.join(root, 'sdk')), 'Roslyn', 'bincore', 'csc.dll');
  const packDir = path.join(root, 'packs', 'Microsoft.NETCore.App.Ref');
  const pack = newest(packDir);
  const refDir = path.join(packDir, pack, 'ref', `net${pack.split('.')[0]}.0`);
  const src = `${out}.cs`;
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(src, source);
  const refs = [...fs.readdirSync(refDir).filter((f) => f.endsWith('.dll')).map((f) => path.join(refDir, f)), path.join(path.dirname(hostDll), 'Microsoft.CodeAnalysis.dll')];
  const r = cp.spawnSync(dotnet, [csc, '-nologo', '-noconfig', '-nostdlib', '-target:library', `-out:${out}`, ...refs.map((x) => `-r:${x}`), src], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`csc failed (${r.status}): ${r.stdout}\n${r.stderr}`);
}

const FIXTURE = path.resolve(__dirname, '../../fixtures/lantern');
const CORE = 'src/Lantern.Core/Lantern.Core.csproj|net10.0';
const REGEX_DOC = `generated:${CORE}/System.Text.RegularExpressions.Generator/System.Text.RegularExpressions.Generator.RegexGenerator/RegexGenerator.g.cs`;
const LOGGER_DOC = `generated:${CORE}/Microsoft.Extensions.Logging.Generators/Microsoft.Extensions.Logging.Generators.LoggerMessageGenerator/LoggerMessage.g.cs`;

const at = (r: { path: string; line: number; column: number }) => `${r.path}:${r.line}:${r.column}`;
const paths = (rows: readonly NavRow[]) => rows.map(at).sort();

describe('semantic: source generators and framework/package symbols (real Roslyn host, never-built fixture)', function () {
  this.timeout(300_000);
  let dir: string;
  let engine: Engine;
  let svc: SemanticService;
  const o = () => ({ deadlineAt: Date.now() + 90_000, waitForReadyMs: 90_000 });

  before(async function () {
    const host = locateRoslynHost();
    if (!host.ok) {
      if (findDotnet()) throw new Error(`dotnet is installed but ${host.reason}; run node scripts/build-roslyn-host.mjs`);
      this.skip();
    }
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-lantern-')));
    fs.cpSync(FIXTURE, dir, { recursive: true });
    // the package (Microsoft.Extensions.Logging.Abstractions) comes from the registry or the local cache
    restoreCSharp(dir, 'Lantern.slnx');
    compileGenerator(host.command.dotnet, host.command.dll, THROWING_GENERATOR, path.join(dir, 'tools/Throwing.Generator.dll'));
    // What an earlier build with EmitCompilerGeneratedFiles leaves: the host runs that generator
    // itself, so this copy must not be compiled beside its output (a second implementing part).
    const stale = path.join(dir, 'src/Lantern.Core/obj/Debug/net10.0/generated/Microsoft.Extensions.Logging.Generators/Microsoft.Extensions.Logging.Generators.LoggerMessageGenerator/LoggerMessage.g.cs');
    fs.mkdirSync(path.dirname(stale), { recursive: true });
    fs.writeFileSync(stale, 'namespace Lantern.Core;\n\npartial class Log\n{\n    public static partial void Fetched(Microsoft.Extensions.Logging.ILogger logger, string url) { }\n}\n');
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
    svc = semanticService(engine, { csharpProvider: 'roslyn', roslynPrewarm: false });
  });

  after(async function () {
    if (!engine) return;
    const pid = svc.roslyn?.host.status().pid;
    await disposeSemanticService(engine);
    await engine.close();
    if (pid !== undefined) assert.ok(await waitFor(() => !alive(pid), 5_000), 'the Roslyn host is still running after dispose');
    removeDir(dir);
  });

  it('definition of a [GeneratedRegex] partial method finds its generated part, readable through source_context and outline', async () => {
    const a = await definitionQuery(engine, { path: 'src/Lantern.Core/Patterns.cs', line: 10, column: 44 }, o());
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    assert.equal(a.rows.length, 2, JSON.stringify(a.rows));
    const own = a.rows.find((r) => r.path === 'src/Lantern.Core/Patterns.cs')!;
    assert.equal(at(own), 'src/Lantern.Core/Patterns.cs:8:33');
    const gen = a.rows.find((r) => r.path.startsWith('generated:'))!;
    assert.equal(gen.path, REGEX_DOC);
    assert.equal(gen.isGenerated, true);
    assert.equal(gen.generator, 'System.Text.RegularExpressions.Generator.RegexGenerator');
    assert.equal(gen.project, 'src/Lantern.Core/Lantern.Core.csproj');
    const read = await readSpans(engine, [{ path: gen.path, line: gen.line }], 0, 8_000);
    const slice = read.slices[0]!;
    assert.ok(!('error' in slice), JSON.stringify(slice));
    assert.match(slice.text, /partial .*Regex Word\(\)/);
    const outline = await fileOutline(engine, gen.path);
    assert.equal(outline.isGenerated, true);
    assert.ok(outline.symbols.some((s) => s.name === 'Patterns' && s.kind === 'class'), JSON.stringify(outline.symbols.map((s) => s.name)));
    assert.ok(outline.symbols.some((s) => s.name === 'Word'), 'the generated part declares Word');
  });

  it('definition of a [LoggerMessage] partial method (a package generator) finds its generated part, never an old build output beside it', async () => {
    const a = await definitionQuery(engine, { path: 'src/Lantern.Core/Fetcher.cs', line: 11, column: 13 }, o());
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    assert.deepEqual(
      a.rows.map((r) => r.path).sort(),
      [LOGGER_DOC, 'src/Lantern.Core/Log.cs'].sort(),
      'the declaring part and the generated one, nothing from obj/',
    );
    const gen = a.rows.find((r) => r.path === LOGGER_DOC)!;
    assert.equal(gen.generator, 'Microsoft.Extensions.Logging.Generators.LoggerMessageGenerator');
    const slice = (await readSpans(engine, [{ path: gen.path, line: gen.line }], 0, 8_000)).slices[0]!;
    assert.ok(!('error' in slice) && /partial void Fetched\(/.test(slice.text), JSON.stringify(slice));
  });

  it('a multi-targeting partial class has a generated part in each framework\'s compilation: definition lists both; implementations and subtypes list the class once, at its hand-written part', async () => {
    const multi = (tfm: string) => `generated:src/Lantern.Multi/Lantern.Multi.csproj|${tfm}/Microsoft.Extensions.Logging.Generators/Microsoft.Extensions.Logging.Generators.LoggerMessageGenerator/LoggerMessage.g.cs`;
    // asked until the other framework's compilation is done (its first compile may outlast the parts' wait)
    let d: Awaited<ReturnType<typeof definitionQuery>> | undefined;
    for (let i = 0; i < 6; i++) {
      d = await definitionQuery(engine, { path: 'src/Lantern.Multi/Relay.cs', line: 10, column: 29 }, o());
      if (!('ambiguous' in d) && d.mode === 'precise') break;
    }
    assert.ok(d && !('ambiguous' in d));
    assert.equal(d.mode, 'precise', `${d.reason} ${d.gaps}`);
    assert.deepEqual(d.rows.map((r) => r.path).sort(), [multi('net10.0'), multi('net9.0'), 'src/Lantern.Multi/Relay.cs'].sort());
    const impl = await implementationsQuery(engine, { path: 'src/Lantern.Multi/Relay.cs', line: 5, column: 18 }, o());
    assert.ok(!('ambiguous' in impl));
    assert.equal(impl.mode, 'precise', `${impl.reason} ${impl.gaps}`);
    assert.deepEqual(paths(impl.rows), ['src/Lantern.Multi/Relay.cs:10:29']);
    const th = await typeHierarchyQuery(engine, { path: 'src/Lantern.Multi/Relay.cs', line: 5, column: 18 }, 'subtypes', 1, 50, o());
    assert.ok(!('ambiguous' in th));
    assert.equal(th.mode, 'precise', `${th.reason} ${th.gaps}`);
    const relay = th.nodes.filter((n) => n.relation === 'subtype');
    assert.deepEqual(relay.map((n) => `${n.name} ${at(n)} ${JSON.stringify(n.partials ?? [])}`), ['Relay src/Lantern.Multi/Relay.cs:10:29 []']);
  });

  it('a package generator its build targets remove unless a property asks for it (configuration binding) does not run: no generated rows', async () => {
    // Lantern.Config calls configuration.Get<Settings>(); the Binder package's generator would write binding code naming Settings
    const a = await referencesQuery(engine, { path: 'src/Lantern.Config/Settings.cs', line: 5, column: 21 }, { ...o(), includeDefinition: false });
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    assert.deepEqual(paths(a.rows), ['src/Lantern.Config/Settings.cs:9:103', 'src/Lantern.Config/Settings.cs:9:19', 'src/Lantern.Config/Settings.cs:9:84']);
    // the project is compiled now: the binding generator's document would be readable if it had run
    const binding = `generated:src/Lantern.Config/Lantern.Config.csproj|net10.0/Microsoft.Extensions.Configuration.Binder.SourceGeneration/Microsoft.Extensions.Configuration.Binder.SourceGeneration.ConfigurationBindingGenerator/BindingExtensions.g.cs`;
    await assert.rejects(
      readSpans(engine, [{ path: binding, line: 1 }], 0, 8_000).then((r) => JSON.stringify(r.slices[0]).slice(0, 300)),
      /do not produce this document/,
      'the binding generator ran',
    );
  });

  it('an analyzer that cannot be loaded is named in the answer of its project, which still answers', async () => {
    const a = await definitionQuery(engine, { path: 'src/Lantern.Tools/Stopwatch.cs', line: 7, column: 24 }, o());
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    assert.deepEqual(paths(a.rows), ['src/Lantern.Tools/Stopwatch.cs:7:24']);
    assert.ok((a.notes ?? []).some((n) => /Broken\.Generator/.test(n) && /generator/i.test(n)), JSON.stringify(a.notes));
  });

  it('a source generator that throws is named in the answer of its project (the error it threw), which still answers', async () => {
    const a = await definitionQuery(engine, { path: 'src/Lantern.Tools/Stopwatch.cs', line: 7, column: 24 }, o());
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    assert.deepEqual(paths(a.rows), ['src/Lantern.Tools/Stopwatch.cs:7:24']);
    assert.ok((a.notes ?? []).some((n) => /source generator ThrowingGenerator threw in src\/Lantern\.Tools/.test(n) && /fails on purpose/.test(n)), JSON.stringify(a.notes));
  });

  it('definition of a partial method whose generator cannot run is precise_partial, naming the missing part', async () => {
    const a = await definitionQuery(engine, { path: 'src/Lantern.Tools/Audit.cs', line: 7, column: 32 }, o());
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise_partial', `${a.mode} ${a.gaps}`);
    assert.deepEqual(paths(a.rows), ['src/Lantern.Tools/Audit.cs:7:32']);
    assert.match(a.gaps[0] ?? '', /implementing part is not in this compilation/);
  });

  it('references of a framework method span the projects that reference its assembly, by use site and by documentation id', async () => {
    const byUse = await referencesQuery(engine, { path: 'src/Lantern.Core/Fetcher.cs', line: 10, column: 41 }, { ...o(), includeDefinition: false });
    assert.ok(!('ambiguous' in byUse));
    assert.equal(byUse.mode, 'precise', `${byUse.reason} ${byUse.gaps}`);
    assert.deepEqual(paths(byUse.rows), ['src/Lantern.App/Downloader.cs:6:16', 'src/Lantern.Core/Fetcher.cs:10:41']);
    assert.ok((byUse.notes ?? []).some((n) => /System\.Net\.Http/.test(n) && /searched the 2 of 2 candidate/.test(n)), `how many of how many: ${JSON.stringify(byUse.notes)}`);
    const byId = await referencesQuery(engine, { symbolId: 'M:System.Net.Http.HttpClient.SendAsync(System.Net.Http.HttpRequestMessage)' }, { ...o(), includeDefinition: false });
    assert.ok(!('ambiguous' in byId));
    assert.equal(byId.mode, 'precise', `${byId.reason} ${byId.gaps}`);
    assert.deepEqual(paths(byId.rows), paths(byUse.rows));
  });

  it('references of a package interface skip a project that mentions its name but does not reference the package', async () => {
    const a = await referencesQuery(engine, { symbolId: 'T:Microsoft.Extensions.Logging.ILogger' }, { ...o(), includeDefinition: false });
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    const rows = paths(a.rows);
    for (const r of ['src/Lantern.Core/Fetcher.cs:5:46', 'src/Lantern.Core/Log.cs:8:40', 'src/Lantern.Core/QuietLogger.cs:5:28']) assert.ok(rows.includes(r), `${r} in ${rows}`);
    assert.ok(!rows.some((r) => r.startsWith('src/Lantern.Tools/')), 'a comment is no reference');
    assert.ok((a.notes ?? []).some((n) => /Microsoft\.Extensions\.Logging\.Abstractions/.test(n) && /searched the 2 of 3 candidate/.test(n)), JSON.stringify(a.notes));
  });

  it('type_hierarchy goes through System.Object and a package interface, with workspace subtypes', async () => {
    const a = await typeHierarchyQuery(engine, { path: 'src/Lantern.Core/QuietLogger.cs', line: 5, column: 14 }, 'both', 3, 50, o());
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    const names = (rel: string) => a.nodes.filter((n) => n.relation === rel).map((n) => n.name).sort();
    assert.deepEqual(names('supertype'), ['ILogger', 'Object']);
    assert.deepEqual(names('subtype'), ['TaggedLogger']);
    const logger = a.nodes.find((n) => n.name === 'ILogger')!;
    assert.equal(logger.external, true);
    assert.match(logger.path, /^decompiled:Microsoft\.Extensions\.Logging\.Abstractions@/);
  });

  it('implementations of a framework interface list the workspace implementors, by documentation id; more framework types derive from it than are looked up: partial, saying so', async () => {
    const a = await implementationsQuery(engine, { symbolId: 'T:System.IDisposable' }, o());
    assert.ok(!('ambiguous' in a));
    // a class deriving from any of the framework's IDisposable types (Stream, …) implements it unnamed
    assert.equal(a.mode, 'precise_partial', `${a.reason} ${a.gaps}`);
    assert.match(a.gaps.join(' '), /more framework\/package types derive from IDisposable than were looked up \(64: /);
    assert.deepEqual(paths(a.rows), ['src/Lantern.App/Cleanup.cs:3:21', 'src/Lantern.Core/Fetcher.cs:5:21']);
  });

  it('definition of a framework type says its assembly and package and is readable as decompiled source', async () => {
    const a = await definitionQuery(engine, { path: 'src/Lantern.Core/Fetcher.cs', line: 5, column: 29 }, o());
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    assert.equal(a.rows.length, 1, JSON.stringify(a.rows));
    const row = a.rows[0]!;
    assert.match(row.path, /^decompiled:System\.Net\.Http@\d+\.\d+\.\d+\.\d+\/System\.Net\.Http\.HttpClient\.cs$/);
    assert.equal(row.external, true);
    assert.match(row.assembly ?? '', /^System\.Net\.Http \d+/);
    assert.match(row.package ?? '', /^Microsoft\.NETCore\.App\.Ref \d+/);
    assert.match(row.summary ?? '', /HTTP/);
    const slice = (await readSpans(engine, [{ path: row.path, line: row.line }], 0, 8_000)).slices[0]!;
    assert.ok(!('error' in slice) && /class HttpClient\b/.test(slice.text), JSON.stringify(slice));
  });

  it('definition of a framework method that returns a value lands on the method in its decompiled type, readable there', async () => {
    // Roslyn's documentation id of a non-void method ends in `~ReturnType`; the decompiler's does not
    const a = await definitionQuery(engine, { path: 'src/Lantern.Core/Fetcher.cs', line: 10, column: 41 }, o());
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.reason} ${a.gaps}`);
    assert.equal(a.rows.length, 1, JSON.stringify(a.rows));
    const row = a.rows[0]!;
    assert.match(row.path, /^decompiled:System\.Net\.Http@\d+\.\d+\.\d+\.\d+\/System\.Net\.Http\.HttpClient\.cs$/);
    assert.match(row.signature ?? '', /HttpClient\.SendAsync\(System\.Net\.Http\.HttpRequestMessage request\)$/);
    const slice = (await readSpans(engine, [{ path: row.path, line: row.line }], 0, 8_000)).slices[0]!;
    assert.ok(!('error' in slice), JSON.stringify(slice));
    const line = slice.text.split('\n')[0]!.replace(/^\s*\d+\| /, '');
    assert.match(line, /\bTask<HttpResponseMessage> SendAsync\(HttpRequestMessage request\)/, JSON.stringify(slice));
    assert.equal(line.slice(row.column - 1, row.column - 1 + 'SendAsync'.length), 'SendAsync', `${row.line}:${row.column} ${line}`);
  });
});
