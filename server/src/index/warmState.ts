/**
 * What `sextant index` needs to see that nothing changed without loading the index: written next
 * to index.db after a complete refresh (`warm.json`, owner-only, replaced atomically), it holds
 * the walk that refresh indexed (paths, sizes, mtimes, the ignore rules' stamp), the checksum of
 * the index.db bytes it describes, the build and options it was made with, and the summary figures.
 *
 * A later run first checks by `stat` alone (`warmCheck.ts`: every folder and file the walk listed,
 * and index.db's identity; the CLI launcher does this before loading the engine). When that
 * cannot decide (no walk stamp) or sees a time moved, it walks the tree (in the walk worker) and
 * compares: the same files with the same
 * sizes and mtimes under the same rules, an index.db whose bytes still have that checksum (read and
 * checked, as a load does), the same build and options — then a refresh would read no file and
 * write nothing, so the run answers from here. Anything else (a change, another build, an engine
 * that wrote the index since, damage) is the ordinary path: load, refresh, persist.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { discoverWorkspaceAsync, type DiscoveryOptions, type DiscoveryResult } from '../workspace/discover';
import { formatChecksum, INDEX_FILE, WARM_STATE_FILE } from './store';
import { testKillPoint } from './testKillPoint';
import { identityOf, indexSum, readWarmState, realRoot, unchangedByStat, WARM_FORMAT, warmStateKey, type WarmStateFile, type WarmSummary } from './warmCheck';

export type { WarmSummary };

/** Bytes read at a time when checking index.db's checksum. */
const CHECK_CHUNK_BYTES = 8 * 1024 * 1024;

const STATE_FILE = WARM_STATE_FILE;

/** Removes the state (before anything may write the index without writing a new one). */
export function dropWarmState(indexRoot: string): void {
  fs.rmSync(path.join(indexRoot, STATE_FILE), { force: true });
}

/**
 * Records `discovery` as what the index at `indexRoot` holds, now persisted (call after the
 * refresh and its persist; only for a complete refresh: every listed file read, nothing owed).
 */
export function writeWarmState(indexRoot: string, workspaceRoot: string, opts: DiscoveryOptions, discovery: DiscoveryResult, summary: WarmSummary): void {
  const sum = indexSum(indexRoot);
  if (!sum) return dropWarmState(indexRoot);
  const index = identityOf(path.join(indexRoot, INDEX_FILE));
  const s: WarmStateFile = {
    format: WARM_FORMAT,
    key: warmStateKey(workspaceRoot, opts),
    sum,
    rulesStamp: discovery.rulesStamp,
    paths: discovery.files.map((f) => f.path).join('\0'),
    sizes: discovery.files.map((f) => f.size),
    mtimes: discovery.files.map((f) => f.mtimeMs),
    skippedTooLarge: [...discovery.skippedTooLarge],
    summary,
  };
  if (discovery.stamp && index) {
    s.walk = discovery.stamp;
    s.index = index;
  }
  const file = path.join(indexRoot, STATE_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(s), { mode: 0o600 });
    testKillPoint('warm:tmp-written');
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
    dropWarmState(indexRoot);
  }
}

export interface Unchanged {
  summary: WarmSummary;
  walkMs: number;
  /** Decided by `stat` alone (warmCheck.ts); else by a walk and a read of index.db. */
  byStat?: true;
}

/**
 * The summary of the last complete refresh when the workspace and the index are exactly as it
 * left them (see the file comment); undefined when a refresh has anything to do, or cannot be sure.
 */
export async function unchangedSinceWarmState(indexRoot: string, workspaceRoot: string, opts: DiscoveryOptions): Promise<Unchanged | undefined> {
  // By stat alone first (what the CLI launcher checks before loading the engine): no walk, no read of index.db.
  const byStat = unchangedByStat(indexRoot, workspaceRoot, opts);
  if (byStat) return { summary: byStat.summary, walkMs: byStat.checkMs, byStat: true };
  const s = readWarmState(indexRoot, workspaceRoot, opts);
  if (!s) return undefined;
  const paths = s.paths === '' ? [] : s.paths.split('\0');
  const walk = discoverWorkspaceAsync(realRoot(workspaceRoot), opts, { paths: new Set(paths), rulesStamp: s.rulesStamp });
  // The index bytes are read and checked as a load checks them, beside the walk (in chunks: the
  // whole file is never held).
  const bytesOk = checksumOfFile(path.join(indexRoot, INDEX_FILE)).then(
    (sum) => sum === s.sum,
    () => false,
  );
  let d: DiscoveryResult;
  try {
    d = await walk;
  } catch {
    return undefined;
  }
  if (!(await bytesOk)) return undefined;
  if (d.truncated || d.rulesStamp !== s.rulesStamp || d.files.length !== paths.length || d.skippedTooLarge.join('\0') !== s.skippedTooLarge.join('\0')) return undefined;
  for (let i = 0; i < paths.length; i++) {
    const f = d.files[i]!;
    if (f.path !== paths[i] || f.size !== s.sizes[i] || f.mtimeMs !== s.mtimes[i]) return undefined;
  }
  return { summary: s.summary, walkMs: d.durationMs };
}

/** The store's checksum of a file's bytes, read in chunks. */
async function checksumOfFile(file: string): Promise<string> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(CHECK_CHUNK_BYTES);
    let crc = 0;
    let length = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, length);
      if (bytesRead === 0) break;
      crc = zlib.crc32(buf.subarray(0, bytesRead), crc);
      length += bytesRead;
    }
    return formatChecksum(length, crc);
  } finally {
    await fh.close();
  }
}
