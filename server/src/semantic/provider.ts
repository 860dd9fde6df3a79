/**
 * The contract every semantic backend implements (editor → lsp → heuristic), and the labels an
 * answer carries. A provider never throws for expected trouble: it returns a `ProviderOutcome`
 * saying what it knows (`ok`, possibly with coverage `gaps`), or why it could not answer.
 * Deadlines and cancellation reach it through `CallContext.signal`; the registry enforces them
 * even when a provider ignores the signal.
 */
import { EDITOR_OPS, type EditorAnswer, type EditorOpMap } from '../protocol/protocol';
import type { ReferenceLocation, SourcePosition } from './types';

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

/**
 * Every request a provider may serve, with its argument and result types: the editor bridge's
 * (protocol.ts EditorOpMap; each maps to a `vscode.execute*` command) but `typeDefinition`, with
 * `references` taking the engine's related-rows option.
 */
export interface SemanticRequestMap extends Omit<EditorOpMap, 'typeDefinition' | 'references'> {
  references: { args: ReferenceQuery; result: ReferenceLocation[] };
}

export type SemanticOp = keyof SemanticRequestMap;
export type OpArgs<K extends SemanticOp> = SemanticRequestMap[K]['args'];
export type OpResult<K extends SemanticOp> = SemanticRequestMap[K]['result'];

export const SEMANTIC_OPS: readonly SemanticOp[] = EDITOR_OPS.filter((op): op is SemanticOp => op !== 'typeDefinition');

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

/**
 * What a provider returns — the editor bridge's answer shape (protocol.ts EditorAnswer). Expected
 * failures are values: `ok` (with coverage `gaps`, which make a precise answer
 * `precise_partial`), `unavailable` (`unsupported`: this provider does not serve the request or
 * language at all), or `error`.
 */
export type ProviderOutcome<T> = EditorAnswer<T>;

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
