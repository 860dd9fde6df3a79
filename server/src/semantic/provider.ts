/**
 * The contract every semantic backend implements (editor → lsp → heuristic), and the labels an
 * answer carries. A provider never throws for expected trouble: it returns a `ProviderOutcome`
 * saying what it knows (`ok`, possibly with coverage `gaps`), or why it could not answer.
 * Deadlines and cancellation reach it through `CallContext.signal`; the registry enforces them
 * even when a provider ignores the signal.
 */
import type {
  DocumentSymbolNode,
  HierarchyItem,
  IncomingCall,
  OutgoingCall,
  ReferenceLocation,
  SemanticLocation,
  SourcePosition,
  WorkspaceSymbolRow,
} from './types';

/** How an answer was produced. */
export type NavigationMode = 'precise' | 'precise_partial' | 'heuristic_no_precise' | 'unavailable_no_precise';

/** A provider's readiness for a language (or one project of it). */
export type Availability = 'ready' | 'loading' | 'failed' | 'absent';

export interface ProviderAvailability {
  state: Availability;
  /** One line for people: "csharp-ls loading Shapes.sln (2/3 projects)", "not installed". */
  detail: string;
  /** False when the backend has not been started yet (it starts on the first request). */
  started: boolean;
  /** Loading progress when the backend reports it. */
  progress?: { done: number; total: number };
}

/** `references` arguments. */
export interface ReferenceQuery extends SourcePosition {
  includeDeclaration: boolean;
  /**
   * Also return rows of related symbols (C#: the interface member a method implements, sibling
   * implementations), marked `related: true`. Off by default: rows are the target's own.
   */
  includeRelated?: boolean;
}

/** Every request a provider may serve, with its argument and result types. */
export interface SemanticRequestMap {
  definition: { args: SourcePosition; result: SemanticLocation[] };
  references: { args: ReferenceQuery; result: ReferenceLocation[] };
  implementation: { args: SourcePosition; result: SemanticLocation[] };
  prepareCallHierarchy: { args: SourcePosition; result: HierarchyItem[] };
  incomingCalls: { args: HierarchyItem; result: IncomingCall[] };
  outgoingCalls: { args: HierarchyItem; result: OutgoingCall[] };
  prepareTypeHierarchy: { args: SourcePosition; result: HierarchyItem[] };
  supertypes: { args: HierarchyItem; result: HierarchyItem[] };
  subtypes: { args: HierarchyItem; result: HierarchyItem[] };
  documentSymbols: { args: { path: string }; result: DocumentSymbolNode[] };
  workspaceSymbols: { args: { query: string }; result: WorkspaceSymbolRow[] };
}

export type SemanticOp = keyof SemanticRequestMap;
export type OpArgs<K extends SemanticOp> = SemanticRequestMap[K]['args'];
export type OpResult<K extends SemanticOp> = SemanticRequestMap[K]['result'];

export const SEMANTIC_OPS: readonly SemanticOp[] = [
  'definition',
  'references',
  'implementation',
  'prepareCallHierarchy',
  'incomingCalls',
  'outgoingCalls',
  'prepareTypeHierarchy',
  'supertypes',
  'subtypes',
  'documentSymbols',
  'workspaceSymbols',
];

/** Per-call limits handed to a provider. */
export interface CallContext {
  /** Aborted on deadline or caller cancellation; providers should stop work and return. */
  signal: AbortSignal;
  /** Epoch milliseconds after which the answer is no longer wanted. */
  deadline: number;
  /**
   * How long a provider may wait for a backend that is starting or loading before it reports
   * `loading` (bounded by the deadline). 0 = answer only if ready now (but start it if stopped).
   */
  waitForReadyMs: number;
  /** The project the caller cares about, when known (workspace-relative project file path). */
  project?: string;
}

/** What a provider returns. Expected failures are values. */
export type ProviderOutcome<T> =
  | {
      kind: 'ok';
      value: T;
      /**
       * Known coverage gaps of this answer ("calls through interface members are not included").
       * A non-empty list makes a precise answer `precise_partial`.
       */
      gaps?: string[];
    }
  | {
      kind: 'unavailable';
      /** `unsupported`: this provider does not serve the request or language at all. */
      state: 'loading' | 'failed' | 'absent' | 'unsupported';
      reason: string;
    }
  | { kind: 'error'; reason: string };

/** A semantic backend. */
export interface SemanticProvider {
  /** `editor`, `lsp`, `heuristic`, or a custom name. */
  readonly id: string;
  /** Precise providers are compiler-backed; heuristic ones are never labelled exact. */
  readonly precision: 'precise' | 'heuristic';
  /** True when the provider has a backend for `language` that can serve `op`. */
  supports(language: string, op: SemanticOp): boolean;
  /** Readiness for a language, or for one project of it. Cheap; never starts anything. */
  availability(language: string, project?: string): ProviderAvailability;
  request<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>>;
  /** Stops every backend process the provider owns. */
  dispose(): Promise<void>;
}
