/**
 * The server `instructions` (sent once at initialize): the workflow an agent should follow.
 * Some clients keep only the first INSTRUCTIONS_SELF_CONTAINED_CHARS, so the first part stands
 * alone; the whole stays within INSTRUCTIONS_MAX_CHARS (test/e2e/toolBudget.test.ts checks both).
 */
import { PAGING_NOTE } from './schemas';

export const WORKFLOW = [
  'Sextant answers code questions with small, exact, bounded results.',
  'For code facts use the semantic tools first: search_symbol finds a declaration by name; then definition, references, implementations, callers, type_hierarchy.',
  'Call outline before reading any large file, then read only the spans you need with source_context.',
  'Before changing behaviour check references, callers and related_tests, or context_pack for all in one answer.',
  'A cut list carries nextCursor: pass it as cursor with the same arguments.',
].join(' ');

const DETAILS = [
  'locate_code: where code doing X is. impact: before a signature change, rename or delete. diagnostics: compiler errors.',
  'definition, references, outline: batch with targets/paths.',
  'search_text: strings, config keys; find_file: paths; project_graph: project references.',
  PAGING_NOTE,
  'Paths workspace-relative; lines/columns 1-based.',
  'Answers state mode, completeness, freshness: heuristic, partial or stale rows are leads.',
].join(' ');

export const SERVER_INSTRUCTIONS = `${WORKFLOW} ${DETAILS}`;
