/**
 * Merging two providers' answers to the same use question (references, implementations,
 * incoming calls, subtypes), deduplicated by location. Used inside VS Code: the editor's
 * TypeScript service searches only the programs of files it has open, so its answer is merged
 * with the engine's own host, which searches every program that can see the symbol.
 */
import type { OpResult, SemanticOp } from '../provider';
import type { HierarchyItem, IncomingCall, ReferenceLocation, SemanticLocation } from '../types';

/** Ops whose answers are merged (the use questions). */
export const MERGED_OPS: ReadonlySet<SemanticOp> = new Set<SemanticOp>(['references', 'implementation', 'incomingCalls', 'subtypes']);

const key = (l: { path: string; line: number; column: number }) => `${l.path}:${l.line}:${l.column}`;

/** `a` first (its rows keep their order and fields), then what only `b` has. */
export function mergeAnswers<K extends SemanticOp>(op: K, a: OpResult<K>, b: OpResult<K>): OpResult<K> {
  if (op === 'incomingCalls') {
    const out = new Map<string, IncomingCall>();
    for (const c of [...(a as IncomingCall[]), ...(b as IncomingCall[])]) {
      // a call bound to an implementation / override, a method-group use, an unbound mention: rows of their own
      const k = `${key(c.from)}|${c.via ?? ''}|${c.bindsTo ?? ''}|${c.kind ?? ''}|${c.confidence ?? ''}`;
      const prev = out.get(k);
      if (!prev) out.set(k, { ...c, sites: [...c.sites] });
      else for (const s of c.sites) if (!prev.sites.some((x) => x.line === s.line && x.column === s.column)) prev.sites.push(s);
    }
    return [...out.values()] as OpResult<K>;
  }
  const out = new Map<string, SemanticLocation | ReferenceLocation | HierarchyItem>();
  for (const l of [...(a as SemanticLocation[]), ...(b as SemanticLocation[])]) {
    const k = key(l);
    const prev = out.get(k) as ReferenceLocation | undefined;
    if (!prev) out.set(k, { ...l });
    else if (op === 'references' && (l as ReferenceLocation).isDeclaration) prev.isDeclaration = true;
  }
  return [...out.values()] as OpResult<K>;
}
