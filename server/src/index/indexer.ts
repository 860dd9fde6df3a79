/**
 * Incremental indexing in two phases, each committed on its own:
 *
 * 1. text + files: walk the workspace, compare size + mtime (then content hash) with the index,
 *    and re-read only what changed: file rows, token documents, the token dictionary. When this
 *    phase commits, find_file and search_text answer over the whole workspace.
 * 2. hooks (outlines and symbols, the project graph): the files changed in phase 1, plus any a
 *    hook still owes from an interrupted run (`IndexHook.pending`), are read again (checked against
 *    the hash phase 1 stored) and handed to the hooks in batches, a few in flight at once so the
 *    parse workers stay busy while this thread reads and writes. A hook with nothing to prepare
 *    (the project graph) runs its `finish` beside the parse instead of after it.
 *
 * Writes happen in synchronous batches, one transaction each, so a reader on the same connection
 * never sees half a batch. The generation (and so the `indexVersion` token) moves once per refresh
 * that changed anything, in phase 1's final commit. Meta `hooks_pending` counts the files whose
 * hook rows are not written yet; it is > 0 from phase 1's first commit until phase 2's last, and is
 * persisted with the snapshot, so an index killed between the phases says so when loaded (and the
 * next refresh finishes the work).
 *
 * Other layers plug in through `IndexHook`s (the syntax layer extracts symbols, the project model
 * stores its graph): each hook prepares its work asynchronously for a batch, then writes inside the
 * batch's transaction.
 */
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { INDEX_BATCH_FILES, INDEX_HOOK_BATCHES_IN_FLIGHT, INDEX_TEXT_BATCH_FILES, MAX_FILE_BYTES, TEXT_GARBAGE_MIN_DOCS } from '../core/limits';
import { log } from '../core/log';
import { looksBinary, readWithOneHandle } from '../core/paths';
import { discoverWorkspaceAsync, type DiscoveredFile, type DiscoveryOptions, type DiscoveryResult, type PendingWalk } from '../workspace/discover';
import type { FileClass } from '../workspace/fileClass';
import type { SqlValue } from 'sql.js';
import type { IndexStore } from './store';
import type { TermDictionary } from './termDictionary';
import { garbageDocs, nextDocId } from './textIndex';
import { textReader, type TextReadRequest } from './textReader';
import { TokenInterner } from './tokens';

/** A file handed to the hooks, with its content as indexed. */
export interface ChangedFile {
  id: number;
  path: string;
  language: string | undefined;
  fileClass: FileClass;
  text: string;
  /** True when the file existed in the index before this refresh (its old rows must be replaced). */
  replaced: boolean;
}

export interface IndexHook {
  name: string;
  /**
   * Phase 2: prepares a batch (may be async, e.g. parse in workers); returns the synchronous writer,
   * run inside the batch's transaction. Several batches may be in preparation at once. A hook
   * without it is given no files (e.g. one that only works in `finish`).
   */
  prepare?(batch: ChangedFile[]): Promise<((store: IndexStore) => void) | undefined>;
  /** Removes rows owned by deleted files (synchronous, inside phase 1's transaction). */
  deleteFiles(store: IndexStore, fileIds: number[]): void;
  /**
   * Phase 1, inside the transaction that stores the new version of these files: drop the rows
   * derived from their old content (optional; without it old rows stay until `prepare` replaces them).
   */
  invalidate?(store: IndexStore, fileIds: number[]): void;
  /**
   * Files this hook still has to process (e.g. no outline stored yet), read after phase 1 commits;
   * it must include this refresh's changed files it cares about. Without it, the hook is given the
   * files changed in this refresh.
   */
  pending?(store: IndexStore): number[];
  /**
   * Phase 2 is about to hand this hook `files` files (inside a transaction, before the first
   * batch; optional): e.g. drop indexes it then builds once in `finish`, for a bulk write.
   */
  begin?(store: IndexStore, files: number): void;
  /** Runs after all batches (e.g. the project model re-reads project files); optional. */
  finish?(store: IndexStore, ctx: RefreshContext): Promise<void> | void;
}

export interface RefreshContext {
  root: string;
  discovery: DiscoveryResult;
  changedPaths: string[];
  deletedPaths: string[];
  full: boolean;
}

export interface RefreshProgress {
  /** `index`: phase 1 (files read); `finish`: phase 2 (files handed to the hooks, then the hooks' own finish). */
  phase: 'discover' | 'index' | 'finish' | 'persist' | 'done';
  done: number;
  total: number;
}

/** What phase 1 committed, passed to `onTextReady`. */
export interface TextReady {
  /** Phase 1 changed the index (a new generation was committed). */
  changed: boolean;
  /** Files phase 2 will hand to the hooks. */
  pendingFiles: number;
  /** Milliseconds since the refresh started. */
  elapsedMs: number;
  /** Discovery stopped early (the index covers part of the workspace). */
  truncated: boolean;
}

export interface RefreshStats {
  files: number;
  sourceFiles: number;
  bytes: number;
  added: number;
  changed: number;
  unchangedByHash: number;
  deleted: number;
  /** Files handed to the hooks in phase 2 (parsed for outlines and symbols). */
  parsedFiles: number;
  /** Files phase 2 skipped because they changed again after phase 1 read them (the next refresh takes them). */
  hookSkipped: number;
  skippedTooLarge: number;
  binaryFiles: number;
  unreadable: number;
  /** The stored ignore-rules stamp changed (the index should be persisted even if no file did). */
  rulesChanged: boolean;
  /** Phase 1 (text + files) committed this many ms after the refresh started. */
  textReadyMs: number;
  durationMs: number;
  generation: number;
  discovery: DiscoveryResult;
}

export interface RefreshOptions extends DiscoveryOptions {
  hooks?: readonly IndexHook[];
  onProgress?: (p: RefreshProgress) => void;
  /** After every committed transaction (the catalog and the version token move). */
  onBatchCommitted?: () => void;
  /** After phase 1 committed; phase 2 starts once it resolves (e.g. after a snapshot is persisted). */
  onTextReady?: (r: TextReady) => Promise<void> | void;
  /**
   * The workspace as the caller knows it (the last walk, patched with the stat of the paths the
   * watcher reported): the walk is skipped. Only for changes to files already listed.
   */
  discovery?: DiscoveryResult;
  /**
   * A walk of the workspace started earlier (e.g. while the index was loading, in a worker): used
   * instead of walking now. Ignored when `discovery` is given.
   */
  walk?: PendingWalk;
  /**
   * New dictionary terms are not written to the `terms` blob here: the caller writes them before
   * it persists (serialising ~10^5 terms costs more than indexing one saved file).
   */
  deferTermsBlob?: () => void;
  /** Files per transaction of the text + files phase (default INDEX_TEXT_BATCH_FILES; a serving engine writes smaller ones). */
  textBatchFiles?: number;
}

interface ExistingRow {
  id: number;
  size: number;
  mtime: number;
  hash: string;
  cls: FileClass;
  /** Listed by this refresh's walk. */
  seen?: boolean;
}

/** Meta key: the ignore rules the indexed file list was discovered under (see discover.ts `known`). */
const RULES_STAMP_META = 'rules_stamp';
/** Meta key: files whose hook rows (outlines, symbols) are not written yet. */
export const HOOKS_PENDING_META = 'hooks_pending';

export async function refreshIndex(store: IndexStore, dict: TermDictionary, root: string, opts: RefreshOptions): Promise<RefreshStats> {
  const started = Date.now();
  const hooks = opts.hooks ?? [];
  opts.onProgress?.({ phase: 'discover', done: 0, total: 0 });
  const existing = existingFiles(store);
  // Paths indexed under the same ignore rules need no ignore test (discover.ts checks the rules).
  const rulesStamp = store.getMeta(RULES_STAMP_META);
  const known = rulesStamp ? { paths: existing, rulesStamp } : undefined;
  opts.walk?.provide(known);
  const discovery = opts.discovery ?? (await (opts.walk?.result ?? discoverWorkspaceAsync(root, opts, known)));

  const full = existing.size === 0;
  const toRead: DiscoveredFile[] = [];
  const toCompare: ExistingRow[] = [];
  let bytes = 0;
  for (const f of discovery.files) {
    bytes += f.size;
    const old = existing.get(f.path);
    if (old) old.seen = true;
    if (!old || old.size !== f.size || old.mtime !== f.mtimeMs) {
      toRead.push(f);
      if (old) toCompare.push(old);
    }
  }
  loadHashes(store, toCompare);
  const deletedPaths: string[] = [];
  for (const [p, row] of existing) if (!row.seen) deletedPaths.push(p);

  const generation = Number(store.getMeta('generation') ?? '0') + 1;
  const stats: RefreshStats = {
    files: discovery.files.length, sourceFiles: 0, bytes, added: 0, changed: 0, unchangedByHash: 0, deleted: deletedPaths.length, parsedFiles: 0, hookSkipped: 0,
    skippedTooLarge: discovery.skippedTooLarge.length, binaryFiles: 0, unreadable: 0, rulesChanged: discovery.rulesStamp !== rulesStamp, textReadyMs: 0, durationMs: 0, generation, discovery,
  };
  const changedPaths: string[] = [];
  /** Files written in phase 1 that the hooks must see (id → replaced an older version). */
  const changedIds = new Map<number, boolean>();
  let termsAdded = false;
  let nextId = Number(store.db.exec('SELECT COALESCE(MAX(id), 0) FROM files')[0]?.values[0]?.[0] ?? 0) + 1;
  let nextDoc = nextDocId(store);
  let garbage = garbageDocs(store);
  const pendingBefore = store.getMeta(HOOKS_PENDING_META);
  let hooksPending = Number(pendingBefore ?? '0');
  const invalidating = hooks.filter((h) => h.invalidate);

  // ---- phase 1: text + files ----
  // Deletions commit in the same transaction as the first batch of changes (or the final one when
  // nothing else changed): a rename is never visible as "gone, not yet added".
  let deletionsPending = deletedPaths.length > 0;
  const applyDeletions = () => {
    if (!deletionsPending) return;
    deletionsPending = false;
    const ids: number[] = [];
    for (const p of deletedPaths) {
      const id = existing.get(p)!.id;
      ids.push(id);
      store.db.run('DELETE FROM files WHERE id = ?', [id]);
      garbage++; // its document is now a tombstone
    }
    for (const h of hooks) h.deleteFiles(store, ids);
  };

  // Reading, hashing and tokenising run a batch or two ahead of the writes (a worker thread for a
  // large refresh, see textReader.ts); batches are written in order, one transaction each.
  const batchFiles = Math.max(1, opts.textBatchFiles ?? INDEX_TEXT_BATCH_FILES);
  const reader = textReader(toRead.length);
  const ask = (b: number) => {
    if (b >= toRead.length) return;
    reader.request(toRead.slice(b, b + batchFiles).map((f) => {
      const old = existing.get(f.path);
      const r: TextReadRequest = { path: f.path, abs: f.linkTarget ?? path.join(discovery.root, f.path) };
      if (old?.hash) r.oldHash = old.hash;
      return r;
    }));
  };
  ask(0);
  ask(batchFiles);
  try {
    for (let b = 0; b < toRead.length; b += batchFiles) {
      opts.onProgress?.({ phase: 'index', done: b, total: toRead.length });
      const slice = toRead.slice(b, b + batchFiles);
      const { results, docs } = await reader.next();
      ask(b + 2 * batchFiles);
      const rows: { f: DiscoveredFile; id: number; hash: string; lines: number; binary: boolean; cls: FileClass; doc?: Uint8Array; touchOnly: boolean; replaced: boolean }[] = [];
      slice.forEach((f, i) => {
        const r = results[i] ?? { kind: 'unreadable' };
        if (r.kind === 'unreadable') {
          stats.unreadable++;
          return;
        }
        const old = existing.get(f.path);
        if (r.kind === 'same' && old) {
          stats.unchangedByHash++;
          rows.push({ f, id: old.id, hash: r.hash, lines: 0, binary: false, cls: old.cls, touchOnly: true, replaced: true });
          return;
        }
        if (r.kind !== 'read') return;
        const id = old?.id ?? nextId++;
        if (r.binary) stats.binaryFiles++;
        if (old) stats.changed++;
        else stats.added++;
        const row = { f, id, hash: r.hash, lines: r.lines, binary: r.binary, cls: r.cls, touchOnly: false, replaced: !!old } as (typeof rows)[number];
        for (const t of r.newTokens) if (dict.add(t)) termsAdded = true;
        // The document goes to FTS4 as bytes (a blob is read as its UTF-8 text): no string is built.
        if (r.docEnd > r.docStart) row.doc = docs.subarray(r.docStart, r.docEnd);
        rows.push(row);
        changedPaths.push(f.path);
      });
      store.transaction(() => {
        applyDeletions();
        const touch = store.db.prepare('UPDATE files SET mtime_ms = ?, size = ? WHERE id = ?');
        const upsert = store.db.prepare(
          `INSERT INTO files(id, path, class, language, size, mtime_ms, hash, lines, binary, generation, doc_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)
           ON CONFLICT(id) DO UPDATE SET class=excluded.class, language=excluded.language, size=excluded.size, mtime_ms=excluded.mtime_ms,
             hash=excluded.hash, lines=excluded.lines, binary=excluded.binary, generation=excluded.generation, doc_id=excluded.doc_id`,
        );
        const insDoc = store.db.prepare('INSERT INTO file_text(docid, tokens) VALUES (?, ?)');
        const replacedIds: number[] = [];
        try {
          for (const r of rows) {
            if (r.touchOnly) {
              touch.run([r.f.mtimeMs, r.f.size, r.id]);
              continue;
            }
            const docId = r.doc !== undefined ? nextDoc++ : null;
            upsert.run([r.id, r.f.path, r.cls, r.f.language ?? null, r.f.size, r.f.mtimeMs, r.hash, r.lines, r.binary ? 1 : 0, generation, docId]);
            if (r.replaced) {
              garbage++;
              replacedIds.push(r.id);
            }
            if (!r.binary && !changedIds.has(r.id)) {
              changedIds.set(r.id, r.replaced);
              hooksPending++;
            }
            if (docId !== null && r.doc !== undefined) insDoc.run([docId, r.doc]);
          }
        } finally {
          touch.free();
          upsert.free();
          insDoc.free();
        }
        if (replacedIds.length > 0) for (const h of invalidating) h.invalidate!(store, replacedIds);
        store.setMeta('next_doc_id', String(nextDoc));
        store.setMeta('text_garbage', String(garbage));
        store.setMeta(HOOKS_PENDING_META, String(hooksPending));
      });
      opts.onBatchCommitted?.();
      // Tool calls (and worker replies) are served between batches, also while a cold index builds.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  } finally {
    await reader.close();
  }
  if (deletionsPending) {
    store.transaction(() => {
      applyDeletions();
      store.setMeta('text_garbage', String(garbage));
    });
    opts.onBatchCommitted?.();
  }
  const counts = store.rows("SELECT count(doc_id), count(CASE WHEN class IN ('source', 'test') THEN 1 END) FROM files")[0] ?? [0, 0];
  const liveDocs = Number(counts[0]);
  stats.sourceFiles = Number(counts[1]); // by indexed class (a generated-code header makes a file `generated`)
  if (garbage > Math.max(TEXT_GARBAGE_MIN_DOCS, liveDocs / 2)) {
    rebuildTextIndex(store, discovery.root);
    opts.onBatchCommitted?.();
  }

  // What phase 2 owes: this refresh's changed files, and whatever a hook still lacks. Hooks are
  // asked only when an earlier run left work (or predates this count): otherwise what they lack is
  // exactly this refresh's changed files.
  const work = new Map<number, { replaced: boolean; hooks: Set<IndexHook> }>();
  const askHooks = pendingBefore === undefined || Number(pendingBefore) > 0;
  const plain = hooks.filter((h) => h.prepare && (!h.pending || !askHooks));
  for (const [id, replaced] of changedIds) work.set(id, { replaced, hooks: new Set(plain) });
  for (const h of hooks) {
    if (!h.prepare || !h.pending || !askHooks) continue;
    for (const id of h.pending(store)) {
      let w = work.get(id);
      if (!w) work.set(id, (w = { replaced: false, hooks: new Set() }));
      w.hooks.add(h);
    }
  }
  for (const [id, w] of work) if (w.hooks.size === 0) work.delete(id);

  const textChanged = changedPaths.length > 0 || deletedPaths.length > 0 || store.getMeta('committed') !== '1';
  hooksPending = work.size;
  store.transaction(() => {
    if (textChanged) store.setMeta('generation', String(generation));
    else stats.generation = generation - 1;
    if (termsAdded) {
      if (opts.deferTermsBlob) opts.deferTermsBlob();
      else store.setBlobText('terms', dict.serialize());
    }
    store.setMeta('committed', '1');
    store.setMeta('last_refresh', new Date().toISOString());
    store.setMeta('files', String(stats.files));
    store.setMeta('skipped_too_large', String(stats.skippedTooLarge));
    store.setMeta('discovery_truncated', discovery.truncated ? '1' : '0');
    store.setMeta(RULES_STAMP_META, discovery.rulesStamp);
    store.setMeta(HOOKS_PENDING_META, String(hooksPending));
  });
  stats.textReadyMs = Date.now() - started;
  await opts.onTextReady?.({ changed: textChanged, pendingFiles: hooksPending, elapsedMs: stats.textReadyMs, truncated: discovery.truncated });

  // ---- phase 2: hooks (outlines, symbols, project graph) ----
  const ctx: RefreshContext = { root: discovery.root, discovery, changedPaths, deletedPaths, full };
  let hooksWrote = false;
  const finishHook = async (h: IndexHook): Promise<void> => {
    try {
      await h.finish?.(store, ctx);
    } catch (e) {
      log.error(`index hook ${h.name} failed to finish`, { error: (e as Error).message });
    }
    if (textChanged || hooksWrote) opts.onBatchCommitted?.(); // the hook may have written rows
  };
  // A hook that only finishes (the project graph) needs phase 1's files, not the parse: it runs
  // beside phase 2 (it yields while it works), so its rows do not wait for every outline.
  const besideParse = hooks.filter((h) => !h.prepare && h.finish);
  const besideDone = Promise.all(besideParse.map(finishHook));
  if (work.size > 0) {
    const info = new Map<number, { path: string; language: string | undefined; cls: FileClass; hash: string; size: number; mtime: number }>();
    for (const r of store.rows('SELECT id, path, language, class, hash, size, mtime_ms FROM files WHERE binary = 0')) {
      const id = r[0] as number;
      if (work.has(id)) {
        info.set(id, { path: r[1] as string, language: (r[2] as string | null) ?? undefined, cls: r[3] as FileClass, hash: r[4] as string, size: r[5] as number, mtime: r[6] as number });
      }
    }
    const linkTargets = new Map<string, string>();
    for (const f of discovery.files) if (f.linkTarget) linkTargets.set(f.path, f.linkTarget);
    const ids = [...work.keys()].filter((id) => info.has(id)).sort((a, b) => a - b);
    hooksPending = ids.length;
    const starting = hooks.filter((h) => h.begin && h.prepare);
    if (starting.length > 0) {
      const owed = new Map<IndexHook, number>();
      for (const id of ids) for (const h of work.get(id)!.hooks) owed.set(h, (owed.get(h) ?? 0) + 1);
      store.transaction(() => {
        for (const h of starting) if (owed.has(h)) h.begin!(store, owed.get(h)!);
      });
    }
    /** Batches being prepared, oldest first; each resolves to its writers and its file count. */
    const inflight: Promise<{ writers: ((s: IndexStore) => void)[]; files: number }>[] = [];
    const commitOldest = async () => {
      const { writers, files } = await inflight.shift()!;
      hooksPending -= files;
      store.transaction(() => {
        for (const w of writers) w(store);
        store.setMeta(HOOKS_PENDING_META, String(hooksPending));
      });
      hooksWrote = true;
      opts.onBatchCommitted?.();
    };
    /** Files a hook failed on: still owed (the next refresh asks the hooks again). */
    let failed = 0;
    for (let b = 0; b < ids.length; b += INDEX_BATCH_FILES) {
      opts.onProgress?.({ phase: 'finish', done: b, total: ids.length });
      const slice = ids.slice(b, b + INDEX_BATCH_FILES);
      const batch: { file: ChangedFile; hooks: Set<IndexHook> }[] = [];
      for (const id of slice) {
        const f = info.get(id)!;
        const text = readAsIndexed(linkTargets.get(f.path) ?? path.join(discovery.root, f.path), f);
        if (text === undefined) {
          stats.hookSkipped++;
          continue;
        }
        const w = work.get(id)!;
        batch.push({ file: { id, path: f.path, language: f.language, fileClass: f.cls, text, replaced: w.replaced }, hooks: w.hooks });
      }
      stats.parsedFiles += batch.length;
      inflight.push(
        Promise.all(
          hooks.map(async (h) => {
            const mine = batch.filter((x) => x.hooks.has(h)).map((x) => x.file);
            if (mine.length === 0 || !h.prepare) return undefined;
            try {
              return await h.prepare(mine);
            } catch (e) {
              log.error(`index hook ${h.name} failed on a batch`, { error: (e as Error).message });
              failed += mine.length;
              return undefined;
            }
          }),
        ).then((ws) => ({ writers: ws.filter((w): w is (s: IndexStore) => void => w !== undefined), files: batch.length })),
      );
      while (inflight.length > INDEX_HOOK_BATCHES_IN_FLIGHT) await commitOldest();
    }
    while (inflight.length > 0) await commitOldest();
    hooksPending += failed;
  }
  opts.onProgress?.({ phase: 'finish', done: work.size, total: work.size });
  await besideDone;
  for (const h of hooks) if (!besideParse.includes(h)) await finishHook(h);
  // Files skipped in phase 2 changed again after phase 1: they stay owed (the next refresh reads them).
  // A refresh whose phase 1 changed nothing but whose phase 2 wrote rows (work left by an earlier
  // run) still makes a new snapshot: the generation moves here instead.
  store.transaction(() => {
    store.setMeta(HOOKS_PENDING_META, String(hooksPending));
    if (!textChanged && hooksWrote) store.setMeta('generation', String(generation));
  });
  if (!textChanged && hooksWrote) stats.generation = generation;
  stats.durationMs = Date.now() - started;
  opts.onProgress?.({ phase: 'done', done: toRead.length, total: toRead.length });
  return stats;
}

/**
 * Id, size and mtime of every indexed file by path: what the comparison needs (hash and class are
 * read for the files that differ). Read as one row of joined lists (stepping sql.js row by row
 * costs ~5 µs a row: 0.2-0.5 s on 40k files, most of a warm start's own work).
 */
function existingFiles(store: IndexStore): Map<string, ExistingRow> {
  const existing = new Map<string, ExistingRow>();
  const r = store.rows('SELECT json_group_array(path), group_concat(id), group_concat(size), group_concat(mtime_ms) FROM (SELECT id, path, size, mtime_ms FROM files ORDER BY id)')[0];
  const paths = JSON.parse(String(r?.[0] ?? '[]')) as string[];
  if (paths.length === 0) return existing;
  const nums = (v: SqlValue | undefined) => String(v).split(',');
  const ids = nums(r?.[1]);
  const sizes = nums(r?.[2]);
  const mtimes = nums(r?.[3]);
  for (let i = 0; i < paths.length; i++) existing.set(paths[i]!, { id: Number(ids[i]), size: Number(sizes[i]), mtime: Number(mtimes[i]), hash: '', cls: 'other' });
  return existing;
}

/** Fills in the stored hash and class of rows whose file differs by size or mtime. */
function loadHashes(store: IndexStore, rows: ExistingRow[]): void {
  if (rows.length === 0) return;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const fill = (r: SqlValue[]) => {
    const row = byId.get(r[0] as number);
    if (row) {
      row.hash = r[1] as string;
      row.cls = r[2] as FileClass;
    }
  };
  if (rows.length > INDEX_TEXT_BATCH_FILES) {
    for (const r of store.rows('SELECT id, hash, class FROM files')) fill(r);
    return;
  }
  const ids = [...byId.keys()];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    for (const r of store.rows(`SELECT id, hash, class FROM files WHERE id IN (${chunk.map(() => '?').join(',')})`, chunk)) fill(r);
  }
}

/**
 * The text of a file as phase 1 indexed it, or undefined when it changed since (or cannot be read).
 * Same size and mtime as stored is taken as unchanged, as the refresh itself does; otherwise the
 * bytes must hash to the stored hash.
 */
function readAsIndexed(abs: string, f: { path: string; hash: string; size: number; mtime: number }): string | undefined {
  let data: { bytes: Buffer; mtimeMs: number };
  try {
    data = readWithOneHandle(abs, f.path, MAX_FILE_BYTES);
  } catch {
    return undefined;
  }
  if (data.bytes.length !== f.size || Math.floor(data.mtimeMs) !== f.mtime) {
    if (crypto.createHash('sha1').update(data.bytes).digest('hex') !== f.hash) return undefined;
  }
  if (looksBinary(data.bytes)) return undefined;
  return stripBom(data.bytes.toString('utf8'));
}

/**
 * Rebuilds the token index from the files on disk, dropping every tombstone. Runs when tombstones
 * outnumber half the live documents; one transaction per batch, like the refresh itself.
 */
export function rebuildTextIndex(store: IndexStore, root: string): void {
  const files = store.rows('SELECT id, path FROM files WHERE binary = 0');
  store.transaction(() => {
    store.db.run('DROP TABLE file_text');
    store.db.run(`CREATE VIRTUAL TABLE file_text USING fts4(content="", tokens, tokenize=unicode61 "tokenchars=_")`);
    store.db.run('UPDATE files SET doc_id = NULL');
  });
  let nextDoc = 1;
  const interner = new TokenInterner();
  for (let b = 0; b < files.length; b += INDEX_TEXT_BATCH_FILES) {
    const docs: { id: number; tokens: Uint8Array }[] = [];
    for (const [id, p] of files.slice(b, b + INDEX_TEXT_BATCH_FILES)) {
      try {
        const { bytes } = readWithOneHandle(path.join(root, p as string), p as string, MAX_FILE_BYTES);
        const doc = interner.fileDocument(bytes);
        if (doc) docs.push({ id: id as number, tokens: doc.slice() });
      } catch {
        /* unreadable now: the next refresh sees it changed */
      }
    }
    store.transaction(() => {
      for (const d of docs) {
        const docId = nextDoc++;
        store.db.run('INSERT INTO file_text(docid, tokens) VALUES (?, ?)', [docId, d.tokens]);
        store.db.run('UPDATE files SET doc_id = ? WHERE id = ?', [docId, d.id]);
      }
      store.setMeta('next_doc_id', String(nextDoc));
      store.setMeta('text_garbage', '0');
    });
  }
  log.info('text index rebuilt (tombstones dropped)', { files: files.length });
}

function stripBom(s: string): string {
  return s.charCodeAt(0) === 0xfeff ? s.slice(1) : s;
}

export { countLineBytes } from './textReader';

export function countLines(s: string): number {
  if (s.length === 0) return 0;
  let n = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  if (s.endsWith('\n')) n--;
  return n;
}
