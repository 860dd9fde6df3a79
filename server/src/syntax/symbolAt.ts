/**
 * symbol_at: the smallest declaration enclosing a position, plus its containers — for stack
 * frames, build errors, grep hits and diff hunks. Works on an outline (from the index or a fresh
 * parse); lines and columns are 1-based.
 */
import type { OutlineSymbol } from './types';

export interface SymbolAtResult {
  /** The innermost declaration containing the position; undefined between declarations. */
  symbol: OutlineSymbol | undefined;
  /** Enclosing declarations, outermost first (namespace, type, ...), excluding `symbol`. */
  containers: OutlineSymbol[];
}

/** True when (line, column) lies inside the declaration's span; without a column, the line decides. */
export function containsPosition(s: OutlineSymbol, line: number, column?: number): boolean {
  if (line < s.line || line > s.endLine) return false;
  if (column === undefined) return true;
  if (line === s.line && column < s.column) return false;
  if (line === s.endLine && column >= s.endColumn) return false;
  return true;
}

/** The innermost declaration at a position and its container chain. */
export function symbolAt(symbols: readonly OutlineSymbol[], line: number, column?: number): SymbolAtResult {
  let best = -1;
  for (let i = 0; i < symbols.length; i++) {
    const s = symbols[i];
    if (!s || !containsPosition(s, line, column)) continue;
    const b = best >= 0 ? symbols[best] : undefined;
    // deeper wins; at equal depth the later start (the narrower span) wins
    if (!b || s.depth > b.depth || (s.depth === b.depth && (s.line > b.line || (s.line === b.line && s.column >= b.column)))) best = i;
  }
  if (best < 0) return { symbol: undefined, containers: [] };
  const containers: OutlineSymbol[] = [];
  let p = symbols[best]?.parent ?? -1;
  for (let guard = 0; p >= 0 && guard < 64; guard++) {
    const s = symbols[p];
    if (!s) break;
    containers.unshift(s);
    p = s.parent;
  }
  return { symbol: symbols[best], containers };
}
