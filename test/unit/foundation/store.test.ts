import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { rebuildTextIndex } from '../../../server/src/index/indexer';
import { garbageDocs, matchFiles } from '../../../server/src/index/textIndex';
import { Engine } from '../../../server/src/nav/engine';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

describe('persisted index', function () {
  let ws: string;
  let idx: string;
  beforeEach(function () {
    ws = tempDir('ws');
    idx = tempDir('idx');
    writeTree(ws, { 'a.cs': 'class Alpha {}', 'b/c.ts': 'export const beta = 1;' });
  });
  afterEach(function () {
    removeDir(ws);
    removeDir(idx);
  });

  it("a dead run's temp files (index.db, its checksum, warm.json) are removed when the index is opened", async function () {
    const dead = 2 ** 22 + 12345; // above Linux's default pid_max: no such process
    const names = [`index.db.tmp-${dead}-ab12cd34`, `index.db.sum.tmp-${dead}`, `warm.json.tmp-${dead}`];
    for (const n of names) fs.writeFileSync(path.join(idx, n), 'partial');
    fs.writeFileSync(path.join(idx, `warm.json.tmp-${process.ppid}`), 'a live process is writing it');
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.close();
    assert.deepEqual(fs.readdirSync(idx).filter((n) => n.includes('.tmp-')), [`warm.json.tmp-${process.ppid}`]);
  });

  it('is written owner-only, and a second run on an unchanged tree reads nothing', async function () {
    const e1 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    const s1 = await e1.refresh();
    await e1.close();
    assert.equal(s1.added, 2);
    assert.equal(fs.statSync(idx).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(idx, 'index.db')).mode & 0o777, 0o600);
    const e2 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    const s2 = await e2.refresh();
    assert.equal(s2.parsedFiles, 0);
    assert.equal(s2.added + s2.changed + s2.deleted, 0);
    assert.equal(e2.version, `${e2.store.getMeta('index_id')}-g1`, 'version unchanged when nothing changed');
    await e2.close();
  });

  it('re-indexes only the changed file and drops deleted ones', async function () {
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
    fs.writeFileSync(path.join(ws, 'a.cs'), 'class Gamma {}');
    fs.rmSync(path.join(ws, 'b/c.ts'));
    const s = await e.refresh();
    assert.equal(s.changed, 1);
    assert.equal(s.deleted, 1);
    assert.equal(s.parsedFiles, 1);
    assert.ok(e.dict.has('gamma'));
    assert.deepEqual(e.catalog().all().map((r) => r.path), ['a.cs']);
    await e.close();
  });

  it('moves a corrupt index aside, rebuilds it, and says so', async function () {
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
    await e.close();
    const file = path.join(idx, 'index.db');
    const bytes = fs.readFileSync(file);
    bytes.fill(0x5a, 4096, 8192); // scribble over a page
    fs.writeFileSync(file, bytes);
    const e2 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    assert.match(e2.meta().recovered ?? '', /corrupt/);
    assert.ok(fs.readdirSync(idx).some((n) => n.startsWith('index.db.corrupt-')), 'kept aside');
    const s = await e2.refresh();
    assert.equal(s.added, 2);
    await e2.close();
  });

  it('refuses to overwrite an index from a newer schema: it is kept aside and rebuilt', async function () {
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
    e.store.setMeta('schema_version', '999');
    e.store.persist();
    await e.close();
    const e2 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    assert.match(e2.meta().recovered ?? '', /newer schema/);
    assert.ok(fs.readdirSync(idx).some((n) => n.startsWith('index.db.newer-schema-')));
    await e2.close();
  });

  it('an index lacking a table of its schema (an unreleased build wrote it) is moved aside and rebuilt, not a crash on first use', async function () {
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
    e.store.db.run('DROP TABLE blobs'); // the token dictionary lives there, read lazily by the next refresh
    e.store.persist();
    await e.close();
    const e2 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    assert.match(e2.meta().recovered ?? '', /lacks blobs/);
    const s = await e2.refresh();
    assert.equal(s.added, 2, 'rebuilt from the workspace');
    assert.ok(fs.readdirSync(idx).some((n) => n.startsWith('index.db.corrupt-')));
    await e2.close();
  });

  it('treats bytes that differ from their checksum as damage, even where SQLite would not notice', async function () {
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
    await e.close();
    const file = path.join(idx, 'index.db');
    const bytes = fs.readFileSync(file);
    const at = bytes.indexOf(Buffer.from('a.cs'));
    assert.ok(at > 0);
    bytes[at] = 'z'.charCodeAt(0); // a path inside a row: pages stay well-formed
    fs.writeFileSync(file, bytes);
    const e2 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    assert.match(e2.meta().recovered ?? '', /checksum/);
    await e2.close();
  });

  it('detects a truncated file without a checksum match', async function () {
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
    await e.close();
    const file = path.join(idx, 'index.db');
    fs.truncateSync(file, Math.floor(fs.statSync(file).size / 2));
    const e2 = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    assert.ok(e2.meta().recovered, 'recovery reported');
    await e2.close();
  });
});

describe('token index documents', function () {
  let ws: string;
  let idx: string;
  beforeEach(function () {
    ws = tempDir('ws');
    idx = tempDir('idx');
    writeTree(ws, { 'a.cs': 'class Alpha { OldToken x; }', 'b.cs': 'class Beta {}' });
  });
  afterEach(function () {
    removeDir(ws);
    removeDir(idx);
  });

  it('a changed file no longer matches its old tokens (tombstone), a deleted one matches nothing; a rebuild drops tombstones', async function () {
    const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
    const id = (p: string) => e.catalog().byRelPath(p)!.id;
    assert.deepEqual(matchFiles(e.store, '"oldtoken"'), [id('a.cs')]);
    fs.writeFileSync(path.join(ws, 'a.cs'), 'class Alpha { NewToken x; }');
    fs.rmSync(path.join(ws, 'b.cs'));
    await e.refresh();
    assert.deepEqual(matchFiles(e.store, '"oldtoken"'), []);
    assert.deepEqual(matchFiles(e.store, '"newtoken"'), [id('a.cs')]);
    assert.deepEqual(matchFiles(e.store, '"beta"'), []);
    assert.equal(garbageDocs(e.store), 2);
    rebuildTextIndex(e.store, e.root);
    assert.equal(garbageDocs(e.store), 0);
    assert.deepEqual(matchFiles(e.store, '"newtoken"'), [id('a.cs')]);
    assert.equal(Number(e.store.db.exec('SELECT COUNT(*) FROM file_text_docsize')[0]!.values[0]![0]), 1);
    await e.close();
  });
});
