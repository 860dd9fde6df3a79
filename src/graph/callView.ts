/**
 * The call graph as the panel draws it, from the engine's `sextant/callGraph` answer: one node per
 * symbol (the engine keys nodes by declaration position, so overloads and same-named methods in
 * other types stay apart; equal labels get their file and line), exact and heuristic calls drawn
 * differently, and the navigation mode in words. No `vscode` import (unit-tested alone).
 */
import type { GraphData } from '../../server/src/protocol/protocol';
import type { GraphView, ViewEdge, ViewNode } from './messages';

/** The mode in words, with what it means for the drawing. */
export function modeInWords(mode: string | undefined): string {
  switch (mode) {
    case 'precise':
      return 'Precise: every call comes from a language service.';
    case 'precise_partial':
      return 'Partial: from a language service, but it had not loaded everything — calls may be missing.';
    case 'heuristic_no_precise':
      return 'Heuristic: no language service answered, so calls were matched by name — some may be wrong or missing.';
    case 'unavailable_no_precise':
      return 'Unavailable: no language service answered and no call could be matched by name.';
    default:
      return mode ? `Mode: ${mode}.` : '';
  }
}

const INTERNAL = /\b(precise_partial|heuristic_no_precise|unavailable_no_precise)\b/g;

/** The engine's reasons, without internal codes or advice to run repository scripts. */
function reasonsOf(summary: string): string | undefined {
  const m = /\((.*)\)\s*$/.exec(summary);
  if (!m) return undefined;
  const parts = m[1]!
    .split(';')
    .map((s) => s.trim())
    .filter((s) => s && !INTERNAL.test(s) && !/\b(run|npm|scripts\/)/i.test(s));
  INTERNAL.lastIndex = 0;
  return parts.length ? parts.join('; ') : undefined;
}

export function callView(data: GraphData, o: { name: string; depth: number; direction: string }): GraphView {
  const count = new Map<string, number>();
  for (const n of data.nodes) count.set(n.label, (count.get(n.label) ?? 0) + 1);
  const file = (p?: string): string => (p ? p.slice(p.lastIndexOf('/') + 1) : '');
  const nodes: ViewNode[] = data.nodes.map((n) => ({
    id: n.id,
    label: (count.get(n.label) ?? 0) > 1 ? `${n.label} (${file(n.path)}:${n.line ?? '?'})` : n.label,
    category: 'function',
    ...(n.root ? { focus: true as const } : {}),
    ...(n.path ? { path: n.path } : {}),
    ...(n.line !== undefined ? { line: n.line } : {}),
    ...(n.column !== undefined ? { column: n.column } : {}),
    detail: [`${n.kind} in ${n.path ?? '?'}:${n.line ?? '?'}`, n.isTest ? 'in test code' : '', n.root ? 'the symbol at the cursor' : ''].filter(Boolean).join('\n'),
  }));
  const ids = new Set(nodes.map((n) => n.id));
  const edges: ViewEdge[] = data.edges
    .filter((e) => ids.has(e.from) && ids.has(e.to))
    .map((e) => ({ from: e.from, to: e.to, style: e.kind === 'calls' ? 'exact' : 'heuristic' }));
  const heuristic = edges.filter((e) => e.style === 'heuristic').length;
  const dir = o.direction === 'both' ? 'callers and callees' : o.direction === 'incoming' ? 'callers' : 'callees';
  const summary = [
    nodes.length === 0
      ? `No ${dir} found for ${o.name}.`
      : `Drawn: ${nodes.length} function${nodes.length === 1 ? '' : 's'} and ${edges.length} call${edges.length === 1 ? '' : 's'} (${edges.length - heuristic} exact, ${heuristic} heuristic) — ${dir} of ${o.name} to depth ${o.depth}.`,
  ];
  const mode = modeInWords(data.mode);
  const why = reasonsOf(data.summary);
  if (mode) summary.push(mode + (why && data.mode !== 'precise' ? ` Why: ${why}.` : ''));
  const dropped = data.edges.length - edges.length;
  if (data.truncated || dropped > 0) summary.push(`Not drawn: the engine's limit cut this graph${dropped > 0 ? ` (${dropped} calls to functions beyond the node limit)` : ''}.`);
  return { nodes, edges, summary, truncated: data.truncated, ...(data.nodes.find((n) => n.root) ? { focus: data.nodes.find((n) => n.root)!.id } : {}), ...(mode ? { mode } : {}) };
}
