/**
 * The custom messages between the Sextant engine and the VS Code extension, shared by both sides.
 *
 * Transport: the extension starts the engine with `vscode-languageclient` over node IPC
 * (`sextant ipc --workspace-root D`), so the connection also carries the LSP lifecycle
 * (`initialize` with {@link EngineInitOptions} as `initializationOptions`, `shutdown`, `exit`).
 * Everything else is one of the requests and notifications below; each says its direction.
 *
 * Data is plain JSON in editor terms: workspace-relative POSIX paths, 1-based lines and columns
 * (columns count UTF-16 code units, as VS Code does). The editor-bridge shapes below ARE the
 * engine's semantic types (server/src/semantic/types.ts re-exports them under its own names), so
 * the engine's `editor` provider hands them on unchanged.
 *
 * Invariant: this file imports only vscode-jsonrpc (message types) and nothing from the engine
 * above core; `src/` imports nothing else from the server.
 */
import { NotificationType, RequestType, RequestType0 } from 'vscode-jsonrpc';

/** Bumped on an incompatible change; both sides send theirs and refuse a mismatch. */
export const PROTOCOL_VERSION = 1;

// ───────────────────────────── lifecycle ─────────────────────────────

/** `initialize.params.initializationOptions`, extension → engine. Mirrors the `sextant.*` settings. */
export interface EngineInitOptions {
  protocolVersion: number;
  /** Absolute workspace folder the engine serves. */
  workspaceRoot: string;
  /** Absolute folder for the index and server.json (the extension's workspace storage by default). */
  indexRoot: string;
  /** Extra ignore globs (`sextant.exclude`). */
  exclude: string[];
  /** Languages with syntax/semantic layers (`sextant.languages`). */
  languages: string[];
  maxFileBytes: number;
  budget: { responseBytes: number; itemLimit: number; toolDeadlineMs: number };
  /** Register the editor semantic provider (`sextant.semantic.useEditorProviders`). */
  useEditorProviders: boolean;
  /** Per-language language-server command lines; empty: the engine's built-in choice. */
  lspCommands: Record<string, string[]>;
  /**
   * Restore C# projects without project.assets.json into the engine's state (`sextant.restore`;
   * the extension sends true only for a trusted workspace). Absent: off.
   */
  restore?: boolean;
  /** Port of the MCP HTTP endpoint on 127.0.0.1; 0 = random. */
  httpPort: number;
  /** Shown in agent activity ("vscode"). */
  clientName: string;
}

/** `initialize.result.serverInfo` carries name/version; this rides in `initialize.result.sextant`. */
export interface EngineInitResult {
  protocolVersion: number;
  /** The engine's MCP endpoint once it listens (also announced by {@link EndpointNotification}). */
  endpoint?: McpEndpoint;
}

// ───────────────────────────── status and progress ─────────────────────────────

/** The shared MCP Streamable HTTP endpoint of a workspace's engine. */
export interface McpEndpoint {
  /** `http://127.0.0.1:PORT/mcp` */
  url: string;
  /** Bearer token (≥ 256 bits, random); send as `Authorization: Bearer <token>`. */
  token: string;
  /** `<index-root>/server.json` that other clients read to attach. */
  serverJson: string;
  /** Engine process id. */
  pid: number;
}

/** Which semantic provider answers a language right now. */
export interface LanguageProviderStatus {
  language: string;
  /** `editor` | `lsp` | `heuristic` — the first ready provider in order, or the best loading one. */
  provider: string;
  state: 'ready' | 'loading' | 'failed' | 'absent';
  detail: string;
}

/** Readiness of one project (indexing is per project: the server answers during a partial index). */
export interface ProjectReadiness {
  /** Workspace-relative project file. */
  project: string;
  state: 'ready' | 'indexing' | 'pending' | 'failed';
  files: number;
}

/** A snapshot of the engine, for the status bar and the Index view. */
export interface EngineStatus {
  /** `starting` until the stored index is loaded; `indexing` during a refresh. */
  state: 'starting' | 'indexing' | 'ready' | 'error';
  /** Engine process id. */
  pid: number;
  workspaceRoot: string;
  indexRoot: string;
  index: {
    /** Snapshot token of the current index. */
    version: string;
    status: 'fresh' | 'stale' | 'partial' | 'building';
    head?: string;
    dirty?: number;
    files: number;
    /** ISO time of the last completed refresh. */
    lastRefresh?: string;
  };
  projects: ProjectReadiness[];
  languages: LanguageProviderStatus[];
  endpoint?: McpEndpoint;
  /** One line when `state` is `error`. */
  error?: string;
  /** How many MCP clients are attached (this window + HTTP sessions). */
  clients: number;
  /** Set when another engine already served this index root and this one only relays its endpoint. */
  attachedTo?: { pid: number };
}

/**
 * engine → extension. The engine's status changed (state, index version, provider readiness,
 * endpoint). Sent after `initialized` and on every change, at most a few times per second.
 */
export namespace EngineStatusNotification {
  export const method = 'sextant/status';
  export const type = new NotificationType<EngineStatus>(method);
}

/** Indexing progress. `phase: done` ends a refresh. */
export interface IndexProgress {
  phase: 'discover' | 'index' | 'finish' | 'persist' | 'done';
  done: number;
  total: number;
  /** Project being indexed, when known. */
  project?: string;
}

/** engine → extension. Indexing progress for the status bar (throttled by the engine). */
export namespace IndexProgressNotification {
  export const method = 'sextant/progress';
  export const type = new NotificationType<IndexProgress>(method);
}

/** engine → extension. The MCP endpoint started or moved; the MCP provider re-announces it. */
export namespace EndpointNotification {
  export const method = 'sextant/endpoint';
  export const type = new NotificationType<McpEndpoint>(method);
}

/** extension → engine. Current status (on attach, and for "Show Index Status"). */
export namespace EngineStatusRequest {
  export const method = 'sextant/getStatus';
  export const type = new RequestType0<EngineStatus, void>(method);
}

/** Result of a refresh. */
export interface ReindexResult {
  files: number;
  added: number;
  changed: number;
  deleted: number;
  durationMs: number;
  indexVersion: string;
}

/** extension → engine. Re-scan the workspace and re-index what changed (`full`: everything). */
export namespace ReindexRequest {
  export const method = 'sextant/reindex';
  export const type = new RequestType<{ full: boolean }, ReindexResult, void>(method);
}

// ───────────────────────────── agent activity ─────────────────────────────

/** A place an answer pointed at, clickable in the Agent activity view. */
export interface ActivityLocation {
  path: string;
  line: number;
  column?: number;
}

/** One MCP tool call, from any client. */
export interface AgentActivity {
  /** Monotonic per engine. */
  seq: number;
  /** ISO time the call started. */
  time: string;
  /** `vscode` (the editor's MCP client), `http:<clientInfo.name>`, `stdio:<clientInfo.name>`. */
  client: string;
  tool: string;
  /** The call's arguments, each value cut to a few hundred characters. */
  args: Record<string, unknown>;
  /** Navigation mode when the tool has one. */
  mode?: string;
  /** Bytes of the answer (structuredContent JSON). */
  bytes: number;
  durationMs: number;
  /** Rows the answer pointed at (first few). */
  locations: ActivityLocation[];
  /** `Error [CODE]: …` when the call failed. */
  error?: string;
}

/** engine → extension. A tool call finished (every client, not only this editor). */
export namespace AgentActivityNotification {
  export const method = 'sextant/activity';
  export const type = new NotificationType<AgentActivity>(method);
}

/** extension → engine. The recent calls (a bounded ring, newest last), for a freshly attached view. */
export namespace RecentActivityRequest {
  export const method = 'sextant/recentActivity';
  export const type = new RequestType<{ limit: number }, AgentActivity[], void>(method);
}

// ───────────────────────────── projects and graphs ─────────────────────────────

/** A project in the Projects view. */
export interface ProjectNode {
  /** Workspace-relative project file (`src/App/App.csproj`, `packages/a/package.json`). */
  path: string;
  name: string;
  /** As in the engine's project graph: `csharp` | `fsharp` | `vb` | `shared` | `node` | `tsconfig`. */
  kind: string;
  isTest: boolean;
  /** `partial` / `failed` when the project model could not evaluate everything (see `reasons`). */
  status: 'complete' | 'partial' | 'failed';
  reasons: string[];
  fileCount: number;
  /** Workspace-relative paths of the projects this one references. */
  references: string[];
  /** …and of the projects that reference this one. */
  dependents: string[];
  targetFrameworks?: string[];
  /** The project file exists but is not indexed (ignored, or in a folder excluded by default): not read, not broken. */
  notIndexed?: true;
}

/** A solution (or a Node workspace root) and its member projects. */
export interface SolutionNode {
  path: string;
  name: string;
  projects: string[];
}

/** extension → engine. All solutions and projects (Projects view). */
export namespace ProjectListRequest {
  export const method = 'sextant/projects';
  export const type = new RequestType0<{ solutions: SolutionNode[]; projects: ProjectNode[]; partial: boolean }, void>(method);
}

/** A node of a drawn graph. `path`/`line` make it clickable. */
export interface GraphNode {
  id: string;
  label: string;
  kind: string;
  path?: string;
  line?: number;
  column?: number;
  isTest?: boolean;
  /** The node the graph is centred on. */
  root?: boolean;
}

export interface GraphEdge {
  from: string;
  to: string;
  kind: string;
}

/** A bounded graph; `truncated` says a limit cut it. */
export interface GraphData {
  nodes: GraphNode[];
  edges: GraphEdge[];
  truncated: boolean;
  /** Navigation mode for call graphs (`precise`, `precise_partial`, …). */
  mode?: string;
  /** One line shown above the graph. */
  summary: string;
}

/** Project graph around a project. */
export interface ProjectGraphParams {
  /** Workspace-relative project file; omitted = the whole workspace (bounded). */
  project?: string;
  depth: number;
  direction: 'dependencies' | 'dependents' | 'both';
  include: { production: boolean; test: boolean };
}

/** extension → engine. The project graph for the graph panel. */
export namespace ProjectGraphRequest {
  export const method = 'sextant/projectGraph';
  export const type = new RequestType<ProjectGraphParams, GraphData, void>(method);
}

/** Call graph around the symbol at a position. */
export interface CallGraphParams {
  position: EditorPosition;
  depth: number;
  direction: 'incoming' | 'outgoing' | 'both';
}

/** extension → engine. The call graph for the graph panel (through the semantic registry). */
export namespace CallGraphRequest {
  export const method = 'sextant/callGraph';
  export const type = new RequestType<CallGraphParams, GraphData, void>(method);
}

// ───────────────────────────── editor semantic bridge ─────────────────────────────

/** A 1-based, end-exclusive range inside one file. */
export interface EditorSpan {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/** A position in a workspace file. */
export interface EditorPosition {
  path: string;
  line: number;
  column: number;
}

/**
 * A place. `path` is workspace-relative POSIX; outside the workspace `external` is true and
 * `path` is absolute (or a URI for non-file schemes). The flat span is the name
 * (LocationLink.targetSelectionRange or Location.range); `fullSpan` the whole declaration when
 * the provider gives it (LocationLink.targetRange).
 */
export interface EditorLocation extends EditorSpan {
  path: string;
  external?: boolean;
  fullSpan?: EditorSpan;
  /**
   * A framework or package declaration shown at a virtual `decompiled:` path (the Roslyn host):
   * its assembly, the package or targeting pack holding it, its signature and doc summary.
   */
  metadata?: EditorMetadataFacts;
  /** A mention of the name the compiler could not bind, or a declaration it may mean (an unresolved type in the way: `blockedBy`). */
  confidence?: 'unbound';
  blockedBy?: string;
}

/** What a metadata (framework / package) declaration is: assembly, package, signature, doc summary. */
export interface EditorMetadataFacts {
  /** `System.Net.Http 10.0.0.0` */
  assembly: string;
  /** `Microsoft.NETCore.App.Ref 10.0.12` (a targeting pack) or `Microsoft.Extensions.Logging.Abstractions 10.0.0` */
  package?: string;
  signature?: string;
  summary?: string;
}

/**
 * A reference row. `isDeclaration` is set when the provider can tell declarations from uses.
 * `related` marks a row that belongs to a related symbol rather than the target itself
 * (C#: a reference to the interface member a method implements, or to a sibling override) and
 * is only present when the caller asked for related rows.
 */
export interface EditorReference extends EditorLocation {
  isDeclaration?: boolean;
  related?: boolean;
}

/** LSP SymbolKind names, indexed by the LSP number (1..26; vscode.SymbolKind + 1); 0 is `unknown`. */
export const EDITOR_SYMBOL_KINDS = [
  'unknown', 'file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor', 'enum',
  'interface', 'function', 'variable', 'constant', 'string', 'number', 'boolean', 'array', 'object', 'key',
  'null', 'enumMember', 'struct', 'event', 'operator', 'typeParameter',
] as const;
export type EditorSymbolKind = (typeof EDITOR_SYMBOL_KINDS)[number];

/**
 * A CallHierarchyItem / TypeHierarchyItem. The flat span is the name (selectionRange); `fullSpan`
 * the whole declaration. `origin` names the provider that produced the item and `data` is that
 * provider's opaque, JSON-serialisable handle (the extension's: its VS Code item): pass the item
 * back unchanged to ask for its calls or super/subtypes.
 */
export interface EditorHierarchyItem extends EditorLocation {
  name: string;
  kind: EditorSymbolKind;
  /** Container or signature detail (C#: the containing type or namespace). */
  detail?: string;
  origin?: string;
  data?: unknown;
  /** Further declarations of the same type (C# partial types); the item itself is the first. */
  partials?: EditorLocation[];
}

/** A caller of an item and the call sites inside the caller (CallHierarchyIncomingCall). */
export interface EditorIncomingCall {
  from: EditorHierarchyItem;
  /** Call sites, in `from.path`. */
  sites: EditorSpan[];
  /** The calls bind to a member implementing / overriding the item (`bindsTo`: its qualified name). */
  via?: 'implementation' | 'override';
  bindsTo?: string;
  /** The caller names the method without calling it (a method group: `items.Select(Parse)`, `+= OnChanged`). */
  kind?: 'reference';
  /** The sites are mentions the compiler could not bind (`blockedBy`: the unresolved type in the way). */
  confidence?: 'unbound';
  blockedBy?: string;
}
/** A callee of an item and the call sites inside the item (CallHierarchyOutgoingCall). */
export interface EditorOutgoingCall {
  to: EditorHierarchyItem;
  /** Call sites, in the caller's file. */
  sites: EditorSpan[];
}
/** A node of a file outline (DocumentSymbol): `span` the whole declaration, `selection` the name. */
export interface EditorDocumentSymbol {
  name: string;
  kind: EditorSymbolKind;
  detail?: string;
  span: EditorSpan;
  selection: EditorSpan;
  children: EditorDocumentSymbol[];
}
/** A workspace symbol search hit (SymbolInformation / WorkspaceSymbol). */
export interface EditorWorkspaceSymbol {
  name: string;
  kind: EditorSymbolKind;
  containerName?: string;
  location: EditorLocation;
}

/**
 * A compiler or analyzer diagnostic (vscode.Diagnostic, an LSP Diagnostic, a Roslyn Diagnostic).
 * The span is the diagnostic's range; `code` its id (`CS0103`, `2304`); `source` who reported it
 * inside the provider (`ts`, `csharp`, an analyzer), when said.
 */
export interface EditorDiagnostic extends EditorSpan {
  path: string;
  severity: 'error' | 'warning' | 'info' | 'hint';
  message: string;
  code?: string;
  source?: string;
}

/**
 * Diagnostics of asked files. `unchecked`: asked files the provider has nothing for — the editor:
 * not open and never analysed (VS Code's TypeScript service analyses open files only); a headless
 * provider: files past its per-call cap or its deadline. The engine asks another provider for them.
 */
export interface EditorDiagnostics {
  rows: EditorDiagnostic[];
  unchecked?: string[];
}

/**
 * A symbol's documentation as a semantic provider holds it (xml_doc's fallback when the syntax layer
 * finds no doc comment or cannot resolve an `<inheritdoc/>`). `xml`: C# doc-comment XML (the Roslyn
 * host; `<inheritdoc/>` followed to the base it names, metadata included); `markdown` / `plaintext`:
 * the text of the provider's hover (an LSP server's `textDocument/hover`, VS Code's hover providers),
 * which may carry the signature as a code block. `inheritedFrom`: whose documentation it is when not
 * the symbol's own (a doc id or qualified name).
 */
export interface EditorDocumentation {
  text: string;
  format: 'xml' | 'markdown' | 'plaintext';
  inheritedFrom?: string;
}

/**
 * Every question the engine may ask the editor, with argument and result types; the op names and
 * shapes equal the engine's `SemanticRequestMap` (server/src/semantic/provider.ts).
 * Each maps to VS Code commands:
 * definition → `vscode.executeDefinitionProvider`; references → `executeReferenceProvider`;
 * implementation → `executeImplementationProvider`; typeDefinition → `executeTypeDefinitionProvider`;
 * prepareCallHierarchy / incomingCalls / outgoingCalls → `vscode.prepareCallHierarchy` /
 * `provideIncomingCalls` / `provideOutgoingCalls`; prepareTypeHierarchy / supertypes / subtypes →
 * `vscode.prepareTypeHierarchy` / `provideSupertypes` / `provideSubtypes`;
 * documentSymbols → `executeDocumentSymbolProvider`; workspaceSymbols → `executeWorkspaceSymbolProvider`;
 * diagnostics → `vscode.languages.getDiagnostics()` (what the editor holds now) for the given paths;
 * documentation → `vscode.executeHoverProvider` (null: no hover, or one without text beyond a signature).
 */
export interface EditorOpMap {
  definition: { args: EditorPosition; result: EditorLocation[] };
  references: { args: EditorPosition & { includeDeclaration: boolean }; result: EditorReference[] };
  implementation: { args: EditorPosition; result: EditorLocation[] };
  typeDefinition: { args: EditorPosition; result: EditorLocation[] };
  prepareCallHierarchy: { args: EditorPosition; result: EditorHierarchyItem[] };
  incomingCalls: { args: EditorHierarchyItem; result: EditorIncomingCall[] };
  outgoingCalls: { args: EditorHierarchyItem; result: EditorOutgoingCall[] };
  prepareTypeHierarchy: { args: EditorPosition; result: EditorHierarchyItem[] };
  supertypes: { args: EditorHierarchyItem; result: EditorHierarchyItem[] };
  subtypes: { args: EditorHierarchyItem; result: EditorHierarchyItem[] };
  documentSymbols: { args: { path: string }; result: EditorDocumentSymbol[] };
  workspaceSymbols: { args: { query: string }; result: EditorWorkspaceSymbol[] };
  diagnostics: { args: { paths: string[] }; result: EditorDiagnostics };
  documentation: { args: EditorPosition; result: EditorDocumentation | null };
}
export type EditorOp = keyof EditorOpMap;

export const EDITOR_OPS: readonly EditorOp[] = [
  'definition',
  'references',
  'implementation',
  'typeDefinition',
  'prepareCallHierarchy',
  'incomingCalls',
  'outgoingCalls',
  'prepareTypeHierarchy',
  'supertypes',
  'subtypes',
  'documentSymbols',
  'workspaceSymbols',
  'diagnostics',
  'documentation',
];

/** One bridge call: an op for a language, with a time limit the extension honours. */
export interface EditorQuery<K extends EditorOp = EditorOp> {
  op: K;
  /** VS Code language id of the file (`csharp`, `typescript`, …). */
  language: string;
  args: EditorOpMap[K]['args'];
  /** Milliseconds the extension may spend (including a stability re-check). */
  timeoutMs: number;
}

/**
 * The editor's answer — and every semantic provider's (server/src/semantic/provider.ts
 * ProviderOutcome). `ok` with non-empty `gaps` is a precise but partial answer (known coverage
 * gaps: a language service still loading, calls through interfaces not included); expected
 * trouble is a value: `unavailable` (`unsupported`: the provider does not serve the request or
 * language at all) or `error`.
 */
export type EditorAnswer<T> =
  | {
      kind: 'ok';
      value: T;
      gaps?: string[];
      /** Facts about a complete answer the reader should know (e.g. references a project could not resolve). */
      notes?: string[];
      /** Which extension answered, when VS Code says (`vscode.typescript-language-features`). */
      via?: string;
    }
  | { kind: 'unavailable'; state: 'loading' | 'failed' | 'absent' | 'unsupported'; reason: string }
  | { kind: 'error'; reason: string };

/**
 * engine → extension. Run one editor provider query and return plain data. The engine's
 * `editor` semantic provider sends this; the extension answers through `vscode.execute*`.
 */
export namespace EditorQueryRequest {
  export const method = 'sextant/editor/query';
  export const type = new RequestType<EditorQuery, EditorAnswer<unknown>, void>(method);
}

/** The editor's semantic readiness for one language. */
export interface EditorLanguageAvailability {
  language: string;
  state: 'ready' | 'loading' | 'absent';
  /** `ms-dotnettools.csharp 2.x`, `built-in TypeScript`, or why absent. */
  detail: string;
}

/**
 * extension → engine. The editor's providers changed (an extension activated or a language
 * service finished loading). Sent once after `initialized` and on every change.
 */
export namespace EditorAvailabilityNotification {
  export const method = 'sextant/editor/availability';
  export const type = new NotificationType<EditorLanguageAvailability[]>(method);
}

/**
 * LSP's `window/logMessage`: the engine's log lines, each with its level, so the extension's
 * output channel shows info as info (stderr lines would all show as errors).
 */
export namespace EngineLogNotification {
  export const method = 'window/logMessage';
  /** LSP MessageType: 1 error, 2 warning, 3 info, 5 debug. */
  export const type = new NotificationType<{ type: 1 | 2 | 3 | 4 | 5; message: string }>(method);
}
