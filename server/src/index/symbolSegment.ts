/**
 * One read of `symbol_rows` as typed-array columns, rows grouped by name id (`SymbolSegment`),
 * the row flag bits, and the orders a search uses without the file catalog: the static rank (big
 * names' rows sorted by it in the base) and rows by id hash. `symbolTable.ts` builds and keeps
 * the segments current.
 */

/** Row flag bits (`SymbolSegment.flags`). */
export const ROW_TEST = 1;
export const ROW_GENERATED = 2;
export const ROW_TYPE = 4;
/** The row stores its qualified name (`qn`): not prefix + name. */
export const ROW_QN = 8;
/** Another row has the same id hash: group by id. */
export const ROW_DUP = 16;
/** The id hash is shared by rows whose ids may differ: the group key comes from `suspectKeys`. */
export const ROW_SUSPECT = 32;

/** Rows of one read of `symbol_rows`, sorted by name id. */
export class SymbolSegment {
  constructor(
    readonly size: number,
    readonly fileId: Uint32Array,
    readonly ordinal: Uint16Array,
    readonly line: Uint32Array,
    readonly sidHash: Uint32Array,
    readonly kind: Uint32Array,
    readonly flags: Uint8Array,
    readonly qnLen: Uint16Array,
    readonly scope: Uint32Array,
    /** Rows of name id n are [nameStart[n], nameStart[n + 1]); names ≥ nameStart.length - 1 have none. */
    readonly nameStart: Uint32Array,
  ) {}

  maxFileId = 0;
  /** Rows of a name with more than STATIC_SORT_MIN_ROWS rows are in staticRank order (base only). */
  staticSorted = false;

  rowsOf(nameId: number): [number, number] {
    if (nameId + 1 >= this.nameStart.length) return [0, 0];
    return [this.nameStart[nameId] ?? 0, this.nameStart[nameId + 1] ?? 0];
  }

  bytes(): number {
    return this.size * 25 + this.nameStart.byteLength;
  }
}

/** Names with more rows than this get their rows sorted by staticRank in the base. */
const STATIC_SORT_MIN_ROWS = 64;

/**
 * The part of a row's rank known without the file catalog: types before members, generated and
 * test flags, qualified-name length. A file's class can only make a row rank worse than this.
 */
export function staticRank(seg: SymbolSegment, r: number): number {
  const f = seg.flags[r] ?? 0;
  return (((f & ROW_TYPE) !== 0 ? 0 : 4) + ((f & ROW_GENERATED) !== 0 ? 2 : 0) + ((f & ROW_TEST) !== 0 ? 1 : 0)) * 65536 + (seg.qnLen[r] ?? 0);
}

/** Whether the rows a..b of one name are in staticRank order (only big names of a sorted base are). */
export function rowsInStaticOrder(seg: SymbolSegment, a: number, b: number): boolean {
  return seg.staticSorted && b - a > STATIC_SORT_MIN_ROWS;
}

/** Sorts the rows of every big name by staticRank (so a search can stop reading them early). */
export function sortBigNames(seg: SymbolSegment): void {
  const starts = seg.nameStart;
  for (let n = 0; n + 1 < starts.length; n++) {
    const a = starts[n] ?? 0;
    const b = starts[n + 1] ?? 0;
    if (b - a <= STATIC_SORT_MIN_ROWS) continue;
    const idx = Array.from({ length: b - a }, (_, k) => a + k);
    const key = new Float64Array(b - a);
    for (let k = 0; k < b - a; k++) key[k] = staticRank(seg, a + k);
    idx.sort((x, y) => (key[x - a] ?? 0) - (key[y - a] ?? 0) || x - y);
    const permute = <T extends Uint8Array | Uint16Array | Uint32Array>(col: T): void => {
      const copy = col.slice(a, b);
      for (let k = 0; k < idx.length; k++) col[a + k] = copy[(idx[k] ?? a) - a] ?? 0;
    };
    permute(seg.fileId);
    permute(seg.ordinal);
    permute(seg.line);
    permute(seg.sidHash);
    permute(seg.kind);
    permute(seg.flags);
    permute(seg.qnLen);
    permute(seg.scope);
  }
  seg.staticSorted = true;
}

/** Rows of a segment ordered by id hash, then row (undefined when rows do not fit the packed key). */
export function rowsByHash(seg: SymbolSegment): Uint32Array | undefined {
  const ROW_BITS = 2 ** 21;
  if (seg.size >= ROW_BITS) return undefined;
  const keyed = new Float64Array(seg.size);
  for (let r = 0; r < seg.size; r++) keyed[r] = (seg.sidHash[r] ?? 0) * ROW_BITS + r;
  keyed.sort();
  const out = new Uint32Array(seg.size);
  for (let i = 0; i < seg.size; i++) out[i] = (keyed[i] ?? 0) % ROW_BITS;
  return out;
}

export function lowerBound(a: Uint32Array, h: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] ?? 0) < h) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function sortedHas(a: Uint32Array, h: number): boolean {
  const i = lowerBound(a, h);
  return i < a.length && a[i] === h;
}

export function emptySegment(n: number, nameStart: Uint32Array = new Uint32Array(1)): SymbolSegment {
  return new SymbolSegment(n, new Uint32Array(n), new Uint16Array(n), new Uint32Array(n), new Uint32Array(n), new Uint32Array(n), new Uint8Array(n), new Uint16Array(n), new Uint32Array(n), nameStart);
}

