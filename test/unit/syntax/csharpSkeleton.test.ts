import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { csharpSkeleton, csharpSkeletonOrReason, skeletonText } from '../../../server/src/syntax/csharpSkeleton';
import { parseTextSync, prepareLanguage } from '../../../server/src/syntax/parseFile';
import type { LanguageConfig } from '../../../server/src/syntax/languageConfig';
import type { FileSyntax } from '../../../server/src/syntax/types';

let config: LanguageConfig;

/** Outline through the skeleton and through the whole file. */
function both(src: string): { skeleton: FileSyntax; whole: FileSyntax } {
  return { skeleton: parseTextSync('T.cs', src, config), whole: parseTextSync('T.cs', src, config, { skeleton: false }) };
}

const view = (r: FileSyntax): string[] => r.symbols.map((s) => `${s.kind} ${s.qualifiedName} ${s.line}:${s.column}-${s.endLine}:${s.endColumn} ${s.id} | ${s.signature} | ${s.attributes.join(',')}`);

describe('syntax: C# skeleton parse (member bodies left out)', () => {
  before(async () => {
    const c = await prepareLanguage('csharp');
    if (!c) throw new Error('no csharp config');
    config = c;
  });

  it('braces inside strings, chars, comments and interpolations do not end a body early', () => {
    const src = [
      'namespace N',
      '{',
      '    public class C',
      '    {',
      '        public string A() { var s = "}"; var c = \'}\'; /* } */ // }',
      '            var v = @"C:\\dir\\""}"; var i = $"{(s.Length > 0 ? "{" : "}")} {{}} {s,10:N2}";',
      '            var r = """',
      '                } not code {',
      '                """;',
      '            var ri = $$"""{{s}} { }""";',
      '            return s + v + i + r + ri + c;',
      '        }',
      '        public int B => 1;',
      '        public void D(int x) { switch (x) { case 1: { break; } } }',
      '    }',
      '}',
      '',
    ].join('\n');
    const sk = csharpSkeleton(src);
    assert.ok(sk, String(csharpSkeletonOrReason(src)));
    const text = skeletonText(src, sk);
    assert.equal(text.length, src.length);
    assert.equal(text.split('\n').length, src.split('\n').length, 'line breaks are kept');
    assert.ok(!text.includes('not code'), 'the raw string inside a body is left out');
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));
    assert.deepEqual(skeleton.symbols.map((s) => s.name), ['N', 'C', 'A', 'B', 'D']);
    assert.equal(skeleton.diagnostics.hasErrors, false);
  });

  it('local functions in bodies are kept: nested in blocks, expression-bodied, generic, with attributes under #if', () => {
    const src = [
      'class C',
      '{',
      '    void M()',
      '    {',
      '        var x = Compute(1);',
      '        if (x > 0)',
      '        {',
      '            static int Twice(int v) => v * 2;',
      '        }',
      '#if DEBUG',
      '        [Conditional("DEBUG")]',
      '#endif',
      '        static T Pick<T>(T a, T b) where T : class',
      '        {',
      '            string Inner() { return "{"; }',
      '            return a ?? b;',
      '        }',
      '        int Compute(int v) // helper',
      '        {',
      '            return v;',
      '        }',
      '    }',
      '}',
      '',
    ].join('\n');
    const sk = csharpSkeleton(src);
    assert.ok(sk);
    assert.equal(sk.localFunctions, 4);
    assert.equal(sk.localFunctionsElsewhere, false);
    assert.deepEqual(sk.localFunctionNames.map((at) => src.slice(at, src.indexOf('(', at)).replace(/<.*/, '')), ['Twice', 'Pick', 'Inner', 'Compute']);
    const { skeleton, whole } = both(src);
    assert.deepEqual(
      skeleton.symbols.map((s) => `${s.kind} ${s.qualifiedName}`),
      ['class C', 'method C.M', 'function C.M.Twice', 'function C.M.Pick', 'function C.M.Pick.Inner', 'function C.M.Compute'],
    );
    assert.deepEqual(view(skeleton).filter((v) => !v.includes('Pick ')), view(whole).filter((v) => !v.includes('Pick ')));
    const pick = skeleton.symbols.find((s) => s.name === 'Pick');
    assert.deepEqual(pick?.attributes, ['Conditional'], 'attributes of a local function survive; its #if lines are left out');
    assert.equal(pick?.signature, 'static T Pick<T>(T a, T b) where T : class');
  });

  it('calls, constructor calls and statements are not taken for local functions', () => {
    const src = [
      'class C',
      '{',
      '    void M()',
      '    {',
      '        if (Ready()) { Run(); }',
      '        else if (Other(1)) { }',
      '        var o = new Thing(1) { Name = "x" };',
      '        using (Open()) { }',
      '        foreach (var (a, b) in Pairs()) { }',
      '        return Foo(x) switch { Point(1, 2) => 1, _ => 0 };',
      '    }',
      '}',
      '',
    ].join('\n');
    const sk = csharpSkeleton(src);
    assert.ok(sk);
    assert.equal(sk.localFunctions, 0);
    assert.equal(sk.localFunctionsElsewhere, false);
    assert.equal(sk.ranges.length, 2, 'the whole body is one range');
  });

  it('headers decide containers: record and extension blocks are containers, a method or property named record is not', () => {
    const src = [
      'namespace N;',
      'public record R(int X) { public int Twice() { return X * 2; } }',
      'public static class E',
      '{',
      '    extension(string s) { public int Len() { return s.Length; } }',
      '}',
      'public class K<T> where T : class',
      '{',
      '    public int record { get { return 1; } }',
      '    public void M<U>() where U : class { var record = 1; }',
      '}',
      '',
    ].join('\n');
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));
    assert.ok(skeleton.symbols.some((s) => s.name === 'Twice'));
    assert.ok(skeleton.symbols.some((s) => s.name === 'Len' && s.extendedType === 'string'));
  });

  it('expression bodies are left out but still parse; top-level statements keep their local functions', () => {
    const members = Array.from({ length: 5 }, (_, i) => `    public string P${i} => Compute(${i}, "a;b", x => x + 1);`);
    const src = ['class C', '{', ...members, '    public int F() => throw new System.Exception("}");', '}', ''].join('\n');
    const sk = csharpSkeleton(src);
    assert.ok(sk);
    assert.ok(sk.ranges.length >= 10);
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));

    const top = ['using System;', 'var n = Add(1, 2);', 'Console.WriteLine(n);', 'static int Add(int a, int b) => a + b;', 'void Log() { Console.WriteLine("}"); }', ''].join('\n');
    const t = both(top);
    assert.equal(csharpSkeleton(top)?.localFunctionsElsewhere ?? true, true);
    assert.deepEqual(view(t.skeleton), view(t.whole));
    assert.deepEqual(t.skeleton.symbols.map((s) => s.name), ['Add', 'Log']);
  });

  it('no skeleton when the scan cannot be sure: #if branches with different braces, unbalanced or truncated files', () => {
    const split = ['class C', '{', '#if NET', '    void M(int x) {', '#else', '    void M(long x) {', '#endif', '        Run();', '    }', '}', ''].join('\n');
    assert.equal(csharpSkeletonOrReason(split), '#if branch changes brace depth');
    assert.equal(csharpSkeletonOrReason('class C { void M() { Run(); }'), 'unbalanced braces or #if at end of file');
    assert.equal(csharpSkeletonOrReason('class C { void M() { var s = @"'), 'unterminated string');
    assert.equal(csharpSkeletonOrReason('class C { void M() { } }'), 'no body to blank');
    // the file is still outlined (whole-file parse, #if variants: one M, both headers end on one brace)
    const r = both(split).skeleton;
    assert.deepEqual(r.symbols.filter((s) => s.kind === 'class' || s.kind === 'method').map((s) => s.name), ['C', 'M']);
    assert.deepEqual(r.diagnostics.reparsedWith, ['inactive #if branches blanked']);
  });

  it('a byte-order mark or non-breaking space is white space, not part of a keyword', () => {
    const src = '\uFEFFnamespace N\n{\n    public\u00A0interface I\n    {\n        int M();\n        string P { get { return "x"; } }\n    }\n}\n';
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));
    assert.deepEqual(skeleton.symbols.map((s) => s.name), ['N', 'I', 'M', 'P']);
  });

  it('a type header the scan cannot read safely falls back to the whole file (never an empty container)', () => {
    // #if alternatives leave a parenthesis open for the scan: the class after them is not trusted
    const src = ['class C', '{', '#if NET', '    void M(int a,', '#else', '    void M(int a, int b,', '#endif', '        int c) { }', '    class Nested { void N() { Run(); Run(); Run(); } }', '}', ''].join('\n');
    assert.equal(csharpSkeletonOrReason(src), 'container header with open parentheses');
    const r = both(src).skeleton;
    assert.ok(r.symbols.some((s) => s.name === 'Nested') && r.symbols.some((s) => s.name === 'N'), r.symbols.map((s) => s.name).join(','));
  });

  it("a method's 'where T : class' constraint does not open a container (its local functions are kept)", () => {
    const src = ['class C', '{', '    public static void M<T, U>(int a)', '        where T : class', '        where U : class', '    {', '        Run();', '        void Local() { Run(); }', '        int Other() => a;', '    }', '}', ''].join('\n');
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));
    assert.deepEqual(skeleton.symbols.map((s) => s.name), ['C', 'M', 'Local', 'Other']);
  });

  it('alternative method headers under #if/#else sharing one body are parsed as two skeleton variants', () => {
    const src = ['class C', '{', '#if NET', '    public ValueTask<int> M(int a, CancellationToken ct)', '    {', '#else', '    public Task<int> M(int a)', '    {', '        var ct = CancellationToken.None;', '#endif', '        int Local() => a;', '        return Task.FromResult(Local());', '    }', '}', ''].join('\n');
    assert.equal(csharpSkeletonOrReason(src), '#if branch changes brace depth');
    const r = both(src).skeleton;
    assert.deepEqual(r.diagnostics.reparsedWith, ['inactive #if branches blanked']);
    assert.equal(r.diagnostics.hasErrors, false);
    assert.deepEqual(r.symbols.map((s) => `${s.kind} ${s.qualifiedName}`), ['class C', 'method C.M', 'function C.M.Local']);
  });

  it('braces inside a primary constructor\'s base arguments stay inside the header', () => {
    const src = ['class Outer', '{', '    protected class Conv() : ValueConverter<Wrapped, int>(', '        v => v.Value,', '        v => new Wrapped { Value = v });', '    public int M() { return new Wrapped { Value = 1 }.Value; }', '}', ''].join('\n');
    assert.ok(csharpSkeleton(src), String(csharpSkeletonOrReason(src)));
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));
    assert.deepEqual(skeleton.symbols.map((s) => s.name), ['Outer', 'Conv', 'M']);
  });

  it('an expression body holding whole #if groups is left out; one whose group outlives its ; is kept', () => {
    const src = ['class C', '{', '    protected override int[] Values => Make(', '        1, 2,', '#if NET7_0_OR_GREATER', '        3,', '#endif', '        4);', '    int X =>', '#if A', '        1;', '#else', '        2;', '#endif', '    void M() { Run(); Run(); Run(); Run(); }', '}', ''].join('\n');
    const sk = csharpSkeleton(src);
    assert.ok(sk);
    const text = skeletonText(src, sk);
    assert.ok(!text.includes('NET7_0_OR_GREATER'), 'the first expression body is left out with its group');
    assert.ok(text.includes('#if A'), 'the second one is kept: its group closes after the ;');
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));
  });

  it('an expression body with lambda blocks and initialisers is left out; one whose lambda holds a local function is kept', () => {
    const src = [
      'class QueryTests',
      '{',
      '    public virtual Task Where_anonymous(bool async) => AssertQuery(async, ss => ss.Set<Order>().Select(o => new { o.Id, Name = "}" }).Where(x => { return x.Id > 0; }));',
      '    public virtual Task With_local(bool async) => AssertQuery(async, ss => { int Pick(int v) { return v; } return ss.Set<Order>().Where(o => o.Id == Pick(1)); });',
      '    void M() { Run(); Run(); Run(); Run(); }',
      '}',
      '',
    ].join('\n');
    const sk = csharpSkeleton(src);
    assert.ok(sk, String(csharpSkeletonOrReason(src)));
    const text = skeletonText(src, sk);
    assert.ok(!text.includes('AssertQuery(async, ss => ss.Set'), 'the first expression body is left out whole, with its initialiser and lambda block');
    assert.ok(!text.includes('Name =') && !text.includes('return x.Id'));
    assert.ok(text.includes('int Pick(int v)'), 'the expression body with a local function in its lambda keeps it');
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));
  });

  it('an #if group that only changes a class header is parsed through the skeleton variants', () => {
    const src = ['namespace N;', '#if NETFRAMEWORK', 'public class A : MarshalByRefObject', '#else', 'public class A', '#endif', '{', '    public void M() { Run(); Run(); Run(); }', '}', ''].join('\n');
    const { skeleton, whole } = both(src);
    assert.deepEqual(view(skeleton), view(whole));
    assert.deepEqual(skeleton.diagnostics.reparsedWith, ['inactive #if branches blanked']);
  });

  it('outlines equal those of the whole file for generated classes with tricky bodies (property)', () => {
    const statements = [
      'var s = "{";',
      "var c = '}';",
      'var v = @"a""}""";',
      'var i = $"{x} {{ {(x > 0 ? "}" : "{")}";',
      'var r = """\n   {\n   """;',
      'if (x > 0) { x--; } else { x++; }',
      'Action a = () => { x++; };',
      'var o = new { A = 1 };',
      'int Local(int y) => y + x;',
      'static void Log<T>(T t) where T : class { System.Console.WriteLine(t); }',
      '// } comment',
      '/* { */',
      '#if DEBUG\n        x++;\n#endif',
      'x = x switch { 1 => 2, _ => 3 };',
      'return;',
    ];
    const member = fc.oneof(
      fc.array(fc.constantFrom(...statements), { maxLength: 6 }).map((b) => `void M${b.length}(int x)\n    {\n        ${b.join('\n        ')}\n    }`),
      fc.constantFrom('/// <summary>Documented; see class Foo { }.</summary>\n    /// <returns>1</returns>\n    int Documented() => 1;', '// a plain comment about struct S\n    #region R\n    #endregion', 'int P { get; set; } = 1;', 'int Q => 42 + 1 + 2 + 3 + 4 + 5;', 'public event System.EventHandler E { add { } remove { } }', 'string this[int i] { get { return "}"; } }', 'enum K { A, B = 2 }', 'class Nested { void N() { var s = "}"; } }', 'private readonly int[] _a = { 1, 2 };'),
    );
    fc.assert(
      fc.property(fc.array(member, { minLength: 1, maxLength: 6 }), (members) => {
        const src = `namespace Gen\n{\n    public partial class G\n    {\n    ${members.join('\n    ')}\n    }\n}\n`;
        const { skeleton, whole } = both(src);
        if (whole.diagnostics.hasErrors) return; // the comparison holds for well-formed files
        assert.deepEqual(view(skeleton), view(whole), src);
        assert.equal(skeleton.diagnostics.hasErrors, false, src);
      }),
      { numRuns: 300 },
    );
  });
});
