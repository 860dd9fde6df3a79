/**
 * The `editor` semantic provider: asks the VS Code extension that started this engine to answer
 * with the editor's own language services (`sextant/editor/query`, see protocol.ts). Registered
 * in the `editor` slot of the semantic registry while an extension is connected, so it is tried
 * before the engine's own language servers.
 *
 * Invariant: no VS Code or LSP knowledge here; the extension does the `vscode.execute*` calls and
 * sends plain data in the engine's shapes (semantic/types.ts re-exports protocol.ts's wire types).
 */
import type { EditorAnswer, EditorLanguageAvailability, EditorOp, EditorQuery } from '../../protocol/protocol';
import type { CallContext, OpArgs, OpResult, ProviderAvailability, ProviderOutcome, SemanticOp, SemanticProvider } from '../provider';

/** Sends one query to the extension (ExtensionConnection.request with EditorQueryRequest.type). */
export type EditorQuerySender = (query: EditorQuery, signal: AbortSignal) => Promise<EditorAnswer<unknown>>;

/** Ops the editor bridge serves (every SemanticOp has an editor counterpart of the same name). */
const EDITOR_OP: Record<SemanticOp, EditorOp> = {
  definition: 'definition',
  references: 'references',
  implementation: 'implementation',
  prepareCallHierarchy: 'prepareCallHierarchy',
  incomingCalls: 'incomingCalls',
  outgoingCalls: 'outgoingCalls',
  prepareTypeHierarchy: 'prepareTypeHierarchy',
  supertypes: 'supertypes',
  subtypes: 'subtypes',
  documentSymbols: 'documentSymbols',
  workspaceSymbols: 'workspaceSymbols',
  diagnostics: 'diagnostics',
  documentation: 'documentation',
};

export class EditorProvider implements SemanticProvider {
  readonly id = 'editor';
  readonly precision = 'precise' as const;
  private languages = new Map<string, EditorLanguageAvailability>();

  constructor(private readonly send: EditorQuerySender) {}

  /** The extension's latest `sextant/editor/availability` notification. */
  setAvailability(list: readonly EditorLanguageAvailability[]): void {
    this.languages = new Map(list.map((l) => [l.language, l]));
  }

  supports(language: string, op: SemanticOp): boolean {
    const a = this.languages.get(language);
    return a !== undefined && a.state !== 'absent' && op in EDITOR_OP;
  }

  availability(language: string): ProviderAvailability {
    const a = this.languages.get(language);
    if (!a) return { state: 'absent', detail: `the editor reported no provider for ${language}`, started: false };
    return { state: a.state, detail: a.detail, started: a.state === 'ready' };
  }

  async request<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>> {
    const timeoutMs = Math.max(1, ctx.deadline - Date.now());
    const editorArgs = op === 'references' ? referenceArgs(args as OpArgs<'references'>) : args;
    let answer: EditorAnswer<unknown>;
    try {
      answer = await this.send({ op: EDITOR_OP[op], language, args: editorArgs as EditorQuery['args'], timeoutMs }, ctx.signal);
    } catch (e) {
      return { kind: 'error', reason: `the editor bridge failed: ${e instanceof Error ? e.message : String(e)}` };
    }
    switch (answer.kind) {
      case 'ok':
        return { kind: 'ok', value: answer.value as OpResult<K>, ...(answer.gaps?.length ? { gaps: answer.gaps } : {}) };
      case 'unavailable':
        return { kind: 'unavailable', state: answer.state, reason: answer.reason };
      default:
        return { kind: 'error', reason: answer.reason };
    }
  }

  async dispose(): Promise<void> {
    this.languages.clear();
  }
}

function referenceArgs(a: OpArgs<'references'>): { path: string; line: number; column: number; includeDeclaration: boolean } {
  // The editor returns the target's own references; related rows (includeRelated) are not asked for.
  return { path: a.path, line: a.line, column: a.column, includeDeclaration: a.includeDeclaration };
}
