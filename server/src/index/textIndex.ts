/**
 * The token index over files: a contentless FTS4 table whose documents are each file's distinct
 * tokens. Files point at their current document (`files.doc_id`); a document no file points at is
 * a tombstone left by a change or a deletion, invisible to queries and reclaimed by a rebuild.
 */
import type { IndexStore } from './store';

/** Files whose current document matches an FTS4 MATCH expression. */
export function matchFiles(store: IndexStore, matchExpr: string): number[] {
  // One row (the ids joined in SQL), as matchDocs: a name the whole tree mentions is ~30,000 rows.
  const joined = store.rows('SELECT group_concat(f.id) FROM file_text t JOIN files f ON f.doc_id = t.docid WHERE t.file_text MATCH ?', [matchExpr])[0]?.[0];
  if (typeof joined !== 'string' || joined.length === 0) return typeof joined === 'number' ? [joined] : [];
  return joined.split(',').map(Number);
}

/** Document ids (live or tombstone) matching an FTS4 MATCH expression; the caller maps them to files. */
export function matchDocs(store: IndexStore, matchExpr: string): number[] {
  // One row (the ids joined in SQL): stepping sql.js row by row costs ~5 µs a row, and a common
  // identifier's term is in thousands of documents.
  const joined = store.rows('SELECT group_concat(docid) FROM file_text WHERE file_text MATCH ?', [matchExpr])[0]?.[0];
  if (typeof joined !== 'string' || joined.length === 0) return typeof joined === 'number' ? [joined] : [];
  const parts = joined.split(',');
  const out = new Array<number>(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = Number(parts[i]);
  return out;
}

/** The next unused document id. */
export function nextDocId(store: IndexStore): number {
  return Number(store.getMeta('next_doc_id') ?? '1');
}

export function garbageDocs(store: IndexStore): number {
  return Number(store.getMeta('text_garbage') ?? '0');
}
