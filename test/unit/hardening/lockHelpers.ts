/** Helpers for the engine-lock tests: a child process that takes the lock, stale lock files. */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isPidAlive, LOCK_FILE, type LockOwner } from '../../../server/src/core/lock';

const HARNESS = path.join(__dirname, 'lockHarness.ts');
const REPO = path.resolve(__dirname, '..', '..', '..');

export function runLockHarness(root: string, holdMs: number): Promise<{ kind: string; pid: number; owner?: number; serverPid?: number | null; recoveredFrom?: { pid: number; reason: string } | null }> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', HARNESS, root, String(holdMs)], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    c.stdout.on('data', (d: Buffer) => (out += d));
    c.stderr.on('data', (d: Buffer) => (err += d));
    c.on('exit', () => {
      try {
        resolve(JSON.parse(out.trim().split('\n')[0] ?? ''));
      } catch {
        reject(new Error(`harness printed ${JSON.stringify(out)}; stderr ${err.slice(-500)}`));
      }
    });
  });
}

/** A pid that certainly belonged to a process that has exited. */
export function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  const pid = Number(r.stdout.toString());
  assert.ok(!isPidAlive(pid));
  return pid;
}

export function staleLock(root: string, owner: Partial<LockOwner>): void {
  fs.mkdirSync(root, { recursive: true });
  const o: LockOwner = { pid: deadPid(), host: os.hostname(), nonce: 'stale-nonce', startedAt: '2020-01-01T00:00:00.000Z', ...owner };
  fs.writeFileSync(path.join(root, LOCK_FILE), JSON.stringify(o));
}

