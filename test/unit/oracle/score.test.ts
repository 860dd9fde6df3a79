/**
 * The oracle's scorer on made-up answers (test/oracle/oracle.ts score): what it counts, without
 * running the oracle (test/integration/oracle/ checks it on real Roslyn answers).
 */
import * as assert from 'node:assert/strict';
import { byHint, score, type EngineAnswer, type OracleAnswer, type Question } from '../../oracle/oracle';

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
});
