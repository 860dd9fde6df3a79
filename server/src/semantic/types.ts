/**
 * Plain data exchanged by semantic providers. These are the editor bridge's wire types
 * (protocol/protocol.ts), shaped after the results of VS Code's `vscode.execute*Provider` commands
 * (Location / LocationLink, CallHierarchyItem, TypeHierarchyItem, DocumentSymbol,
 * SymbolInformation), so the editor backend hands them on unchanged; named here in the engine's
 * terms. Paths are workspace-relative POSIX, lines and columns 1-based, columns in UTF-16 code
 * units, as in LSP and VS Code.
 */
import {
  EDITOR_SYMBOL_KINDS,
  type EditorDiagnostic,
  type EditorDiagnostics,
  type EditorDocumentSymbol,
  type EditorHierarchyItem,
  type EditorIncomingCall,
  type EditorLocation,
  type EditorOutgoingCall,
  type EditorPosition,
  type EditorReference,
  type EditorDocumentation,
  type EditorSpan,
  type EditorSymbolKind,
  type EditorWorkspaceSymbol,
} from '../protocol/protocol';

/** A 1-based, end-exclusive range inside one file. */
export type Span = EditorSpan;

/**
 * A place in the workspace; outside it (BCL metadata, a global type library) `external` is true
 * and `path` absolute. The flat span is the identifier; `fullSpan` the whole declaration.
 */
export type SemanticLocation = EditorLocation;

/** A reference row (`isDeclaration` when the provider can tell; `related` rows only on request). */
export type ReferenceLocation = EditorReference;

/** LSP / VS Code symbol kinds by name (SymbolKind 1..26). */
export type SymbolKindName = EditorSymbolKind;

/** A call- or type-hierarchy node; pass it back unchanged to ask for its calls or types. */
export type HierarchyItem = EditorHierarchyItem;

/** A caller of an item and the call sites inside the caller. */
export type IncomingCall = EditorIncomingCall;

/** A callee of an item and the call sites inside the item. */
export type OutgoingCall = EditorOutgoingCall;

/** A node of a file outline (DocumentSymbol). */
export type DocumentSymbolNode = EditorDocumentSymbol;

/** A compiler / analyzer diagnostic of a workspace file. */
export type SemanticDiagnostic = EditorDiagnostic;

/** A provider's diagnostics of asked files, with the asked files it has nothing for. */
export type SemanticDiagnostics = EditorDiagnostics;

/** A symbol's documentation from a semantic provider (doc-comment XML or hover text). */
export type SemanticDocumentation = EditorDocumentation;

/** A workspace symbol search hit. */
export type WorkspaceSymbolRow = EditorWorkspaceSymbol;

/** A position in a workspace file: path workspace-relative POSIX, line and column 1-based. */
export type SourcePosition = EditorPosition;

const KIND_NAMES: readonly SymbolKindName[] = EDITOR_SYMBOL_KINDS;

/** SymbolKind number (1..26, as in LSP and vscode.SymbolKind + 1) to its name. */
export function symbolKindName(kind: number): SymbolKindName {
  return KIND_NAMES[kind] ?? 'unknown';
}

/** Name back to the LSP SymbolKind number (unknown → 0). */
export function symbolKindNumber(name: SymbolKindName): number {
  const i = KIND_NAMES.indexOf(name);
  return i < 0 ? 0 : i;
}

/** Kinds that declare types (targets whose implementations are implementors and subclasses). */
export const TYPE_KINDS: ReadonlySet<SymbolKindName> = new Set(['class', 'interface', 'struct', 'enum']);

/** True when `pos` (1-based) lies within `span` (end-exclusive; an end position is inside). */
export function spanContains(span: Span, line: number, column: number): boolean {
  if (line < span.line || line > span.endLine) return false;
  if (line === span.line && column < span.column) return false;
  if (line === span.endLine && column > span.endColumn) return false;
  return true;
}

/** Stable key of a location, for de-duplication and set membership. */
export function locationKey(l: { path: string; line: number; column: number }): string {
  return `${l.path}:${l.line}:${l.column}`;
}
