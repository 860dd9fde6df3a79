/**
 * The server `instructions` (sent once at initialize): the workflow an agent should follow.
 * Some clients keep only the first INSTRUCTIONS_SELF_CONTAINED_CHARS, so the first part stands
 * alone; the whole stays within INSTRUCTIONS_MAX_CHARS (test/e2e/toolBudget.test.ts checks both).
 */
import { PAGING_NOTE } from './schemas';

export const WORKFLOW = [
  'Sextant answers code questions with small, exact, bounded results.',
  'For code facts use the semantic tools first: search_symbol to find a declaration by name, then definition, references, implementations, callers, type_hierarchy.',
  'Call outline before reading any large file, then read only the spans you need with source_context.',
  'Before changing behaviour, check references and callers, including tests.',
  'A cut list carries nextCursor: pass it as cursor with the same arguments.',
].join(' ');

const DETAILS = [
  'search_text is for strings, config keys and log messages; find_file for paths; project_graph for project references.',
  PAGING_NOTE,
  'Paths are workspace-relative, lines and columns 1-based.',
  'Answers state mode, completeness and index freshness: trust precise rows; treat heuristic, partial or stale ones as leads.',
].join(' ');

export const SERVER_INSTRUCTIONS = `${WORKFLOW} ${DETAILS}`;
