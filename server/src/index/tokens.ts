/**
 * Tokens of the text index: maximal runs of ASCII identifier characters [A-Za-z0-9_], lower-cased,
 * 2..MAX_TOKEN_CHARS long. A literal query is turned into constraints on those tokens, each one
 * exact or expandable through the dictionary, so that candidate files are a guaranteed superset of
 * the files that contain the literal (answers are then verified against the live bytes).
 */
export const MIN_TOKEN_CHARS = 2;
/** Longer runs (hashes, base64) are not indexed; a query needing one falls back to the scan. */
export const MAX_TOKEN_CHARS = 64;

const TOKEN_RE = /[A-Za-z0-9_]+/g;

export function isTokenChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** Distinct indexable tokens of a text, lower-cased. */
export function distinctTokens(text: string): Set<string> {
  const out = new Set<string>();
  TOKEN_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = TOKEN_RE.exec(text))) {
    const t = m[0];
    if (t.length >= MIN_TOKEN_CHARS && t.length <= MAX_TOKEN_CHARS) out.add(t.toLowerCase());
  }
  return out;
}

/** How a query fragment must relate to a file token. */
export type TokenConstraint =
  | { kind: 'exact'; text: string }
  | { kind: 'prefix'; text: string } // token starts with text
  | { kind: 'suffix'; text: string } // token ends with text
  | { kind: 'substring'; text: string }; // token contains text

/**
 * Constraints implied by a literal. `wholeWord` means the match is bounded by non-identifier
 * characters on both sides, so the outer fragments are complete tokens too. Fragments shorter than
 * MIN_TOKEN_CHARS or longer than MAX_TOKEN_CHARS add no usable constraint (an over-long run can
 * only match an unindexed token), and `unindexable` is then set when it would be required.
 */
export function literalConstraints(query: string, wholeWord: boolean): { constraints: TokenConstraint[]; unindexable: boolean } {
  const constraints: TokenConstraint[] = [];
  let unindexable = false;
  const n = query.length;
  let i = 0;
  while (i < n) {
    if (!isTokenChar(query.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < n && isTokenChar(query.charCodeAt(j))) j++;
    const text = query.slice(i, j).toLowerCase();
    const atStart = i === 0 && !wholeWord;
    const atEnd = j === n && !wholeWord;
    const kind: TokenConstraint['kind'] = atStart && atEnd ? 'substring' : atStart ? 'suffix' : atEnd ? 'prefix' : 'exact';
    if (text.length > MAX_TOKEN_CHARS) {
      // The file token containing this run is longer than MAX_TOKEN_CHARS, hence not indexed.
      unindexable = true;
    } else if (kind === 'exact' ? text.length >= MIN_TOKEN_CHARS : text.length >= MIN_TOKEN_CHARS) {
      constraints.push({ kind, text });
    }
    i = j;
  }
  return { constraints, unindexable };
}
