/**
 * Workspace discovery: a deterministic walk that honours .gitignore files and the default
 * exclusions, never follows symbolic links out of the root (linked folders are not entered at all),
 * and skips files over the size cap (counted, not silent).
 *
 * A warm start walks the same tree again: `known` (the paths the last walk admitted, and the
 * stamp of the ignore rules it used) lets a path seen before skip the ignore-rule test. The stamp
 * covers the options and every .gitignore read on the way; if it differs at the end of the walk
 * (a .gitignore changed), the walk is done again without the shortcut. Every file is still
 * listed and stat'ed: a changed file is always seen.
 *
 * `discoverWorkspaceAsync` runs the same walk in a worker thread (`discoverWorker.ts`): its
 * syscalls (a readdir per folder, a stat per file: seconds on 40k files at load) run beside the
 * caller, e.g. while the engine loads its index. The result is the same as the synchronous walk's.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_FILE_BYTES, MAX_WALK_DEPTH, MAX_WORKSPACE_FILES } from '../core/limits';
import { Worker } from 'node:worker_threads';
import { runSteps, runStepsSliced, timeSlice } from '../core/timeSlice';
import { workerEntry } from '../core/workerEntry';
import { classify, languageOf, type FileClass } from './fileClass';
import { discoveryOptionsOf, type DiscoveryOptions } from './discoveryOptions';
import { IgnoreRules } from './ignoreRules';

export { discoveryOptionsOf, type DiscoveryOptions };

export interface DiscoveredFile {
  /** Workspace-relative POSIX path. */
  path: string;
  size: number;
  mtimeMs: number;
  /** Class from the path; the indexer refines `generated` from the file's first bytes. */
  readonly fileClass: FileClass;
  readonly language: string | undefined;
  /** For an in-root symbolic link: the canonical path of its target (reads use it). */
  linkTarget?: string;
}

export interface DiscoveryResult {
  /** Canonical absolute root. */
  root: string;
  files: DiscoveredFile[];
  skippedTooLarge: string[];
  skippedLinks: number;
  skippedUnreadable: number;
  /** True when MAX_WORKSPACE_FILES or MAX_WALK_DEPTH stopped the walk. */
  truncated: boolean;
  durationMs: number;
  /** Stamp of the ignore rules this walk applied (options and .gitignore contents); see `known`. */
  rulesStamp: string;
  /** What a later check needs to see by `stat` alone that this walk would list the same; absent when it cannot (links, unreadable entries, truncated). */
  stamp?: WalkStamp;
}

/**
 * Every folder the walk listed with its modification time (taken before listing it), and every
 * listed file that is not in `files` (ignored, over the size cap) with its size and time: when
 * each folder's time and each file's (these and `files`) are as recorded, no entry was added,
 * removed or renamed in a walked folder and no rule file (`.gitignore`, package.json,
 * pnpm-workspace.yaml: all listed files) changed, so the same walk lists and admits the same files.
 */
export interface WalkStamp {
  /** NUL-joined workspace-relative folders ('' is the root). */
  dirs: string;
  dirMtimes: number[];
  /** NUL-joined listed files not admitted. */
  others: string;
  otherSizes: number[];
  otherMtimes: number[];
}

/** Paths an earlier walk admitted under the ignore rules with stamp `rulesStamp`. */
export interface KnownPaths {
  paths: ReadonlySet<string> | ReadonlyMap<string, unknown>;
  rulesStamp: string;
}

/** A listed file; class and language are worked out from the path when asked (most never are). */
class Found implements DiscoveredFile {
  linkTarget?: string;
  constructor(
    readonly path: string,
    readonly size: number,
    readonly mtimeMs: number,
  ) {}
  get fileClass(): FileClass {
    return classify(this.path);
  }
  get language(): string | undefined {
    return languageOf(this.path);
  }
}

export function discoverWorkspace(root: string, opts: DiscoveryOptions = {}, known?: KnownPaths): DiscoveryResult {
  return runSteps(walkSteps(root, opts, known));
}

/**
 * `discoverWorkspace` on this thread, giving the event loop a turn every NAV_WORK_SLICE_MS
 * (`core/timeSlice.ts`): for a walk that cannot run in a worker (the engine run from sources),
 * so that it never holds the thread for seconds. Same result.
 */
export function discoverWorkspaceSliced(root: string, opts: DiscoveryOptions = {}, known?: KnownPaths, signal?: AbortSignal): Promise<DiscoveryResult> {
  const slice = timeSlice();
  return runStepsSliced(walkSteps(root, opts, known), async () => {
    await slice();
    if (signal?.aborted) throw new Error('the walk was stopped');
  });
}

/** The walk as steps (one folder listed, or a run of files admitted, per step). */
function* walkSteps(root: string, opts: DiscoveryOptions, known: KnownPaths | undefined): Generator<void, DiscoveryResult> {
  const started = Date.now();
  const tree = yield* listTreeSteps(root, opts, known);
  return yield* admitListedSteps(root, opts, tree, known, known !== undefined, started);
}

/**
 * The files of a listed tree the rules admit. When the listing itself used `known` (folders) and
 * the rules changed since (a .gitignore, the options), the tree is walked again without it: the
 * shortcut may have admitted a folder now ignored.
 */
function* admitListedSteps(root: string, opts: DiscoveryOptions, tree: ListedTree, known: KnownPaths | undefined, listedWithKnown: boolean, started: number): Generator<void, DiscoveryResult> {
  const out = listedWithKnown && known && tree.rulesStamp !== known.rulesStamp ? yield* (yield* listTreeSteps(root, opts, undefined)).admitSteps(undefined) : yield* tree.admitSteps(known);
  return { ...out, durationMs: Date.now() - started };
}

function admitListed(root: string, opts: DiscoveryOptions, tree: ListedTree, known: KnownPaths | undefined, listedWithKnown: boolean, started: number): DiscoveryResult {
  return runSteps(admitListedSteps(root, opts, tree, known, listedWithKnown, started));
}

/** A file the walk listed and stat'ed; whether the ignore rules admit it is decided by `admit`. */
interface Listed {
  rel: string;
  /** -1: the stat failed. */
  size: number;
  mtimeMs: number;
  linkTarget?: string;
}

/**
 * The tree as walked: every file listed and stat'ed in walk order, folders already filtered by
 * the rules (`known` lets a known folder skip its test). The files' own ignore test waits for
 * `admit`, so a walk can start before the known paths are read (the engine loads its index
 * meanwhile) and skip the test for those paths afterwards.
 */
interface ListedTree {
  readonly rulesStamp: string;
  admitSteps(known: KnownPaths | undefined): Generator<void, DiscoveryResult>;
}

/** Files admitted per step of `admitSteps`. */
const ADMIT_STEP_FILES = 2000;

function listTree(root: string, opts: DiscoveryOptions, known: KnownPaths | undefined): ListedTree {
  return runSteps(listTreeSteps(root, opts, known));
}

function* listTreeSteps(root: string, opts: DiscoveryOptions, known: KnownPaths | undefined): Generator<void, ListedTree> {
  const started = Date.now();
  const realRoot = fs.realpathSync(root);
  const rules = new IgnoreRules(realRoot, opts);
  const stamp = crypto.createHash('sha1').update(JSON.stringify([opts.exclude ?? [], opts.include ?? [], opts.useGitignore ?? true, rules.declared]));
  const knownDirs = known ? dirsOf(known.paths.keys()) : undefined;
  const maxFiles = opts.maxFiles ?? MAX_WORKSPACE_FILES;
  const listed: Listed[] = [];
  const dirStamps: { rel: string; mtimeMs: number }[] = [];
  let skippedLinks = 0;
  let skippedUnreadable = 0;
  let truncated = false;

  const stack: { rel: string; depth: number }[] = [{ rel: '', depth: 0 }];
  while (stack.length > 0) {
    const { rel, depth } = stack.pop()!;
    if (depth > MAX_WALK_DEPTH) {
      truncated = true;
      continue;
    }
    let entries: fs.Dirent[];
    try {
      // the folder's time before its listing: a change made during the listing shows as a later time
      const dirTime = fs.statSync(path.join(realRoot, rel)).mtimeMs;
      entries = fs.readdirSync(path.join(realRoot, rel), { withFileTypes: true });
      dirStamps.push({ rel, mtimeMs: dirTime });
      // Read a .gitignore only where the listing shows one (a failed open per folder is costly).
      if (entries.some((e) => e.name === '.gitignore')) {
        const text = rules.enter(rel);
        if (text !== undefined) stamp.update(`\0${rel}\0${text}`);
      }
    } catch {
      skippedUnreadable++;
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)); // reversed: stack pops in order
    const dirs: string[] = [];
    const dirAbs = path.join(realRoot, rel);
    for (const e of entries) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (knownDirs?.has(childRel) ? !rules.excludesName(e.name) : !rules.ignores(childRel, true)) dirs.push(childRel);
        continue;
      }
      let isFile = e.isFile();
      const abs = dirAbs + path.sep + e.name;
      let linkTarget: string | undefined;
      if (e.isSymbolicLink()) {
        // A linked file is admitted only when its target is a regular file inside the root.
        // Linked folders are never entered (no cycles, no escape).
        let target: string;
        try {
          target = fs.realpathSync(abs);
        } catch {
          skippedLinks++;
          continue;
        }
        const back = path.relative(realRoot, target);
        if (back.startsWith('..') || path.isAbsolute(back)) {
          skippedLinks++;
          continue;
        }
        try {
          isFile = fs.statSync(target).isFile();
        } catch {
          isFile = false;
        }
        if (!isFile) {
          skippedLinks++;
          continue;
        }
        linkTarget = target;
      }
      if (!isFile) continue;
      const st = fs.statSync(abs, { throwIfNoEntry: false });
      const f: Listed = st ? { rel: childRel, size: st.size, mtimeMs: Math.floor(st.mtimeMs) } : { rel: childRel, size: -1, mtimeMs: 0 };
      if (linkTarget) f.linkTarget = linkTarget;
      listed.push(f);
    }
    // Enough listed whatever the rules admit: the admitted ones cannot be more.
    if (listed.length > maxFiles * 2 + 1000) {
      truncated = true;
      break;
    }
    for (let i = dirs.length - 1; i >= 0; i--) stack.push({ rel: dirs[i]!, depth: depth + 1 });
    yield;
  }
  const rulesStamp = stamp.digest('hex');

  return {
    rulesStamp,
    *admitSteps(knownNow) {
      // The shortcut holds only under the rules the known paths were admitted by.
      const knownPaths = knownNow && knownNow.rulesStamp === rulesStamp ? knownNow.paths : undefined;
      const maxBytes = opts.maxFileBytes ?? MAX_FILE_BYTES;
      const out: DiscoveryResult = { root: realRoot, files: [], skippedTooLarge: [], skippedLinks, skippedUnreadable, truncated, durationMs: 0, rulesStamp };
      const others: Listed[] = [];
      let linked = false;
      let n = 0;
      for (const f of listed) {
        if (++n % ADMIT_STEP_FILES === 0) yield;
        if (!knownPaths?.has(f.rel) && rules.ignores(f.rel, false)) {
          others.push(f);
          continue;
        }
        if (f.size < 0) {
          out.skippedUnreadable++;
          continue;
        }
        if (f.size > maxBytes) {
          out.skippedTooLarge.push(f.rel);
          others.push(f);
          continue;
        }
        if (out.files.length >= maxFiles) {
          out.truncated = true;
          break;
        }
        const file = new Found(f.rel, f.size, f.mtimeMs);
        if (f.linkTarget) {
          file.linkTarget = f.linkTarget;
          linked = true;
        }
        out.files.push(file);
      }
      out.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      // A link's target or an unreadable entry can change without any listed time changing.
      if (!out.truncated && !linked && out.skippedLinks === 0 && out.skippedUnreadable === 0 && !others.some((f) => f.size < 0 || f.linkTarget)) {
        out.stamp = {
          dirs: dirStamps.map((d) => d.rel).join('\0'),
          dirMtimes: dirStamps.map((d) => d.mtimeMs),
          others: others.map((f) => f.rel).join('\0'),
          otherSizes: others.map((f) => f.size),
          otherMtimes: others.map((f) => f.mtimeMs),
        };
      }
      out.durationMs = Date.now() - started;
      return out;
    },
  };
}

/** What a walk in the worker sends back: the files packed (paths joined by NUL, numbers in arrays). */
export interface PackedDiscovery {
  result: Omit<DiscoveryResult, 'files'>;
  paths: string;
  sizes: Float64Array;
  mtimes: Float64Array;
  /** Index in the file list → canonical target of an in-root link. */
  links: [number, string][];
}

export interface DiscoverRequest {
  root: string;
  opts: DiscoveryOptions;
  /** Paths known to the index, NUL-joined, with their rules stamp (see KnownPaths). */
  known?: PackedKnown;
  /** The known paths come later, in a `KnownMessage` (the walk lists the tree meanwhile). */
  knownLater?: boolean;
}

interface PackedKnown {
  paths: string;
  rulesStamp: string;
}

/** What the engine sends a walk started with `knownLater`, once it has read its index. */
export interface KnownMessage {
  known: PackedKnown | undefined;
}

const packKnown = (k: KnownPaths): PackedKnown => ({ paths: [...k.paths.keys()].join('\0'), rulesStamp: k.rulesStamp });
const unpackKnown = (k: PackedKnown): KnownPaths => ({ paths: new Set(k.paths === '' ? [] : k.paths.split('\0')), rulesStamp: k.rulesStamp });

export function packDiscovery(d: DiscoveryResult): PackedDiscovery {
  const n = d.files.length;
  const sizes = new Float64Array(n);
  const mtimes = new Float64Array(n);
  const links: [number, string][] = [];
  const paths = new Array<string>(n);
  d.files.forEach((f, i) => {
    paths[i] = f.path;
    sizes[i] = f.size;
    mtimes[i] = f.mtimeMs;
    if (f.linkTarget) links.push([i, f.linkTarget]);
  });
  const { files: _files, ...result } = d;
  return { result, paths: paths.join('\0'), sizes, mtimes, links };
}

export function unpackDiscovery(p: PackedDiscovery): DiscoveryResult {
  const paths = p.paths === '' ? [] : p.paths.split('\0');
  const files: DiscoveredFile[] = paths.map((rel, i) => new Found(rel, p.sizes[i]!, p.mtimes[i]!));
  for (const [i, target] of p.links) (files[i] as Found).linkTarget = target;
  return { ...p.result, files };
}

/** Runs a walk request in the worker: lists the tree, waits for the known paths when they come later, admits. */
export async function discoverPacked(req: DiscoverRequest, knownLater: () => Promise<KnownMessage>): Promise<PackedDiscovery> {
  const started = Date.now();
  const known = req.known ? unpackKnown(req.known) : undefined;
  const tree = listTree(req.root, req.opts, known);
  if (!req.knownLater) return packDiscovery(admitListed(req.root, req.opts, tree, known, known !== undefined, started));
  const later = (await knownLater()).known;
  return packDiscovery(admitListed(req.root, req.opts, tree, later ? unpackKnown(later) : undefined, false, started));
}

/** True when the walk can run in a worker of the built engine (dist/discoverWorker.js beside the bundle). */
export function walkWorkerBuilt(): boolean {
  return workerEntry(__dirname, __filename, 'discoverWorker')?.execArgv.length === 0;
}

export interface AsyncWalkOptions {
  /** Walk in a worker thread: default when the built worker script is there (from sources the walk runs here unless asked). */
  inWorker?: boolean;
  /** Stops the worker; the result then rejects. */
  signal?: AbortSignal;
}

/** A walk under way; `provide` hands it the index's known paths (once) and it finishes. */
export interface PendingWalk {
  /** The paths the index holds (undefined: none): their ignore test is skipped when the rules are the same. */
  provide(known: KnownPaths | undefined): void;
  readonly result: Promise<DiscoveryResult>;
}

/**
 * Starts the walk of `discoverWorkspace` in a worker thread (the event loop stays free, and the
 * readdir and stat calls run beside whatever this thread does meanwhile, e.g. loading the index):
 * it lists and stats the tree at once and admits the files once `provide` gives it the known
 * paths. The result is the same as `discoverWorkspace(root, opts, known)`. Without a worker (or
 * when the thread fails) the walk runs here when `provide` is called.
 */
export function startWalk(root: string, opts: DiscoveryOptions = {}, how: AsyncWalkOptions = {}): PendingWalk {
  let provided: { known: KnownPaths | undefined } | undefined;
  let inThread: (() => void) | undefined;
  const entry = (how.inWorker ?? walkWorkerBuilt()) ? workerEntry(__dirname, __filename, 'discoverWorker') : undefined;
  let worker: Worker | undefined;
  const result = new Promise<DiscoveryResult>((resolve, reject) => {
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      how.signal?.removeEventListener('abort', onAbort);
      if (worker) void worker.terminate();
      f();
    };
    const onAbort = () => settle(() => reject(new Error('the walk was stopped')));
    how.signal?.addEventListener('abort', onAbort, { once: true });
    // Walks here: no worker, or it failed (then as soon as the known paths are there).
    inThread = () => {
      if (!provided) return;
      const known = provided.known;
      discoverWorkspaceSliced(root, opts, known, how.signal).then(
        (d) => settle(() => resolve(d)),
        (e: unknown) => settle(() => reject(e as Error)),
      );
    };
    if (!entry) return;
    const req: DiscoverRequest = { root, opts: discoveryOptionsOf(opts), knownLater: true };
    worker = new Worker(entry.file, { execArgv: entry.execArgv, workerData: req, stdout: false, stderr: false });
    // A walk nobody takes (an engine opened and closed without a refresh) does not hold the process open.
    worker.unref();
    worker.once('message', (m: PackedDiscovery | { error: string }) => settle(() => ('error' in m ? reject(new Error(m.error)) : resolve(unpackDiscovery(m)))));
    const failed = () => {
      worker = undefined;
      inThread?.();
    };
    worker.once('error', failed);
    worker.once('exit', failed);
  });
  return {
    result,
    provide(known) {
      if (provided) return;
      provided = { known };
      worker?.ref(); // now awaited
      if (worker) worker.postMessage({ known: known ? packKnown(known) : undefined } satisfies KnownMessage);
      else inThread?.();
    },
  };
}

/** `startWalk` with the known paths given at once. */
export function discoverWorkspaceAsync(root: string, opts: DiscoveryOptions = {}, known?: KnownPaths, how: AsyncWalkOptions = {}): Promise<DiscoveryResult> {
  const w = startWalk(root, opts, how);
  w.provide(known);
  return w.result;
}

/** Every folder that holds one of these paths (at any depth). */
function dirsOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) {
      const d = p.slice(0, i);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  return dirs;
}
