/**
 * search_text paging is exact: the pages of an answer, concatenated, are the unpaged answer (same
 * rows, same order, no duplicate, no gap) for any limit, and the last page says so (total known,
 * nothing more). Engine API over the generated C# workspace, with identifiers of many hits per file
 * and per line, substring literals, case-insensitive and punctuation-only queries, regex, and a file
 * created since indexing.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { forgetSearches, searchText, type TextQuery, type TextHit } from '../../../server/src/nav/textSearch';
import { cachedWorkspace } from '../../fixtures/generate';
import { factById } from '../../fixtures/generate/manifest';
import { removeDir } from '../../helpers/workspace';

type Q = Omit<TextQuery, 'offset' | 'limit' | 'deadlineAt'>;
const key = (h: TextHit) => `${h.path}:${h.line}:${h.column}`;

async function unpaged(e: Engine, q: Q): Promise<TextHit[]> {
  forgetSearches(e);
  const r = await searchText(e, { ...q, offset: 0, limit: 1e9, deadlineAt: Date.now() + 60_000 });
  assert.notEqual(r.total, undefined, 'the unpaged answer is complete');
  assert.equal(r.hits.length, r.total);
  return r.hits;
}

/** Follows pages of `limit` until the answer says it is complete; fails on a page that makes no progress. */
async function paged(e: Engine, q: Q, limit: number): Promise<TextHit[]> {
  const out: TextHit[] = [];
  forgetSearches(e); // the pages start a walk of their own (not the unpaged answer's)
  for (let i = 0; i < 100_000; i++) {
    const r = await searchText(e, { ...q, offset: out.length, limit, deadlineAt: Date.now() + 60_000 });
    assert.ok(r.hits.length <= limit);
    out.push(...r.hits);
    if (r.truncated === undefined) {
      assert.equal(r.total, out.length, 'the last page carries the exact total');
      return out;
    }
    assert.equal(r.truncated, 'limit');
    assert.equal(r.hits.length, limit, 'a page with more to come is full');
  }
  throw new Error('the pages never ended');
}

describe('search_text paging on the generated workspace (engine API)', function () {
  this.timeout(300_000);
  const w = cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 });
  let idx: string;
  let e: Engine;

  before(async () => {
    idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-textpaging-'));
    e = await Engine.open({ workspaceRoot: w.root, indexRoot: idx });
    await e.refresh();
  });
  after(async () => {
    await e?.close();
    removeDir(idx);
  });

  const hot = () => factById(w.manifest, 'hotInterface', 'symbol');
  const queries = (): [string, Q][] => [
    ['hot identifier, word mode', { query: hot().name, mode: 'word', caseMode: 'sensitive' }],
    ['hot identifier, literal (substring hits in longer names)', { query: hot().name, mode: 'literal', caseMode: 'sensitive' }],
    ['lower-case literal, smart case (insensitive)', { query: hot().name.slice(1, 7).toLowerCase(), mode: 'literal', caseMode: 'smart' }],
    ['common keyword: many hits per file and per line', { query: 'public', mode: 'word', caseMode: 'sensitive' }],
    ['punctuation only: every file read', { query: '=>', mode: 'literal', caseMode: 'sensitive' }],
    ['config key literal', { query: factById(w.manifest, 'configKey', 'literal').text, mode: 'literal', caseMode: 'sensitive' }],
    ['regex scan', { query: String.raw`I\w+Repository\b`, mode: 'regex', caseMode: 'sensitive' }],
  ];

  it('the word total equals the generator\'s count of whole-word mentions', async () => {
    const f = hot();
    const r = await searchText(e, { query: f.name, mode: 'word', caseMode: 'sensitive', offset: 0, limit: 20, count: true, deadlineAt: Date.now() + 60_000 });
    assert.equal(r.total, f.mentions);
    assert.equal(r.filesWithHits, f.mentionFiles);
  });

  it('a first page of a common identifier is full and labels its total as a lower bound', async () => {
    const r = await searchText(e, { query: 'public', mode: 'word', caseMode: 'sensitive', offset: 0, limit: 20, deadlineAt: Date.now() + 60_000, pathGlob: '**/*.cs' });
    assert.equal(r.hits.length, 20);
    assert.equal(r.total, undefined);
    assert.equal(r.truncated, 'limit');
    assert.ok(r.totalAtLeast >= 20);
    assert.ok(r.verifiedFiles < 40, `verified ${r.verifiedFiles} files for one page`);
  });

  for (const limit of [1, 7, 20, 53, 200]) {
    it(`pages of ${limit}, concatenated, are the unpaged answer for every query kind`, async () => {
      for (const [label, q] of queries()) {
        // A fresh engine-side walk for each limit: the paths differ only in what they are asked.
        const all = await unpaged(e, q);
        assert.ok(all.length > 0, `${label}: no hits`);
        const pages = await paged(e, { ...q, pathGlob: q.pathGlob }, limit);
        assert.equal(new Set(pages.map(key)).size, pages.length, `${label}: duplicates`);
        assert.deepEqual(pages.map(key), all.map(key), `${label}: pages differ from the unpaged answer`);
      }
    });
  }

  it('every hit of a line is a row (seven on one line), and the order is class, tier, path, line, column', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-textpaging-ws-'));
    const idx2 = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-textpaging-idx-'));
    fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
    fs.mkdirSync(path.join(dir, 'tests'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'src/a.cs'), 'var s = Foo + Foo + Foo + Foo + Foo + Foo + Foo;\n' + 'Foo();\n'.repeat(60));
    fs.writeFileSync(path.join(dir, 'src/b.cs'), 'class MyFooBar { }\n');
    fs.writeFileSync(path.join(dir, 'tests/a.cs'), 'Foo();\n');
    const e2 = await Engine.open({ workspaceRoot: dir, indexRoot: idx2 });
    try {
      await e2.refresh();
      const q: Q = { query: 'Foo', mode: 'literal', caseMode: 'sensitive' };
      const all = await unpaged(e2, q);
      assert.equal(all.length, 7 + 60 + 1 + 1);
      assert.deepEqual(all.slice(0, 7).map((h) => h.column), [9, 15, 21, 27, 33, 39, 45]);
      // source: a.cs (whole token Foo), then b.cs (only inside MyFooBar), then the test file.
      assert.deepEqual([...new Set(all.map((h) => h.path))], ['src/a.cs', 'src/b.cs', 'tests/a.cs']);
      // A deep page asked first (cold walk) starts at the right row.
      forgetSearches(e2);
      const deep = await searchText(e2, { ...q, offset: 66, limit: 5, deadlineAt: Date.now() + 60_000 });
      assert.deepEqual(deep.hits.map(key), all.slice(66, 71).map(key));
      for (const limit of [1, 3, 7, 50]) assert.deepEqual((await paged(e2, q, limit)).map(key), all.map(key));
    } finally {
      await e2.close();
      removeDir(dir);
      removeDir(idx2);
    }
  });
});
