/**
 * related_tests and impact over real stdio (`sextant mcp`, built dist/cli.js), with the real
 * semantic providers behind them: Sextant's Roslyn host for C# (the generated workspace, and a
 * restored copy of the Harbor fixture with test projects), the engine's TypeScript host for the
 * generated TS workspace. Every expected row below was checked by reading the fixture sources.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { outputSchemaOf } from '../../server/src/mcp/server';
import { ALL_TOOLS } from '../../server/src/mcp/tools';
import { findDotnet, locateRoslynHost } from '../../server/src/semantic/roslyn/roslynHost';
import { cachedWorkspace } from '../fixtures/generate';
import { call, callError, connectStdio, type Connected } from '../helpers/mcpClient';
import { removeDir } from '../integration/semantic/fixture';
import { copyTree, restoreHarbor, ROSLYN_FIXTURE } from '../integration/semantic/roslynFixture';

const FULL = new Map(ALL_TOOLS.map((t) => [t.name, outputSchemaOf(t)]));

/** Calls a tool and checks the answer against its published and its full output schema. */
async function checked(c: Connected, validators: Map<string, (v: unknown) => { valid: boolean; errorMessage?: string }>, tool: string, args: Record<string, unknown>): Promise<any> {
  const sc = await call(c.client, tool, args);
  const v = validators.get(tool)!(sc);
  assert.ok(v.valid, `${tool} breaks its outputSchema: ${v.errorMessage}`);
  const full = FULL.get(tool)!.safeParse(sc);
  assert.ok(full.success, `${tool} breaks its full schema: ${full.error?.message}`);
  return sc;
}

async function validatorsOf(c: Connected): Promise<Map<string, (v: unknown) => { valid: boolean; errorMessage?: string }>> {
  const ajv = new AjvJsonSchemaValidator();
  const out = new Map<string, (v: unknown) => { valid: boolean; errorMessage?: string }>();
  for (const t of (await c.client.listTools()).tools) if (t.outputSchema) out.set(t.name, ajv.getValidator(t.outputSchema as never) as never);
  return out;
}

async function waitIndexed(c: Connected): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    const s = await call(c.client, 'repo_overview', {});
    if (s.index.status === 'fresh' && !s.index.symbolsPending && s.projects) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the index never became fresh');
}

/** Asks until the answer is precise (the provider may still be loading): the last answer. */
async function precise(c: Connected, v: Awaited<ReturnType<typeof validatorsOf>>, tool: string, args: Record<string, unknown>): Promise<any> {
  let r: any;
  for (let i = 0; i < 40; i++) {
    r = await checked(c, v, tool, args);
    if (r.mode === 'precise') return r;
    await new Promise((res) => setTimeout(res, 1000));
  }
  assert.fail(`${tool} ${JSON.stringify(args)} never answered precisely: ${r?.mode} ${r?.reason ?? ''}`);
}

const brief = (r: any) => `${r.container}.${r.name} ${r.confidence} ${r.framework ?? '-'}`;

function skipWithoutRoslyn(ctx: Mocha.Context): void {
  const host = locateRoslynHost();
  if (host.ok) return;
  if (findDotnet()) throw new Error(`dotnet is installed but ${host.reason}; run node scripts/build-roslyn-host.mjs`);
  console.log('      skipped: no dotnet (the Roslyn host cannot run)');
  ctx.skip();
}

describe('MCP over stdio: related_tests and impact @e2e', function () {
  this.timeout(600_000);

  describe('generated C# workspace (Roslyn host)', function () {
    let idx: string;
    let c: Connected;
    let v: Awaited<ReturnType<typeof validatorsOf>>;
    before(async function () {
      skipWithoutRoslyn(this);
      const ws = cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 }).root;
      idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-agent-cs-idx-'));
      c = await connectStdio(ws, idx);
      v = await validatorsOf(c);
      await waitIndexed(c);
    });
    after(async function () {
      await c?.close();
      if (idx) removeDir(idx);
    });

    it('related_tests: an NUnit [TestCase] test found through a precise reference, with its dotnet test command', async () => {
      const r = await precise(c, v, 'related_tests', { target: { qualifiedName: 'Acme.Billing.Adjustments.Application.AdjustmentService.TransferAdjustment' } });
      console.log(`      ${r.summary} ${r.items.map(brief).join(', ')}`);
      assert.deepEqual(r.items.map(brief), ['AdjustmentServiceTests.TransferAdjustment_accepts_prioritised_requests exact nunit']);
      const [row] = r.items;
      assert.equal(row.path, 'tests/Billing/Acme.Billing.Adjustments.Application.Tests/AdjustmentServiceTests.cs');
      assert.equal(row.line, 47);
      assert.equal(row.score, 100);
      assert.match(row.reasons[0], /^reference: references TransferAdjustment at line 52 \(precise\)$/);
      assert.ok(row.reasons.includes('its project references Acme.Billing.Adjustments.Application'), row.reasons.join('; '));
      assert.equal(
        row.run,
        'dotnet test tests/Billing/Acme.Billing.Adjustments.Application.Tests/Acme.Billing.Adjustments.Application.Tests.csproj --filter "FullyQualifiedName~Acme.Billing.Adjustments.Application.Tests.AdjustmentServiceTests.TransferAdjustment_accepts_prioritised_requests"',
      );
      assert.equal(r.signals.references, 'precise: 1 of 1 references in test code');
    });

    it('related_tests: an xunit [Fact] through a reference, and an NUnit test of another project through a caller (via the interface)', async () => {
      const r = await precise(c, v, 'related_tests', { target: { qualifiedName: 'Acme.Billing.Journals.Application.JournalService.CreateJournalAsync' } });
      console.log(`      ${r.summary} ${r.items.map(brief).join(', ')}`);
      // JournalServiceTests calls it; HoldingService.ImportHoldingsAsync calls it through IJournalService, and HoldingServiceTests calls that.
      assert.deepEqual(r.items.map(brief), ['JournalServiceTests.CreateJournal_returns_null_for_unknown_id exact xunit', 'HoldingServiceTests.ImportHoldings_returns_a_list exact nunit']);
      assert.equal(r.items[0].score, 100);
      assert.equal(r.items[1].score, 90);
      assert.deepEqual(r.items[1].reasons, ['caller: calls ImportHoldingsAsync, which calls CreateJournalAsync (precise, depth 2)']);
      // depth 1: only the direct reference.
      const d1 = await checked(c, v, 'related_tests', { target: { qualifiedName: 'Acme.Billing.Journals.Application.JournalService.CreateJournalAsync' }, depth: 1 });
      assert.deepEqual(d1.items.map(brief), ['JournalServiceTests.CreateJournal_returns_null_for_unknown_id exact xunit']);
    });

    it('related_tests: an NUnit fixture whose [SetUp] and field reference the class: each of its [Test]s, likely', async () => {
      const r = await precise(c, v, 'related_tests', { target: { qualifiedName: 'Acme.Billing.Holdings.Application.HoldingService' } });
      console.log(`      ${r.summary} ${r.items.map(brief).join(', ')}`);
      assert.deepEqual(r.items.map(brief), [
        'HoldingServiceTests.AssignHolding_returns_null_for_unknown_id likely nunit',
        'HoldingServiceTests.ImportHoldings_returns_a_list likely nunit',
        'HoldingServiceTests.PublishHoldingCount_is_not_negative likely nunit',
        'HoldingServiceTests.ResolveHolding_accepts_prioritised_requests likely nunit',
        'HoldingServiceTests.ValidateHoldingSummary_mentions_the_id likely nunit',
      ]);
      for (const x of r.items) assert.match(x.reasons[0], /^reference: its class references HoldingService at line \d+, outside the tests \(precise\)$/);
      assert.equal(r.signals.references, 'precise: 2 of 2 references in test code');
    });

    it('related_tests: a target that does not resolve is an error with a hint; a bare id of several compilations returns candidates', async () => {
      const e = await callError(c.client, 'related_tests', { target: { qualifiedName: 'Acme.Nothing.Here' } });
      assert.match(e, /^Error \[TARGET_NOT_FOUND\]: .+ Hint: .+/);
      const bad = await callError(c.client, 'related_tests', { target: { qualifiedName: 'X', path: 'a.cs' } });
      assert.match(bad, /^Error \[INVALID_ARGUMENT\]/);
    });
  });

  describe('generated TS workspace (TypeScript host)', function () {
    let idx: string;
    let c: Connected;
    let v: Awaited<ReturnType<typeof validatorsOf>>;
    before(async function () {
      const ws = cachedWorkspace('ts').root;
      idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-agent-ts-idx-'));
      c = await connectStdio(ws, idx);
      v = await validatorsOf(c);
      await waitIndexed(c);
    });
    after(async function () {
      await c?.close();
      if (idx) removeDir(idx);
    });

    it('related_tests: mocha it() blocks referencing a method, with npx mocha -g commands', async () => {
      const r = await precise(c, v, 'related_tests', { target: { qualifiedName: 'FleetService.findFleet' } });
      console.log(`      ${r.summary} ${r.items.map(brief).join(', ')}`);
      assert.deepEqual(r.items.map(brief), ['FleetService.finds a record it was given exact mocha']);
      assert.equal(r.items[0].path, 'libs/fleet/test/fleetService.test.ts');
      assert.equal(r.items[0].run, "npx mocha libs/fleet/test/fleetService.test.ts -g '^FleetService finds a record it was given$'");
      assert.ok(r.items[0].reasons.some((x: string) => /fleetService\.test\.ts is named after FleetService/.test(x)), r.items[0].reasons.join('; '));
    });

    it('impact of a signature change to FleetService.findFleet: the test call and the FleetApi member it implements (one package, production/test split), an exported API', async () => {
      const r = await precise(c, v, 'impact', { target: { qualifiedName: 'FleetService.findFleet' }, change_kind: 'signature' });
      const section = (name: string) => r.items.find((x: any) => x.section === name);
      console.log(`      ${r.summary}\n${r.items.map((x: any) => `        ${x.section} ${x.execution} ${x.count ?? ''} ${JSON.stringify(x.rows ?? [])}`).join('\n')}`);
      // grep: the call in libs/fleet/test/fleetService.test.ts:9 and FleetApi.findFleet (model.ts:19), which TypeScript's
      // references count with the method that implements it; both in the package @acme/fleet, one of them test code.
      assert.equal(section('references').count, 2);
      assert.deepEqual(section('references').rows, [{ project: '@acme/fleet', count: 2, test: 1 }]);
      assert.equal(section('incoming_calls').count, 1);
      assert.equal(section('tests').count, 1);
      assert.equal(section('tests').rows[0].name, 'FleetService.finds a record it was given');
      assert.equal(section('symbol').rows[0].exposure, 'exported');
      assert.equal(section('public_api').rows[0].exposure, 'exported');
    });
});

  describe('Harbor fixture, restored, with an xunit test file (Roslyn host)', function () {
    let dir: string;
    let idx: string;
    let c: Connected;
    let v: Awaited<ReturnType<typeof validatorsOf>>;
    before(async function () {
      skipWithoutRoslyn(this);
      dir = copyTree(ROSLYN_FIXTURE, 'agent-harbor');
      // An xunit test class beside the convention-only ShipTests (xunit comes from the local package cache).
      const csproj = path.join(dir, 'tests/Harbor.Tests/Harbor.Tests.csproj');
      fs.writeFileSync(csproj, fs.readFileSync(csproj, 'utf8').replace('</Project>', '  <ItemGroup>\n    <PackageReference Include="xunit" Version="2.9.2" />\n  </ItemGroup>\n</Project>'));
      fs.writeFileSync(
        path.join(dir, 'tests/Harbor.Tests/CargoFacts.cs'),
        [
          'using Harbor.Core;',
          'using Xunit;',
          '',
          'namespace Harbor.Tests;',
          '',
          'public class CargoFacts',
          '{',
          '    [Fact]',
          '    public void Describe_counts_cargo()',
          '    {',
          '        var ship = new Ship(1, "Vega");',
          '        Assert.Contains("0 containers", ship.Describe());',
          '    }',
          '',
          '    [Theory]',
          '    [InlineData("MSCU7654321")]',
          '    public void Load_adds_a_container(string code)',
          '    {',
          '        var ship = new Ship(2, "Altair");',
          '        ship.Load(code);',
          '        Assert.Equal(1, ship.CargoCount());',
          '    }',
          '}',
          '',
        ].join('\n'),
      );
      restoreHarbor(dir);
      idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-agent-harbor-idx-'));
      c = await connectStdio(dir, idx);
      v = await validatorsOf(c);
      await waitIndexed(c);
    });
    after(async function () {
      await c?.close();
      if (dir) removeDir(dir);
      if (idx) removeDir(idx);
    });

    it('related_tests of Ship.CargoCount: references (xunit [Theory] and convention-only tests) and tests of its callers Describe and Weight', async () => {
      const r = await precise(c, v, 'related_tests', { target: { qualifiedName: 'Harbor.Core.Ship.CargoCount' } });
      console.log(`      ${r.summary}\n${r.items.map((x: any) => `        ${brief(x)} ${x.score}: ${x.reasons.join('; ')}`).join('\n')}`);
      const got = new Map(r.items.map((x: any) => [`${x.container}.${x.name}`, x]));
      assert.deepEqual([...got.keys()].sort(), ['CargoFacts.Describe_counts_cargo', 'CargoFacts.Load_adds_a_container', 'ShipTests.DescribesCargo', 'ShipTests.ParsesManifest', 'ShipTests.TankerIsHeavier']);
      const row = (k: string) => got.get(k) as any;
      // Through precise references: the [Theory] (xunit, with a command) and two convention-only methods (no framework, no command).
      assert.equal(brief(row('CargoFacts.Load_adds_a_container')), 'CargoFacts.Load_adds_a_container exact xunit');
      assert.match(row('CargoFacts.Load_adds_a_container').reasons[0], /^reference: references CargoCount at line 21 \(precise\)$/);
      assert.equal(row('CargoFacts.Load_adds_a_container').run, 'dotnet test tests/Harbor.Tests/Harbor.Tests.csproj --filter "FullyQualifiedName~Harbor.Tests.CargoFacts.Load_adds_a_container"');
      for (const k of ['ShipTests.DescribesCargo', 'ShipTests.ParsesManifest']) {
        assert.equal(row(k).confidence, 'exact');
        assert.equal(row(k).framework, undefined);
        assert.equal(row(k).run, undefined);
        assert.match(row(k).reasons[0], /^reference: references CargoCount at line \d+ \(precise\)$/);
      }
      // Through callers: Describe (Ship.cs) and Weight (Ship.Cargo.cs) call CargoCount; these tests call them.
      assert.deepEqual(row('CargoFacts.Describe_counts_cargo').reasons.filter((x: string) => x.startsWith('caller: ')), ['caller: calls Describe, which calls CargoCount (precise, depth 2)']);
      assert.equal(row('CargoFacts.Describe_counts_cargo').framework, 'xunit');
      assert.deepEqual(row('ShipTests.TankerIsHeavier').reasons.filter((x: string) => x.startsWith('caller: ')), ['caller: calls Weight, which calls CargoCount (precise, depth 2)']);
      // 90 for a depth-2 caller, +5 for a second kind of evidence (ShipTests.cs is named after Ship).
      assert.equal(row('ShipTests.TankerIsHeavier').score, 95);
      assert.equal(row('CargoFacts.Describe_counts_cargo').score, 90);
      // References rank above callers.
      assert.ok(r.items.findIndex((x: any) => x.name === 'TankerIsHeavier') > r.items.findIndex((x: any) => x.name === 'ParsesManifest'));
      // Pages of 2 concatenate to the whole answer.
      const paged: any[] = [];
      let cursor: string | undefined;
      do {
        const p = await checked(c, v, 'related_tests', { target: { qualifiedName: 'Harbor.Core.Ship.CargoCount' }, limit: 2, ...(cursor ? { cursor } : {}) });
        paged.push(...p.items);
        cursor = p.nextCursor;
      } while (cursor);
      assert.deepEqual(paged, r.items);
    });

    const section = (r: any, name: string) => r.items.find((x: any) => x.section === name);

    it('impact of a signature change to Ship.Load: references per project (production/test), callers, dependents, tests, public API', async () => {
      const r = await precise(c, v, 'impact', { target: { qualifiedName: 'Harbor.Core.Ship.Load' }, change_kind: 'signature' });
      console.log(`      ${r.summary}\n${r.items.map((x: any) => `        ${x.section} ${x.execution} ${x.count ?? ''} ${JSON.stringify(x.rows ?? [])}`).join('\n')}\n        risks: ${r.risks.map((x: any) => `${x.level} ${x.text}`).join(' | ')}`);
      assert.deepEqual(r.items.map((x: any) => `${x.section} ${x.execution}`), ['symbol included', 'references included', 'incoming_calls included', 'implementations included', 'dependent_projects included', 'tests included', 'public_api included']);
      for (const x of r.items.filter((y: any) => y.mode)) assert.equal(x.mode, 'precise', x.section);
      // ManifestParser.cs:18 (Harbor.Text); ShipTests.cs:11 and CargoFacts.cs:20 (Harbor.Tests).
      assert.equal(section(r, 'references').count, 3);
      assert.deepEqual(section(r, 'references').rows, [{ project: 'Harbor.Text', count: 1 }, { project: 'Harbor.Tests', isTest: true, count: 2 }]);
      assert.equal(section(r, 'references').drill, 'references group_by=project');
      // Callers: ManifestParser.Parse, ShipTests.DescribesCargo, CargoFacts.Load_adds_a_container.
      assert.equal(section(r, 'incoming_calls').count, 3);
      assert.deepEqual(section(r, 'incoming_calls').rows.map((x: any) => `${x.caller} ${x.project}${x.isTest ? ' test' : ''}`).sort(), ['DescribesCargo Harbor.Tests test', 'Load_adds_a_container Harbor.Tests test', 'Parse Harbor.Text']);
      // Not virtual: a zero that is evidence.
      assert.equal(section(r, 'implementations').count, 0);
      // Harbor.Core is referenced by Harbor.Net, Harbor.Text, Harbor.App (also through both) and Harbor.Tests.
      assert.equal(section(r, 'dependent_projects').count, 4);
      assert.deepEqual(section(r, 'dependent_projects').rows, [
        { project: 'Harbor.Tests', distance: 1, isTest: true, references: 2 },
        { project: 'Harbor.Text', distance: 1, references: 1 },
        { project: 'Harbor.App', distance: 1, references: 0 },
        { project: 'Harbor.Net', distance: 1, references: 0 },
      ]);
      // Two tests reference it; ShipTests.ParsesManifest calls ManifestParser.Parse, which calls it.
      assert.equal(section(r, 'tests').count, 3);
      assert.deepEqual(section(r, 'tests').rows.map((x: any) => `${x.name} ${x.confidence}`).sort(), ['CargoFacts.Load_adds_a_container exact', 'ShipTests.DescribesCargo exact', 'ShipTests.ParsesManifest exact']);
      assert.deepEqual(section(r, 'public_api').rows, [{ exposure: 'public', otherProjects: 2, otherProjectReferences: 3, projects: ['Harbor.Text', 'Harbor.Tests'] }]);
      assert.deepEqual(section(r, 'symbol').rows[0].declarations, ['src/Harbor.Core/Ship.Cargo.cs:7']);
      assert.equal(r.risks[0].level, 'high');
      assert.match(r.risks[0].text, /^public API used from 2 other projects \(3 references\): they break$/);
      assert.match(r.target_ref.symbolId, /^M:Harbor\.Core\.Ship\.Load/);
    });

    it('impact: change_kind selects the sections (behavior omits references and dependents, rename omits callers and tests); implementations of an abstract member', async () => {
      const b = await checked(c, v, 'impact', { target: { qualifiedName: 'Harbor.Core.Ship.Load' }, change_kind: 'behavior' });
      assert.deepEqual(b.items.filter((x: any) => x.execution === 'omitted_by_policy').map((x: any) => x.section), ['references', 'dependent_projects']);
      assert.ok(b.items.every((x: any) => x.execution !== 'omitted_by_policy' || (x.why && x.count === undefined && x.rows === undefined)));
      assert.equal(section(b, 'tests').count, 3);
      const rn = await checked(c, v, 'impact', { target: { qualifiedName: 'Harbor.Core.EntityBase.Describe' }, change_kind: 'rename' });
      assert.deepEqual(rn.items.filter((x: any) => x.execution === 'omitted_by_policy').map((x: any) => x.section), ['incoming_calls', 'tests']);
      // Ship.Describe and Tanker.Describe override it.
      assert.equal(section(rn, 'implementations').count, 2);
      assert.deepEqual(section(rn, 'implementations').rows.map((x: any) => `${x.name} ${x.path}:${x.line}`).sort(), ['Ship.Describe src/Harbor.Core/Ship.cs:9', 'Tanker.Describe src/Harbor.Core/Tanker.cs:7']);
      assert.ok(rn.risks.some((x: any) => x.level === 'high' && x.section === 'implementations'));
      // A type is not called: incoming_calls is omitted, never a zero.
      const ty = await checked(c, v, 'impact', { target: { qualifiedName: 'Harbor.Core.Tanker' }, change_kind: 'delete' });
      assert.equal(section(ty, 'incoming_calls').execution, 'omitted_by_policy');
      const amb = await checked(c, v, 'impact', { target: { symbolId: 'T:Harbor.Shared.Clock' }, change_kind: 'delete' });
      assert.equal(amb.target_selection.status, 'ambiguous');
      assert.deepEqual([...new Set(amb.items.map((x: any) => x.execution))], ['not_run_target_unresolved']);
      assert.equal(amb.items.length, 7);
    });

    it('related_tests: a bare documentation id compiled three times returns the candidates, never a pick', async () => {
      const r = await checked(c, v, 'related_tests', { target: { symbolId: 'T:Harbor.Shared.Clock' } });
      assert.equal(r.items.length, 0);
      assert.equal(r.target_selection.status, 'ambiguous');
      assert.equal(r.target_selection.candidates.length, 3);
      assert.match(r.summary, /ambiguous: 3 candidates/);
    });
  });
});
