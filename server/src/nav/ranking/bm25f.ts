/**
 * BM25F over fields (Robertson, Zaragoza & Taylor's simple BM25F): per term, a document's field
 * frequencies are length-normalised per field, weighted, and summed into one pseudo-frequency,
 * which is then saturated once:
 *
 *   tf~(t, d) = Σ_f w_f · tf_f(t, d) / (1 − b_f + b_f · len_f(d) / avglen_f)
 *   score(d)  = Σ_t q_t · idf(t) · tf~ / (k1 + tf~),  idf(t) = ln(1 + (N − df + 0.5) / (df + 0.5))
 *
 * so a word found in a file's name and also in its code counts once, more strongly, instead of
 * twice (which plain per-field BM25 sums would do). `q_t` weighs the question's words (a word the
 * question repeats, or one split from an identifier it spells, counts less than a whole word).
 */

export const FIELD_NAMES = ['dir', 'name', 'type', 'member', 'code', 'comment', 'string', 'history'] as const;
export type FieldName = (typeof FIELD_NAMES)[number];
export const FIELD_COUNT = FIELD_NAMES.length;

export const F_DIR = 0;
export const F_NAME = 1;
export const F_TYPE = 2;
export const F_MEMBER = 3;
export const F_CODE = 4;
export const F_COMMENT = 5;
export const F_STRING = 6;
export const F_HISTORY = 7;

export interface FieldParams {
  /** Weight per field (FIELD_NAMES order). */
  w: readonly number[];
  /** Length normalisation per field, 0..1. */
  b: readonly number[];
  k1: number;
}

export function idf(docs: number, df: number): number {
  return Math.log(1 + (docs - df + 0.5) / (df + 0.5));
}

/** One term's pseudo-frequency in one document (`tf[f]`, `len[f]`, `avg[f]` per field). */
export function pseudoFrequency(p: FieldParams, tf: ArrayLike<number>, len: ArrayLike<number>, avg: ArrayLike<number>): number {
  let s = 0;
  for (let f = 0; f < FIELD_COUNT; f++) {
    const x = tf[f] ?? 0;
    if (x === 0) continue;
    const a = avg[f] || 1;
    s += (p.w[f]! * x) / (1 - p.b[f]! + (p.b[f]! * (len[f] ?? 0)) / a);
  }
  return s;
}

export function saturate(k1: number, tfTilde: number): number {
  return tfTilde / (k1 + tfTilde);
}
