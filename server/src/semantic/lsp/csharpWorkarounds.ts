/**
 * Work-arounds for csharp-ls's known gaps (../shared/notes/csharp-ls.md), each derived from the
 * server's own compiler answers so the result stays precise:
 *
 * - references cascade (a query on `Circle.Area` also returns every use of `IShape.Area` and the
 *   sibling `Square.Area`): detected by comparing references with and without declarations, then
 *   each use is checked with a definition lookup and kept only when it resolves to the target.
 * - implementation of a virtual/abstract member returns no overrides: the related declarations
 *   from the reference cascade whose containing type derives from the target's type are added.
 * - incoming calls miss calls through interface or base members: reported as a gap.
 */
import type * as lsp from 'vscode-languageserver-protocol';
import { CSHARP_CASCADE_CHECK_CONCURRENCY, CSHARP_CASCADE_CHECK_MAX_ROWS, TYPE_HIERARCHY_MAX_NODES } from '../../core/limits';
import type { ReferenceQuery } from '../provider';
import type { ReferenceLocation, SemanticLocation, SourcePosition } from '../types';
import { locationKey, TYPE_KINDS } from '../types';
import { toLocations, toLspPosition } from './convert';
import { Session, type SymbolPath } from './session';

/** Stop checking cascaded rows this long before the deadline, to leave time for the answer. */
const CHECK_MARGIN_MS = 250;

/** What a C# symbol's references say about related symbols. */
export interface CascadeInfo {
  /** References including declarations (all cascaded symbols). */
  withDeclarations: SemanticLocation[];
  /** Keys of rows that are declarations (present only with includeDeclaration). */
  declarationKeys: Set<string>;
  /** The target's own declaration spans (definition). */
  ownDefinitions: SemanticLocation[];
  ownKeys: Set<string>;
  /** Declarations of related symbols (interface members, overrides, siblings). */
  relatedDeclarations: SemanticLocation[];
  /** The target's document symbol and ancestors, when found. */
  target: SymbolPath | undefined;
}

export type Derived<T> = { value: T; gaps: string[] } | null;

/** References both ways plus the definition; null when csharp-ls has no document for the file. */
export async function cascadeInfo(s: Session, p: SourcePosition, includeDeclaration = true): Promise<CascadeInfo | null> {
  const defs = await s.definition(p);
  const ownDefinitions = (defs ?? []).filter((d) => !d.external);
  const ownKeys = new Set(ownDefinitions.map(locationKey));
  const target = ownDefinitions[0] ? await s.symbolAt(ownDefinitions[0]) : undefined;
  if (target && TYPE_KINDS.has(target.symbol.kind)) {
    // A type cascades only to its constructors, whose uses name the type: one request is enough;
    // its declarations are the type's own spans (constructor declarations count as references).
    const withDecl = await s.references(p, includeDeclaration);
    if (withDecl === null) return null;
    return { withDeclarations: withDecl, declarationKeys: new Set(ownKeys), ownDefinitions, ownKeys, relatedDeclarations: [], target };
  }
  const [withDecl, noDecl] = await Promise.all([s.references(p, true), s.references(p, false)]);
  if (withDecl === null) return null;
  const useKeys = new Set((noDecl ?? []).map(locationKey));
  const declarationKeys = new Set(withDecl.map(locationKey).filter((k) => !useKeys.has(k)));
  const relatedDeclarations = withDecl.filter((l) => declarationKeys.has(locationKey(l)) && !ownKeys.has(locationKey(l)));
  return { withDeclarations: withDecl, declarationKeys, ownDefinitions, ownKeys, relatedDeclarations, target };
}

/** Exact references of the target (related rows only on request, labelled). */
export async function csharpReferences(s: Session, q: ReferenceQuery): Promise<Derived<ReferenceLocation[]>> {
  const info = await cascadeInfo(s, q, q.includeDeclaration);
  if (!info) return null;
  const gaps: string[] = [];
  const rows: ReferenceLocation[] = info.withDeclarations.map((l) => {
    // Both ways: a row known to be a use needs no declaration lookup downstream.
    return { ...l, isDeclaration: info.declarationKeys.has(locationKey(l)) };
  });
  // Types cascade only to their constructors, whose uses name the type: nothing to separate.
  const isType = info.target !== undefined && TYPE_KINDS.has(info.target.symbol.kind);
  if (info.relatedDeclarations.length > 0 && !isType) {
    const relatedKeys = new Set(info.relatedDeclarations.map(locationKey));
    for (const r of rows) if (relatedKeys.has(locationKey(r))) r.related = true;
    const uses = rows.filter((r) => !r.isDeclaration);
    const toCheck = uses.slice(0, CSHARP_CASCADE_CHECK_MAX_ROWS);
    let unchecked = uses.length - toCheck.length;
    let next = 0;
    const worker = async () => {
      while (next < toCheck.length) {
        const row = toCheck[next++]!;
        if (s.remainingMs() < CHECK_MARGIN_MS || s.signal.aborted) {
          unchecked++;
          continue;
        }
        const defs = await s.definition(row).catch(() => null);
        if (defs === null) {
          unchecked++;
          continue;
        }
        if (!defs.some((d) => info.ownKeys.has(locationKey(d)))) row.related = true;
      }
    };
    await Promise.all(Array.from({ length: CSHARP_CASCADE_CHECK_CONCURRENCY }, worker));
    if (unchecked > 0) {
      gaps.push(`${unchecked} reference(s) could not be checked against related members (interface/override cascade) in time; they may belong to a related member`);
    }
  }
  let out = q.includeRelated ? rows : rows.filter((r) => !r.related);
  if (!q.includeDeclaration) out = out.filter((r) => !r.isDeclaration);
  return { value: out, gaps };
}

/** Implementations, with the overrides csharp-ls leaves out for virtual and abstract members. */
export async function csharpImplementations(s: Session, p: SourcePosition): Promise<Derived<SemanticLocation[]>> {
  const [raw, info] = await Promise.all([
    s.send<lsp.Definition | lsp.LocationLink[] | null>('textDocument/implementation', s.textDocumentPosition(p)),
    cascadeInfo(s, p),
  ]);
  if (raw === null && info === null) return null;
  const found = toLocations(s.uris, raw);
  if (!info?.target || TYPE_KINDS.has(info.target.symbol.kind)) {
    return { value: dedupe(found.filter((l) => !info?.ownKeys.has(locationKey(l)))), gaps: [] };
  }
  const gaps: string[] = [];
  const containing = Session.containingType(info.target);
  const targetPath = info.ownDefinitions[0]!.path;
  if (containing && info.relatedDeclarations.length > 0) {
    const targetTypes = await prepareTypes(s, { path: targetPath, line: containing.selection.line, column: containing.selection.column });
    const targetKeys = new Set(targetTypes.map(typeKey));
    const walk = new SupertypeWalk(s);
    for (const r of info.relatedDeclarations) {
      if (r.external) continue;
      const sp = await s.symbolAt(r);
      const ct = sp ? Session.containingType(sp) : undefined;
      if (!ct) continue;
      const items = await prepareTypes(s, { path: r.path, line: ct.selection.line, column: ct.selection.column });
      if (await walk.reaches(items, targetKeys)) found.push(r);
    }
    if (walk.truncated) gaps.push(`type hierarchy walk stopped after ${TYPE_HIERARCHY_MAX_NODES} types; overrides further down may be missing`);
  }
  return { value: dedupe(found.filter((l) => !info.ownKeys.has(locationKey(l)))), gaps };
}

/** The gap to report on incoming calls of a member that has related members. */
export async function csharpIncomingCallsGap(s: Session, p: SourcePosition): Promise<string | undefined> {
  const info = await cascadeInfo(s, p).catch(() => null);
  if (!info || info.relatedDeclarations.length === 0) return undefined;
  if (info.target && TYPE_KINDS.has(info.target.symbol.kind)) return undefined;
  return `calls made through interface or base members are not included (csharp-ls reports direct callers only; ${info.relatedDeclarations.length} related declaration(s))`;
}

async function prepareTypes(s: Session, p: SourcePosition): Promise<lsp.TypeHierarchyItem[]> {
  const r = await s.send<lsp.TypeHierarchyItem[] | null>('textDocument/prepareTypeHierarchy', {
    textDocument: { uri: s.uris.toUri(p.path) },
    position: toLspPosition(p),
  });
  return r ?? [];
}

/** Identity of a type across partial declarations: csharp-ls gives the same name/detail/kind. */
function typeKey(t: lsp.TypeHierarchyItem): string {
  return `${t.kind}|${t.detail ?? ''}|${t.name}`;
}

/** Walks supertypes upward, memoised, bounded by TYPE_HIERARCHY_MAX_NODES. */
class SupertypeWalk {
  private readonly supers = new Map<string, Promise<lsp.TypeHierarchyItem[]>>();
  private visited = 0;
  truncated = false;

  constructor(private readonly s: Session) {}

  async reaches(start: lsp.TypeHierarchyItem[], targets: Set<string>): Promise<boolean> {
    const seen = new Set<string>();
    let frontier = start;
    while (frontier.length > 0) {
      const next: lsp.TypeHierarchyItem[] = [];
      for (const t of frontier) {
        const k = typeKey(t);
        if (seen.has(k)) continue;
        seen.add(k);
        // The start types themselves are not their own supertypes.
        if (!start.includes(t) && targets.has(k)) return true;
        if (++this.visited > TYPE_HIERARCHY_MAX_NODES) {
          this.truncated = true;
          return false;
        }
        next.push(...(await this.supertypes(t)));
      }
      frontier = next;
    }
    return false;
  }

  private supertypes(t: lsp.TypeHierarchyItem): Promise<lsp.TypeHierarchyItem[]> {
    const k = typeKey(t);
    let hit = this.supers.get(k);
    if (!hit) {
      hit = this.s.send<lsp.TypeHierarchyItem[] | null>('typeHierarchy/supertypes', { item: t }).then((r) => r ?? [], () => []);
      this.supers.set(k, hit);
    }
    return hit;
  }
}

function dedupe<T extends SemanticLocation>(list: T[]): T[] {
  const seen = new Set<string>();
  return list.filter((l) => {
    const k = locationKey(l);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
