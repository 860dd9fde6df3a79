/**
 * The server `instructions` (sent once at initialize): the workflow an agent should follow.
 * Some clients keep only the first INSTRUCTIONS_SELF_CONTAINED_CHARS, so the first part stands
 * alone; the whole stays within INSTRUCTIONS_MAX_CHARS (test/e2e/toolBudget.test.ts checks both).
 */
import { PAGING_NOTE } from './schemas';

export const WORKFLOW = [
  'Sextant gives small, exact, bounded answers about code.',
  'For code facts use semantic tools first: search_symbol finds a declaration by name; then definition, references, implementations, callers, type_hierarchy.',
  'Call outline before reading a large file, then read just the spans you need with source_context.',
  'Before changing behaviour check references, callers, related_tests, or context_pack (all in one).',
  'A cut list has nextCursor: pass it as cursor, same arguments.',
].join(' ');

const DETAILS = [
  'locate_code: where X is. impact: before signature change/rename/delete. diagnostics: compiler errors. recent_changes: git changes. xml_doc, generated_for. search_symbol attribute: [Attr]/@decorator.',
  'Batch: definition/references targets, outline paths.',
  'search_text: strings, config; find_file: paths; project_graph: projects.',
  PAGING_NOTE,
  'Paths workspace-relative; lines/columns 1-based.',
  'Heuristic, partial, stale rows (mode, completeness, index) are leads.',
].join(' ');

export const SERVER_INSTRUCTIONS = `${WORKFLOW} ${DETAILS}`;
