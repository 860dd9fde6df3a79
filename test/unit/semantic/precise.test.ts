/**
 * The occurrence store over SCIP files: what Sextant writes decodes with the generated SCIP types
 * (@c4312/scip), a streamed read equals a whole read, a corrupt or truncated file is refused with
 * a clear reason while the store keeps what it had, and answers come from documents whose facts
 * hold while changed ones are named for live resolution (and merged by the registry, labelled).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { deserializeSCIP } from '@c4312/scip';
import { OccurrenceStore } from '../../../server/src/semantic/precise/occurrenceStore';
import { PreciseAnswers, verifyAgainstText, type PreciseEnv } from '../../../server/src/semantic/precise/preciseAnswers';
import { PreciseFacts } from '../../../server/src/semantic/precise/preciseFacts';
import { readScipCatalog, verifyScipCatalog, writeScipIndex } from '../../../server/src/semantic/precise/scipCatalog';
import { decodeDocument, readScipIndex, ROLE_DEFINITION, type ScipDocument } from '../../../server/src/semantic/precise/scipCodec';
import { readUnitsCatalog } from '../../../server/src/semantic/precise/unitsCatalog';
import { descriptorsOf, escapeName, globalSymbol, parseDescriptors, symbolName } from '../../../server/src/semantic/precise/scipSymbol';
import { SemanticRegistry } from '../../../server/src/semantic/registry';
import type { SemanticProvider } from '../../../server/src/semantic/provider';

const GUARD = globalSymbol('sextant-cs', '.', 'Acme.Common', '.', 'Acme/Common/Guard#');
const CHECK = globalSymbol('sextant-cs', '.', 'Acme.Common', '.', 'Acme/Common/Guard#Check(a1b2).');
const IGUARD = globalSymbol('sextant-cs', '.', 'Acme.Common', '.', 'Acme/Common/IGuard#');

const texts: Record<string, string> = {
  'src/Guard.cs': 'namespace Acme.Common;\npublic class Guard : IGuard\n{\n  public static void Check() {}\n}\n',
  'src/IGuard.cs': 'namespace Acme.Common;\npublic interface IGuard {}\n',
  'src/Use.cs': 'class Use\n{\n  void M() { Guard.Check(); Guard.Check(); }\n}\n',
};

function docs(): ScipDocument[] {
  const key = (p: string) => ({ contentHash: `h:${texts[p]!.length}`, project: 'src/Acme.csproj', compilation: 'c1', deps: [{ path: 'src/Guard.cs', shape: 's1' }] });
  return [
    {
      relativePath: 'src/Guard.cs',
      language: 'csharp',
      positionEncoding: 2,
      occurrences: [
        { range: [1, 13, 18], symbol: GUARD, symbolRoles: ROLE_DEFINITION, enclosingRange: [1, 0, 4, 1] },
        { range: [1, 21, 27], symbol: IGUARD, symbolRoles: 0 },
        { range: [3, 21, 26], symbol: CHECK, symbolRoles: ROLE_DEFINITION, enclosingRange: [3, 2, 31] },
      ],
      symbols: [
        { symbol: GUARD, documentation: [], relationships: [{ symbol: IGUARD, isImplementation: true, isReference: false, isTypeDefinition: false, isDefinition: false }], kind: 7, displayName: 'Guard', enclosingSymbol: '' },
        { symbol: CHECK, documentation: [], relationships: [], kind: 26, displayName: 'Check', enclosingSymbol: GUARD },
      ],
      key: key('src/Guard.cs'),
    },
    {
      relativePath: 'src/IGuard.cs',
      language: 'csharp',
      positionEncoding: 2,
      occurrences: [{ range: [1, 17, 23], symbol: IGUARD, symbolRoles: ROLE_DEFINITION }],
      symbols: [{ symbol: IGUARD, documentation: [], relationships: [], kind: 21, displayName: 'IGuard', enclosingSymbol: '' }],
      key: key('src/IGuard.cs'),
    },
    {
      relativePath: 'src/Use.cs',
      language: 'csharp',
      positionEncoding: 2,
      occurrences: [
        { range: [2, 13, 18], symbol: GUARD, symbolRoles: 0 },
        { range: [2, 19, 24], symbol: CHECK, symbolRoles: 0 },
        { range: [2, 28, 33], symbol: GUARD, symbolRoles: 0 },
        { range: [2, 34, 39], symbol: CHECK, symbolRoles: 0 },
      ],
      symbols: [],
      key: key('src/Use.cs'),
    },
  ];
}

const meta = { version: 0, toolInfo: { name: 'sextant', version: 'test', arguments: ['scip', 'export'] }, projectRoot: 'file:///ci/checkout', textDocumentEncoding: 1 };

function env(over: Partial<PreciseEnv> = {}): PreciseEnv {
  return {
    currentHash: (p) => (texts[p] !== undefined ? `h:${texts[p]!.length}` : undefined),
    keyProblem: () => undefined,
    filesMentioning: (name) => new Set(Object.keys(texts).filter((p) => new RegExp(`\\b${name}\\b`).test(texts[p]!))),
    readText: (p) => texts[p],
    languageOf: (p) => (p.endsWith('.cs') ? 'csharp' : undefined),
    version: () => 'v1',
    ...over,
  };
}

describe('SCIP symbols', () => {
  it('spells and parses the grammar', () => {
    assert.equal(escapeName('Guard'), 'Guard');
    assert.equal(escapeName('.ctor'), '`.ctor`');
    assert.equal(escapeName('a`b c'), '`a``b c`');
    assert.equal(descriptorsOf('scip-typescript npm @trpc/server 11.0.0 src/`router.ts`/createRouter().'), 'src/`router.ts`/createRouter().');
    assert.equal(descriptorsOf('a  b . pkg . X#'), 'X#');
    assert.deepEqual(parseDescriptors('Acme/Guard#Check(a1).(value)'), [
      { name: 'Acme', suffix: 'namespace' },
      { name: 'Guard', suffix: 'type' },
      { name: 'Check', suffix: 'method', disambiguator: 'a1' },
      { name: 'value', suffix: 'parameter' },
    ]);
    assert.equal(symbolName(CHECK), 'Check');
    assert.equal(symbolName('scip-typescript npm p 1 src/`a.ts`/T#[K]'), 'K');
    assert.equal(symbolName('local 4'), undefined);
  });
});

describe('SCIP files', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-scip-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes an index the generated SCIP types decode, and streams it back field by field', async () => {
    const file = path.join(dir, 'a.scip');
    await writeScipIndex(file, meta, docs());
    const idx = deserializeSCIP(fs.readFileSync(file));
    assert.equal(idx.metadata?.toolInfo?.name, 'sextant');
    assert.deepEqual(
      idx.documents.map((d) => [d.relativePath, d.occurrences.length, d.symbols.length]),
      [
        ['src/Guard.cs', 3, 2],
        ['src/IGuard.cs', 1, 1],
        ['src/Use.cs', 4, 0],
      ],
    );
    assert.deepEqual(idx.documents[0]!.occurrences[0]!.range, [1, 13, 18]);
    assert.deepEqual(idx.documents[0]!.occurrences[0]!.enclosingRange, [1, 0, 4, 1]);
    assert.equal(idx.documents[0]!.symbols[0]!.relationships[0]!.isImplementation, true);
    const streamed: ScipDocument[] = [];
    for await (const p of readScipIndex(file, 7)) if (p.kind === 'document') streamed.push(decodeDocument(p.bytes));
    assert.deepEqual(streamed, docs());
  });

  it('refuses a truncated or corrupt file with the reason and keeps what the store had', async () => {
    const good = path.join(dir, 'good.scip');
    await writeScipIndex(good, meta, docs());
    const bytes = fs.readFileSync(good);
    const truncated = path.join(dir, 'truncated.scip');
    fs.writeFileSync(truncated, bytes.subarray(0, bytes.length - 9));
    const corrupt = path.join(dir, 'corrupt.scip');
    const c = Buffer.from(bytes);
    c[0] = 0x0f; // field 1 with wire type 7
    fs.writeFileSync(corrupt, c);
    const store = new OccurrenceStore();
    const ok = await store.addUnit(good, 'scip', '/ws');
    assert.equal(ok.ok, true);
    const t = await store.addUnit(truncated, 'scip', '/ws');
    assert.equal(t.ok, false);
    assert.match(!t.ok ? t.reason : '', /truncated/);
    const k = await store.addUnit(corrupt, 'scip', '/ws');
    assert.equal(k.ok, false);
    assert.match(!k.ok ? k.reason : '', /wire type 7 .* at byte 0/);
    const text = path.join(dir, 'text.scip');
    fs.writeFileSync(text, 'not a scip index\n');
    assert.equal((await store.addUnit(text, 'scip', '/ws')).ok, false);
    assert.equal(store.listUnits().length, 1);
    assert.equal(store.size, 3);
    assert.equal(store.read(store.entries('src/Use.cs')[0]!).occurrences.length, 4);
  });
});

describe('the catalog of an index file', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-scip-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('lists every document where the stream finds it, so a unit is taken from its last bytes; the deps are decoded when asked', async () => {
    const file = path.join(dir, 'a.scip');
    await writeScipIndex(file, meta, docs());
    const c = readScipCatalog(file)!;
    assert.ok(c, 'Sextant files carry a catalog');
    const streamed: { path: string; offset: number; length: number }[] = [];
    for await (const p of readScipIndex(file)) if (p.kind === 'document') streamed.push({ path: decodeDocument(p.bytes, true).relativePath, offset: p.offset, length: p.bytes.length });
    assert.deepEqual(c.entries.map((e) => ({ path: e.path, offset: e.offset, length: e.length })), streamed);
    assert.deepEqual(c.entries[0]!.key, { contentHash: `h:${texts['src/Guard.cs']!.length}`, project: 'src/Acme.csproj', compilation: 'c1' });
    assert.equal(await verifyScipCatalog(file, c), undefined);
    const store = new OccurrenceStore();
    const r = await store.addUnit(file, 'scip', '/ws');
    assert.equal(r.ok, true);
    const e = store.entries('src/Use.cs')[0]!;
    assert.equal(e.key, undefined, 'no document decoded at load');
    assert.deepEqual(store.keyOf(e)!.deps, [{ path: 'src/Guard.cs', shape: 's1' }]);
    assert.equal(await (r.ok ? r.unit.verified : undefined), undefined);
    // another producer's index (no catalog) is streamed as before
    const bare = path.join(dir, 'bare.scip');
    fs.writeFileSync(bare, fs.readFileSync(file).subarray(0, c.catalogOffset));
    assert.equal(readScipCatalog(bare), undefined);
    assert.equal((await store.addUnit(bare, 'scip', '/ws')).ok, true);
    assert.equal(store.keyOf(store.entries('src/IGuard.cs').at(-1)!)!.project, 'src/Acme.csproj');
  });

  it('a file that does not match its catalog is dropped whole once checked, with the reason', async () => {
    const file = path.join(dir, 'a.scip');
    await writeScipIndex(file, meta, docs());
    const c = readScipCatalog(file)!;
    const bytes = Buffer.from(fs.readFileSync(file));
    // the second document's field tag made a wire type 7 one: the stream breaks there
    const second = c.entries[1]!.offset;
    let tagAt = second - 1;
    while (bytes[tagAt - 1]! & 0x80) tagAt--; // before its length varint
    bytes[tagAt - 1] = 0x17;
    fs.writeFileSync(file, bytes);
    const store = new OccurrenceStore();
    const r = await store.addUnit(file, 'scip', '/ws');
    assert.equal(r.ok, true, 'taken from the catalog at once');
    assert.match((await (r.ok ? r.unit.verified : undefined)) ?? '', /wire type 7/);
    assert.equal(store.listUnits().length, 0);
    assert.equal(store.size, 0);
  });

  it("the persisted layer's units catalog: a start takes unchanged units from it without opening their files; a changed unit is read from its file", async () => {
    const pdir = path.join(dir, 'precise');
    fs.mkdirSync(pdir);
    const names = ['a', 'b', 'c'].map((n) => path.join(pdir, `${n}.scip`));
    const when = new Date('2026-01-02T03:04:05Z');
    for (const f of names) {
      await writeScipIndex(f, meta, docs());
      fs.utimesSync(f, when, when);
    }
    const facts = () => new PreciseFacts({ workspaceRoot: '/ws', indexRoot: dir, scip: [], env: {} as PreciseEnv });
    const first = facts();
    await first.ready;
    assert.equal(first.units().length, 3);
    await first.saveUnitsCatalog();
    assert.equal(readUnitsCatalog(pdir).size, 3, 'written after a start that read units from their files');
    // b's trailer broken in place (same size, inode and times): only a start that opens b's file can tell
    const b = names[1]!;
    const bytes = Buffer.from(fs.readFileSync(b));
    bytes.fill(0, bytes.length - 10);
    fs.writeFileSync(b, bytes);
    fs.utimesSync(b, when, when);
    const second = facts();
    await second.ready;
    assert.deepEqual(second.refused(), []);
    assert.equal(second.units().length, 3);
    assert.ok(second.units().every((u) => u.verified === undefined), 'units from the units catalog are not checked again');
    // c rewritten (a new file: another inode and time): read from its file, the others still from the units catalog
    const c = names[2]!;
    fs.rmSync(c);
    await writeScipIndex(c, meta, docs().slice(0, 2));
    const third = facts();
    await third.ready;
    assert.equal(third.store.unit(c)!.documents, 2);
    assert.notEqual(third.store.unit(c)!.verified, undefined, 'a unit read from its file is checked');
    assert.equal(third.store.unit(b)!.verified, undefined);
  });

  it('a question waiting for the persisted facts hurries their loading: the units left are taken at once, not between other work', async () => {
    const pdir = path.join(dir, 'precise');
    fs.mkdirSync(pdir);
    for (let i = 0; i < 40; i++) await writeScipIndex(path.join(pdir, `u${String(i).padStart(2, '0')}.scip`), meta, docs());
    const first = new PreciseFacts({ workspaceRoot: '/ws', indexRoot: dir, scip: [], env: {} as PreciseEnv });
    await first.ready;
    await first.saveUnitsCatalog();
    // a loading that gives a turn after every unit (as under other start-up work)
    const slow = new PreciseFacts({ workspaceRoot: '/ws', indexRoot: dir, scip: [], env: env(), loadSliceMs: 0 });
    await new Promise((r) => setImmediate(r));
    const before = slow.units().length;
    assert.ok(before < 40, `${before} units after one turn`);
    const r = new SemanticRegistry();
    r.setPrecise(slow.answers, slow.ready, () => slow.hurry());
    const asked = r.request('references', 'csharp', { path: 'src/Guard.cs', line: 2, column: 15, includeDeclaration: false }, { deadlineMs: 10_000 });
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    assert.equal(slow.units().length, 40, 'the rest taken within a turn of the question');
    const a = await asked;
    assert.equal(a.mode, 'precise');
    assert.equal(a.provider, 'persisted');
  });

  it('a key whose inputs fingerprint is unchanged holds without its compilation being checked; a generator document without hashing it', async () => {
    const file = path.join(dir, 'g.scip');
    const gen = 'generated:src/Acme.csproj|net8.0/Gen/Gen.G/Hello.g.cs';
    texts[gen] = 'class Use\n{\n  void M() { Guard.Check(); Guard.Check(); }\n}\n';
    try {
      const d = docs().map((x) => ({ ...x, key: { ...x.key!, project: 'src/Acme.csproj|net8.0', inputs: 'F1' } }));
      d.push({ ...d[2]!, relativePath: gen, key: { ...d[2]!.key, contentHash: 'G0', inputs: 'G1' } });
      await writeScipIndex(file, meta, d);
      const store = new OccurrenceStore();
      assert.equal((await store.addUnit(file, 'scip', '/ws')).ok, true);
      const asked: { path: string; holds: boolean | undefined }[] = [];
      const hashed: string[] = [];
      let inputs = { plain: 'F1', generated: 'G1' };
      const a = new PreciseAnswers(
        store,
        env({
          currentHash: (p) => (hashed.push(p), p === gen ? 'G-now' : `h:${texts[p]!.length}`),
          keyProblem: (_k, p, holds) => (asked.push({ path: p, holds }), holds ? undefined : 'its compilation inputs changed'),
          inputsNow: (project, generated) => (project === 'src/Acme.csproj|net8.0' ? (generated ? inputs.generated : inputs.plain) : undefined),
        }),
      );
      assert.equal(a.heldNow('src/Use.cs'), true);
      assert.equal(a.heldNow(gen), true);
      assert.deepEqual(asked, [{ path: 'src/Use.cs', holds: true }, { path: gen, holds: true }]);
      assert.deepEqual(hashed, ['src/Use.cs'], 'the generator document is not hashed');
      inputs = { plain: 'F2', generated: 'G2' };
      a.envGeneration++;
      assert.equal(a.heldNow('src/Use.cs'), false);
      assert.equal(a.current(gen).hasOwnProperty('why') && (a.current(gen) as { why: string }).why, 'edited since its facts were recorded');
      assert.deepEqual(asked.at(-1), { path: 'src/Use.cs', holds: false });
    } finally {
      delete texts[gen];
    }
  });
});

describe('answers from the occurrence store', () => {
  let dir: string;
  let store: OccurrenceStore;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-scip-'));
    await writeScipIndex(path.join(dir, 'a.scip'), meta, docs());
    store = new OccurrenceStore();
    assert.equal((await store.addUnit(path.join(dir, 'a.scip'), 'scip', '/ws')).ok, true);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers references, definition and implementations from the documents whose facts hold', () => {
    const a = new PreciseAnswers(store, env());
    const refs = a.answer('references', 'csharp', { path: 'src/Use.cs', line: 3, column: 15, includeDeclaration: true })!;
    assert.deepEqual(
      refs.value.map((r) => `${r.path}:${r.line}:${r.column}`),
      ['src/Guard.cs:2:14', 'src/Use.cs:3:14', 'src/Use.cs:3:29'],
    );
    assert.deepEqual(refs.coverage.live, []);
    assert.equal(refs.coverage.rows.scip, 3);
    const def = a.answer('definition', 'csharp', { path: 'src/Use.cs', line: 3, column: 21 })!;
    assert.deepEqual(def.value, [{ path: 'src/Guard.cs', line: 4, column: 22, endLine: 4, endColumn: 27, fullSpan: { line: 4, column: 3, endLine: 4, endColumn: 32 } }]);
    const impl = a.answer('implementation', 'csharp', { path: 'src/IGuard.cs', line: 2, column: 19 })!;
    assert.deepEqual(impl.value.map((r) => `${r.path}:${r.line}:${r.column}`), ['src/Guard.cs:2:14']);
  });

  it('names a changed document for live resolution and answers nothing for a changed position', () => {
    const changed = env({ currentHash: (p) => (p === 'src/Use.cs' ? 'other' : `h:${texts[p]!.length}`) });
    const a = new PreciseAnswers(store, changed);
    const refs = a.answer('references', 'csharp', { path: 'src/Guard.cs', line: 2, column: 15, includeDeclaration: false })!;
    assert.deepEqual(refs.value, []);
    assert.deepEqual(refs.coverage.live, [{ path: 'src/Use.cs', why: 'edited since its facts were recorded' }]);
    assert.equal(a.answer('references', 'csharp', { path: 'src/Use.cs', line: 3, column: 15 }), undefined);
    const key = new PreciseAnswers(store, env({ keyProblem: (_k, p) => (p === 'src/Use.cs' ? 'its project references changed' : undefined) }));
    assert.deepEqual(key.answer('references', 'csharp', { path: 'src/Guard.cs', line: 2, column: 15 })!.coverage.live, [{ path: 'src/Use.cs', why: 'its project references changed' }]);
  });

  it('the registry answers from the store alone, or merges the live rows of changed documents and labels both', async () => {
    const live: SemanticProvider & { calls: number } = {
      id: 'roslyn',
      precision: 'precise',
      calls: 0,
      supports: () => true,
      availability: () => ({ state: 'ready', detail: '', started: true }),
      async request() {
        this.calls++;
        return { kind: 'ok', value: [{ path: 'src/Use.cs', line: 3, column: 14, endLine: 3, endColumn: 19 }, { path: 'src/Use.cs', line: 9, column: 1, endLine: 9, endColumn: 6 }, { path: 'src/Guard.cs', line: 2, column: 14, endLine: 2, endColumn: 19, isDeclaration: true }] } as never;
      },
      dispose: async () => undefined,
    };
    const r = new SemanticRegistry();
    r.register(live, 'lsp');
    r.setPrecise(new PreciseAnswers(store, env()));
    const a = await r.request('references', 'csharp', { path: 'src/Use.cs', line: 3, column: 15, includeDeclaration: true });
    assert.equal(a.mode, 'precise');
    assert.equal(a.provider, 'scip');
    assert.equal(live.calls, 0);
    assert.deepEqual(a.provenance, { scip: 3 });
    r.setPrecise(new PreciseAnswers(store, env({ currentHash: (p) => (p === 'src/Use.cs' ? 'other' : `h:${texts[p]!.length}`) })));
    const b = await r.request('references', 'csharp', { path: 'src/Guard.cs', line: 2, column: 15, includeDeclaration: true });
    assert.equal(live.calls, 1);
    assert.equal(b.mode, 'precise');
    assert.equal(b.provider, 'scip+roslyn');
    assert.deepEqual(b.value!.map((x) => `${x.path}:${x.line}`), ['src/Guard.cs:2', 'src/Use.cs:3', 'src/Use.cs:9']);
    assert.deepEqual(b.provenance, { scip: 1, live: 2 });
    assert.match(b.notes!.join('\n'), /1 document\(s\) resolved live by roslyn: src\/Use\.cs \(edited since its facts were recorded\)/);
    live.request = async () => ({ kind: 'unavailable', state: 'loading', reason: 'loading 3 projects' });
    const c = await r.request('references', 'csharp', { path: 'src/Guard.cs', line: 2, column: 15, includeDeclaration: true });
    assert.equal(c.mode, 'precise_partial');
    assert.match(c.gaps[0]!, /1 document\(s\) changed .* could not be resolved live .*src\/Use\.cs/);
    assert.deepEqual(c.value!.map((x) => `${x.path}:${x.line}`), ['src/Guard.cs:2']);
  });

  it('another producer\'s implementations are never labelled precise from its index: the live provider answers, else they are partial with the reason', async () => {
    const foreign = path.join(dir, 'foreign.scip');
    await writeScipIndex(foreign, { ...meta, toolInfo: { name: 'scip-typescript', version: '0.4.0', arguments: [] } }, docs().map(({ key: _key, ...d }) => d));
    const s = new OccurrenceStore();
    assert.equal((await s.addUnit(foreign, 'scip', '/ws')).ok, true);
    const a = new PreciseAnswers(s, env());
    const impl = a.answer('implementation', 'csharp', { path: 'src/IGuard.cs', line: 2, column: 19 })!;
    assert.deepEqual(impl.value.map((r) => `${r.path}:${r.line}`), ['src/Guard.cs:2']);
    assert.match(impl.incomplete ?? '', /scip-typescript 0\.4\.0 records implementations declared with implements\/extends only/);
    assert.equal(a.answer('references', 'csharp', { path: 'src/IGuard.cs', line: 2, column: 19 })!.incomplete, undefined);
    let calls = 0;
    const live: SemanticProvider = {
      id: 'typescript',
      precision: 'precise',
      supports: () => true,
      availability: () => ({ state: 'ready', detail: '', started: true }),
      request: async () => (calls++, { kind: 'ok', value: [{ path: 'src/Guard.cs', line: 2, column: 14, endLine: 2, endColumn: 19 }, { path: 'src/Use.cs', line: 1, column: 7, endLine: 1, endColumn: 10 }] } as never),
      dispose: async () => undefined,
    };
    const r = new SemanticRegistry();
    r.register(live, 'lsp');
    r.setPrecise(a);
    const b = await r.request('implementation', 'csharp', { path: 'src/IGuard.cs', line: 2, column: 19 });
    assert.equal(calls, 1);
    assert.equal(b.provider, 'typescript');
    assert.equal(b.mode, 'precise');
    assert.equal(b.value!.length, 2);
    assert.equal(b.attempts[0]!.outcome, 'unsupported');
    live.request = async () => ({ kind: 'unavailable', state: 'loading', reason: 'loading' });
    const c = await r.request('implementation', 'csharp', { path: 'src/IGuard.cs', line: 2, column: 19 });
    assert.equal(c.mode, 'precise_partial');
    assert.match(c.gaps[0]!, /implements\/extends only.*no live provider answered/);
  });

  it('a generic type (metadata name Box`1) is answered from the store, its uses spelling Box; a question while the facts load waits for them', async () => {
    const BOX = globalSymbol('sextant-cs', '.', 'Acme.Common', '.', `Acme/Common/${escapeName('Box`1')}#`);
    const t: Record<string, string> = { 'src/Box.cs': 'public class Box<T> {}\n', 'src/UseBox.cs': 'class U { Box<int> b; }\n' };
    const k = (p: string) => ({ contentHash: `h:${t[p]!.length}`, project: 'src/Acme.csproj', compilation: 'c1', deps: [] });
    const file = path.join(dir, 'box.scip');
    await writeScipIndex(file, meta, [
      { relativePath: 'src/Box.cs', language: 'csharp', positionEncoding: 2, occurrences: [{ range: [0, 13, 16], symbol: BOX, symbolRoles: ROLE_DEFINITION }], symbols: [{ symbol: BOX, documentation: [], relationships: [], kind: 7, displayName: 'Box<T>', enclosingSymbol: '' }], key: k('src/Box.cs') },
      { relativePath: 'src/UseBox.cs', language: 'csharp', positionEncoding: 2, occurrences: [{ range: [0, 10, 13], symbol: BOX, symbolRoles: 0 }], symbols: [], key: k('src/UseBox.cs') },
    ]);
    const s = new OccurrenceStore();
    const a = new PreciseAnswers(s, env({ currentHash: (p) => (t[p] !== undefined ? `h:${t[p]!.length}` : undefined), filesMentioning: (name) => new Set(Object.keys(t).filter((p) => new RegExp(`\\b${name}\\b`).test(t[p]!))), readText: (p) => t[p] }));
    // the facts arrive 300 ms after the question
    const loading = new Promise((r) => setTimeout(r, 300)).then(async () => {
      assert.equal((await s.addUnit(file, 'scip', '/ws')).ok, true);
      a.envGeneration++;
    });
    let calls = 0;
    const live: SemanticProvider = { id: 'roslyn', precision: 'precise', supports: () => true, availability: () => ({ state: 'ready', detail: '', started: true }), request: async () => (calls++, { kind: 'ok', value: [] } as never), dispose: async () => undefined };
    const r = new SemanticRegistry();
    r.register(live, 'lsp');
    r.setPrecise(a, loading);
    const refs = await r.request('references', 'csharp', { path: 'src/Box.cs', line: 1, column: 14, includeDeclaration: true }, { deadlineMs: 10_000 });
    assert.equal(refs.provider, 'scip');
    assert.equal(calls, 0);
    assert.deepEqual(refs.value!.map((x) => `${x.path}:${x.line}:${x.column}`), ['src/Box.cs:1:14', 'src/UseBox.cs:1:11']);
  });

  it('takes another producer\'s document only while its occurrences spell their names', () => {
    const d = docs()[2]!;
    assert.equal(verifyAgainstText(d, texts['src/Use.cs']!), undefined);
    assert.match(verifyAgainstText(d, '// a line\n' + texts['src/Use.cs']!) ?? '', /no longer match/);
    assert.match(verifyAgainstText(d, 'x\n') ?? '', /past the end/);
  });

  it('a linked file compiled by several projects is answered in one pass: each candidate once, generators\' documents left out of references', async () => {
    // shared/Info.cs is compiled by P1..P3 (a symbol per compilation); each project has a use of its own; P1 has a generator's document
    const info = (i: number) => globalSymbol('sextant-cs', '.', `P${i}`, '.', 'Acme/Info#');
    const linked: Record<string, string> = { 'shared/Info.cs': 'namespace Acme;\npublic class Info {}\n' };
    for (let i = 1; i <= 3; i++) linked[`p${i}/Use.cs`] = `class Use${i} { Info x; }\n`;
    const key = (p: string, i: number) => ({ contentHash: `h:${p}`, project: `p${i}/P${i}.csproj`, compilation: 'c', deps: [] });
    const s = new OccurrenceStore();
    for (let i = 1; i <= 3; i++) {
      const file = path.join(dir, `p${i}.scip`);
      const own: ScipDocument[] = [
        { relativePath: 'shared/Info.cs', language: 'csharp', positionEncoding: 2, occurrences: [{ range: [1, 13, 17], symbol: info(i), symbolRoles: ROLE_DEFINITION }], symbols: [{ symbol: info(i), documentation: [], relationships: [], kind: 7, displayName: 'Info', enclosingSymbol: '' }], key: key('shared/Info.cs', i) },
        { relativePath: `p${i}/Use.cs`, language: 'csharp', positionEncoding: 2, occurrences: [{ range: [0, 15, 19], symbol: info(i), symbolRoles: 0 }], symbols: [], key: key(`p${i}/Use.cs`, i) },
      ];
      if (i === 1) own.push({ relativePath: 'generated:p1/P1.csproj|net8.0/Gen/Info.g.cs', language: 'csharp', positionEncoding: 2, occurrences: [{ range: [0, 0, 4], symbol: info(1), symbolRoles: 0 }], symbols: [], key: key('gen', 1) });
      await writeScipIndex(file, meta, own);
      assert.equal((await s.addUnit(file, 'scip', '/ws')).ok, true);
    }
    const a = new PreciseAnswers(
      s,
      env({
        // the generator's document does not hold now (its project cannot be described)
        currentHash: (p) => (linked[p] !== undefined ? `h:${p}` : undefined),
        filesMentioning: (name) => new Set(Object.keys(linked).filter((p) => new RegExp(`\\b${name}\\b`).test(linked[p]!))),
      }),
    );
    const refs = a.answer('references', 'csharp', { path: 'shared/Info.cs', line: 2, column: 15 })!;
    assert.deepEqual(refs.value.map((r) => `${r.path}:${r.line}:${r.column}`).sort(), ['p1/Use.cs:1:16', 'p2/Use.cs:1:16', 'p3/Use.cs:1:16']);
    // 3 compilations of shared/Info.cs + 3 uses, each read once (not once per compilation: 18); the generator's document is not a references candidate
    assert.equal(refs.coverage.documents, 6);
    assert.deepEqual(refs.coverage.live, []);
    const defs = a.answer('definition', 'csharp', { path: 'p2/Use.cs', line: 1, column: 17 })!;
    assert.deepEqual(defs.value.map((r) => `${r.path}:${r.line}:${r.column}`), ['shared/Info.cs:2:14']);
  });
});
