/**
 * Identifier scanning on live source lines for the heuristic provider: the identifier at (or
 * nearest to) a position, whole-word occurrences, and base-type lists read from declaration
 * signatures. Columns are 1-based UTF-16 code units, like everywhere else.
 */

const IDENT_CHAR = /[\p{L}\p{N}_$]/u;
const IDENT_START = /[\p{L}_$]/u;

/** The identifier at `column` on `text`, else the nearest one on the line; undefined when none. */
export function identifierAt(text: string, column: number): { name: string; column: number; snapped: boolean } | undefined {
  const i = Math.max(0, Math.min(text.length, column - 1));
  const at = (k: number) => k >= 0 && k < text.length && IDENT_CHAR.test(text[k]!);
  let k = i;
  let snapped = false;
  if (!at(k)) {
    if (at(k - 1)) k = k - 1;
    else {
      snapped = true;
      let best = -1;
      for (let d = 1; d < text.length; d++) {
        if (at(i - d)) {
          best = i - d;
          break;
        }
        if (at(i + d)) {
          best = i + d;
          break;
        }
      }
      if (best < 0) return undefined;
      k = best;
    }
  }
  let s = k;
  while (at(s - 1)) s--;
  let e = k;
  while (at(e + 1)) e++;
  // Skip leading digits of a number literal: not an identifier.
  if (!IDENT_START.test(text[s]!)) return undefined;
  return { name: text.slice(s, e + 1), column: s + 1, snapped };
}

/** 1-based columns of whole-word, case-sensitive occurrences of `name` in `line`. */
export function wordOccurrences(line: string, name: string): number[] {
  const out: number[] = [];
  let from = 0;
  for (;;) {
    const i = line.indexOf(name, from);
    if (i < 0) return out;
    const before = i > 0 ? line[i - 1]! : '';
    const after = line[i + name.length] ?? '';
    if (!(before && IDENT_CHAR.test(before)) && !(after && IDENT_CHAR.test(after))) out.push(i + 1);
    from = i + name.length;
  }
}

/** True when the occurrence at `column` looks like a call: `name(`, `name<T>(`, `new name(`. */
export function looksLikeCall(line: string, column: number, name: string): boolean {
  let j = column - 1 + name.length;
  if (line[j] === '<') {
    let depth = 0;
    for (; j < line.length; j++) {
      if (line[j] === '<') depth++;
      else if (line[j] === '>' && --depth === 0) {
        j++;
        break;
      }
    }
  }
  while (line[j] === ' ') j++;
  return line[j] === '(';
}

/** Simple names of the base types in a class/interface signature (C#, TS, Java-like). */
export function baseTypeNames(signature: string): string[] {
  let list = '';
  const ts = /\b(?:extends|implements)\b(.*)$/.exec(signature);
  if (ts) list = ts[1]!.replace(/\b(?:extends|implements)\b/g, ',');
  else {
    const colon = topLevelColon(signature);
    if (colon < 0) return [];
    list = signature.slice(colon + 1).replace(/\bwhere\b.*$/, '');
  }
  const out: string[] = [];
  for (const part of splitTopLevel(list)) {
    const t = part.trim().replace(/<.*$/, '').replace(/\(.*$/, '');
    const simple = t.split('.').pop()?.trim();
    if (simple && /^[\p{L}_$][\p{L}\p{N}_$]*$/u.test(simple)) out.push(simple);
  }
  return out;
}

/** Index of the first `:` outside <…> and (…) in a signature (a base list or a return type), or -1. */
export function topLevelColon(s: string): number {
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '<' || c === '(') depth++;
    else if (c === '>' || c === ')') depth--;
    else if (c === ':' && depth === 0) return i;
  }
  return -1;
}

/** `s` split at the commas outside <…> and (…). */
export function splitTopLevel(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of s) {
    if (c === '<' || c === '(') depth++;
    if (c === '>' || c === ')') depth--;
    if (c === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  if (cur.trim()) out.push(cur);
  return out;
}

/** Words that are followed by `(` without being calls. */
export const NOT_CALLS: ReadonlySet<string> = new Set([
  'if', 'for', 'foreach', 'while', 'switch', 'catch', 'using', 'lock', 'return', 'typeof', 'sizeof', 'nameof',
  'default', 'when', 'fixed', 'checked', 'unchecked', 'function', 'await', 'in', 'is', 'as', 'base', 'this', 'new',
]);
