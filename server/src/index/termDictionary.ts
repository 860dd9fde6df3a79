/**
 * The in-memory token dictionary (loaded from the `terms` table): expands a prefix, suffix or
 * substring fragment to the indexed tokens that satisfy it. Prefix lookups use binary search over
 * the sorted array; suffix and substring lookups scan it (a few ms for ~10^6 terms).
 */
import type { TokenConstraint } from './tokens';

export class TermDictionary {
  private sorted: string[] = [];
  private sortedValid = true;
  private terms = new Set<string>();
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
    this.terms = new Set(terms);
    this.sortedValid = false;
  }

  /** Like `reset`, but the terms are read on first use. */
  resetLazy(load: () => Iterable<string>): void {
    this.pending = load;
    this.early = undefined;
    this.terms = new Set();
    this.sortedValid = false;
  }

  private get set(): Set<string> {
    if (this.pending) {
      const load = this.pending;
      this.pending = undefined;
      this.terms = new Set(load());
      if (this.early) for (const t of this.early) this.terms.add(t);
      this.early = undefined;
    }
    return this.terms;
  }

  /**
   * Adds a term; returns true when it was new. Sorting is deferred to the next lookup. Before the
   * stored terms are read the term is kept aside and the answer is true (new as far as is known):
   * the first saved file after start must not wait for the whole dictionary (~0.3-0.5 s on a
   * 1.7 M-line repository); the caller writes the terms later (deferred after a save).
   */
  add(term: string): boolean {
    if (this.pending) {
      (this.early ??= new Set()).add(term);
      return true;
    }
    const set = this.set;
    if (set.has(term)) return false;
    set.add(term);
    this.sortedValid = false;
    return true;
  }

  /** Newline-joined sorted terms (stored as one blob; see schema.ts). */
  serialize(): string {
    return this.ordered().join('\n');
  }

  static parse(text: string | undefined): string[] {
    return text ? text.split('\n') : [];
  }

  get size(): number {
    return this.set.size;
  }

  private ordered(): string[] {
    if (!this.sortedValid) {
      this.sorted = [...this.set].sort();
      this.sortedValid = true;
    }
    return this.sorted;
  }

  has(term: string): boolean {
    return this.set.has(term);
  }

  /**
   * Tokens satisfying a constraint, or `undefined` when more than `max` would (the caller then
   * drops the constraint or falls back to scanning).
   */
  expand(c: TokenConstraint, max: number): string[] | undefined {
    if (c.kind === 'exact') return this.set.has(c.text) ? [c.text] : [];
    const out: string[] = [];
    const sorted = this.ordered();
    if (c.kind === 'prefix') {
      for (let i = lowerBound(sorted, c.text); i < sorted.length; i++) {
        const t = sorted[i]!;
        if (!t.startsWith(c.text)) break;
        out.push(t);
        if (out.length > max) return undefined;
      }
      return out;
    }
    const test = c.kind === 'suffix' ? (t: string) => t.endsWith(c.text) : (t: string) => t.includes(c.text);
    for (const t of sorted) {
      if (t.length >= c.text.length && test(t)) {
        out.push(t);
        if (out.length > max) return undefined;
      }
    }
    return out;
  }
}

function lowerBound(a: string[], x: string): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
