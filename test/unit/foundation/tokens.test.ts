import * as assert from 'node:assert/strict';
import { TermDictionary } from '../../../server/src/index/termDictionary';
import { distinctTokens, literalConstraints } from '../../../server/src/index/tokens';

describe('text index tokens', function () {
  it('indexes lower-cased identifier runs of 2..64 characters', function () {
    const t = distinctTokens('var x = GetRequiredService<IFoo>(my_var, 42); ' + 'a'.repeat(65));
    assert.deepEqual([...t].sort(), ['42', 'getrequiredservice', 'ifoo', 'my_var', 'var']);
  });

  it('turns a literal into exact inner tokens and open outer fragments', function () {
    assert.deepEqual(literalConstraints('new InvoiceService(cmd)', false).constraints, [
      { kind: 'suffix', text: 'new' },
      { kind: 'exact', text: 'invoiceservice' },
      { kind: 'exact', text: 'cmd' },
    ]);
    assert.deepEqual(literalConstraints('RequiredServ', false).constraints, [{ kind: 'substring', text: 'requiredserv' }]);
    assert.deepEqual(literalConstraints('Billing:Invoice', false).constraints, [
      { kind: 'suffix', text: 'billing' },
      { kind: 'prefix', text: 'invoice' },
    ]);
    assert.deepEqual(literalConstraints('GetRequiredService', true).constraints, [{ kind: 'exact', text: 'getrequiredservice' }]);
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
});
