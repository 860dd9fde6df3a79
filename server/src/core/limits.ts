/**
 * Every operational limit of the engine, in one auditable place.
 * Names carry their unit. User-tunable ones are mirrored in package.json `contributes.configuration`
 * (a test checks that the defaults agree).
 */

/** Files larger than this are skipped by discovery and refused by reads (counted, never silent). */
export const MAX_FILE_BYTES = 2 * 1024 * 1024;
/** Byte budget of one tool answer, applied to the text and to the structuredContent JSON alike. */
export const DEFAULT_RESPONSE_BYTES = 8 * 1024;
/** Upper bound a caller may request with `maxBytes`. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
/** Default and maximum row counts for list tools. */
export const DEFAULT_ITEM_LIMIT = 20;
export const MAX_ITEM_LIMIT = 200;
/** Wall-clock deadline for a tool call; the answer says `deadline` when it was cut. */
export const TOOL_DEADLINE_MS = 10_000;
/** Deadline for the bounded ripgrep scan used for regex and non-token queries. */
export const TEXT_SCAN_DEADLINE_MS = 5_000;
/** Maximum matches collected from one file before moving on (keeps a minified file from flooding). */
export const MAX_MATCHES_PER_FILE = 50;
/** Characters of a line shown as a search-hit preview. */
export const PREVIEW_CHARS = 160;
/** Context lines around a span for source_context, default and maximum. */
export const DEFAULT_CONTEXT_LINES = 3;
export const MAX_CONTEXT_LINES = 50;
/** Spans per source_context call. */
export const MAX_SPANS_PER_CALL = 20;
/** Length of a query string (search_text, find_file, search_symbol). */
export const MAX_QUERY_CHARS = 1_000;
/** Length of a workspace-relative path argument. */
export const MAX_PATH_CHARS = 4_096;
/**
 * A substring query is answered from the token dictionary when it expands to at most this many
 * tokens; beyond that the bounded ripgrep scan is used and labelled as such.
 */
export const MAX_TOKEN_EXPANSION = 2_000;
/** Candidate files verified against live bytes per search_text call before it reports `limit`. */
export const MAX_VERIFIED_FILES_PER_QUERY = 5_000;
/** Files indexed per write transaction (one synchronous batch: readers never see half a batch). */
export const INDEX_BATCH_FILES = 500;
/** Files a workspace walk visits before it stops and reports the index as partial. */
export const MAX_WORKSPACE_FILES = 1_000_000;
/** Directory depth the walker descends. */
export const MAX_WALK_DEPTH = 64;
/** A source file above either threshold counts as "large": outline it before reading. */
export const LARGE_FILE_LINES = 400;
export const LARGE_FILE_BYTES = 24 * 1024;
/** Cursor lifetime: a cursor also dies when the index version changes. */
export const CURSOR_TTL_MS = 15 * 60 * 1000;
/** sql.js export is written in chunks of this size (fs.write takes at most 2 GiB at once). */
export const PERSIST_CHUNK_BYTES = 64 * 1024 * 1024;
/** Regex source length accepted by search_text / search_symbol. */
export const MAX_REGEX_CHARS = 500;
/** Type-hierarchy nodes visited when deriving overrides (csharp-ls's implementation misses them). */
export const TYPE_HIERARCHY_MAX_NODES = 500;
/** `--version` of a language server must answer within this (doctor). */
export const LSP_VERSION_PROBE_TIMEOUT_MS = 10_000;
