/**
 * search_text over a real MCP stdio client: following nextCursor with any limit and any maxBytes
 * yields exactly the unpaged answer (the engine's, computed in-process over the same files) — same
 * rows, same order, no duplicate, no gap — and the cursor always ends. Offline, on the generated
 * workspace, with common identifiers of many hits.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../server/src/nav/engine';
import { searchText } from '../../server/src/nav/textSearch';
import { cachedWorkspace } from '../fixtures/generate';
import { factById } from '../fixtures/generate/manifest';
import { call, callError, connectStdio, type Connected } from '../helpers/mcpClient';
import { textHits } from '../helpers/textHits';
import { removeDir } from '../helpers/workspace';

interface Row {
  path: string;
  line: number;
  column: number;
}
const key = (r: Row) => `${r.path}:${r.line}:${r.column}`;

describe('MCP over stdio: search_text pages are exact (generated workspace)', function () {
  this.timeout(600_000);
  const w = cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 });
  let idx: string;
  let localIdx: string;
  let c: Connected;
  let e: Engine;

  before(async () => {
    idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-textpaging-e2e-'));
    localIdx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-textpaging-e2e-local-'));
    c = await connectStdio(w.root, idx);
    e = await Engine.open({ workspaceRoot: w.root, indexRoot: localIdx });
    await e.refresh();
    for (let i = 0; i < 600; i++) {
      const r = await call(c.client, 'repo_overview', {});
      if (r.index.status === 'fresh') break;
      await new Promise((res) => setTimeout(res, 200));
    }
  });
  after(async () => {
    await c?.close();
    await e?.close();
    removeDir(idx);
    removeDir(localIdx);
  });

  async function follow(args: Record<string, unknown>): Promise<{ rows: Row[]; calls: number; last: any }> {
    const rows: Row[] = [];
    let cursor: string | undefined;
    for (let calls = 1; calls < 10_000; calls++) {
      const r = await call(c.client, 'search_text', cursor ? { ...args, cursor } : args);
      // Hits come grouped by file; a file cut by a page boundary continues as a group on the next page.
      for (const h of textHits(r)) rows.push({ path: h.path, line: h.line, column: h.column });
      const paths = r.items.map((g: { path: string }) => g.path);
      assert.equal(new Set(paths).size, paths.length, 'a page has one group per file');
      assert.equal(r.completeness.returned, r.items.reduce((n: number, g: { hits: unknown[] }) => n + g.hits.length, 0), 'returned counts hits');
      if (!r.nextCursor) return { rows, calls, last: r };
      assert.ok(r.items.length > 0, `a page with a cursor and no rows (call ${calls})`);
      assert.notEqual(r.nextCursor, cursor, 'the cursor moved');
      cursor = r.nextCursor;
    }
    throw new Error('the cursor never ended');
  }

  const cases = () => {
    const hot = factById(w.manifest, 'hotInterface', 'symbol');
    return [
      { query: hot.name, mode: 'word' as const },
      { query: hot.name, mode: 'literal' as const },
      { query: 'public', mode: 'word' as const, pathGlob: 'src/**' },
      { query: 'Async', mode: 'literal' as const },
    ];
  };

  for (const [limit, maxBytes] of [[7, undefined], [20, 2048], [200, undefined], [53, 1024]] as const) {
    it(`limit ${limit}${maxBytes ? `, maxBytes ${maxBytes}` : ''}: pages concatenated = the unpaged answer`, async () => {
      for (const q of cases()) {
        const truth = await searchText(e, { query: q.query, mode: q.mode, caseMode: 'smart', pathGlob: q.pathGlob, offset: 0, limit: 1e9, deadlineAt: Date.now() + 60_000 });
        assert.ok(truth.hits.length > 30, `${q.query}: ${truth.hits.length} hits is not a many-hit query`);
        const args: Record<string, unknown> = { ...q, limit };
        if (maxBytes) args.maxBytes = maxBytes;
        const got = await follow(args);
        assert.equal(new Set(got.rows.map(key)).size, got.rows.length, `${q.query}: duplicates`);
        assert.deepEqual(got.rows.map(key), truth.hits.map(key), `${q.query} ${q.mode}: pages differ from the unpaged answer`);
        assert.equal(got.last.completeness.total, truth.hits.length, 'the last page has the exact total');
      }
    });
  }

  it('a first page of a common identifier answers with a labelled lower bound; count: true gives the exact total', async () => {
    const hot = factById(w.manifest, 'hotInterface', 'symbol');
    const r = await call(c.client, 'search_text', { query: 'public', mode: 'word', case: 'sensitive' });
    assert.equal(r.completeness.total, undefined);
    assert.ok(r.totalAtLeast >= 20);
    assert.match(r.summary, /^at least \d+ matches/);
    assert.ok(r.nextCursor);
    const n = await call(c.client, 'search_text', { query: hot.name, mode: 'word', case: 'sensitive', count: true, limit: 1 });
    assert.equal(n.completeness.total, hot.mentions);
    const bad = await callError(c.client, 'search_text', { query: 'public', mode: 'word', case: 'insensitive', cursor: r.nextCursor });
    assert.match(bad, /^Error \[STALE_CURSOR\]: .* Hint: /);
  });
});
