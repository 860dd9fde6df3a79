/**
 * The ranking index on disk, so an engine that starts on an index it already ranked does not
 * re-scan every file: `<index root>/ranking.bin` (owner-only), written atomically (temp, rename)
 * after a full build, read on the first question. One JSON header line (format, the git HEAD the
 * history field was read at, documents, field averages omitted: recomputed) followed by the typed
 * arrays. A file from another format, or unreadable, is ignored (and rebuilt); a loaded ranking is
 * brought up to date like any older one (files whose hash changed are re-scanned).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { log } from '../../core/log';
import { FIELD_COUNT } from './bm25f';
import { FieldIndex, Vocabulary, type RankDoc } from './fieldIndex';

/** Bumped whenever what a document holds changes (a saved index of another format is rebuilt). */
const FORMAT = 'sextant-ranking-2';
export const RANKING_FILE = 'ranking.bin';

interface Header {
  format: string;
  head: string;
  docs: [number, string, string, number][];
  terms: number;
  /** Byte lengths of the arrays that follow, in order: vocab text, then per field len, offsets, postings. */
  sizes: number[];
}

export function saveRanking(indexRoot: string, head: string, ix: FieldIndex): void {
  if (!indexRoot) return;
  const docs = ix.docs.map((d): [number, string, string, number] => [d.fileId, d.path, d.hash, (d.test ? 1 : 0) | (d.generated ? 2 : 0)]);
  const vocab = Buffer.from(ix.vocab.terms.join('\n'), 'utf8');
  const parts: Buffer[] = [vocab];
  const raw = ix.raw();
  for (let f = 0; f < FIELD_COUNT; f++) {
    parts.push(Buffer.from(raw.len[f]!.buffer, raw.len[f]!.byteOffset, raw.len[f]!.byteLength));
    parts.push(Buffer.from(raw.offsets[f]!.buffer, raw.offsets[f]!.byteOffset, raw.offsets[f]!.byteLength));
    parts.push(Buffer.from(raw.postings[f]!.buffer, raw.postings[f]!.byteOffset, raw.postings[f]!.byteLength));
  }
  const header: Header = { format: FORMAT, head, docs, terms: ix.vocab.terms.length, sizes: parts.map((p) => p.length) };
  const file = path.join(indexRoot, RANKING_FILE);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    const fd = fs.openSync(tmp, 'w', 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(header)}\n`);
      for (const p of parts) fs.writeSync(fd, p);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    log.warn('ranking index not saved', { error: (e as Error).message });
  }
}

export function loadRanking(indexRoot: string): { head: string; index: FieldIndex } | undefined {
  if (!indexRoot) return undefined;
  let buf: Buffer;
  try {
    buf = fs.readFileSync(path.join(indexRoot, RANKING_FILE));
  } catch {
    return undefined;
  }
  try {
    const nl = buf.indexOf(10);
    const header = JSON.parse(buf.subarray(0, nl).toString('utf8')) as Header;
    if (header.format !== FORMAT || header.sizes.length !== 1 + 3 * FIELD_COUNT) return undefined;
    let at = nl + 1;
    const take = (n: number) => {
      // Copy into an aligned buffer (typed arrays need their element alignment).
      const b = new ArrayBuffer(n);
      new Uint8Array(b).set(buf.subarray(at, at + n));
      at += n;
      return b;
    };
    const vocab = new Vocabulary();
    const text = buf.subarray(at, at + header.sizes[0]!).toString('utf8');
    at += header.sizes[0]!;
    for (const t of header.terms ? text.split('\n') : []) vocab.id(t);
    if (vocab.terms.length !== header.terms) return undefined;
    const len: Float32Array[] = [];
    const offsets: Uint32Array[] = [];
    const postings: Int32Array[] = [];
    for (let f = 0; f < FIELD_COUNT; f++) {
      len.push(new Float32Array(take(header.sizes[1 + 3 * f]!)));
      offsets.push(new Uint32Array(take(header.sizes[2 + 3 * f]!)));
      postings.push(new Int32Array(take(header.sizes[3 + 3 * f]!)));
    }
    if (at !== buf.length) return undefined;
    const docs: RankDoc[] = header.docs.map(([fileId, p, hash, flags]) => ({ fileId, path: p, hash, test: (flags & 1) !== 0, generated: (flags & 2) !== 0 }));
    return { head: header.head, index: new FieldIndex(vocab, docs, len, offsets, postings) };
  } catch {
    return undefined;
  }
}
