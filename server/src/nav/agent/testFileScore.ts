/**
 * How strongly a test file's evidence says that a change to a symbol's file will touch it: the
 * file-level key related_tests orders its rows by (rows are test methods; the first page should name
 * the few test files that matter). Tuned on the dev split of scripts/history-eval/ (which test files
 * a merged pull request changed, asked about the main type of each production file it changed):
 * - mentions of the name (precise references, else text mentions), on a log scale — a plain count
 *   favours the one fixture that uses the type everywhere;
 * - git co-change weighted by recency and commit size (coChange.ts `weighted`), divided by the test
 *   file's own churn to a small power: a test file that changes in every sweep co-changes with
 *   everything;
 * - a name said like the type's (`ShipTests`, or the ranking index's similar names), a small lift.
 * Dev split, 84 pull requests over 5 repositories: a changed test file in the top 5 for 60 (rg -c
 * mention counts: 32).
 */
export interface TestFileEvidence {
  /** References (precise) or text mentions of the name in the file. */
  mentions: number;
  /** coChange.ts `weighted` for the file (0 when it never changed with the symbol's file). */
  cochange: number;
  /** Commits that changed the test file in the ranking's history window (0 when unknown). */
  churn: number;
  /** 1 for a file named after the type, its similarity share (0..1) for one named like it. */
  named: number;
  /** The file's best row score (0–100): breaks near ties towards the stronger kind of evidence. */
  bestRow: number;
}

export const TEST_FILE_WEIGHTS = { mention: 0.3, churnPower: 0.3, named: 0.3, bestRow: 0.1 };

export function testFileScore(e: TestFileEvidence, w = TEST_FILE_WEIGHTS): number {
  let s = w.mention * Math.log1p(e.mentions) + e.cochange;
  if (e.cochange > 0) s /= (1 + e.churn) ** w.churnPower;
  return s + w.named * e.named + (w.bestRow * e.bestRow) / 100;
}
