/**
 * The cheap half of the warm state (`warmState.ts`): reads `warm.json` and decides by `stat` alone
 * whether the workspace and the index are exactly as the last complete `sextant index` left them.
 * Imports no engine code, so the CLI launcher (`cliLauncher.ts`) runs it before loading the engine.
 *
 * Unchanged means: the same build, schema, root and walk options; index.db is the same file as
 * written (size, times and inode: the store only ever replaces it by rename, and any write in
 * place moves its times) and `index.db.sum` names the same bytes; every folder the walk listed
 * has the modification time it had (so no entry was added, removed or renamed in it) and every
 * file it listed — admitted or not, the `.gitignore` files and the root package.json among them —
 * has its size and time. Then the same walk would list and admit the same files with the same
 * sizes and times, and a refresh would read nothing. A state without a walk stamp (links or
 * unreadable entries in the tree) is left to the walk check of `warmState.ts`.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { discoveryOptionsOf, type DiscoveryOptions } from '../workspace/discoveryOptions';
import type { WalkStamp } from '../workspace/discover';
import { INDEX_FILE, WARM_STATE_FILE } from './indexFiles';
import { SCHEMA_VERSION } from './schema';

/** Format of warm.json (2: with the walk stamp and index.db's identity). */
export const WARM_FORMAT = 2;

/** The summary figures of the refresh the state describes (what `sextant index --json` prints). */
export interface WarmSummary {
  files: number;
  sourceFiles: number;
  bytes: number;
  indexVersion: string;
  skippedTooLarge: number;
}

/** index.db as a file: any write through the store makes a new one, any write in place moves the times. */
export interface FileIdentity {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
}

export interface WarmStateFile {
  format: number;
  key: string;
  sum: string;
  rulesStamp: string;
  paths: string;
  sizes: number[];
  mtimes: number[];
  skippedTooLarge: string[];
  summary: WarmSummary;
  walk?: WalkStamp;
  index?: FileIdentity;
}

let buildFile = __filename;

/** The launcher names the engine bundle it would load: the state holds for that build only. */
export function setEngineBuildFile(file: string): void {
  buildFile = file;
}

/** The build, schema, workspace and walk options a state holds for (any difference: not used). */
export function warmStateKey(workspaceRoot: string, opts: DiscoveryOptions): string {
  let build = '';
  try {
    const st = fs.statSync(buildFile); // the bundle (or this source file): a rebuild may index differently
    build = `${st.size}:${st.mtimeMs}`;
  } catch {
    build = 'unknown';
  }
  return crypto.createHash('sha1').update(JSON.stringify([WARM_FORMAT, SCHEMA_VERSION, build, realRoot(workspaceRoot), discoveryOptionsOf(opts)])).digest('hex');
}

export function realRoot(workspaceRoot: string): string {
  try {
    return fs.realpathSync(path.resolve(workspaceRoot));
  } catch {
    return path.resolve(workspaceRoot);
  }
}

/** The first line of index.db.sum: the checksum of the committed bytes. */
export function indexSum(indexRoot: string): string | undefined {
  try {
    return fs.readFileSync(path.join(indexRoot, INDEX_FILE + '.sum'), 'utf8').split('\n')[0]?.trim() || undefined;
  } catch {
    return undefined;
  }
}

export function identityOf(file: string): FileIdentity | undefined {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? { size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino } : undefined;
}

/** The state when it is of this format, build, workspace and options and its index.db.sum still holds. */
export function readWarmState(indexRoot: string, workspaceRoot: string, opts: DiscoveryOptions): WarmStateFile | undefined {
  let s: WarmStateFile;
  try {
    s = JSON.parse(fs.readFileSync(path.join(indexRoot, WARM_STATE_FILE), 'utf8')) as WarmStateFile;
  } catch {
    return undefined;
  }
  if (s.format !== WARM_FORMAT || s.key !== warmStateKey(workspaceRoot, opts) || s.sum !== indexSum(indexRoot)) return undefined;
  return s;
}

export interface UnchangedByStat {
  summary: WarmSummary;
  /** How long the check took (ms). */
  checkMs: number;
}

/** The last complete run's summary when `stat` shows nothing changed (see the file comment); else undefined. */
export function unchangedByStat(indexRoot: string, workspaceRoot: string, opts: DiscoveryOptions): UnchangedByStat | undefined {
  const started = performance.now();
  const s = readWarmState(indexRoot, workspaceRoot, opts);
  if (!s?.walk || !s.index) return undefined;
  const now = identityOf(path.join(indexRoot, INDEX_FILE));
  if (!now || now.size !== s.index.size || now.mtimeMs !== s.index.mtimeMs || now.ctimeMs !== s.index.ctimeMs || now.ino !== s.index.ino) return undefined;
  const root = realRoot(workspaceRoot) + path.sep;
  const split = (joined: string) => (joined === '' ? [] : joined.split('\0'));
  const dirs = s.walk.dirs.split('\0'); // the root itself is ''
  for (let i = 0; i < dirs.length; i++) {
    const st = fs.statSync(root + dirs[i], { throwIfNoEntry: false });
    if (!st?.isDirectory() || st.mtimeMs !== s.walk.dirMtimes[i]) return undefined;
  }
  const same = (paths: string[], sizes: number[], mtimes: number[]): boolean => {
    for (let i = 0; i < paths.length; i++) {
      const st = fs.statSync(root + paths[i], { throwIfNoEntry: false });
      if (!st?.isFile() || st.size !== sizes[i] || Math.floor(st.mtimeMs) !== mtimes[i]) return false;
    }
    return true;
  };
  if (!same(split(s.paths), s.sizes, s.mtimes) || !same(split(s.walk.others), s.walk.otherSizes, s.walk.otherMtimes)) return undefined;
  return { summary: s.summary, checkMs: Math.round(performance.now() - started) };
}
