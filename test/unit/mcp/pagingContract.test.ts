/**
 * The paging contract of the MCP layer (mcp/answer.ts, cursor.ts, resultCache.ts) with tools of
 * our own over an in-memory MCP client and a real engine: pages concatenated are the whole answer
 * for any limit and byte budget, provider results are computed once, a moved result or an evicted
 * one is STALE_CURSOR, a row that does not fit is BUDGET_TOO_SMALL (never an endless empty page).
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import fc from 'fast-check';
import { z } from 'zod';
import { buildServer } from '../../../server/src/mcp/server';
import { ResultCache, resultCacheOf } from '../../../server/src/mcp/resultCache';
import { defineTool, type PageRequest, type ToolEnv, type ToolResult } from '../../../server/src/mcp/tool';
import { pagingArgs } from '../../../server/src/mcp/schemas';
import { Engine } from '../../../server/src/nav/engine';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

interface Row {
  id: number;
  text: string;
}

/** 120 rows of varied sizes (some ~1.5 KB), deterministic. */
const ROWS: Row[] = Array.from({ length: 120 }, (_, i) => ({ id: i, text: 'x'.repeat((i * 37) % 90) + (i % 17 === 0 ? 'y'.repeat(1500) : '') }));

let computeCount = 0;
let shuffleSeed = 1;
function shuffled(): Row[] {
  const a = ROWS.slice();
  for (let i = a.length - 1; i > 0; i--) {
    shuffleSeed = (shuffleSeed * 1103515245 + 12345) & 0x7fffffff;
    const j = shuffleSeed % (i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}

const input = z.strictObject({ q: z.string().optional(), ...pagingArgs });
const item = z.object({ id: z.number(), text: z.string() });

type Handle = (env: ToolEnv, args: z.infer<typeof input>, page: PageRequest) => Promise<ToolResult>;

/** A paged test tool over Row items. */
function rowsTool(name: string, description: string, handle: Handle) {
  return defineTool({ name, title: name, description, input, item, paged: true, row: (r: Row) => `${r.id} ${r.text.length}`, handle });
}

/** The page `page` asks for of `rows`, with their total. */
const pageOf = (rows: Row[], page: { offset: number; limit: number }) => ({ items: rows.slice(page.offset, page.offset + page.limit), total: rows.length, offset: page.offset });

/** A provider that answers in another order every time, kept through env.once (sorted by the nav layer's total order). */
const kept = rowsTool('kept_rows', 'rows from a provider, computed once per answer', async (env, _args, page) => {
  const rows = await env.once('rows', () => {
    computeCount++;
    return shuffled();
  });
  return { summary: `${rows.length} rows`, ...pageOf(rows, page) };
});

/** The same provider without env.once: page 2 re-asks it and gets another order. */
const reordering = rowsTool('reordering_rows', 'rows in another order on every call', async (_env, _args, page) => {
  const rows = shuffled();
  return { summary: `${rows.length} rows`, ...pageOf(rows, page) };
});

/** Returns every row whatever limit says (the layer cuts it to the limit). */
const greedy = rowsTool('greedy_rows', 'ignores limit', async (_env, _args, page) => ({ summary: 'all', items: ROWS.slice(page.offset), total: ROWS.length, offset: page.offset }));

/**
 * A provider whose whole result is capped (as callers/type_hierarchy are at their edge cap): the
 * rows in hand still page; `cap` says what no cursor can bring.
 */
const capped = rowsTool('capped_rows', 'a capped result, paged', async (env, _args, page) => {
  const rows = await env.once('rows', () => ROWS.slice(0, 50));
  return { summary: `${rows.length} rows (capped)`, ...pageOf(rows, page), truncated: 'cap' };
});

describe('the paging contract (mcp/answer.ts, cursor.ts, resultCache.ts)', function () {
  this.timeout(60_000);
  let ws: string;
  let engine: Engine;
  let client: Client;
  before(async () => {
    ws = tempDir('paging');
    writeTree(ws, { 'a.cs': 'class A {}' });
    engine = await Engine.open({ workspaceRoot: ws, indexRoot: '' });
    await engine.refresh();
    const server = buildServer(engine, { tools: [kept, reordering, greedy, capped] });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    client = new Client({ name: 't', version: '0' });
    await client.connect(b);
    await client.listTools(); // the client validates every answer against its outputSchema from here on
  });
  after(async () => {
    await client?.close();
    await engine.close();
    removeDir(ws);
  });

  async function callRaw(name: string, args: Record<string, unknown>): Promise<{ error?: string; sc?: any }> {
    const r = await client.callTool({ name, arguments: args });
    const text = (r.content as { text: string }[])[0]?.text ?? '';
    if (r.isError) return { error: text };
    assert.ok(Buffer.byteLength(text) <= ((args.maxBytes as number) ?? 8192), 'text within budget');
    assert.ok(Buffer.byteLength(JSON.stringify(r.structuredContent)) <= ((args.maxBytes as number) ?? 8192), 'JSON within budget');
    return { sc: r.structuredContent };
  }

  /** Follows every cursor; BUDGET_TOO_SMALL is answered by re-asking with the bytes it names. */
  async function allPages(name: string, args: Record<string, unknown>): Promise<{ rows: Row[]; pages: number; raised: number; raisedFirst: number }> {
    const rows: Row[] = [];
    let cursor: string | undefined;
    let pages = 0;
    let raised = 0;
    let raisedFirst = 0; // BUDGET_TOO_SMALL on the first page: no cursor yet, so the re-ask computes again
    let maxBytes = args.maxBytes as number | undefined;
    for (;;) {
      const r = await callRaw(name, { ...args, ...(maxBytes ? { maxBytes } : {}), ...(cursor ? { cursor } : {}) });
      if (r.error) {
        const m = /^Error \[BUDGET_TOO_SMALL\]: The answer needs (\d+) bytes/.exec(r.error);
        assert.ok(m, r.error);
        assert.ok(Number(m[1]) > (maxBytes ?? 8192), 'asks for more than it had');
        maxBytes = Number(m[1]);
        raised++;
        if (cursor === undefined) raisedFirst++;
        continue;
      }
      pages++;
      assert.ok(r.sc.items.length > 0 || r.sc.nextCursor === undefined, 'an empty page never carries a cursor');
      rows.push(...r.sc.items);
      if (!r.sc.nextCursor) break;
      assert.notEqual(r.sc.nextCursor, cursor, 'the cursor moves');
      cursor = r.sc.nextCursor;
      maxBytes = args.maxBytes as number | undefined;
      assert.ok(pages < 500, 'paging ends');
    }
    return { rows, pages, raised, raisedFirst };
  }

  it('pages of a kept provider result concatenate to the first computation, for any limit and byte budget, computed once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 200 }), fc.integer({ min: 512, max: 65536 }), fc.string({ maxLength: 3 }), async (limit, maxBytes, q) => {
        computeCount = 0;
        const { rows, pages, raisedFirst } = await allPages('kept_rows', { q, limit, maxBytes });
        // A first page refused as BUDGET_TOO_SMALL carries no cursor, so its re-ask computes again;
        // every page after the first answered one is served from the kept result.
        assert.equal(computeCount, 1 + raisedFirst, 'the provider was asked once for all pages after the first answered one');
        assert.equal(rows.length, ROWS.length);
        assert.deepEqual([...rows].sort((a, b) => a.id - b.id), ROWS, 'every row once');
        assert.ok(pages >= Math.ceil(ROWS.length / limit));
      }),
      { numRuns: 25 },
    );
  });

  it('a row larger than the budget is BUDGET_TOO_SMALL with the bytes it needs, and the cursor still continues there', async () => {
    // Row 0 carries 1.5 KB: the first page cannot fit 1 KiB.
    const refused = await callRaw('greedy_rows', { q: 'big', limit: 17, maxBytes: 1024 });
    assert.match(refused.error!, /^Error \[BUDGET_TOO_SMALL\]: The answer needs (\d+) bytes with its next row; maxBytes is 1024\. Hint: re-ask with maxBytes \d+ or more$/);
    const first = await callRaw('greedy_rows', { q: 'big', limit: 17, maxBytes: Number(/needs (\d+)/.exec(refused.error!)![1]) });
    assert.ok(first.sc, first.error);
    assert.equal(first.sc.completeness.reason, 'budget');
    assert.equal(first.sc.items[0].id, 0);
    // Row 17 is big too: the page that reaches it at 1 KiB is refused, with the cursor still valid.
    let cursor = first.sc.nextCursor;
    let err: string | undefined;
    for (let i = 0; i < 40 && !err; i++) {
      const r = await callRaw('greedy_rows', { q: 'big', limit: 17, maxBytes: 1024, cursor });
      if (r.error) err = r.error;
      else {
        assert.ok(r.sc.items.length > 0);
        cursor = r.sc.nextCursor;
      }
    }
    assert.match(err!, /^Error \[BUDGET_TOO_SMALL\]: The answer needs (\d+) bytes with its next row; maxBytes is 1024\. Hint: re-ask with maxBytes \d+ or more \(the cursor stays valid\)$/);
    const need = Number(/needs (\d+)/.exec(err!)![1]);
    const ok = await callRaw('greedy_rows', { q: 'big', limit: 17, maxBytes: need, cursor });
    assert.equal(ok.sc.items[0].id, 17);
  });

  it('a handler that returns more rows than limit is cut to limit and the cursor continues after the cut', async () => {
    const { rows } = await allPages('greedy_rows', { limit: 7, maxBytes: 65536 });
    assert.deepEqual(rows, ROWS);
    const one = await callRaw('greedy_rows', { limit: 7, maxBytes: 65536 });
    assert.equal(one.sc.items.length, 7);
    assert.equal(one.sc.completeness.truncated, true);
  });

  it('a capped result still pages to its last kept row: a cursor on every page but the last, each saying cap', async () => {
    for (const limit of [1, 7, 49, 50, 200]) {
      const { rows, pages } = await allPages('capped_rows', { limit, maxBytes: 65536 });
      assert.deepEqual(rows, ROWS.slice(0, 50), `limit ${limit}`);
      assert.equal(pages, Math.ceil(50 / limit), `limit ${limit}`);
    }
    const first = await callRaw('capped_rows', { limit: 10, maxBytes: 65536 });
    assert.equal(first.sc.completeness.reason, 'cap');
    assert.ok(first.sc.nextCursor, 'the capped result has 40 more kept rows');
    const whole = await callRaw('capped_rows', { limit: 50, maxBytes: 65536 });
    assert.equal(whole.sc.nextCursor, undefined);
    assert.deepEqual([whole.sc.completeness.truncated, whole.sc.completeness.reason], [true, 'cap']);
  });

  it('a result that comes back in another order is refused as STALE_CURSOR, never repeated or skipped', async () => {
    const p1 = await callRaw('reordering_rows', { limit: 10, maxBytes: 65536 });
    const p2 = await callRaw('reordering_rows', { limit: 10, maxBytes: 65536, cursor: p1.sc.nextCursor });
    assert.match(p2.error!, /^Error \[STALE_CURSOR\]: The answer changed since the cursor was issued .* Hint: re-ask without cursor$/);
  });

  it('a cursor of another tool or another query is STALE_CURSOR; garbage is INVALID_CURSOR', async () => {
    const p1 = await callRaw('kept_rows', { q: 'a', limit: 5 });
    assert.match((await callRaw('greedy_rows', { q: 'a', limit: 5, cursor: p1.sc.nextCursor })).error!, /^Error \[STALE_CURSOR\]: The cursor belongs to kept_rows, not greedy_rows\. Hint: re-ask without cursor$/);
    assert.match((await callRaw('kept_rows', { q: 'b', limit: 5, cursor: p1.sc.nextCursor })).error!, /^Error \[STALE_CURSOR\]: The cursor belongs to a different query/);
    assert.match((await callRaw('kept_rows', { q: 'a', cursor: 'bm90IGEgY3Vyc29y' })).error!, /^Error \[INVALID_CURSOR\]/);
    // limit and maxBytes may change between pages.
    const p2 = await callRaw('kept_rows', { q: 'a', limit: 9, maxBytes: 4096, cursor: p1.sc.nextCursor });
    assert.equal(p2.sc.items.length, 9);
  });

  it('an evicted result is STALE_CURSOR', async () => {
    const p1 = await callRaw('kept_rows', { q: 'evict', limit: 5 });
    const cache = resultCacheOf(engine);
    // Fill the cache with other results until the first one is gone.
    for (let i = 0; i < 5; i++) cache.keep(cache.allocate(), 'other', new Map(), cache.maxEntryBytes);
    const p2 = await callRaw('kept_rows', { q: 'evict', limit: 5, cursor: p1.sc.nextCursor });
    assert.match(p2.error!, /^Error \[STALE_CURSOR\]: The result this cursor pages through is no longer kept \(evicted or expired\)\. Hint: re-ask without cursor$/);
  });

  it('absurd limit or maxBytes are refused, not clamped', async () => {
    for (const args of [{ limit: 0 }, { limit: 201 }, { maxBytes: 100 }, { maxBytes: 1e9 }, { limit: 2.5 }]) {
      const r = await callRaw('kept_rows', args);
      assert.match(r.error ?? '', /^Error \[INVALID_ARGUMENT\]/, JSON.stringify(args));
    }
  });
});

describe('ResultCache', () => {
  it('evicts least recently used first by bytes, refuses entries over its bound, expires by age', () => {
    let now = 0;
    const c = new ResultCache(100, 60, 1000, () => now);
    const a = c.allocate();
    const b = c.allocate();
    assert.equal(c.keep(a, 'q', new Map([['x', 1]]), 40), true);
    assert.equal(c.keep(b, 'q', new Map([['x', 2]]), 40), true);
    c.get(a, 'q'); // a is now the most recently used
    const d = c.allocate();
    assert.equal(c.keep(d, 'q', new Map(), 40), true);
    assert.equal(c.has(b), false, 'b was least recently used');
    assert.equal(c.has(a), true);
    assert.deepEqual(c.size, { entries: 2, bytes: 80 });
    assert.equal(c.keep(c.allocate(), 'q', new Map(), 61), false, 'over the entry bound');
    assert.throws(() => c.get(a, 'other'), (e: { code?: string }) => e.code === 'STALE_CURSOR');
    now = 2000;
    assert.throws(() => c.get(a, 'q'), (e: { code?: string; message: string }) => e.code === 'STALE_CURSOR' && /no longer kept/.test(e.message));
  });
});
