/**
 * The distinct declaration names of the symbols table (held by the in-memory symbol table, see
 * symbolTable.ts): search_symbol matches a query against these (exact, prefix, camelCase, fuzzy,
 * regex), then ranks the rows of the matching names. Names are only added until the table is
 * rebuilt; a name whose last declaration was deleted has no live rows, which is harmless.
 *
 * Per name, two 32-bit masks make the linear scans cheap: the letters that start a word
 * (GetRequiredService → g, r, s) and the letters/digits that occur at all. A query is checked
 * against the masks before any string work. Prefix queries use a sorted index (rebuilt lazily
 * when many names were added since).
 */
export class SymbolNames {
  /** Names as declared, in insertion order. */
  readonly names: string[] = [];
  /** Lower-cased names, same order. */
  readonly lower: string[] = [];
  /** Bit per letter a–z that starts a word of the name. */
  private initialsMask = new Uint32Array(1024);
  /** Bit per letter a–z and per digit class that occurs in the name. */
  private charMask = new Uint32Array(1024);
  /**
   * The lower-cased names' UTF-16 units back to back (name i is [codeStart[i], codeStart[i + 1])):
   * letter-by-letter scans over every name read one contiguous array instead of 100,000 strings.
   */
  codes = new Uint16Array(1 << 16);
  codeStart = new Uint32Array(1025);
  /**
   * Words of each name as (start, length) byte pairs into its packed units (name i's pairs are
   * [wordStart[i], wordStart[i + 1]) in pairs): camelCase matching walks them without strings.
   * A name whose lower-cased form changes length, or longer than 255 units, has no pairs
   * (`wordStart[i + 1] === wordStart[i]` with `packedWords[i] === 0`) and uses wordsAt.
   */
  wordSpans = new Uint8Array(1 << 14);
  wordStart = new Uint32Array(1025);
  packedWords = new Uint8Array(1024);
  /** First two UTF-16 units of the lower-cased name (headOf): prefix tests without touching the string. */
  private head = new Uint32Array(1024);
  private known = new Map<string, number>();
  private byLower = new Map<string, string[]>();
  private wordsCache: (string[] | undefined)[] = [];
  private initialsCache: (string | undefined)[] = [];
  /** Indices sorted by lower-cased name, covering names [0, sortedCount). */
  private sorted: Uint32Array = new Uint32Array(0);
  private sortedCount = 0;
  private chars = 0;

  /** The id of a name (added when new). */
  add(name: string): number {
    const known = this.known.get(name);
    if (known !== undefined) return known;
    const i = this.names.length;
    this.known.set(name, i);
    this.chars += name.length;
    const l = name.toLowerCase();
    this.names.push(name);
    this.lower.push(l);
    const list = this.byLower.get(l);
    if (list) list.push(name);
    else this.byLower.set(l, [name]);
    if (i >= this.initialsMask.length) {
      const grow = (a: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> => {
        const b = new Uint32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.initialsMask = grow(this.initialsMask);
      this.charMask = grow(this.charMask);
      this.head = grow(this.head);
      const packed = new Uint8Array(this.packedWords.length * 2);
      packed.set(this.packedWords);
      this.packedWords = packed;
    }
    const starts = wordStarts(name);
    if (i + 2 > this.wordStart.length) {
      const bigger = new Uint32Array(this.wordStart.length * 2);
      bigger.set(this.wordStart);
      this.wordStart = bigger;
    }
    const w0 = this.wordStart[i] ?? 0;
    let w1 = w0;
    if (l.length === name.length && name.length <= 255) {
      if (2 * (w0 + starts.length) > this.wordSpans.length) {
        const bigger = new Uint8Array(Math.max(this.wordSpans.length * 2, 2 * (w0 + starts.length)));
        bigger.set(this.wordSpans);
        this.wordSpans = bigger;
      }
      for (let w = 0; w < starts.length; w++) {
        const from = starts[w] ?? 0;
        let to = w + 1 < starts.length ? (starts[w + 1] ?? name.length) : name.length;
        while (to > from && classOf(name.charCodeAt(to - 1)) === Ch.Other) to--;
        this.wordSpans[2 * w1] = from;
        this.wordSpans[2 * w1 + 1] = to - from;
        w1++;
      }
      this.packedWords[i] = 1;
    }
    this.wordStart[i + 1] = w1;
    const initials = starts.map((k) => name[k] ?? '').join('').toLowerCase();
    this.initialsCache[i] = initials;
    this.initialsMask[i] = maskOf(initials);
    this.charMask[i] = maskOf(l);
    this.head[i] = headOf(l);
    const from = this.codeStart[i] ?? 0;
    if (from + l.length > this.codes.length) {
      const bigger = new Uint16Array(Math.max(this.codes.length * 2, from + l.length));
      bigger.set(this.codes);
      this.codes = bigger;
    }
    if (i + 2 > this.codeStart.length) {
      const bigger = new Uint32Array(this.codeStart.length * 2);
      bigger.set(this.codeStart);
      this.codeStart = bigger;
    }
    for (let k = 0; k < l.length; k++) this.codes[from + k] = l.charCodeAt(k);
    this.codeStart[i + 1] = from + l.length;
    return i;
  }

  /** Id of a name, or undefined. */
  idOf(name: string): number | undefined {
    return this.known.get(name);
  }

  /** Forgets every name. */
  clear(): void {
    this.names.length = 0;
    this.lower.length = 0;
    this.known = new Map();
    this.byLower = new Map();
    this.wordsCache = [];
    this.initialsCache = [];
    this.initialsMask = new Uint32Array(1024);
    this.charMask = new Uint32Array(1024);
    this.head = new Uint32Array(1024);
    this.wordSpans = new Uint8Array(1 << 14);
    this.wordStart = new Uint32Array(1025);
    this.packedWords = new Uint8Array(1024);
    this.codes = new Uint16Array(1 << 16);
    this.codeStart = new Uint32Array(1025);
    this.sorted = new Uint32Array(0);
    this.sortedCount = 0;
    this.chars = 0;
  }

  /** Approximate bytes held: strings (twice: as declared and lower-cased), maps, masks, the sorted index. */
  bytes(): number {
    return this.chars * 4 + this.names.length * 120 + this.initialsMask.byteLength * 3 + this.sorted.byteLength + this.codes.byteLength + this.codeStart.byteLength + this.wordSpans.byteLength + this.wordStart.byteLength;
  }

  get size(): number {
    return this.names.length;
  }

  /** Declared spellings equal to `name` ignoring case. */
  spellings(name: string): readonly string[] {
    return this.byLower.get(name.toLowerCase()) ?? [];
  }

  /** True when every letter of `mask` starts some word of name `i`. */
  hasInitials(i: number, mask: number): boolean {
    return ((this.initialsMask[i] ?? 0) & mask) === mask;
  }

  /** Length of lower-cased name `i` in UTF-16 units (from the packed units; no string is read). */
  lengthOf(i: number): number {
    return (this.codeStart[i + 1] ?? 0) - (this.codeStart[i] ?? 0);
  }

  /** headOf(lower-cased name `i`). */
  headAt(i: number): number {
    return this.head[i] ?? 0;
  }

  /** Letters/digit class occurring in name `i` (see maskOf). */
  charMaskAt(i: number): number {
    return this.charMask[i] ?? 0;
  }

  /** True when every letter/digit class of `mask` occurs in name `i`. */
  hasChars(i: number, mask: number): boolean {
    return ((this.charMask[i] ?? 0) & mask) === mask;
  }

  /** Lower-cased words of name `i` (GetRequiredService → get|required|service), cached. */
  wordsAt(i: number): string[] {
    let w = this.wordsCache[i];
    if (!w) {
      w = splitWords(this.names[i] ?? '').map((x) => x.toLowerCase());
      this.wordsCache[i] = w;
    }
    return w;
  }

  /** First letters of the words of name `i`, lower case (GetRequiredService → grs), cached. */
  initialsAt(i: number): string {
    let s = this.initialsCache[i];
    if (s === undefined) {
      s = wordInitials(this.names[i] ?? '');
      this.initialsCache[i] = s;
    }
    return s;
  }

  /**
   * Indices of the names starting with `lowerPrefix` (lower case): binary search over the sorted
   * index, plus a scan of the names added since it was built.
   */
  withPrefix(lowerPrefix: string): number[] {
    const n = this.names.length;
    if (n - this.sortedCount > Math.max(1000, n / 20)) this.resort();
    const out: number[] = [];
    const sorted = this.sorted;
    let lo = 0;
    let hi = this.sortedCount;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((this.lower[sorted[mid] ?? 0] ?? '') < lowerPrefix) lo = mid + 1;
      else hi = mid;
    }
    for (let k = lo; k < this.sortedCount; k++) {
      const idx = sorted[k] ?? 0;
      if (!(this.lower[idx] ?? '').startsWith(lowerPrefix)) break;
      out.push(idx);
    }
    for (let i = this.sortedCount; i < n; i++) if ((this.lower[i] ?? '').startsWith(lowerPrefix)) out.push(i);
    return out;
  }

  private resort(): void {
    const n = this.names.length;
    const idx = Array.from({ length: n }, (_, i) => i);
    const lower = this.lower;
    idx.sort((a, b) => {
      const x = lower[a] ?? '';
      const y = lower[b] ?? '';
      return x < y ? -1 : x > y ? 1 : 0;
    });
    this.sorted = Uint32Array.from(idx);
    this.sortedCount = n;
  }
}

/** The first two UTF-16 units of `s` packed in 32 bits (the second 0 when missing). */
export function headOf(s: string): number {
  return ((s.charCodeAt(0) || 0) | ((s.charCodeAt(1) || 0) << 16)) >>> 0;
}

/** A bit per letter a–z (bits 0–25) and one for any digit (bit 26) occurring in `s`. */
export function maskOf(s: string): number {
  let m = 0;
  for (let k = 0; k < s.length; k++) {
    const raw = s.charCodeAt(k);
    if (raw >= 48 && raw <= 57) {
      m |= 1 << 26;
      continue;
    }
    const c = raw | 0x20;
    if (c >= 97 && c <= 122) m |= 1 << (c - 97);
  }
  return m >>> 0;
}

const enum Ch {
  Other,
  Upper,
  Lower,
  Digit,
}

function classOf(c: number): Ch {
  if (c >= 65 && c <= 90) return Ch.Upper;
  if (c >= 97 && c <= 122) return Ch.Lower;
  if (c >= 48 && c <= 57) return Ch.Digit;
  if (c > 127) return Ch.Lower; // non-ASCII letters continue a word
  return Ch.Other;
}

/** Start offsets of the words of an identifier (camel humps, acronyms, digit runs, separators). */
function wordStarts(name: string): number[] {
  const starts: number[] = [];
  let prev = Ch.Other;
  for (let k = 0; k < name.length; k++) {
    const cur = classOf(name.charCodeAt(k));
    if (cur === Ch.Other) {
      prev = cur;
      continue;
    }
    const next = k + 1 < name.length ? classOf(name.charCodeAt(k + 1)) : Ch.Other;
    const start =
      prev === Ch.Other ||
      (cur === Ch.Upper && prev === Ch.Lower) ||
      (cur === Ch.Upper && prev === Ch.Upper && next === Ch.Lower) ||
      (cur === Ch.Digit && prev !== Ch.Digit) ||
      (cur !== Ch.Digit && prev === Ch.Digit);
    if (start) starts.push(k);
    prev = cur;
  }
  return starts;
}

/** Splits an identifier into words: GetRequiredService → Get|Required|Service, XMLHttpRequest → XML|Http|Request, get_x → get|x. */
export function splitWords(name: string): string[] {
  const starts = wordStarts(name);
  const out: string[] = [];
  for (let w = 0; w < starts.length; w++) {
    const from = starts[w] ?? 0;
    let to = w + 1 < starts.length ? (starts[w + 1] ?? name.length) : name.length;
    while (to > from && classOf(name.charCodeAt(to - 1)) === Ch.Other) to--;
    out.push(name.slice(from, to));
  }
  return out;
}

/** Lower-cased first letters of the words (GetRequiredService → grs). */
export function wordInitials(name: string): string {
  return wordStarts(name)
    .map((k) => name[k] ?? '')
    .join('')
    .toLowerCase();
}
