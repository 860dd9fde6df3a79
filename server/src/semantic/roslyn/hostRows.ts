/**
 * The host's rows (PROTOCOL.md) as the engine's semantic types: locations, references, hierarchy
 * items carrying what is needed to ask the host about them again, and the keys rows are merged by.
 */
import type { HierarchyItem, ReferenceLocation, SemanticLocation, SymbolKindName } from '../types';
import { EDITOR_SYMBOL_KINDS } from '../../protocol/protocol';
import type { HostLocation, ReferenceRow, SymbolRef } from './hostProtocol';

export const ROSLYN_PROVIDER_ID = 'roslyn';

export const TYPE_KINDS = new Set(['class', 'interface', 'struct', 'enum']);

/** The data of a hierarchy item this provider made: enough to ask the host about it again. */
export interface ItemData {
  docId: string | null;
  projectKey?: string;
  /** A metadata symbol's item: the project it was found from (its documentation id binds there). */
  contextKey?: string;
}

export function locKey(l: { path: string; line: number; column: number }): string {
  return `${l.path}:${l.line}:${l.column}`;
}

export function symKey(s: SymbolRef): string {
  return `${s.docId ?? s.name}|${s.locations[0] ? locKey(s.locations[0]) : ''}`;
}

function kindName(k: string): SymbolKindName {
  return (EDITOR_SYMBOL_KINDS as readonly string[]).includes(k) ? (k as SymbolKindName) : 'unknown';
}

export function toSpan(l: { line: number; column: number; endLine: number; endColumn: number }): { line: number; column: number; endLine: number; endColumn: number } {
  return { line: l.line, column: l.column, endLine: l.endLine, endColumn: l.endColumn };
}

export function toLocation(l: HostLocation): SemanticLocation {
  const out: SemanticLocation = { path: l.path, line: l.line, column: l.column, endLine: l.endLine, endColumn: l.endColumn };
  if (l.external) out.external = true;
  if (l.fullSpan) out.fullSpan = toSpan(l.fullSpan);
  if (l.metadata) out.metadata = l.metadata;
  if (l.confidence === 'unbound') {
    out.confidence = 'unbound';
    if (l.blockedBy) out.blockedBy = l.blockedBy;
  }
  return out;
}

/** A location in a generator's document (`generated:…`) or a generated file under obj/. */
export const isGeneratedLocation = (l: HostLocation): boolean => l.generated === true || l.path.startsWith('generated:');

/**
 * An implementation or subtype is one symbol, listed at its hand-written parts: the parts a
 * generator adds to a partial type (LoggerMessage.g.cs, RegexGenerator.g.cs, one per framework)
 * belong to its definition, not to further rows. Only a symbol a generator writes whole keeps them.
 */
export function atHandWrittenParts<T extends SymbolRef>(s: T): T {
  const own = s.locations.filter((l) => !isGeneratedLocation(l));
  return own.length > 0 && own.length < s.locations.length ? { ...s, locations: own } : s;
}

/** The unbound rows of an implementations / subtypes answer (protocol 9), for the answer's gap. */
export function unboundTypes(rows: readonly SymbolRef[]): { projectKey?: string; blockedBy?: string }[] {
  return rows.filter((r) => r.locations.some((l) => l.confidence === 'unbound')).map((r) => ({ ...(r.projectKey ? { projectKey: r.projectKey } : {}), ...(r.locations[0]?.blockedBy ? { blockedBy: r.locations[0].blockedBy } : {}) }));
}

export function toReference(r: ReferenceRow): ReferenceLocation {
  const out: ReferenceLocation = toLocation(r);
  if (r.isDeclaration) out.isDeclaration = true;
  if (r.related) out.related = true;
  return out;
}

export function toItem(s: SymbolRef, fallback?: { path: string; line: number; column: number }, contextKey?: string): HierarchyItem {
  const loc = s.locations[0];
  const base: SemanticLocation = loc ? toLocation(loc) : { path: s.assembly ?? fallback?.path ?? s.name, line: fallback?.line ?? 1, column: fallback?.column ?? 1, endLine: fallback?.line ?? 1, endColumn: fallback?.column ?? 1, ...(fallback ? {} : { external: true }) };
  if (!loc && s.assembly) {
    // a metadata symbol not decompiled (past the first few of an answer): its assembly says where it is
    base.external = true;
    base.metadata = { assembly: s.assembly };
  }
  const data: ItemData = { docId: s.docId, ...(s.projectKey ? { projectKey: s.projectKey } : !loc?.path || loc.external ? (contextKey ? { contextKey } : {}) : {}) };
  const item: HierarchyItem = { ...base, name: s.name, kind: kindName(s.kind), origin: ROSLYN_PROVIDER_ID, data };
  if (s.containerName) item.detail = s.containerName;
  if (s.locations.length > 1) item.partials = s.locations.slice(1).map(toLocation);
  return item;
}
