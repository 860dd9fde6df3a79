/**
 * An inverted index over files with separate fields (bm25f.ts FIELD_NAMES), in typed arrays:
 * per field, the postings of every term in one Int32Array (`doc << 8 | tf`, tf capped at 255),
 * sliced by `offsets`; per document and field its length in words. Terms are stems (words.ts),
 * numbered in a vocabulary shared with the indexes built after it (a delta keeps the base's ids).
 *
 * Built once from per-document term counts (`FieldIndexBuilder`), then read-only: a changed file
 * is marked dead in the index that holds it and its new content goes to a newer, smaller index
 * (see fileRanking.ts).
 */
import { runSteps } from '../../core/timeSlice';
import { FIELD_COUNT } from './bm25f';

export const MAX_TF = 255;

export interface RankDoc {
  fileId: number;
  path: string;
  /** The file's content hash when indexed (a different hash in the catalog = changed). */
  hash: string;
  test: boolean;
  generated: boolean;
}

export class Vocabulary {
  readonly ids = new Map<string, number>();
  readonly terms: string[] = [];

  id(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.terms.length;
      this.terms.push(term);
      this.ids.set(term, id);
    }
    return id;
  }
}

export class FieldIndex {
  /** Per document (index = doc number). */
  readonly docs: RankDoc[];
  /** Dead documents (replaced by a newer index, or deleted). */
  readonly dead: Uint8Array;
  liveCount: number;
  /** len[f][doc]: words of field f in the document. */
  readonly len: Float32Array[];
  /** Average length per field over the documents. */
  readonly avg: number[];

  constructor(
    readonly vocab: Vocabulary,
    docs: RankDoc[],
    len: Float32Array[],
    /** Per field: postings of term t are postings[f][offsets[f][t] .. offsets[f][t + 1]). */
    private readonly offsets: Uint32Array[],
    private readonly postings: Int32Array[],
  ) {
    this.docs = docs;
    this.dead = new Uint8Array(docs.length);
    this.liveCount = docs.length;
    this.len = len;
    this.avg = len.map((l) => {
      let s = 0;
      for (let i = 0; i < l.length; i++) s += l[i]!;
      return l.length ? s / l.length : 0;
    });
  }

  kill(doc: number): void {
    if (!this.dead[doc]) {
      this.dead[doc] = 1;
      this.liveCount--;
    }
  }

  /** Calls `fn(doc, tf)` for every posting of the term in field f (dead documents included). */
  forEach(f: number, termId: number, fn: (doc: number, tf: number) => void): void {
    const off = this.offsets[f]!;
    if (termId + 1 >= off.length) return;
    const p = this.postings[f]!;
    for (let i = off[termId]!, e = off[termId + 1]!; i < e; i++) {
      const v = p[i]!;
      fn(v >>> 8, v & 255);
    }
  }

  /** The term's frequency in one document's field f (postings are sorted by document: a binary search). */
  tfOf(f: number, termId: number, doc: number): number {
    const off = this.offsets[f]!;
    if (termId + 1 >= off.length) return 0;
    const p = this.postings[f]!;
    let lo = off[termId]!;
    let hi = off[termId + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const d = p[mid]! >>> 8;
      if (d === doc) return p[mid]! & 255;
      if (d < doc) lo = mid + 1;
      else hi = mid - 1;
    }
    return 0;
  }

  /** Documents holding the term in field f (dead included). */
  count(f: number, termId: number): number {
    const off = this.offsets[f]!;
    return termId + 1 >= off.length ? 0 : off[termId + 1]! - off[termId]!;
  }

  /** The arrays (for saving). */
  raw(): { len: Float32Array[]; offsets: Uint32Array[]; postings: Int32Array[] } {
    return { len: this.len, offsets: this.offsets, postings: this.postings };
  }

  bytes(): number {
    let n = 0;
    for (let f = 0; f < FIELD_COUNT; f++) n += this.postings[f]!.byteLength + this.offsets[f]!.byteLength + this.len[f]!.byteLength;
    return n + this.docs.length * 120;
  }
}

/** Collects documents, then freezes them into a FieldIndex. */
export class FieldIndexBuilder {
  private readonly docs: RankDoc[] = [];
  private readonly lens: number[][] = Array.from({ length: FIELD_COUNT }, () => []);
  /** Per field: the postings in document order, as (term, packed) pairs. */
  private readonly pairs: number[][] = Array.from({ length: FIELD_COUNT }, () => []);
  /** Counts of the document being added, keyed term * FIELD_COUNT + field. */
  private current = new Map<number, number>();
  private currentLen = new Array<number>(FIELD_COUNT).fill(0);

  constructor(readonly vocab: Vocabulary) {}

  add(term: string, field: number, times = 1): void {
    const key = this.vocab.id(term) * FIELD_COUNT + field;
    this.current.set(key, (this.current.get(key) ?? 0) + times);
    this.currentLen[field]! += times;
  }

  /** Ends the document whose terms were just added. */
  endDoc(doc: RankDoc): void {
    const n = this.docs.length;
    this.docs.push(doc);
    for (let f = 0; f < FIELD_COUNT; f++) this.lens[f]!.push(this.currentLen[f]!);
    for (const [key, tf] of this.current) {
      const f = key % FIELD_COUNT;
      const t = (key - f) / FIELD_COUNT;
      this.pairs[f]!.push(t, (n << 8) | Math.min(MAX_TF, tf));
    }
    this.current = new Map();
    this.currentLen = new Array<number>(FIELD_COUNT).fill(0);
  }

  build(): FieldIndex {
    return runSteps(this.buildSteps());
  }

  /** build as steps (core/timeSlice.ts): one per field. */
  *buildSteps(): Generator<void, FieldIndex> {
    const terms = this.vocab.terms.length;
    const offsets: Uint32Array[] = [];
    const postings: Int32Array[] = [];
    for (let f = 0; f < FIELD_COUNT; f++) {
      yield;
      const pr = this.pairs[f]!;
      const off = new Uint32Array(terms + 1);
      for (let i = 0; i < pr.length; i += 2) off[pr[i]! + 1]!++;
      for (let t = 0; t < terms; t++) off[t + 1]! += off[t]!;
      const fill = off.slice(0, terms);
      const p = new Int32Array(pr.length / 2);
      // Pairs are in document order, so each term's postings come out sorted by document.
      for (let i = 0; i < pr.length; i += 2) p[fill[pr[i]!]!++] = pr[i + 1]!;
      offsets.push(off);
      postings.push(p);
      this.pairs[f] = [];
    }
    return new FieldIndex(
      this.vocab,
      this.docs,
      this.lens.map((l) => Float32Array.from(l)),
      offsets,
      postings,
    );
  }
}
