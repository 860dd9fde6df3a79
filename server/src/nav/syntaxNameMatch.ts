/**
 * Name matching for search_symbol. A matcher returns a rank key (lower is better) or -1 for no
 * match; the key is `tier * 1e6 + score`. Tiers: 0 exact (same case), 1 exact (other case),
 * 2 prefix, 3 camelCase / substring / regex, 4 fuzzy. Keys are plain numbers so that scanning
 * hundreds of thousands of names allocates nothing per name.
 *
 * camelCase follows IDE conventions: the query is cut into chunks before each capital letter
 * (GRS → G|R|S, GetReqSer → Get|Req|Ser, reqSer → req|Ser); every chunk is a prefix of a word of
 * the name, words in order, and a lower-case run may continue into the next word (grs → G|R|S).
 * Score: words skipped before and between chunks. Word splits and initials of the declared names
 * are cached by the name dictionary, and letter masks reject most names before any string work.
 */
import { maskOf, splitWords, type SymbolNames } from '../index/symbolNames';

export const NO_MATCH = -1;
const TIER = 1e6;

/** Tier of a key. */
export function tierOf(key: number): number {
  return Math.floor(key / TIER);
}

/** A query prepared once per search. */
export interface PreparedQuery {
  q: string;
  ql: string;
  /** Lower-cased first letters of the query's capitalised chunks (GetReqSer → grs). */
  chunkInitials: string;
  /** Every query character starts a chunk (GRS, S): matching needs only the name's initials. */
  allInitials: boolean;
  /** maskOf(chunkInitials): letters that must start words of the name. */
  initialsMask: number;
  /** maskOf(query): letters/digits that must occur in the name. */
  charMask: number;
}

export function prepareQuery(q: string): PreparedQuery {
  const chunks = q.match(/[A-Z][^A-Z]*|^[^A-Z]+/g) ?? [q];
  const chunkInitials = chunks.map((c) => (c[0] ?? '').toLowerCase()).join('');
  const ql = q.toLowerCase();
  return { q, ql, chunkInitials, allInitials: chunkInitials === ql, initialsMask: maskOf(chunkInitials), charMask: maskOf(q) };
}

export type Matcher = (dict: SymbolNames, i: number, p: PreparedQuery) => number;

function exactOrPrefix(name: string, lower: string, p: PreparedQuery): number {
  if (name === p.q) return 0;
  if (lower === p.ql) return TIER;
  if (lower.startsWith(p.ql)) return 2 * TIER + name.length - p.q.length + (name.startsWith(p.q) ? 0 : 0.5);
  return NO_MATCH;
}

export const matchExact: Matcher = (d, i, p) => {
  if ((d.names[i] ?? '') === p.q) return 0;
  if ((d.lower[i] ?? '') === p.ql) return TIER;
  return NO_MATCH;
};

export const matchPrefix: Matcher = (d, i, p) => exactOrPrefix(d.names[i] ?? '', d.lower[i] ?? '', p);

export const matchSubstring: Matcher = (d, i, p) => {
  if (!d.hasChars(i, p.charMask)) return NO_MATCH;
  const lower = d.lower[i] ?? '';
  const at = lower.indexOf(p.ql);
  if (at < 0) return NO_MATCH;
  const name = d.names[i] ?? '';
  const k = exactOrPrefix(name, lower, p);
  return k >= 0 ? k : 3 * TIER + at + (name.length - p.q.length) / 100;
};

export const matchCamel: Matcher = (d, i, p) => {
  if (!d.hasChars(i, p.charMask)) return NO_MATCH;
  const lower = d.lower[i] ?? '';
  const name = d.names[i] ?? '';
  const k = exactOrPrefix(name, lower, p);
  if (k >= 0) return k;
  if (!d.hasInitials(i, p.initialsMask)) return NO_MATCH;
  const initials = d.initialsAt(i);
  const skipped = p.allInitials ? initialsSkips(initials, p.chunkInitials) : isSubsequence(p.chunkInitials, initials) ? camelSkips(d.wordsAt(i), p.ql) : -1;
  return skipped < 0 ? NO_MATCH : 3 * TIER + skipped + name.length / 1000;
};

export const matchFuzzy: Matcher = (d, i, p) => {
  if (!d.hasChars(i, p.charMask)) return NO_MATCH;
  const lower = d.lower[i] ?? '';
  const ql = p.ql;
  let qi = 0;
  let gaps = 0;
  let last = -1;
  for (let k = 0; k < lower.length && qi < ql.length; k++) {
    if (lower.charCodeAt(k) === ql.charCodeAt(qi)) {
      if (last >= 0 && k > last + 1) gaps++;
      last = k;
      qi++;
    }
  }
  if (qi < ql.length) return NO_MATCH;
  const better = matchCamel(d, i, p);
  if (better >= 0) return better;
  const name = d.names[i] ?? '';
  return 4 * TIER + gaps * 10 + (name.length - p.q.length) / 100;
};

function isSubsequence(needle: string, hay: string): boolean {
  let j = 0;
  for (let k = 0; k < hay.length && j < needle.length; k++) if (hay.charCodeAt(k) === needle.charCodeAt(j)) j++;
  return j === needle.length;
}

/**
 * Words skipped when each query letter must start a word (all-capitals query): with matched
 * initials at positions p0 < … < pm-1 the skips are p0 + Σ(pj − pj-1 − 1) = pm-1 − (m − 1), so the
 * leftmost (greedy) embedding is the best one. -1 when `needle` is not a subsequence.
 */
export function initialsSkips(initials: string, needle: string): number {
  let j = 0;
  let last = -1;
  for (let k = 0; k < initials.length && j < needle.length; k++) {
    if (initials.charCodeAt(k) === needle.charCodeAt(j)) {
      j++;
      last = k;
    }
  }
  return j === needle.length ? last - (needle.length - 1) : -1;
}

/** Words skipped by the best camelCase decomposition of `ql` over `words`, or -1. */
export function camelSkips(words: readonly string[], ql: string): number {
  state.best = Infinity;
  state.steps = 0;
  camelGo(words, ql, 0, 0, 0);
  return state.best === Infinity ? -1 : state.best;
}

const state = { best: Infinity, steps: 0 };

function camelGo(words: readonly string[], ql: string, qi: number, wi: number, skipped: number): void {
  if (skipped >= state.best || ++state.steps > 2_000) return;
  if (qi === ql.length) {
    state.best = skipped;
    return;
  }
  for (let w = wi; w < words.length; w++) {
    const word = words[w] ?? '';
    const skip = skipped + (w - wi);
    if (skip >= state.best) return;
    let k = 0;
    while (k < word.length && qi + k < ql.length && word.charCodeAt(k) === ql.charCodeAt(qi + k)) k++;
    for (let len = k; len >= 1; len--) camelGo(words, ql, qi + len, w + 1, skip);
  }
}

/** Words of an arbitrary identifier (for callers without a dictionary index). */
export const words = splitWords;
