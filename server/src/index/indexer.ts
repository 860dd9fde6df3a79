/**
 * Incremental indexing: walk the workspace, compare size + mtime (then content hash) with the
 * index, and re-index only what changed. Writes happen in synchronous batches, one transaction
 * each, so a reader on the same connection never sees half a batch; the generation (and so the
 * `indexVersion` token) moves once per refresh that changed anything.
 *
 * Other layers plug in through `IndexHook`s (the syntax layer extracts symbols, the project model
 * stores its graph): each hook prepares its work asynchronously for a batch, then writes inside the
 * batch's transaction.
 */
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { INDEX_BATCH_FILES, MAX_FILE_BYTES, TEXT_GARBAGE_MIN_DOCS } from '../core/limits';
import { log } from '../core/log';
import { looksBinary, readWithOneHandle } from '../core/paths';
import { discoverWorkspace, type DiscoveredFile, type DiscoveryOptions, type DiscoveryResult } from '../workspace/discover';
import { classify, type FileClass } from '../workspace/fileClass';
import type { IndexStore } from './store';
import type { TermDictionary } from './termDictionary';
import { garbageDocs, nextDocId } from './textIndex';
import { distinctTokens } from './tokens';

/** A file whose content was (re)read in this refresh. */
export interface ChangedFile {
  id: number;
  path: string;
  language: string | undefined;
  fileClass: FileClass;
  text: string;
  /** True when the file existed in the index before (its old rows must be replaced). */
  replaced: boolean;
}

export interface IndexHook {
  name: string;
  /** Prepares a batch (may be async, e.g. parse in workers); returns the synchronous writer. */
  prepare(batch: ChangedFile[]): Promise<((store: IndexStore) => void) | undefined>;
  /** Removes rows owned by deleted files (synchronous, inside the deletion transaction). */
  deleteFiles(store: IndexStore, fileIds: number[]): void;
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
  phase: 'discover' | 'index' | 'finish' | 'persist' | 'done';
  done: number;
  total: number;
}

export interface RefreshStats {
  files: number;
  sourceFiles: number;
  bytes: number;
  added: number;
  changed: number;
  unchangedByHash: number;
  deleted: number;
  parsedFiles: number;
  skippedTooLarge: number;
  binaryFiles: number;
  unreadable: number;
  durationMs: number;
  generation: number;
  discovery: DiscoveryResult;
}

interface ExistingRow {
  id: number;
  size: number;
  mtime: number;
  hash: string;
}

export async function refreshIndex(
  store: IndexStore,
  dict: TermDictionary,
  root: string,
  opts: DiscoveryOptions & { hooks?: readonly IndexHook[]; onProgress?: (p: RefreshProgress) => void; onBatchCommitted?: () => void },
): Promise<RefreshStats> {
  const started = Date.now();
  const hooks = opts.hooks ?? [];
  opts.onProgress?.({ phase: 'discover', done: 0, total: 0 });
  const discovery = discoverWorkspace(root, opts);

  const existing = new Map<string, ExistingRow>();
  for (const r of store.rows('SELECT id, path, size, mtime_ms, hash FROM files')) {
    existing.set(r[1] as string, { id: r[0] as number, size: r[2] as number, mtime: r[3] as number, hash: r[4] as string });
  }
  const full = existing.size === 0;
  const seen = new Set<string>();
  const toRead: DiscoveredFile[] = [];
  let bytes = 0;
  let sourceFiles = 0;
  for (const f of discovery.files) {
    seen.add(f.path);
    bytes += f.size;
    if (f.fileClass === 'source' || f.fileClass === 'test') sourceFiles++;
    const old = existing.get(f.path);
    if (!old || old.size !== f.size || old.mtime !== f.mtimeMs) toRead.push(f);
  }
  const deletedPaths = [...existing.keys()].filter((p) => !seen.has(p));

  const generation = Number(store.getMeta('generation') ?? '0') + 1;
  const stats: RefreshStats = {
    files: discovery.files.length, sourceFiles, bytes, added: 0, changed: 0, unchangedByHash: 0, deleted: deletedPaths.length,
    parsedFiles: 0, skippedTooLarge: discovery.skippedTooLarge.length, binaryFiles: 0, unreadable: 0, durationMs: 0, generation, discovery,
  };
  const changedPaths: string[] = [];
  let termsAdded = false;
  let nextId = Number(store.db.exec('SELECT COALESCE(MAX(id), 0) FROM files')[0]?.values[0]?.[0] ?? 0) + 1;
  let nextDoc = nextDocId(store);
  let garbage = garbageDocs(store);

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

  for (let b = 0; b < toRead.length; b += INDEX_BATCH_FILES) {
    opts.onProgress?.({ phase: 'index', done: b, total: toRead.length });
    const slice = toRead.slice(b, b + INDEX_BATCH_FILES);
    const rows: { f: DiscoveredFile; id: number; hash: string; lines: number; binary: boolean; cls: FileClass; tokens?: Set<string>; touchOnly: boolean; replaced: boolean }[] = [];
    const changed: ChangedFile[] = [];
    for (const f of slice) {
      let data: { bytes: Buffer; mtimeMs: number };
      try {
        data = readWithOneHandle(f.linkTarget ?? path.join(discovery.root, f.path), f.path, MAX_FILE_BYTES);
      } catch {
        stats.unreadable++;
        continue;
      }
      const hash = crypto.createHash('sha1').update(data.bytes).digest('hex');
      const old = existing.get(f.path);
      if (old && old.hash === hash) {
        stats.unchangedByHash++;
        rows.push({ f, id: old.id, hash, lines: 0, binary: false, cls: f.fileClass, touchOnly: true, replaced: true });
        continue;
      }
      const binary = looksBinary(data.bytes);
      const text = binary ? '' : stripBom(data.bytes.toString('utf8'));
      const cls = binary ? f.fileClass : classify(f.path, text.slice(0, 1024));
      const id = old?.id ?? nextId++;
      if (binary) stats.binaryFiles++;
      if (old) stats.changed++;
      else stats.added++;
      const row = { f, id, hash, lines: binary ? 0 : countLines(text), binary, cls, touchOnly: false, replaced: !!old } as (typeof rows)[number];
      if (!binary) row.tokens = distinctTokens(text);
      rows.push(row);
      changedPaths.push(f.path);
      if (!binary) changed.push({ id, path: f.path, language: f.language, fileClass: cls, text, replaced: !!old });
    }
    const writers: ((s: IndexStore) => void)[] = [];
    for (const h of hooks) {
      try {
        const w = await h.prepare(changed);
        if (w) writers.push(w);
      } catch (e) {
        log.error(`index hook ${h.name} failed on a batch`, { error: (e as Error).message });
      }
    }
    stats.parsedFiles += changed.length;
    store.transaction(() => {
      applyDeletions();
      const touch = store.db.prepare('UPDATE files SET mtime_ms = ?, size = ? WHERE id = ?');
      const upsert = store.db.prepare(
        `INSERT INTO files(id, path, class, language, size, mtime_ms, hash, lines, binary, generation, doc_id) VALUES (?,?,?,?,?,?,?,?,?,?,?)
         ON CONFLICT(id) DO UPDATE SET class=excluded.class, language=excluded.language, size=excluded.size, mtime_ms=excluded.mtime_ms,
           hash=excluded.hash, lines=excluded.lines, binary=excluded.binary, generation=excluded.generation, doc_id=excluded.doc_id`,
      );
      const insDoc = store.db.prepare('INSERT INTO file_text(docid, tokens) VALUES (?, ?)');
      try {
        for (const r of rows) {
          if (r.touchOnly) {
            touch.run([r.f.mtimeMs, r.f.size, r.id]);
            continue;
          }
          const docId = r.tokens && r.tokens.size > 0 ? nextDoc++ : null;
          upsert.run([r.id, r.f.path, r.cls, r.f.language ?? null, r.f.size, r.f.mtimeMs, r.hash, r.lines, r.binary ? 1 : 0, generation, docId]);
          if (r.replaced) garbage++;
          if (docId !== null && r.tokens) {
            insDoc.run([docId, [...r.tokens].join(' ')]);
            for (const t of r.tokens) if (dict.add(t)) termsAdded = true;
          }
        }
      } finally {
        touch.free();
        upsert.free();
        insDoc.free();
      }
      for (const w of writers) w(store);
      store.setMeta('next_doc_id', String(nextDoc));
      store.setMeta('text_garbage', String(garbage));
    });
    opts.onBatchCommitted?.();
  }
  opts.onProgress?.({ phase: 'finish', done: toRead.length, total: toRead.length });
  const ctx: RefreshContext = { root: discovery.root, discovery, changedPaths, deletedPaths, full };
  if (deletionsPending) {
    store.transaction(() => {
      applyDeletions();
      store.setMeta('text_garbage', String(garbage));
    });
    opts.onBatchCommitted?.();
  }
  const liveDocs = Number(store.db.exec('SELECT COUNT(*) FROM files WHERE doc_id IS NOT NULL')[0]?.values[0]?.[0] ?? 0);
  if (garbage > Math.max(TEXT_GARBAGE_MIN_DOCS, liveDocs / 2)) {
    rebuildTextIndex(store, discovery.root);
    opts.onBatchCommitted?.();
  }
  for (const h of hooks) {
    try {
      await h.finish?.(store, ctx);
    } catch (e) {
      log.error(`index hook ${h.name} failed to finish`, { error: (e as Error).message });
    }
    if (changedPaths.length > 0 || deletedPaths.length > 0) opts.onBatchCommitted?.(); // the hook may have written rows
  }
  const anyChange = changedPaths.length > 0 || deletedPaths.length > 0 || store.getMeta('committed') !== '1';
  store.transaction(() => {
    if (anyChange) store.setMeta('generation', String(generation));
    else stats.generation = generation - 1;
    if (termsAdded) store.setBlobText('terms', dict.serialize());
    store.setMeta('committed', '1');
    store.setMeta('last_refresh', new Date().toISOString());
    store.setMeta('files', String(stats.files));
    store.setMeta('skipped_too_large', String(stats.skippedTooLarge));
    store.setMeta('discovery_truncated', discovery.truncated ? '1' : '0');
  });
  stats.durationMs = Date.now() - started;
  opts.onProgress?.({ phase: 'done', done: toRead.length, total: toRead.length });
  return stats;
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
  for (let b = 0; b < files.length; b += INDEX_BATCH_FILES) {
    const docs: { id: number; tokens: string }[] = [];
    for (const [id, p] of files.slice(b, b + INDEX_BATCH_FILES)) {
      try {
        const { bytes } = readWithOneHandle(path.join(root, p as string), p as string, MAX_FILE_BYTES);
        const tokens = distinctTokens(stripBom(bytes.toString('utf8')));
        if (tokens.size > 0) docs.push({ id: id as number, tokens: [...tokens].join(' ') });
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

export function countLines(s: string): number {
  if (s.length === 0) return 0;
  let n = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) n++;
  if (s.endsWith('\n')) n--;
  return n;
}
