/**
 * The persisted index: one sql.js database per workspace, loaded whole into memory, written back
 * atomically (temp file in the same folder, fsync, rename, fsync the folder) so a crash at any
 * moment leaves the last committed file intact. A file that fails to load or check is moved aside
 * and a fresh index is started; `recovery` says what happened so answers can report it.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import initSqlJs, { type Database, type SqlJsStatic, type SqlValue } from 'sql.js';
import { assetPath } from '../core/assets';
import { PERSIST_CHUNK_BYTES } from '../core/limits';
import { log } from '../core/log';
import { INDEX_FILE, WARM_STATE_FILE } from './indexFiles';
import { MIGRATIONS, SCHEMA_VERSION } from './schema';
import { testKillPoint } from './testKillPoint';

export { INDEX_FILE, WARM_STATE_FILE };

let sqlPromise: Promise<SqlJsStatic> | undefined;
export function loadSqlJs(): Promise<SqlJsStatic> {
  sqlPromise ??= initSqlJs({ locateFile: () => assetPath('sql-wasm.wasm', 'sql.js/dist/sql-wasm.wasm') });
  return sqlPromise;
}

export interface Recovery {
  kind: 'corrupt' | 'newer-schema' | 'unreadable';
  movedTo: string;
  reason: string;
}

export class IndexStore {
  private constructor(
    readonly db: Database,
    readonly indexRoot: string,
    readonly recovery: Recovery | undefined,
    readonly loadedFromDisk: boolean,
  ) {
    // The database lives in sql.js's in-memory file system and is persisted whole (atomically):
    // a rollback journal written there is pure copying. MEMORY keeps ROLLBACK working.
    db.run('PRAGMA journal_mode = MEMORY');
  }

  static async open(indexRoot: string): Promise<IndexStore> {
    const SQL = await loadSqlJs();
    ensurePrivateDir(indexRoot);
    const file = path.join(indexRoot, INDEX_FILE);
    cleanupTempFiles(indexRoot);
    let recovery: Recovery | undefined;
    if (fs.existsSync(file)) {
      let db: Database | undefined;
      try {
        const bytes = fs.readFileSync(file);
        db = new SQL.Database(bytes);
        // A matching checksum proves the bytes are the ones written; a mismatch is damage; with no
        // checksum file, SQLite's own integrity check decides.
        const sums = readChecksums(file);
        if (sums.length > 0 && !sums.includes(checksumOf(bytes))) {
          throw new IndexLoadError('corrupt', 'the index bytes do not match the checksum written with them');
        }
        const problem = checkDatabase(db, sums.length === 0);
        if (problem) throw new IndexLoadError(problem.kind, problem.reason);
        migrate(db);
        // A table the schema has but this file lacks (written by an unreleased build under the
        // same schema number) would fail later queries: that is damage too.
        const missing = missingObjects(SQL, db);
        if (missing.length > 0) throw new IndexLoadError('corrupt', `the index lacks ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''} of its schema`);
        return new IndexStore(db, indexRoot, undefined, true);
      } catch (e) {
        db?.close();
        const kind: Recovery['kind'] = e instanceof IndexLoadError ? e.kind : 'corrupt';
        const movedTo = moveAside(file, kind);
        recovery = { kind, movedTo: path.basename(movedTo), reason: (e as Error).message };
        log.warn('index could not be loaded; moved aside and rebuilding', { ...recovery });
      }
    }
    const db = new SQL.Database();
    migrate(db);
    return new IndexStore(db, indexRoot, recovery, false);
  }

  /** In-memory store for tests and read-only runs. */
  static async inMemory(): Promise<IndexStore> {
    const SQL = await loadSqlJs();
    const db = new SQL.Database();
    migrate(db);
    return new IndexStore(db, '', undefined, false);
  }

  /**
   * Meta values as read or written through this store: every answer reads the index version
   * (three keys), and a sql.js query costs ~0.3 ms. Writes go through `setMeta` (the cache follows);
   * a rolled-back transaction drops the cache.
   */
  private readonly metaCache = new Map<string, string | undefined>();

  getMeta(key: string): string | undefined {
    if (this.metaCache.has(key)) return this.metaCache.get(key);
    const r = this.db.exec('SELECT value FROM meta WHERE key = ?', [key]);
    const v = r[0]?.values[0]?.[0];
    const out = v === undefined || v === null ? undefined : String(v);
    this.metaCache.set(key, out);
    return out;
  }

  setMeta(key: string, value: string): void {
    this.db.run('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, value]);
    this.metaCache.set(key, value);
  }

  /** Runs `fn` inside one transaction, synchronously: readers never observe half of it. */
  transaction<T>(fn: () => T): T {
    this.db.run('BEGIN');
    try {
      const out = fn();
      this.db.run('COMMIT');
      return out;
    } catch (e) {
      this.db.run('ROLLBACK');
      this.metaCache.clear();
      throw e;
    }
  }

  /** A stored blob as text (undefined when absent). */
  getBlobText(key: string): string | undefined {
    const stmt = this.db.prepare('SELECT value FROM blobs WHERE key = ?');
    try {
      stmt.bind([key]);
      if (!stmt.step()) return undefined;
      const v = stmt.get()[0];
      if (!(v instanceof Uint8Array)) return String(v);
      const b = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      // Large blobs are stored gzipped (text never starts with the gzip magic 1f 8b).
      return (b[0] === 0x1f && b[1] === 0x8b ? zlib.gunzipSync(b) : b).toString('utf8');
    } finally {
      stmt.free();
    }
  }

  setBlobText(key: string, value: string): void {
    const raw = Buffer.from(value, 'utf8');
    const bytes = raw.length > 4096 ? zlib.gzipSync(raw, { level: 4 }) : raw;
    this.db.run('INSERT INTO blobs(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value', [key, bytes]);
  }

  /** All rows of a query as arrays (faster than objects for large reads). */
  rows(sql: string, params: SqlValue[] = []): SqlValue[][] {
    const stmt = this.db.prepare(sql);
    try {
      stmt.bind(params);
      const out: SqlValue[][] = [];
      while (stmt.step()) out.push(stmt.get());
      return out;
    } finally {
      stmt.free();
    }
  }

  /** All rows of a query as objects. */
  all<T = Record<string, SqlValue>>(sql: string, params: SqlValue[] = []): T[] {
    const stmt = this.db.prepare(sql);
    try {
      stmt.bind(params);
      const rows: T[] = [];
      while (stmt.step()) rows.push(stmt.getAsObject() as T);
      return rows;
    } finally {
      stmt.free();
    }
  }

  /**
   * Writes the database atomically: export, write a temp file in chunks, fsync, rename over the
   * committed file, fsync the folder. Returns the bytes written.
   */
  persist(): number {
    if (!this.indexRoot) return 0;
    const bytes = this.db.export();
    const file = path.join(this.indexRoot, INDEX_FILE);
    const tmp = `${file}.tmp-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
    const fd = fs.openSync(tmp, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL, 0o600);
    try {
      for (let off = 0; off < bytes.length; off += PERSIST_CHUNK_BYTES) {
        const end = Math.min(bytes.length, off + PERSIST_CHUNK_BYTES);
        let written = off;
        while (written < end) written += fs.writeSync(fd, bytes, written, end - written);
      }
      testKillPoint('persist:tmp-written');
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    testKillPoint('persist:tmp-synced');
    // The checksum file names both the new and the committed bytes across the rename, so a crash
    // at any point leaves a file whose bytes it names; any other mismatch is damage.
    const sum = checksumOf(bytes);
    const previous = readChecksums(file)[0];
    writeChecksums(file, previous && previous !== sum ? [sum, previous] : [sum]);
    testKillPoint('persist:sums-both');
    fs.renameSync(tmp, file);
    testKillPoint('persist:renamed');
    fsyncDir(this.indexRoot);
    writeChecksums(file, [sum]);
    testKillPoint('persist:done');
    return bytes.length;
  }

  close(): void {
    this.db.close();
  }
}

class IndexLoadError extends Error {
  constructor(readonly kind: Recovery['kind'], message: string) {
    super(message);
  }
}

const SUM_SUFFIX = '.sum';

/** What `<file>.sum` names the bytes by: length and CRC-32. */
export function checksumOf(bytes: Uint8Array): string {
  return formatChecksum(bytes.length, zlib.crc32(bytes));
}

/** The checksum of `length` bytes whose CRC-32 is `crc` (for a file read in chunks). */
export function formatChecksum(length: number, crc: number): string {
  return `${length}:${crc.toString(16)}`;
}

/** The checksums `<file>.sum` accepts (empty when there is none: the load then runs the integrity check). */
function readChecksums(file: string): string[] {
  try {
    return fs.readFileSync(file + SUM_SUFFIX, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
  } catch {
    return [];
  }
}

/** Replaces `<file>.sum` atomically; if it cannot be written it is removed (never left naming other bytes). */
function writeChecksums(file: string, sums: string[]): void {
  const tmp = `${file}${SUM_SUFFIX}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, sums.join('\n') + '\n', { mode: 0o600 });
    testKillPoint('sum:tmp-written');
    fs.renameSync(tmp, file + SUM_SUFFIX);
  } catch {
    fs.rmSync(file + SUM_SUFFIX, { force: true });
  }
}

function checkDatabase(db: Database, fullCheck: boolean): { kind: Recovery['kind']; reason: string } | undefined {
  if (fullCheck) {
    const qc = db.exec('PRAGMA quick_check');
    const verdict = String(qc[0]?.values[0]?.[0] ?? '');
    if (verdict !== 'ok') return { kind: 'corrupt', reason: `integrity check failed: ${verdict.slice(0, 200)}` };
  }
  const hasMeta = db.exec("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'");
  if (!hasMeta[0]) return { kind: 'corrupt', reason: 'not a Sextant index (no meta table)' };
  const v = Number(db.exec("SELECT value FROM meta WHERE key='schema_version'")[0]?.values[0]?.[0] ?? 0);
  if (v > SCHEMA_VERSION) return { kind: 'newer-schema', reason: `index schema ${v} is newer than this build's ${SCHEMA_VERSION}` };
  if (db.exec("SELECT value FROM meta WHERE key='committed'")[0]?.values[0]?.[0] !== '1') {
    return { kind: 'corrupt', reason: 'index was never completely written' };
  }
  return undefined;
}

/** Tables and views of a fully migrated index (from a scratch database, once per process). */
let schemaObjects: string[] | undefined;

/** What a fully migrated index has and `db` lacks. */
function missingObjects(SQL: SqlJsStatic, db: Database): string[] {
  const names = (d: Database): string[] =>
    (d.exec("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")[0]?.values ?? []).map((r) => String(r[0]));
  if (!schemaObjects) {
    const scratch = new SQL.Database();
    try {
      migrate(scratch);
      schemaObjects = names(scratch);
    } finally {
      scratch.close();
    }
  }
  const have = new Set(names(db));
  return schemaObjects.filter((n) => !have.has(n));
}

function migrate(db: Database): void {
  db.run('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const current = Number(db.exec("SELECT value FROM meta WHERE key='schema_version'")[0]?.values[0]?.[0] ?? 0);
  const pending = [...MIGRATIONS].sort((a, b) => a.version - b.version).filter((m) => m.version > current);
  if (pending.length === 0) return;
  db.run('BEGIN');
  try {
    for (const m of pending) {
      db.exec(m.sql);
      db.run("INSERT INTO meta(key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [String(m.version)]);
    }
    db.run('COMMIT');
  } catch (e) {
    db.run('ROLLBACK');
    throw e;
  }
}

export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    fs.chmodSync(dir, 0o700);
  } catch {
    /* not ours to change (e.g. a read-only mount): reads still work */
  }
}

function moveAside(file: string, kind: string): string {
  const target = `${file}.${kind}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    fs.renameSync(file, target);
  } catch {
    /* if it cannot be moved we still start fresh in memory; the next persist replaces it */
  }
  return target;
}

function cleanupTempFiles(dir: string): void {
  for (const name of fs.readdirSync(dir)) {
    if (name.startsWith(`${INDEX_FILE}.tmp-`) || name.startsWith(`${INDEX_FILE}${SUM_SUFFIX}.tmp-`) || name.startsWith(`${WARM_STATE_FILE}.tmp-`)) {
      const pid = Number(name.slice(name.indexOf('.tmp-') + 5).split('-')[0]);
      if (pid === process.pid || !isAlive(pid)) fs.rmSync(path.join(dir, name), { force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  if (!Number.isFinite(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function fsyncDir(dir: string): void {
  try {
    const fd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    /* some filesystems refuse fsync on folders; the rename is still atomic */
  }
}
