/**
 * related_tests' file order and locate_code's byte fit, on small values of my own: the evidence a
 * test file holds (mentions, weighted co-change over its own churn, its name) decides which files
 * the first page names; a locate answer never outgrows LOCATE_MAX_ANSWER_BYTES.
 */
import * as assert from 'node:assert/strict';
import { LOCATE_ENVELOPE_RESERVE_BYTES, LOCATE_MAX_ANSWER_BYTES } from '../../../server/src/core/limits';
import { fitAnswer, type LocateAnswer } from '../../../server/src/nav/agent/locate';
import { spreadOverFiles, type RelatedTest } from '../../../server/src/nav/agent/relatedTests';
import { nameWords, sharedWords, testFileScore, type TestFileEvidence } from '../../../server/src/nav/agent/testFileScore';

const ev = (x: Partial<TestFileEvidence>): TestFileEvidence => ({ mentions: 0, cochange: 0, churn: 0, named: 0, bestRow: 0, ...x });

describe('related_tests: test files by their evidence', () => {
  it('mentions count on a log scale: 40 mentions are not ten times 4', () => {
    const few = testFileScore(ev({ mentions: 4 }));
    const many = testFileScore(ev({ mentions: 40 }));
    assert.ok(many > few && many < 3 * few, `${few} ${many}`);
  });

  it('a file that changed with the symbol recently beats one that only mentions it often', () => {
    // Two recent small commits shared (coChange weighted ≈ 0.97/√2 + 0.97²/√3) vs 10 mentions.
    const cochanged = testFileScore(ev({ cochange: 0.97 / Math.SQRT2 + 0.97 ** 2 / Math.sqrt(3), churn: 4 }));
    const mentioning = testFileScore(ev({ mentions: 10 }));
    assert.ok(cochanged > mentioning, `${cochanged} ${mentioning}`);
  });

  it("a test file's own churn discounts its co-change: one changed in every sweep is weak evidence", () => {
    assert.ok(testFileScore(ev({ cochange: 1, churn: 3 })) > testFileScore(ev({ cochange: 1, churn: 300 })));
    // Churn alone (no co-change) changes nothing.
    assert.equal(testFileScore(ev({ mentions: 5, churn: 300 })), testFileScore(ev({ mentions: 5 })));
  });

  it("a file named after the type is lifted; the best row only breaks near ties", () => {
    assert.ok(testFileScore(ev({ mentions: 2, named: 1 })) > testFileScore(ev({ mentions: 3 })));
    assert.ok(testFileScore(ev({ mentions: 3, bestRow: 100 })) > testFileScore(ev({ mentions: 3, bestRow: 40 })));
    assert.ok(testFileScore(ev({ mentions: 3, bestRow: 0 })) > testFileScore(ev({ mentions: 1, bestRow: 100 })));
  });

  it("the share of the type's words in a test file's name lifts it", () => {
    // Split and stemmed like the ranking (an agent noun stays apart: validator is not validation).
    assert.equal(sharedWords('ConfigurationValidator', 'ConfigurationValidationTests'), 1 / 2);
    assert.equal(sharedWords('MappingExpression', 'MappingExpressionsTests'), 1);
    assert.equal(sharedWords('JournaledStateManager', 'StateManagerTests'), 2 / 3);
    assert.equal(sharedWords('Tests', 'AnyTests'), 0, 'the words every test path has are not evidence');
    const likeNamed = { nameWords: nameWords('test/Orleans.Streaming.Tests/Pulling/PullingAgentTests.cs', 'PersistentStreamPullingAgent') };
    assert.equal(likeNamed.nameWords, 2 / 4);
    const other = { nameWords: nameWords('test/Orleans.Core.Tests/General/GrainTests.cs', 'PersistentStreamPullingAgent') };
    assert.equal(other.nameWords, 0);
    assert.ok(testFileScore(ev({ mentions: 3, ...likeNamed })) > testFileScore(ev({ mentions: 3, ...other })));
    // One mention more does not outweigh the words of the type in the name; co-change does.
    assert.ok(testFileScore(ev({ mentions: 2, ...likeNamed })) > testFileScore(ev({ mentions: 3, ...other })));
    assert.ok(testFileScore(ev({ cochange: 0.5, ...other })) > testFileScore(ev({ mentions: 1, ...likeNamed })));
  });

  it('rows spread over files, files in the order of their evidence, then score', () => {
    const row = (path: string, name: string, score: number): RelatedTest => ({ name, path, line: 1, endLine: 2, confidence: 'likely', score, reasons: [], target_ref: { symbolId: `${path}#${name}` } });
    const rows = [row('a.cs', 'a1', 90), row('a.cs', 'a2', 90), row('a.cs', 'a3', 90), row('a.cs', 'a4', 90), row('b.cs', 'b1', 40), row('c.cs', 'c1', 60)];
    const key = new Map([['a.cs', 1], ['b.cs', 2], ['c.cs', 0.5]]);
    const order = spreadOverFiles(rows, (p) => key.get(p) ?? 0).map((r) => r.name);
    // RELATED_TESTS_PER_FILE_TIER 1: every file's best row before any file's second.
    assert.deepEqual(order, ['b1', 'a1', 'c1', 'a2', 'a3', 'a4']);
  });
});

describe('locate_code: the answer fits its byte budget', () => {
  const longPath = (i: number) => `src/Persistence/MassTransit.EntityFrameworkCoreIntegration/EntityFrameworkCoreIntegration/Saga/Configuration/Part${i}/SagaRepositoryContextFactory${i}.cs`;
  const answer = (): LocateAnswer => ({
    status: 'ambiguous',
    candidates: [1, 2, 3].map((i) => ({ name: `SagaRepositoryContextFactory${i}`, kind: 'class', path: longPath(i), line: 10, endLine: 200, layer: 'persistence', why: `declares X; only here: ${'word, '.repeat(20)}; name: saga, repository; comment: add; code: transaction, configurability`.slice(0, 160) })),
    reads: [1, 2].map((i) => ({ path: longPath(i), startLine: 10, endLine: 89 })),
    scopes: [{ layer: 'persistence', matched: ['repository'] }, { layer: '*', matched: [] }],
    choices: ['1', '2', '3', 'persistence'],
    next: 'call locate_code with this locator and a choice: a candidate number, a layer id, or a symbol/path clue',
    locator: 'x'.repeat(250),
    verified: `candidate 1 (SagaRepositoryContextFactory1) is declared there and used in ${longPath(9)}:12`,
  });

  it('shortens why, then drops the last candidate, and keeps every candidate when it fits', () => {
    const max = LOCATE_MAX_ANSWER_BYTES - LOCATE_ENVELOPE_RESERVE_BYTES;
    const a = answer();
    assert.ok(Buffer.byteLength(JSON.stringify(a)) > max, 'the fixture is over the budget');
    const fit = fitAnswer(a);
    assert.ok(Buffer.byteLength(JSON.stringify(fit)) <= max, `${Buffer.byteLength(JSON.stringify(fit))} B`);
    assert.equal(fit.candidates.length, 3);
    assert.ok(fit.candidates.every((c) => c.why.length <= 120));
    // Bigger still: the last candidate goes, with its choice.
    const big = answer();
    big.locator = 'x'.repeat(900);
    const cut = fitAnswer(big);
    assert.ok(Buffer.byteLength(JSON.stringify(cut)) <= max);
    assert.ok(cut.candidates.length < 3);
    assert.deepEqual(cut.choices, [...cut.candidates.map((_, i) => String(i + 1)), 'persistence']);
    const small = answer();
    small.locator = 'x';
    small.candidates = small.candidates.map((c) => ({ ...c, path: 'src/A.cs', why: 'name: saga' }));
    small.reads = [];
    small.verified = 'candidate 1 is declared there';
    assert.deepEqual(fitAnswer(structuredClone(small)), small);
  });
});
