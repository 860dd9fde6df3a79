/** Unit tests of the expanded tools' own parsing (no git, no files): diff hunks, since dates, attribute arguments, doc comments, base lists. */
import * as assert from 'node:assert/strict';
import { parseNumstat, parseUnifiedDiff } from '../../../server/src/nav/expanded/git';
import { parseSinceDate } from '../../../server/src/nav/expanded/recentChanges';
import { attributeKey, parseAttributeQuery } from '../../../server/src/nav/expanded/attributeSearch';
import { baseNames, commentAbove, parseJsDoc, parseXmlDoc } from '../../../server/src/nav/expanded/xmlDoc';
import { attributeArgs } from '../../../server/src/syntax/outline';

describe('expanded tools: parsers', function () {
  it('a -U0 diff: hunks by new-side lines; a removed line reading "-- x" or "++ y" is body, not a header', function () {
    const out = [
      'diff --git a/q.sql b/q.sql',
      '--- a/q.sql',
      '+++ b/q.sql',
      '@@ -3,2 +3 @@ select',
      '--- a comment removed',
      '-+++ not a header',
      '+kept',
      '@@ -10,0 +10,2 @@',
      '+a',
      '+b',
      'diff --git a/gone.cs b/gone.cs',
      '--- a/gone.cs',
      '+++ /dev/null',
      '@@ -1,2 +0,0 @@',
      '-x',
      '-y',
    ].join('\n');
    const m = parseUnifiedDiff(out);
    assert.deepEqual([...m.keys()], ['q.sql', 'gone.cs']);
    assert.deepEqual(m.get('q.sql'), [{ start: 3, count: 1, removed: 2 }, { start: 10, count: 2, removed: 0 }]);
    assert.deepEqual(parseNumstat('1\t2\ta b.cs\0-\t-\timg.png\0'), new Map([['a b.cs', [1, 2]], ['img.png', [0, 0]]]));
  });

  it('since: ISO and relative dates parse, a date-shaped string that is no date throws, a ref is left to git', function () {
    const now = Date.parse('2026-12-01T12:00:00Z');
    assert.equal(parseSinceDate('2026-11-30', now), Date.parse('2026-11-30'));
    assert.equal(parseSinceDate('3 days ago', now), now - 3 * 864e5);
    assert.equal(parseSinceDate('2 hours', now), now - 2 * 36e5);
    assert.throws(() => parseSinceDate('2026-13-45', now), /INVALID_ARGUMENT|not a date/);
    assert.equal(parseSinceDate('main', now), undefined);
    assert.equal(parseSinceDate('HEAD~3', now), undefined);
  });

  it('attribute arguments from the declaration head, strings with parentheses and verbatim strings kept whole', function () {
    assert.deepEqual(attributeArgs('[HttpGet("{id}")]\n[Authorize]\n', ['HttpGet', 'Authorize']), ['"{id}"', '']);
    assert.deepEqual(attributeArgs('[GeneratedRegex(@"^(\\d+)\\)$", RegexOptions.None)]', ['GeneratedRegex']), ['@"^(\\d+)\\)$", RegexOptions.None']);
    assert.deepEqual(attributeArgs("@Component({ selector: 'x)', n: f(1) })\n", ['Component']), ["{ selector: 'x)', n: f(1) }"]);
    assert.equal(attributeArgs('[Fact]', ['Fact']), undefined);
    assert.equal(attributeKey('Xunit.FactAttribute'), 'fact');
    assert.deepEqual(parseAttributeQuery('[JsonPropertyName("id")]'), { key: 'jsonpropertyname', args: '"id"' });
    assert.deepEqual(parseAttributeQuery('@Injectable'), { key: 'injectable' });
    assert.throws(() => parseAttributeQuery('(('), /not an attribute name/);
  });

  it('doc comments: /// lines and /** */ blocks above a declaration, a plain /* */ block is none', function () {
    const lines = ['/// <summary>A <c>x</c> &amp; y.</summary>', '/// <param name="a">the a</param>', '[Obsolete]', 'void M(int a);', '', '/* plain */', 'int z;'];
    assert.deepEqual(commentAbove(lines, 3), { style: 'xml', text: '<summary>A <c>x</c> &amp; y.</summary>\n<param name="a">the a</param>' });
    assert.equal(commentAbove(lines, 7), undefined);
    assert.deepEqual(parseXmlDoc(commentAbove(lines, 3)!.text), { summary: 'A x & y.', params: { a: 'the a' } });
    assert.deepEqual(parseXmlDoc('<inheritdoc cref="M:A.B.C(System.Int32)"/>'), { inherit: { cref: 'M:A.B.C(System.Int32)' } });
    assert.deepEqual(parseJsDoc('Does it.\n@param {string} [name=x] - who\n@template T the item\n@inheritDoc'), { summary: 'Does it.', params: { name: 'who' }, typeParams: { T: 'the item' }, inherit: {} });
  });

  it('base lists of C# and TS type signatures', function () {
    assert.deepEqual(baseNames('public class A<T> : Base<Dictionary<T, int>>, IFoo, Ns.IBar where T : new()'), ['Base', 'IFoo', 'IBar']);
    assert.deepEqual(baseNames('export class A extends B<C> implements I, J'), ['B', 'I', 'J']);
    assert.deepEqual(baseNames('public record R(int X)'), []);
  });
});
