/**
 * What `sextant index` needs to see that nothing changed without loading the index: written next
 * to index.db after a complete refresh (`warm.json`, owner-only, replaced atomically), it holds
 * the walk that refresh indexed (paths, sizes, mtimes, the ignore rules' stamp), the checksum of
 * the index.db bytes it describes, the build and options it was made with, and the summary figures.
 *
 * A later run walks the tree (in the walk worker) and compares: the same files with the same
 * sizes and mtimes under the same rules, an index.db whose bytes still have that checksum (read and
 * checked, as a load does), the same build and options — then a refresh would read no file and
 * write nothing, so the run answers from here. Anything else (a change, another build, an engine
 * that wrote the index since, damage) is the ordinary path: load, refresh, persist.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import { discoverWorkspaceAsync, discoveryOptionsOf, type DiscoveryOptions, type DiscoveryResult } from '../workspace/discover';
import { SCHEMA_VERSION } from './schema';
import { formatChecksum, INDEX_FILE, WARM_STATE_FILE } from './store';

/** Bytes read at a time when checking index.db's checksum. */
const CHECK_CHUNK_BYTES = 8 * 1024 * 1024;

const STATE_FILE = WARM_STATE_FILE;
const FORMAT = 1;

/** The summary figures of the refresh the state describes (what `sextant index --json` prints). */
export interface WarmSummary {
  files: number;
  sourceFiles: number;
  bytes: number;
  indexVersion: string;
  skippedTooLarge: number;
}

interface StateFile {
  format: number;
  key: string;
  sum: string;
  rulesStamp: string;
  paths: string;
  sizes: number[];
  mtimes: number[];
  skippedTooLarge: string[];
  summary: WarmSummary;
}

/** The build, schema, workspace and walk options a state holds for (any difference: not used). */
function stateKey(workspaceRoot: string, opts: DiscoveryOptions): string {
  const root = realRoot(workspaceRoot);
  let build = '';
  try {
    const st = fs.statSync(__filename); // the bundle (or this source file): a rebuild may index differently
    build = `${st.size}:${st.mtimeMs}`;
  } catch {
    build = 'unknown';
  }
  return crypto.createHash('sha1').update(JSON.stringify([FORMAT, SCHEMA_VERSION, build, root, discoveryOptionsOf(opts)])).digest('hex');
}

function realRoot(workspaceRoot: string): string {
  try {
    return fs.realpathSync(path.resolve(workspaceRoot));
  } catch {
    return path.resolve(workspaceRoot);
  }
}

function indexSum(indexRoot: string): string | undefined {
  try {
    return fs.readFileSync(path.join(indexRoot, INDEX_FILE + '.sum'), 'utf8').split('\n')[0]?.trim() || undefined;
  } catch {
    return undefined;
  }
}

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
  const s: StateFile = {
    format: FORMAT,
    key: stateKey(workspaceRoot, opts),
    sum,
    rulesStamp: discovery.rulesStamp,
    paths: discovery.files.map((f) => f.path).join('\0'),
    sizes: discovery.files.map((f) => f.size),
    mtimes: discovery.files.map((f) => f.mtimeMs),
    skippedTooLarge: [...discovery.skippedTooLarge],
    summary,
  };
  const file = path.join(indexRoot, STATE_FILE);
  const tmp = `${file}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(s), { mode: 0o600 });
    fs.renameSync(tmp, file);
  } catch {
    fs.rmSync(tmp, { force: true });
    dropWarmState(indexRoot);
  }
}

export interface Unchanged {
  summary: WarmSummary;
  walkMs: number;
}

/**
 * The summary of the last complete refresh when the workspace and the index are exactly as it
 * left them (see the file comment); undefined when a refresh has anything to do, or cannot be sure.
 */
export async function unchangedSinceWarmState(indexRoot: string, workspaceRoot: string, opts: DiscoveryOptions): Promise<Unchanged | undefined> {
  let s: StateFile;
  try {
    s = JSON.parse(fs.readFileSync(path.join(indexRoot, STATE_FILE), 'utf8')) as StateFile;
  } catch {
    return undefined;
  }
  if (s.format !== FORMAT || s.key !== stateKey(workspaceRoot, opts) || s.sum !== indexSum(indexRoot)) return undefined;
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
