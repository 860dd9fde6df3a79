import * as assert from 'node:assert/strict';
import { idType, operatorName, paramList } from '../../../server/src/syntax/csharpDocId';

const none = { typeParams: [], methodParams: [] };

describe('syntax: C# documentation-comment ids', () => {
  it('maps keyword types to System names and keeps other names as written', () => {
    assert.equal(idType('int', none), 'System.Int32');
    assert.equal(idType('string', none), 'System.String');
    assert.equal(idType('Dictionary<string, List<int>>', none), 'Dictionary{System.String,List{System.Int32}}');
    assert.equal(idType('global::System.IO.Stream', none), 'System.IO.Stream');
  });

  it('writes arrays, pointers, nullable value types and tuples the documentation-id way', () => {
    assert.equal(idType('int[]', none), 'System.Int32[]');
    assert.equal(idType('int[,]', none), 'System.Int32[0:,0:]');
    assert.equal(idType('byte*', none), 'System.Byte*');
    assert.equal(idType('int?', none), 'System.Nullable{System.Int32}');
    assert.equal(idType('string?', none), 'System.String');
    assert.equal(idType('(int a, string b)', none), 'System.ValueTuple{System.Int32,System.String}');
  });

  it('numbers type parameters of the type with ` and of the method with ``', () => {
    const scope = { typeParams: ['TKey', 'TValue'], methodParams: ['TResult'] };
    assert.equal(idType('Func<TValue, TResult>', scope), 'Func{`1,``0}');
  });

  it('marks ref/out/in parameters with @ and omits empty parameter lists', () => {
    assert.equal(paramList([{ type: 'int', modifiers: ['ref'] }, { type: 'bool', modifiers: ['out'] }], none), '(System.Int32@,System.Boolean@)');
    assert.equal(paramList([], none), '');
  });

  it('names operators by arity', () => {
    assert.equal(operatorName('-', 1), 'op_UnaryNegation');
    assert.equal(operatorName('-', 2), 'op_Subtraction');
    assert.equal(operatorName('==', 2), 'op_Equality');
  });
});
