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

/**
 * The case signal of a file's document: besides each distinct token, the document holds the term
 * LOWER_ONLY_MARK + token for every token the file spells only in lower case (`bool`, a comment's
 * `application`). A case-sensitive search for a whole token spelled with a capital (`Bool`) leaves
 * out the files holding that term: they cannot contain the spelling. The mark is a letter outside
 * ASCII (FTS4's unicode61 keeps it in the term, and no indexed token contains it), so the terms
 * never meet a token; a document written before the signal has no such term and is simply not
 * narrowed.
 */
export const LOWER_ONLY_MARK = 'λ';
const LOWER_ONLY_MARK_BYTES = Buffer.from(LOWER_ONLY_MARK, 'utf8');

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

/** Byte → its lower-cased value when it is a token character, else 0. */
const LOWER_TOKEN_BYTE = new Uint8Array(256);
for (let c = 0; c < 256; c++) if (isTokenChar(c)) LOWER_TOKEN_BYTE[c] = c >= 65 && c <= 90 ? c + 32 : c;

/**
 * The same tokens as `distinctTokens`, read from UTF-8 bytes without decoding them (an ASCII byte
 * is never part of a multi-byte sequence, so the runs are the same), interned across files: a token
 * seen before costs a hash probe and no allocation. One interner per refresh; `newTokens` tells
 * which tokens the last file brought for the first time (the indexer adds only those to the
 * dictionary).
 */
export class TokenInterner {
  /** Interned tokens by id. */
  readonly terms: string[] = [];
  private slots = new Int32Array(1 << 16); // term id + 1, 0 = empty
  private hashes: Int32Array = new Int32Array(1 << 12);
  private offsets: Int32Array = new Int32Array(1 << 12);
  private arena: Uint8Array = new Uint8Array(1 << 16); // lower-cased bytes of every term
  private used = 0;
  /** Serial of the last file each term was seen in (per-file de-duplication). */
  private lastFile: Int32Array = new Int32Array(1 << 12);
  /** Serial of the last file each term was seen in with a capital letter (the case signal). */
  private casedFile: Int32Array = new Int32Array(1 << 12);
  private file = 0;
  private firstNew = 0;

  /** Term ids of the last scan (distinct, in order of first occurrence), and their count. */
  private ids: Int32Array = new Int32Array(1 << 12);
  private count = 0;
  /** Reused output of `fileDocument`. */
  private doc: Uint8Array = new Uint8Array(1 << 16);

  /** Distinct tokens of one file, in order of first occurrence. */
  fileTokens(bytes: Uint8Array): string[] {
    this.scan(bytes);
    const out: string[] = new Array<string>(this.count);
    for (let k = 0; k < this.count; k++) out[k] = this.terms[this.ids[k]!]!;
    return out;
  }

  /**
   * The file's text-index document: its distinct tokens joined by spaces, then the case signal
   * (LOWER_ONLY_MARK + each token the file spells only in lower case), as bytes (no string is
   * built). A view of a reused buffer, valid until the next call; undefined when there are none.
   */
  fileDocument(bytes: Uint8Array): Uint8Array | undefined {
    this.scan(bytes);
    if (this.count === 0) return undefined;
    const fileNo = this.file;
    const mark = LOWER_ONLY_MARK_BYTES;
    let size = this.count - 1;
    for (let k = 0; k < this.count; k++) {
      const id = this.ids[k]!;
      const len = this.offsets[id + 1]! - this.offsets[id]!;
      size += len;
      if (this.casedFile[id] !== fileNo) size += 1 + mark.length + len;
    }
    if (size > this.doc.length) this.doc = grow(this.doc, size);
    const doc = this.doc;
    const arena = this.arena;
    let at = 0;
    for (let k = 0; k < this.count; k++) {
      if (k > 0) doc[at++] = 32;
      const id = this.ids[k]!;
      for (let o = this.offsets[id]!, end = this.offsets[id + 1]!; o < end; o++) doc[at++] = arena[o]!;
    }
    for (let k = 0; k < this.count; k++) {
      const id = this.ids[k]!;
      if (this.casedFile[id] === fileNo) continue;
      doc[at++] = 32;
      for (let m = 0; m < mark.length; m++) doc[at++] = mark[m]!;
      for (let o = this.offsets[id]!, end = this.offsets[id + 1]!; o < end; o++) doc[at++] = arena[o]!;
    }
    return doc.subarray(0, size);
  }

  private scan(bytes: Uint8Array): void {
    const fileNo = ++this.file;
    this.firstNew = this.terms.length;
    this.count = 0;
    const n = bytes.length;
    const lower = LOWER_TOKEN_BYTE;
    let i = 0;
    while (i < n) {
      let c = lower[bytes[i]!]!;
      if (c === 0) {
        i++;
        continue;
      }
      const start = i;
      let h = 0x811c9dc5 | 0;
      let cased = false;
      do {
        if (c !== bytes[i]) cased = true;
        h = Math.imul(h ^ c, 0x01000193);
        c = ++i < n ? lower[bytes[i]!]! : 0;
      } while (c !== 0);
      const len = i - start;
      if (len < MIN_TOKEN_CHARS || len > MAX_TOKEN_CHARS) continue;
      const id = this.intern(bytes, start, len, h);
      if (cased) this.casedFile[id] = fileNo;
      if (this.lastFile[id] !== fileNo) {
        this.lastFile[id] = fileNo;
        if (this.count === this.ids.length) this.ids = grow(this.ids, this.count + 1);
        this.ids[this.count++] = id;
      }
    }
  }

  /** Tokens the last scan met for the first time in this interner. */
  newTokens(): string[] {
    return this.terms.slice(this.firstNew);
  }

  private intern(bytes: Uint8Array, start: number, len: number, h: number): number {
    const mask = this.slots.length - 1;
    for (let slot = h & mask; ; slot = (slot + 1) & mask) {
      const v = this.slots[slot]!;
      if (v === 0) return this.add(bytes, start, len, h, slot);
      const id = v - 1;
      if (this.hashes[id] !== h) continue;
      const off = this.offsets[id]!;
      if (this.offsets[id + 1]! - off !== len) continue;
      let same = true;
      for (let k = 0; k < len; k++) {
        if (this.arena[off + k] !== LOWER_TOKEN_BYTE[bytes[start + k]!]) {
          same = false;
          break;
        }
      }
      if (same) return id;
    }
  }

  private add(bytes: Uint8Array, start: number, len: number, h: number, slot: number): number {
    const id = this.terms.length;
    if (this.used + len > this.arena.length) this.arena = grow(this.arena, this.used + len);
    if (id + 2 > this.offsets.length) {
      this.offsets = grow(this.offsets, id + 2);
      this.hashes = grow(this.hashes, id + 2);
      this.lastFile = grow(this.lastFile, id + 2);
      this.casedFile = grow(this.casedFile, id + 2);
    }
    const off = this.used;
    for (let k = 0; k < len; k++) this.arena[off + k] = LOWER_TOKEN_BYTE[bytes[start + k]!]!;
    const s = Buffer.from(this.arena.buffer, this.arena.byteOffset + off, len).toString('latin1');
    this.used += len;
    this.offsets[id] = off;
    this.offsets[id + 1] = this.used;
    this.hashes[id] = h;
    this.terms.push(s);
    this.slots[slot] = id + 1;
    if (this.terms.length * 2 > this.slots.length) this.rehash();
    return id;
  }

  private rehash(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.terms.length; id++) {
      let slot = this.hashes[id]! & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }
}

function grow<T extends Uint8Array | Int32Array>(a: T, atLeast: number): T {
  let n = a.length * 2;
  while (n < atLeast) n *= 2;
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

/** How a query fragment must relate to a file token. */
export type TokenConstraint =
  /** `cased`: the query spells the fragment with a capital letter. */
  | { kind: 'exact'; text: string; cased?: true }
  | { kind: 'prefix'; text: string; cased?: true } // token starts with text
  | { kind: 'suffix'; text: string; cased?: true } // token ends with text
  | { kind: 'substring'; text: string; cased?: true }; // token contains text

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
    const spelled = query.slice(i, j);
    const text = spelled.toLowerCase();
    const atStart = i === 0 && !wholeWord;
    const atEnd = j === n && !wholeWord;
    const kind: TokenConstraint['kind'] = atStart && atEnd ? 'substring' : atStart ? 'suffix' : atEnd ? 'prefix' : 'exact';
    if (text.length > MAX_TOKEN_CHARS) {
      // The file token containing this run is longer than MAX_TOKEN_CHARS, hence not indexed.
      unindexable = true;
    } else if (text.length >= MIN_TOKEN_CHARS) {
      constraints.push(spelled !== text ? { kind, text, cased: true } : { kind, text });
    }
    i = j;
  }
  return { constraints, unindexable };
}
