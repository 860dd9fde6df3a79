/**
 * Binding gaps and callers through implementations, end to end: a real MCP client over real stdio,
 * the built CLI, the REAL Roslyn host (issue 23 items 1 and 5). The workspace is written here and
 * never restored:
 * - Shop.Data / Shop.App reference a package no feed serves (Contoso.Data.Client), so its types are
 *   error types: `session.Execute(…)` (an extension method on the package's DbSession) binds to
 *   nothing. Those mentions come back as rows with confidence "unbound", blocked_by DbSession, and
 *   the answer is precise_partial naming the package; a helper whose calls do bind stays precise.
 * - Shop.Core (no packages): callers of an interface / abstract / virtual member include the calls
 *   bound to its implementations and overrides (via + binds_to), and method-group uses are caller
 *   rows of kind "reference". Its internal IDiscount is implemented and called in Shop.Promo, which
 *   its <InternalsVisibleTo> item names (the SDK's generated AssemblyInfo grants the access).
 * - A framework type (IHostedService, from the ASP.NET Core targeting pack in Web) is mentioned in Jobs,
 *   whose package for it is missing: Jobs is searched and its mention is an unbound row.
 * - Feed's Pump derives from the framework's BackgroundService and never names IHostedService: the
 *   implementations of IHostedService still search Feed (the host names the framework types deriving
 *   from it, protocol 8).
 * - The same callers rule in TypeScript (web/pricing.ts, the engine's TS host).
 * Expected locations are the files below (1-based line:column of the name).
 */
import * as assert from 'node:assert/strict';
import { skipWithoutDotnet } from '../../helpers/csharpLs';
import { call } from '../../helpers/mcpClient';
import { servedTree } from '../../helpers/servedTree';

const NO_FEED_PACKAGE = 'Contoso.Data.Client';
/** The package Jobs would get the hosting abstractions from; no feed serves it either. */
const NO_FEED_HOSTING = 'Contoso.Hosting.Unserved';

/** A net10.0 SDK project file with these options on and these items. */
function sdkProject(on: ('nullable' | 'implicitUsings')[], items: string[] = []): string {
  const props = [`    <TargetFramework>net10.0</TargetFramework>`, ...(on.includes('nullable') ? [`    <Nullable>enable</Nullable>`] : []), ...(on.includes('implicitUsings') ? [`    <ImplicitUsings>enable</ImplicitUsings>`] : [])];
  const group = items.length ? `  <ItemGroup>\n${items.map((i) => `    ${i}\n`).join('')}  </ItemGroup>\n` : '';
  return `<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup>\n${props.join('\n')}\n  </PropertyGroup>\n${group}</Project>\n`;
}

const FILES: Record<string, string> = {
  'Shop.Data/Shop.Data.csproj': sdkProject(['nullable'], [`<PackageReference Include="${NO_FEED_PACKAGE}" Version="1.0.0" />`]),
  'Shop.Data/Db.cs': `using Contoso.Data;

namespace Shop.Data;

public static class Db
{
    public static int Execute(this DbSession session, string sql) => sql.Length;

    public static void Audit(ILogSink sink, string message) { }

    public static int Count(string table) => table.Length;
}
`,
  'Shop.App/Shop.App.csproj': sdkProject(['nullable'], [`<ProjectReference Include="../Shop.Data/Shop.Data.csproj" />`, `<PackageReference Include="${NO_FEED_PACKAGE}" Version="1.0.0" />`]),
  'Shop.App/Orders.cs': `using Contoso.Data;
using Shop.Data;

namespace Shop.App;

public sealed class Orders
{
    private readonly DbSession session;
    private readonly ILogSink sink;

    public Orders(DbSession session, ILogSink sink)
    {
        this.session = session;
        this.sink = sink;
    }

    public int Place(string id)
    {
        Db.Audit(sink, "placing " + id);
        return session.Execute("insert " + id) + Db.Count("orders");
    }

    public int Purge() => session.Execute("delete");

    public void Close() => session.Flush();
}
`,
  'Shop.App/Batch.cs': `using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Contoso.Data;

namespace Shop.App;

public sealed class Bus { }

public static class Batch
{
    public static Task<int> StartAsync(this Bus bus, TimeSpan timeout) => Task.FromResult(0);

    public static Task StartAll(DbSession[] sessions, CancellationToken token) => Task.WhenAll(sessions.Select(s => s.StartAsync(token)));
}
`,
  'Shop.Data/Formats.cs': `using System;

namespace Shop.Data;

public static class Formats
{
    public static int Measure(string text) => text.Length;

    public static int Measure(ReadOnlySpan<byte> bytes) => bytes.Length;
}
`,
  'Shop.App/Render.cs': `using Contoso.Data;
using Shop.Data;

namespace Shop.App;

public static class Render
{
    public static int Show(DbSession session)
    {
        var text = session.Snapshot();
        return Formats.Measure(text);
    }
}
`,
  'Shop.Core/Fanout.cs': `namespace Shop.Core;

public static class Fanout
{
    public static Task All(IEnumerable<Task> tasks) => Task.WhenAll(tasks);
}
`,
  'Shop.Core/Report.cs': `namespace Shop.Core;

public class Report
{
    public virtual string Build() => "report";

    public string Title() => "title";
}
`,
  'Shop.Report/Shop.Report.csproj': sdkProject(['nullable'], [`<ProjectReference Include="../Shop.Core/Shop.Core.csproj" />`, `<PackageReference Include="${NO_FEED_PACKAGE}" Version="1.0.0" />`]),
  'Shop.Report/Views.cs': `using Contoso.Data;
using Shop.Core;

namespace Shop.Views;

public sealed class SessionView : DbSession
{
    public string Render() => base.Build();
}

public sealed class Summary : Report
{
    public override string Build() => base.Build() + Title();

    public string Head() => Contoso.Defaults.Current.Title();
}
`,
  'Shop.Core/Shop.Core.csproj': sdkProject(['nullable', 'implicitUsings'], [`<InternalsVisibleTo Include="Shop.Promo" />`]),
  'Shop.Core/Discount.cs': `namespace Shop.Core;

internal interface IDiscount
{
    decimal Apply(decimal price);
}
`,
  'Shop.Promo/Shop.Promo.csproj': sdkProject(['nullable'], [`<ProjectReference Include="../Shop.Core/Shop.Core.csproj" />`]),
  'Shop.Promo/Seasonal.cs': `using Shop.Core;

namespace Shop.Promo;

internal sealed class Seasonal : IDiscount
{
    public decimal Apply(decimal price) => price * 0.9m;

    public static decimal Run(IDiscount discount) => discount.Apply(10m);
}
`,
  'Shop.Core/Pricing.cs': `namespace Shop.Core;

public interface IPricer
{
    decimal Price(string sku);
}

public abstract class PricerBase : IPricer
{
    public abstract decimal Price(string sku);

    public virtual string Describe() => "base";
}

public sealed class FlatPricer : PricerBase
{
    public override decimal Price(string sku) => 1m;

    public override string Describe() => "flat";
}

public sealed class TablePricer : IPricer
{
    public decimal Price(string sku) => 2m;

    public static decimal Parse(string text) => decimal.Parse(text);
}
`,
  'Shop.Core/Checkout.cs': `namespace Shop.Core;

public static class Checkout
{
    public static event Action? Changed;

    public static decimal Flat(FlatPricer pricer, string sku) => pricer.Price(sku);

    public static decimal Table(TablePricer pricer) => pricer.Price("table");

    public static decimal Any(IPricer pricer) => pricer.Price("any");

    public static string Label(FlatPricer pricer) => pricer.Describe();

    public static decimal[] ParseAll(string[] items) => items.Select(TablePricer.Parse).ToArray();

    public static void Wire() => Changed += OnChanged;

    public static void Fire() => OnChanged();

    static void OnChanged() { }
}
`,
  'Web/Web.csproj': sdkProject(['implicitUsings'], [`<FrameworkReference Include="Microsoft.AspNetCore.App" />`]),
  'Web/Worker.cs': `using Microsoft.Extensions.Hosting;
namespace Web;

public sealed class Worker : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
`,
  'Feed/Feed.csproj': sdkProject(['implicitUsings'], [`<FrameworkReference Include="Microsoft.AspNetCore.App" />`]),
  'Feed/Pump.cs': `using Microsoft.Extensions.Hosting;
namespace Feed;

public sealed class Pump : BackgroundService
{
    protected override Task ExecuteAsync(CancellationToken stoppingToken) => Task.CompletedTask;
}
`,
  'Jobs/Jobs.csproj': sdkProject(['implicitUsings'], [`<PackageReference Include="${NO_FEED_HOSTING}" Version="1.0.0" />`]),
  'Jobs/Job.cs': `using Microsoft.Extensions.Hosting;
namespace Jobs;

public sealed class Job : IHostedService
{
    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;
}
`,
  'Jobs/Sweeper.cs': `using Microsoft.Extensions.Hosting;
namespace Jobs;

public sealed class Sweeper : BackgroundService
{
    protected override Task ExecuteAsync(CancellationToken stoppingToken) => Task.CompletedTask;
}
`,
  'tsconfig.json': `{ "compilerOptions": { "target": "es2022", "strict": true }, "include": ["web"] }\n`,
  'web/pricing.ts': `export interface Pricer {
  price(sku: string): number;
}

export class FlatPricer implements Pricer {
  price(sku: string): number {
    return sku.length;
  }
}

export class BasePricer {
  describe(): string {
    return 'base';
  }
}

export class NamedPricer extends BasePricer {
  override describe(): string {
    return 'named';
  }
}

export function flat(p: FlatPricer): number {
  return p.price('x');
}

export function any(p: Pricer): number {
  return p.price('y');
}

export function label(p: NamedPricer): string {
  return p.describe();
}
`,
};

describe('semantic: binding gaps named and callers through implementations over MCP (real Roslyn host) @integration', function () {
  this.timeout(600_000);
  const served = servedTree('roslyn-binding', FILES);

  before(function () {
    skipWithoutDotnet(this);
  });

  /** Asks until the Roslyn host answered (a cold host can outlast one tool deadline on a loaded machine). */
  const ask = async (tool: string, args: Record<string, unknown>): Promise<any> => {
    let r: any;
    for (let i = 0; i < 12; i++) {
      r = await call(served.c.client, tool, { waitMs: 8_000, ...args });
      // a cold host cut by the tool's deadline says "not searched": ask again (it goes on meanwhile)
      if (r.provider === 'roslyn' && (r.mode === 'precise' || (r.mode === 'precise_partial' && !/not searched/.test(r.completeness?.partial ?? '')))) return r;
    }
    return r;
  };
  const askTs = async (tool: string, args: Record<string, unknown>): Promise<any> => {
    let r: any;
    for (let i = 0; i < 6; i++) {
      r = await call(served.c.client, tool, { waitMs: 8_000, ...args });
      if (r.mode === 'precise' || r.mode === 'precise_partial') return r;
    }
    return r;
  };
  const at = (r: { path: string; line: number; column: number }) => `${r.path}:${r.line}:${r.column}`;
  const edges = (r: any) =>
    (r.items as any[])
      .map((e) => `${e.caller.name}${e.via ? ` via ${e.via} ${e.binds_to}` : ''}${e.kind ? ` (${e.kind})` : ''}${e.confidence === 'unbound' ? ` unbound by ${e.blocked_by}` : ''}`)
      .sort();

  it('references of an extension method on a package type that was never restored: its unbound call sites are rows, the answer precise_partial naming the package', async () => {
    const r = await ask('references', { target: { qualifiedName: 'Shop.Data.Db.Execute' }, group_by: 'none', include_definition: false });
    console.log(`      ${r.summary}`);
    assert.equal(r.mode, 'precise_partial', r.summary);
    assert.deepEqual(r.items.map((x: any) => `${at(x)} ${x.confidence} ${x.blocked_by}`), ['Shop.App/Orders.cs:20:24 unbound DbSession', 'Shop.App/Orders.cs:23:35 unbound DbSession']);
    assert.equal(r.counts.unbound, 2);
    assert.match(r.summary, /^2 references to Execute across 1 project .*2 of them unbound/);
    assert.match(r.completeness.partial, new RegExp(`2 mentions could not be bound \\(package ${NO_FEED_PACKAGE}/1\\.0\\.0 not restored; blocked by DbSession\\)`));

    // The control: a helper in the same unrestored projects whose calls bind is plain precise, every row exact.
    const count = await ask('references', { target: { qualifiedName: 'Shop.Data.Db.Count' }, group_by: 'none', include_definition: false });
    assert.equal(count.mode, 'precise', count.summary);
    assert.deepEqual(count.items.map((x: any) => `${at(x)} ${x.confidence}`), ['Shop.App/Orders.cs:20:53 exact']);
    assert.equal(count.counts.unbound, undefined);
  });

  it('callers of that extension method: the members with unbound call sites are edges labelled unbound; definition at an unbound use names the declaration it can mean', async () => {
    const r = await ask('callers', { target: { qualifiedName: 'Shop.Data.Db.Execute' } });
    console.log(`      ${r.summary}`);
    assert.equal(r.mode, 'precise_partial', r.summary);
    assert.equal(r.availability, 'partial');
    assert.deepEqual(edges(r), ['Place unbound by DbSession', 'Purge unbound by DbSession']);
    assert.match(r.summary, /2 unbound/);
    assert.match(r.completeness.partial, new RegExp(`package ${NO_FEED_PACKAGE}/1\\.0\\.0 not restored`));

    const d = await ask('definition', { target: { path: 'Shop.App/Orders.cs', line: 23, column: 35 } });
    console.log(`      ${d.summary}`);
    assert.equal(d.mode, 'precise_partial', d.summary);
    assert.deepEqual(d.items.map((x: any) => `${at(x)} ${x.confidence} ${x.blocked_by}`), ['Shop.Data/Db.cs:7:23 unbound DbSession']);
    assert.match(d.completeness.partial, /`Execute` at the position could not be bound \(DbSession is unresolved; package Contoso\.Data\.Client\/1\.0\.0 not restored\)/);
  });

  it('callers asked at an unbound call site: of the one declaration the name can mean, saying so; of a name no declaration has, no precise answer (never "0 callers", precise)', async () => {
    const r = await ask('callers', { target: { path: 'Shop.App/Orders.cs', line: 23, column: 35 } });
    console.log(`      ${r.summary}`);
    assert.equal(r.mode, 'precise_partial', r.summary);
    assert.deepEqual(edges(r), ['Place unbound by DbSession', 'Purge unbound by DbSession']);
    assert.match(r.completeness.partial, /`Execute` at the position could not be bound .*the target is the one declaration of that name it can mean/);
    const none = await call(served.c.client, 'callers', { waitMs: 8_000, target: { path: 'Shop.App/Orders.cs', line: 25, column: 36 } });
    console.log(`      ${none.summary}`);
    assert.notEqual(none.mode, 'precise', none.summary);
    assert.notEqual(none.mode, 'precise_partial', none.summary);
  });

  it('references of a framework type asked where it binds: a project whose package is missing is searched, its mention an unbound row (not a project "searched" clean)', async () => {
    const r = await ask('references', { target: { path: 'Web/Worker.cs', line: 4, column: 30 }, group_by: 'none', include_definition: false });
    console.log(`      ${r.summary}`);
    assert.equal(r.mode, 'precise_partial', r.summary);
    assert.deepEqual(r.items.map((x: any) => `${at(x)} ${x.confidence}${x.blocked_by ? ` ${x.blocked_by}` : ''}`), ['Jobs/Job.cs:4:27 unbound IHostedService', 'Web/Worker.cs:4:30 exact']);
    assert.match(r.completeness.partial, new RegExp(`1 mention could not be bound \\(package ${NO_FEED_HOSTING}/1\\.0\\.0 not restored; blocked by IHostedService\\)`));
  });

  it('implementations of a framework interface include a class deriving from a framework class that implements it, in a project that never names the interface', async () => {
    const r = await ask('implementations', { target: { path: 'Web/Worker.cs', line: 4, column: 30 } });
    console.log(`      ${r.summary}`);
    assert.deepEqual(r.items.filter((x: any) => x.confidence !== 'unbound').map(at).sort(), ['Feed/Pump.cs:4:21', 'Web/Worker.cs:4:21']);
  });

  it('implementations and subtypes of a framework interface: types whose unresolved base is spelled like it, or like a framework type deriving from it, are unbound rows, the answer precise_partial', async () => {
    const r = await ask('implementations', { target: { path: 'Web/Worker.cs', line: 4, column: 30 } });
    console.log(`      ${r.summary} | ${r.completeness?.partial ?? ''}`);
    assert.equal(r.mode, 'precise_partial', r.summary);
    assert.deepEqual(r.items.map((x: any) => `${at(x)} ${x.confidence}${x.blocked_by ? ` ${x.blocked_by}` : ''}`).sort(), ['Feed/Pump.cs:4:21 exact', 'Jobs/Job.cs:4:21 unbound IHostedService', 'Jobs/Sweeper.cs:4:21 unbound BackgroundService', 'Web/Worker.cs:4:21 exact']);
    assert.match(r.completeness.partial, new RegExp(`2 mentions could not be bound \\(package ${NO_FEED_HOSTING}/1\\.0\\.0 not restored; blocked by (IHostedService, BackgroundService|BackgroundService, IHostedService)\\)`));

    const th = await ask('type_hierarchy', { target: { path: 'Web/Worker.cs', line: 4, column: 30 }, direction: 'subtypes', depth: 1 });
    console.log(`      ${th.summary}`);
    assert.equal(th.mode, 'precise_partial', th.summary);
    const sub = th.items.filter((n: any) => n.relation === 'subtype').map((n: any) => `${n.name} ${n.confidence}`).sort();
    assert.deepEqual(sub, ['BackgroundService exact', 'Job unbound', 'Worker exact']);
  });

  it('references of one overload: a call Roslyn bound to another overload because an argument\'s type is unresolved is an unbound row, the answer precise_partial', async () => {
    const r = await ask('references', { target: { path: 'Shop.Core/Fanout.cs', line: 5, column: 61 }, group_by: 'none', include_definition: false });
    console.log(`      ${r.summary} | ${r.completeness?.partial ?? ''}`);
    assert.equal(r.mode, 'precise_partial', r.summary);
    assert.deepEqual(r.items.map((x: any) => `${at(x)} ${x.confidence}${x.blocked_by ? ` ${x.blocked_by}` : ''}`), ['Shop.App/Batch.cs:15:88 unbound DbSession', 'Shop.Core/Fanout.cs:5:61 exact']);
    const callers = await ask('callers', { target: { path: 'Shop.Core/Fanout.cs', line: 5, column: 61 } });
    assert.deepEqual(edges(callers), ['All', 'StartAll unbound by DbSession']);
    // Roslyn's error recovery bound it to WhenAll<TResult>(IEnumerable<Task<TResult>>) (the lambda's one candidate returns Task<int>)
    const d = await ask('definition', { target: { path: 'Shop.App/Batch.cs', line: 15, column: 88 } });
    assert.match(JSON.stringify(d.items), /WhenAll<TResult>/);
  });

  it('callers of one overload: a call Roslyn bound to it while its argument\'s type is unresolved (a local of an error type) is an unbound edge, not a claimed one', async () => {
    const span = await ask('callers', { target: { path: 'Shop.Data/Formats.cs', line: 9, column: 23 } });
    console.log(`      ${span.summary} | ${span.completeness?.partial ?? ''}`);
    assert.equal(span.mode, 'precise_partial', span.summary);
    assert.deepEqual(edges(span), ['Show unbound by DbSession']);
    const text = await ask('callers', { target: { path: 'Shop.Data/Formats.cs', line: 7, column: 23 } });
    assert.deepEqual(edges(text), ['Show unbound by DbSession']);
  });

  it('mentions that cannot be of a workspace member whatever the missing package holds are no unbound rows: base.M() in a class deriving from a package type, an instance member reached through a package\'s static members', async () => {
    const build = await ask('references', { target: { qualifiedName: 'Shop.Core.Report.Build' }, group_by: 'none', include_definition: false });
    console.log(`      ${build.summary}`);
    assert.equal(build.mode, 'precise', `${build.summary} ${build.completeness?.partial ?? ''}`);
    assert.ok(!build.items.some((x: any) => x.confidence === 'unbound'), JSON.stringify(build.items));
    assert.ok(build.items.some((x: any) => at(x) === 'Shop.Report/Views.cs:13:44'), JSON.stringify(build.items.map(at)));
    const title = await ask('references', { target: { qualifiedName: 'Shop.Core.Report.Title' }, group_by: 'none', include_definition: false });
    assert.equal(title.mode, 'precise', `${title.summary} ${title.completeness?.partial ?? ''}`);
    assert.deepEqual(title.items.map((x: any) => `${at(x)} ${x.confidence}`), ['Shop.Report/Views.cs:13:54 exact']);
  });

  it('definition of a namespace: no declaration rows (every `namespace N` line is an equal part), precise, saying why', async () => {
    const d = await ask('definition', { target: { path: 'Shop.Core/Report.cs', line: 1, column: 16 } });
    console.log(`      ${d.summary} ${JSON.stringify(d.notes ?? d.completeness ?? '')}`);
    assert.equal(d.mode, 'precise', d.summary);
    assert.equal(d.items.length, 0, JSON.stringify(d.items));
    assert.match(JSON.stringify(d), /is a namespace: it has no single declaration/);
  });

  it('callers of an interface member include the calls bound to its implementations; of an abstract member the calls to its overrides', async () => {
    const price = await ask('callers', { target: { qualifiedName: 'Shop.Core.IPricer.Price' } });
    console.log(`      ${price.summary}`);
    assert.equal(price.mode, 'precise', price.summary);
    assert.deepEqual(edges(price), ['Any', 'Flat via implementation Shop.Core.FlatPricer.Price(System.String)', 'Table via implementation Shop.Core.TablePricer.Price(System.String)']);
    assert.match(price.summary, /2 through an implementation or override/);

    const abstract = await ask('callers', { target: { qualifiedName: 'Shop.Core.PricerBase.Price' } });
    assert.deepEqual(edges(abstract), ['Any', 'Flat via override Shop.Core.FlatPricer.Price(System.String)']);
    const virt = await ask('callers', { target: { qualifiedName: 'Shop.Core.PricerBase.Describe' } });
    assert.deepEqual(edges(virt), ['Label via override Shop.Core.FlatPricer.Describe']);
  });

  it('an internal interface implemented and called in a project its InternalsVisibleTo item names: found, precise (the SDK\'s AssemblyInfo attribute is compiled)', async () => {
    const impl = await ask('implementations', { target: { qualifiedName: 'Shop.Core.IDiscount' } });
    console.log(`      ${impl.summary}`);
    assert.equal(impl.mode, 'precise', impl.summary);
    assert.deepEqual(impl.items.map(at), ['Shop.Promo/Seasonal.cs:5:23']);
    const refs = await ask('references', { target: { qualifiedName: 'Shop.Core.IDiscount' }, group_by: 'none', include_definition: false });
    assert.equal(refs.mode, 'precise', refs.summary);
    assert.deepEqual(refs.items.map((x: any) => `${at(x)} ${x.confidence}`), ['Shop.Promo/Seasonal.cs:5:34 exact', 'Shop.Promo/Seasonal.cs:9:31 exact']);
    const callers = await ask('callers', { target: { qualifiedName: 'Shop.Core.IDiscount.Apply' } });
    assert.deepEqual(edges(callers), ['Run']);
  });

  it('TypeScript (the engine\'s TS host): callers of an interface member and of an overridable method include the calls bound to their implementations / overrides', async () => {
    const price = await askTs('callers', { target: { qualifiedName: 'Pricer.price' } });
    console.log(`      ${price.summary} (${price.provider})`);
    assert.equal(price.mode, 'precise', price.summary);
    assert.deepEqual(edges(price), ['any', 'flat via implementation FlatPricer.price']);
    const describe = await askTs('callers', { target: { qualifiedName: 'BasePricer.describe' } });
    assert.deepEqual(edges(describe), ['label via override NamedPricer.describe']);
  });

  it('method-group uses are caller edges of kind "reference"; calls stay plain', async () => {
    const parse = await ask('callers', { target: { qualifiedName: 'Shop.Core.TablePricer.Parse' } });
    assert.equal(parse.mode, 'precise', parse.summary);
    assert.deepEqual(edges(parse), ['ParseAll (reference)']);
    const handler = await ask('callers', { target: { qualifiedName: 'Shop.Core.Checkout.OnChanged' } });
    console.log(`      ${handler.summary}`);
    assert.deepEqual(edges(handler), ['Fire', 'Wire (reference)']);
    assert.match(handler.summary, /1 method-group reference/);
  });
});
