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
 * fuzzy also accepts typos (see matchFuzzy).
 */
import { headOf, maskOf, splitWords, type SymbolNames } from '../index/symbolNames';

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
  /** maskOf(first letter of the query). */
  firstMask: number;
  /** ql as UTF-16 units. */
  codes: Uint16Array;
  /** headOf(ql) and the bits of it a name's head must equal to start with ql. */
  head: number;
  headMask: number;
}

export function prepareQuery(q: string): PreparedQuery {
  const chunks = q.match(/[A-Z][^A-Z]*|^[^A-Z]+/g) ?? [q];
  const chunkInitials = chunks.map((c) => (c[0] ?? '').toLowerCase()).join('');
  const ql = q.toLowerCase();
  return { q, ql, chunkInitials, allInitials: chunkInitials === ql, initialsMask: maskOf(chunkInitials), charMask: maskOf(q), firstMask: maskOf(ql.slice(0, 1)), codes: unitsOf(ql), head: headOf(ql), headMask: ql.length >= 2 ? 0xffffffff : ql.length === 1 ? 0xffff : 0 };
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
  // typed-array tests first: most names fail them without their strings being read
  if (((d.headAt(i) & p.headMask) >>> 0) === p.head) {
    const k = exactOrPrefix(d.names[i] ?? '', d.lower[i] ?? '', p);
    if (k >= 0) return k;
  }
  if (!d.hasInitials(i, p.initialsMask)) return NO_MATCH;
  const name = d.names[i] ?? '';
  if (p.allInitials) {
    const skipped = initialsSkips(d.initialsAt(i), p.chunkInitials);
    return skipped < 0 ? NO_MATCH : 3 * TIER + skipped + name.length / 1000;
  }
  // a lower-case query whose every letter starts a word (gus → GetUserService) ranks before one
  // that continues a word (gus → G|Us: GetUser) with as many words skipped
  if (p.q === p.ql && d.hasInitials(i, p.charMask)) {
    const asInitials = initialsSkips(d.initialsAt(i), p.ql);
    if (asInitials >= 0) return 3 * TIER + asInitials + name.length / 1000;
  }
  // every query letter is in the name, in order (read from the packed units), before the word search
  // (one chunk: its initial is a word initial, which the mask test above already proved)
  if (!unitsSubsequence(p.codes, d.codes, d.codeStart[i] ?? 0, d.codeStart[i + 1] ?? 0) || (p.chunkInitials.length > 1 && !isSubsequence(p.chunkInitials, d.initialsAt(i)))) return NO_MATCH;
  const skipped = d.packedWords[i] ? camelSkipsPacked(p.codes, d, i) : camelSkips(d.wordsAt(i), p.ql);
  return skipped < 0 ? NO_MATCH : 3 * TIER + skipped + (p.q === p.ql ? 0.5 : 0) + name.length / 1000;
};

function unitsSubsequence(q: Uint16Array, codes: Uint16Array, from: number, to: number): boolean {
  let j = 0;
  for (let k = from; k < to && j < q.length; k++) if (codes[k] === q[j]) j++;
  return j === q.length;
}

/**
 * fuzzy: the query's letters in order (gaps allowed: `invsvc` → InvoiceService), or — for queries
 * of 4+ characters — a typo: the name or a prefix of it within FUZZY_TYPOS edits of the query
 * (substitution, insertion, deletion, adjacent transposition), first letter kept
 * (`GetUsreService` → GetUserService). Better tiers (exact, prefix, camelCase) win when they apply.
 */
export const matchFuzzy: Matcher = (d, i, p) => fuzzyKey(d, i, p, true);

/**
 * matchFuzzy without the camelCase tier: exact and prefix names get their keys, every other match
 * the fuzzy tier. When names of the better tiers fill a page, the camelCase test (the costly part
 * for short queries matching tens of thousands of names) is left out; `upgradeFuzzyKey` adds it.
 */
export const matchFuzzyFast: Matcher = (d, i, p) => fuzzyKey(d, i, p, false);

/** The matchFuzzy key of a name that matchFuzzyFast gave `key`. */
export function upgradeFuzzyKey(d: SymbolNames, i: number, p: PreparedQuery, key: number): number {
  if (key < 4 * TIER || !d.hasInitials(i, p.firstMask)) return key;
  const camel = matchCamel(d, i, p);
  return camel >= 0 ? camel : key;
}

function fuzzyKey(d: SymbolNames, i: number, p: PreparedQuery, camel: boolean): number {
  const ql = p.ql;
  const missing = popcount((p.charMask & ~d.charMaskAt(i)) >>> 0);
  const typos = ql.length >= 8 ? 2 : ql.length >= 4 ? 1 : 0;
  if (missing > typos) return NO_MATCH;
  const codes = d.codes;
  const start = d.codeStart[i] ?? 0;
  const end = d.codeStart[i + 1] ?? 0;
  const qc = p.codes;
  const m = qc.length;
  if (missing === 0) {
    let qi = 0;
    let gaps = 0;
    let last = -1;
    for (let k = start; k < end && qi < m; k++) {
      if (codes[k] === qc[qi]) {
        if (last >= 0 && k > last + 1) gaps++;
        last = k;
        qi++;
      }
    }
    if (qi === m) {
      // exact, prefix or camelCase rank better; camelCase needs the first letter to start a word
      const prefix = ((d.headAt(i) & p.headMask) >>> 0) === p.head && (d.lower[i] ?? '').startsWith(ql);
      const better = prefix ? exactOrPrefix(d.names[i] ?? '', d.lower[i] ?? '', p) : camel && d.hasInitials(i, p.firstMask) ? matchCamel(d, i, p) : NO_MATCH;
      if (better >= 0) return better;
      return 4 * TIER + gaps * 10 + (end - start - m) / 100;
    }
  }
  if (typos === 0 || codes[start] !== qc[0] || end - start < m - typos) return NO_MATCH;
  const dist = editDistanceToPrefix(qc, codes, start, end, typos);
  if (dist < 0) return NO_MATCH;
  // an edit costs what a gap in a letters-in-order match costs (a letter left out is one of each);
  // a whole-name typo ranks before a typo in a prefix of a longer name
  const rest = Math.max(0, end - start - m - dist);
  return 4 * TIER + dist * 10 + (rest > 0 ? 2 : 0) + rest / 100;
}

function unitsOf(s: string): Uint16Array {
  const out = new Uint16Array(s.length);
  for (let k = 0; k < s.length; k++) out[k] = s.charCodeAt(k);
  return out;
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

const rowPrev2 = new Int32Array(256).fill(1 << 20);
const rowPrev = new Int32Array(256).fill(1 << 20);
const rowCur = new Int32Array(256).fill(1 << 20);

/**
 * Smallest optimal-string-alignment distance between `q` and a prefix of `name` (any length), or
 * -1 when it exceeds `max`. Rows are over the query, columns over the name; stops as soon as a
 * whole row exceeds `max`.
 */
export function prefixEditDistance(q: string, name: string, max: number): number {
  const n = unitsOf(name);
  return editDistanceToPrefix(unitsOf(q), n, 0, n.length, max);
}

/**
 * prefixEditDistance over UTF-16 units: the query `q`, the name `codes[from, to)`. Only the band
 * of cells within `max` of the diagonal is computed (the others exceed `max` anyway).
 */
function editDistanceToPrefix(q: Uint16Array, codes: Uint16Array, from: number, to: number, max: number): number {
  const m = q.length;
  const n = Math.min(to - from, m + max);
  if (m >= 250 || n >= 250) return -1;
  const big = max + 1;
  // row 0: distance of the empty query to name[0..j) is j
  for (let j = 0; j <= n + 1; j++) rowPrev[j] = j <= max ? j : big;
  let prev2 = rowPrev2;
  let prev = rowPrev;
  let cur = rowCur;
  for (let i = 1; i <= m; i++) {
    const lo = Math.max(1, i - max);
    const hi = Math.min(n, i + max);
    cur[lo - 1] = lo === 1 ? Math.min(i, big) : big;
    let rowMin = cur[lo - 1] ?? big;
    const qc = q[i - 1] ?? 0;
    const qp = i > 1 ? (q[i - 2] ?? 0) : -1;
    for (let j = lo; j <= hi; j++) {
      const nc = codes[from + j - 1] ?? 0;
      let v = Math.min((prev[j] ?? big) + 1, (cur[j - 1] ?? big) + 1, (prev[j - 1] ?? big) + (qc === nc ? 0 : 1));
      if (j > 1 && qp === nc && qc === codes[from + j - 2]) v = Math.min(v, (prev2[j - 2] ?? big) + 1);
      if (v > big) v = big;
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    cur[hi + 1] = big;
    if (rowMin > max) return -1;
    const t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  let best = big;
  for (let j = Math.max(0, m - max); j <= n; j++) best = Math.min(best, prev[j] ?? big);
  return best <= max ? best : -1;
}

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

const NONE = 1 << 20;
let fNext = new Int32Array(64);
let fCur = new Int32Array(64);

/**
 * camelSkips over the packed units and word spans of name `i` (no strings, exact): f(qi, w) is the
 * fewest words skipped to match q[qi..] from word w on — use a prefix of word w (1..common prefix
 * letters) and go on from w + 1, or skip word w (one more). Words after the match cost nothing.
 */
export function camelSkipsPacked(q: Uint16Array, d: SymbolNames, i: number): number {
  const m = q.length;
  if (m + 1 > fNext.length) {
    fNext = new Int32Array(m + 1);
    fCur = new Int32Array(m + 1);
  }
  const codes = d.codes;
  const base = d.codeStart[i] ?? 0;
  const spans = d.wordSpans;
  const w0 = d.wordStart[i] ?? 0;
  const w1 = d.wordStart[i + 1] ?? 0;
  // after the last word: only a finished query costs nothing
  for (let qi = 0; qi < m; qi++) fNext[qi] = NONE;
  fNext[m] = 0;
  for (let w = w1 - 1; w >= w0; w--) {
    const from = base + (spans[2 * w] ?? 0);
    const len = spans[2 * w + 1] ?? 0;
    fCur[m] = 0;
    for (let qi = 0; qi < m; qi++) {
      let best = (fNext[qi] ?? NONE) + 1;
      for (let k = 0; k < len && qi + k < m && codes[from + k] === q[qi + k]; k++) {
        const v = fNext[qi + k + 1] ?? NONE;
        if (v < best) best = v;
      }
      fCur[qi] = best;
    }
    const t = fNext;
    fNext = fCur;
    fCur = t;
  }
  const r = fNext[0] ?? NONE;
  return r >= NONE ? -1 : r;
}

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
