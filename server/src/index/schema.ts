/**
 * The index schema as numbered migrations. A migration runs once, in order, inside the transaction
 * that opens the index; `meta.schema_version` records the last one applied. An index whose schema
 * is newer than this build knows is never written to (it is moved aside and rebuilt, and reported).
 *
 * Numbers are reserved per area so parallel work does not collide:
 *   1 foundation (meta, files, text index)   2 symbols (syntax layer)   3 projects (project model)
 *   4 text index   5 compact symbols   6 module references (file_dependencies)
 *   7 attribute arguments in symbol rows (search_symbol attribute)
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Symbols storage since migration 5 (also used to create it where it is missing, see
 * ensureSymbolTables). `symbol_rows` stores each declaration compactly; the view `symbols` gives
 * readers the columns of migration 2:
 *   - namespace and container are interned in `symbol_scopes` (tens of thousands of pairs), the
 *     namespace, kind and modifier list as ids into `symbol_strings` (a few thousand);
 *   - qualified_name is `namespace.container.name` (empty parts skipped) unless stored in `qn`
 *     (only when it is not derivable);
 *   - symbol_id is rebuilt from `sid` by the id-form bits of `flags` (8: sid = 'X:' + rest, id =
 *     'X:' + qualified_name + rest; 16: id = path + '#' + qualified_name + sid; 32: id = 'X:' +
 *     namespace.container. + rest, e.g. constructors' '#ctor(...)'; none: sid is the id);
 *   - `sid_hash` (FNV-1a 32 of the id) is indexed for lookups: WHERE sid_hash = ? AND symbol_id = ?.
 *   - signature (flag 64): the first occurrence of the name is stored as U+0001 and a leading
 *     modifiers list as U+0002 (only for signatures without those characters).
 * The view's flags keep only bits 1..4. Scopes and strings are only added (unused ones are harmless).
 */
export const MODULE_REFS_SQL = `
      CREATE TABLE IF NOT EXISTS module_refs (
        file_id INTEGER PRIMARY KEY,
        refs TEXT NOT NULL
      );`;

const SYMBOL_ROW_INDEX_NAME_SQL = 'CREATE INDEX IF NOT EXISTS symbol_rows_name ON symbol_rows(name);';
const SYMBOL_ROW_INDEX_SID_SQL = 'CREATE INDEX IF NOT EXISTS symbol_rows_sid ON symbol_rows(sid_hash);';
/** The symbol_rows indexes a bulk write drops and builds again at its end (symbolsHook). */
export const SYMBOL_ROW_INDEXES_SQL: readonly { name: string; sql: string }[] = [
  { name: 'symbol_rows_name', sql: SYMBOL_ROW_INDEX_NAME_SQL },
  { name: 'symbol_rows_sid', sql: SYMBOL_ROW_INDEX_SID_SQL },
];

export const SYMBOLS_V5_SQL = `
      CREATE TABLE IF NOT EXISTS symbol_strings (
        id INTEGER PRIMARY KEY,
        value TEXT NOT NULL                 -- kinds, modifier lists, namespaces
      );
      CREATE TABLE IF NOT EXISTS symbol_scopes (
        id INTEGER PRIMARY KEY,
        namespace INTEGER NOT NULL,         -- symbol_strings.id
        container TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS symbol_rows (
        file_id INTEGER NOT NULL,
        ordinal INTEGER NOT NULL,
        parent INTEGER NOT NULL,
        depth INTEGER NOT NULL,
        sid_hash INTEGER NOT NULL,
        sid TEXT NOT NULL,
        name TEXT NOT NULL,
        qn TEXT,
        kind INTEGER NOT NULL,              -- symbol_strings.id
        scope INTEGER NOT NULL,             -- symbol_scopes.id
        signature TEXT NOT NULL,
        line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        col INTEGER NOT NULL,
        end_col INTEGER NOT NULL,
        name_line INTEGER NOT NULL,
        name_col INTEGER NOT NULL,
        flags INTEGER NOT NULL,
        modifiers INTEGER NOT NULL,         -- symbol_strings.id
        attributes TEXT NOT NULL,
        extended_type TEXT,
        PRIMARY KEY (file_id, ordinal)
      ) WITHOUT ROWID;
      ${SYMBOL_ROW_INDEX_NAME_SQL}
      ${SYMBOL_ROW_INDEX_SID_SQL}
      CREATE INDEX IF NOT EXISTS symbol_rows_qn ON symbol_rows(qn) WHERE qn IS NOT NULL;
      CREATE VIEW IF NOT EXISTS symbols AS
        SELECT file_id, ordinal, parent, depth, sid_hash, qn AS qn_raw,
          CASE WHEN flags & 8 THEN substr(sid, 1, 2) || qualified_name || substr(sid, 3)
               WHEN flags & 16 THEN (SELECT path FROM files WHERE files.id = file_id) || '#' || qualified_name || sid
               WHEN flags & 32 THEN substr(sid, 1, 2) || prefix || substr(sid, 3)
               ELSE sid END AS symbol_id,
          name, qualified_name, kind, container, namespace,
          CASE WHEN flags & 64 THEN replace(replace(signature, char(2), modifiers), char(1), name) ELSE signature END AS signature, line, end_line, col, end_col, name_line, name_col,
          flags & 7 AS flags, modifiers, attributes, extended_type
        FROM (SELECT r.file_id AS file_id, r.ordinal AS ordinal, r.parent AS parent, r.depth AS depth, r.sid_hash AS sid_hash, r.sid AS sid,
                r.name AS name, r.qn AS qn, k.value AS kind, r.signature AS signature, r.line AS line, r.end_line AS end_line, r.col AS col,
                r.end_col AS end_col, r.name_line AS name_line, r.name_col AS name_col, r.flags AS flags, m.value AS modifiers,
                r.attributes AS attributes, r.extended_type AS extended_type, ns.value AS namespace, sc.container AS container,
                CASE WHEN ns.value <> '' THEN ns.value || '.' ELSE '' END || CASE WHEN sc.container <> '' THEN sc.container || '.' ELSE '' END AS prefix,
                coalesce(r.qn, CASE WHEN ns.value <> '' THEN ns.value || '.' ELSE '' END || CASE WHEN sc.container <> '' THEN sc.container || '.' ELSE '' END || r.name) AS qualified_name
              FROM symbol_rows r JOIN symbol_scopes sc ON sc.id = r.scope JOIN symbol_strings ns ON ns.id = sc.namespace
                JOIN symbol_strings k ON k.id = r.kind JOIN symbol_strings m ON m.id = r.modifiers);
      CREATE TABLE IF NOT EXISTS syntax_files (
        file_id INTEGER PRIMARY KEY,
        language TEXT NOT NULL,
        has_errors INTEGER NOT NULL,
        error_lines TEXT NOT NULL,
        reparsed TEXT NOT NULL,
        recovered INTEGER NOT NULL,
        truncated INTEGER NOT NULL,
        generated INTEGER NOT NULL,
        symbols INTEGER NOT NULL,
        error TEXT
      );
`;

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
      -- One document per file: its distinct lower-cased identifier tokens (see migration 4).
      CREATE VIRTUAL TABLE file_text USING fts4(tokens, tokenize=unicode61 "tokenchars=_");
      -- Large values loaded whole at start (one read instead of one row per item), e.g. 'terms':
      -- the token dictionary, newline-joined, for prefix/suffix/substring expansion. Terms are only
      -- added; a term whose last file was deleted expands to no document, which is harmless.
      CREATE TABLE blobs (key TEXT PRIMARY KEY, value BLOB NOT NULL);
    `,
  },
  {
    version: 2,
    name: 'symbols: declarations from the syntax layer',
    sql: `
      -- One row per declaration span, in outline order per file. A logical symbol (a C# partial
      -- class) has one symbol_id and a row per declaration.
      CREATE TABLE IF NOT EXISTS symbols (
        file_id INTEGER NOT NULL,           -- files.id
        ordinal INTEGER NOT NULL,           -- position in the file's outline (document order)
        parent INTEGER NOT NULL,            -- ordinal of the enclosing declaration, -1 at top level
        depth INTEGER NOT NULL,
        symbol_id TEXT NOT NULL,            -- C# documentation-comment id, else path#Qualified.Name
        name TEXT NOT NULL,
        qualified_name TEXT NOT NULL,
        kind TEXT NOT NULL,
        container TEXT NOT NULL,
        namespace TEXT NOT NULL,
        signature TEXT NOT NULL,
        line INTEGER NOT NULL,
        end_line INTEGER NOT NULL,
        col INTEGER NOT NULL,
        end_col INTEGER NOT NULL,
        name_line INTEGER NOT NULL,
        name_col INTEGER NOT NULL,
        flags INTEGER NOT NULL,             -- 1 test, 2 generated, 4 recovered from an ERROR region
        modifiers TEXT NOT NULL,            -- space-joined
        attributes TEXT NOT NULL,           -- space-joined
        extended_type TEXT,
        PRIMARY KEY (file_id, ordinal)
      ) WITHOUT ROWID;
      CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
      CREATE INDEX IF NOT EXISTS symbols_symbol_id ON symbols(symbol_id);
      -- Parse facts per file, for outline answers from the index.
      CREATE TABLE IF NOT EXISTS syntax_files (
        file_id INTEGER PRIMARY KEY,
        language TEXT NOT NULL,
        has_errors INTEGER NOT NULL,
        error_lines TEXT NOT NULL,          -- comma-joined
        reparsed TEXT NOT NULL,             -- JSON array: what the re-parse did
        recovered INTEGER NOT NULL,
        truncated INTEGER NOT NULL,         -- 1 depth, 2 symbol cap
        generated INTEGER NOT NULL,
        symbols INTEGER NOT NULL,
        error TEXT                          -- why the file has no outline (unsupported, binary…)
      );
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
  {
    version: 4,
    name: 'text index: contentless FTS4 with document ids and tombstones',
    sql: `
      -- The token documents are not stored (they were as large as the index itself). A contentless
      -- FTS4 table cannot delete, so a changed file gets a new doc_id and its old document becomes a
      -- tombstone: it no longer joins to a file. Tombstones are counted in meta 'text_garbage' and
      -- the table is rebuilt when they outnumber half the live documents.
      DROP TABLE IF EXISTS file_text;
      CREATE VIRTUAL TABLE file_text USING fts4(content="", tokens, tokenize=unicode61 "tokenchars=_");
      ALTER TABLE files ADD COLUMN doc_id INTEGER;
      CREATE INDEX files_doc_id ON files(doc_id);
      -- Files indexed before this migration have no document: force them to be read again.
      UPDATE files SET hash = '', size = -1;
    `,
  },
  {
    version: 5,
    name: 'symbols: compact rows (interned scopes, derived qualified names and ids, integer id hash)',
    sql: `
      -- The symbols of migration 2 become a view over compact rows; the rows are rebuilt (all files
      -- are read again). See SYMBOLS_V5_SQL.
      DROP INDEX IF EXISTS symbols_name;
      DROP INDEX IF EXISTS symbols_symbol_id;
      DROP TABLE IF EXISTS symbols;
      ${SYMBOLS_V5_SQL}
      DELETE FROM syntax_files;
      UPDATE files SET hash = '', size = -1;
    `,
  },
  {
    version: 6,
    name: 'module references of TS/JS files (file_dependencies)',
    sql: `
      -- One row per parsed file of a language with a modules query: its references as written
      -- (JSON: refs [[specifier, kind, line, typeOnly?]...], computed count), resolved at query time
      -- against the file set, so a created or deleted file changes what resolves without a re-parse.
      ${MODULE_REFS_SQL}
      -- TS/JS files parsed before this migration have no row: their outlines are owed again.
      DELETE FROM symbol_rows WHERE file_id IN (SELECT id FROM files WHERE language IN ('typescript', 'tsx', 'javascript'));
      DELETE FROM syntax_files WHERE file_id IN (SELECT id FROM files WHERE language IN ('typescript', 'tsx', 'javascript'));
    `,
  },
  {
    version: 7,
    name: 'symbols: attribute arguments (search_symbol attribute)',
    sql: `
      -- The attributes column carries each attribute's arguments after U+0001 (see encodeAttributes
      -- in symbolsHook.ts). Files whose declarations carry attributes are parsed again.
      DELETE FROM syntax_files WHERE file_id IN (SELECT DISTINCT file_id FROM symbol_rows WHERE attributes <> '');
      DELETE FROM symbol_rows WHERE file_id NOT IN (SELECT file_id FROM syntax_files);
      DELETE FROM module_refs WHERE file_id NOT IN (SELECT file_id FROM syntax_files);
      -- The indexer asks the hooks what they lack only when this count is absent or above 0 (a
      -- stored 0 would leave the files above unparsed until they change).
      DELETE FROM meta WHERE key = 'hooks_pending';
    `,
  },
];

export const SCHEMA_VERSION = MIGRATIONS.reduce((m, x) => Math.max(m, x.version), 0);
