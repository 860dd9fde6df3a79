/**
 * SCIP (Sourcegraph's code intelligence protocol, `scip.proto`) on the wire: the messages the
 * occurrence store reads and writes, as plain data, encoded and decoded with @bufbuild/protobuf's
 * binary reader and writer (field numbers as in scip.proto).
 *
 * An index is read as a stream (`readScipIndex`): the Index message is a sequence of top-level
 * fields (metadata = 1, documents = 2, external_symbols = 3), so each document is cut out of the
 * byte stream and decoded on its own; a 100 MB index never sits in memory at once. A document's
 * bytes are also addressable (`offset`, `length`), so the store can read one document back later
 * without decoding the others (`decodeDocument`).
 *
 * Sextant's own documents carry one extra field, `SEXTANT_KEY_FIELD` (not in scip.proto; other
 * SCIP readers skip unknown fields): the key under which the document's facts are valid (content
 * hash, the project's compilation inputs, the declarations it binds to in other documents). The
 * files Sextant writes end with a catalog of their documents (scipCatalog.ts).
 */
import * as fs from 'node:fs';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';

/** SymbolRole bits (scip.proto). */
export const ROLE_DEFINITION = 1;
export const ROLE_IMPORT = 2;
export const ROLE_WRITE = 4;
export const ROLE_READ = 8;
export const ROLE_GENERATED = 16;
export const ROLE_TEST = 32;
/** Not in scip.proto's SymbolRole: Sextant marks references the compiler flags implicit (`new(...)`). */
export const ROLE_SEXTANT_IMPLICIT = 1 << 20;

/** Document field carrying Sextant's validity key (an unknown field to every other SCIP reader). */
export const SEXTANT_KEY_FIELD = 1001;
/** Index field holding Sextant's catalog of the file's documents (not in scip.proto; scipCatalog.ts). */
export const CATALOG_FIELD = 1002;
/** Index field (fixed64, the last 10 bytes of a file Sextant writes) pointing at the catalog. */
export const TRAILER_FIELD = 1003;

export interface ScipToolInfo {
  name: string;
  version: string;
  arguments: string[];
}

export interface ScipMetadata {
  version: number;
  toolInfo?: ScipToolInfo;
  projectRoot: string;
  /** 1 UTF-8, 2 UTF-16 (TextEncoding). */
  textDocumentEncoding: number;
}

/** One occurrence: range as in scip.proto (`[startLine, startChar, endChar]` or 4 numbers, 0-based). */
export interface ScipOccurrence {
  range: number[];
  symbol: string;
  symbolRoles: number;
  enclosingRange?: number[];
}

export interface ScipRelationship {
  symbol: string;
  isReference: boolean;
  isImplementation: boolean;
  isTypeDefinition: boolean;
  isDefinition: boolean;
}

export interface ScipSymbolInformation {
  symbol: string;
  documentation: string[];
  relationships: ScipRelationship[];
  /** SymbolInformation.Kind (0 unspecified). */
  kind: number;
  displayName: string;
  enclosingSymbol: string;
}

/** A declaration document this one binds to, with the hash of its declarations when recorded. */
export interface KeyDependency {
  path: string;
  shape: string;
  /** The declaration document's content hash then: equal now ⇒ same shape, no symbol-index read. */
  hash?: string;
}

/** When a document's facts are valid (Sextant's field; absent in other producers' indexes). */
export interface DocumentKey {
  /** sha1 of the file's bytes (the index's `files.hash`). */
  contentHash: string;
  /** The project the facts were resolved in (project file path; tsconfig path for TS). */
  project: string;
  /** Hash of that project's compilation inputs (references, defines, language version, file set). */
  compilation: string;
  /** Declaration documents the uses bind to, each with its declarations' hash then. */
  deps: KeyDependency[];
  /**
   * A cheap fingerprint of what the compilation key is computed from (documentKeys.ts
   * CompilationInputs): equal now ⇒ the compilation (and, for a generator's document, its content
   * key) holds without describing the project again. Absent: always checked the long way.
   */
  inputs?: string;
}

export interface ScipDocument {
  relativePath: string;
  language: string;
  occurrences: ScipOccurrence[];
  symbols: ScipSymbolInformation[];
  /** 1 UTF-8 bytes, 2 UTF-16 code units, 3 UTF-32 (PositionEncoding); 0 unspecified. */
  positionEncoding: number;
  key?: DocumentKey;
  /** `decodeDocument(bytes, true)` only: FNV-1a hashes of the symbols the document has information for (its definitions). */
  definedHashes?: number[];
}

/** FNV-1a 32 of UTF-8 bytes (a symbol string's hash, as `symbolHash` computes it from the string). */
export function fnv1a(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const utf8 = new TextEncoder();
export function symbolHash(symbol: string): number {
  return fnv1a(utf8.encode(symbol));
}

/** A refused index: what is wrong and where. */
export class ScipFormatError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

// ─── encoding ──────────────────────────────────────────────────────────────────

export function encodeMetadata(m: ScipMetadata): Uint8Array {
  const w = new BinaryWriter();
  if (m.version) w.tag(1, WireType.Varint).int32(m.version);
  if (m.toolInfo) {
    w.tag(2, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(m.toolInfo.name);
    w.tag(2, WireType.LengthDelimited).string(m.toolInfo.version);
    for (const a of m.toolInfo.arguments) w.tag(3, WireType.LengthDelimited).string(a);
    w.join();
  }
  w.tag(3, WireType.LengthDelimited).string(m.projectRoot);
  if (m.textDocumentEncoding) w.tag(4, WireType.Varint).int32(m.textDocumentEncoding);
  return w.finish();
}

function packed(w: BinaryWriter, field: number, values: readonly number[]): void {
  w.tag(field, WireType.LengthDelimited).fork();
  for (const v of values) w.int32(v);
  w.join();
}

export function encodeDocument(d: ScipDocument): Uint8Array {
  const w = new BinaryWriter();
  w.tag(1, WireType.LengthDelimited).string(d.relativePath);
  for (const o of d.occurrences) {
    w.tag(2, WireType.LengthDelimited).fork();
    packed(w, 1, o.range);
    if (o.symbol) w.tag(2, WireType.LengthDelimited).string(o.symbol);
    if (o.symbolRoles) w.tag(3, WireType.Varint).int32(o.symbolRoles);
    if (o.enclosingRange?.length) packed(w, 7, o.enclosingRange);
    w.join();
  }
  for (const s of d.symbols) {
    w.tag(3, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(s.symbol);
    for (const doc of s.documentation) w.tag(3, WireType.LengthDelimited).string(doc);
    for (const r of s.relationships) {
      w.tag(4, WireType.LengthDelimited).fork();
      w.tag(1, WireType.LengthDelimited).string(r.symbol);
      if (r.isReference) w.tag(2, WireType.Varint).bool(true);
      if (r.isImplementation) w.tag(3, WireType.Varint).bool(true);
      if (r.isTypeDefinition) w.tag(4, WireType.Varint).bool(true);
      if (r.isDefinition) w.tag(5, WireType.Varint).bool(true);
      w.join();
    }
    if (s.kind) w.tag(5, WireType.Varint).int32(s.kind);
    if (s.displayName) w.tag(6, WireType.LengthDelimited).string(s.displayName);
    if (s.enclosingSymbol) w.tag(8, WireType.LengthDelimited).string(s.enclosingSymbol);
    w.join();
  }
  if (d.language) w.tag(4, WireType.LengthDelimited).string(d.language);
  if (d.positionEncoding) w.tag(6, WireType.Varint).int32(d.positionEncoding);
  if (d.key) {
    w.tag(SEXTANT_KEY_FIELD, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(d.key.contentHash);
    w.tag(2, WireType.LengthDelimited).string(d.key.project);
    w.tag(3, WireType.LengthDelimited).string(d.key.compilation);
    for (const dep of d.key.deps) {
      w.tag(4, WireType.LengthDelimited).fork();
      w.tag(1, WireType.LengthDelimited).string(dep.path);
      w.tag(2, WireType.LengthDelimited).string(dep.shape);
      if (dep.hash) w.tag(3, WireType.LengthDelimited).string(dep.hash);
      w.join();
    }
    if (d.key.inputs) w.tag(5, WireType.LengthDelimited).string(d.key.inputs);
    w.join();
  }
  return w.finish();
}

/** One top-level Index field (tag + length + payload) around a message's bytes. */
export function indexField(field: 1 | 2 | 3, payload: Uint8Array): Uint8Array {
  return new BinaryWriter().tag(field, WireType.LengthDelimited).bytes(payload).finish();
}

// ─── decoding ──────────────────────────────────────────────────────────────────

function ints(r: BinaryReader, wire: WireType): number[] {
  if (wire !== WireType.LengthDelimited) return [r.int32()];
  const end = r.uint32() + r.pos;
  const out: number[] = [];
  while (r.pos < end) out.push(r.int32());
  return out;
}

function decodeOccurrence(r: BinaryReader, end: number): ScipOccurrence {
  const o: ScipOccurrence = { range: [], symbol: '', symbolRoles: 0 };
  while (r.pos < end) {
    const [f, wt] = r.tag();
    if (f === 1) o.range.push(...ints(r, wt));
    else if (f === 2) o.symbol = r.string();
    else if (f === 3) o.symbolRoles = r.int32();
    else if (f === 7) (o.enclosingRange ??= []).push(...ints(r, wt));
    else r.skip(wt, f);
  }
  return o;
}

function decodeRelationship(r: BinaryReader, end: number): ScipRelationship {
  const x: ScipRelationship = { symbol: '', isReference: false, isImplementation: false, isTypeDefinition: false, isDefinition: false };
  while (r.pos < end) {
    const [f, wt] = r.tag();
    if (f === 1) x.symbol = r.string();
    else if (f === 2) x.isReference = r.bool();
    else if (f === 3) x.isImplementation = r.bool();
    else if (f === 4) x.isTypeDefinition = r.bool();
    else if (f === 5) x.isDefinition = r.bool();
    else r.skip(wt, f);
  }
  return x;
}

function decodeSymbol(r: BinaryReader, end: number): ScipSymbolInformation {
  const s: ScipSymbolInformation = { symbol: '', documentation: [], relationships: [], kind: 0, displayName: '', enclosingSymbol: '' };
  while (r.pos < end) {
    const [f, wt] = r.tag();
    if (f === 1) s.symbol = r.string();
    else if (f === 3) s.documentation.push(r.string());
    else if (f === 4) s.relationships.push(decodeRelationship(r, r.uint32() + r.pos));
    else if (f === 5) s.kind = r.int32();
    else if (f === 6) s.displayName = r.string();
    else if (f === 8) s.enclosingSymbol = r.string();
    else r.skip(wt, f);
  }
  return s;
}

function decodeKey(r: BinaryReader, end: number): DocumentKey {
  const k: DocumentKey = { contentHash: '', project: '', compilation: '', deps: [] };
  while (r.pos < end) {
    const [f, wt] = r.tag();
    if (f === 1) k.contentHash = r.string();
    else if (f === 2) k.project = r.string();
    else if (f === 3) k.compilation = r.string();
    else if (f === 4) {
      const e = r.uint32() + r.pos;
      const dep: KeyDependency = { path: '', shape: '' };
      while (r.pos < e) {
        const [g, gt] = r.tag();
        if (g === 1) dep.path = r.string();
        else if (g === 2) dep.shape = r.string();
        else if (g === 3) dep.hash = r.string();
        else r.skip(gt, g);
      }
      k.deps.push(dep);
    } else if (f === 5) k.inputs = r.string();
    else r.skip(wt, f);
  }
  return k;
}

/** Decodes one Document message; `head` reads only its path, language and key (occurrences skipped). */
export function decodeDocument(bytes: Uint8Array, head = false): ScipDocument {
  const r = new BinaryReader(bytes);
  const d: ScipDocument = { relativePath: '', language: '', occurrences: [], symbols: [], positionEncoding: 0 };
  while (r.pos < r.len) {
    const [f, wt] = r.tag();
    if (f === 1) d.relativePath = r.string();
    else if (f === 4) d.language = r.string();
    else if (f === 6) d.positionEncoding = r.int32();
    else if (f === SEXTANT_KEY_FIELD) d.key = decodeKey(r, r.uint32() + r.pos);
    else if (!head && f === 2) d.occurrences.push(decodeOccurrence(r, r.uint32() + r.pos));
    else if (!head && f === 3) d.symbols.push(decodeSymbol(r, r.uint32() + r.pos));
    else if (head && f === 3) {
      const end = r.uint32() + r.pos;
      while (r.pos < end) {
        const [g, gt] = r.tag();
        if (g === 1) {
          const b = r.bytes();
          (d.definedHashes ??= []).push(fnv1a(b));
        } else r.skip(gt, g);
      }
    } else r.skip(wt, f);
  }
  if (r.pos !== r.len) throw new Error('document overran its length');
  return d;
}

/** A document's Sextant key alone (every other field skipped); undefined when it has none. */
export function decodeDocumentKey(bytes: Uint8Array): DocumentKey | undefined {
  const r = new BinaryReader(bytes);
  let key: DocumentKey | undefined;
  while (r.pos < r.len) {
    const [f, wt] = r.tag();
    if (f === SEXTANT_KEY_FIELD && wt === WireType.LengthDelimited) key = decodeKey(r, r.uint32() + r.pos);
    else r.skip(wt, f);
  }
  return key;
}

/**
 * The occurrences of a document whose symbol is one of `symbols` or starts with one of `prefixes`
 * (UTF-8 bytes), decoded alone: the others' symbols are compared as bytes, never made strings (a
 * references search reads hundreds of documents for a few occurrences each).
 */
export function scanOccurrences(bytes: Uint8Array, symbols: readonly Uint8Array[], prefixes: readonly Uint8Array[] = []): ScipOccurrence[] {
  const r = new BinaryReader(bytes);
  const out: ScipOccurrence[] = [];
  while (r.pos < r.len) {
    const [f, wt] = r.tag();
    if (f !== 2 || wt !== WireType.LengthDelimited) {
      r.skip(wt, f);
      continue;
    }
    const end = r.uint32() + r.pos;
    const start = r.pos;
    let hit = false;
    while (r.pos < end) {
      const [g, gt] = r.tag();
      if (g === 2 && gt === WireType.LengthDelimited) {
        const n = r.uint32();
        hit = namesOneOf(bytes, r.pos, n, symbols, prefixes);
        r.pos += n;
      } else r.skip(gt, g);
    }
    if (r.pos !== end) throw new Error('an occurrence overran its length');
    if (!hit) continue;
    r.pos = start;
    out.push(decodeOccurrence(r, end));
  }
  if (r.pos !== r.len) throw new Error('document overran its length');
  return out;
}

function namesOneOf(b: Uint8Array, at: number, n: number, symbols: readonly Uint8Array[], prefixes: readonly Uint8Array[]): boolean {
  for (const s of symbols) if (s.length === n && sameBytes(b, at, s)) return true;
  for (const p of prefixes) if (p.length <= n && sameBytes(b, at, p)) return true;
  return false;
}

function sameBytes(b: Uint8Array, at: number, s: Uint8Array): boolean {
  for (let i = 0; i < s.length; i++) if (b[at + i] !== s[i]) return false;
  return true;
}

export function decodeMetadata(bytes: Uint8Array): ScipMetadata {
  const r = new BinaryReader(bytes);
  const m: ScipMetadata = { version: 0, projectRoot: '', textDocumentEncoding: 0 };
  while (r.pos < r.len) {
    const [f, wt] = r.tag();
    if (f === 1) m.version = r.int32();
    else if (f === 2) {
      const end = r.uint32() + r.pos;
      const t: ScipToolInfo = { name: '', version: '', arguments: [] };
      while (r.pos < end) {
        const [g, gt] = r.tag();
        if (g === 1) t.name = r.string();
        else if (g === 2) t.version = r.string();
        else if (g === 3) t.arguments.push(r.string());
        else r.skip(gt, g);
      }
      m.toolInfo = t;
    } else if (f === 3) m.projectRoot = r.string();
    else if (f === 4) m.textDocumentEncoding = r.int32();
    else r.skip(wt, f);
  }
  return m;
}

/** One top-level field of an index as read from the stream. */
export type ScipIndexPart =
  | { kind: 'metadata'; metadata: ScipMetadata }
  | { kind: 'document'; bytes: Uint8Array; offset: number }
  | { kind: 'externalSymbol'; bytes: Uint8Array };

/** Largest single document accepted (a bigger length field is damage, not a document). */
const MAX_DOCUMENT_BYTES = 512 * 1024 * 1024;

/**
 * Reads an index file top-level field by top-level field, in chunks (`chunkBytes` at a time). A
 * truncated file, a wire type an Index cannot have or a length past the end throws
 * `ScipFormatError` naming the offset.
 */
export async function* readScipIndex(file: string, chunkBytes = 1 << 20, view = false): AsyncGenerator<ScipIndexPart> {
  const fh = await fs.promises.open(file, 'r');
  try {
    const size = (await fh.stat()).size;
    let buf = new Uint8Array(0);
    let bufStart = 0; // file offset of buf[0]
    let eof = false;
    const fill = async (need: number): Promise<boolean> => {
      while (buf.length < need && !eof) {
        const chunk = new Uint8Array(Math.max(chunkBytes, need - buf.length));
        const { bytesRead } = await fh.read(chunk, 0, chunk.length, bufStart + buf.length);
        if (bytesRead === 0) eof = true;
        const next = new Uint8Array(buf.length + bytesRead);
        next.set(buf);
        next.set(chunk.subarray(0, bytesRead), buf.length);
        buf = next;
      }
      return buf.length >= need;
    };
    const varint = async (at: number): Promise<{ value: number; next: number } | undefined> => {
      let value = 0;
      for (let i = 0; i < 10; i++) {
        if (!(await fill(at + i + 1))) return undefined;
        const b = buf[at + i]!;
        value += (b & 0x7f) * 2 ** (7 * i);
        if ((b & 0x80) === 0) return { value, next: at + i + 1 };
      }
      throw new ScipFormatError('a varint longer than 10 bytes', bufStart + at);
    };
    for (;;) {
      if (!(await fill(1))) return;
      const tag = await varint(0);
      if (!tag) throw new ScipFormatError('the file ends inside a field tag (truncated)', bufStart);
      const field = Math.floor(tag.value / 8);
      const wire = tag.value & 7;
      // Sextant's trailer (fixed64): the last field
      if (field === TRAILER_FIELD && wire === WireType.Bit64) {
        if (!(await fill(tag.next + 8))) throw new ScipFormatError('the file ends inside the trailer (truncated)', bufStart);
        if (bufStart + tag.next + 8 !== size) throw new ScipFormatError('a trailer before the end of the file', bufStart);
        return;
      }
      if (wire !== WireType.LengthDelimited || ((field < 1 || field > 3) && field !== CATALOG_FIELD)) {
        throw new ScipFormatError(`an Index field ${field} with wire type ${wire} (an Index holds only metadata, documents and external symbols)`, bufStart);
      }
      const len = await varint(tag.next);
      if (!len) throw new ScipFormatError('the file ends inside a length (truncated)', bufStart);
      if (len.value > MAX_DOCUMENT_BYTES) throw new ScipFormatError(`a field of ${len.value} bytes`, bufStart);
      const offset = bufStart + len.next;
      if (offset + len.value > size) throw new ScipFormatError(`a field of ${len.value} bytes runs past the end of the file (${size} bytes; truncated)`, bufStart);
      if (!(await fill(len.next + len.value))) throw new ScipFormatError('the file ends inside a field (truncated)', bufStart);
      const bytes = view ? buf.subarray(len.next, len.next + len.value) : buf.slice(len.next, len.next + len.value);
      buf = buf.subarray(len.next + len.value);
      bufStart = offset + len.value;
      if (field === 1) {
        try {
          yield { kind: 'metadata', metadata: decodeMetadata(bytes) };
        } catch (e) {
          if (e instanceof ScipFormatError) throw e;
          throw new ScipFormatError(`metadata does not decode: ${e instanceof Error ? e.message : String(e)}`, offset);
        }
      } else if (field === 2) yield { kind: 'document', bytes, offset };
      else if (field === 3) yield { kind: 'externalSymbol', bytes };
      // CATALOG_FIELD: what readScipCatalog reads; the stream has the documents themselves
    }
  } finally {
    await fh.close();
  }
}

