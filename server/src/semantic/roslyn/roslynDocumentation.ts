/**
 * xml_doc's fallback on the Roslyn host (issue 13): the symbol's doc-comment XML; an
 * `<inheritdoc/>` is followed through the compiler's view — its `cref`, else the overridden chain,
 * then the interface members implemented — metadata included (the host reads the reference
 * assemblies' XML docs), at most XML_DOC_INHERIT_DEPTH steps. Null when the position has no symbol.
 */
import { XML_DOC_INHERIT_DEPTH } from '../../core/limits';
import type { CallContext, OpResult } from '../provider';
import type { ProjectKey, QueryParams, SymbolInfoRow } from './hostProtocol';
import type { RoslynSession } from './hostSession';

export async function roslynDocumentation(s: RoslynSession, position: { path: string; line: number; column: number; projectKey: ProjectKey }, bindKey: ProjectKey, ctx: CallContext, generation: number): Promise<OpResult<'documentation'>> {
  const first = await s.query<{ xml: string }>({ op: 'documentation', position, scope: [bindKey] }, ctx, generation);
  if (!first.symbol) return null;
  let xml = first.items[0]?.xml ?? '';
  let from: string | undefined;
  let at: Pick<QueryParams, 'position' | 'symbol'> = { position };
  for (let step = 0; step < XML_DOC_INHERIT_DEPTH && /<inheritdoc\b/.test(xml); step++) {
    const cref = /<inheritdoc\s+cref\s*=\s*"([A-Z]:[^"]+)"/.exec(xml)?.[1];
    let bases: string[];
    if (cref) bases = [cref];
    else {
      const info = (await s.query<SymbolInfoRow>({ op: 'symbolInfo', ...at, scope: [bindKey] }, ctx, generation)).items[0];
      bases = [...(info?.overriddenChain ?? (info?.overridden ? [info.overridden] : [])), ...(info?.implements ?? [])].map((r) => r.docId).filter((d): d is string => !!d);
    }
    let next: string | undefined;
    for (const docId of bases) {
      const r = await s.query<{ xml: string }>({ op: 'documentation', symbol: { docId, projectKey: bindKey }, scope: [bindKey] }, ctx, generation).catch(() => undefined);
      const x = r?.items[0]?.xml ?? '';
      if (x.trim() && /<(summary|inheritdoc|returns|param)\b/.test(x)) {
        next = x;
        from = docId;
        at = { symbol: { docId, projectKey: bindKey } };
        break;
      }
    }
    if (next === undefined) break;
    xml = next;
  }
  if (!xml.trim()) return null;
  return { text: xml, format: 'xml', ...(from ? { inheritedFrom: from.replace(/^[A-Z]:/, '') } : {}) };
}
