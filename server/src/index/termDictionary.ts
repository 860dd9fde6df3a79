/**
 * The in-memory token dictionary (loaded from the `terms` blob): expands a prefix, suffix or
 * substring fragment to the indexed tokens that satisfy it.
 *
 * The stored terms are kept as they are stored — one sorted array (the blob is written sorted) —
 * so loading is a split, never a sort or a hash set of ~10^5-10^6 strings (that was most of the
 * first search_text that needed the dictionary). Membership and prefix lookups binary-search it;
 * suffix and substring lookups run one native `indexOf` over the terms joined by newlines (built on
 * the first such lookup) instead of a test per term. Terms added since (a changed file's new
 * tokens) sit in a small set beside it and are folded in when the dictionary is serialised.
 */
import type { TokenConstraint } from './tokens';

export class TermDictionary {
  /** Stored terms, sorted and distinct. */
  private base: string[] = [];
  /** `\n` + base joined by `\n` + `\n`, for suffix and substring scans (built when first needed). */
  private joined: string | undefined;
  /** Terms added since `base` was set, none of them in it. */
  private extra = new Set<string>();
  private extraSorted: string[] | undefined;
  /** Where the terms come from until first needed (a warm start that changes nothing never reads them). */
  private pending: (() => Iterable<string>) | undefined;
  /** Terms added before the stored ones were read (merged when they are). */
  private early: Set<string> | undefined;

  constructor(terms: Iterable<string> = []) {
    this.reset(terms);
  }

  reset(terms: Iterable<string>): void {
    this.pending = undefined;
    this.early = undefined;
    this.setBase(terms);
  }

  /** Like `reset`, but the terms are read on first use. */
  resetLazy(load: () => Iterable<string>): void {
    this.pending = load;
    this.early = undefined;
    this.base = [];
    this.joined = undefined;
    this.extra = new Set();
    this.extraSorted = undefined;
  }

  /** Sorted distinct terms as `base` (an array already sorted and distinct, as stored, is taken as is). */
  private setBase(terms: Iterable<string>): void {
    let a = Array.isArray(terms) ? (terms as string[]) : [...terms];
    let ordered = true;
    for (let i = 1; i < a.length && ordered; i++) if (!(a[i - 1]! < a[i]!)) ordered = false;
    if (!ordered) a = [...new Set(a)].sort();
    const text = ordered ? parsedFrom.get(a) : undefined;
    this.base = a;
    this.joined = text === undefined ? undefined : `\n${text}\n`;
    this.extra = new Set();
    this.extraSorted = undefined;
  }

  private load(): void {
    if (!this.pending) return;
    const load = this.pending;
    this.pending = undefined;
    this.setBase(load());
    if (this.early) for (const t of this.early) this.add(t);
    this.early = undefined;
  }

  /**
   * Adds a term; returns true when it was new. Before the stored terms are read the term is kept
   * aside and the answer is true (new as far as is known): the first saved file after start must
   * not wait for the whole dictionary; the caller writes the terms later (deferred after a save).
   */
  add(term: string): boolean {
    if (this.pending) {
      (this.early ??= new Set()).add(term);
      return true;
    }
    if (this.extra.has(term) || this.inBase(term)) return false;
    this.extra.add(term);
    this.extraSorted = undefined;
    return true;
  }

  /** Newline-joined sorted terms (stored as one blob; see schema.ts). The added terms join the stored ones. */
  serialize(): string {
    this.load();
    if (this.extra.size > 0) {
      this.base = mergeSorted(this.base, this.sortedExtra());
      this.joined = undefined;
      this.extra = new Set();
      this.extraSorted = undefined;
    }
    return this.base.join('\n');
  }

  static parse(text: string | undefined): string[] {
    const terms = text ? text.split('\n') : [];
    if (text) parsedFrom.set(terms, text);
    return terms;
  }

  get size(): number {
    this.load();
    return this.base.length + this.extra.size;
  }

  has(term: string): boolean {
    this.load();
    return this.extra.has(term) || this.inBase(term);
  }

  private inBase(term: string): boolean {
    const i = lowerBound(this.base, term);
    return i < this.base.length && this.base[i] === term;
  }

  private sortedExtra(): string[] {
    return (this.extraSorted ??= [...this.extra].sort());
  }

  /**
   * Tokens satisfying a constraint, in sorted order, or `undefined` when more than `max` would
   * (the caller then drops the constraint or falls back to scanning).
   */
  expand(c: TokenConstraint, max: number): string[] | undefined {
    if (c.kind === 'exact') return this.has(c.text) ? [c.text] : [];
    this.load();
    const text = c.text;
    const fromBase: string[] = [];
    if (c.kind === 'prefix') {
      for (let i = lowerBound(this.base, text); i < this.base.length; i++) {
        const t = this.base[i]!;
        if (!t.startsWith(text)) break;
        fromBase.push(t);
        if (fromBase.length > max) return undefined;
      }
    } else {
      // One native search over the joined terms; a hit's term runs between the newlines around it.
      const joined = (this.joined ??= `\n${this.base.join('\n')}\n`);
      const needle = c.kind === 'suffix' ? `${text}\n` : text;
      for (let at = joined.indexOf(needle, 1); at >= 0; ) {
        const start = joined.lastIndexOf('\n', at) + 1;
        const end = joined.indexOf('\n', at + text.length);
        fromBase.push(joined.slice(start, end));
        if (fromBase.length > max) return undefined;
        at = joined.indexOf(needle, end + 1);
      }
    }
    if (this.extra.size === 0) return fromBase;
    const test = c.kind === 'prefix' ? (t: string) => t.startsWith(text) : c.kind === 'suffix' ? (t: string) => t.endsWith(text) : (t: string) => t.includes(text);
    const added = this.sortedExtra().filter(test);
    if (fromBase.length + added.length > max) return undefined;
    return added.length === 0 ? fromBase : mergeSorted(fromBase, added);
  }
}

/** The blob text a `parse` result came from (a loaded dictionary scans it instead of joining the terms again). */
const parsedFrom = new WeakMap<string[], string>();

function lowerBound(a: readonly string[], x: string): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Two sorted lists with no element in common, merged in order. */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
