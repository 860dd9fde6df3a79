/**
 * The symbols tables come from migration 2. An index created while migration 2 did not exist yet
 * but a later migration did (during development) never gets it from `migrate`, so readers and the
 * writer make sure the tables exist (idempotent, once per store).
 */
import { MIGRATIONS } from './schema';
import type { IndexStore } from './store';

const checked = new WeakSet<IndexStore>();

export function ensureSymbolTables(store: IndexStore): void {
  if (checked.has(store)) return;
  const present = store.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('symbols', 'syntax_files')").length === 2;
  if (!present) {
    const m = MIGRATIONS.find((x) => x.version === 2);
    if (m) store.db.exec(m.sql);
  }
  // Sorting (ORDER BY in search_symbol) spills to temp files otherwise, which sql.js emulates in JS.
  store.db.run('PRAGMA temp_store = MEMORY');
  checked.add(store);
}

/** Flags column bits. */
export const SYMBOL_FLAG_TEST = 1;
export const SYMBOL_FLAG_GENERATED = 2;
export const SYMBOL_FLAG_RECOVERED = 4;
