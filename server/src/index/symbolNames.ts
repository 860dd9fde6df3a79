/**
 * The distinct declaration names of the symbols table, held in memory per store: search_symbol
 * matches a query against these (exact, prefix, camelCase, fuzzy, regex) and then reads only the
 * rows of the matching names through the `symbols_name` index. Names are only added; a name whose
 * last declaration was deleted matches no row, which is harmless.
 */
import type { IndexStore } from './store';
import { ensureSymbolTables } from './symbolTables';

export class SymbolNames {
  /** Names as declared, in insertion order. */
  readonly names: string[] = [];
  /** Lower-cased names, same order. */
  readonly lower: string[] = [];
  private readonly known = new Set<string>();
  /** Lower-cased name → declared spellings. */
  private readonly byLower = new Map<string, string[]>();

  add(name: string): void {
    if (this.known.has(name)) return;
    this.known.add(name);
    const l = name.toLowerCase();
    this.names.push(name);
    this.lower.push(l);
    const list = this.byLower.get(l);
    if (list) list.push(name);
    else this.byLower.set(l, [name]);
  }

  private readonly initialsCache: (string | undefined)[] = [];
  private readonly wordsCache: (string[] | undefined)[] = [];

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
      s = this.wordsAt(i)
        .map((w) => w[0] ?? '')
        .join('');
      this.initialsCache[i] = s;
    }
    return s;
  }

  /** Declared spellings equal to `name` ignoring case. */
  spellings(name: string): readonly string[] {
    return this.byLower.get(name.toLowerCase()) ?? [];
  }

  get size(): number {
    return this.names.length;
  }
}

const cache = new WeakMap<IndexStore, SymbolNames>();

/** The name dictionary of a store, loaded from the symbols table on first use. */
export function symbolNamesFor(store: IndexStore): SymbolNames {
  let n = cache.get(store);
  if (!n) {
    ensureSymbolTables(store);
    n = new SymbolNames();
    for (const r of store.rows('SELECT DISTINCT name FROM symbols')) n.add(r[0] as string);
    cache.set(store, n);
  }
  return n;
}

/** Adds names to a store's dictionary if it is loaded (otherwise the next load reads them). */
export function noteSymbolNames(store: IndexStore, names: Iterable<string>): void {
  const n = cache.get(store);
  if (!n) return;
  for (const name of names) n.add(name);
}

/** Splits an identifier into words: GetRequiredService → Get|Required|Service, XMLHttpRequest → XML|Http|Request, get_x → get|x. */
export function splitWords(name: string): string[] {
  const out: string[] = [];
  const re = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
  for (const part of name.split(/[_\-$@.\s]+/)) {
    if (!part) continue;
    const m = part.match(re);
    if (m) out.push(...m);
    else out.push(part);
  }
  return out;
}
