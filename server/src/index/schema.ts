/**
 * The index schema as numbered migrations. A migration runs once, in order, inside the transaction
 * that opens the index; `meta.schema_version` records the last one applied. An index whose schema
 * is newer than this build knows is never written to (it is moved aside and rebuilt, and reported).
 *
 * Numbers are reserved per area so parallel work does not collide:
 *   1 foundation (meta, files, text index)   2 symbols (syntax layer)   3 projects (project model)
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'foundation: meta, files, text index',
    sql: `
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE files (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,          -- workspace-relative POSIX
        class TEXT NOT NULL,                -- source | test | generated | vendor | build | config | other
        language TEXT,
        size INTEGER NOT NULL,
        mtime_ms INTEGER NOT NULL,
        hash TEXT NOT NULL,                 -- sha1 of the bytes
        lines INTEGER NOT NULL,
        binary INTEGER NOT NULL DEFAULT 0,
        generation INTEGER NOT NULL         -- index generation that last wrote the row
      );
      -- One document per file: its distinct lower-cased identifier tokens (rowid = files.id).
      CREATE VIRTUAL TABLE file_text USING fts4(tokens, tokenize=unicode61 "tokenchars=_");
      -- Large values loaded whole at start (one read instead of one row per item), e.g. 'terms':
      -- the token dictionary, newline-joined, for prefix/suffix/substring expansion. Terms are only
      -- added; a term whose last file was deleted expands to no document, which is harmless.
      CREATE TABLE blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.reduce((m, x) => Math.max(m, x.version), 0);
