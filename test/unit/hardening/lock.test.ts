import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { acquireEngineLock, LOCK_FILE, processStartTime, readServerInfo, SERVER_INFO_FILE, takeOverStaleLock } from '../../../server/src/core/lock';

import { deadPid, runLockHarness as runHarness, staleLock } from './lockHelpers';

describe('engine lock: one engine per index root', function () {
  this.timeout(60_000);
  let tmp: string;
  beforeEach(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-lock-'));
  });
  afterEach(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('takes the lock, publishes an owner-only server.json, and a second engine sees it as held with that endpoint', async () => {
    const root = path.join(tmp, 'idx');
    const r = acquireEngineLock(root);
    assert.equal(r.kind, 'acquired');
    if (r.kind !== 'acquired') return;
    r.lock.publish({ port: 41234, token: 't'.repeat(43), url: 'http://127.0.0.1:41234/mcp', startedAt: new Date().toISOString() });
    assert.equal(fs.statSync(root).mode & 0o777, 0o700);
    assert.equal(fs.statSync(path.join(root, LOCK_FILE)).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.join(root, SERVER_INFO_FILE)).mode & 0o777, 0o600);
    const other = await runHarness(root, 0);
    assert.deepEqual([other.kind, other.owner, other.serverPid], ['held', process.pid, process.pid]);
    r.lock.release();
    assert.deepEqual(fs.readdirSync(root), [], 'release removes the lock and server.json');
    const after = await runHarness(root, 0);
    assert.equal(after.kind, 'acquired');
  });

  it('takes over a lock whose process is gone, and says so', () => {
    const root = path.join(tmp, 'idx');
    staleLock(root, {});
    const dead = JSON.parse(fs.readFileSync(path.join(root, LOCK_FILE), 'utf8')).pid as number;
    const r = acquireEngineLock(root);
    assert.equal(r.kind, 'acquired');
    if (r.kind !== 'acquired') return;
    assert.deepEqual(r.lock.recoveredFrom, { pid: dead, reason: `process ${dead} is gone` });
    r.lock.release();
  });

  it('takes over a lock whose pid now belongs to a process started later (pid reuse)', function () {
    assert.ok(processStartTime(process.pid), 'Linux exposes process start times in /proc');
    const root = path.join(tmp, 'idx');
    staleLock(root, { pid: process.ppid, pidStart: '1' });
    const r = acquireEngineLock(root);
    assert.equal(r.kind, 'acquired');
    if (r.kind !== 'acquired') return;
    assert.equal(r.lock.recoveredFrom?.reason, `pid ${process.ppid} now belongs to another process`);
    r.lock.release();
  });

  it('leaves a lock held by a live process alone', () => {
    const root = path.join(tmp, 'idx');
    staleLock(root, { pid: process.ppid, nonce: 'live' });
    const r = acquireEngineLock(root);
    assert.equal(r.kind, 'held');
    assert.equal(JSON.parse(fs.readFileSync(path.join(root, LOCK_FILE), 'utf8')).nonce, 'live');
  });

  it('waits for a lock file being written, then takes over one that stays unreadable', () => {
    const root = path.join(tmp, 'idx');
    fs.mkdirSync(root);
    const lockPath = path.join(root, LOCK_FILE);
    fs.writeFileSync(lockPath, '');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lockPath, old, old);
    const r = acquireEngineLock(root);
    assert.equal(r.kind, 'acquired');
    if (r.kind === 'acquired') {
      assert.equal(r.lock.recoveredFrom?.reason, 'unreadable lock file');
      r.lock.release();
    }
  });

  it('a late recoverer never removes the fresh lock another engine created after the stale one', () => {
    // Engine B judged the lock stale; before B moves it, engine A took it over and wrote a fresh one.
    const root = path.join(tmp, 'idx');
    staleLock(root, {});
    const lockPath = path.join(root, LOCK_FILE);
    const staleRaw = fs.readFileSync(lockPath, 'utf8');
    const fresh = JSON.stringify({ pid: process.pid, host: os.hostname(), nonce: 'fresh-owner', startedAt: '' });
    fs.writeFileSync(lockPath, fresh);
    assert.equal(takeOverStaleLock(lockPath, staleRaw), false, 'B reports that it did not take anything over');
    assert.equal(fs.readFileSync(lockPath, 'utf8'), fresh, "A's lock is still in place");
    assert.deepEqual(fs.readdirSync(root), [LOCK_FILE], 'nothing left aside');
    // and the genuinely stale file is taken over
    fs.writeFileSync(lockPath, staleRaw);
    assert.equal(takeOverStaleLock(lockPath, staleRaw), true);
    assert.deepEqual(fs.readdirSync(root), []);
  });

  it('readServerInfo ignores a server.json of another pid, of a dead process, or malformed', () => {
    const root = path.join(tmp, 'idx');
    fs.mkdirSync(root);
    const f = path.join(root, SERVER_INFO_FILE);
    const good = { pid: process.pid, port: 40001, token: 'y'.repeat(43), url: 'http://127.0.0.1:40001/mcp', startedAt: 'now' };
    fs.writeFileSync(f, JSON.stringify(good));
    assert.equal(readServerInfo(root)?.port, 40001);
    assert.equal(readServerInfo(root, { pid: process.ppid, host: os.hostname(), nonce: 'n', startedAt: '' }), undefined);
    fs.writeFileSync(f, JSON.stringify({ ...good, pid: deadPid() }));
    assert.equal(readServerInfo(root), undefined);
    fs.writeFileSync(f, JSON.stringify({ ...good, url: 'http://evil.example:40001/mcp' }));
    assert.equal(readServerInfo(root), undefined);
    fs.writeFileSync(f, '{');
    assert.equal(readServerInfo(root), undefined);
  });

  it('release() does not remove a lock that another engine has since taken over', () => {
    const root = path.join(tmp, 'idx');
    const r = acquireEngineLock(root);
    assert.equal(r.kind, 'acquired');
    if (r.kind !== 'acquired') return;
    const lockPath = path.join(root, LOCK_FILE);
    fs.writeFileSync(lockPath, JSON.stringify({ pid: process.ppid, host: os.hostname(), nonce: 'someone-else', startedAt: '' }));
    r.lock.release();
    assert.equal(JSON.parse(fs.readFileSync(lockPath, 'utf8')).nonce, 'someone-else');
  });
});
