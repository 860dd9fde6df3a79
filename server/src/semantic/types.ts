/**
 * Plain data exchanged by semantic providers. Shaped after the results of VS Code's
 * `vscode.execute*Provider` commands (Location / LocationLink, CallHierarchyItem,
 * TypeHierarchyItem, DocumentSymbol, SymbolInformation) so the editor backend maps 1:1, but with
 * workspace-relative POSIX paths and 1-based lines and columns. Columns count UTF-16 code units,
 * as in LSP and VS Code.
 */

/** A 1-based, end-exclusive range inside one file. */
export interface Span {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
}

/**
 * A place in the workspace. `path` is workspace-relative POSIX; when the target lies outside the
 * workspace (BCL metadata, a global type library) `external` is true and `path` is absolute.
 * The flat span is the identifier (LocationLink.targetSelectionRange, or Location.range);
 * `fullSpan` is the whole declaration when the provider gives it (LocationLink.targetRange).
 */
export interface SemanticLocation extends Span {
  path: string;
  external?: boolean;
  fullSpan?: Span;
}

/**
 * A reference row. `isDeclaration` is set when the provider can tell declarations from uses.
 * `related` marks a row that belongs to a related symbol rather than the target itself
 * (C#: a reference to the interface member a method implements, or to a sibling override) and
 * is only present when the caller asked for related rows.
 */
export interface ReferenceLocation extends SemanticLocation {
  isDeclaration?: boolean;
  related?: boolean;
}

/** LSP / VS Code symbol kinds by name (SymbolKind 1..26). */
export type SymbolKindName =
  | 'file'
  | 'module'
  | 'namespace'
  | 'package'
  | 'class'
  | 'method'
  | 'property'
  | 'field'
  | 'constructor'
  | 'enum'
  | 'interface'
  | 'function'
  | 'variable'
  | 'constant'
  | 'string'
  | 'number'
  | 'boolean'
  | 'array'
  | 'object'
  | 'key'
  | 'null'
  | 'enumMember'
  | 'struct'
  | 'event'
  | 'operator'
  | 'typeParameter'
  | 'unknown';

/**
 * A call- or type-hierarchy node (CallHierarchyItem / TypeHierarchyItem). The flat span is the
 * name (selectionRange); `fullSpan` the whole declaration. `origin` names the provider that
 * produced the item and `data` is that provider's opaque, JSON-serialisable token: pass the item
 * back unchanged to ask for its calls, supertypes or subtypes.
 */
export interface HierarchyItem extends SemanticLocation {
  name: string;
  kind: SymbolKindName;
  /** Container or signature detail (C#: the containing type or namespace). */
  detail?: string;
  origin?: string;
  data?: unknown;
  /** Further declarations of the same type (C# partial types); the item itself is the first. */
  partials?: SemanticLocation[];
}

/** A caller of an item and the call sites inside the caller (CallHierarchyIncomingCall). */
export interface IncomingCall {
  from: HierarchyItem;
  /** Call sites, in `from.path`. */
  sites: Span[];
}

/** A callee of an item and the call sites inside the item (CallHierarchyOutgoingCall). */
export interface OutgoingCall {
  to: HierarchyItem;
  /** Call sites, in the caller's file. */
  sites: Span[];
}

/** A node of a file outline (DocumentSymbol). */
export interface DocumentSymbolNode {
  name: string;
  kind: SymbolKindName;
  detail?: string;
  /** The whole declaration. */
  span: Span;
  /** The name. */
  selection: Span;
  children: DocumentSymbolNode[];
}

/** A workspace symbol search hit (SymbolInformation / WorkspaceSymbol). */
export interface WorkspaceSymbolRow {
  name: string;
  kind: SymbolKindName;
  containerName?: string;
  location: SemanticLocation;
}

/** A position in a workspace file: path workspace-relative POSIX, line and column 1-based. */
export interface SourcePosition {
  path: string;
  line: number;
  column: number;
}

const KIND_NAMES: readonly SymbolKindName[] = [
  'unknown',
  'file',
  'module',
  'namespace',
  'package',
  'class',
  'method',
  'property',
  'field',
  'constructor',
  'enum',
  'interface',
  'function',
  'variable',
  'constant',
  'string',
  'number',
  'boolean',
  'array',
  'object',
  'key',
  'null',
  'enumMember',
  'struct',
  'event',
  'operator',
  'typeParameter',
];

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
