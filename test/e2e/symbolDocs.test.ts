/**
 * search_symbol `docs` over a real MCP client on real stdio: C# XML doc comments (summary, params,
 * returns, exceptions, <see>/<paramref> as words) with <inheritdoc/> resolved through an interface
 * in the workspace, by cref, with own tags winning, unresolved when the base is outside (BCL);
 * JSDoc/TSDoc tags; a plain block comment is not documentation.
 */
import * as assert from 'node:assert/strict';
import { call, callError } from '../helpers/mcpClient';
import { servedTree } from '../helpers/servedTree';
import { symbolRowNames } from '../../server/src/mcp/tools/syntax';

const FILES: Record<string, string> = {
  'src/Pricing.cs': `namespace Lib;

/// <summary>Computes <see cref="T:Lib.Order"/> totals.</summary>
public interface IPricing
{
    /// <summary>Price of <paramref name="qty"/> items.</summary>
    /// <param name="qty">How many.</param>
    /// <returns>The price in cents.</returns>
    /// <exception cref="T:System.ArgumentOutOfRangeException"><paramref name="qty"/> is negative.</exception>
    int Price(int qty);
}

/// <inheritdoc/>
public class Pricing : IPricing
{
    /// <inheritdoc/>
    /// <returns>Cents, never negative.</returns>
    [Obsolete("x")]
    public int Price(int qty) => qty * 100;

    /// <inheritdoc/>
    public override string ToString() => "";

    /// <inheritdoc cref="IPricing.Price"/>
    public int Other(int qty) => 0;
}
`,
  'web/format.ts': `/**
 * Formats a {@link Money} value.
 * @param value - the amount
 * @param currency The ISO code
 * @returns the text
 * @throws {RangeError} when negative
 * @deprecated use formatMoney
 */
export function format(value: number, currency: string): string {
  return \`\${value} \${currency}\`;
}

/* not a doc */
export const plain = 1;
`,
};

describe('search_symbol docs over MCP @e2e', function () {
  const served = servedTree('docs', FILES);

  const docOf = async (query: string, extra: Record<string, unknown> = {}) => {
    const r = await call(served.c.client, 'search_symbol', { query, docs: true, ...extra });
    // A row says its qualified name only when the symbol id does not spell it (answers' compact rows).
    return Object.fromEntries(r.items.map((i: { symbolId: string; path: string; qualifiedName?: string; doc?: unknown }) => [symbolRowNames(i).qualifiedName, i.doc]));
  };

  it('C# XML docs: tags as plain text; <inheritdoc/> from the interface, own <returns> wins; by cref; unresolved outside the workspace', async function () {
    const price = await docOf('Price');
    console.log(`      ${JSON.stringify(price)}`);
    const base = { summary: 'Price of qty items.', params: { qty: 'How many.' }, returns: 'The price in cents.', exceptions: { 'System.ArgumentOutOfRangeException': 'qty is negative.' } };
    assert.deepEqual(price['Lib.IPricing.Price'], base);
    assert.deepEqual(price['Lib.Pricing.Price'], { ...base, returns: 'Cents, never negative.', inheritedFrom: 'Lib.IPricing.Price' });
    assert.deepEqual((await docOf('Other'))['Lib.Pricing.Other'], { ...base, inheritedFrom: 'Lib.IPricing.Price' });
    assert.deepEqual((await docOf('Pricing', { kinds: ['class'] }))['Lib.Pricing'], { summary: 'Computes Lib.Order totals.', inheritedFrom: 'Lib.IPricing' });
    assert.deepEqual((await docOf('ToString'))['Lib.Pricing.ToString'], { inheritUnresolved: 'no base type or interface in the workspace documents it' });
  });

  it('JSDoc/TSDoc tags; a plain block comment is not documentation; without docs no doc field', async function () {
    assert.deepEqual((await docOf('format'))['format'], {
      summary: 'Formats a Money value.',
      params: { value: 'the amount', currency: 'The ISO code' },
      returns: 'the text',
      exceptions: { RangeError: 'when negative' },
      deprecated: 'use formatMoney',
    });
    assert.equal((await docOf('plain'))['plain'], undefined);
    const r = await call(served.c.client, 'search_symbol', { query: 'format' });
    assert.equal(r.items[0].doc, undefined);
  });

  it('xml_doc(target): by qualified name, symbolId and position; none; bad target', async function () {
    const byName = await call(served.c.client, 'xml_doc', { target: { qualifiedName: 'Lib.Pricing.Price' } });
    console.log(`      ${byName.summary} ${JSON.stringify(byName.items)}`);
    assert.deepEqual(byName.items, [
      {
        symbolId: 'M:Lib.Pricing.Price(System.Int32)', kind: 'method', qualifiedName: 'Lib.Pricing.Price', path: 'src/Pricing.cs', line: 18,
        summary: 'Price of qty items.', params: { qty: 'How many.' }, returns: 'Cents, never negative.', exceptions: { 'System.ArgumentOutOfRangeException': 'qty is negative.' }, inheritedFrom: 'Lib.IPricing.Price',
      },
    ]);
    const byId = await call(served.c.client, 'xml_doc', { target: { symbolId: byName.items[0].symbolId } });
    assert.deepEqual(byId.items, byName.items);
    const byPos = await call(served.c.client, 'xml_doc', { target: { path: 'web/format.ts', line: 9, column: 17 } });
    assert.equal(byPos.items[0].summary, 'Formats a Money value.');
    const none = await call(served.c.client, 'xml_doc', { target: { qualifiedName: 'plain' } });
    assert.deepEqual(none.items, []);
    assert.match(none.summary, /has no doc comment/);
    assert.match(await callError(served.c.client, 'xml_doc', { target: { qualifiedName: 'No.Such' } }), /^Error \[[A-Z_]+\]: .* Hint: /);
  });
});
