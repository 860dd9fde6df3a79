/**
 * One engine per index root. The engine that owns an index holds `<index-root>/engine.lock` (pid,
 * process start time, host, nonce) and publishes `<index-root>/server.json` (pid, port, token;
 * 0600) so that a second `sextant mcp` on the same root attaches to it over HTTP instead of writing
 * the same index.
 *
 * Invariants:
 * - the lock is created with O_EXCL: of two engines starting together exactly one gets it;
 * - a lock whose process is gone (dead pid, or a pid reused by a process that started later) is
 *   stale and taken over; the takeover renames the stale file aside and checks it moved the very
 *   file it judged stale, so two engines recovering at once cannot both win;
 * - a lock or server.json is only removed by the engine whose nonce it carries;
 * - files are owner-only (0600) in an owner-only folder (0700): server.json holds a bearer token.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LOCK_WRITE_GRACE_MS } from './limits';

export const LOCK_FILE = 'engine.lock';
export const SERVER_INFO_FILE = 'server.json';

/** What the lock file records about its owner. */
export interface LockOwner {
  pid: number;
  /** Process start time (Linux: /proc/<pid>/stat field 22), to tell a reused pid apart. */
  pidStart?: string;
  host: string;
  nonce: string;
  startedAt: string;
}

/** The running engine's endpoint, published for clients that attach. */
export interface ServerInfo {
  pid: number;
  port: number;
  token: string;
  url: string;
  startedAt: string;
  workspaceRoot?: string;
  version?: string;
}

export interface EngineLock {
  readonly indexRoot: string;
  readonly owner: LockOwner;
  /** Set when a stale lock (dead owner) was taken over. */
  readonly recoveredFrom?: { pid: number; reason: string };
  /** Publishes the endpoint (0600, atomic). */
  publish(info: Omit<ServerInfo, 'pid'>): void;
  /** Removes server.json and the lock if they are still ours. Idempotent; safe in an exit handler. */
  release(): void;
}

export type LockResult =
  | { kind: 'acquired'; lock: EngineLock }
  | { kind: 'held'; owner: LockOwner; server: ServerInfo | undefined };

/**
 * Takes the engine lock for an index root, or reports who holds it (and their endpoint, if
 * published). Creates the index root (0700) if needed.
 */
export function acquireEngineLock(indexRoot: string): LockResult {
  fs.mkdirSync(indexRoot, { recursive: true, mode: 0o700 });
  const lockPath = path.join(indexRoot, LOCK_FILE);
  let recoveredFrom: { pid: number; reason: string } | undefined;
  for (let attempt = 0; attempt < 20; attempt++) {
    const owner = newOwner();
    if (createExclusive(lockPath, JSON.stringify(owner))) {
      // Verify: if a racing recoverer displaced our fresh file, it is not ours any more.
      const now = readOwner(lockPath);
      if (now.kind === 'ok' && now.owner.nonce === owner.nonce) return { kind: 'acquired', lock: makeLock(indexRoot, owner, recoveredFrom) };
      continue;
    }
    const existing = readOwner(lockPath);
    if (existing.kind === 'missing') continue;
    if (existing.kind === 'unparsable') {
      // Possibly being written right now (created, not yet filled): give the writer a moment.
      if (Date.now() - existing.mtimeMs < LOCK_WRITE_GRACE_MS) {
        sleepSync(25);
        continue;
      }
      if (takeOverStaleLock(lockPath, existing.raw)) recoveredFrom = { pid: 0, reason: 'unreadable lock file' };
      continue;
    }
    const verdict = ownerAlive(existing.owner);
    if (verdict === 'alive') return { kind: 'held', owner: existing.owner, server: readServerInfo(indexRoot, existing.owner) };
    if (takeOverStaleLock(lockPath, existing.raw)) recoveredFrom = { pid: existing.owner.pid, reason: verdict };
  }
  throw new Error(`could not take the engine lock ${lockPath} (contended); retry`);
}

/**
 * The published endpoint of the engine holding the lock, if it is alive and the file is sound.
 * With `owner`, the file must name the same pid.
 */
export function readServerInfo(indexRoot: string, owner?: LockOwner): ServerInfo | undefined {
  let raw: string;
  try {
    raw = fs.readFileSync(path.join(indexRoot, SERVER_INFO_FILE), 'utf8');
  } catch {
    return undefined;
  }
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!isServerInfo(v)) return undefined;
  if (owner && v.pid !== owner.pid) return undefined;
  if (!isPidAlive(v.pid)) return undefined;
  return v;
}

/** True when a process with this pid exists (EPERM means it exists but is not ours). */
export function isPidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Linux: the start time of a process in clock ticks since boot; undefined elsewhere. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: split after it.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return rest[19]; // field 22 overall
  } catch {
    return undefined;
  }
}

/** Writes a file atomically with owner-only permissions: temp (0600), fsync, rename. */
export function writePrivateFileAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`;
  const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.chmodSync(tmp, 0o600); // in case a umask or ACL widened it
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

// ---- internals ----

function newOwner(): LockOwner {
  const o: LockOwner = { pid: process.pid, host: os.hostname(), nonce: crypto.randomBytes(16).toString('hex'), startedAt: new Date().toISOString() };
  const start = processStartTime(process.pid);
  if (start !== undefined) o.pidStart = start;
  return o;
}

function makeLock(indexRoot: string, owner: LockOwner, recoveredFrom: { pid: number; reason: string } | undefined): EngineLock {
  const lockPath = path.join(indexRoot, LOCK_FILE);
  const infoPath = path.join(indexRoot, SERVER_INFO_FILE);
  let released = false;
  let published = false;
  const onExit = () => lock.release();
  const lock: EngineLock = {
    indexRoot,
    owner,
    ...(recoveredFrom ? { recoveredFrom } : {}),
    publish(info) {
      if (released) throw new Error('engine lock already released');
      writePrivateFileAtomic(infoPath, JSON.stringify({ ...info, pid: owner.pid }, null, 2) + '\n');
      published = true;
    },
    release() {
      if (released) return;
      released = true;
      process.off('exit', onExit);
      if (published) {
        const info = readJson(infoPath);
        if (info && (info as { pid?: unknown }).pid === owner.pid) fs.rmSync(infoPath, { force: true });
      }
      const now = readOwner(lockPath);
      if (now.kind === 'ok' && now.owner.nonce === owner.nonce) fs.rmSync(lockPath, { force: true });
    },
  };
  process.on('exit', onExit);
  return lock;
}

/** O_EXCL create with 0600; false when the file exists. */
function createExclusive(file: string, content: string): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  try {
    fs.writeSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  return true;
}

type OwnerRead = { kind: 'ok'; owner: LockOwner; raw: string } | { kind: 'missing' } | { kind: 'unparsable'; raw: string; mtimeMs: number };

function readOwner(lockPath: string): OwnerRead {
  let raw: string;
  let mtimeMs: number;
  try {
    raw = fs.readFileSync(lockPath, 'utf8');
    mtimeMs = fs.statSync(lockPath).mtimeMs;
  } catch {
    return { kind: 'missing' };
  }
  try {
    const v = JSON.parse(raw) as Partial<LockOwner>;
    if (typeof v.pid === 'number' && typeof v.nonce === 'string' && typeof v.host === 'string') return { kind: 'ok', owner: v as LockOwner, raw };
  } catch {
    /* fall through */
  }
  return { kind: 'unparsable', raw, mtimeMs };
}

/** 'alive', or why the owner is gone. */
function ownerAlive(o: LockOwner): 'alive' | string {
  if (o.host !== os.hostname()) return 'alive'; // cannot check a process on another machine: assume it runs
  if (o.pid === process.pid) return 'alive';
  if (!isPidAlive(o.pid)) return `process ${o.pid} is gone`;
  if (o.pidStart !== undefined) {
    const now = processStartTime(o.pid);
    if (now !== undefined && now !== o.pidStart) return `pid ${o.pid} now belongs to another process`;
  }
  return 'alive';
}

/**
 * Moves a stale lock aside. Returns true when the file moved was the one judged stale; if a fresh
 * lock was moved by mistake (another engine recovered first), it is put back. Exported for tests.
 */
export function takeOverStaleLock(lockPath: string, staleRaw: string): boolean {
  const aside = `${lockPath}.stale-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch {
    return false; // someone else moved it first
  }
  let movedRaw = '';
  try {
    movedRaw = fs.readFileSync(aside, 'utf8');
  } catch {
    /* treat as not ours */
  }
  if (movedRaw === staleRaw) {
    fs.rmSync(aside, { force: true });
    return true;
  }
  try {
    fs.linkSync(aside, lockPath); // put the fresh lock back (fails if yet another one exists)
  } catch {
    /* the owner's verification step will notice */
  }
  fs.rmSync(aside, { force: true });
  return false;
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function isServerInfo(v: unknown): v is ServerInfo {
  const o = v as Partial<ServerInfo> | null;
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof o.pid === 'number' &&
    typeof o.port === 'number' &&
    Number.isInteger(o.port) &&
    o.port > 0 &&
    o.port < 65536 &&
    typeof o.token === 'string' &&
    o.token.length >= 16 &&
    typeof o.url === 'string' &&
    /^http:\/\/127\.0\.0\.1:\d+\//.test(o.url)
  );
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
