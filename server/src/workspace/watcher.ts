/**
 * The workspace watcher: tells the engine which workspace-relative paths changed on disk.
 *
 * Backend, in order:
 *   - `native`: @parcel/watcher (inotify / FSEvents / ReadDirectoryChangesW). Its walk of the tree
 *     and the per-folder watch setup run on the library's own thread, so a 40k-file workspace does
 *     not block the engine's event loop at start (Node 20's recursive `fs.watch` walks and stats
 *     every file on the main thread on Linux: 2.5–10 s per start on the generated 3,000-project
 *     workspace). Excluded folders (the index's default exclusions, see ignoreRules.ts, and the
 *     index folder) are never entered, so they cost no watch and report nothing. Deletes and
 *     renames arrive as delete + create. A folder created (or moved in) after start is watched by
 *     the library, but its subfolders only when they appeared after that (`mkdir -p a/b`, a
 *     checkout or a copy of a tree can beat it: parcel-bundler/watcher#97), so each new folder is
 *     also listed here and every folder in it gets its own non-recursive `fs.watch` (up to
 *     WATCH_NEW_FOLDERS_MAX_DIRS), and the files found in it are reported as changed.
 *   - `fs.watch`: Node's recursive watcher, used when the native module cannot be loaded (a platform
 *     without a prebuilt binary) or when asked (`SEXTANT_WATCHER=fs.watch`). It says so in the log.
 *   - `off`: no watcher could start or the running one failed (an inotify limit, the root removed):
 *     the status says why, and files changed from then on are found by the next refresh.
 *
 * Catch-up: the native walk takes seconds on a large tree (~12 s on 43k files under load), and a
 * change in a folder it has not reached yet raises no event. With `catchUpSinceMs` (the engine passes
 * the start of its last walk), once the backend is ready an asynchronous sweep (bounded parallel
 * readdir/lstat, never a long block) reports every path changed since then (mtime or ctime).
 *
 * Events are filtered in JS too, by the same rules (whatever backend): a path with an excluded
 * folder on the way, or matched by the user's `exclude` patterns, is not reported. `.gitignore`
 * files are not read here: the refresh's walk applies them to what is reported.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_WALK_DEPTH, WATCH_CATCH_UP_PARALLEL_READS, WATCH_CATCH_UP_SLACK_MS, WATCH_NEW_FOLDERS_MAX_DIRS } from '../core/limits';
import { log } from '../core/log';
import { DEFAULT_EXCLUDED_DIRS, IgnoreRules, type IgnoreOptions } from './ignoreRules';

/** The intermediate-output folder whose C# sources (generator output) `onGenerated` reports. */
const GENERATED_DIR = 'obj';

export type WatchBackend = 'native' | 'fs.watch' | 'off';

export interface WatchStatus {
  backend: WatchBackend;
  /** True once the backend watches the whole tree (the native walk finished; fs.watch at once). */
  ready: boolean;
  /** Why the backend is not the native one, or why watching stopped. */
  note?: string;
}

export interface WorkspaceWatcherOptions extends IgnoreOptions {
  /** Absolute folders inside the root that are never watched nor reported (the index folder). */
  skipDirs?: readonly string[];
  /** Backend to use; default: `SEXTANT_WATCHER` (`native` | `fs.watch`), else native with fs.watch as fallback. */
  backend?: 'native' | 'fs.watch';
  /** Once watching covers the tree, report what changed since this time (ms since the epoch) and was not seen. */
  catchUpSinceMs?: number;
  /**
   * True when the index holds this file with exactly this size and mtime: the catch-up sweep does
   * not report it (a file written just before the walk, inside the timestamp slack, is not a change).
   */
  indexedAs?: (rel: string, size: number, mtimeMs: number) => boolean;
  /**
   * The native backend reported an error while running (a dropped event queue, a folder it could
   * not follow): events may be missing, so the caller walks the workspace again. Watching goes on.
   */
  onEventsLost?: (why: string) => void;
  /**
   * With it, C# sources under `obj/` folders (generator output, `*.g.cs`, AssemblyInfo) are
   * watched too and reported here, apart from `onPaths`: they are not indexed, but the semantic
   * backends compile them (a rebuild changes them). Without it, `obj/` is not entered.
   */
  onGenerated?: (rels: string[]) => void;
  /** Called when the status changes (ready, fallen back, stopped). */
  onStatus?: (s: WatchStatus) => void;
}

/** The subset of @parcel/watcher's API used here. */
interface ParcelEvent {
  path: string;
  type: 'create' | 'update' | 'delete';
}
interface ParcelSubscription {
  unsubscribe(): Promise<void>;
}
interface ParcelWatcher {
  subscribe(dir: string, fn: (err: Error | null, events: ParcelEvent[]) => unknown, opts?: { ignore?: string[] }): Promise<ParcelSubscription>;
}

let parcel: { ok: true; api: ParcelWatcher } | { ok: false; error: string } | undefined;

/**
 * @parcel/watcher with its native binding: the copy next to the bundle (dist/native/, what the
 * .vsix ships) first, else the platform package from node_modules (a checkout, tests under tsx).
 */
function loadParcel(): typeof parcel {
  if (parcel) return parcel;
  const libc = process.platform === 'linux' ? ['-glibc', '-musl'] : [''];
  const tried: string[] = [];
  const candidates = [
    path.join(__dirname, 'native', 'parcel-watcher.node'),
    ...libc.map((l) => `@parcel/watcher-${process.platform}-${process.arch}${l}`),
  ];
  for (const c of candidates) {
    if (path.isAbsolute(c) && !fs.existsSync(c)) continue;
    try {
      // Computed names: the bundler leaves these requires to run time.
      const binding: unknown = require(c);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { createWrapper } = require('@parcel/watcher/wrapper') as { createWrapper: (b: unknown) => ParcelWatcher };
      return (parcel = { ok: true, api: createWrapper(binding) });
    } catch (e) {
      tried.push(`${path.isAbsolute(c) ? path.basename(c) : c}: ${(e as Error).message.split('\n')[0]}`);
    }
  }
  return (parcel = { ok: false, error: tried.length > 0 ? tried.join('; ') : `no prebuilt @parcel/watcher binary for ${process.platform}-${process.arch}` });
}

/** Which backend a watcher would use here, for `sextant doctor` (loads the binding; starts nothing). */
export function nativeWatcherCheck(): { ok: boolean; detail: string } {
  const p = loadParcel()!;
  return p.ok ? { ok: true, detail: '@parcel/watcher (native, off the event loop)' } : { ok: false, detail: `native watcher unavailable (${p.error}); Node's recursive fs.watch is used (blocks the engine at start on a large tree)` };
}

export class WorkspaceWatcher {
  private readonly rules: IgnoreRules;
  private readonly skip: string[];
  private closed = false;
  private sub: Promise<ParcelSubscription | undefined> | undefined;
  private fsWatcher: fs.FSWatcher | undefined;
  private current: WatchStatus = { backend: 'off', ready: false };
  /** Folders created after start, watched one by one (workspace-relative → watcher). */
  private readonly added = new Map<string, fs.FSWatcher>();
  private addedCapped = false;
  /** Resolves once the backend watches the whole tree, or has fallen to `off`. */
  readonly ready: Promise<void>;

  constructor(
    private readonly root: string,
    private readonly onPaths: (rels: string[]) => void,
    private readonly opts: WorkspaceWatcherOptions = {},
  ) {
    this.rules = new IgnoreRules(root, { ...opts, useGitignore: false });
    this.skip = (opts.skipDirs ?? []).map((d) => path.relative(root, d).split(path.sep).join('/')).filter((r) => r && !r.startsWith('..') && !path.isAbsolute(r));
    const wanted = opts.backend ?? (process.env.SEXTANT_WATCHER === 'fs.watch' ? 'fs.watch' : 'native');
    const started = wanted === 'native' ? this.startNative() : Promise.resolve(this.startFsWatch(undefined));
    this.ready = started.then(() => this.catchUp());
  }

  /** Reports paths changed since `catchUpSinceMs` (see the header); resolves when the sweep is done. */
  private async catchUp(): Promise<void> {
    const since = this.opts.catchUpSinceMs;
    if (since === undefined || this.closed || this.current.backend === 'off') return;
    const floor = since - WATCH_CATCH_UP_SLACK_MS;
    const dirs: { rel: string; depth: number }[] = [{ rel: '', depth: 0 }];
    const changed: string[] = [];
    const visit = async (d: { rel: string; depth: number }): Promise<void> => {
      let entries: fs.Dirent[];
      try {
        entries = await fs.promises.readdir(path.join(this.root, d.rel), { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        if (this.closed) return;
        const rel = d.rel === '' ? e.name : `${d.rel}/${e.name}`;
        if (e.isDirectory() && (this.rules.excludesName(e.name) || !this.admits(rel))) continue;
        let st: fs.Stats;
        try {
          st = await fs.promises.lstat(path.join(this.root, rel));
        } catch {
          continue;
        }
        // A folder's own time moves when an entry is added or removed: only after the walk began
        // (the files added are found one by one; a removal shows only here).
        const recent = Math.max(st.mtimeMs, st.ctimeMs) >= (e.isDirectory() ? since : floor);
        if (recent && !(e.isFile() && this.opts.indexedAs?.(rel, st.size, st.mtimeMs))) changed.push(rel);
        if (e.isDirectory() && d.depth < MAX_WALK_DEPTH) dirs.push({ rel, depth: d.depth + 1 });
      }
    };
    let active = 0;
    const workers = Array.from({ length: WATCH_CATCH_UP_PARALLEL_READS }, async () => {
      // Each worker takes the next folder; the queue grows as folders are listed.
      for (;;) {
        const d = dirs.pop();
        if (!d) {
          if (active === 0 || this.closed) return;
          await new Promise((r) => setImmediate(r));
          continue;
        }
        active++;
        try {
          await visit(d);
        } finally {
          active--;
        }
      }
    });
    await Promise.all(workers);
    this.report(changed, true);
  }

  get status(): WatchStatus {
    return this.current;
  }

  private setStatus(s: WatchStatus): void {
    this.current = s;
    this.opts.onStatus?.(s);
  }

  /** The folder names never entered: the index's default exclusions the workspace did not re-admit. */
  private excludedNames(): string[] {
    return DEFAULT_EXCLUDED_DIRS.filter((n) => this.rules.excludesName(n) && !(n === GENERATED_DIR && this.opts.onGenerated));
  }

  /**
   * A folder (`dir`) or a C# file under an `obj/` folder whose only excluded folder on the way is
   * `obj` itself, when `onGenerated` asks for them.
   */
  private generated(rel: string, dir: boolean): boolean {
    if (!this.opts.onGenerated || !rel || rel.startsWith('..')) return false;
    if (!dir && !/\.cs$/i.test(rel)) return false;
    const segs = rel.split('/');
    let inObj = false;
    for (let i = 0; i < (dir ? segs.length : segs.length - 1); i++) {
      if (segs[i]!.toLowerCase() === GENERATED_DIR) inObj = true;
      else if (this.rules.excludesName(segs[i]!)) return false;
    }
    return inObj && !this.skip.some((s) => rel === s || rel.startsWith(s + '/'));
  }

  /** True when a changed path is reported: no excluded folder on its way, not under a skipped folder, not matched by `exclude`. */
  private admits(rel: string): boolean {
    if (!rel || rel.startsWith('..')) return false;
    const segs = rel.split('/');
    for (let i = 0; i < segs.length - 1; i++) if (this.rules.excludesName(segs[i]!)) return false;
    if (this.skip.some((s) => rel === s || rel.startsWith(s + '/'))) return false;
    return !this.rules.ignores(rel, false);
  }

  private report(abs: Iterable<string>, relative: boolean): void {
    if (this.closed) return;
    const out: string[] = [];
    const gen: string[] = [];
    for (const p of abs) {
      const rel = (relative ? p : path.relative(this.root, p)).split(path.sep).join('/');
      if (this.admits(rel)) out.push(rel);
      else if (this.generated(rel, false)) gen.push(rel);
    }
    if (out.length > 0) this.onPaths(out);
    if (gen.length > 0) this.opts.onGenerated?.(gen);
  }

  private async startNative(): Promise<void> {
    const p = loadParcel()!;
    if (!p.ok) {
      this.startFsWatch(`the native watcher cannot load (${p.error}); Node's recursive fs.watch instead (it blocks the engine while it walks a large tree at start)`);
      return;
    }
    this.setStatus({ backend: 'native', ready: false });
    const ignore = [...this.excludedNames().map((n) => `**/${n}`), ...this.skip];
    this.sub = p.api
      .subscribe(
        this.root,
        (err, events) => {
          if (err) return this.lost(err);
          this.report(
            events.map((e) => e.path),
            false,
          );
          for (const e of events) if (e.type === 'create') void this.coverIfFolder(e.path);
        },
        { ignore },
      )
      .then(
        (s) => {
          if (this.closed) {
            void s.unsubscribe().catch(() => undefined);
            return undefined;
          }
          this.setStatus({ backend: 'native', ready: true });
          return s;
        },
        (e: Error) => {
          // An inotify/handle limit would hit fs.watch as well; anything else (an unreadable
          // folder, a platform quirk) gets Node's watcher instead.
          if (/ENOSPC|EMFILE|no space left|too many open/i.test(e.message) || this.closed) this.fail(e);
          else this.startFsWatch(`the native watcher could not start (${e.message}); Node's recursive fs.watch instead`);
          return undefined;
        },
      );
    await this.sub;
  }

  private startFsWatch(note: string | undefined): void {
    if (note) log.warn('workspace watcher: ' + note);
    try {
      this.fsWatcher = fs.watch(this.root, { recursive: true, persistent: false }, (_event, filename) => {
        if (filename) this.report([String(filename)], true);
      });
      this.fsWatcher.on('error', (e) => this.fail(e));
      this.setStatus({ backend: 'fs.watch', ready: true, ...(note ? { note } : {}) });
    } catch (e) {
      this.fail(e as Error);
    }
  }

  /**
   * A path just created: when it is a folder (not excluded), watch it and every folder below it
   * one by one and report the files already in them (their own events may have been missed).
   */
  private async coverIfFolder(abs: string): Promise<void> {
    const rel = path.relative(this.root, abs).split(path.sep).join('/');
    if (this.closed || this.added.has(rel)) return;
    if (!this.generated(rel, true) && (!this.admits(rel) || this.rules.excludesName(path.basename(rel)))) return;
    let st: fs.Stats;
    try {
      st = await fs.promises.lstat(abs);
    } catch {
      return; // came and went
    }
    if (!st.isDirectory()) return;
    const found: string[] = [];
    const stack: { rel: string; depth: number }[] = [{ rel, depth: rel.split('/').length }];
    while (stack.length > 0 && !this.closed) {
      const d = stack.pop()!;
      if (d.depth > MAX_WALK_DEPTH || this.added.has(d.rel)) continue;
      if (this.added.size >= WATCH_NEW_FOLDERS_MAX_DIRS) {
        if (!this.addedCapped) {
          this.addedCapped = true;
          log.warn(`workspace watcher: more than ${WATCH_NEW_FOLDERS_MAX_DIRS} folders created since start are watched one by one; changes in further new folders are found by the next refresh`);
        }
        break;
      }
      const dirAbs = path.join(this.root, d.rel);
      try {
        // Watch first, then list: a file created in between is seen by one or the other.
        const w = fs.watch(dirAbs, { persistent: false }, (_event, name) => {
          if (!name) return;
          const child = `${d.rel}/${String(name)}`;
          this.report([child], true);
          void this.coverIfFolder(path.join(this.root, child));
          this.dropGone(child);
        });
        w.on('error', () => this.unwatchAdded(d.rel));
        this.added.set(d.rel, w);
        const entries = await fs.promises.readdir(dirAbs, { withFileTypes: true });
        for (const e of entries) {
          const childRel = `${d.rel}/${e.name}`;
          if (e.isDirectory()) {
            if ((!this.rules.excludesName(e.name) && this.admits(childRel)) || this.generated(childRel, true)) stack.push({ rel: childRel, depth: d.depth + 1 });
          } else found.push(childRel);
        }
      } catch {
        this.unwatchAdded(d.rel); // gone already, or unreadable
      }
    }
    if (found.length > 0) this.report(found, true);
  }

  /** A folder watched one by one that no longer exists: its watchers (and those below it) close. */
  private dropGone(rel: string): void {
    if (!this.added.has(rel)) return;
    fs.promises.access(path.join(this.root, rel)).catch(() => this.unwatchAdded(rel));
  }

  private unwatchAdded(rel: string): void {
    for (const [k, w] of this.added) {
      if (k === rel || k.startsWith(rel + '/')) {
        w.close();
        this.added.delete(k);
      }
    }
  }

  /** Events may be missing (the backend said so); watching goes on and the caller walks again. */
  private lost(e: Error): void {
    if (this.closed) return;
    log.warn(`workspace watcher: events may have been lost (${e.message}); the workspace is walked again`);
    if (this.opts.onEventsLost) this.opts.onEventsLost(e.message);
    else this.fail(e);
  }

  /** A backend failed (inotify limit, root removed, …): watching stops, and the status says so. */
  private fail(e: Error): void {
    if (this.closed || (this.current.backend === 'off' && this.current.note)) return;
    const note = `the workspace watcher stopped (${e.message}); files changed from now on are found by the next refresh`;
    log.warn(note);
    this.setStatus({ backend: 'off', ready: false, note });
    void this.stopBackends();
  }

  private async stopBackends(): Promise<void> {
    for (const w of this.added.values()) w.close();
    this.added.clear();
    this.fsWatcher?.close();
    this.fsWatcher = undefined;
    const sub = this.sub;
    this.sub = undefined;
    const s = await sub;
    await s?.unsubscribe().catch(() => undefined);
  }

  /** Stops watching; no handle is left open (the process can exit). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.stopBackends();
  }
}
