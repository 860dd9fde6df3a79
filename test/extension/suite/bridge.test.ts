import * as assert from 'node:assert/strict';
import { CallGraphRequest, type EditorAnswer, type EditorLocation, type EditorIncomingCall, type EditorHierarchyItem } from '../../../server/src/protocol/protocol';
import { at, readyEngine } from './helpers';

const key = (l: { path: string; line: number; column: number }): string => `${l.path}:${l.line}:${l.column}`;

function ok<T>(a: EditorAnswer<unknown>): T {
  assert.equal(a.kind, 'ok', JSON.stringify(a));
  if (a.kind !== 'ok') throw new Error('unreachable');
  assert.equal(a.gaps, undefined, `a settled answer has no gaps: ${JSON.stringify(a.gaps)}`);
  return a.value as T;
}

describe('editor semantic bridge (TypeScript fixture, VS Code TypeScript service)', () => {
  it('definition of totalArea at its call site is its declaration in shapes.ts', async () => {
    const engine = await readyEngine();
    const use = at('src/main.ts', 'totalArea(shapes)');
    const defs = ok<EditorLocation[]>(await engine.bridge.answer({ op: 'definition', language: 'typescript', args: use, timeoutMs: 30_000 }));
    const decl = at('src/shapes.ts', 'totalArea');
    assert.deepEqual(defs.map(key), [key(decl)]);
    assert.equal(defs[0]!.endColumn, decl.column + 'totalArea'.length);
  });

  it('references of Square are the declaration, the import and both constructor calls', async () => {
    const engine = await readyEngine();
    const decl = at('src/shapes.ts', 'Square');
    const refs = ok<(EditorLocation & { isDeclaration?: boolean })[]>(
      await engine.bridge.answer({ op: 'references', language: 'typescript', args: { ...decl, includeDeclaration: true }, timeoutMs: 30_000 }),
    );
    const expected = [decl, at('src/main.ts', 'Square'), at('src/main.ts', 'Square', 1), at('src/main.ts', 'Square', 2)].map(key).sort();
    assert.deepEqual(refs.map(key).sort(), expected);
    assert.deepEqual(refs.filter((r) => r.isDeclaration).map(key), [key(decl)]);
  });

  it('incoming calls of totalArea come from report, with the call site', async () => {
    const engine = await readyEngine();
    const decl = at('src/shapes.ts', 'totalArea');
    const items = ok<EditorHierarchyItem[]>(await engine.bridge.answer({ op: 'prepareCallHierarchy', language: 'typescript', args: decl, timeoutMs: 30_000 }));
    assert.equal(items.length, 1);
    assert.equal(items[0]!.name, 'totalArea');
    const calls = ok<EditorIncomingCall[]>(await engine.bridge.answer({ op: 'incomingCalls', language: 'typescript', args: items[0]!, timeoutMs: 30_000 }));
    assert.deepEqual(calls.map((c) => `${c.from.name}@${key(c.from)}`), [`report@${key(at('src/main.ts', 'report'))}`]);
    assert.deepEqual(calls[0]!.sites.map((s) => `${s.line}:${s.column}`), [`${at('src/main.ts', 'totalArea(shapes)').line}:${at('src/main.ts', 'totalArea(shapes)').column}`]);
  });

  it('the engine asks the editor for a call graph and labels it precise', async () => {
    const engine = await readyEngine();
    const g = await engine.request(CallGraphRequest.type, { position: at('src/shapes.ts', 'totalArea'), depth: 2, direction: 'incoming' });
    assert.equal(g.mode, 'precise', g.summary);
    const names = g.nodes.map((n) => n.label).sort();
    assert.deepEqual(names, ['report', 'reportTwice', 'totalArea']);
    const byId = new Map(g.nodes.map((n) => [n.id, n.label]));
    assert.deepEqual(g.edges.map((e) => `${byId.get(e.from)}->${byId.get(e.to)}`).sort(), ['report->totalArea', 'reportTwice->report']);
    const report = g.nodes.find((n) => n.label === 'report')!;
    assert.equal(`${report.path}:${report.line}:${report.column}`, key(at('src/main.ts', 'report')));
  });
});
