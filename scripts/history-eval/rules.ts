/**
 * What counts as a question in the history evaluation, and how a repository's files are classed.
 * Shared by the builder (which keeps only the pull requests these rules accept) and the evaluator
 * (which asks the questions): the rules are data here, written down once.
 *
 * A pull request is kept when:
 *  - it is a merged pull request on the first-parent line of the default branch: a squash merge
 *    (`Title (#123)`) or a merge commit (`Merge pull request #123 from …`, title from its body);
 *    MassTransit, whose maintainer commits directly, also contributes its `Fixed #123 - title`
 *    commits (kind `commit`);
 *  - its author is not a bot and its title is not automation (dependency bumps, code flow,
 *    localisation check-ins, reverts, branch merges);
 *  - it changes at least one production C# file that exists before it (modified, deleted or the old
 *    path of a rename: a file it adds cannot be found in the tree it is asked on);
 *  - it changes at most MAX_PRODUCTION_FILES production C# files and MAX_CHANGED_FILES files in all
 *    (a larger change is a refactor, not a question with an answer);
 *  - its title has at least MIN_TITLE_WORDS words that are not stop words or the conventional-commit
 *    type, and is not a bare issue reference;
 *  - its normalised title was not seen already (backports repeat a title).
 * Production file: a `.cs` file outside test, benchmark, sample, playground and build folders, and
 * not generated (`*.Designer.cs`, `*.g.cs`, `Generated/`). Test file: a `.cs` file in a test folder
 * or project (`test/`, `tests/`, `*.Tests/`, `UnitTests/`, `*.Specs/`, `TestUtilities/` …).
 */

export const MAX_PRODUCTION_FILES = 8;
export const MAX_CHANGED_FILES = 40;
export const MIN_TITLE_WORDS = 3;

const TEST_SEGMENT = /(^|\/)(tests?|testing|unittests|integrationtests|functionaltests|specs?)(\/|$)|(^|\/)[^/]*(\.|_)?(Tests?|Specs?|FunctionalTests|UnitTests|IntegrationTests|TestUtilities|TestHelpers|Testing|TestFramework|TestHost|TestingHost|Tester)(\/|$)/i;
const OTHER_SEGMENT = /(^|\/)(benchmarks?|perf|samples?|playground|eng|build|tools|docs?|templates|\.github|\.config|assets|artifacts)(\/|$)|(^|\/)[^/]*\.(Benchmarks?|Samples?|Sample)(\/|$)/i;
const GENERATED = /(\.Designer\.cs|\.g\.cs|\.g\.i\.cs|\.generated\.cs|AssemblyInfo\.cs)$|(^|\/)(Generated|obj|bin)\//i;

export type FileRole = 'production' | 'test' | 'other';

export function roleOf(path: string): FileRole {
  if (!path.endsWith('.cs')) return 'other';
  if (TEST_SEGMENT.test(path)) return 'test';
  if (OTHER_SEGMENT.test(path) || GENERATED.test(path)) return 'other';
  return 'production';
}

const BOT_AUTHOR = /\[bot\]|dotnet-maestro|github-actions|dependabot|renovate|dotnet-bot|azure-pipelines|copilot-swe-agent/i;
const AUTOMATION_TITLE =
  /^(bump |update dependencies|\[automated\]|\[[\w./-]+\] (update dependencies|source code updates)|merge branch|merge remote|revert |localized file check-?in|update .*(\.props|\.json|\.yml|version)\b|chore\(deps\)|sync |.*\bmerge (from|into|release)\b|\[main\] |update (dotnet )?sdk|update (to )?\.net|release notes|.*\bback-?(port|merge)\b)/i;
const CONVENTIONAL = /^(feat|fix|chore|perf|refactor|docs|test|tests|ci|build|style)(\([^)]*\))?!?:\s*/i;
const STOP = new Set('a an the of to in on for and or with when is are be by from at as it its into not no via this that'.split(' '));

export function isBotAuthor(author: string): boolean {
  return BOT_AUTHOR.test(author);
}

/** The title as asked: the PR number suffix and a leading branch tag (`[release/9.0]`) removed. */
export function cleanTitle(subject: string): string {
  return subject
    .replace(/\s*\(#\d+\)\s*$/, '')
    .replace(/^\[[\w./-]+\]\s*/, '')
    .replace(/[…]$/, '')
    .trim();
}

export function titleAccepted(title: string): string | undefined {
  if (AUTOMATION_TITLE.test(title)) return 'automation title';
  const words = title
    .replace(CONVENTIONAL, '')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 1 && !STOP.has(w.toLowerCase()) && !/^\d+$/.test(w));
  if (words.length < MIN_TITLE_WORDS) return `fewer than ${MIN_TITLE_WORDS} words`;
  return undefined;
}

export function normalisedTitle(title: string): string {
  return title.toLowerCase().replace(CONVENTIONAL, '').replace(/[^a-z0-9]+/g, ' ').trim();
}

export interface RepoConfig {
  /** owner+name, as the mirror folder is named. */
  id: string;
  /** Pull requests taken (newest first, after the filters). */
  questions: number;
  /** Questions per snapshot (consecutive pull requests share the tree before the oldest of them). */
  perSnapshot: number;
  /** Also take direct commits titled `Fixed #123 - …` (repositories whose maintainers commit directly). */
  fixCommits?: boolean;
}

export const REPOS: RepoConfig[] = [
  { id: 'dotnet+efcore', questions: 60, perSnapshot: 30 },
  { id: 'dotnet+aspire', questions: 60, perSnapshot: 30 },
  { id: 'dotnet+orleans', questions: 60, perSnapshot: 30 },
  { id: 'AutoMapper+AutoMapper', questions: 40, perSnapshot: 10 },
  { id: 'MassTransit+MassTransit', questions: 40, perSnapshot: 10, fixCommits: true },
];
