import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseText } from '../../../server/src/syntax/parseFile';
import { blankInactiveBranches } from '../../../server/src/syntax/preprocessor';

const names = (r: { symbols: { name: string }[] }): string[] => r.symbols.map((s) => s.name);

describe('syntax: parsing never fails and keeps declarations', () => {
  it('a class whose header is split by #if/#else is found once, and the answer says it was re-parsed', async () => {
    const src = ['namespace N;', '#if NETFRAMEWORK', 'public class A : MarshalByRefObject', '#else', 'public class A', '#endif', '{', '    public void M() { }', '}', ''].join('\n');
    const r = await parseText('A.cs', src);
    assert.deepEqual(names(r).filter((n) => n === 'A'), ['A']);
    assert.ok(names(r).includes('M'));
    assert.ok(r.diagnostics.reparsedWith.some((w) => w.includes('#if')), JSON.stringify(r.diagnostics));
    const a = r.symbols.find((s) => s.name === 'A');
    assert.equal(a?.signature, 'public class A : MarshalByRefObject');
  });

  it('declarations that exist only under #else are kept', async () => {
    const src = ['class C', '{', '    void Run(', '#if DEBUG', '        bool verbose,', '#endif', '        int n) { }', '#if NET', '    int OnlyNet() => 1;', '#else', '    int OnlyFramework() => 2;', '#endif', '}', ''].join('\n');
    const r = await parseText('C.cs', src);
    assert.ok(names(r).includes('OnlyNet'), names(r).join(','));
    assert.ok(names(r).includes('OnlyFramework'), names(r).join(','));
    assert.ok(names(r).includes('Run'));
  });

  it("'async' used as a parameter name does not hide the methods after it", async () => {
    const src = ['public class T', '{', '    public Task A(bool async) => Go(async);', '    public void B() { if (async) { } }', '    public void C() { }', '}', ''].join('\n');
    const r = await parseText('T.cs', src);
    for (const n of ['T', 'A', 'B', 'C']) assert.ok(names(r).includes(n), `${n} missing from ${names(r).join(',')}`);
    const a = r.symbols.find((s) => s.name === 'A');
    assert.equal(a?.signature, 'public Task A(bool async)', 'signatures come from the unrepaired text');
  });

  it('reports syntax errors with their lines instead of throwing', async () => {
    const src = ['class Ok { void A() { } }', 'class Broken { void B( { }', 'class After { void C() { } }', ''].join('\n');
    const r = await parseText('B.cs', src);
    assert.equal(r.diagnostics.hasErrors, true);
    assert.ok(r.diagnostics.errorLines.length > 0);
    assert.ok(names(r).includes('Ok') && names(r).includes('After'), names(r).join(','));
  });

  it('a file in an unsupported language answers with the supported ones', async () => {
    const r = await parseText('notes.txt', 'hello');
    assert.equal(r.error?.code, 'UNSUPPORTED_LANGUAGE');
    assert.match(r.error?.message ?? '', /csharp.*typescript/);
  });

  it('blanking inactive branches keeps every offset and line', () => {
    const src = 'a\n#if X\nb\n#elif Y\nc\n#else\nd\n#endif\ne\n';
    const first = blankInactiveBranches(src, 'first') ?? '';
    const last = blankInactiveBranches(src, 'last') ?? '';
    assert.equal(first.length, src.length);
    assert.equal(last.length, src.length);
    assert.deepEqual(first.split('\n').map((l) => l.trim()), ['a', '', 'b', '', '', '', '', '', 'e', '']);
    assert.deepEqual(last.split('\n').map((l) => l.trim()), ['a', '', '', '', '', '', 'd', '', 'e', '']);
  });

  it('any text parses to an answer whose spans lie inside the file (property)', async () => {
    const alphabet = ['class ', 'namespace ', 'N', 'M', '(', ')', '{', '}', ';', '\n', '#if X\n', '#else\n', '#endif\n', 'public ', 'void ', 'int ', '=>', ' ', '"', '<T>', '[Fact]', 'async '];
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }), async (parts) => {
        const src = parts.join('');
        const r = await parseText('P.cs', src);
        const lines = src.split('\n').length;
        for (const s of r.symbols) {
          assert.ok(s.line >= 1 && s.line <= s.endLine && s.endLine <= lines, JSON.stringify({ src, s }));
          assert.ok(s.parent < r.symbols.indexOf(s));
        }
      }),
      { numRuns: 150 },
    );
  });
});
