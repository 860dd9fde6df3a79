/**
 * One engine per index root, many clients, through the built CLI: the first `sextant mcp` is the
 * engine (stdio + the HTTP endpoint in server.json); a second one on the same root attaches to it
 * as a stdio proxy instead of writing the same index; `sextant index` refuses to write while the
 * engine serves; `sextant query` runs on the engine.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, CLI, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, smallWorkspace, tempDir, writeTree } from '../helpers/workspace';

describe('one engine per index root: a second client attaches @e2e', function () {
  this.timeout(120_000);
  let ws: string;
  let idx: string;
  let a: Connected | undefined;
  let b: Connected | undefined;

  before(() => {
    ws = tempDir('ws');
    idx = tempDir('idx');
    writeTree(ws, smallWorkspace());
  });
  after(async () => {
    await b?.close().catch(() => undefined);
    await a?.close().catch(() => undefined);
    removeDir(ws);
    removeDir(idx);
  });

  it('the second sextant mcp proxies to the first; both see one index; when the engine client quits, the proxy takes over without a break', async () => {
    a = await connectStdio(ws, idx);
    await waitFor(async () => (await call(a!.client, 'repo_overview', {})).index.status === 'fresh');
    const info = JSON.parse(fs.readFileSync(path.join(idx, 'server.json'), 'utf8'));
    assert.equal(fs.statSync(path.join(idx, 'server.json')).mode & 0o777, 0o600);
    assert.match(info.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.ok(info.token.length >= 43);

    b = await connectStdio(ws, idx);
    const ra = await call(a.client, 'find_file', { query: 'InvoiceService.cs' });
    const rb = await call(b.client, 'find_file', { query: 'InvoiceService.cs' });
    assert.deepEqual(rb.items, ra.items);
    assert.equal(rb.index.version, ra.index.version, 'the same engine answers both');
    assert.match(b.stderr(), /attached to the running engine/);
    assert.equal(JSON.parse(fs.readFileSync(path.join(idx, 'engine.lock'), 'utf8')).pid, info.pid);

    // `sextant index` must not write the engine's index; `sextant query` runs on the engine.
    const ix = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(ix.status, 2);
    assert.match(ix.stderr, /Error \[INDEX_UNAVAILABLE\]: A Sextant engine \(pid \d+\) is serving this index/);
    const q = spawnSync(process.execPath, [CLI, 'query', 'find_file', '--workspace-root', ws, '--index-root', idx, '--args', '{"query":"InvoiceService.cs"}'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(q.status, 0, q.stderr);
    assert.equal(JSON.parse(q.stdout).index.version, ra.index.version);

    // The engine's own client leaves (the engine exits); the attached client keeps working: its
    // proxy becomes the engine and replays the session handshake.
    await a.close();
    a = undefined;
    const again = await call(b.client, 'find_file', { query: 'InvoicesController' });
    assert.equal(again.items[0].path, 'src/Billing/Api/InvoicesController.cs');
    assert.match(b.stderr(), /the engine went away; continuing with another/);
    const now = JSON.parse(fs.readFileSync(path.join(idx, 'server.json'), 'utf8'));
    assert.notEqual(now.pid, info.pid, 'the proxy process is the engine now');
    await b.close();
    b = undefined;
    await waitFor(async () => !fs.existsSync(path.join(idx, 'engine.lock')), 15_000);
    assert.ok(!fs.existsSync(path.join(idx, 'server.json')), 'the engine removed server.json on exit');
  });

  it('after the engine is gone, the next sextant mcp becomes the engine (stale lock recovered)', async () => {
    fs.writeFileSync(path.join(idx, 'engine.lock'), JSON.stringify({ pid: 999_999_999, host: require('node:os').hostname(), nonce: 'dead', startedAt: '' }));
    a = await connectStdio(ws, idx);
    const r = await call(a.client, 'find_file', { query: 'InvoiceService.cs' });
    assert.equal(r.items[0].path, 'src/Billing/Application/InvoiceService.cs');
    assert.notEqual(JSON.parse(fs.readFileSync(path.join(idx, 'engine.lock'), 'utf8')).nonce, 'dead');
    assert.match(a.stderr(), /took over a stale engine lock/);
  });
});
