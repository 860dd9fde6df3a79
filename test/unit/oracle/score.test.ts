/**
 * The oracle's scorer on made-up answers (test/oracle/oracle.ts score): what it counts, without
 * running the oracle (test/integration/oracle/ checks it on real Roslyn answers).
 */
import * as assert from 'node:assert/strict';
import { firstAnswerTable, mergeTruth, settle, unfinished } from '../../oracle/compare';
import { byHint, engineKey, generatedProjectDir, holdsName, score, stableHint, truthKey, type EngineAnswer, type OracleAnswer, type OracleResult, type Question } from '../../oracle/oracle';

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

  it("Orleans' proxy hint names match whatever per-run hash they carry; a generated row of a project outside the truth's scope is not scored", () => {
    const xi: Question = { id: 'xi', op: 'implementations', path: 'src/Orleans.Core/A.cs', line: 3, column: 18 };
    // the same generated proxy in the oracle's run and in the host's (Orleans xi-idisposable, 2026-12-02)
    const hintOracle = 'Orleans.Core.Abstractions.orleans.proxy.global_Orleans.Runtime.IAsyncEnumerableGrainExtension.0C38D0D9.g.cs';
    const hintHost = 'Orleans.Core.Abstractions.orleans.proxy.global_Orleans.Runtime.IAsyncEnumerableGrainExtension.13145D16.g.cs';
    assert.equal(stableHint(hintOracle), stableHint(hintHost));
    assert.equal(stableHint('LoggerMessage.g.cs'), 'LoggerMessage.g.cs');
    assert.equal(generatedProjectDir(`generated:src/Orleans.Core.Abstractions/Orleans.Core.Abstractions.csproj|net10.0/Orleans.CodeGenerator/Orleans.CodeGenerator.OrleansSerializationSourceGenerator/${hintHost}`), 'src/Orleans.Core.Abstractions');
    assert.equal(generatedProjectDir(`src/Orleans.Core.Abstractions/obj/Debug/net10.0/Orleans.CodeGenerator/X/${hintOracle}`), 'src/Orleans.Core.Abstractions');
    const truth: OracleAnswer = { id: 'xi', op: 'implementations', ms: 1, items: [{ path: 'src/Orleans.Core/B.cs', line: 5, column: 14 }, { path: `src/Orleans.Core.Abstractions/obj/Debug/net10.0/Orleans.CodeGenerator/X/${hintOracle}`, line: 9, column: 27, generated: true, hint: hintOracle }] };
    const mine = engineKey({ path: `generated:src/Orleans.Core.Abstractions/Orleans.Core.Abstractions.csproj|net10.0/Orleans.CodeGenerator/X/${hintHost}`, line: 9, column: 27, isGenerated: true });
    const outside = engineKey({ path: 'generated:src/Dashboard/Orleans.Dashboard/Orleans.Dashboard.csproj|net10.0/Orleans.CodeGenerator/X/Orleans.Dashboard.orleans.proxy.global_IDashboardGrain.9AA46EB7.g.cs', line: 9, column: 25, isGenerated: true });
    const engine: EngineAnswer = { id: 'xi', op: 'implementations', mode: 'precise', ms: 1, items: ['src/Orleans.Core/B.cs:5:14', mine, outside], genProjects: { [mine]: 'src/Orleans.Core.Abstractions', [outside]: 'src/Dashboard/Orleans.Dashboard' } };
    const documents = ['src/Orleans.Core/A.cs', 'src/Orleans.Core/B.cs', 'src/Orleans.Core.Abstractions/C.cs'];
    const o = score([xi], [truth], [engine], new Set(documents), documents).ops[0]!;
    assert.deepEqual([o.truth, o.answered, o.tp, o.precision, o.recall], [2, 2, 2, 1, 1]);
  });

  it("the readback of a metadata definition holds the name at the row's own line and column, not near it (xd-whenall)", () => {
    // source_context of `decompiled:System.Runtime@10.0.0.0/System.Threading.Tasks.Task.cs` around the engine's row 10:14
    const slice = [' 9| /// <summary>Represents an asynchronous operation.</summary>', '10| public class Task : IAsyncResult, IDisposable', '11| {', '12|     public static Task WhenAll(IEnumerable<Task> tasks)', '13|     {'].join('\n');
    // the type's line is not WhenAll's declaration, though WhenAll is two lines below it
    assert.equal(holdsName(slice, { line: 10, column: 14 }, 'WhenAll'), false);
    assert.equal(holdsName(slice, { line: 12, column: 24 }, 'WhenAll'), true);
    assert.equal(holdsName(slice, { line: 12, column: 24 }, 'WhenAll<TResult>(IEnumerable<Task<TResult>>)'), true);
    assert.equal(holdsName(slice, { line: 10, column: 14 }, 'Task'), true);
    assert.equal(holdsName(slice, { line: 12, column: 20 }, 'WhenAll'), false);
    assert.equal(holdsName(slice, { line: 40, column: 1 }, 'WhenAll'), false);
  });

  it('follows an answer while it says it is unfinished, never one that is final as it stands; the truth is not consulted', async () => {
    const d: Question = { id: 'r1', op: 'references', path: 'src/A.cs', line: 3, column: 5 };
    const a = (mode: string, reason?: string, items: string[] = []): EngineAnswer => ({ id: 'r1', op: 'references', mode, ms: 100, items, ...(reason ? { reason } : {}) });
    // what the engine says when it is not finished (the lead's quiet run, main a52edb3)
    assert.equal(unfinished(a('precise_partial', 'searched 8 of 37 candidate project(s) (29 not searched): src/X/X.csproj (deadline), …')), true);
    assert.equal(unfinished(a('heuristic_no_precise', 'roslyn: no answer within 7988 ms')), true);
    assert.equal(unfinished(a('heuristic_no_precise', 'roslyn: the Roslyn host did not answer definition in time')), true);
    assert.equal(unfinished(a('unavailable_no_precise', 'the Roslyn host was still loading the 59 C# project(s) when the deadline came; ask again')), true);
    assert.equal(unfinished({ ...a('error'), error: 'Error [STILL_WORKING]: …' }), true);
    // final: precise, unbound mentions, a position that could not be bound
    assert.equal(unfinished(a('precise')), false);
    // not searched for a reason asking again does not change (AutoMapper xi-idisposable re-asked 61 times in 120 s on 094cbb6)
    assert.equal(unfinished(a('precise_partial', 'more framework/package types derive from IDisposable than were looked up (64: Aes, AsymmetricAlgorithm, AuthenticatedStream, …): projects whose types derive only from others were not searched')), false);
    assert.equal(unfinished(a('precise_partial', '12 mentions could not be bound (package Microsoft.NET.Test.Sdk/18.0.1 not restored)')), false);
    assert.equal(unfinished(a('heuristic_no_precise', 'roslyn: `LogWarning` at the position could not be bound (ILogger<T> is unresolved)')), false);

    let t = 0;
    const clock = () => t;
    const sleep = async (ms: number) => void (t += ms);
    // unfinished twice, then precise: the precise answer is scored, its time counted from the first ask
    const replies = [a('precise_partial', 'searched 2 of 3 candidate project(s) (1 not searched): src/Y.csproj (deadline)'), a('precise', undefined, ['src/B.cs:4:9'])];
    t = 100;
    const r = await settle(d, a('heuristic_no_precise', 'roslyn: no answer within 7998 ms'), async () => ((t += 3_000), replies.shift()!), 120_000, clock, sleep);
    assert.equal(r.answer.mode, 'precise');
    assert.deepEqual(r.answer.items, ['src/B.cs:4:9']);
    assert.deepEqual([r.settled!.asks, r.settled!.verdict, r.answer.ms], [3, 'finished', 8_000]);
    // final at once: not re-asked
    let asked = 0;
    const f = await settle(d, a('precise_partial', '3 mentions could not be bound (package X not restored)'), async () => (asked++, a('precise')), 120_000, clock, sleep);
    assert.deepEqual([f.answer.mode, f.settled, asked], ['precise_partial', undefined, 0]);
    // still unfinished at the bound: the last answer is scored, said unfinished
    t = 0;
    const u = await settle(d, a('heuristic_no_precise', 'roslyn: no answer within 7998 ms'), async () => ((t += 10_000), a('heuristic_no_precise', 'roslyn: no answer within 9000 ms')), 30_000, clock, sleep);
    assert.deepEqual([u.answer.mode, u.settled!.verdict, u.settled!.asks], ['heuristic_no_precise', 'unfinished', 4]);
    // the first-answer table names both labels and times
    const table = firstAnswerTable({ engine: [a('heuristic_no_precise', 'roslyn: no answer within 7998 ms')], final: [r.answer], settles: [r.settled!] });
    assert.match(table, /r1 +references +heuristic_no_precise +100 +precise +8000 +3/);
  });
});
