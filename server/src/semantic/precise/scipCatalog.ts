/**
 * Sextant's catalog of a SCIP index file: what the occurrence store keeps resident per document,
 * written once after the documents (`writeScipIndex`), so a reader takes a whole index by reading
 * its last bytes and the catalog instead of every document (`readScipCatalog`), and checks the
 * file against it later (`verifyScipCatalog`). On the wire: Index field `CATALOG_FIELD` (a
 * Catalog message: repeated Entry = 1), then Index field `TRAILER_FIELD` (fixed64: the file offset
 * of the catalog field's tag) as the last 10 bytes — fields other SCIP readers skip.
 */
import * as fs from 'node:fs';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { CATALOG_FIELD, decodeMetadata, encodeDocument, encodeMetadata, indexField, readScipIndex, ScipFormatError, symbolHash, TRAILER_FIELD, type DocumentKey, type ScipDocument, type ScipMetadata } from './scipCodec';

const TRAILER_BYTES = 10;

/** A document as the catalog lists it: where its bytes are and what a reader needs before decoding them. */
export interface CatalogEntry {
  /** The document's relative_path as written. */
  path: string;
  language: string;
  offset: number;
  length: number;
  /** Sextant's key: its content hash, project, compilation and inputs (its deps are read from the document when checked). */
  key?: Omit<DocumentKey, 'deps'>;
  /** FNV-1a hashes of the symbols it has information for (definitions). */
  defined: number[];
}

function catalogEntryOf(d: ScipDocument, offset: number, length: number): CatalogEntry {
  const e: CatalogEntry = { path: d.relativePath, language: d.language, offset, length, defined: d.symbols.map((x) => symbolHash(x.symbol)) };
  if (d.key) e.key = { contentHash: d.key.contentHash, project: d.key.project, compilation: d.key.compilation, ...(d.key.inputs ? { inputs: d.key.inputs } : {}) };
  return e;
}

function encodeCatalog(entries: readonly CatalogEntry[]): Uint8Array {
  const w = new BinaryWriter();
  for (const e of entries) {
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(e.path);
    if (e.language) w.tag(2, WireType.LengthDelimited).string(e.language);
    w.tag(3, WireType.Varint).uint64(e.offset);
    w.tag(4, WireType.Varint).uint32(e.length);
    if (e.key) {
      w.tag(5, WireType.LengthDelimited).string(e.key.contentHash);
      w.tag(6, WireType.LengthDelimited).string(e.key.project);
      w.tag(7, WireType.LengthDelimited).string(e.key.compilation);
      if (e.key.inputs) w.tag(8, WireType.LengthDelimited).string(e.key.inputs);
    }
    if (e.defined.length) {
      w.tag(9, WireType.LengthDelimited).fork();
      for (const h of e.defined) w.fixed32(h);
      w.join();
    }
    w.join();
  }
  return w.finish();
}

function decodeCatalog(bytes: Uint8Array): CatalogEntry[] {
  const r = new BinaryReader(bytes);
  const out: CatalogEntry[] = [];
  while (r.pos < r.len) {
    const [f, wt] = r.tag();
    if (f !== 1 || wt !== WireType.LengthDelimited) {
      r.skip(wt, f);
      continue;
    }
    const end = r.uint32() + r.pos;
    const e: CatalogEntry = { path: '', language: '', offset: -1, length: -1, defined: [] };
    let key: Omit<DocumentKey, 'deps'> | undefined;
    while (r.pos < end) {
      const [g, gt] = r.tag();
      if (g === 1) e.path = r.string();
      else if (g === 2) e.language = r.string();
      else if (g === 3) e.offset = Number(r.uint64());
      else if (g === 4) e.length = r.uint32();
      else if (g === 5) (key ??= { contentHash: '', project: '', compilation: '' }).contentHash = r.string();
      else if (g === 6) (key ??= { contentHash: '', project: '', compilation: '' }).project = r.string();
      else if (g === 7) (key ??= { contentHash: '', project: '', compilation: '' }).compilation = r.string();
      else if (g === 8) (key ??= { contentHash: '', project: '', compilation: '' }).inputs = r.string();
      else if (g === 9 && gt === WireType.LengthDelimited) {
        const hend = r.uint32() + r.pos;
        while (r.pos < hend) e.defined.push(r.fixed32());
      } else r.skip(gt, g);
    }
    if (r.pos !== end) throw new Error('a catalog entry overran its length');
    if (key) e.key = key;
    out.push(e);
  }
  return out;
}

function trailer(catalogOffset: number): Uint8Array {
  const w = new BinaryWriter().tag(TRAILER_FIELD, WireType.Bit64).fixed64(catalogOffset).finish();
  if (w.length !== TRAILER_BYTES) throw new Error('unexpected trailer size');
  return w;
}

/** An index file's catalog as written by Sextant: its metadata, documents and where the catalog starts. */
export interface ScipCatalog {
  metadata: ScipMetadata;
  entries: CatalogEntry[];
  /** File offset of the catalog field (documents lie before it). */
  catalogOffset: number;
  size: number;
}

function preadExact(fd: number, length: number, position: number): Uint8Array {
  const out = new Uint8Array(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, out, got, length - got, position + got);
    if (n === 0) throw new ScipFormatError('the file ends early (truncated)', position + got);
    got += n;
  }
  return out;
}

/**
 * The raw bytes a catalog is read from: the catalog field (from its tag to the trailer) and the
 * metadata message, with where they lie. Kept as they are in the persisted layer's units catalog
 * (unitsCatalog.ts), so a start takes 3,000 files' catalogs from one read.
 */
export interface CatalogRegion {
  size: number;
  /** File offset of the catalog field's tag. */
  catalogOffset: number;
  /** The catalog field (tag, length, Catalog message), up to the trailer. */
  catalog: Uint8Array;
  /** File offset of the metadata message's bytes (after its tag and length). */
  metadataOffset: number;
  metadata: Uint8Array;
}

/**
 * Reads the catalog region of an index file (its last bytes, then the catalog and the metadata at
 * the start; nothing else). Undefined when the file has none (another producer's index, a file cut
 * short): the caller reads it whole. A trailer that points outside the file is a ScipFormatError.
 */
export function readCatalogRegion(file: string): CatalogRegion | undefined {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size < TRAILER_BYTES + 4) return undefined;
    const t = preadExact(fd, TRAILER_BYTES, size - TRAILER_BYTES);
    // the tag of TRAILER_FIELD with wire type fixed64, as a varint
    if (t[0] !== 0xd9 || t[1] !== 0x3e) return undefined;
    const tr = new BinaryReader(t);
    const [f, wt] = tr.tag();
    if (f !== TRAILER_FIELD || wt !== WireType.Bit64) return undefined;
    const at = Number(tr.fixed64());
    if (!(at > 0 && at < size - TRAILER_BYTES)) throw new ScipFormatError(`a catalog offset ${at} outside the file`, size - TRAILER_BYTES);
    const catalog = preadExact(fd, size - TRAILER_BYTES - at, at);
    // the metadata: the first field
    const head = preadExact(fd, Math.min(size, 16), 0);
    const hr = new BinaryReader(head);
    const mtag = hr.uint32();
    const [mf, mwt] = [mtag >>> 3, mtag & 7];
    if (mf !== 1 || mwt !== WireType.LengthDelimited) throw new ScipFormatError(`an Index field ${mf} with wire type ${mwt} where the metadata should be`, 0);
    const mlen = hr.uint32();
    const mstart = hr.pos;
    if (mstart + mlen > at) throw new ScipFormatError('the metadata runs into the catalog', 0);
    return { size, catalogOffset: at, catalog, metadataOffset: mstart, metadata: preadExact(fd, mlen, mstart) };
  } finally {
    fs.closeSync(fd);
  }
}

/** A catalog region decoded and checked: every document inside the file, between the metadata and the catalog. */
export function parseCatalogRegion(r: CatalogRegion): ScipCatalog {
  const at = r.catalogOffset;
  const cr = new BinaryReader(r.catalog);
  const ctag = cr.uint32();
  const [cf, cwt] = [ctag >>> 3, ctag & 7];
  if (cf !== CATALOG_FIELD || cwt !== WireType.LengthDelimited) throw new ScipFormatError('the trailer does not point at a catalog', at);
  const len = cr.uint32();
  if (cr.pos + len !== r.catalog.length) throw new ScipFormatError('the catalog does not end at the trailer', at);
  const entries = decodeCatalog(r.catalog.subarray(cr.pos));
  const metadata = decodeMetadata(r.metadata);
  const docsFrom = r.metadataOffset + r.metadata.length;
  for (const e of entries) {
    if (!(e.offset >= docsFrom && e.length >= 0 && e.offset + e.length <= at)) throw new ScipFormatError(`the catalog places ${e.path} outside the documents`, at);
  }
  return { metadata, entries, catalogOffset: at, size: r.size };
}

/**
 * Reads the catalog of an index file (readCatalogRegion + parseCatalogRegion). Undefined when the
 * file has none; a catalog that points outside the file is a ScipFormatError.
 */
export function readScipCatalog(file: string): ScipCatalog | undefined {
  const r = readCatalogRegion(file);
  return r ? parseCatalogRegion(r) : undefined;
}

/**
 * Checks an index file against its catalog without decoding documents: every top-level field well
 * formed, the documents exactly where the catalog says. Undefined when it holds, else why not
 * (with the byte offset). Reads the file in chunks, yielding between them.
 */
export async function verifyScipCatalog(file: string, c: ScipCatalog): Promise<string | undefined> {
  const expected = new Map<number, number>(c.entries.map((e) => [e.offset, e.length]));
  let seen = 0;
  try {
    for await (const part of readScipIndex(file, 4 << 20, true)) {
      if (part.kind !== 'document') continue;
      if (part.offset >= c.catalogOffset) return `a document after the catalog at byte ${part.offset}`;
      if (expected.get(part.offset) !== part.bytes.length) return `a document at byte ${part.offset} the catalog does not list`;
      seen++;
    }
  } catch (e) {
    return e instanceof ScipFormatError ? `${e.message} at byte ${e.offset}` : e instanceof Error ? e.message : String(e);
  }
  return seen === c.entries.length ? undefined : `the catalog lists ${c.entries.length} documents, the file holds ${seen}`;
}

/**
 * Writes an index file: metadata, then documents as they come, then Sextant's catalog of them
 * (`CATALOG_FIELD` and the fixed-size `TRAILER_FIELD` at the very end, unknown fields every other
 * SCIP reader skips), atomically (temp file, fsync, rename). Returns the number of bytes written.
 */
export async function writeScipIndex(file: string, metadata: ScipMetadata, documents: AsyncIterable<ScipDocument> | Iterable<ScipDocument>): Promise<number> {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  let bytes = 0;
  try {
    const put = (b: Uint8Array) => {
      let off = 0;
      while (off < b.length) off += fs.writeSync(fd, b, off, b.length - off);
      bytes += b.length;
    };
    put(indexField(1, encodeMetadata(metadata)));
    const catalog: CatalogEntry[] = [];
    for await (const d of documents) {
      const payload = encodeDocument(d);
      const field = indexField(2, payload);
      catalog.push(catalogEntryOf(d, bytes + field.length - payload.length, payload.length));
      put(field);
    }
    const at = bytes;
    put(new BinaryWriter().tag(CATALOG_FIELD, WireType.LengthDelimited).bytes(encodeCatalog(catalog)).finish());
    put(trailer(at));
    fs.fsyncSync(fd);
  } catch (e) {
    fs.closeSync(fd);
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  return bytes;
}
