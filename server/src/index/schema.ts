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
  {
    version: 3,
    name: 'projects: project graph (projects, edges, file membership)',
    sql: `
      -- One row per project file (MSBuild, package.json, tsconfig), including failed/missing ones.
      CREATE TABLE projects (
        id TEXT PRIMARY KEY,                -- workspace-relative path of the project file
        name TEXT NOT NULL,
        kind TEXT NOT NULL,                 -- csharp | fsharp | vb | shared | node | tsconfig
        is_test INTEGER NOT NULL,
        target_frameworks TEXT NOT NULL,    -- ';'-joined
        assembly_name TEXT,
        root_namespace TEXT,
        sdk TEXT,
        status TEXT NOT NULL,               -- complete | partial | failed
        reasons TEXT NOT NULL               -- JSON array of strings
      );
      -- projectReference / packageReference (to 'package:<name>') / solutionMembership (from a solution path).
      CREATE TABLE project_edges (
        kind TEXT NOT NULL,
        source TEXT NOT NULL,
        target TEXT NOT NULL,
        version TEXT,
        target_frameworks TEXT,             -- ';'-joined when the edge applies to some frameworks only
        missing INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX project_edges_source ON project_edges(source);
      CREATE INDEX project_edges_target ON project_edges(target);
      -- A file can belong to several projects (linked files, shared projects, overlapping globs).
      CREATE TABLE project_files (
        path TEXT NOT NULL,
        project TEXT NOT NULL,
        target_frameworks TEXT,             -- ';'-joined when compiled for some frameworks only
        link TEXT
      );
      CREATE INDEX project_files_path ON project_files(path);
      CREATE INDEX project_files_project ON project_files(project);
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.reduce((m, x) => Math.max(m, x.version), 0);
