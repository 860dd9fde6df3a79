/**
 * The two indexing phases: text + files commit first (find_file and search_text answer over the
 * whole workspace), outlines and symbols follow; until they are written the index says so
 * (`symbolsPending`, a version of its own), and work left by a stopped run is finished by the next.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { defaultHooks } from '../../../server/src/index/hooks';
import type { IndexHook } from '../../../server/src/index/indexer';
import { Engine } from '../../../server/src/nav/engine';
import { findFiles } from '../../../server/src/nav/findFile';
import { searchText } from '../../../server/src/nav/textSearch';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

const FILES = 12;

function tree(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < FILES; i++) out[`src/F${i}.cs`] = `namespace Phases;\npublic class Widget${i}${tag} { int marker${tag} = ${i}; }\n`;
  return out;
}

/** A hook whose batches wait until released: phase 2 can be held open. */
function gate(): { hook: IndexHook; release: () => void; prepared: () => number } {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let prepared = 0;
  return {
    hook: {
      name: 'gate',
      async prepare(batch) {
        prepared += batch.length;
        await opened;
        return undefined;
      },
      deleteFiles() {},
    },
    release: () => open(),
    prepared: () => prepared,
  };
}

/** Declarations stored under a name (read from the table the symbols hook writes). */
const symbolNamed = (e: Engine, name: string) => Number(e.store.rows('SELECT count(*) FROM symbol_rows WHERE name = ?', [name])[0]?.[0] ?? 0);
const textHits = async (e: Engine, q: string) => (await searchText(e, { query: q, mode: 'literal', caseMode: 'sensitive', offset: 0, limit: 100, deadlineAt: Date.now() + 10_000 })).hits.length;

describe('indexing phases: text + files, then outlines + symbols', function () {
  let ws: string;
  let idx: string;
  beforeEach(() => {
    ws = tempDir('phasews');
    idx = tempDir('phaseidx');
    writeTree(ws, tree('A'));
  });
  afterEach(() => {
    removeDir(ws);
    removeDir(idx);
  });

  it('answers find_file and search_text once text + files commit; symbols are reported pending until written', async () => {
    const g = gate();
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx, hooks: [...defaultHooks(), g.hook] });
    let atTextReady: { version: string; files: number; text: number; symbols: number; pending: number | undefined } | undefined;
    const done = e.refresh(undefined, () => {
      // Called synchronously at the phase boundary: take what a tool would see now.
      atTextReady = {
        version: e.version,
        files: findFiles(e, { query: 'src/**', offset: 0, limit: 100 }).total,
        text: -1,
        symbols: symbolNamed(e, 'Widget3A'),
        pending: e.meta().symbolsPending,
      };
    });
    while (!atTextReady) await new Promise((r) => setTimeout(r, 5));
    atTextReady.text = await textHits(e, 'markerA');
    assert.equal(atTextReady.files, FILES, 'every file is listed');
    assert.equal(atTextReady.text, FILES, 'every file is searchable');
    assert.equal(atTextReady.pending, FILES, 'symbols pending for every file');
    assert.equal(atTextReady.symbols, 0, 'no symbols yet');
    assert.match(atTextReady.version, /-g1t$/, 'the text-only snapshot has a version of its own');
    while (g.prepared() < FILES) await new Promise((r) => setTimeout(r, 5));
    g.release();
    const stats = await done;
    assert.equal(stats.parsedFiles, FILES);
    assert.ok(stats.textReadyMs <= stats.durationMs);
    assert.equal(e.meta().symbolsPending, undefined);
    assert.equal(e.version, `${e.store.getMeta('index_id')}-g1`);
    assert.equal(symbolNamed(e, 'Widget3A'), 1);
    await e.close();
  });

  it('a changed file loses its old symbols in phase 1 and gets the new ones in phase 2', async () => {
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
    assert.equal(symbolNamed(e, 'Widget5A'), 1);
    fs.writeFileSync(path.join(ws, 'src/F5.cs'), 'namespace Phases;\npublic class Widget5B { }\n');
    let mid: { old: number; fresh: number; pending: number | undefined } | undefined;
    const s = await e.refresh(undefined, () => (mid = { old: symbolNamed(e, 'Widget5A'), fresh: symbolNamed(e, 'Widget5B'), pending: e.meta().symbolsPending }));
    assert.deepEqual(mid, { old: 0, fresh: 0, pending: 1 });
    assert.equal(s.parsedFiles, 1);
    assert.deepEqual([symbolNamed(e, 'Widget5A'), symbolNamed(e, 'Widget5B')], [0, 1]);
    assert.equal(e.version, `${e.store.getMeta('index_id')}-g2`);
    await e.close();
  });

  it('files a hook failed on stay owed: the answer says so, and the next refresh asks the hooks again', async () => {
    let fail = true;
    const flaky: IndexHook = {
      name: 'flaky',
      async prepare(batch) {
        if (fail) throw new Error('worker gone');
        return batch.length > 0 ? () => undefined : undefined;
      },
      deleteFiles() {},
    };
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx, hooks: [...defaultHooks(), flaky] });
    await e.refresh();
    assert.equal(e.meta().symbolsPending, FILES, 'the failed files are still owed');
    assert.match(e.version, /-g1t$/);
    assert.equal(symbolNamed(e, 'Widget2A'), 1, 'the other hooks wrote theirs');
    fail = false;
    const s = await e.refresh();
    assert.equal(s.parsedFiles, 0, 'the symbols hook owes nothing, nothing changed');
    assert.equal(e.meta().symbolsPending, undefined);
    assert.doesNotMatch(e.version, /t$/);
    await e.close();
  });

  it('outlines a stopped run still owed are written by the next run, which parses nothing else', async () => {
    // First run: text + files committed and persisted, the symbols hook never writes (as if the
    // process stopped between the phases).
    const e1 = await Engine.open({ workspaceRoot: ws, indexRoot: idx, hooks: [] });
    await e1.refresh();
    e1.store.transaction(() => e1.store.setMeta('hooks_pending', String(FILES)));
    e1.store.persist();
    await e1.close();

    const e2 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    assert.equal(e2.meta().symbolsPending, FILES, 'a loaded snapshot says its symbols are pending');
    assert.match(e2.version, /-g1t$/);
    assert.equal(await textHits(e2, 'markerA'), FILES);
    const s = await e2.refresh();
    assert.equal(s.added + s.changed + s.deleted, 0, 'no file changed');
    assert.equal(s.parsedFiles, FILES, 'the owed files are parsed');
    assert.equal(symbolNamed(e2, 'Widget7A'), 1);
    assert.equal(e2.meta().symbolsPending, undefined);
    assert.equal(e2.version, `${e2.store.getMeta('index_id')}-g2`, 'a new snapshot, not the old token');
    await e2.close();

    const e3 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    const s3 = await e3.refresh();
    assert.equal(s3.parsedFiles, 0, 'nothing owed any more');
    assert.equal(e3.version, `${e3.store.getMeta('index_id')}-g2`);
    await e3.close();
  });
});
