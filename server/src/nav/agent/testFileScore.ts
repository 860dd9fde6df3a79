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
 * - a name said like the type's (`ShipTests`, or the ranking index's similar names), a small lift;
 * - the share of the type's words in the test file's name, for every candidate file (`PullingAgentTests`
 *   holds 2 of the 4 words of `PersistentStreamPullingAgent`): fitted leave-one-repository-out on
 *   scripts/history-eval/'s pull requests (README there; a folder-words share was tried beside it
 *   and added nothing).
 * Dev split, 84 pull requests over 5 repositories: a changed test file in the top 5 for 60 (rg -c
 * mention counts: 32).
 */
import { stem, words } from '../ranking/words';

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
  /** Share of the type's words in the test file's name (0..1; sharedWords). */
  nameWords?: number;
}

export const TEST_FILE_WEIGHTS = { mention: 0.3, churnPower: 0.3, named: 0.3, bestRow: 0.1, nameWords: 0.3 };

export function testFileScore(e: TestFileEvidence, w = TEST_FILE_WEIGHTS): number {
  let s = w.mention * Math.log1p(e.mentions) + e.cochange;
  if (e.cochange > 0) s /= (1 + e.churn) ** w.churnPower;
  return s + w.named * e.named + (w.bestRow * e.bestRow) / 100 + w.nameWords * (e.nameWords ?? 0);
}

/** Words every test path has (its folder's role), not evidence of what it tests. */
const TEST_PATH_WORDS: ReadonlySet<string> = new Set(['test', 'tests', 'spec', 'specs', 'src', 'unit', 'functional', 'integration'].map(stem));

function wordSet(text: string): Set<string> {
  return new Set(words(text).filter((w) => !TEST_PATH_WORDS.has(w)).map(stem).filter((s) => !TEST_PATH_WORDS.has(s)));
}

/** Share of the words of `of` that `into` holds too (split and stemmed like the ranking's; 0 when `of` has none). */
export function sharedWords(of: string, into: string): number {
  const a = wordSet(of);
  if (!a.size) return 0;
  const b = wordSet(into);
  let n = 0;
  for (const x of a) if (b.has(x)) n++;
  return n / a.size;
}

/** Share of the type's words in the test file's name (its extension left out). */
export function nameWords(testPath: string, typeName: string): number {
  return sharedWords(typeName, testPath.slice(testPath.lastIndexOf('/') + 1).replace(/\.[^.]+$/, ''));
}
