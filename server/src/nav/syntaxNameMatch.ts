/**
 * Name matching for search_symbol: every matcher returns a tier (lower is better) and a score
 * within the tier, or undefined for no match. Tiers: 0 exact (same case), 1 exact (other case),
 * 2 prefix, 3 camelCase / substring / regex, 4 fuzzy.
 *
 * camelCase follows IDE conventions: the query is cut into chunks before each capital letter
 * (GRS → G|R|S, GetReqSer → Get|Req|Ser, reqSer → req|Ser); every chunk is a prefix of a word of
 * the name, words in order, and a lower-case run may continue into the next word (grs → G|R|S).
 * Word splits and initials of the declared names are cached by the name dictionary, and a name
 * whose initials do not contain the query's chunk initials in order is rejected before matching.
 */
import { maskOf, splitWords, type SymbolNames } from '../index/symbolNames';

export interface NameMatch {
  tier: number;
  /** Lower is better inside a tier. */
  score: number;
}

/** A query prepared once per search. */
export interface PreparedQuery {
  q: string;
  ql: string;
  /** Lower-cased first letters of the query's capitalised chunks (GetReqSer → grs). */
  chunkInitials: string;
  /** maskOf(chunkInitials): letters that must start words of the name. */
  initialsMask: number;
  /** maskOf(query): letters/digits that must occur in the name. */
  charMask: number;
}

export function prepareQuery(q: string): PreparedQuery {
  const chunks = q.match(/[A-Z][^A-Z]*|^[^A-Z]+/g) ?? [q];
  const chunkInitials = chunks.map((c) => (c[0] ?? '').toLowerCase()).join('');
  return { q, ql: q.toLowerCase(), chunkInitials, initialsMask: maskOf(chunkInitials), charMask: maskOf(q) };
}

export type Matcher = (dict: SymbolNames, i: number, p: PreparedQuery) => NameMatch | undefined;

function exactOrPrefix(name: string, lower: string, p: PreparedQuery): NameMatch | undefined {
  if (name === p.q) return { tier: 0, score: 0 };
  if (lower === p.ql) return { tier: 1, score: 0 };
  if (lower.startsWith(p.ql)) return { tier: 2, score: name.length - p.q.length + (name.startsWith(p.q) ? 0 : 0.5) };
  return undefined;
}

export const matchExact: Matcher = (d, i, p) => {
  const name = d.names[i] ?? '';
  if (name === p.q) return { tier: 0, score: 0 };
  if ((d.lower[i] ?? '') === p.ql) return { tier: 1, score: 0 };
  return undefined;
};

export const matchPrefix: Matcher = (d, i, p) => exactOrPrefix(d.names[i] ?? '', d.lower[i] ?? '', p);

export const matchSubstring: Matcher = (d, i, p) => {
  if (!d.hasChars(i, p.charMask)) return undefined;
  const lower = d.lower[i] ?? '';
  const at = lower.indexOf(p.ql);
  if (at < 0) return undefined;
  const name = d.names[i] ?? '';
  return exactOrPrefix(name, lower, p) ?? { tier: 3, score: at + (name.length - p.q.length) / 100 };
};

function isSubsequence(needle: string, hay: string): boolean {
  let j = 0;
  for (let k = 0; k < hay.length && j < needle.length; k++) if (hay[k] === needle[j]) j++;
  return j === needle.length;
}

export const matchCamel: Matcher = (d, i, p) => {
  if (!d.hasChars(i, p.charMask)) return undefined;
  const lower = d.lower[i] ?? '';
  const name = d.names[i] ?? '';
  if (lower.charCodeAt(0) === p.ql.charCodeAt(0) && lower.startsWith(p.ql)) return exactOrPrefix(name, lower, p);
  if (!d.hasInitials(i, p.initialsMask) || !isSubsequence(p.chunkInitials, d.initialsAt(i))) return undefined;
  const skipped = camelSkips(d.wordsAt(i), p.ql);
  return skipped === undefined ? undefined : { tier: 3, score: skipped + name.length / 1000 };
};

/** Words skipped by the best camelCase decomposition of `ql` over `words`, or undefined. */
export function camelSkips(words: readonly string[], ql: string): number | undefined {
  let best = Infinity;
  let steps = 0;
  const go = (qi: number, wi: number, skipped: number): void => {
    if (skipped >= best || ++steps > 2_000) return;
    if (qi === ql.length) {
      best = skipped;
      return;
    }
    for (let w = wi; w < words.length; w++) {
      const word = words[w] ?? '';
      const skip = skipped + (w - wi);
      if (skip >= best) return;
      let k = 0;
      while (k < word.length && qi + k < ql.length && word[k] === ql[qi + k]) k++;
      for (let len = k; len >= 1; len--) go(qi + len, w + 1, skip);
    }
  };
  go(0, 0, 0);
  return best === Infinity ? undefined : best;
}

export const matchFuzzy: Matcher = (d, i, p) => {
  if (!d.hasChars(i, p.charMask)) return undefined;
  const lower = d.lower[i] ?? '';
  let qi = 0;
  let gaps = 0;
  let last = -1;
  for (let k = 0; k < lower.length && qi < p.ql.length; k++) {
    if (lower[k] === p.ql[qi]) {
      if (last >= 0 && k > last + 1) gaps++;
      last = k;
      qi++;
    }
  }
  if (qi < p.ql.length) return undefined;
  const better = matchCamel(d, i, p);
  if (better) return better;
  const name = d.names[i] ?? '';
  return { tier: 4, score: gaps * 10 + (name.length - p.q.length) / 100 };
};

/** Words of an arbitrary identifier (for callers without a dictionary index). */
export const words = splitWords;
