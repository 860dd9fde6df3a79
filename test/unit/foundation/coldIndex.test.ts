/**
 * A cold index writes its symbol rows first and builds the name and id indexes once at the end of
 * the parse phase (a sort instead of row-by-row B-tree updates); what it answers is the same as a
 * row-by-row build, and the indexes are there afterwards even if a run stopped in between.
 */
import * as assert from 'node:assert/strict';
import type { IndexHook } from '../../../server/src/index/indexer';
import { projectsHook } from '../../../server/src/index/projectsHook';
import { SYMBOL_ROW_INDEXES_SQL } from '../../../server/src/index/schema';
import { symbolsHook } from '../../../server/src/index/symbolsHook';
import { Engine } from '../../../server/src/nav/engine';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

const FILES = 40;

function tree(): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) {
    out[`src/F${i}.cs`] = `namespace Cold.N${i % 4};\npublic class Widget${i} : IWidget { public int Count${i} { get; } public void Run(int x, string y) { } }\npublic interface IWidget { }\n`;
  }
  return out;
}

const symbolIndexes = (e: Engine) =>
  e.store.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'symbol_rows' ORDER BY name").map((r) => r[0] as string);
const allSymbols = (e: Engine) => JSON.stringify(e.store.rows('SELECT * FROM symbols ORDER BY file_id, ordinal'));

describe('cold index: symbol indexes built once at the end', function () {
  this.timeout(60_000);
  let ws: string;
  const roots: string[] = [];
  const open = async (hooks: IndexHook[]) => {
    const idx = tempDir('coldidx');
    roots.push(idx);
    return Engine.open({ workspaceRoot: ws, indexRoot: idx, hooks });
  };
  beforeEach(() => {
    ws = tempDir('coldws');
    writeTree(ws, tree());
  });
  afterEach(() => {
    removeDir(ws);
    for (const r of roots.splice(0)) removeDir(r);
  });

  it('answers the same as a row-by-row build, and the name and id lookups use their indexes', async () => {
    const bulk = await open([projectsHook(), symbolsHook({ workers: 0, bulkMinFiles: 1 })]);
    const rows = await open([projectsHook(), symbolsHook({ workers: 0, bulkMinFiles: Infinity })]);
    try {
      // The bulk path is taken: while the parse phase runs, the indexes are gone.
      const seen: string[][] = [];
      await bulk.refresh((p) => {
        if (p.phase === 'finish' && p.done > 0) seen.push(symbolIndexes(bulk));
      });
      await rows.refresh();
      assert.ok(seen.some((s) => !s.includes('symbol_rows_name')), 'the name index is dropped during the bulk write');
      assert.ok(Number(bulk.store.rows('SELECT count(*) FROM symbol_rows')[0]?.[0]) >= FILES * 4);
      assert.equal(allSymbols(bulk), allSymbols(rows));
      for (const i of SYMBOL_ROW_INDEXES_SQL) assert.ok(symbolIndexes(bulk).includes(i.name), `${i.name} exists after the refresh`);
      const plan = (sql: string) => JSON.stringify(bulk.store.rows(`EXPLAIN QUERY PLAN ${sql}`));
      assert.match(plan("SELECT * FROM symbol_rows WHERE name = 'Widget3'"), /symbol_rows_name/);
      assert.match(plan('SELECT * FROM symbol_rows WHERE sid_hash = 7'), /symbol_rows_sid/);
    } finally {
      await bulk.close();
      await rows.close();
    }
  });

  it('a run stopped after the indexes were dropped gets them back from the next one', async () => {
    const e = await open([projectsHook(), symbolsHook({ workers: 0, bulkMinFiles: 1 })]);
    try {
      await e.refresh();
      // As a run stopped between the bulk write and its end leaves it.
      e.store.db.exec(SYMBOL_ROW_INDEXES_SQL.map((i) => `DROP INDEX ${i.name};`).join(''));
      await e.refresh();
      for (const i of SYMBOL_ROW_INDEXES_SQL) assert.ok(symbolIndexes(e).includes(i.name), `${i.name} is back`);
    } finally {
      await e.close();
    }
  });
});
