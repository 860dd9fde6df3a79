/**
 * The engine: one per workspace root. It owns the index store, the token dictionary, the file
 * catalog, git state and the refresh loop, and answers "how fresh is this?" for every tool.
 * nav/ returns plain data in editor terms; the MCP layer renders it.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { INDEX_SERVING_TEXT_BATCH_FILES, INDEX_TEXT_BATCH_FILES, MAX_FILE_BYTES, PERSIST_AFTER_CHANGE_QUIET_MS, PERSIST_BETWEEN_PHASES_MIN_FILES, PREFETCHED_WALK_MAX_AGE_MS, REFRESH_RETRY_FIRST_MS, REFRESH_RETRY_MAX_MS, WATCH_DEBOUNCE_MS } from '../core/limits';
import { log } from '../core/log';
import { backgroundSlice } from '../core/timeSlice';
import { PathPolicy } from '../core/paths';
import { enableBoundedRegex } from '../core/regex';
import { defaultHooks } from '../index/hooks';
import { HOOKS_PENDING_META, refreshIndex, type IndexHook, type RefreshProgress, type RefreshStats, type TextReady } from '../index/indexer';
import { IndexStore, type Recovery } from '../index/store';
import { prebuildSymbolTable, symbolTableReady } from '../index/symbolTable';
import { TermDictionary } from '../index/termDictionary';
import { parseBatch } from '../syntax/parseBatch';
import { discoveryOptionsOf, startWalk, walkWorkerBuilt, type DiscoveredFile, type DiscoveryOptions, type DiscoveryResult, type PendingWalk } from '../workspace/discover';
import { readGitState, type GitState } from '../workspace/gitState';
import { WorkspaceWatcher, type WatchStatus } from '../workspace/watcher';
import { FileCatalog } from './fileCatalog';
import { LiveFiles } from './liveFiles';

export type IndexStatus = 'fresh' | 'stale' | 'partial' | 'building';

/** Index metadata carried by every answer. */
export interface IndexMeta {
  /** Snapshot token: changes whenever the indexed content changes. */
  version: string;
  status: IndexStatus;
  head: string | null;
  /** Files changed on disk since they were indexed (known from the watcher), not yet re-indexed. */
  dirty: number;
  /** Files git reports as modified/untracked (-1 when git is unavailable). */
  gitDirty: number;
  /** Set once when the stored index could not be loaded and was rebuilt. */
  recovered?: string;
  /**
   * Files whose outline and symbols are not indexed yet (set only when > 0): text + files are
   * committed first, outlines and symbols follow; symbol answers are partial until this is gone.
   */
  symbolsPending?: number;
  /** Set only while a change on disk may go unseen: the watcher is still covering the tree, or watching stopped. */
  watch?: string;
}

export interface EngineOptions extends DiscoveryOptions {
  workspaceRoot: string;
  /** Default `<workspace>/.sextant`. Empty string: in-memory only (nothing persisted). */
  indexRoot?: string;
  /** Index hooks (default: `defaultHooks()` from index/hooks.ts). */
  hooks?: readonly IndexHook[];
  /** Watch the workspace and re-index changed files (default false; the server turns it on). */
  watch?: boolean;
  /**
   * Read the git state while opening (default true). A caller that refreshes before answering
   * anything (`sextant index`) passes false: the refresh reads it anyway, alongside the walk.
   */
  gitAtOpen?: boolean;
  /**
   * Nothing is asked while this engine refreshes (`sextant index`): fewer, larger write
   * transactions (INDEX_TEXT_BATCH_FILES) instead of the serving engine's shorter holds.
   */
  indexOnly?: boolean;
}

/** The index root an engine with these options uses ('' = in memory): `<workspace>/.sextant` by default. */
export function indexRootFor(opts: Pick<EngineOptions, 'workspaceRoot' | 'indexRoot'>): string {
  if (opts.indexRoot === '') return '';
  return path.resolve(opts.indexRoot ?? path.join(fs.realpathSync(path.resolve(opts.workspaceRoot)), '.sextant'));
}

export class Engine {
  readonly root: string;
  readonly policy: PathPolicy;
  readonly dict = new TermDictionary();
  readonly files = new FileCatalog();
  /** Validated cache of file contents for verification-heavy queries. */
  readonly live = new LiveFiles();
  readonly indexRoot: string;
  git: GitState = { available: false, head: undefined, branch: undefined, dirtyFiles: [] };
  lastRefresh: RefreshStats | undefined;
  private status: IndexStatus = 'building';
  private catalogDirty = true;
  /**
   * What the dirty catalog needs: `full` (reload every row) or the paths changed in place by
   * incremental refreshes (re-read just those rows; a reload costs ~20 ms per 10k files).
   */
  private catalogPatch: Set<string> | 'full' = 'full';
  /** Paths the running refresh changes in place (undefined: it may add or remove files). */
  private patchPaths: string[] | undefined;
  /** Transactions committed by the running refresh: each one is a new snapshot with its own version. */
  private commitsInRefresh = 0;
  /**
   * Numbers those snapshots for the engine's lifetime, never reset: a refresh's first commits still
   * carry the previous generation, so a per-refresh count would name the last refresh's
   * intermediate snapshots again. The tag keeps another process's numbers apart.
   */
  private commitSeq = 0;
  private readonly commitTag = crypto.randomBytes(2).toString('hex');
  private refreshing: Promise<RefreshStats> | undefined;
  private rerunRequested = false;
  /** A rerun must walk the workspace (someone asked for a full refresh while one ran). */
  private rerunFull = false;
  /** New dictionary terms not yet in the `terms` blob (written before the next persist). */
  private termsDirty = false;
  /** A persist owed by an incremental refresh (written after a quiet period, or at close). */
  private persistTimer: NodeJS.Timeout | undefined;
  private persistOwed = false;
  private gitOwed = false;
  private readonly pending = new Set<string>();
  /** Refreshes that failed in a row (a retry waits longer after each), and the retry's timer. */
  private failedRefreshes = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private watcher: WorkspaceWatcher | undefined;
  /** The watcher covers the whole tree and its catch-up sweep is done (until then a change may go unseen). */
  private watchCovered = false;
  /** When the last refresh that walked the workspace started (the watcher's catch-up sweeps from it). */
  private walkStartedMs: number | undefined;
  private readonly changeListeners: ((rel: string) => void)[] = [];
  private watchTimer: NodeJS.Timeout | undefined;
  private hooks: IndexHook[];
  private recoveryNote: string | undefined;
  private disposed = false;
  /** The file on disk holds a committed state of this store (loaded from it, or written). */
  private persistedOnce = false;
  /** The first refresh's walk and git read, started by `open` while the index loads (see `takePrefetched`). */
  private prefetched: { startedMs: number; walk: PendingWalk; git: Promise<GitState>; stop: AbortController } | undefined;
  private readonly closers: (() => Promise<void> | void)[] = [];

  private constructor(readonly store: IndexStore, readonly opts: EngineOptions) {
    this.policy = new PathPolicy(opts.workspaceRoot);
    this.root = this.policy.root;
    this.indexRoot = store.indexRoot;
    this.hooks = [...(opts.hooks ?? defaultHooks())];
    if (store.recovery) {
      this.recoveryNote = `the stored index was ${store.recovery.kind === 'newer-schema' ? 'from a newer schema' : 'corrupt'} (${store.recovery.reason}); it was moved aside to ${store.recovery.movedTo} and rebuilt`;
    }
  }

  static async open(opts: EngineOptions): Promise<Engine> {
    enableBoundedRegex(); // every regex in the engine process falls back to linear time (core/regex.ts)
    const root = fs.realpathSync(path.resolve(opts.workspaceRoot));
    const indexRoot = indexRootFor(opts);
    // The first refresh's walk (a worker of the built engine) and git read (a child process, spawned
    // while this process is small) run while the index loads.
    const startedMs = Date.now();
    const stop = new AbortController();
    const walk = walkWorkerBuilt() ? startWalk(root, discoveryOptionsOf(opts), { signal: stop.signal }) : undefined;
    walk?.result.catch(() => undefined); // a walk never taken (or stopped at close) is not an unhandled rejection
    const git = opts.gitAtOpen === false && !walk ? undefined : readGitState(root);
    const store = indexRoot === '' ? await IndexStore.inMemory() : await IndexStore.open(indexRoot);
    const engine = new Engine(store, { ...opts, workspaceRoot: root });
    if (walk && git) engine.prefetched = { startedMs, walk, git, stop };
    if (!store.getMeta('index_id')) store.setMeta('index_id', crypto.randomBytes(4).toString('hex'));
    if (!store.getMeta('workspace_root')) store.setMeta('workspace_root', root);
    // Both are read on first use: a warm `sextant index` that finds nothing changed needs neither.
    engine.dict.resetLazy(() => TermDictionary.parse(store.getBlobText('terms')));
    engine.catalogDirty = true;
    engine.persistedOnce = store.loadedFromDisk && store.getMeta('committed') === '1';
    engine.status = store.loadedFromDisk && store.getMeta('committed') === '1' ? 'stale' : 'building';
    if (git && opts.gitAtOpen !== false) engine.git = await git;
    return engine;
  }

  /** The walk and git read `open` started, for the first refresh that walks soon after it (else stopped). */
  private takePrefetched(): { startedMs: number; walk: PendingWalk; git: Promise<GitState> } | undefined {
    const p = this.prefetched;
    this.prefetched = undefined;
    if (!p) return undefined;
    if (Date.now() - p.startedMs <= PREFETCHED_WALK_MAX_AGE_MS) return p;
    p.stop.abort();
    return undefined;
  }

  addHook(h: IndexHook): void {
    this.hooks.push(h);
  }

  /**
   * Re-indexes what changed: text + files first (committed, and persisted when much parsing
   * follows; then `onTextReady` runs), then outlines and symbols. Concurrent calls share one run;
   * a call during a run schedules one more.
   */
  refresh(onProgress?: (p: RefreshProgress) => void, onTextReady?: (r: TextReady) => void, changed?: ReadonlySet<string>): Promise<RefreshStats> {
    if (this.refreshing) {
      this.rerunRequested = true;
      if (!changed) this.rerunFull = true;
      return this.refreshing;
    }
    const run = async (): Promise<RefreshStats> => {
      const wasFresh = this.status === 'fresh';
      this.status = wasFresh ? 'stale' : 'building';
      // Changes the watcher reported to files already listed: the last walk, patched, instead of a walk.
      const known = changed ? this.patchedDiscovery(changed) : undefined;
      this.pending.clear();
      const opts: Parameters<typeof refreshIndex>[3] = {
        hooks: this.hooks,
        onBatchCommitted: () => {
          this.markCatalog();
          this.commitsInRefresh++;
          this.commitSeq++;
        },
        onTextReady: (r) => {
          // Text + files are committed: a new snapshot (its version has no in-refresh suffix).
          this.commitsInRefresh = 0;
          this.markCatalog();
          // The text index now matches the disk; symbol answers say they are partial (symbolsPending).
          this.status = r.truncated ? 'partial' : this.pending.size > 0 ? 'stale' : 'fresh';
          if (this.indexRoot && (r.changed || !this.persistedOnce) && r.pendingFiles >= PERSIST_BETWEEN_PHASES_MIN_FILES) {
            onProgress?.({ phase: 'persist', done: 0, total: 1 });
            this.persistNow();
            this.persistedOnce = true;
          }
          onTextReady?.(r);
        },
      };
      if (onProgress) opts.onProgress = onProgress;
      opts.textBatchFiles = this.opts.indexOnly ? INDEX_TEXT_BATCH_FILES : INDEX_SERVING_TEXT_BATCH_FILES;
      Object.assign(opts, discoveryOptionsOf(this.opts));
      this.patchPaths = known && known.files.length === this.lastRefresh?.discovery.files.length ? [...changed!].filter((p) => this.discoveryIndex?.byPath.has(p)) : undefined;
      if (known) {
        opts.discovery = known;
        opts.deferTermsBlob = () => {
          this.termsDirty = true;
        };
      }
      this.commitsInRefresh = 0;
      // A child process: runs while the workspace is walked. After a save it is read once the
      // workspace is quiet instead (spawning from this large process blocks it for ~50-100 ms).
      const pre = known ? undefined : this.takePrefetched();
      const git = known ? undefined : (pre?.git ?? readGitState(this.root));
      if (pre) opts.walk = pre.walk;
      if (!known) this.walkStartedMs = pre?.startedMs ?? Date.now();
      const stats = await refreshIndex(this.store, this.dict, this.root, opts);
      this.commitsInRefresh = 0; // the final commit is the new generation's snapshot
      this.markCatalog();
      this.patchPaths = undefined;
      if (git) this.git = await git;
      else this.gitOwed = true;
      onProgress?.({ phase: 'persist', done: 0, total: 1 });
      // Nothing changed on disk and the stored file is this state already: skip the rewrite.
      const wrote = stats.added + stats.changed + stats.deleted + stats.unchangedByHash + stats.parsedFiles > 0 || stats.rulesChanged || !this.persistedOnce;
      if (this.indexRoot && wrote) {
        // A saved file: persisting the whole database (tens of MB, fsync'd) would block answers
        // right when the agent asks about its edit; it is written once the workspace is quiet.
        if (known && this.persistedOnce) this.schedulePersist();
        else this.persistNow();
      } else if (this.gitOwed) this.schedulePersist();
      this.lastRefresh = stats;
      this.status = stats.discovery.truncated ? 'partial' : this.pending.size > 0 ? 'stale' : 'fresh';
      this.prebuildSymbols();
      return stats;
    };
    this.refreshing = run()
      .then(
        (stats) => {
          this.failedRefreshes = 0;
          return stats;
        },
        (e: unknown) => {
          this.afterFailedRefresh(changed, e);
          throw e;
        },
      )
      .finally(() => {
      this.refreshing = undefined;
      if (this.rerunRequested && !this.disposed) {
        this.rerunRequested = false;
        const full = this.rerunFull;
        this.rerunFull = false;
        void this.refresh(undefined, undefined, full ? undefined : new Set(this.pending)).catch((e) => log.error('refresh failed', { error: (e as Error).message }));
      }
    });
    return this.refreshing;
  }

  /**
   * A refresh threw (a hook, the store, a persist): the index is left `stale`, and nothing else
   * would run it again until the next change on disk — a workspace that then stays quiet would
   * say "changes pending" forever. The paths it was given are owed again (`dirty`), and a full
   * refresh is retried after REFRESH_RETRY_FIRST_MS, doubling per failure in a row up to
   * REFRESH_RETRY_MAX_MS.
   */
  private afterFailedRefresh(changed: ReadonlySet<string> | undefined, e: unknown): void {
    if (this.disposed) return;
    if (changed) for (const p of changed) this.pending.add(p);
    const wait = Math.min(REFRESH_RETRY_MAX_MS, REFRESH_RETRY_FIRST_MS * 2 ** this.failedRefreshes);
    this.failedRefreshes++;
    log.warn(`a refresh failed; the workspace is indexed again in ${wait} ms`, { error: (e as Error)?.message ?? String(e), failedInARow: this.failedRefreshes });
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.disposed) return;
      void this.refresh().catch(() => undefined); // a failure schedules the next retry itself
    }, wait);
    this.retryTimer.unref();
  }

  /**
   * The first search_symbol builds the in-memory symbol table (index/symbolTable.ts): seconds in
   * one piece on a large workspace, during which nothing else is answered. A serving engine builds
   * it after each refresh, in slices, unless it is built already; a search meanwhile awaits it
   * (`symbolTableReady`).
   */
  /**
   * Resolves when search_symbol's table is current: a build in slices under way is awaited (other
   * questions are answered meanwhile), a needed one runs in slices; never one piece of seconds.
   */
  symbolTableReady(): Promise<void> {
    return symbolTableReady(this.store);
  }

  private prebuildSymbols(): void {
    if (this.opts.indexOnly || this.disposed || !this.hooks.some((h) => h.name === 'symbols')) return;
    const slice = backgroundSlice();
    void prebuildSymbolTable(this.store, async () => {
      await slice();
      if (this.disposed) throw new Error('the engine closed');
    }).catch((e: unknown) => {
      if (!this.disposed) log.warn('symbol table build failed', { error: (e as Error).message });
    });
  }

  private markCatalog(): void {
    this.catalogDirty = true;
    if (this.catalogPatch === 'full') return;
    if (!this.patchPaths) this.catalogPatch = 'full';
    else for (const p of this.patchPaths) this.catalogPatch.add(p);
  }

  /** Catalog of indexed files, reloaded if a batch committed since the last read. */
  catalog(): FileCatalog {
    if (this.catalogDirty) {
      const patch = this.catalogPatch;
      if (patch === 'full' || !this.files.patch(this.store, [...patch])) this.files.load(this.store);
      this.catalogPatch = new Set();
      this.catalogDirty = false;
    }
    return this.files;
  }

  get generation(): number {
    return Number(this.store.getMeta('generation') ?? '0');
  }

  /**
   * The snapshot token of the committed index. While a refresh commits batch after batch, every
   * intermediate state gets its own token (`-g<n>p<tag>.<k>`): one token never names two contents.
   */
  get version(): string {
    // 't': a snapshot whose outlines/symbols are not all written yet (text + files are).
    const base = `${this.store.getMeta('index_id') ?? 'mem'}-g${this.generation}${this.symbolsPending() > 0 ? 't' : ''}`;
    return this.refreshing && this.commitsInRefresh > 0 ? `${base}p${this.commitTag}.${this.commitSeq}` : base;
  }

  /** Files whose outline and symbols are not written yet (0 when the symbol index is complete). */
  symbolsPending(): number {
    return Number(this.store.getMeta(HOOKS_PENDING_META) ?? '0');
  }

  /** Paths changed on disk since indexing (from the watcher). */
  pendingPaths(): ReadonlySet<string> {
    return this.pending;
  }

  meta(): IndexMeta {
    const m: IndexMeta = {
      version: this.version,
      status: this.status === 'fresh' && this.pending.size > 0 ? 'stale' : this.status,
      head: this.git.head ?? null,
      dirty: this.pending.size,
      gitDirty: this.git.available ? this.git.dirtyFiles.length : -1,
    };
    if (this.recoveryNote) m.recovered = this.recoveryNote;
    const w = this.watcher?.status;
    if (w && w.backend === 'off') m.watch = `not watching${w.note ? ` (${w.note})` : ''}: files changed on disk show after the next refresh`;
    else if (w && !this.watchCovered) m.watch = 'the watcher is still covering the tree: a file changed on disk since start may not show yet';
    const pendingSymbols = this.symbolsPending();
    if (pendingSymbols > 0) m.symbolsPending = pendingSymbols;
    return m;
  }

  /**
   * Starts watching the workspace (workspace/watcher.ts: native, off the event loop; excluded
   * folders never entered); changes are re-indexed after a short quiet period. `backend` forces
   * one (the bench compares them); default native, Node's fs.watch when it cannot load.
   */
  watch(debounceMs = WATCH_DEBOUNCE_MS, backend?: 'native' | 'fs.watch'): void {
    if (this.watcher || this.disposed) return;
    const skipDirs = this.indexRoot ? [this.indexRoot] : [];
    this.watcher = new WorkspaceWatcher(this.root, (rels) => this.onWatched(rels, debounceMs), {
      ...(this.opts.exclude ? { exclude: this.opts.exclude } : {}),
      ...(this.opts.include ? { include: this.opts.include } : {}),
      skipDirs,
      catchUpSinceMs: this.walkStartedMs ?? Date.now(),
      // Generator output under obj/ is not indexed, but the semantic backends compile it.
      onGenerated: (rels) => {
        if (this.disposed) return;
        for (const rel of rels) for (const l of this.changeListeners) l(rel);
      },
      indexedAs: (rel, size, mtimeMs) => {
        const row = this.catalog().byRelPath(rel);
        return row !== undefined && row.size === size && row.mtimeMs === Math.floor(mtimeMs);
      },
      onEventsLost: () => {
        if (this.disposed) return;
        void this.refresh().catch((e) => log.error('refresh after lost watcher events failed', { error: (e as Error).message }));
      },
      ...(backend ? { backend } : {}),
    });
    void this.watcher.ready.then(() => {
      this.watchCovered = true;
    });
    // The first saved file is parsed in this thread (one file is not worth a worker): load the
    // grammars now, while nothing is asked, instead of on the first change (~1 s on a busy machine).
    const warm = setTimeout(() => {
      void parseBatch([
        { path: 'warm.cs', language: 'csharp', text: 'class A { void M() { } }\n' },
        // A whole-file parse too: it compiles the module-references query (~0.3 s, else paid by the first such save).
        { path: 'warm.cs', language: 'csharp', text: 'using System;\nclass A { void M() { } }\n', skeleton: false },
        { path: 'warm.ts', language: 'typescript', text: 'export class A { m(): void {} }\n' },
      ]).catch(() => undefined);
    }, 0);
    warm.unref();
  }

  /** How the workspace is watched (undefined before `watch()`): backend, ready, and why not native. */
  watchStatus(): WatchStatus | undefined {
    return this.watcher?.status;
  }

  /** Resolves once the watcher covers the whole tree (the native walk runs off the event loop). */
  async watchReady(): Promise<void> {
    await this.watcher?.ready;
  }

  private onWatched(rels: readonly string[], debounceMs: number): void {
    if (this.disposed) return;
    const seen: string[] = [];
    for (const rel of rels) {
      if (rel.startsWith('.git/') || rel.startsWith('.sextant/')) continue;
      this.pending.add(rel);
      seen.push(rel);
    }
    // The refresh is scheduled before any listener runs: a listener that throws loses no change.
    if (this.watchTimer) clearTimeout(this.watchTimer);
    this.watchTimer = setTimeout(() => {
      void this.refresh(undefined, undefined, new Set(this.pending)).catch((e) => log.error('refresh after change failed', { error: (e as Error).message }));
    }, debounceMs);
    for (const rel of seen) {
      for (const l of this.changeListeners) {
        try {
          l(rel);
        } catch (e) {
          log.warn('a file-change listener failed', { path: rel, error: (e as Error).message });
        }
      }
    }
  }

  /**
   * The last walk with the watcher's paths re-stat'ed, or undefined when a walk is needed: a path
   * not listed that exists now (created, or ignored — the walk decides), a .gitignore, a link, a
   * file grown past the size limit, or no earlier walk.
   */
  private patchedDiscovery(changed: ReadonlySet<string>): DiscoveryResult | undefined {
    const last = this.lastRefresh?.discovery;
    if (!last || last.truncated || changed.size === 0) return undefined;
    let index = this.discoveryIndex;
    if (!index || index.of !== last) this.discoveryIndex = index = { of: last, byPath: new Map(last.files.map((f, i) => [f.path, i])) };
    const files = last.files.slice();
    const gone = new Set<number>();
    const maxBytes = this.opts.maxFileBytes ?? MAX_FILE_BYTES;
    for (const rel of changed) {
      if (path.posix.basename(rel) === '.gitignore') return undefined;
      const i = index.byPath.get(rel);
      let st: fs.Stats | undefined;
      try {
        st = fs.lstatSync(path.join(this.root, rel));
      } catch {
        st = undefined;
      }
      if (i === undefined) {
        if (st) return undefined; // created or ignored: the walk applies the rules
        // A listed folder removed or renamed as a whole (one event for the folder): the walk drops its files.
        if ((index.dirs ??= folderSet(last.files)).has(rel)) return undefined;
        continue; // came and went (an editor's temporary file)
      }
      const f = last.files[i]!;
      if (f.linkTarget) return undefined;
      if (!st) {
        gone.add(i);
        continue;
      }
      if (!st.isFile() || st.size > maxBytes) return undefined;
      const patched: DiscoveredFile = { path: f.path, size: st.size, mtimeMs: Math.floor(st.mtimeMs), fileClass: f.fileClass, language: f.language };
      files[i] = patched;
    }
    return { ...last, files: gone.size === 0 ? files : files.filter((_, i) => !gone.has(i)), durationMs: 0 };
  }

  private discoveryIndex: { of: DiscoveryResult; byPath: Map<string, number>; dirs?: Set<string> } | undefined;

  /** Writes owed dictionary terms, then the database. */
  private persistNow(): void {
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = undefined;
    this.persistOwed = false;
    if (this.termsDirty) {
      this.termsDirty = false;
      this.store.transaction(() => this.store.setBlobText('terms', this.dict.serialize()));
    }
    this.store.persist();
    this.persistedOnce = true;
  }

  private schedulePersist(): void {
    this.persistOwed = true;
    if (this.persistTimer) clearTimeout(this.persistTimer);
    this.persistTimer = setTimeout(() => {
      this.persistTimer = undefined;
      if (this.disposed || !this.persistOwed) return;
      if (this.refreshing) return this.schedulePersist(); // the refresh persists or owes again
      if (this.gitOwed) {
        this.gitOwed = false;
        void readGitState(this.root).then((g) => {
          if (!this.disposed) this.git = g;
        });
      }
      try {
        this.persistNow();
      } catch (e) {
        log.error('persisting the index failed', { error: (e as Error).message });
      }
    }, PERSIST_AFTER_CHANGE_QUIET_MS);
    this.persistTimer.unref();
  }

  /** Calls `fn` with each workspace-relative path the watcher sees change (semantic backends re-read them). */
  onFileChanged(fn: (rel: string) => void): void {
    this.changeListeners.push(fn);
  }

  /** Registers a cleanup that `close()` runs (language servers, caches owned by other modules). */
  onClose(fn: () => Promise<void> | void): void {
    this.closers.push(fn);
  }

  async close(): Promise<void> {
    this.disposed = true;
    this.prefetched?.stop.abort();
    this.prefetched = undefined;
    for (const fn of this.closers.splice(0)) {
      try {
        await fn();
      } catch (e) {
        log.warn('a close handler failed', { error: (e as Error).message });
      }
    }
    if (this.watchTimer) clearTimeout(this.watchTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.watcher?.close();
    this.watcher = undefined;
    if (this.refreshing) await this.refreshing.catch(() => undefined);
    if (this.persistTimer) clearTimeout(this.persistTimer);
    if (this.persistOwed && this.indexRoot) {
      try {
        this.persistNow();
      } catch (e) {
        log.error('persisting the index at close failed', { error: (e as Error).message });
      }
    }
    this.live.clear();
    this.store.close();
  }
}

/** Every folder above a listed file (workspace-relative POSIX). */
function folderSet(files: readonly DiscoveredFile[]): Set<string> {
  const out = new Set<string>();
  for (const f of files) {
    for (let i = f.path.lastIndexOf('/'); i > 0; i = f.path.lastIndexOf('/', i - 1)) {
      const d = f.path.slice(0, i);
      if (out.has(d)) break;
      out.add(d);
    }
  }
  return out;
}

export type { Recovery };

