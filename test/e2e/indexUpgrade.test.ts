/**
 * Index upgrade from the previous schema: an index written by an earlier build (schema 6, checked
 * in under test/fixtures/index-upgrade/) is opened by this build over real stdio; it migrates in
 * place — same index id, nothing moved aside, the schema number raised — and answers, including
 * what the migrations made it redo (attribute arguments: migration 7 re-parses files with attributes).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { SCHEMA_VERSION } from '../../server/src/index/schema';
import { call, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, tempDir } from '../helpers/workspace';

const FIXTURE = path.resolve(__dirname, '../fixtures/index-upgrade');

async function metaOf(file: string): Promise<Map<string, string>> {
  const SQL = await initSqlJs();
  const db = new SQL.Database(fs.readFileSync(file));
  try {
    return new Map((db.exec('SELECT key, value FROM meta')[0]?.values ?? []).map(([k, v]) => [String(k), String(v)]));
  } finally {
    db.close();
  }
}

describe('an index written by the previous schema opens, migrates and answers @e2e', function () {
  this.timeout(120_000);
  let ws = '';
  let idx = '';
  let c: Connected | undefined;
  let before6: Map<string, string>;

  before(async () => {
    ws = tempDir('upgrade');
    idx = tempDir('upgrade-idx');
    fs.cpSync(path.join(FIXTURE, 'ws'), ws, { recursive: true });
    for (const f of ['index.db', 'index.db.sum']) fs.copyFileSync(path.join(FIXTURE, 'schema6', f), path.join(idx, f));
    before6 = await metaOf(path.join(idx, 'index.db'));
    assert.ok(Number(before6.get('schema_version')) < SCHEMA_VERSION, `the fixture is schema ${before6.get('schema_version')}, this build ${SCHEMA_VERSION}`);
    c = await connectStdio(ws, idx);
    await waitFor(async () => {
      const o = await call(c!.client, 'repo_overview', {});
      return o.index.status === 'fresh' && !o.index.symbolsPending;
    }, 60_000);
  });
  after(async () => {
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });

  it('keeps the index (same id, nothing moved aside) and answers from it', async () => {
    const o = await call(c!.client, 'repo_overview', {});
    assert.ok(String(o.index.version).startsWith(before6.get('index_id')!), `index ${o.index.version} is the fixture's ${before6.get('index_id')}, not a rebuilt one`);
    assert.deepEqual(fs.readdirSync(idx).filter((f) => f.startsWith('index.db') && f !== 'index.db' && f !== 'index.db.sum'), [], 'nothing moved aside');
    assert.doesNotMatch(c!.stderr(), /moved aside/);
    const files = await call(c!.client, 'find_file', { query: 'Forklift' });
    assert.deepEqual(files.items.map((i: { path: string }) => i.path), ['src/Depot/Forklift.cs']);
    const sym = await call(c!.client, 'search_symbol', { query: 'Forklift' });
    assert.ok(sym.items.some((i: { path: string; line: number }) => i.path === 'src/Depot/Forklift.cs' && i.line === 3), JSON.stringify(sym.items));
  });

  it('answers what the migrations made it redo: attribute arguments of declarations parsed before them', async () => {
    const shelf = await call(c!.client, 'search_symbol', { attribute: 'Shelf' });
    assert.deepEqual(shelf.items.map((i: { path: string; line: number; attributes: string[] }) => `${i.path}:${i.line} ${i.attributes.join(' ')}`), ['src/Depot/Crate.cs:9 Shelf("north-7")']);
    const obsolete = await call(c!.client, 'search_symbol', { attribute: 'Obsolete' });
    assert.deepEqual(obsolete.items.map((i: { line: number; attributes: string[] }) => `${i.line} ${i.attributes.join(' ')}`), ['14 Obsolete("use Stack")']);
    const deps = await call(c!.client, 'file_dependencies', { path: 'web/src/main.ts' });
    assert.ok(JSON.stringify(deps).includes('web/src/crate.ts'), JSON.stringify(deps).slice(0, 500));
  });

  it('records the new schema number', async () => {
    await c!.close();
    c = undefined;
    const now = await metaOf(path.join(idx, 'index.db'));
    assert.equal(Number(now.get('schema_version')), SCHEMA_VERSION);
    assert.equal(now.get('index_id'), before6.get('index_id'));
  });
});
