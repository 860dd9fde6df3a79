import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { isToolError } from '../../../server/src/core/errors';
import { languageById } from '../../../server/src/syntax/languageConfig';
import { parseText } from '../../../server/src/syntax/parseFile';
import { allLanguages } from '../../../server/src/syntax/languageConfig';
import { compileStructuralQuery, expandNamedQuery } from '../../../server/src/syntax/structuralQuery';
import { symbolAt } from '../../../server/src/syntax/symbolAt';
import { inspectText } from '../../../server/src/syntax/syntaxTree';

const FIXTURES = path.resolve(__dirname, '../../fixtures/syntax');
const read = (f: string): string => fs.readFileSync(path.join(FIXTURES, f), 'utf8');

describe('syntax: symbol_at, inspect_syntax_tree, structural queries', () => {
  it('symbol_at gives the innermost declaration and its containers for a line inside a method body', async () => {
    const r = await parseText('csharp.cs', read('csharp.cs'));
    const at = symbolAt(r.symbols, 31); // `int Local(int x) => x + 1;` inside Convert
    assert.equal(at.symbol?.name, 'Local');
    assert.deepEqual(at.containers.map((c) => c.name), ['Acme.Orders', 'Order', 'Convert']);
    const body = symbolAt(r.symbols, 30);
    assert.equal(body.symbol?.name, 'Convert');
  });

  it('symbol_at between declarations answers the enclosing type, and nothing outside any', async () => {
    const r = await parseText('csharp.cs', read('csharp.cs'));
    assert.equal(symbolAt(r.symbols, 14).symbol?.name, 'Order');
    assert.equal(symbolAt(r.symbols, 3).symbol, undefined);
  });

  it('symbol_at with a column picks the declaration that column is in', async () => {
    const r = await parseText('x.cs', 'class A { void M() { } void N() { } }\n');
    assert.equal(symbolAt(r.symbols, 1, 12).symbol?.name, 'M');
    assert.equal(symbolAt(r.symbols, 1, 25).symbol?.name, 'N');
    assert.equal(symbolAt(r.symbols, 1, 1).symbol?.name, 'A');
  });

  it('inspect_syntax_tree shows the node, its field, its ancestors and a query hint', async () => {
    const cs = languageById('csharp');
    assert.ok(cs);
    const v = await inspectText(read('csharp.cs'), cs, 23, 20, 3, 20);
    assert.equal(v.node.type, 'identifier');
    assert.equal(v.node.field, 'name');
    assert.equal(v.node.text, 'CompareTo');
    assert.equal(v.ancestors[0]?.type, 'method_declaration');
    assert.equal(v.ancestors.length, 3);
    assert.equal(v.truncatedAncestors, true);
    const m = await inspectText(read('csharp.cs'), cs, 23, 9, 1, 20);
    assert.equal(m.node.type, 'modifier');
    await assert.rejects(inspectText('class A {}', cs, 5, 1, 3, 3), (e: unknown) => isToolError(e) && e.code === 'LINE_OUT_OF_RANGE');
  });

  it('a structural query returns one row per primary capture with the other captures', async () => {
    const q = await compileStructuralQuery('csharp', '(method_declaration name: (identifier) @name parameters: (parameter_list) @params) @match');
    try {
      const r = q.run('csharp.cs', read('csharp.cs'), 100);
      const names = r.matches.map((m) => m.captures.find((c) => c.name === 'name')?.text);
      assert.ok(names.includes('Convert') && names.includes('LineCount'), names.join(','));
      assert.equal(r.matches[0]?.capture, 'match');
      const limited = q.run('csharp.cs', read('csharp.cs'), 2);
      assert.equal(limited.matches.length, 2);
      assert.equal(limited.truncated, true);
    } finally {
      q.dispose();
    }
  });

  it('an invalid query is INVALID_QUERY with the parser message; an unknown language names the supported ones', async () => {
    await assert.rejects(compileStructuralQuery('csharp', '(method_declaration nme: (identifier) @n)'), (e: unknown) => isToolError(e) && e.code === 'INVALID_QUERY' && /nme|field/i.test(e.message));
    await assert.rejects(compileStructuralQuery('csharp', '(method_declaration'), (e: unknown) => isToolError(e) && e.code === 'INVALID_QUERY');
    await assert.rejects(compileStructuralQuery('cobol', '(x) @x'), (e: unknown) => isToolError(e) && e.code === 'UNSUPPORTED_LANGUAGE' && /typescript/.test(e.hint));
  });

  it('every query shipped in language-configs compiles for its grammar, also pinned to a name', async () => {
    let n = 0;
    for (const lang of allLanguages()) {
      for (const name of Object.keys(lang.queries)) {
        for (const src of [expandNamedQuery(lang, `@${name}`), expandNamedQuery(lang, `@${name}:Foo`)]) {
          const q = await compileStructuralQuery(lang.id, src);
          q.dispose();
          n++;
        }
      }
    }
    assert.ok(n >= 14, `only ${n} shipped queries`);
  });

  it('@calls:Name finds the call sites of Name and nothing else', async () => {
    const cs = languageById('csharp');
    assert.ok(cs);
    const q = await compileStructuralQuery('csharp', expandNamedQuery(cs, '@calls:Add'));
    try {
      const r = q.run('csharp.cs', read('csharp.cs'), 50);
      assert.deepEqual(r.matches.map((m) => m.line), [25]);
    } finally {
      q.dispose();
    }
    assert.throws(() => expandNamedQuery(cs, '@nope'), (e: unknown) => isToolError(e) && e.code === 'INVALID_QUERY' && /@calls/.test(e.hint));
  });
});
