/** Merging the editor's answer with the engine's TypeScript host (semantic/tsprograms/mergeAnswers.ts). */
import * as assert from 'node:assert/strict';
import { mergeAnswers } from '../../../server/src/semantic/tsprograms/mergeAnswers';
import type { HierarchyItem, IncomingCall, ReferenceLocation } from '../../../server/src/semantic/types';

const loc = (path: string, line: number, column = 1) => ({ path, line, column, endLine: line, endColumn: column + 3 });

describe('merging answers of two TypeScript services', () => {
  it('references: one row per location, the first answer first, a declaration stays one', () => {
    const editor: ReferenceLocation[] = [{ ...loc('a.ts', 1), isDeclaration: true }, loc('a.ts', 5)];
    const host: ReferenceLocation[] = [{ ...loc('a.ts', 5), isDeclaration: false }, loc('test/e2e/b.ts', 2), { ...loc('a.ts', 9), isDeclaration: true }];
    const m = mergeAnswers('references', editor, host);
    assert.deepEqual(m.map((r) => `${r.path}:${r.line}${r.isDeclaration ? ' decl' : ''}`), ['a.ts:1 decl', 'a.ts:5', 'test/e2e/b.ts:2', 'a.ts:9 decl']);
  });

  it('incoming calls: one caller per item, call sites united', () => {
    const from = (path: string, line: number, name: string): HierarchyItem => ({ ...loc(path, line), name, kind: 'function' });
    const a: IncomingCall[] = [{ from: from('a.ts', 3, 'f'), sites: [loc('a.ts', 4, 5)] }];
    const b: IncomingCall[] = [{ from: from('a.ts', 3, 'f'), sites: [loc('a.ts', 4, 5), loc('a.ts', 6, 2)] }, { from: from('examples/main.ts', 1, 'examples/main.ts'), sites: [loc('examples/main.ts', 4, 1)] }];
    const m = mergeAnswers('incomingCalls', a, b);
    assert.deepEqual(m.map((c) => `${c.from.name} ${c.sites.map((s) => `${s.line}:${s.column}`).join(',')}`), ['f 4:5,6:2', 'examples/main.ts 4:1']);
  });

  it('implementations and subtypes: deduplicated by location', () => {
    assert.equal(mergeAnswers('implementation', [loc('a.ts', 1)], [loc('a.ts', 1), loc('b.ts', 1)]).length, 2);
    const item = (p: string): HierarchyItem => ({ ...loc(p, 1), name: 'X', kind: 'class' });
    assert.deepEqual(mergeAnswers('subtypes', [item('a.ts')], [item('a.ts'), item('c.ts')]).map((i) => i.path), ['a.ts', 'c.ts']);
  });
});
