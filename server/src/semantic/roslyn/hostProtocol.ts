/**
 * The TypeScript mirror of roslyn/PROTOCOL.md (authoritative; owner roslyn-host): JSON-RPC 2.0
 * between the engine and Sextant's own Roslyn host, LSP-style `Content-Length:` framing over the
 * host's stdin/stdout; stderr is log only. Request paths may be workspace-relative POSIX or
 * absolute; answer paths under the root are workspace-relative POSIX, others absolute with
 * `external: true`. Lines and columns 1-based, columns in UTF-16 units, spans end-exclusive.
 * Every method goes engine → host. Keep this file in step with PROTOCOL.md (protocolVersion).
 */

/** The protocol version this mirror was written against. */
export const HOST_PROTOCOL_VERSION = 9;

/** A project key: `<workspace-relative project path>|<target framework>` (opaque to the host). */
export type ProjectKey = string;

export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

export interface HostLocation extends Span {
  path: string;
  external?: boolean;
  /** protocol 5: a metadata declaration at a decompiled: path — assembly, package, signature, doc summary. */
  metadata?: { assembly: string; package?: string; signature?: string; summary?: string };
  /** The whole declaration (declarations only). */
  fullSpan?: Span;
  /** A document labelled generated, or one under obj/. */
  generated?: boolean;
  /**
   * Protocol 6 (references, definition) / 9 (the locations of implementations and typeHierarchy
   * rows): a mention or type Roslyn could not bind — an unresolved type in the way.
   */
  confidence?: 'unbound';
  /** The unresolved type that kept it from binding. */
  blockedBy?: string;
  /** Roslyn's CandidateReason when it had candidates. */
  candidateReason?: string;
}

export interface SymbolRef {
  name: string;
  kind: string;
  /** C# signature, e.g. "Task<int> Ns.Foo.Bar(string s)". */
  display?: string;
  docId: string | null;
  containerName?: string;
  /** Declaring project, when in source. */
  projectKey?: string;
  /** Declaring assembly, when from metadata. */
  assembly?: string;
  /** Source declarations: every partial part; [] for metadata. */
  locations: HostLocation[];
}

export type NotSearchedReason = 'unknownProject' | 'loadFailed' | 'deadline' | 'memoryCap' | 'error';

export interface Coverage {
  searched: ProjectKey[];
  notSearched: { key: ProjectKey; reason: NotSearchedReason; detail?: string }[];
  unresolvedInScope?: { projects: number; references: number };
}

export interface Stats {
  loadMs: number;
  searchMs: number;
  projectsLoaded: number;
  projectsEvicted: number;
  workingSetMb: number;
  gcHeapMb: number;
}

// ─── initialize ──────────────────────────────────────────────────────────────

export interface InitializeParams {
  workspaceRoot: string;
  memoryCapMb?: number;
  parentPid?: number;
  nugetPackagesFolder?: string;
}

export interface InitializeResult {
  protocolVersion: number;
  hostVersion: string;
  roslynVersion?: string;
  runtimeVersion?: string;
  dotnetRoot: string | null;
  sdkVersions?: string[];
  referencePacks?: { name: string; version: string; path: string }[];
  memoryCapMb?: number;
  /** protocol 5: names whose mention in a project's files turns on the SDK's generators for it (ProjectDescription.generatorTriggers). */
  generatorTriggers?: string[];
}

// ─── projects ────────────────────────────────────────────────────────────────

export interface GlobalUsing {
  name: string;
  alias?: string;
  static?: boolean;
}

export interface DocumentDescription {
  path: string;
  linkPath?: string;
  generated?: boolean;
}

/** What one project compiles for one target framework, from Sextant's own project model. */
export interface ProjectDescription {
  key: ProjectKey;
  projectPath: string;
  name: string;
  assemblyName: string;
  targetFramework: string;
  outputKind?: 'library' | 'exe' | 'winexe';
  langVersion?: string;
  nullable?: string;
  allowUnsafe?: boolean;
  checkForOverflow?: boolean;
  /** Final preprocessor symbols: the SDK's framework defines plus DefineConstants. */
  defines: string[];
  /** Implicit usings of the SDK (when enabled) and the project's <Using> items. */
  globalUsings: GlobalUsing[];
  /** protocol 7: assembly names the project's internals are visible to (InternalsVisibleTo items, as the SDK's AssemblyInfo). */
  internalsVisibleTo?: string[];
  /** Compile items (linked files included) and generated files present under obj/. */
  documents: DocumentDescription[];
  projectReferences: ProjectKey[];
  packageReferences: { id: string; version?: string }[];
  frameworkReferences: string[];
  /** <Reference HintPath> dll paths (absolute). */
  references: string[];
  /** Analyzer dll paths (absolute); the host reports missing ones. */
  analyzers: string[];
  assetsFile?: string;
  /** protocol 5: which of initialize's generatorTriggers the project's files mention (absent: every SDK generator runs). */
  generatorTriggers?: string[];
  hash: string;
}

export interface Unresolved {
  /** generator (protocol 5): a source generator that could not be loaded or threw; its output is missing */
  kind: 'package' | 'framework' | 'analyzer' | 'reference' | 'project' | 'generator';
  name: string;
  reason: string;
}

export interface EnsureResultRow {
  key: ProjectKey;
  status: 'loaded' | 'updated' | 'unchanged' | 'failed';
  documents: number;
  metadataReferences?: number;
  unresolved: Unresolved[];
  substitutions?: { kind: 'framework' | 'package'; name: string; wanted: string; used: string; reason: string }[];
  error?: string;
}

export interface EnsureResult {
  results: EnsureResultRow[];
  evicted: ProjectKey[];
  stats?: Stats;
}

export interface DocumentsChangedParams {
  changes: { path: string; kind: 'changed' | 'created' | 'deleted' }[];
}

// ─── query ───────────────────────────────────────────────────────────────────

export type QueryOp =
  | 'definition'
  | 'references'
  | 'implementations'
  | 'callers'
  | 'callees'
  | 'typeHierarchy'
  | 'symbolInfo'
  | 'documentation'
  | 'diagnostics';

export interface QueryParams {
  op: QueryOp;
  position?: { path: string; line: number; column: number; projectKey?: ProjectKey };
  symbol?: { docId: string; projectKey: ProjectKey };
  scope?: ProjectKey[];
  options?: {
    includeDeclaration?: boolean;
    includeRelated?: boolean;
    direction?: 'supertypes' | 'subtypes' | 'both';
    transitive?: boolean;
    deadlineMs?: number;
    maxItems?: number;
    /** references, callers (protocol 2): the only documents of the scope that can mention the name. */
    documents?: string[];
  };
}

export interface DefinitionRow extends HostLocation {
  projectKey?: ProjectKey;
  partialPart?: boolean;
  /** Protocol 5, a declaration an unbound name may mean (`confidence: "unbound"`): its docId. */
  definition?: string | null;
  confidence?: 'unbound';
  blockedBy?: string;
}

export interface ReferenceRow extends HostLocation {
  definition: string | null;
  related?: boolean;
  relation?: 'override' | 'overridden' | 'implementation' | 'implemented' | 'other';
  isDeclaration?: boolean;
  isImplicit?: boolean;
  isCandidate?: boolean;
  projectKey?: ProjectKey;
  /** Protocol 5: a mention of the name Roslyn could not bind (an unresolved type in the way). */
  confidence?: 'unbound';
  /** The unresolved type that kept it from binding (receiver, argument or the symbol's own signature). */
  blockedBy?: string;
  /** Roslyn's CandidateReason when the symbol was among its candidates (e.g. OverloadResolutionFailure). */
  candidateReason?: string;
}

export interface ImplementationRow extends SymbolRef {
  relation: 'implementation' | 'override' | 'derivedClass' | 'derivedInterface';
}

export interface CallerRow {
  from: SymbolRef;
  sites: HostLocation[];
  /** interface / base: the call binds to a member the symbol implements or overrides; implementation / override (protocol 6): to a member implementing or overriding it. */
  via?: 'interface' | 'base' | 'implementation' | 'override';
  /** The docId of that member. */
  viaSymbol?: string;
  /** Protocol 5: the caller names the method without calling it (a method group, nameof). */
  kind?: 'reference';
  /** Protocol 5: the sites are mentions Roslyn could not bind (see ReferenceRow.confidence). */
  confidence?: 'unbound';
  blockedBy?: string;
}

export interface CalleeRow {
  to: SymbolRef;
  sites: HostLocation[];
  callKind?: 'call' | 'construct' | 'property' | 'event' | 'methodReference';
  virtual?: boolean;
}

export interface TypeHierarchyRow extends SymbolRef {
  direction: 'supertype' | 'subtype';
  relation: 'base' | 'interface' | 'derivedClass' | 'derivedInterface' | 'implementation';
  depth: number;
}

/** The one row of `symbolInfo`. */
export interface SymbolInfoRow {
  symbol: SymbolRef;
  type?: SymbolRef;
  modifiers: string[];
  isFromSource: boolean;
  isGenerated?: boolean;
  signature: string;
  /** The member this one overrides (the nearest; ask again for the rest of the chain). */
  overridden?: SymbolRef;
  /** Interface members this member implements (a type: its direct interfaces). */
  implements: SymbolRef[];
  /** Protocol 3 (members): the whole overridden chain, nearest first (no locations). */
  overriddenChain?: SymbolRef[];
  /**
   * Protocol 3 (members): every source member a call can bind to and still dispatch here — the
   * overridden chain and the interface members each level implements, transitively (no locations).
   */
  dispatchers?: (SymbolRef & { via: 'interface' | 'base' })[];
  /**
   * Protocol 8 (a metadata class or interface): simple names of the metadata types of the
   * compilation's references that derive from or implement it (`BackgroundService` for
   * `IHostedService`): a workspace type deriving from one of them implements it without naming it.
   */
  metadataDerived?: string[];
  /** Protocol 8: metadataDerived stopped at the host's cap (more types derive from it). */
  metadataDerivedCut?: boolean;
}

export interface QueryResult<Row = unknown> extends Coverage {
  symbol: SymbolRef | null;
  /** Why `symbol` is null (e.g. "no symbol at position"). */
  reason?: string;
  items: Row[];
  truncated?: boolean;
  stats?: Stats;
  /** callers (protocol 2): the interface / base members the host followed calls through (no locations). */
  dispatchers?: SymbolRef[];
  /** callers (protocol 2): known projects the host added to the scope for them. */
  dispatchScope?: string[];
  /**
   * diagnostics of one document cut by `deadlineMs` (protocol 4): its syntax (parse) diagnostics
   * only; its project is in `notSearched` with reason "deadline".
   */
  syntaxOnly?: boolean;
  /** references / callers of a metadata symbol (protocol 5): its assembly; of the scope's `known` projects, `referencing` compile against it (the others count as searched). */
  metadataScope?: { assembly: string; referencing: number; known: number };
  /** definition (protocol 6): a declaration Roslyn expects is missing (a partial member's implementing part, a generator's). */
  incomplete?: string;
  /** protocol 5: source generators of the question's project that threw while it compiled (their output is missing). */
  generatorFailures?: { projectKey: ProjectKey; generator: string; error: string }[];
  /** A position whose name did not bind (protocol 6); `symbol`, when set, is Roslyn's candidate. */
  unbound?: UnboundInfo;
}

export interface UnboundInfo {
  name: string;
  /** The unresolved type in the way (receiver or argument). */
  blockedBy?: string;
  /** Roslyn's CandidateReason when it had candidates. */
  candidateReason?: string;
}

export interface StatusResult {
  knownProjects: number;
  loadedProjects: number;
  documents: number;
  workingSetMb: number;
  gcHeapMb: number;
  memoryCapMb: number;
  evictions: number;
  uptimeMs: number;
  queries: number;
}

/** JSON-RPC error codes of the host. */
export const HostErrorCodes = {
  cancelled: -32800,
  notInitialized: -32002,
  documentNotInWorkspace: -32010,
  documentMissing: -32011,
  unknownProject: -32012,
  symbolNotFound: -32013,
  internal: -32603,
} as const;

/** Method names. */
export const HostMethods = {
  initialize: 'initialize',
  ensure: 'projects/ensure',
  evict: 'projects/evict',
  documentsChanged: 'documents/changed',
  /** protocol 5: the text of a virtual document (generated:… / decompiled:…). */
  documentsSource: 'documents/source',
  /** Every occurrence of a project's documents as SCIP describes them (Occurrences.cs; semantic/precise/). */
  occurrences: 'occurrences',
  query: 'query',
  status: 'status',
  shutdown: 'shutdown',
  exit: 'exit',
} as const;

/** `occurrences`: one document's occurrences (PROTOCOL.md; 10 numbers per occurrence in `occ`). */
export interface HostDocumentOccurrences {
  path: string;
  /** sha1 of the bytes on disk when they are what the host compiled ('' when unreadable or stale); a generator's document: of its text. */
  sha1: string;
  /** The file on disk is not the text the host compiled (a change not pushed to it yet). */
  stale?: boolean;
  symbols: string[];
  occ: number[];
  infos: { symbol: number; kind: string; display: string; relations: { symbol: number; kind: string }[] }[];
  deps: string[];
  /** A source generator's document (path `generated:…`). */
  generated?: boolean;
}
export interface OccurrencesResult {
  documents: HostDocumentOccurrences[];
  notDone: string[];
  reason?: string;
  stats?: Stats;
}

/** `documents/source` (protocol 5): a virtual document's text, or why there is none. */
export interface SourceParams {
  path: string;
  deadlineMs?: number;
}

/** Where a metadata assembly came from (decompiled documents, metadata definitions). */
export interface MetadataOrigin {
  assembly: string;
  assemblyVersion: string;
  package?: string;
  packageVersion?: string;
  /** package | framework (an SDK targeting pack) | reference (another file) */
  kind: 'package' | 'framework' | 'reference';
  file: string;
}

export interface SourceResult {
  path: string;
  text?: string;
  kind?: 'generated' | 'decompiled';
  projectKey?: ProjectKey;
  generator?: string;
  origin?: MetadataOrigin;
  reason?: string;
}
