/**
 * context_pack over real stdio with the real Roslyn host: on a restored copy of the Harbor fixture
 * (test/fixtures/roslyn) every row of two packs checked by hand against the source; 200 random
 * budgets (fast-check) whose answers never exceed their bytes / tokens / files / snippets and list
 * every category they left out; the minimum budget named by BUDGET_TOO_SMALL; ambiguous targets;
 * path filters. On the generated workspace (test/fixtures/generate) a class's pack: its tests found
 * through test-code callers, its registration as the wider reference.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { CONTEXT_PACK_BYTES_PER_TOKEN } from '../../server/src/core/limits';
import { TASK_QUOTAS, type PackTask } from '../../server/src/nav/agent/contextPack';
import { findDotnet, locateRoslynHost } from '../../server/src/semantic/roslyn/roslynHost';
import { cachedWorkspace } from '../fixtures/generate';
import { call, callError, connectStdio, type Connected, callSettled } from '../helpers/mcpClient';
import { removeDir } from '../helpers/workspace';
import { copyTree, restoreHarbor, ROSLYN_FIXTURE } from '../integration/semantic/roslynFixture';

const DESCRIBE = { qualifiedName: 'Harbor.Core.Ship.Describe' };

function skipWithoutHost(ctx: Mocha.Context): void {
  const host = locateRoslynHost();
  if (host.ok) return;
  if (findDotnet()) throw new Error(`dotnet is installed but ${host.reason}; run node scripts/build-roslyn-host.mjs`);
  console.log(`      skipped: ${host.reason}`);
  ctx.skip();
}

/** Waits until the semantic layer answers `target` precisely (the host loads in the background). */
async function warm(c: Connected, target: Record<string, unknown>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const o = await call(c.client, 'repo_overview', {});
    if (o.index.status === 'fresh' && !o.index.symbolsPending && o.projects) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  for (let i = 0; i < 30; i++) {
    const r = await call(c.client, 'references', { target, waitMs: 10_000 });
    if (r.mode === 'precise') return;
  }
  throw new Error('the Roslyn host never answered precisely');
}

const rowsOf = (s: any) => s.items.map((r: any) => `${r.cat} ${r.path}:${r.line}${r.name ? ` ${r.name}` : ''}`);

async function raw(c: Connected, args: Record<string, unknown>): Promise<{ s: any; text: string; error?: string }> {
  const r = await callSettled(c.client, 'context_pack', args);
  const text = (r.content as { text: string }[])[0]?.text ?? '';
  return r.isError ? { s: undefined, text, error: text } : { s: r.structuredContent, text };
}

describe('MCP over stdio: context_pack on the Harbor fixture (real Roslyn host) @e2e', function () {
  this.timeout(600_000);
  let dir: string;
  let idx: string;
  let c: Connected;

  before(async function () {
    skipWithoutHost(this);
    dir = copyTree(ROSLYN_FIXTURE, 'ctx-pack');
    restoreHarbor(dir);
    idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-ctx-pack-idx-'));
    c = await connectStdio(dir, idx);
    await warm(c, DESCRIBE);
  });

  after(async function () {
    await c?.close();
    if (dir) removeDir(dir);
    if (idx) removeDir(idx);
  });

  it('Ship.Describe: every row checked against the source', async () => {
    // Under load the pack's related_tests caller walk (RELATED_TESTS_CALLER_WALK_MS, beside the
    // pack's other questions) can be cut: honestly precise_partial. Its rows are checked once whole.
    let s = await call(c.client, 'context_pack', { target: DESCRIBE });
    for (let i = 0; i < 10 && s.mode !== 'precise' && /caller walk/.test(s.completeness?.partial ?? ''); i++) s = await call(c.client, 'context_pack', { target: DESCRIBE });
    assert.equal(s.mode, 'precise', JSON.stringify(s.completeness));
    assert.equal(s.summary, 'Describe (method) is owned by Harbor.Core, used from Harbor.App. Pack for explore: definition, 4 callers, 1 test, 1 implementation.');
    assert.deepEqual(rowsOf(s), [
      'definition src/Harbor.Core/Ship.cs:9 Harbor.Core.Ship.Describe',
      // Dock.Berth and Registry.Register call it through EntityBase.Describe (virtual dispatch reaches the override).
      'caller src/Harbor.App/Dock.cs:7 Berth',
      'caller src/Harbor.Core/Registry.cs:10 Register',
      'caller src/Harbor.App/Dock.cs:9 BerthShip',
      'caller src/Harbor.Core/Tanker.cs:7 Describe',
      'test tests/Harbor.Tests/ShipTests.cs:8 DescribesCargo',
      'implementation src/Harbor.Core/Tanker.cs:7 Describe',
    ]);
    const def = s.items[0];
    assert.equal(def.source, '    public override string Describe() => $"{Name} ({CargoCount()} containers)";');
    assert.equal(def.endLine, 9);
    assert.equal(s.items[1].snippet, 'public static string Berth(EntityBase entity) => $"{entity.Describe()} weighs {entity.Weight()}";');
    // The test row is the test method (related_tests), with why and how to run it.
    assert.equal(s.items[5].endLine, 13);
    assert.match(s.items[5].reason, /references Describe at line 12 \(precise\)/);
    assert.equal(s.items[5].run, undefined, 'ShipTests has no test framework attributes: no command to run it alone');
    assert.deepEqual(s.found, { definition: 1, caller: 4, test: 1, implementation: 1 });
    assert.equal(s.omittedBecauseBudget, undefined, 'everything fits the default budget');
    assert.ok(s.risks.some((r: string) => /^public API: used from 1 other project/.test(r)), s.risks.join(' | '));
    assert.ok(s.risks.some((r: string) => /^4 direct production callers in 2 project/.test(r)));
    assert.equal(s.completeness.partial, undefined, 'every section precise');
    for (const r of s.items) assert.equal(r.confidence, undefined, 'precise rows carry no confidence label');
  });

  it('IRepository.Save for a rename: one caller, both implementations, and no tests (a risk, not silence)', async () => {
    const s = await call(c.client, 'context_pack', { target: { qualifiedName: 'Harbor.Core.IRepository.Save' }, task: 'rename' });
    assert.deepEqual(rowsOf(s), [
      'definition src/Harbor.Core/IRepository.cs:7 Harbor.Core.IRepository.Save',
      'caller src/Harbor.Core/Registry.cs:9 Register',
      'implementation src/Harbor.Core/ShipRepository.cs:9 Save',
      'implementation src/Harbor.Net/RemoteRepository.cs:12 Save',
    ]);
    assert.equal(s.items[0].source, '    void Save(T item);');
    assert.equal(s.task, 'rename');
    // rename ranks the reference count first.
    assert.equal(s.risks[0], 'rename touches 1 reference in 1 file (0 test)');
    assert.ok(s.risks.includes('no related test found (references, callers, naming, co-change): a change is not covered by tests found here'), s.risks.join(' | '));
  });

  it('a budget below the smallest pack names the minimum, which then answers with everything else omitted', async () => {
    const err = await callError(c.client, 'context_pack', { target: DESCRIBE, budget: { maxBytes: 512 } });
    const m = /^Error \[BUDGET_TOO_SMALL\]: The smallest context pack .* needs (\d+) bytes; the budget allows 512\. Hint: re-ask with maxBytes (\d+) or more/.exec(err);
    assert.ok(m, err);
    const need = Number(m[1]);
    const { s, text } = await raw(c, { target: DESCRIBE, budget: { maxBytes: need } });
    assert.ok(s, text);
    assert.ok(Buffer.byteLength(JSON.stringify(s)) <= need && Buffer.byteLength(text) <= need);
    assert.deepEqual(s.items.map((r: any) => r.cat), ['definition']);
    assert.deepEqual(s.omittedBecauseBudget, { caller: 4, test: 1, implementation: 1 });
  });

  it('never exceeds 200 random budgets and lists what it left out per category', async () => {
    let packs = 0;
    let tooSmall = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          maxBytes: fc.option(fc.integer({ min: 512, max: 6000 }), { nil: undefined }),
          maxTokens: fc.option(fc.integer({ min: 100, max: 2000 }), { nil: undefined }),
          maxFiles: fc.option(fc.integer({ min: 1, max: 6 }), { nil: undefined }),
          maxSnippets: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        }),
        fc.constantFrom<PackTask>('investigate_bug', 'rename', 'add_feature', 'review', 'explore'),
        async (b, task) => {
          const budget = Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined));
          const { s, text, error } = await raw(c, { target: DESCRIBE, budget, task });
          const limit = Math.min(b.maxBytes ?? 8192, b.maxTokens !== undefined ? b.maxTokens * CONTEXT_PACK_BYTES_PER_TOKEN : Infinity);
          if (error) {
            const m = /^Error \[BUDGET_TOO_SMALL\]: .* needs (\d+) bytes/.exec(error);
            assert.ok(m, error);
            assert.ok(Number(m[1]) > limit, `refused ${JSON.stringify(budget)} but names ${m[1]} bytes`);
            tooSmall++;
            return;
          }
          packs++;
          assert.ok(Buffer.byteLength(text) <= limit, `text ${Buffer.byteLength(text)} B > ${limit} (${JSON.stringify(budget)})`);
          assert.ok(Buffer.byteLength(JSON.stringify(s)) <= limit, `JSON ${Buffer.byteLength(JSON.stringify(s))} B > ${limit}`);
          assert.ok(s.items.length <= (b.maxSnippets ?? Infinity));
          assert.ok(new Set(s.items.map((r: any) => r.path)).size <= (b.maxFiles ?? Infinity));
          assert.equal(s.items[0].cat, 'definition');
          assert.equal(s.completeness.omittedBecauseBudget, undefined, 'the server never had to cut rows itself');
          // Shown + omitted = what the task asks of each category found.
          const quotas = TASK_QUOTAS[task] as Record<string, number>;
          for (const [cat, found] of Object.entries(s.found as Record<string, number>)) {
            const shown = s.items.filter((r: any) => r.cat === cat).length;
            const want = cat in quotas ? Math.min(found, quotas[cat]!) : found;
            assert.equal(shown + ((s.omittedBecauseBudget ?? {})[cat] ?? 0), want, `${cat}: ${shown} shown + omitted ≠ ${want} (${JSON.stringify(budget)} ${task})`);
          }
        },
      ),
      { numRuns: 200, seed: 12 },
    );
    console.log(`      200 budgets: ${packs} packs within budget, ${tooSmall} refused below the minimum`);
    assert.ok(packs >= 100 && tooSmall >= 1);
  });

  it('an ambiguous target returns the candidates, never a silent pick', async () => {
    const s = await call(c.client, 'context_pack', { target: { symbolId: 'M:Harbor.Core.Ship.Describe' } });
    assert.deepEqual(s.items, []);
    assert.equal(s.target_selection.status, 'ambiguous');
    assert.deepEqual(s.target_selection.candidates.map((x: any) => x.symbolId), ['M:Harbor.Core.Ship.Describe@Harbor.Core|net8.0', 'M:Harbor.Core.Ship.Describe@Harbor.Core|net10.0']);
  });

  it('paths: ! excludes rows; a must-include path with no row gets one of its own', async () => {
    const s = await call(c.client, 'context_pack', { target: DESCRIBE, paths: ['!src/Harbor.App/**', 'src/Harbor.Text/ManifestParser.cs', 'src/Harbor.App/Program.cs'] });
    assert.deepEqual(rowsOf(s), [
      'definition src/Harbor.Core/Ship.cs:9 Harbor.Core.Ship.Describe',
      // Program.cs is asked for and excluded: the exclusion wins.
      'included src/Harbor.Text/ManifestParser.cs:1',
      'caller src/Harbor.Core/Registry.cs:10 Register',
      'caller src/Harbor.Core/Tanker.cs:7 Describe',
      'test tests/Harbor.Tests/ShipTests.cs:8 DescribesCargo',
      'implementation src/Harbor.Core/Tanker.cs:7 Describe',
    ]);
    assert.equal(s.items[1].reason, 'asked for (must_include_paths); does not mention the target');
  });
});

describe('MCP over stdio: context_pack on the generated workspace (real Roslyn host) @e2e', function () {
  this.timeout(600_000);
  let idx: string;
  let c: Connected;
  const TARGET = { qualifiedName: 'Acme.Billing.Journals.Data.JournalRepository' };

  before(async function () {
    skipWithoutHost(this);
    const w = cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 });
    idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-ctx-gen-idx-'));
    c = await connectStdio(w.root, idx);
    await warm(c, TARGET);
  });

  after(async function () {
    await c?.close();
    if (idx) removeDir(idx);
  });

  it('JournalRepository: its definition, the tests constructing it (closest first) and its registration', async () => {
    const s = await call(c.client, 'context_pack', { target: TARGET });
    assert.equal(s.mode, 'precise', s.completeness.partial);
    assert.deepEqual(rowsOf(s), [
      'definition src/Billing/Acme.Billing.Journals.Data/JournalRepository.cs:11 Acme.Billing.Journals.Data.JournalRepository',
      // Test methods (related_tests); the file named after the type first (its tests construct it at lines 20 and 30).
      'test tests/Billing/Acme.Billing.Journals.Data.Tests/JournalRepositoryTests.cs:17 Added_entity_can_be_found',
      'test tests/Billing/Acme.Billing.Journals.Data.Tests/JournalRepositoryTests.cs:27 Count_grows_with_each_add',
      'test tests/Billing/Acme.Billing.Journals.Application.Tests/JournalServiceTests.cs:19 CreateJournal_returns_null_for_unknown_id',
      'reference src/Billing/Acme.Billing.Journals.Api/JournalServiceRegistration.cs:18',
    ]);
    assert.equal(s.items[0].endLine, 22);
    assert.equal(s.items[0].source.split('\n')[0], '    public sealed class JournalRepository : RepositoryBase<Journal, Guid>, IJournalRepository');
    assert.match(s.items[1].reason, /references JournalRepository at line 20 \(precise\)/);
    assert.match(s.items[2].reason, /references JournalRepository at line 30 \(precise\)/);
    assert.match(s.items[3].reason, /references JournalRepository at line 22 \(precise\)/);
    assert.match(s.items[1].run, /^dotnet test .*Acme\.Billing\.Journals\.Data\.Tests.* --filter .*Added_entity_can_be_found/);
    // JournalServiceTests has five tests; explore asks three tests of the pack.
    assert.equal(s.found.test, 7);
    assert.equal(s.items[4].snippet, 'services.AddSingleton<IJournalRepository, JournalRepository>();');
    assert.match(s.summary, /^JournalRepository \(class\) is owned by Acme\.Billing\.Journals\.Data, used from Acme\.Billing\.Journals\.Api\./);
  });
});
