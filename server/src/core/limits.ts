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
/**
 * Entries of a per-file list fact (the projects compiling a file, its compilations) shown in a row
 * or file header; the rest are one "+N more: projects_containing" entry (mcp/answer.ts). A file
 * linked into 300 projects made every per-file answer need ~25 KB (issue 25).
 */
export const FILE_FACT_SHOWN_ENTRIES = 3;
/**
 * definition: rows decorated and returned (the answer says the total). One page of the largest
 * budget holds fewer; a name matched in 22,654 declarations was decorated whole for seconds.
 */
export const DEFINITION_ROWS_MAX = 200;
/**
 * A call over MCP not answered within this answers `Error [STILL_WORKING]` and goes on in the
 * background; the same question asked again joins it (mcp/scheduler.ts). An agent is never held
 * past it by a cold provider, a wide scan or other agents' heavy questions queued before it
 * (fuzzing 10,000 calls: slowest 9.7 s before). Below 2 s with room for transport and rendering.
 */
export const TOOL_ANSWER_MS = 1_500;
/** Heavy calls (providers, scans, graph walks: mcp/scheduler.ts) running at once engine-wide; the others queue per MCP session, served round robin. */
export const HEAVY_CALLS_IN_FLIGHT = 2;
/** Calls kept running after answering STILL_WORKING, until asked again (oldest dropped first; each at most CURSOR_TTL_MS). */
export const STILL_WORKING_KEPT_CALLS = 32;
/** Wall-clock deadline for a tool call; the answer says `deadline` when it was cut. */
export const TOOL_DEADLINE_MS = 10_000;
/**
 * How long after its deadline a call's handler still gets to hand over what it has before the call
 * answers DEADLINE_EXCEEDED (mcp/server.ts): providers stop at the deadline, and decorating and
 * rendering their rows comes after (shared_engine at load ~27: references of a name in 28,831
 * files answered DEADLINE_EXCEEDED 250 ms past the deadline while its heuristic rows were being
 * decorated). A hung handler is still answered; over MCP the caller has had STILL_WORKING long before.
 */
export const TOOL_DEADLINE_GRACE_MS = 1_500;
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

/**
 * A case-sensitive literal whose first or last fragment is capitalised reads the files that spell
 * that fragment's whole token only in lower case (they match only inside a longer token) after the
 * others; after this many of them in a row without a hit, the rest are left to the token
 * dictionary's longer tokens instead (reading ~0.05 ms a file against ~10-60 ms for the expansion).
 */
export const LOWER_ONLY_PROBE_FILES = 64;
/** Candidate files verified against live bytes per search_text call before it reports `limit`. */
export const MAX_VERIFIED_FILES_PER_QUERY = 5_000;
/** Files indexed per write transaction (one synchronous batch: readers never see half a batch). */
export const INDEX_BATCH_FILES = 500;
/**
 * Files per transaction of the text + files phase (fewer, larger commits: the token index builds
 * fewer segments, ~17% less CPU than 500 on the 3,000-project workspace).
 */
export const INDEX_TEXT_BATCH_FILES = 2_000;
/**
 * The same for an engine that answers questions while it indexes (every engine but `sextant
 * index`'s): each transaction holds the engine thread, and 2,000 files' token documents held it
 * 1.9-2.4 s at load ~18 on the 3,000-project workspace; a quarter of that, for ~17% more CPU.
 */
export const INDEX_SERVING_TEXT_BATCH_FILES = 500;
/**
 * Files to read from which a refresh reads, hashes and tokenises them in a worker thread a batch
 * ahead of the writes (a thread costs ~30 ms to start: a saved file or a small tree reads in place).
 */
export const TEXT_WORKER_MIN_FILES = 1_000;
/**
 * Batches the second indexing phase (outlines, symbols) keeps in preparation while this thread
 * reads the next one and writes finished ones: parse workers always have a queued batch.
 */
export const INDEX_HOOK_BATCHES_IN_FLIGHT = 2;
/**
 * Files owed to the symbols hook from which its name and id indexes are dropped for the parse
 * phase and built once at its end (a sort) instead of updated row by row: a cold index's random
 * inserts into two B-trees cost ~2× the table's own (measured on efcore, 138k rows), and a bulk
 * build also leaves the indexes packed. Only when the owed files also outnumber the files already
 * parsed (a cold or nearly cold index), since the build reads every row.
 */
export const SYMBOLS_BULK_MIN_FILES = 2_000;
/**
 * The walk `Engine.open` starts while the index loads is used by a refresh starting within this
 * time; a later first refresh walks again (changes since are then not left to the watcher's sweep).
 */
export const PREFETCHED_WALK_MAX_AGE_MS = 10_000;
/**
 * A refresh whose second phase has at least this many files to parse persists the index between
 * the phases, so text + files survive a stop during parsing (smaller changes persist once, at the end).
 */
export const PERSIST_BETWEEN_PHASES_MIN_FILES = 1_000;
/**
 * Quiet period after a watcher event before the changed files are re-indexed. Editors save with
 * one write (or write + rename) within a few ms; 300 ms made a save visible to symbols only after
 * ~0.5 s. A burst (checkout, build) still coalesces: events restart the timer.
 */
export const WATCH_DEBOUNCE_MS = 30;

/**
 * A refresh that threw (a hook, the store, a persist) is run again — as a full refresh — after
 * this long, doubling per failure in a row up to REFRESH_RETRY_MAX_MS: without it the index stays
 * `stale` until the next change on disk. Short enough that a passing problem (a file removed
 * mid-read, a full disk freed) is over within seconds; the cap keeps a lasting one from spinning.
 */
export const REFRESH_RETRY_FIRST_MS = 1_000;
export const REFRESH_RETRY_MAX_MS = 60_000;
/**
 * Folders created after the watcher started that it watches one by one (workspace/watcher.ts):
 * the native watcher misses subfolders of a folder created in one go (`mkdir -p`, a checkout),
 * so each new folder's tree gets non-recursive watches. One inotify watch and one handle each;
 * a checkout adding more folders than this leaves the rest to the next refresh (logged).
 */
export const WATCH_NEW_FOLDERS_MAX_DIRS = 20_000;
/**
 * The watcher's catch-up sweep (workspace/watcher.ts) once the native walk is done: folders listed
 * at once (libuv's 4 threads do the I/O; the event loop only takes the callbacks).
 */
export const WATCH_CATCH_UP_PARALLEL_READS = 8;
/**
 * A path whose mtime or ctime is at most this much older than the engine's last walk still counts
 * as changed in the catch-up sweep (file-system timestamps are coarser than the clock on some file systems).
 */
export const WATCH_CATCH_UP_SLACK_MS = 2_000;
/**
 * After a watcher-driven refresh the database is written to disk once nothing changed for this
 * long (and at close): persisting tens of MB with fsync blocks answers for 0.1–0.5 s per save.
 * A stop in between loses nothing: the next start re-indexes files whose size or mtime differ.
 */
export const PERSIST_AFTER_CHANGE_QUIET_MS = 5_000;
/** Files a workspace walk visits before it stops and reports the index as partial. */
export const MAX_WORKSPACE_FILES = 1_000_000;
/** Directory depth the walker descends. */
export const MAX_WALK_DEPTH = 64;
/** A source file above either threshold counts as "large": outline it before reading. */
export const LARGE_FILE_LINES = 400;
export const LARGE_FILE_BYTES = 24 * 1024;
/** Cursor lifetime: a cursor also dies when the index version changes. Kept results older than this are dropped. */
export const CURSOR_TTL_MS = 15 * 60 * 1000;
/**
 * Bytes of computed results (provider answers: references, call/type hierarchy, implementations;
 * scans that stop at a deadline) kept so that later pages of the same answer are served from the
 * first computation and never re-ask a provider that may answer in another order. Least recently
 * used results go first; a cursor whose result is gone answers STALE_CURSOR. Counted as the
 * result's JSON bytes (an estimate of its heap size within a small factor).
 */
export const PAGED_RESULT_CACHE_BYTES = 64 * 1024 * 1024;
/** One result larger than this is not kept (it would evict every other); its cursor re-computes and is checked instead. */
export const PAGED_RESULT_MAX_ENTRY_BYTES = 16 * 1024 * 1024;
/** sql.js export is written in chunks of this size (fs.write takes at most 2 GiB at once). */
export const PERSIST_CHUNK_BYTES = 64 * 1024 * 1024;
/** Regex source length accepted by search_text / search_symbol. */
export const MAX_REGEX_CHARS = 500;
/** Symbolic links followed while canonicalising one path (Linux's MAXSYMLINKS); beyond it is a loop. */
export const MAX_SYMLINK_HOPS = 40;

// ---- stdio transport (server/src/mcp/transport/stdio.ts) ----
/** One newline-delimited JSON-RPC frame; a longer one is discarded up to the next newline. */
export const STDIO_MAX_FRAME_BYTES = 10 * 1024 * 1024;
/** Error replies per run of bad frames; then one notice and silence until a valid frame arrives. */
export const STDIO_MAX_ERROR_REPLIES_PER_RUN = 64;
/** stdin is paused while more than this is queued for stdout (a client that does not read). */
export const STDIO_PAUSE_INPUT_ABOVE_BYTES = 4 * 1024 * 1024;
/** …and resumed once the queue drains below this. */
export const STDIO_RESUME_INPUT_BELOW_BYTES = 1 * 1024 * 1024;
/** Hard cap on bytes queued for stdout: beyond it send() fails fast instead of buffering. */
export const STDIO_MAX_OUTBOUND_BYTES = 32 * 1024 * 1024;
/** A request id is echoed in an error reply only when its JSON is at most this long (no reflection). */
export const MAX_ECHOED_ID_CHARS = 256;

// ---- HTTP transport (server/src/mcp/transport/http.ts) ----
/** Request body cap: tool arguments are small; a bigger body is answered 413 unread. */
export const HTTP_MAX_BODY_BYTES = 1024 * 1024;
/** Requests in flight per MCP session; more are answered 429 (one client cannot starve the rest). */
export const HTTP_MAX_INFLIGHT_PER_SESSION = 8;
/** Requests in flight over all clients (the engine has a few cores, not a thread pool). */
export const HTTP_MAX_INFLIGHT_TOTAL = 64;
/** Open MCP sessions; the least recently used idle one is closed to make room. */
export const HTTP_MAX_SESSIONS = 32;
/** A session unused for this long is closed. */
export const HTTP_SESSION_IDLE_MS = 30 * 60 * 1000;
/** Slow clients: all headers must arrive within this (node:http headersTimeout). */
export const HTTP_HEADERS_TIMEOUT_MS = 10_000;
/** Slow clients: the whole request (headers + body) must arrive within this (requestTimeout). */
export const HTTP_REQUEST_TIMEOUT_MS = 30_000;
/** An idle socket (no bytes either way, no open stream) is closed after this. */
export const HTTP_SOCKET_IDLE_MS = 60_000;
/** Open sockets at once (loopback only, but a local process can still open thousands). */
export const HTTP_MAX_CONNECTIONS = 128;
/**
 * search_text reads this many files in rank order before it asks the token index for candidates:
 * an identifier with thousands of hits fills its page from the first few files (well under a
 * millisecond), where the index lookup alone (substring expansion + FTS4) costs 5–50 ms.
 */
export const SEARCH_WALK_FIRST_FILES = 32;
/**
 * Once the page is full, search_text counts the rest for an exact total only when at most this
 * many files are left to read (~50 µs each warm); otherwise the total is a labelled lower bound
 * (`count: true`, or later pages, refine it).
 */
export const SEARCH_COUNT_CHEAP_FILES = 32;
/** search_text walks (and regex scans) kept per engine for later pages and counts of the same query. */
export const SEARCH_WALK_CACHE_ENTRIES = 32;
/** Matches a ripgrep scan collects before it stops (then ranked and paged). */
export const MAX_SCAN_MATCHES = 5_000;
/** MSBuild project/props files above this size are reported as failed instead of parsed (generated monsters). */
export const MAX_PROJECT_FILE_BYTES = 16 * 1024 * 1024;
/** Import nesting depth followed during MSBuild evaluation (MSBuild itself has no limit; cycles are skipped). */
export const MAX_MSBUILD_IMPORT_DEPTH = 32;
/** Outline nesting depth (namespace > type > nested type > member ...); deeper declarations are counted, not listed. */
export const MAX_OUTLINE_DEPTH = 12;
/** Declarations kept per file (a generated file with 100k constants must not flood the index). */
export const MAX_OUTLINE_SYMBOLS_PER_FILE = 20_000;
/** Characters of a declaration signature kept (long parameter lists are cut with an ellipsis). */
export const MAX_SIGNATURE_CHARS = 300;
/** Error lines reported per parsed file (enough to locate the trouble, not a dump). */
export const MAX_REPORTED_ERROR_LINES = 10;
/**
 * Skeleton parse: a body (or expression body) shorter than this is parsed rather than left out
 * (every range left out costs the parser a little; a tiny body is cheaper to parse).
 */
export const SKELETON_MIN_RANGE_CHARS = 16;
/**
 * Skeleton parse: used only when it leaves out at least this share of the file (API listings with
 * empty bodies gain nothing, and a skeleton that fails costs a second parse).
 */
export const SKELETON_MIN_LEFT_OUT_SHARE = 0.1;
/** Files handed to one parse worker per message (amortises message overhead, keeps progress granular). */
export const PARSE_BATCH_FILES = 64;
/** Nodes a structural query may visit-match before it stops and reports `limit` (tree-sitter match limit). */
export const STRUCTURAL_MATCH_LIMIT = 10_000;
/** Files a structural search parses per call before it stops and reports `limit`. */
export const MAX_STRUCTURAL_FILES = 2_000;
/**
 * Fewest bytes one search_structural match takes in an answer (JSON row + its text line): a page
 * searches files only for the matches its byte budget can show (budget / this), not for all of
 * `limit` — the rest would be cut anyway and searched again by the next page.
 */
export const STRUCTURAL_MATCH_MIN_BYTES = 120;
/** Ancestors and children shown by inspect_syntax_tree, default and maximum. */
export const DEFAULT_SYNTAX_TREE_NODES = 8;
export const MAX_SYNTAX_TREE_NODES = 50;

// ---- semantic layer (server/src/semantic/) ----
/** Default deadline of one semantic request over all providers (below TOOL_DEADLINE_MS: rendering needs time too). */
export const SEMANTIC_DEADLINE_MS = 8_000;
/** How long a request waits for a starting or loading language server before answering from the next provider. */
export const SEMANTIC_WAIT_FOR_READY_MS = 2_000;
/** Time kept back for the heuristic provider when a precise one is asked first. */
export const SEMANTIC_HEURISTIC_RESERVE_MS = 1_000;
/** A language server unused this long is stopped (C# reloads cost seconds to minutes, so be patient). */
export const LSP_IDLE_STOP_MS = 30 * 60 * 1000;
/** Restart backoff after a crash: base, doubled per crash in the window, capped. */
export const LSP_RESTART_BACKOFF_BASE_MS = 500;
export const LSP_RESTART_BACKOFF_MAX_MS = 60_000;
/** More crashes than this within the window and the server is left failed until the window passes. */
export const LSP_MAX_RESTARTS_PER_WINDOW = 5;
export const LSP_RESTART_WINDOW_MS = 10 * 60 * 1000;
/** shutdown/exit get this long before the process is killed. */
export const LSP_SHUTDOWN_GRACE_MS = 2_000;
/**
 * A helper process's watchdog checks its engine this often (whole seconds: `sleep` takes them);
 * with the grace below an orphaned language server is gone within ~3 s of a `kill -9` of the engine.
 */
export const CHILD_WATCHDOG_POLL_S = 1;
/** After the engine died, SIGTERM to the helper's process group, then SIGKILL after this many seconds. */
export const CHILD_WATCHDOG_GRACE_S = 2;
/** The initialize handshake must finish within this. */
export const LSP_INITIALIZE_TIMEOUT_MS = 60_000;
/**
 * A server declared as progress-reporting that sends no progress this long after initialize is
 * taken as ready. Generous: csharp-ls on a busy 2-core machine took over 15 s to send its first.
 */
export const LSP_PROGRESS_START_GRACE_MS = 120_000;
/** Files kept open (didOpen) per language server; the least recently used are closed beyond it. */
export const LSP_MAX_OPEN_DOCUMENTS = 100;
/** stderr / log-message lines kept per server for doctor and failure reasons (never put in answers). */
export const LSP_STDERR_TAIL_LINES = 40;
/** Reference rows checked one by one (definition lookup) to separate a C# member's own references from cascaded ones. */
export const CSHARP_CASCADE_CHECK_MAX_ROWS = 2_000;
/** Concurrent definition lookups while checking cascaded references. */
export const CSHARP_CASCADE_CHECK_CONCURRENCY = 8;
/**
 * A solution this small is loaded whole by csharp-ls on the first C# question (a few seconds, and
 * later questions never need a reload); a bigger one gets a generated solution of only the
 * projects the question needs, grown when a later question needs more.
 */
export const CSHARP_WHOLE_SOLUTION_MAX_PROJECTS = 12;
/** Projects a generated C# solution lists at most (csharp-ls loads about one project a second). */
export const CSHARP_GENERATED_SOLUTION_MAX_PROJECTS = 300;
/** Type-hierarchy nodes visited when deriving overrides (csharp-ls's implementation misses them). */
export const TYPE_HIERARCHY_MAX_NODES = 500;
// ---- Sextant's Roslyn host (server/src/semantic/roslyn/) ----
/**
 * Working-set cap handed to the Roslyn host; beyond it the host evicts least-recently-used
 * projects. Default sized for a 24 GiB machine (leaves room for the engine, the editor and a
 * build); `SEXTANT_ROSLYN_MEMORY_MB` overrides it.
 */
export const ROSLYN_HOST_MEMORY_CAP_MB = 8_192;
/** The host's `initialize` must answer within this (the .NET runtime start is ~0.3 s; a busy machine is slower). */
export const ROSLYN_HOST_INITIALIZE_TIMEOUT_MS = 30_000;
/**
 * A host request running this long past its caller's deadline means the host is stuck: it is
 * killed and restarted (a cancelled request that still answers in time keeps the host).
 */
export const ROSLYN_HOST_HANG_GRACE_MS = 60_000;
/**
 * A request the host goes on with past its deadline (a cold compile kept for the next questions)
 * is not hung while the host answers `status` (it does at once, outside its queue): checked once
 * per grace period, this many times (~4 min), then killed as hung.
 */
export const ROSLYN_HOST_HANG_PROBES = 4;
/** Restart backoff after a crash or a hang: base, doubled per crash in the window, capped. */
export const ROSLYN_HOST_BACKOFF_BASE_MS = 250;
export const ROSLYN_HOST_BACKOFF_MAX_MS = 30_000;
/** More crashes than this within the window and the host is left failed until the window passes. */
export const ROSLYN_HOST_MAX_RESTARTS_PER_WINDOW = 5;
export const ROSLYN_HOST_RESTART_WINDOW_MS = 10 * 60 * 1000;
/** shutdown gets this long before the host is killed. */
export const ROSLYN_HOST_SHUTDOWN_GRACE_MS = 2_000;
/** Project descriptions sent in one projects/ensure (larger sets go in batches, so progress and deadlines are seen). */
export const ROSLYN_ENSURE_BATCH_PROJECTS = 64;
/**
 * Candidate projects one use question (references, implementations, callers, subtypes) loads at
 * most; beyond it the answer is precise_partial with the counts. Far above the 400 dependents of
 * a bottom-layer type in the generated 3,000-project workspace.
 */
export const ROSLYN_MAX_CANDIDATE_PROJECTS = 3_500;
/** Generated files (under obj/…/generated, and *.g.cs) listed per project; a project with more keeps the first ones and says so. */
export const ROSLYN_GENERATED_FILES_MAX_PER_PROJECT = 2_000;
/** Folders visited while listing one project's intermediate output folder for generated files. */
export const ROSLYN_GENERATED_DIRS_MAX_PER_PROJECT = 500;
/** Implementations of an interface member asked for their own overrides, at most (one host query each). */
export const ROSLYN_OVERRIDE_WALK_MAX_MEMBERS = 50;
/** Callers: levels of a member's overridden chain whose projects are searched for calls through a base member (chains are 1-3 deep in practice). */
export const ROSLYN_OVERRIDE_CHAIN_MAX_DEPTH = 6;
/**
 * Background start of the Roslyn host: the most depended-on projects compiled once every
 * description is known (bottom-layer projects every question near them needs), stopped earlier at
 * half the memory cap.
 */
export const ROSLYN_PREWARM_COMPILE_PROJECTS = 32;
/**
 * Descriptions per projects/ensure in the background start: at most the host's in-place growth
 * size (roslyn/PROTOCOL.md: a call adding more than 48 new projects rebuilds the solution and drops
 * every compiled project; one call of all 3,000 took ~20 s, which a question would wait behind).
 */
export const ROSLYN_PREWARM_ENSURE_BATCH_PROJECTS = 48;
/**
 * Background describing between two yields to the event loop, in ms (each description is an MSBuild
 * evaluation: a few ms on an idle machine, 100 ms and more at load 20, so a count of projects per
 * slice held a question for seconds): a question arriving meanwhile waits at most about this long.
 */
export const ROSLYN_PREWARM_DESCRIBE_SLICE_MS = 20;
/** How often background work checks whether a question is still in flight. */
export const ROSLYN_PREWARM_IDLE_POLL_MS = 100;
/** One background step (the one-call ensure of every description; one compile) may take this long. */
export const ROSLYN_PREWARM_STEP_TIMEOUT_MS = 180_000;
/** Until the project model exists the background start checks again this often. */
export const ROSLYN_PREWARM_POLL_MS = 1_000;
/**
 * References searches kept per host process (rows per searched project, so asking again searches
 * only the projects not searched yet; semantic/roslyn/searchProgress.ts). A wide one holds ~1 row
 * per mentioning file (hundreds of KB at most); the least recently asked go first.
 */
export const ROSLYN_SEARCHES_KEPT = 32;
/**
 * A references search cut at its deadline goes on between questions (the background continuation)
 * once no question has come for this long: an agent asking again at once is served by the ask itself,
 * and a continuation step started just before it would only be cancelled.
 */
export const ROSLYN_CONTINUE_QUIET_MS = 500;
/** Projects one background continuation step searches (a question cancels a step: small enough to lose little). */
export const ROSLYN_CONTINUE_STEP_PROJECTS = 32;
/** A continuation step's host deadline (it answers with the projects it reached, kept). */
export const ROSLYN_CONTINUE_STEP_MS = 8_000;
/**
 * A multi-targeting declaring project is asked once per framework its dependents bind to; a later
 * framework's compilation (cold: seconds) is not asked with less than this left of the question's
 * time (its projects are reported not searched; a references search goes on in the background)...
 */
export const ROSLYN_VARIANT_MIN_LEFT_MS = 1_000;
/** ...and a later framework's wait ends this long before the question's, so the frameworks that answered make the answer. */
export const ROSLYN_VARIANT_ANSWER_MARGIN_MS = 300;
/** Continuation steps in a row that reach no project before a search waits for its next question (the host compiles on meanwhile). */
export const ROSLYN_CONTINUE_MAX_STALLS = 3;
/** Implementations of a type: rounds of adding dependents that mention a derived type found (a deeper hierarchy level each). */
export const ROSLYN_DERIVED_EXPANSION_MAX_ROUNDS = 8;
/** Declarations with a generator-written part whose parts in their project's other target frameworks are looked up per answer (a definition query each). */
export const ROSLYN_FRAMEWORK_PARTS_MAX_DECLARATIONS = 16;
/**
 * How long an answer waits for those parts (the other framework's first compile can take tens of
 * seconds on a big project; it goes on in the host, so the next ask has them): a few seconds, then
 * what was not looked at is a gap.
 */
export const ROSLYN_FRAMEWORK_PARTS_WAIT_MS = 3_000;
/** Unresolved packages/references named in one answer's note (the rest counted): enough to act on, short enough to read. */
export const ROSLYN_UNRESOLVED_NOTE_MAX_NAMES = 5;
/** Unresolved packages / blocking types named in an answer's "N mentions could not be bound" gap (the rest counted). */
export const ROSLYN_UNBOUND_GAP_MAX_NAMES = 4;
/** Time the host gets to answer `status` for doctor. */
export const ROSLYN_HOST_STATUS_TIMEOUT_MS = 5_000;
/** `--version` of a language server must answer within this (doctor). */
export const LSP_VERSION_PROBE_TIMEOUT_MS = 10_000;
/**
 * Requests dispatched over stdio and not yet answered; at the cap the transport stops reading
 * stdin. Pausing on queued bytes alone cannot bound a burst: one 64 KiB read holds hundreds of
 * small requests whose (large) answers are produced later, asynchronously.
 */
export const STDIO_MAX_INFLIGHT_REQUESTS = 32;
/**
 * Bytes of file contents kept in memory by the live-file cache. Entries are re-validated with
 * lstat (size, mtime, inode) on every use, so a hit is still "the file as it is on disk now".
 */
export const LIVE_CACHE_BYTES = 256 * 1024 * 1024;

// ---- VS Code extension connection (server/src/engineHost.ts) ----
/** Agent-activity rows kept by the engine for a freshly attached view (a ring; oldest dropped). */
export const ACTIVITY_RING_SIZE = 500;
/** Characters kept of each argument value in an agent-activity row (arguments can be long regexes). */
export const ACTIVITY_ARG_CHARS = 300;
/** Locations listed per agent-activity row (enough to click through; the answer has the rest). */
export const ACTIVITY_LOCATIONS = 10;
/** Minimum time between two status/progress notifications to the extension (the UI repaints). */
export const STATUS_NOTIFY_INTERVAL_MS = 250;
/** Nodes and edges drawn in the graph panel; more make an unreadable picture (the answer says truncated). */
export const GRAPH_MAX_NODES = 150;
export const GRAPH_MAX_EDGES = 400;
/** Call-graph depth the graph panel may ask for (each level is one call-hierarchy round per node). */
export const CALL_GRAPH_MAX_DEPTH = 3;
/** A lock file that cannot be parsed is left alone this long (its creator may be writing it). */
export const LOCK_WRITE_GRACE_MS = 2_000;
/** A second `sextant mcp` waits this long for a starting engine to publish its endpoint. */
export const ENGINE_ATTACH_WAIT_MS = 30_000;
/** `namespace` declarations namespace_layout collects through the text layer before reporting a lower bound. */
export const MAX_NAMESPACE_SCAN_HITS = 20_000;
/** Text hits config_lookup examines (before structural filtering) before reporting a lower bound. */
export const MAX_CONFIG_SCAN_HITS = 2_000;
/**
 * project_graph: node rows per page when no `limit` is given (a project's direct neighbours fit one
 * default 8 KiB answer), and the node cap of the walk (default and maximum of `maxNodes`).
 */
export const DEFAULT_GRAPH_NODES = 60;
export const MAX_GRAPH_NODES = 500;
/** dependency_path: shortest paths returned at most. */
export const MAX_DEPENDENCY_PATHS = 20;
/** Changed files below this count are parsed in the indexing thread (starting workers costs more). */
export const PARSE_WORKER_MIN_FILES = 32;
/** search_symbol: declaration rows counted per query for the total (after the page is full); beyond, the total is a lower bound. */
export const MAX_SYMBOL_COUNTED_ROWS = 1_000_000;
/** search_symbol's in-memory table: rows re-read for changed files before the whole table is rebuilt (or a quarter of it, if more). */
export const SYMBOL_TABLE_DELTA_MIN_ROWS = 50_000;
/**
 * Files whose symbol rows one step of the symbol table's build in slices reads (a file holds ~20
 * rows on real C#: ~10^4 rows, ~10-20 ms of sql.js stepping per step when quiet).
 */
export const SYMBOL_TABLE_READ_STEP_FILES = 500;
/** search_symbol: declaration spans listed per symbol id (a partial class in many files). */
export const MAX_SPANS_PER_SYMBOL = 10;
/** references: locations listed per group by default (the rest are counted; page or narrow for more). */
export const SEMANTIC_REFERENCES_PER_GROUP = 10;
/**
 * Fewest bytes one enriched reference location takes in an answer (JSON row with path, span,
 * project, snippet): groups beyond budget / this are not enriched (the byte budget would drop them).
 */
export const SEMANTIC_LOCATION_MIN_BYTES = 150;
/** callers / callees: deepest call-hierarchy walk a caller may ask for, and edges collected at most. */
export const SEMANTIC_CALLS_MAX_DEPTH = 3;
export const SEMANTIC_CALLS_MAX_EDGES = 200;
/** type_hierarchy: deepest walk and nodes collected at most. */
export const SEMANTIC_TYPE_HIERARCHY_MAX_DEPTH = 5;
export const SEMANTIC_TYPE_HIERARCHY_MAX_NODES = 200;
/**
 * Backtracking steps after which V8 re-runs a regex on its linear-time engine (every regex in the
 * engine process: language configs, tree-sitter predicates, project-file functions).
 */
export const REGEX_BACKTRACKS_BEFORE_FALLBACK = 50_000;
/** The token index is rebuilt when tombstoned documents exceed this and half the live ones. */
export const TEXT_GARBAGE_MIN_DOCS = 5_000;
/** Smallest byte budget a caller may request with `maxBytes` (room for one row and the envelope). */
export const MIN_RESPONSE_BYTES = 512;

// ---- tool definitions (tools/list) and server instructions ----
/**
 * name + description + inputSchema of every tool together: agents pay tool definitions in context on
 * every turn (some clients drop tools beyond a budget); later tools must fit too, so stay well below.
 */
export const TOOL_DEFINITIONS_MAX_BYTES = 16 * 1024;
/**
 * The 22 tools of issue 17 together (trimmed from 15,181 B) so that about nine more tools fit in
 * TOOL_DEFINITIONS_MAX_BYTES at NEW_TOOL_DEFINITION_MAX_BYTES each.
 */
export const CORE_TOOL_DEFINITIONS_MAX_BYTES = 12_000;
/**
 * name + description + inputSchema of one tool added after those 22: a short description (when to
 * use it, what it returns) and few parameters; prefer a parameter on an existing tool.
 */
export const NEW_TOOL_DEFINITION_MAX_BYTES = 450;
/** The whole tools/list result (titles, annotations and output schemas included). */
export const TOOLS_LIST_MAX_BYTES = 40 * 1024;
/**
 * The part of tools/list taken by the 23 tools of issue 17 (trimmed from 33,306 B): leaves room in
 * TOOLS_LIST_MAX_BYTES for about eight more tools at ~1.2 KB each (definition ≤
 * NEW_TOOL_DEFINITION_MAX_BYTES, output schema ~700 B, title and annotations).
 */
export const CORE_TOOLS_LIST_MAX_BYTES = 28 * 1024;
/** Server `instructions`: the workflow, read once per session. */
export const INSTRUCTIONS_MAX_CHARS = 1_000;
/** Some clients keep only this prefix of `instructions`: the workflow must stand alone within it. */
export const INSTRUCTIONS_SELF_CONTAINED_CHARS = 512;
/**
 * TS/JS headless host (server/src/semantic/tsprograms/): TypeScript language services (one per
 * tsconfig/jsconfig program) kept loaded at once, least recently used evicted first. A loaded
 * program holds its type checker (tens of MiB for a package of a few hundred files; source files
 * are shared between programs), and a monorepo question touches 10-50 of them (trpc: 50 programs,
 * 24 took 735 MiB); the heap budget below is what binds on a large one.
 */
export const TS_PROGRAMS_MAX_LOADED = 64;
/**
 * Programs one question searches at most (the target's own first, then those whose files mention
 * the name); the rest are named in the answer's gaps (`precise_partial`, reason `cap`).
 */
export const TS_PROGRAMS_MAX_PER_QUESTION = 128;
/**
 * Time kept back before a question's deadline: a program is not started with less left (building
 * one is synchronous and cannot be interrupted), and a search still running at half of it is
 * cancelled, so the partial answer (the programs searched by then) reaches the registry before it
 * gives up on the provider at the deadline.
 */
export const TS_PROGRAMS_DEADLINE_MARGIN_MS = 400;
/**
 * The TypeScript programs worker thread: programs are disposed (least recently used first) and no
 * more are built in the background while its heap is above this (a loaded program of a few hundred
 * files holds tens of MiB; 50 of a large monorepo reach ~1.5 GiB).
 */
export const TS_PROGRAMS_HEAP_BUDGET_MB = 2048;
/**
 * Hard heap limit of that thread (V8 old generation): past it the thread dies out of memory and the
 * next question starts a new one, instead of the engine process growing without bound.
 */
export const TS_PROGRAMS_WORKER_HEAP_MB = 4096;
/**
 * How long past a question's deadline the engine waits for the thread's reply (it stops starting
 * programs `TS_PROGRAMS_DEADLINE_MARGIN_MS` before the deadline; a build already running cannot be
 * interrupted) before answering `loading`.
 */
export const TS_PROGRAMS_REPLY_GRACE_MS = 100;
/** Test labelling: bytes read from the head of a TS/JS file to look for a test framework import. */
export const TEST_IMPORT_SCAN_BYTES = 16 * 1024;
/**
 * outline: a file whose signature rows (JSON) exceed this is outlined in the names form (one row
 * per type, members by name and span), so a 3,000-line file's whole map fits one 8 KiB answer.
 */
export const OUTLINE_SIGNATURES_MAX_BYTES = 6 * 1024;
/** outline names form: members listed on one row before the container continues on the next (one row stays ~2.5 KB). */
export const OUTLINE_MEMBERS_PER_ROW = 100;
/**
 * outline (form auto): the names form's rows (JSON) stay within this, so the whole answer (summary,
 * file, index meta) fits one default 8 KiB page. A file whose every member name does not fit gets
 * members listed round-robin over its types up to this and the rest counted as "+N more" per kind
 * (form "names" lists every one, paged). Measured: 250-350 declarations of real C# fit whole.
 */
export const OUTLINE_NAMES_MAX_BYTES = 6_656;
/** outline, summarised names form: container signatures longer than this are cut ("…"): 30 generic `Snapshot<T0, …, T29>` rows would fill the page. */
export const OUTLINE_SUMMARY_SIG_CHARS = 100;
/**
 * references (default grouping, no per_group): locations listed over all groups together, spread so
 * every group shows at least one before any shows two; ~24 enriched locations plus a row per group
 * fit the default 8 KiB answer, so the common question comes back whole (every group, its count).
 */
export const SEMANTIC_REFERENCES_SPREAD_LOCATIONS = 24;
/**
 * …and at most what fits this many bytes after one row per group (estimates: a group row without
 * locations, an enriched location with its target_ref): with many groups every group keeps its count
 * and fewer carry sample locations, never a group dropped for budget in the default answer.
 */
export const SEMANTIC_REFERENCES_SPREAD_BYTES = 5 * 1024;
export const SEMANTIC_GROUP_ROW_BYTES = 100;
export const SEMANTIC_LOCATION_ROW_BYTES = 300;
/** references: groups per page when no limit is given (a group without locations is ~100 bytes). */
export const SEMANTIC_REFERENCES_GROUPS_PER_PAGE = 50;
/**
 * file_dependencies: module references kept per file (a generated barrel can have thousands; past
 * this the file's list says truncated rather than growing the index without bound).
 */
export const MODULE_REFS_MAX_PER_FILE = 5_000;
/**
 * file_dependencies: files one answer's walk visits at most (a barrel imported everywhere can have
 * thousands of dependents; past this the answer says capped instead of building an unbounded list).
 */
export const FILE_DEPS_MAX_ROWS = 5_000;
/** file_dependencies: hops `depth` may ask for (deeper walks of a module graph reach most of a workspace anyway). */
export const FILE_DEPS_MAX_DEPTH = 8;
/**
 * file_dependencies on C#: distinct names of one file asked `definition` at most (a 2,000-line file
 * uses ~300; each is one provider question, a few ms on a warm Roslyn host).
 */
export const CSHARP_DEPS_MAX_QUESTIONS = 400;
/**
 * Synchronous work a long walk on the engine thread does between two yields to the event loop, in
 * ms (file_dependencies' hops: a parse and a text check per file; the heuristic provider's file
 * reads and symbol scans): other agents' questions wait at most about this long (a depth-5
 * dependents walk on the generated workspace held the engine thread 5.6 s in one piece).
 */
export const NAV_WORK_SLICE_MS = 10;
/**
 * Background work (symbol table prebuild, restore planning, the Roslyn host's background describing)
 * waits at most this long at a turn while cheap questions are in flight (core/timeSlice.ts): right
 * after the index was fresh on the 3,000-project workspace its slices ran between every await of
 * every cheap call (10-call medians 14-32 ms, ~9 once it was done). Bounded: it is delayed, never starved.
 */
export const BACKGROUND_WAIT_MAX_MS = 200;
/**
 * Heuristic subtypes: file ids per scan of the stored signatures (one indexed range of the row
 * table), with a turn for the event loop between scans (~40k files: ~80 scans of a few ms).
 */
export const HEURISTIC_SCAN_FILES_PER_QUERY = 512;
/**
 * The heuristic provider stops reading and scanning this long before its attempt's deadline and
 * answers what it found, with the gap: it yields now, so the attempt's timer can fire first, and
 * a slice at load 20 lasts a hundred ms and more (same-run bench: implementations answered
 * unavailable_no_precise, 0 rows, where the blocking scan had answered 8).
 */
export const HEURISTIC_ANSWER_MARGIN_MS = 250;
/**
 * When a heuristic attempt's deadline fires anyway (another agent's work held the thread past the
 * margin), the registry aborts it and waits this long for the rows it found so far: the provider
 * sees the abort at its next turn and answers at once (before, the attempt answered nothing —
 * shared_engine at load ~30: references unavailable_no_precise, 0 rows, where the base had 31).
 */
export const HEURISTIC_ABORT_GRACE_MS = 250;
/**
 * Out of time, the heuristic provider still reads the first this many files that mention the name
 * (a few ms), so an answer cut by the deadline is never empty while the name is used.
 */
export const HEURISTIC_MIN_READ_FILES = 32;
/** …asked this many at a time (the host answers in parallel; more only queues). */
export const CSHARP_DEPS_PARALLEL = 4;
/** file_dependencies on C#: names listed per row in `uses` (the row says which types/members; the rest are the same file). */
export const CSHARP_DEPS_USES_PER_ROW = 12;

// ---- expanded tools (issue 13 part 1): recent_changes, xml_doc, generated_for, attribute search ----
/** recent_changes: one git command's wall clock (a diff of a huge range must not hold the call past TOOL_DEADLINE_MS). */
export const RECENT_CHANGES_GIT_TIMEOUT_MS = 6_000;
/** recent_changes: stdout kept from one git command (a -U0 diff of ~10k changed files); past it the answer says narrow the scope. */
export const RECENT_CHANGES_GIT_MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
/**
 * recent_changes: below this many indexed files untracked files come from git's own walk (exact,
 * cheap on a small tree); from it on, from the index's files minus git's tracked ones (git's walk
 * of a 43k-file tree costs ~0.3 s idle, seconds on a loaded machine).
 */
export const RECENT_CHANGES_UNTRACKED_GIT_WALK_MAX_FILES = 5_000;
/**
 * recent_changes: the hunk / status / unstaged diffs name the files that differ from the base as
 * literal pathspecs up to this many (so they do not stat the whole tree again); more (a mass
 * change) and they walk the tree (a command line of ~1k paths stays far below ARG_MAX).
 */
export const RECENT_CHANGES_PATHSPEC_MAX_FILES = 1_000;
/** recent_changes: commits walked for a `since` range (bounded history: a `since` years back stops here and says capped). */
export const RECENT_CHANGES_MAX_COMMITS = 1_000;
/** recent_changes: commits listed in the answer (the rest are counted). */
export const RECENT_CHANGES_COMMITS_LISTED = 10;
/** recent_changes: changed files mapped and listed (a mass rename would otherwise parse thousands of files). */
export const RECENT_CHANGES_MAX_FILES = 2_000;
/** recent_changes: declarations named per file row (the rest are counted as moreSymbols). */
export const RECENT_CHANGES_SYMBOLS_PER_FILE = 12;
/** recent_changes without git: indexed files stat'ed at most to find those changed since indexing. */
export const RECENT_CHANGES_MAX_STATS = 50_000;
/** recent_changes: mapping hunks stops this long before the tool deadline (the rest are listed unmapped). */
export const RECENT_CHANGES_DEADLINE_MARGIN_MS = 1_500;
/** Attribute arguments kept per attribute in the outline and index (`[Route("...")]`); longer lists are cut with "…". */
export const ATTRIBUTE_ARGS_MAX_CHARS = 120;
/** search_symbol attribute: declarations ranked per answer at most ([Fact] in a big test suite: tens of thousands); past it the answer says capped. */
export const ATTRIBUTE_SEARCH_MAX_ROWS = 20_000;
/** generated_for: .cs files walked under a project's obj/ at most (a big Razor/gRPC project writes hundreds; past it the answer says capped). */
export const GENERATED_FOR_MAX_OBJ_FILES = 2_000;
/** generated_for: bytes of one generated file read to find the partial types it declares (the Regex generator writes ~10 KB per pattern). */
export const GENERATED_FOR_MAX_FILE_BYTES = 2 * 1024 * 1024;
/** generated_for: rows per answer (producers, sources, outputs); the rest are counted. */
export const GENERATED_FOR_MAX_ROWS = 100;
/** search_symbol docs: lines of one doc comment read at most above a declaration (a license header is not a doc comment). */
export const XML_DOC_MAX_COMMENT_LINES = 200;
/** search_symbol docs: characters kept per doc text (summary, each param, …); longer ones end with "…". */
export const XML_DOC_MAX_CHARS = 600;
/** search_symbol docs: <inheritdoc/> hops followed (base of a base…). */
export const XML_DOC_INHERIT_DEPTH = 3;
/**
 * xml_doc's semantic fallback (provider documentation / hover) may run until this long before the
 * tool deadline: the rest shapes the answer, so a slow provider yields the syntax answer, labelled.
 */
export const XML_DOC_SEMANTIC_MARGIN_MS = 600;

// ─── diagnostics and batch forms (issue 13; owner diag) ───
/** diagnostics: files a language server is asked about per call (each is opened and waited for: ~0.1-1 s each with tsserver). */
export const DIAGNOSTICS_LSP_MAX_FILES = 40;
/** diagnostics: language-server files asked at once (pulled or waited for concurrently). */
export const DIAGNOSTICS_LSP_PARALLEL = 8;
/** diagnostics: a file's published diagnostics are taken once the server published nothing for any file for this long (tsserver publishes syntax, then semantic, then suggestion results; typescript-language-server re-asks 200 ms after a change). */
export const DIAGNOSTICS_PUBLISH_QUIET_MS = 500;
/**
 * diagnostics: the Roslyn host's own deadline for a project's diagnostics (protocol 4: it stops and
 * names the project not done) is this long before the provider's, for its reply to arrive (past
 * the provider's deadline the registry drops the whole answer).
 */
export const DIAGNOSTICS_ROSLYN_DEADLINE_MARGIN_MS = 700;
/** diagnostics: no C# project is asked with less host time than this left (a cut answer would bring nothing of it). */
export const DIAGNOSTICS_ROSLYN_MIN_QUERY_MS = 300;
/** diagnostics: C# projects the Roslyn host compiles per call (a cold compile is 0.2-3 s each). */
export const DIAGNOSTICS_ROSLYN_MAX_PROJECTS = 24;
/** diagnostics: rows kept per call (the host's own cap per query is 5,000; an agent reads the first page). */
export const DIAGNOSTICS_MAX_ROWS = 5_000;
/** diagnostics: files the syntax layer parses for parse errors per call (where no provider answered). */
export const DIAGNOSTICS_SYNTAX_MAX_FILES = 400;
/** Batch forms (targets / paths of definition, references, outline): entries per call; more is an Error (split the batch). */
export const BATCH_MAX_ENTRIES = 20;
// ---- context_pack and locate_code (issue 12 part 2: server/src/nav/agent/) ----
/**
 * context_pack: bytes counted per token for `maxTokens` (a pack may not exceed maxTokens × this in
 * bytes). Three is below what common tokenizers average on code (~3.5-4 bytes/token), so a pack
 * within the byte bound is within the token bound.
 */
export const CONTEXT_PACK_BYTES_PER_TOKEN = 3;
/** context_pack: precise gathers kept per engine for re-asks with another budget (one index version; each ~10-40 KB). */
export const CONTEXT_PACK_KEPT_ANSWERS = 16;
/** context_pack: lines of the definition's source span shown at most (a 5,000-line class is outline territory). */
export const CONTEXT_PACK_DEFINITION_MAX_LINES = 60;
/** context_pack: rows gathered per category before the budget picks (callers, tests, …; ranking needs a few more than shown). */
export const CONTEXT_PACK_ROWS_PER_CATEGORY = 40;
/** context_pack: caller edges asked of the call hierarchy (depth 1). */
export const CONTEXT_PACK_MAX_CALLER_EDGES = 60;
/** context_pack: config keys looked up at most (literals read by the definition), and config hits per key. */
export const CONTEXT_PACK_MAX_CONFIG_KEYS = 4;
export const CONTEXT_PACK_CONFIG_HITS_PER_KEY = 2;
/** context_pack: bytes kept free below the budget when packing (the index metadata can grow by a few digits between the packing and the answer). */
export const CONTEXT_PACK_MARGIN_BYTES = 48;
/** context_pack: paths in must_include_paths / exclude_paths at most. */
export const CONTEXT_PACK_MAX_PATH_FILTERS = 16;
/** locate_code: characters of a question (a sentence or two; a pasted stack trace belongs in symbol_at). */
export const LOCATE_MAX_QUESTION_CHARS = 500;
/** locate_code: hints per call, and characters per hint (more is a search, not a hint: refused). */
export const LOCATE_MAX_HINTS = 6;
export const LOCATE_MAX_HINT_CHARS = 200;
/** locate_code: answer bytes at most, text and JSON each (issue 24: a location packet an agent reads at every step, never source). */
export const LOCATE_MAX_ANSWER_BYTES = 2_560;
/** locate_code: bytes of LOCATE_MAX_ANSWER_BYTES left for what the tool layer adds (summary, index metadata, completeness). */
export const LOCATE_ENVELOPE_RESERVE_BYTES = 420;
/** locate_code: candidates and recommended reads returned at most. */
export const LOCATE_MAX_CANDIDATES = 3;
export const LOCATE_MAX_READS = 2;
/** locate_code: layers of an architecture map (inferred or from the workspace file), and search paths per layer. */
export const LOCATE_MAX_LAYERS = 7;
export const LOCATE_MAX_PATHS_PER_LAYER = 3;
/** locate_code: keywords per layer in the workspace file. */
export const LOCATE_MAX_KEYWORDS_PER_LAYER = 24;
/** locate_code: scopes (layers) searched per question. */
export const LOCATE_MAX_SCOPES = 3;
/** locate_code: symbol hits kept per scope and question term before ranking (discarded after). */
export const LOCATE_HITS_PER_SCOPE = 20;
/** locate_code: question terms searched at most (the longest first). */
export const LOCATE_MAX_TERMS = 5;
/** locate_code: bytes of the workspace layer file read at most (`sextant.layers.json`). */
export const LOCATE_LAYER_FILE_MAX_BYTES = 64 * 1024;
/** locate_code: how long a locator stays valid (seed 002: 15 minutes). */
export const LOCATE_LOCATOR_TTL_MS = 15 * 60 * 1000;
/** locate_code: refinements per locator at most. */
export const LOCATE_MAX_REFINEMENTS = 2;
/** locate_code: lines of a recommended read at most (a read is a span to open, not a file). */
export const LOCATE_READ_MAX_LINES = 80;
/** ranking (nav/ranking/): commits of the workspace's history read for churn and past subjects (a few years of a busy repository; ~2 MB of git log on efcore). */
export const RANK_HISTORY_COMMITS = 3_000;
/** ranking: the one git log is given this long (1-2 s on efcore under load). */
export const RANK_HISTORY_TIMEOUT_MS = 8_000;
/** ranking: a git log that timed out (a loaded machine: seen at load ~20 on MassTransit, 0.9 s quiet) is read again by a question this much later, and the ranking rebuilt with it. */
export const RANK_HISTORY_RETRY_MS = 30_000;
/** ranking: git log output read at most (3,000 commits of a monorepo can list many files). */
export const RANK_HISTORY_MAX_OUTPUT_BYTES = 48 * 1024 * 1024;
/** ranking: bytes of a file scanned for words at most (a generated 4 MB file adds nothing a question finds). */
export const RANK_SCAN_MAX_FILE_BYTES = 512 * 1024;
/**
 * ranking: files whose declared names one SQL read fetches while the ranking index is built (a
 * turn for the event loop between reads; one read of every row of efcore's 5,700 files held the
 * engine thread 1.4 s at load ~20).
 */
export const RANK_DECL_READ_FILES = 200;
/** ranking: locate_code stops waiting for a ranking index being built this long before its deadline (the answer still has to be shaped). */
export const RANK_ANSWER_RESERVE_MS = 500;
/**
 * ranking: distinct (stemmed) words of a question ranked at most, the first ones kept. A title has
 * 5-10; each word is one walk over its postings in every field, so a pasted paragraph or 150
 * distinct two-letter words (a fuzz input: 12.6 s vs 4.4 s for an ordinary question via the CLI on
 * efcore) cost many times an ordinary question for nothing a location needs.
 */
export const RANK_QUESTION_MAX_TERMS = 24;
/** ranking: identifiers spelled by a question looked up as declared names at most (one SQL lookup each). */
export const RANK_QUESTION_MAX_IDENTIFIERS = 8;
/** ranking: the first files the folder prior reorders (its lift can bring a file from there into the first three; fitted on the top 50). */
export const RANK_FOLDER_PRIOR_FILES = 50;
/** ranking: documents scored (priors, candidate rows) between two yield checks (a check is a clock read). */
export const RANK_DOCS_PER_STEP = 2_048;
/** ranking: a delta of changed files above this share of the base rebuilds the base (the delta is re-scanned on every change). */
export const RANK_DELTA_MAX_SHARE = 0.1;
// ─── related_tests / impact (nav/agent/) ──────────────────────────────────────
/** related_tests / impact: files whose declarations are kept per index version (a test search reads a few hundred test files). */
export const AGENT_FILE_SYMBOLS_CACHE_FILES = 2_000;
/** related_tests: caller hops walked to find tests that call the symbol's callers (depth 2 = a test calling a direct caller; deeper walks fan out fast). */
export const RELATED_TESTS_CALLER_DEPTH = 2;
/** …and the most related_tests may be asked for. */
export const RELATED_TESTS_MAX_CALLER_DEPTH = 3;
/**
 * related_tests: caller edges walked at most (one provider question per caller at depth 2: a logger
 * method's 100+ callers would spend the deadline there; the rest of the answer still comes from
 * references, and the walk's cut is named in `signals.callers`).
 */
export const RELATED_TESTS_CALLER_EDGES = 40;
/** related_tests: the caller walk stops after this long (one question per caller; the references already answered, the walk only adds tests of callers). */
export const RELATED_TESTS_CALLER_WALK_MS = 3_000;
/** related_tests: test files read for text mentions of the name at most (when precise references miss them, e.g. heuristic mode). */
export const RELATED_TESTS_TEXT_FILES = 300;
/** related_tests: rows one answer keeps at most (ranked; a widely used type is referenced by thousands of tests). */
export const RELATED_TESTS_MAX_ROWS = 500;
/** related_tests: of the test files ranked first by their evidence (testFileScore.ts), this many co-changed ones without rows give their tests as rows. */
export const RELATED_TESTS_COCHANGE_FILES = 5;
/** related_tests: test files named like the type (beyond its exact name + Tests) whose tests become rows. */
export const RELATED_TESTS_NAMED_FILES = 3;
/** related_tests: rows of one file before the next file's (a first page names several test files, not one file's every test; a page of C# rows holds ~7 within its byte budget). */
export const RELATED_TESTS_PER_FILE_TIER = 1;
/** related_tests: default rows per page (the common question wants the handful that matter). */
export const RELATED_TESTS_DEFAULT_LIMIT = 20;
/** git co-change: commits of the target's file read (recent history is what predicts which tests move with it). */
export const AGENT_COCHANGE_COMMITS = 200;
/** git co-change: the one git log is given this long (a cold pack on a big repo takes ~1 s). */
export const AGENT_COCHANGE_TIMEOUT_MS = 4_000;
/** git co-change: git log output read at most (200 commits of a monorepo sweep can list 100k files). */
export const AGENT_COCHANGE_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** impact: rows shown per section (the section's count is exact; drill in with the named tool). */
export const IMPACT_ROWS_PER_SECTION = 8;
/** impact: tests asked of related_tests for the tests section. */
export const IMPACT_TESTS = 10;
/** impact: dependent-project hops walked (transitive dependents beyond this are counted as cut). */
export const IMPACT_DEPENDENTS_DEPTH = 4;
/** Batch forms: entries asked at once (language servers and the Roslyn host answer several questions concurrently; more only queues). */
export const BATCH_PARALLEL = 4;
/** Batch references: locations listed per target without per_group, spread over its groups (a batch of 20 stays ~20 × 1.5 KB). */
export const BATCH_REFERENCES_LOCATIONS = 4;

// ---- precise facts: occurrence store, SCIP import/export (server/src/semantic/precise/) ----
/** Decoded SCIP documents kept in memory (estimated bytes): a wide question reads thousands; the catalog itself is all that stays resident otherwise. */
export const PRECISE_DECODED_CACHE_BYTES = 64 * 1024 * 1024;
/** Wire bytes of SCIP documents kept after a read (a question reads a candidate's bytes for its key, the symbol test and the decode). */
export const PRECISE_RAW_CACHE_BYTES = 16 * 1024 * 1024;
/** Index files the occurrence store keeps open (the last used): a question reads hundreds of documents, often several from one file (a CI shard holds thousands). */
export const PRECISE_OPEN_FILES_MAX = 64;
/** An imported document without Sextant's key is taken as current only when at least this share of its checkable occurrences spell their symbol's name at their range (an edit since shifts them). */
export const PRECISE_FOREIGN_MATCH_MIN_RATIO = 0.9;
/** Candidate documents one store answer reads at most; past it the question goes to the live providers (a name mentioned everywhere). */
export const PRECISE_MAX_CANDIDATE_DOCUMENTS = 50_000;
/** Changed or uncovered documents named in an answer's note. */
export const PRECISE_NOTE_MAX_PATHS = 3;
// Restore into Sextant's state (semantic/restore/): `dotnet restore` of projects that have no
// project.assets.json, with every output redirected under the index root.
/** Whether restore is on in a VS Code workspace the user trusted (`sextant.restore`; headless it is opt-in: `--restore`). */
export const RESTORE_IN_TRUSTED_WORKSPACE_DEFAULT = true;
/** Projects per `dotnet restore` run: NuGet restores a run's projects in parallel, and progress is said per run. */
export const RESTORE_BATCH_PROJECTS = 40;
/** One restore run is killed after this long (a feed that hangs must not hold the background forever). */
export const RESTORE_BATCH_MAX_MS = 300_000;
/** The whole restore stops starting runs after this long (a 3,000-project tree at ~1 s a project under load). */
export const RESTORE_TOTAL_MAX_MS = 1_800_000;
/** Restore progress (assets files written under the state folder) is counted at most this often. */
export const RESTORE_PROGRESS_POLL_MS = 1_000;
/** Restore output read per run (NuGet prints one line per unresolved package and project). */
export const RESTORE_MAX_OUTPUT_BYTES = 4 * 1024 * 1024;


/** Virtual documents (generated:/decompiled:): how long reading one may take when the call gives no deadline (a cold project runs its generators; a big framework type decompiles in ~1 s). */
export const VIRTUAL_DOCUMENT_DEADLINE_MS = 20_000;
/** Virtual documents kept per engine and index version (the outline and source_context after a definition read the same one). */
export const VIRTUAL_DOCUMENTS_KEPT = 16;
/** Persisted layer: quiet time (no semantic question) before the background pass resolves projects not persisted yet (questions go first). */
export const PRECISE_PERSIST_IDLE_MS = 60_000;
/** Persisted layer: memory cap of the background pass's own Roslyn host (MB; user-settable with SEXTANT_PRECISE_MEMORY_MB): beside the answering host, within the engine's target. */
export const PRECISE_PERSIST_HOST_MEMORY_MB = 1_536;
/** Persisted layer: nice value of the background pass's host process (it yields the CPU to everything else; SEXTANT_PRECISE_NICE). */
export const PRECISE_PERSIST_NICE = 10;
/** Persisted layer on the engine's own host: quiet time after a question before the next project's occurrences are asked (an agent's follow-up question usually comes within a second or two; a cancelled request is asked again, its compilation kept). */
export const PRECISE_PERSIST_LIVE_QUIET_MS = 2_000;
/** How long a definition/references/implementations question that comes while an engine is still reading its recorded facts (persisted, imported SCIP) waits for them (capped at half its deadline): a cold Roslyn host needs 10+ s; the catalogs of a 3,000-project workspace take a few seconds. */
export const PRECISE_LOAD_WAIT_MS = 4_000;
/** Roslyn host: C# projects a framework/package documentation id is tried in until one resolves it (each may compile a project; one whose package is not restored cannot). */
export const ROSLYN_METADATA_BIND_TRIES = 4;
/**
 * Files the text-index mentions cache keeps per index version (nav/textMentions.ts), counted over
 * every kept name: one wide question asks the same names several times (its scope plan, the
 * dependents, the precise facts' candidates), and a name the whole tree uses (an `ILogger`-like
 * interface: 28,831 files on the 3,000-project workspace) cost ~150 ms of engine thread per ask.
 */
export const TEXT_MENTIONS_KEPT_FILES = 200_000;
/**
 * Semantic rows decorated (project, class, declaration facts, snippet) between turns of the engine
 * thread (nav/semanticQueries.ts decorateSliced): 5,000 heuristic implementations decorated in
 * one piece held it 1.6 s. A step is one declaration lookup batch; the slice bounds the time.
 */
export const DECORATE_DECLARATIONS_PER_STEP = 16;
