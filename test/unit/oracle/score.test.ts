/**
 * The oracle's scorer on made-up answers (test/oracle/oracle.ts score): what it counts, without
 * running the oracle (test/integration/oracle/ checks it on real Roslyn answers).
 */
import * as assert from 'node:assert/strict';
import { mergeTruth, needsSettling } from '../../oracle/compare';
import { byHint, engineKey, score, truthKey, type EngineAnswer, type OracleAnswer, type OracleResult, type Question } from '../../oracle/oracle';

const q: Question = { id: 'i1', op: 'implementations', path: 'src/I.cs', line: 3, column: 18 };
const gen = (line: number) => ({ path: 'src/obj/Debug/net10.0/Gen/LoggerMessage.g.cs', line, column: 19, generated: true, hint: 'LoggerMessage.g.cs' });

describe('oracle scorer', () => {
  it("matches a generator's parts by hint and rank, not line (LoggerMessage 10.0.5 orders its output per process)", () => {
    const truth: OracleAnswer = { id: 'i1', op: 'implementations', ms: 1, items: [{ path: 'src/A.cs', line: 5, column: 14 }, gen(2189), gen(24)] };
    const engine: EngineAnswer = { id: 'i1', op: 'implementations', mode: 'precise', ms: 1, items: ['src/A.cs:5:14', 'gen:LoggerMessage.g.cs:2697:19', 'gen:LoggerMessage.g.cs:1146:19'] };
    const s = score([q], [truth], [engine], new Set(['src/A.cs', 'src/I.cs']));
    const o = s.ops[0]!;
    assert.deepEqual([o.truth, o.answered, o.tp, o.precision, o.recall], [3, 3, 3, 1, 1]);
    assert.deepEqual(s.misses, []);
    // one part fewer is still a missing row, labelled precise: a lie
    const short = score([q], [truth], [{ ...engine, items: engine.items.slice(0, 2) }], new Set(['src/A.cs']));
    assert.equal(short.honesty.find((h) => h.mode === 'precise')!.withMissing, 1);
  });

  it("a part at the same place in two frameworks' outputs is one row (multi-targeting)", () => {
    const d: Question = { ...q, id: 'g1', op: 'definition' };
    const truth: OracleAnswer = { id: 'g1', op: 'definition', ms: 1, items: [{ path: 'src/A.cs', line: 5, column: 14 }, gen(6), { ...gen(6), path: 'src/obj/Debug/net8.0/Gen/LoggerMessage.g.cs' }] };
    const engine: EngineAnswer = { id: 'g1', op: 'definition', mode: 'precise', ms: 1, items: ['src/A.cs:5:14', 'gen:LoggerMessage.g.cs:6:19'] };
    const o = score([d], [truth], [engine], new Set(['src/A.cs'])).ops[0]!;
    assert.deepEqual([o.truth, o.tp, o.recall], [2, 2, 1]);
  });

  it('byHint keeps non-generated keys and numbers each hint in line order', () => {
    assert.deepEqual(byHint(['a.cs:1:1', 'gen:X.g.cs:20:3', 'gen:X.g.cs:3:3', 'gen:Y.g.cs:9:1']), ['a.cs:1:1', 'gen:X.g.cs#2', 'gen:X.g.cs#1', 'gen:Y.g.cs#1']);
  });

  it("definition of a framework symbol matches the engine's metadata row by name and assembly; an unreadable source view is a missing row", () => {
    const d: Question = { id: 'xd1', op: 'definition', path: 'src/A.cs', line: 7, column: 20 };
    const truth: OracleAnswer = { id: 'xd1', op: 'definition', ms: 1, items: [{ path: '', line: 0, column: 0, meta: 'M:System.Net.Http.HttpClient.SendAsync(System.Net.Http.HttpRequestMessage)', name: 'SendAsync', assembly: 'System.Net.Http' } as never] };
    const row = { path: 'decompiled:System.Net.Http@10.0.0.0/System.Net.Http.HttpClient.cs', line: 412, column: 35, external: true, name: 'SendAsync', assembly: 'System.Net.Http 10.0.0.0' };
    assert.equal(engineKey(row, 'definition'), 'meta:SendAsync@System.Net.Http');
    // the MCP definition row of a metadata member has the decompiled path and assembly, no name: the asked symbol names it
    const bare = { path: 'decompiled:Microsoft.Extensions.Logging.Abstractions@8.0.0.0/Microsoft.Extensions.Logging.LoggerExtensions.cs', line: 230, column: 24, assembly: 'Microsoft.Extensions.Logging.Abstractions 8.0.0.0' };
    assert.equal(engineKey(bare, 'definition', true, 'Microsoft.Extensions.Logging.LoggerExtensions.LogError(Microsoft.Extensions.Logging.ILogger, string?, params object?[])'), 'meta:LogError@Microsoft.Extensions.Logging.Abstractions');
    assert.equal(engineKey(bare, 'definition', true, 'System.Text.Json.JsonSerializer.Deserialize<TValue>(System.ReadOnlySpan<byte>)'), 'meta:Deserialize@Microsoft.Extensions.Logging.Abstractions');
    assert.equal(truthKey(truth.items![0]!, 'definition'), 'meta:SendAsync@System.Net.Http');
    // another op keeps matching a metadata type by its name (type_hierarchy's supertypes)
    assert.equal(engineKey({ ...row, name: 'ILogger<T>' }, 'type_hierarchy'), 'meta:ILogger');
    const files = new Set(['src/A.cs']);
    const ok = score([d], [truth], [{ id: 'xd1', op: 'definition', mode: 'precise', ms: 1, items: [engineKey(row, 'definition')] }], files).ops[0]!;
    assert.deepEqual([ok.truth, ok.tp, ok.recall], [1, 1, 1]);
    const unreadable = score([d], [truth], [{ id: 'xd1', op: 'definition', mode: 'precise', ms: 1, items: [engineKey(row, 'definition', false)] }], files);
    assert.equal(unreadable.ops[0]!.recall, 0);
    assert.equal(unreadable.honesty.find((h) => h.mode === 'precise')!.withMissing, 1);
  });

  it('a truth refresh adds the newly sampled questions under new ids and keeps the old ones', () => {
    const qq = (id: string, op: Question['op'], line: number): Question => ({ id, op, path: 'src/A.cs', line, column: 3 });
    const ans = (id: string, op: Question['op'], n: number): OracleAnswer => ({ id, op, ms: 1, items: Array.from({ length: n }, (_, i) => ({ path: 'src/B.cs', line: i + 1, column: 1 })) });
    const old = { projects: 2, loadMs: 1, answerMs: 1, workspaceDiagnostics: [], questions: [qq('c1', 'callers', 1), qq('fi1', 'implementations', 2)], answers: [ans('c1', 'callers', 1), ans('fi1', 'implementations', 4)] } as OracleResult;
    // the refresh asked callers again and sampled two shapes: one new, one the same question as fi1
    const fresh = { ...old, projects: 3, questions: [qq('c1', 'callers', 1), qq('xi1', 'implementations', 2), qq('xt2', 'type_hierarchy', 9)], answers: [ans('c1', 'callers', 2), ans('xi1', 'implementations', 3), ans('xt2', 'type_hierarchy', 1)] } as OracleResult;
    const m = mergeTruth(old, fresh, false);
    assert.deepEqual(m.questions.map((x) => x.id), ['c1', 'fi1', 'xt2']);
    assert.deepEqual(m.answers.map((a) => [a.id, a.items!.length]), [['c1', 2], ['fi1', 4], ['xt2', 1]]);
    assert.equal(m.projects, 3);
  });

  it('re-asks (settles) a first answer only when it is not precise and misses no truth row', () => {
    const d: Question = { id: 'r1', op: 'references', path: 'src/A.cs', line: 3, column: 5 };
    const truth = { projects: 1, loadMs: 0, answerMs: 0, workspaceDiagnostics: [], questions: [d], answers: [{ id: 'r1', op: 'references', ms: 1, items: [{ path: 'src/B.cs', line: 4, column: 9 }] }] } as OracleResult;
    const files = new Set(['src/A.cs', 'src/B.cs']);
    const a = (mode: string, items: string[]): EngineAnswer => ({ id: 'r1', op: 'references', mode, ms: 1, items });
    assert.equal(needsSettling(d, a('precise', ['src/B.cs:4:9']), truth, files), false);
    assert.equal(needsSettling(d, a('heuristic_no_precise', []), truth, files), true);
    assert.equal(needsSettling(d, a('precise_partial', ['src/B.cs:4:9']), truth, files), true);
    // a partial answer that misses a truth row is binding (or slow) as it stands: scored, not re-asked
    assert.equal(needsSettling(d, a('precise_partial', []), truth, files), false);
  });
});
