import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packSignature } from '../../../server/src/index/symbolsHook';
import { Engine } from '../../../server/src/nav/engine';
import { fileOutline } from '../../../server/src/nav/syntaxOutline';
import { HeuristicProvider } from '../../../server/src/semantic/heuristic/heuristicProvider';
import { languageForPath } from '../../../server/src/syntax/languageConfig';
import { parseBatch } from '../../../server/src/syntax/parseBatch';

const SOURCES: Record<string, string> = {
  'src/Shapes.cs': `namespace Geo.Shapes
{
    public partial class Shape<T> : IShape where T : struct
    {
        public Shape(int sides) { }
        static Shape() { }
        public static Shape<T> operator +(Shape<T> a, Shape<T> b) => a;
        public T Area<TUnit>(TUnit unit, params int[] rest) => default;
        public T Area(string unit) => default;
        void IShape.Draw() { }
        public int this[int i] => i;
        public class Inner { public Inner() { } public string Name { get; set; } = ""; }
        private protected const string Shape2 = "Shape";
    }
    public enum Color { Red, Green }
    public record Point(int X, int Y);
}
`,
  'src/Shapes.Part.cs': `namespace Geo.Shapes;
public partial class Shape<T> { internal void Grow() { } }
public static class Ext { public static int Twice(this int x) => x * 2; }
`,
  'src/Global.cs': `public class Top { public void Run() { } }\n`,
  'web/util.ts': `export class Invoice { total(): number { return 1; } }\nexport function formatInvoice(n: number): string { return String(n); }\nnamespace NS { export const x = 1; }\n`,
  'tools/build.py': `class Builder:\n    def run(self, target):\n        return target\n\ndef main():\n    pass\n`,
};

describe('syntax: compact symbol storage', function () {
  this.timeout(120_000);
  let root: string;
  let engine: Engine;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-symstore-'));
    for (const [rel, text] of Object.entries(SOURCES)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    engine = await Engine.open({ workspaceRoot: root, indexRoot: '' });
    await engine.refresh();
  });

  after(async () => {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('every declaration read from the index equals the parser output (ids, qualified names, signatures, scopes)', async () => {
    for (const [rel, text] of Object.entries(SOURCES)) {
      const language = languageForPath(rel)?.id;
      if (!language) continue;
      const [parsed] = await parseBatch([{ path: rel, language, text }]);
      const o = await fileOutline(engine, rel);
      assert.equal(o.source, 'index', rel);
      const fields = (s: { id: string; name: string; kind: string; qualifiedName: string; container: string; namespace: string; signature: string; modifiers: string[]; line: number; parent: number }) =>
        [s.id, s.name, s.kind, s.qualifiedName, s.container, s.namespace, s.signature, s.modifiers.join(' '), s.line, s.parent].join('|');
      assert.ok((parsed?.symbols.length ?? 0) > 0, rel);
      assert.deepEqual(o.symbols.map(fields), parsed?.symbols.map(fields), rel);
    }
  });

  it('declarations are found by symbol id and by qualified name, partial types with one row per part', () => {
    const parts = HeuristicProvider.rowsByQualifiedName(engine.store, 'Geo.Shapes.Shape');
    assert.deepEqual(parts.filter((r) => r.kind === 'class').map((r) => r.path), ['src/Shapes.Part.cs', 'src/Shapes.cs']);
    const id = parts.find((r) => r.kind === 'class')?.symbolId ?? '';
    assert.match(id, /^T:Geo\.Shapes\.Shape`1$/);
    assert.equal(HeuristicProvider.rowsById(engine.store, id).length, 2);
    const ctor = HeuristicProvider.rowsByQualifiedName(engine.store, 'Geo.Shapes.Shape.Inner.Inner');
    assert.equal(ctor.length, 1);
    assert.equal(HeuristicProvider.rowsById(engine.store, ctor[0]?.symbolId ?? '')[0]?.name, 'Inner');
    assert.equal(HeuristicProvider.rowsById(engine.store, 'web/util.ts#formatInvoice')[0]?.qualifiedName, 'formatInvoice');
    assert.equal(HeuristicProvider.rowsById(engine.store, 'T:Geo.Shapes.NoSuchType').length, 0);
  });

  it('packed signatures give back the original text', () => {
    const cases: [string, string, string][] = [
      ['public static string Describe(string component)', 'Describe', 'public static'],
      ['private protected const string Shape2 = "Shape"', 'Shape2', 'private protected const'],
      ['int Shape(Shape s)', 'Shape', ''],
      ['x', 'x', ''],
      ['public', 'public', 'public'],
      ['odd \u0001 text', 'odd', ''],
    ];
    for (const [sig, name, mods] of cases) {
      const packed = packSignature(sig, name, mods);
      const back = packed === undefined ? sig : packed.split('\u0002').join(mods).split('\u0001').join(name);
      assert.equal(back, sig);
    }
  });
});
