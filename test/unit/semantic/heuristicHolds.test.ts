/**
 * A wide heuristic question does not hold the engine thread (issue 25): other agents' cheap calls
 * run between its turns. Measured in the thread's CPU time (test/helpers/threadHolds.ts), so the
 * figure does not depend on how loaded the machine is. Also: the text index's mentions of a name
 * are read once per index version however often a wide question's planning asks for them.
 */
import * as assert from 'node:assert/strict';
import { implementationsQuery } from '../../../server/src/nav/semanticQueries';
import { TextMentions } from '../../../server/src/nav/textMentions';
import type { Engine } from '../../../server/src/nav/engine';
import { heuristicEngine } from '../../helpers/heuristicEngine';
import { longestHold, threadCpuMeasurable } from '../../helpers/threadHolds';
import { tempDir, writeTree } from '../../helpers/workspace';

/** Implementors of one interface, each in its own file. */
const IMPLEMENTORS = 1_500;
/** Longest CPU stretch allowed (ms): a slice is NAV_WORK_SLICE_MS (10) plus one step; before, 1,500 rows were decorated in one piece (~0.5 s). */
const HOLD_MAX_MS = 150;

function wideTree(): string {
  const dir = tempDir('heuristic-holds');
  const files: Record<string, string> = { 'src/IAppLogger.cs': 'namespace P0;\npublic interface IAppLogger\n{\n    void Write(string s);\n}\n' };
  for (let i = 0; i < IMPLEMENTORS; i++) {
    files[`src/P${i % 30}/C${i}.cs`] = `namespace P${i % 30};\npublic class C${i} : IAppLogger\n{\n    private readonly IAppLogger _log;\n    public void Write(string s) { _log.Write(s); }\n}\n`;
  }
  writeTree(dir, files);
  return dir;
}

describe('semantic: wide heuristic questions yield the engine thread', function () {
  this.timeout(180_000);
  const opened = heuristicEngine(wideTree);
  let engine: Engine;
  before(function () {
    if (!threadCpuMeasurable) this.skip();
    engine = opened();
  });
  const at = { path: 'src/IAppLogger.cs', line: 2, column: 18 };

  it(`implementations of an interface with ${IMPLEMENTORS} implementors: every row, the thread never held ${HOLD_MAX_MS} ms`, async () => {
    const { value: a, longestMs } = await longestHold(() => implementationsQuery(engine, at, { deadlineAt: Date.now() + 120_000 }));
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'heuristic_no_precise');
    assert.equal(a.rows.length, IMPLEMENTORS);
    assert.ok(a.rows.every((r) => r.kind === 'class' && r.snippet?.startsWith('public class C')));
    assert.ok(longestMs < HOLD_MAX_MS, `longest hold ${longestMs.toFixed(0)} ms CPU`);
  });

  it('the files and projects mentioning a name are read from the index once per version', () => {
    const mentions = new TextMentions(engine);
    const store = engine.store;
    const rows = store.rows.bind(store);
    let reads = 0;
    store.rows = ((sql: string, params?: unknown[]) => {
      if (/\bMATCH\b/.test(sql)) reads++;
      return rows(sql, params as never);
    }) as typeof store.rows;
    try {
      const files = mentions.filesMentioning('IAppLogger');
      assert.equal(files?.size, IMPLEMENTORS + 1);
      assert.equal(mentions.filesMentioning('IAppLogger'), files);
      const graph = { files: new Map() } as unknown as Parameters<TextMentions['projectsMentioning']>[0];
      assert.equal(mentions.projectsMentioning(graph, 'IAppLogger')?.size, 0);
      assert.equal(reads, 1);
    } finally {
      store.rows = rows;
    }
  });
});
