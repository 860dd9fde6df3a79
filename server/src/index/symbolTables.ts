/**
 * The symbols storage comes from migration 5 (compact rows behind the view `symbols`, see
 * SYMBOLS_V5_SQL). An index created while that migration did not exist yet but a later one did
 * (during development) never gets it from `migrate`, so readers and the writer make sure the
 * tables exist (idempotent, once per store); creating them there also forces every file to be
 * read again, so the rows get written.
 */
import { SYMBOLS_V5_SQL } from './schema';
import type { IndexStore } from './store';

const checked = new WeakSet<IndexStore>();

export function ensureSymbolTables(store: IndexStore): void {
  if (checked.has(store)) return;
  const present =
    store.rows("SELECT name FROM sqlite_master WHERE (type = 'table' AND name IN ('symbol_rows', 'symbol_scopes', 'symbol_strings', 'syntax_files')) OR (type = 'view' AND name = 'symbols')").length === 5;
  if (!present) {
    // Whatever symbols storage is there (migration 2's table, or an incomplete newer one) goes.
    const view = store.rows("SELECT 1 FROM sqlite_master WHERE type = 'view' AND name = 'symbols'").length > 0;
    store.db.exec(`DROP INDEX IF EXISTS symbols_name; DROP INDEX IF EXISTS symbols_symbol_id; ${view ? 'DROP VIEW symbols' : 'DROP TABLE IF EXISTS symbols'};
      DROP TABLE IF EXISTS symbol_rows; DROP TABLE IF EXISTS symbol_scopes; DROP TABLE IF EXISTS symbol_strings; ${SYMBOLS_V5_SQL}
      DELETE FROM syntax_files; UPDATE files SET hash = '', size = -1;`);
  }
  // Sorting (ORDER BY in search_symbol) spills to temp files otherwise, which sql.js emulates in JS.
  store.db.run('PRAGMA temp_store = MEMORY');
  checked.add(store);
}

/** The indexed hash of a symbol id (FNV-1a over UTF-16 code units, unsigned 32-bit). */
export function symbolIdHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Flags column bits. */
export const SYMBOL_FLAG_TEST = 1;
export const SYMBOL_FLAG_GENERATED = 2;
export const SYMBOL_FLAG_RECOVERED = 4;
/** Id-form bits of `symbol_rows.flags` (see SYMBOLS_V5_SQL); never visible through the view. */
export const SID_FORM_QN = 8;
export const SID_FORM_PATH = 16;
export const SID_FORM_PREFIX = 32;
/** `symbol_rows.signature` holds U+0001 for the name and U+0002 for the modifiers (see SYMBOLS_V5_SQL). */
export const SIGNATURE_PACKED = 64;
