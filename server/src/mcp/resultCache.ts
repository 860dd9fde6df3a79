/**
 * Results kept for their cursor (the paging contract, docs/architecture.md "Paging"): what a
 * handler computes through `env.once` on the first page of an answer (a provider's references,
 * a call hierarchy walk, a scan that stopped at its deadline) is kept here, and every later page
 * of that answer is served from it, so page 2 never re-asks a provider that may answer in another
 * order. Bounded by bytes (least recently used first) and by age; a cursor whose result is gone
 * answers STALE_CURSOR. One cache per engine, shared by every MCP session of it.
 */
import { ToolError } from '../core/errors';
import { CURSOR_TTL_MS, PAGED_RESULT_CACHE_BYTES, PAGED_RESULT_MAX_ENTRY_BYTES } from '../core/limits';
import { STALE_HINT } from './cursor';

interface Entry {
  id: number;
  /** tool + query hash + index version the values belong to. */
  owner: string;
  values: Map<string, unknown>;
  bytes: number;
  usedAt: number;
}

export class ResultCache {
  private readonly entries = new Map<number, Entry>(); // insertion order = least recently used first
  private bytes = 0;
  private nextId = 1;

  constructor(
    readonly maxBytes = PAGED_RESULT_CACHE_BYTES,
    readonly maxEntryBytes = PAGED_RESULT_MAX_ENTRY_BYTES,
    readonly ttlMs = CURSOR_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh id for the result a first page computes (kept only if a cursor needs it: `keep`). */
  allocate(): number {
    return this.nextId++;
  }

  /** The kept values of result `id`, or STALE_CURSOR when they were evicted, expired or belong to another query. */
  get(id: number, owner: string): Map<string, unknown> {
    const e = this.entries.get(id);
    if (e && this.now() - e.usedAt > this.ttlMs) this.drop(e);
    if (!e || !this.entries.has(id)) {
      throw new ToolError('STALE_CURSOR', 'The result this cursor pages through is no longer kept (evicted or expired)', STALE_HINT);
    }
    if (e.owner !== owner) throw new ToolError('STALE_CURSOR', 'The cursor belongs to a different query or index version', STALE_HINT);
    this.entries.delete(id);
    e.usedAt = this.now();
    this.entries.set(id, e);
    return e.values;
  }

  /** Keeps `values` under `id`; false when they are too big to keep (the cursor then re-computes, checked by its row hash). */
  keep(id: number, owner: string, values: Map<string, unknown>, bytes: number): boolean {
    const old = this.entries.get(id);
    if (old) this.drop(old);
    if (bytes > this.maxEntryBytes || bytes > this.maxBytes) return false;
    const e: Entry = { id, owner, values, bytes, usedAt: this.now() };
    this.entries.set(id, e);
    this.bytes += bytes;
    for (const victim of this.entries.values()) {
      if (this.bytes <= this.maxBytes) break;
      if (victim !== e) this.drop(victim);
    }
    return true;
  }

  has(id: number): boolean {
    return this.entries.has(id);
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }

  private drop(e: Entry): void {
    if (this.entries.delete(e.id)) this.bytes -= e.bytes;
  }
}

const caches = new WeakMap<object, ResultCache>();

/** The cache of one engine (every session of it shares the byte bound). */
export function resultCacheOf(engine: object): ResultCache {
  let c = caches.get(engine);
  if (!c) caches.set(engine, (c = new ResultCache()));
  return c;
}
