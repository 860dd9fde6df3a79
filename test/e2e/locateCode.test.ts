/**
 * locate_code over real stdio on the generated C# workspace (24 projects, test/fixtures/generate):
 * 20 questions written against its known layout (the manifest's facts and the Acme.<Area>.<Feature>.<Role>
 * project naming), each answered with the right file — at once, or after refining the locator with
 * a candidate number or a layer; refinements that change nothing say `progress: unchanged`; the
 * locator is bound to this server (a foreign or altered one is STALE_LOCATOR); bad input is refused;
 * every answer stays within 8 KiB and carries no source.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { LOCATE_MAX_ANSWER_BYTES, LOCATE_MAX_HINTS } from '../../server/src/core/limits';
import { cachedWorkspace, factById, type WorkspaceManifest } from '../fixtures/generate';
import { call, callError, connectStdio, type Connected, callSettled } from '../helpers/mcpClient';
import { removeDir } from '../helpers/workspace';

describe('MCP over stdio: locate_code on the generated workspace @e2e', function () {
  this.timeout(300_000);
  let c: Connected;
  let idx: string;
  let m: WorkspaceManifest;
  const answers: { q: string; bytes: number; direct: boolean; refinements: number }[] = [];
  /** The first answer to each question: did it say `located`, and was its first candidate the expected file? */
  const firsts: { q: string; located: boolean; firstRight: boolean }[] = [];

  before(async function () {
    const w = cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 });
    m = w.manifest;
    idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-locate-idx-'));
    // Symbols only: locate_code reads the syntax layer and the project model (no semantic provider needed).
    c = await connectStdio(w.root, idx, ['--csharp-provider', 'csharp-ls']);
    for (let i = 0; i < 600; i++) {
      const o = await call(c.client, 'repo_overview', {});
      if (o.index.status === 'fresh' && !o.index.symbolsPending && o.projects) break;
      await new Promise((r) => setTimeout(r, 200));
    }
  });

  after(async function () {
    await c?.close();
    if (idx) removeDir(idx);
    if (answers.length) {
      const direct = answers.filter((a) => a.direct).length;
      console.log(`      locate_code: ${answers.length} questions, ${direct} located at once, ${answers.length - direct} after refinement; largest answer ${Math.max(...answers.map((a) => a.bytes))} B`);
    }
  });

  const decl = (id: string) => factById(m, id, 'symbol').declarations[0]!.path;
  const ask = async (args: Record<string, unknown>) => {
    const r = await callSettled(c.client, 'locate_code', args);
    assert.ok(!r.isError, JSON.stringify(r.content));
    const text = (r.content as { text: string }[])[0]!.text;
    const bytes = Math.max(Buffer.byteLength(text), Buffer.byteLength(JSON.stringify(r.structuredContent)));
    assert.ok(bytes <= LOCATE_MAX_ANSWER_BYTES, `answer of ${bytes} B`);
    return { s: r.structuredContent as any, bytes };
  };

  /**
   * Asks, and refines until the expected file is the first candidate of a `located` answer: by the
   * candidate's number when it is listed, else by `layer`. At most two refinements.
   */
  async function locate(question: string, expected: string, layer?: string, hints?: string[]): Promise<string | undefined> {
    let { s, bytes } = await ask({ question, ...(hints ? { hints } : {}) });
    let refinements = 0;
    const trail: string[] = [];
    firsts.push({ q: question, located: s.status === 'located', firstRight: s.items[0]?.path === expected });
    for (;;) {
      trail.push(`${s.status}: ${s.items.map((i: any) => i.path.split('/').pop()).join(', ')}`);
      for (const r of s.reads) assert.ok(r.endLine >= r.startLine && !('text' in r), 'a read is a path and a line range');
      assert.ok(s.items.length <= 3 && s.reads.length <= 2);
      if (s.status === 'located' && s.items[0]?.path === expected) break;
      if (refinements >= 2) return `${question}: not located after two refinements (${trail.join(' → ')}); expected ${expected}`;
      assert.ok(s.locator, `${question}: no locator to refine (${trail.join(' → ')})`);
      const n = s.items.findIndex((i: any) => i.path === expected);
      const choice = n >= 0 ? String(n + 1) : layer;
      assert.ok(choice, `${question}: ${expected} is not a candidate and no layer to refine with (${trail.join(' → ')})`);
      ({ s, bytes } = await ask({ locator: s.locator, choice }));
      refinements++;
      if (s.progress !== 'new') return `${question}: the refinement ${choice} changed nothing (${trail.join(' → ')}); expected ${expected}`;
    }
    answers.push({ q: question, bytes, direct: refinements === 0, refinements });
    if (process.env.LOCATE_TRACE) console.log(`      ${question}: ${trail.join(" → ")}`);
    return undefined;
  }

  const cases: [string, () => string, string?][] = [
    ['where is the journal repository', () => 'src/Billing/Acme.Billing.Journals.Data/JournalRepository.cs', 'data'],
    ['which controller handles journal requests', () => decl('controller'), 'api'],
    ['how is the journal score computed', () => decl('ifSplitMethod'), 'application'],
    ['journal service business logic', () => decl('serviceImplementation'), 'application'],
    ['journal service interface contract', () => decl('serviceInterface'), 'contracts'],
    ['journal dto shape', () => decl('record'), 'contracts'],
    ['journal status enum', () => decl('enum'), 'contracts'],
    ['journal domain entity', () => decl('entity'), 'domain'],
    ['is journal active extension', () => decl('extensionMethod'), 'domain'],
    ['journal specification', () => decl('genericClass'), 'domain'],
    ['journal database column mapper', () => 'src/Billing/Acme.Billing.Journals.Data/JournalDbMapper.cs', 'data'],
    ['the legacy journal engine', () => decl('hugeClass'), 'application'],
    ['tests of the journal service', () => decl('xunitTestClass'), 'tests'],
    ['adjustment service tests', () => decl('nunitTestClass'), 'tests'],
    ['guard helper for argument checks', () => decl('hotType'), 'common'],
    ['logger interface', () => decl('hotInterface'), 'common'],
    ['generic repository base class', () => decl('genericBase'), 'common'],
    ['audited attribute', () => decl('attributeClass'), 'common'],
    ['invoice service contract', () => decl('popularInterface'), 'contracts'],
    ['rate reconcile builder', () => 'src/Billing/Acme.Billing.Rates.Data/Builders/RateReconcileBuilder.cs', 'data'],
  ];

  it('finds the right file for 20 questions about the known layout (with refinements where ambiguous)', async () => {
    assert.equal(cases.length, 20);
    const misses: string[] = [];
    for (const [q, expected, layer] of cases) {
      const miss = await locate(q, expected(), layer);
      if (miss) misses.push(miss);
    }
    const direct = answers.filter((a) => a.direct).length;
    if (process.env.LOCATE_TRACE) console.log(`      direct ${direct}; misses: ${misses.join(' | ')}`);
    // Every question reaches its file within two refinements. `located` at once is the calibrated
    // status: said only when a plain BM25 ranking agrees with a clear margin (measured on real pull
    // requests by the bench's history section, where a looser rule was right 6 of 14 times), so most
    // questions here are `ambiguous` first with the right file as the first candidate. What holds
    // whatever the calibration: a `located` is right, and the ranking puts the file first.
    assert.ok(misses.length <= 1, misses.join('\n'));
    const wrong = firsts.filter((f) => f.located && !f.firstRight).map((f) => f.q);
    assert.deepEqual(wrong, [], 'said `located` with another file first');
    const firstRight = firsts.filter((f) => f.firstRight).length;
    assert.ok(firstRight >= 16, `the expected file is the first candidate for only ${firstRight} of 20 questions`);
    assert.ok(direct >= 4, `only ${direct} of 20 located without refinement: the calibrated rule no longer says located even for clear cases`);
  });

  it('a layer refinement narrows the search; repeating it answers progress: unchanged', async () => {
    const first = (await ask({ question: 'journal repository' })).s;
    assert.deepEqual(first.scopes.map((x: any) => x.layer), ['data', '*'], 'the data layer, then the whole workspace');
    assert.equal(first.items[0].path, 'src/Billing/Acme.Billing.Journals.Data/JournalRepository.cs');
    const narrowed = (await ask({ locator: first.locator, choice: 'domain' })).s;
    assert.deepEqual(narrowed.scopes, [{ layer: 'domain', matched: ['(chosen)'] }]);
    assert.equal(narrowed.progress, 'new');
    assert.ok(narrowed.items.length > 0 && narrowed.items.every((i: any) => i.layer === 'domain' && /Acme\.Billing\.\w+\.Domain\//.test(i.path)), JSON.stringify(narrowed.items));
    const again = (await ask({ locator: narrowed.locator, choice: 'domain' })).s;
    assert.equal(again.progress, 'unchanged');
    assert.deepEqual(again.items, [], 'an unchanged refinement does not repeat its candidates');
    assert.equal(again.locator, undefined, 'two refinements used: no locator');
  });

  it('a literal refinement is one exact search; a symbol hint finds an exact name', async () => {
    const first = (await ask({ question: 'where are journals stored' })).s;
    const exact = (await ask({ locator: first.locator, choice: 'JournalRepository' })).s;
    assert.equal(exact.status, 'located');
    assert.equal(exact.items[0].path, 'src/Billing/Acme.Billing.Journals.Data/JournalRepository.cs');
    assert.match(exact.items[0].why, /exact name/);
    const hinted = (await ask({ question: 'where is the policy', hints: ['JournalPolicy'] })).s;
    assert.equal(hinted.items[0].path, 'src/Billing/Acme.Billing.Journals.Domain/JournalPolicy.cs');
  });

  it('a question with nothing to search for needs user input; an unknown term is insufficient coverage', async () => {
    const vague = (await ask({ question: 'where is the code that does it' })).s;
    assert.equal(vague.status, 'needs_user_input');
    assert.deepEqual(vague.items, []);
    const unknown = (await ask({ question: 'zeppelin quaternion frobnicator' })).s;
    assert.equal(unknown.status, 'insufficient_coverage');
    assert.ok(unknown.locator, 'a locator to refine with a clue');
  });

  it('server_capabilities says when to use locate_code and context_pack instead of primitive tools', async () => {
    const caps = await call(c.client, 'server_capabilities', {});
    assert.match(caps.conventions, /"Where is the code that does X": locate_code, then read only its ranges/);
    assert.match(caps.conventions, /Before changing one symbol: context_pack .* instead of chaining definition\/references\/callers/);
  });

  it('refuses a foreign or altered locator, oversized hint lists and mixed forms', async () => {
    const first = (await ask({ question: 'journal repository' })).s;
    const [body, mac] = String(first.locator).split('.');
    const altered = zlib.deflateRawSync(Buffer.from(JSON.stringify({ ...JSON.parse(zlib.inflateRawSync(Buffer.from(body!, 'base64url')).toString()), r: 0, q: 'rates' }))).toString('base64url');
    assert.match(await callError(c.client, 'locate_code', { locator: `${altered}.${mac}`, choice: '1' }), /^Error \[STALE_LOCATOR\]: .*Hint: /);
    assert.match(await callError(c.client, 'locate_code', { locator: 'bm90LW91cnM.AAAAAAAAAAAAAAAAAAAAAA', choice: '1' }), /^Error \[STALE_LOCATOR\]: The locator was not issued by this server/);
    const tooMany = Array.from({ length: LOCATE_MAX_HINTS + 1 }, (_, i) => `Hint${i}`);
    assert.match(await callError(c.client, 'locate_code', { question: 'journal', hints: tooMany }), /^Error \[INVALID_ARGUMENT\]: .*at most 6 hints/);
    assert.match(await callError(c.client, 'locate_code', { question: 'journal', locator: first.locator }), /INVALID_ARGUMENT/);
    assert.match(await callError(c.client, 'locate_code', { locator: first.locator, choice: '7' }), /^Error \[INVALID_ARGUMENT\]: choice 7 is not one of the/);
  });
});
