/** Helpers for the engine-lock tests: a child process that takes the lock, stale lock files. */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isPidAlive, LOCK_FILE, type LockOwner } from '../../../server/src/core/lock';

const HARNESS = path.join(__dirname, 'lockHarness.ts');
const REPO = path.resolve(__dirname, '..', '..', '..');

export function runLockHarness(root: string, holdMs: number): Promise<LockHarnessResult> {
  return startLockHarness(root, holdMs).exited;
}

export type LockHarnessResult = { kind: string; pid: number; owner?: number; serverPid?: number | null; recoveredFrom?: { pid: number; reason: string } | null };

/**
 * A harness child: `result` resolves with its line as soon as it prints it, `exited` once it has
 * exited. With `releaseFile`, a winner holds the lock until that file exists (at most `holdMs`), so a
 * slow-starting loser on a loaded machine still meets the lock held instead of finding it released.
 */
export function startLockHarness(root: string, holdMs: number, releaseFile?: string): { result: Promise<LockHarnessResult>; exited: Promise<LockHarnessResult> } {
  const c = spawn(process.execPath, ['--import', 'tsx', HARNESS, root, String(holdMs), ...(releaseFile ? [releaseFile] : [])], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let onLine: ((r: LockHarnessResult) => void) | undefined;
  const parse = (): LockHarnessResult => JSON.parse(out.trim().split('\n')[0] ?? '') as LockHarnessResult;
  const result = new Promise<LockHarnessResult>((resolve) => (onLine = resolve));
  c.stdout.on('data', (d: Buffer) => {
    out += d;
    if (out.includes('\n')) onLine?.(parse());
  });
  c.stderr.on('data', (d: Buffer) => (err += d));
  const exited = new Promise<LockHarnessResult>((resolve, reject) => {
    c.on('exit', () => {
      try {
        const r = parse();
        onLine?.(r);
        resolve(r);
      } catch {
        reject(new Error(`harness printed ${JSON.stringify(out)}; stderr ${err.slice(-500)}`));
      }
    });
  });
  return { result: Promise.race([result, exited]), exited };
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

