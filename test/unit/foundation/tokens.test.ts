import * as assert from 'node:assert/strict';
import { TermDictionary } from '../../../server/src/index/termDictionary';
import { countLineBytes, countLines } from '../../../server/src/index/indexer';
import { distinctTokens, literalConstraints, TokenInterner } from '../../../server/src/index/tokens';

describe('text index tokens', function () {
  it('indexes lower-cased identifier runs of 2..64 characters', function () {
    const t = distinctTokens('var x = GetRequiredService<IFoo>(my_var, 42); ' + 'a'.repeat(65));
    assert.deepEqual([...t].sort(), ['42', 'getrequiredservice', 'ifoo', 'my_var', 'var']);
  });

  it('reads the same tokens and line counts from UTF-8 bytes as from the decoded text, interning across files', function () {
    const inputs: Buffer[] = [
      'var x = GetRequiredService<IFoo>(my_var, 42); ' + 'a'.repeat(65) + ' ' + 'b'.repeat(64),
      '\uFEFFnamespace Ünïcode.Straße { class Café_Ok : I日本 { } }\r\nx\n',
      'ab\u00e9cd \u{1F600}emoji_9 Z', // accented and astral characters split tokens, as in the text
      '', 'x', '\n\n', 'no newline at end',
    ].map((t) => Buffer.from(t, 'utf8'));
    inputs.push(Buffer.from([0x61, 0x62, 0xc0, 0x41, 0x42, 0xe2, 0x82, 0x43, 0x44, 0x0a])); // invalid UTF-8 around ASCII
    const interner = new TokenInterner();
    const seen = new Set<string>();
    for (const bytes of inputs) {
      const t = bytes.toString('latin1');
      const decoded = bytes.toString('utf8').replace(/^\uFEFF/, '');
      const got = interner.fileTokens(bytes);
      assert.deepEqual([...got].sort(), [...distinctTokens(decoded)].sort(), JSON.stringify(t));
      assert.equal(new Set(got).size, got.length, 'each token once per file');
      assert.deepEqual(interner.newTokens().sort(), got.filter((x) => !seen.has(x)).sort(), 'new tokens are those not met before');
      for (const x of got) seen.add(x);
      const bom = bytes[0] === 0xef ? 3 : 0;
      assert.equal(countLineBytes(bytes, bom), countLines(decoded), JSON.stringify(t));
    }
    // Many distinct tokens: the table grows and every token keeps its text.
    const many = Array.from({ length: 70_000 }, (_, i) => `Tok${i}_x`).join(' ');
    assert.deepEqual(new TokenInterner().fileTokens(Buffer.from(many)), many.toLowerCase().split(' '));
  });

  it('turns a literal into exact inner tokens and open outer fragments', function () {
    assert.deepEqual(literalConstraints('new InvoiceService(cmd)', false).constraints, [
      { kind: 'suffix', text: 'new' },
      { kind: 'exact', text: 'invoiceservice', cased: true },
      { kind: 'exact', text: 'cmd' },
    ]);
    assert.deepEqual(literalConstraints('RequiredServ', false).constraints, [{ kind: 'substring', text: 'requiredserv', cased: true }]);
    assert.deepEqual(literalConstraints('Billing:Invoice', false).constraints, [
      { kind: 'suffix', text: 'billing', cased: true },
      { kind: 'prefix', text: 'invoice', cased: true },
    ]);
    assert.deepEqual(literalConstraints('GetRequiredService', true).constraints, [{ kind: 'exact', text: 'getrequiredservice', cased: true }]);
    assert.deepEqual(literalConstraints('getRequiredService', false).constraints, [{ kind: 'substring', text: 'getrequiredservice', cased: true }]);
    assert.deepEqual(literalConstraints('=>', false).constraints, []);
    assert.equal(literalConstraints('x'.repeat(70), false).unindexable, true);
  });

  it('expands fragments through the dictionary and refuses over-broad expansions', function () {
    const d = new TermDictionary(['getrequiredservice', 'trygetrequiredservicex', 'service', 'services', 'other']);
    assert.deepEqual(d.expand({ kind: 'substring', text: 'requiredservice' }, 10), ['getrequiredservice', 'trygetrequiredservicex']);
    assert.deepEqual(d.expand({ kind: 'prefix', text: 'service' }, 10), ['service', 'services']);
    assert.deepEqual(d.expand({ kind: 'suffix', text: 'vice' }, 10), ['getrequiredservice', 'service']);
    assert.deepEqual(d.expand({ kind: 'exact', text: 'missing' }, 10), []);
    assert.equal(d.expand({ kind: 'substring', text: 'e' }, 2), undefined);
    d.add('zservice');
    assert.deepEqual(d.expand({ kind: 'suffix', text: 'service' }, 10), ['getrequiredservice', 'service', 'zservice']);
    assert.deepEqual(TermDictionary.parse(d.serialize()).length, 6);
  });

  it('a lazily loaded dictionary takes new terms without reading the stored ones, and merges them when it does', function () {
    const d = new TermDictionary();
    let loads = 0;
    d.resetLazy(() => {
      loads++;
      return ['service', 'other'];
    });
    assert.equal(d.add('zservice'), true);
    assert.equal(d.add('other'), true, 'unknown before the load: reported new');
    assert.equal(loads, 0, 'adding did not read the stored terms');
    assert.deepEqual(d.expand({ kind: 'suffix', text: 'service' }, 10), ['service', 'zservice']);
    assert.equal(loads, 1);
    assert.equal(d.add('other'), false);
    assert.deepEqual(TermDictionary.parse(d.serialize()), ['other', 'service', 'zservice']);
  });

  it('expansions of a stored dictionary with terms added since equal a test of every term, in sorted order', function () {
    // Random lower-case tokens over a small alphabet, so fragments hit many of them.
    let seed = 7;
    const rnd = (n: number) => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n);
    const word = () => Array.from({ length: 2 + rnd(7) }, () => 'abcd_1'[rnd(6)]).join('');
    const stored = [...new Set(Array.from({ length: 3000 }, word))].sort();
    const added = Array.from({ length: 300 }, word);
    const d = new TermDictionary();
    d.resetLazy(() => TermDictionary.parse(stored.join('\n')));
    for (const t of added) d.add(t);
    const all = [...new Set([...stored, ...added])].sort();
    for (let q = 0; q < 200; q++) {
      const text = word().slice(0, 1 + rnd(3));
      for (const kind of ['prefix', 'suffix', 'substring'] as const) {
        const want = all.filter((t) => (kind === 'prefix' ? t.startsWith(text) : kind === 'suffix' ? t.endsWith(text) : t.includes(text)));
        assert.deepEqual(d.expand({ kind, text }, 100_000), want, `${kind} ${text}`);
        if (want.length > 0) assert.equal(d.expand({ kind, text }, want.length - 1), undefined, `${kind} ${text} over the cap`);
      }
    }
    assert.equal(d.size, all.length);
    assert.deepEqual(TermDictionary.parse(d.serialize()), all);
    assert.deepEqual(d.expand({ kind: 'substring', text: 'ab' }, 100_000), all.filter((t) => t.includes('ab')), 'the same after the added terms are folded in');
  });
});
