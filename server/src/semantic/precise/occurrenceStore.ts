/**
 * The occurrence store: precise facts per document (symbol, range, role, enclosing range, symbol
 * information with relationships) from SCIP indexes on disk — Sextant's persisted layer
 * (`<index-root>/precise/*.scip`, provenance `persisted`) and imported indexes (CI shards, another
 * producer such as scip-typescript; provenance `scip`). One format for all of them.
 *
 * Memory: only a catalog entry per document stays resident (path, file, offset, length, key);
 * a document's occurrences are read back from its file when a question needs them, and the last
 * decoded ones are kept up to `PRECISE_DECODED_CACHE_BYTES`.
 *
 * Invariant: a unit (one index file) is taken whole or not at all — a corrupt or truncated file is
 * refused with the reason and nothing already in the store changes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRECISE_DECODED_CACHE_BYTES, PRECISE_OPEN_FILES_MAX, PRECISE_RAW_CACHE_BYTES } from '../../core/limits';
import { readScipCatalog, verifyScipCatalog, type ScipCatalog } from './scipCatalog';
import { decodeDocument, decodeDocumentKey, readScipIndex, scanOccurrences, ScipFormatError, type DocumentKey, type ScipDocument, type ScipMetadata, type ScipOccurrence } from './scipCodec';

export type Provenance = 'persisted' | 'scip';

/** One index file in the store. */
export interface PreciseUnit {
  file: string;
  provenance: Provenance;
  /** The producer named by the index's metadata (`scip-typescript 0.4.0`, `sextant …`). */
  producer: string;
  documents: number;
  bytes: number;
  /** A unit taken from its catalog: the check of the file against it (undefined: holds; else why it was dropped). */
  verified?: Promise<string | undefined>;
}

/** Where a unit's documents define symbols: hashes sorted, with the entry of each. */
interface DefinedIndex {
  hashes: Uint32Array;
  entries: DocEntry[];
}

/** A document of a unit, as the catalog holds it (its occurrences stay on disk). */
export interface DocEntry {
  unit: PreciseUnit;
  path: string;
  language: string;
  offset: number;
  length: number;
  /** Whether it has Sextant's key (other producers' documents are checked against the text instead). */
  keyed: boolean;
  /** The key, once decoded (OccurrenceStore.keyOf). */
  key?: DocumentKey;
  /** The key without its dependencies, from the unit's catalog. */
  head?: Omit<DocumentKey, 'deps'>;
}

export type AddUnitResult = { ok: true; unit: PreciseUnit; replaced: number } | { ok: false; file: string; reason: string };

export class OccurrenceStore {
  private readonly units = new Map<string, PreciseUnit>();
  private readonly defined = new Map<PreciseUnit, DefinedIndex>();
  private readonly byPath = new Map<string, DocEntry[]>();
  private readonly unitDocs = new Map<PreciseUnit, DocEntry[]>();
  private readonly decoded = new Map<DocEntry, { doc: ScipDocument; bytes: number }>();
  private decodedBytes = 0;
  /** The background checks of units taken from their catalogs, one after another. */
  private verifying: Promise<unknown> = Promise.resolve();
  /** Bumped whenever units change (callers key their caches on it). */
  generation = 0;

  /**
   * Reads an index file (streamed) and adds its documents. A document path is made relative to
   * the workspace root when the index's project root is inside it (`projectRoot` differs only by
   * a folder). The file replaces a unit of the same path.
   */
  async addUnit(file: string, provenance: Provenance, workspaceRoot: string): Promise<AddUnitResult> {
    const abs = path.resolve(file);
    // Sextant's own files carry a catalog: taken from it without reading the documents.
    let catalog: ScipCatalog | undefined;
    try {
      catalog = readScipCatalog(abs);
    } catch (e) {
      const reason = e instanceof ScipFormatError ? `${e.message} at byte ${e.offset}` : e instanceof Error ? e.message : String(e);
      return { ok: false, file: abs, reason };
    }
    if (catalog) return this.addCatalog(abs, provenance, workspaceRoot, catalog);
    const entries: DocEntry[] = [];
    const defs: { h: number; e: DocEntry }[] = [];
    let meta: ScipMetadata | undefined;
    const unit: PreciseUnit = { file: abs, provenance, producer: '', documents: 0, bytes: 0 };
    let prefix = '';
    try {
      unit.bytes = fs.statSync(abs).size;
      for await (const part of readScipIndex(abs)) {
        if (part.kind === 'metadata') {
          meta = part.metadata;
          unit.producer = producerOf(meta);
          prefix = projectPrefix(meta.projectRoot, workspaceRoot);
          continue;
        }
        if (part.kind !== 'document') continue;
        let head: ScipDocument;
        try {
          head = decodeDocument(part.bytes, true);
        } catch (e) {
          throw new ScipFormatError(`a document does not decode (${e instanceof Error ? e.message : String(e)})`, part.offset);
        }
        checkRelative(head.relativePath, part.offset);
        const rel = prefix ? `${prefix}/${head.relativePath}` : head.relativePath;
        const entry: DocEntry = { unit, path: rel, language: head.language.toLowerCase(), offset: part.offset, length: part.bytes.length, keyed: head.key !== undefined, ...(head.key ? { key: head.key } : {}) };
        entries.push(entry);
        for (const h of head.definedHashes ?? []) defs.push({ h, e: entry });
      }
    } catch (e) {
      const reason = e instanceof ScipFormatError ? `${e.message} at byte ${e.offset}` : e instanceof Error ? e.message : String(e);
      return { ok: false, file: abs, reason };
    }
    if (!meta) return { ok: false, file: abs, reason: 'no SCIP metadata (not a SCIP index, or empty)' };
    return this.install(unit, entries, defs);
  }

  /**
   * A unit from a catalog already known to match its file (the persisted layer's units catalog,
   * unitsCatalog.ts: the file was checked when it was listed and has not changed since): not checked again.
   */
  addChecked(file: string, provenance: Provenance, workspaceRoot: string, c: ScipCatalog): AddUnitResult {
    return this.addCatalog(path.resolve(file), provenance, workspaceRoot, c, false);
  }

  /**
   * A unit from its catalog (no document read). The file is checked against the catalog in the
   * background (`verified`): one that does not match is then dropped whole, with the reason.
   */
  private addCatalog(abs: string, provenance: Provenance, workspaceRoot: string, c: ScipCatalog, verify = true): AddUnitResult {
    const unit: PreciseUnit = { file: abs, provenance, producer: producerOf(c.metadata), documents: 0, bytes: c.size };
    const prefix = projectPrefix(c.metadata.projectRoot, workspaceRoot);
    const entries: DocEntry[] = [];
    const defs: { h: number; e: DocEntry }[] = [];
    try {
      for (const x of c.entries) {
        checkRelative(x.path, c.catalogOffset);
        const entry: DocEntry = { unit, path: prefix ? `${prefix}/${x.path}` : x.path, language: x.language.toLowerCase(), offset: x.offset, length: x.length, keyed: x.key !== undefined, ...(x.key ? { head: x.key } : {}) };
        entries.push(entry);
        for (const h of x.defined) defs.push({ h, e: entry });
      }
    } catch (e) {
      return { ok: false, file: abs, reason: e instanceof ScipFormatError ? `${e.message} at byte ${e.offset}` : String(e) };
    }
    const r = this.install(unit, entries, defs);
    if (!verify) return r;
    // one file at a time, after those before it (a persisted layer has one per project)
    const verified: Promise<string | undefined> = this.verifying.then(async () => {
      const problem = this.units.get(abs) === unit ? await verifyScipCatalog(abs, c) : undefined;
      if (problem === undefined || this.units.get(abs) !== unit) return undefined;
      this.removeUnit(abs);
      return problem;
    });
    unit.verified = this.verifying = verified;
    return r;
  }

  private install(unit: PreciseUnit, entries: DocEntry[], defs: { h: number; e: DocEntry }[]): AddUnitResult {
    const replaced = this.removeUnit(unit.file);
    unit.documents = entries.length;
    this.units.set(unit.file, unit);
    this.unitDocs.set(unit, entries);
    defs.sort((a, b) => a.h - b.h);
    this.defined.set(unit, { hashes: Uint32Array.from(defs.map((d) => d.h)), entries: defs.map((d) => d.e) });
    for (const e of entries) {
      const list = this.byPath.get(e.path);
      if (list) list.push(e);
      else this.byPath.set(e.path, [e]);
    }
    this.generation++;
    return { ok: true, unit, replaced };
  }

  /**
   * Sextant's key of an entry (undefined: another producer's document). A unit read from its
   * catalog has the key's head only; its dependencies are decoded from the document when first asked.
   */
  keyOf(e: DocEntry): DocumentKey | undefined {
    if (e.key || !e.keyed) return e.key;
    const key = decodeDocumentKey(this.readBytes(e));
    if (!key) throw new Error(`${e.unit.file}: ${e.path} has no key, though its catalog says so`);
    e.key = key;
    return e.key;
  }

  /** The project an entry's facts were resolved in (from the catalog when the key is not decoded). */
  projectOf(e: DocEntry): string | undefined {
    return e.key?.project ?? e.head?.project;
  }

  /** Drops a unit (its file was replaced or removed); returns its document count. */
  removeUnit(file: string): number {
    const abs = path.resolve(file);
    const u = this.units.get(abs);
    if (!u) return 0;
    this.units.delete(abs);
    this.defined.delete(u);
    this.unitDocs.delete(u);
    for (const [p, list] of this.byPath) {
      const kept = list.filter((e) => e.unit !== u);
      if (kept.length === list.length) continue;
      if (kept.length) this.byPath.set(p, kept);
      else this.byPath.delete(p);
    }
    for (const e of [...this.decoded.keys()]) if (e.unit === u) this.forget(e);
    for (const [e, b] of [...this.raw]) if (e.unit === u) (this.raw.delete(e), (this.rawBytes -= b.length));
    this.closeFile(u);
    this.generation++;
    return u.documents;
  }

  /** Entries whose document has symbol information for a symbol of this hash (its definitions, by the producer's account). */
  definers(hash: number): DocEntry[] {
    const out: DocEntry[] = [];
    for (const { hashes, entries } of this.defined.values()) {
      let lo = 0;
      let hi = hashes.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (hashes[mid]! < hash) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < hashes.length && hashes[i] === hash; i++) out.push(entries[i]!);
    }
    return out;
  }

  listUnits(): PreciseUnit[] {
    return [...this.units.values()];
  }

  /** The unit read from a file (absolute path), if any. */
  unit(file: string): PreciseUnit | undefined {
    return this.units.get(path.resolve(file));
  }

  /** A unit's documents. */
  documentsOf(u: PreciseUnit): readonly DocEntry[] {
    return this.unitDocs.get(u) ?? [];
  }

  /** Every entry for a path, most recently added unit last. */
  entries(p: string): readonly DocEntry[] {
    return this.byPath.get(p) ?? [];
  }

  paths(): IterableIterator<string> {
    return this.byPath.keys();
  }

  get size(): number {
    return this.byPath.size;
  }

  /** The wire bytes of an entry's document (for a cheap "does it name this symbol at all" test before decoding). */
  readBytes(e: DocEntry): Uint8Array {
    const hit = this.raw.get(e);
    if (hit) {
      this.raw.delete(e);
      this.raw.set(e, hit);
      return hit;
    }
    const b = this.readAt(e.unit, e.offset, e.length);
    // a question reads an entry's bytes up to three times (its key, the symbol test, the decode)
    this.raw.set(e, b);
    this.rawBytes += b.length;
    for (const [k, v] of this.raw) {
      if (this.rawBytes <= PRECISE_RAW_CACHE_BYTES || k === e) break;
      this.raw.delete(k);
      this.rawBytes -= v.length;
    }
    return b;
  }
  private readonly raw = new Map<DocEntry, Uint8Array>();
  private rawBytes = 0;

  /** True when the document's bytes contain one of the symbol strings (a decoded miss is then certain). */
  mayNameAny(e: DocEntry, symbols: readonly Uint8Array[]): boolean {
    if (this.decoded.has(e)) return true;
    const b = this.readBytes(e);
    const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
    return symbols.some((s) => buf.indexOf(s) >= 0);
  }

  /**
   * The occurrences of an entry's document whose symbol is one of `symbols` or starts with one of
   * `prefixes` (UTF-8; a prefix starts with one of the symbols), without decoding the document
   * (a decoded one is filtered).
   */
  occurrencesNaming(e: DocEntry, symbols: readonly Uint8Array[], prefixes: readonly Uint8Array[] = []): ScipOccurrence[] {
    const hit = this.decoded.get(e);
    if (hit) {
      const names = new Set(symbols.map((s) => Buffer.from(s).toString('utf8')));
      const starts = prefixes.map((p) => Buffer.from(p).toString('utf8'));
      return hit.doc.occurrences.filter((o) => names.has(o.symbol) || starts.some((p) => o.symbol.startsWith(p)));
    }
    if (!this.mayNameAny(e, symbols)) return [];
    return scanOccurrences(this.readBytes(e), symbols, prefixes);
  }

  /** Open index files (one descriptor per unit, the last few used kept open: a question reads hundreds of documents). */
  private readonly fds = new Map<PreciseUnit, number>();

  private readAt(u: PreciseUnit, offset: number, length: number): Uint8Array {
    let fd = this.fds.get(u);
    if (fd === undefined) {
      fd = fs.openSync(u.file, 'r');
      this.fds.set(u, fd);
      for (const [k] of this.fds) {
        if (this.fds.size <= PRECISE_OPEN_FILES_MAX) break;
        this.closeFile(k);
      }
    } else {
      this.fds.delete(u);
      this.fds.set(u, fd);
    }
    const out = new Uint8Array(length);
    let got = 0;
    while (got < length) {
      const n = fs.readSync(fd, out, got, length - got, offset + got);
      if (n === 0) throw new Error(`${u.file} is shorter than its catalog says`);
      got += n;
    }
    return out;
  }

  private closeFile(u: PreciseUnit): void {
    const fd = this.fds.get(u);
    if (fd === undefined) return;
    this.fds.delete(u);
    try {
      fs.closeSync(fd);
    } catch {
      // already closed
    }
  }

  /** Closes the open index files (the store stays usable: they are opened again when read). */
  close(): void {
    for (const u of [...this.fds.keys()]) this.closeFile(u);
  }

  /** The whole document of an entry (read from its file; the last ones read are kept). */
  read(e: DocEntry): ScipDocument {
    const hit = this.decoded.get(e);
    if (hit) {
      this.decoded.delete(e);
      this.decoded.set(e, hit);
      return hit.doc;
    }
    const doc = decodeDocument(this.readBytes(e));
    const bytes = e.length * 6; // decoded objects weigh several times their wire bytes
    this.decoded.set(e, { doc, bytes });
    this.decodedBytes += bytes;
    for (const k of this.decoded.keys()) {
      if (this.decodedBytes <= PRECISE_DECODED_CACHE_BYTES || k === e) break;
      this.forget(k);
    }
    return doc;
  }

  private forget(e: DocEntry): void {
    const v = this.decoded.get(e);
    if (!v) return;
    this.decoded.delete(e);
    this.decodedBytes -= v.bytes;
  }
}

function producerOf(meta: ScipMetadata): string {
  return meta.toolInfo ? `${meta.toolInfo.name} ${meta.toolInfo.version}`.trim() : '';
}

function checkRelative(p: string, offset: number): void {
  if (!p || p.startsWith('/') || p.split('/').includes('..')) throw new ScipFormatError(`a document path '${p}' that is not relative to the project root`, offset);
}

/** The folder of the index's project root below the workspace root ('' when they are the same or unrelated); memoised (one per unit of a start). */
function projectPrefix(projectRoot: string, workspaceRoot: string): string {
  const k = `${projectRoot}\u0000${workspaceRoot}`;
  let v = prefixes.get(k);
  if (v === undefined) {
    if (prefixes.size > 64) prefixes.clear();
    prefixes.set(k, (v = computePrefix(projectRoot, workspaceRoot)));
  }
  return v;
}
const prefixes = new Map<string, string>();

function computePrefix(projectRoot: string, workspaceRoot: string): string {
  let p = projectRoot;
  if (p.startsWith('file://')) {
    try {
      p = decodeURIComponent(new URL(p).pathname);
    } catch {
      return '';
    }
  }
  if (!p || !path.isAbsolute(p)) return '';
  const rel = path.relative(workspaceRoot, p).split(path.sep).join('/');
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : '';
}
