/**
 * Phase 1's per-file work that needs no database: read the bytes, hash them, and for a file whose
 * content changed classify it, count its lines and build its token document (`TokenInterner`).
 * For a large refresh it runs in a worker thread (`textWorker.ts`, one per refresh) a batch or two
 * ahead of the indexing thread, which meanwhile writes the previous batch (file rows, FTS4
 * documents, dictionary terms): on two cores the reading and tokenising no longer add to the
 * writing. Small refreshes, and runs from sources, read here; the results are the same.
 */
import * as crypto from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { MAX_FILE_BYTES, TEXT_WORKER_MIN_FILES } from '../core/limits';
import { looksBinary, readWithOneHandle } from '../core/paths';
import { workerEntry } from '../core/workerEntry';
import { classify, type FileClass } from '../workspace/fileClass';
import { TokenInterner } from './tokens';

export interface TextReadRequest {
  path: string;
  abs: string;
  /** The hash the index holds for this path: equal bytes are not tokenised again. */
  oldHash?: string;
}

export type TextRead =
  | { kind: 'unreadable' }
  | { kind: 'same'; hash: string }
  | {
      kind: 'read';
      hash: string;
      lines: number;
      binary: boolean;
      cls: FileClass;
      /** The token document: bytes docStart..docEnd of the batch's `docs` (none when it has no token). */
      docStart: number;
      docEnd: number;
      /** Tokens this file brought first in this refresh (the dictionary is offered only those). */
      newTokens: string[];
    };

export interface TextBatch {
  results: TextRead[];
  docs: Uint8Array;
}

/** Characters of a file's start that `classify` looks at for a generated-code header. */
const HEAD_CHARS = 1024;

/** Reads and tokenises one batch with `interner` (one interner per refresh, across its batches). */
export function readTextBatch(interner: TokenInterner, files: readonly TextReadRequest[]): TextBatch {
  const results: TextRead[] = [];
  let docs = new Uint8Array(1 << 16);
  let used = 0;
  for (const f of files) {
    let bytes: Buffer;
    try {
      bytes = readWithOneHandle(f.abs, f.path, MAX_FILE_BYTES).bytes;
    } catch {
      results.push({ kind: 'unreadable' });
      continue;
    }
    const hash = crypto.createHash('sha1').update(bytes).digest('hex');
    if (f.oldHash === hash) {
      results.push({ kind: 'same', hash });
      continue;
    }
    // Text files are tokenised and counted from their bytes: nothing here needs them decoded.
    const binary = looksBinary(bytes);
    const bom = !binary && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
    const cls = binary ? classify(f.path) : classify(f.path, bytes.toString('utf8', bom, Math.min(bytes.length, bom + 4 * HEAD_CHARS)).slice(0, HEAD_CHARS));
    const docStart = used;
    let newTokens: string[] = [];
    if (!binary) {
      const doc = interner.fileDocument(bytes);
      newTokens = interner.newTokens();
      if (doc) {
        if (used + doc.length > docs.length) {
          let n = docs.length * 2;
          while (n < used + doc.length) n *= 2;
          const grown = new Uint8Array(n);
          grown.set(docs.subarray(0, used));
          docs = grown;
        }
        docs.set(doc, used);
        used += doc.length;
      }
    }
    results.push({ kind: 'read', hash, lines: binary ? 0 : countLineBytes(bytes, bom), binary, cls, docStart, docEnd: used, newTokens });
  }
  return { results, docs: docs.subarray(0, used) };
}

/** `countLines` of the UTF-8 text in `bytes` from `from` (a newline byte is never inside a multi-byte character). */
export function countLineBytes(bytes: Uint8Array, from: number): number {
  const n = bytes.length;
  if (n <= from) return 0;
  let lines = 1;
  for (let i = bytes.indexOf(10, from); i >= 0; i = bytes.indexOf(10, i + 1)) lines++;
  if (bytes[n - 1] === 10) lines--;
  return lines;
}

/** Batches in request order; at most two ahead of the one being consumed. */
export interface TextReader {
  /** Asks for the next batch (in order); its result comes from `next`. */
  request(files: readonly TextReadRequest[]): void;
  /** The oldest requested batch's result. */
  next(): Promise<TextBatch>;
  close(): Promise<void>;
}

/**
 * A reader for a refresh of `files` files: a worker thread for large ones when the engine is built
 * (from sources only when `inWorker` asks), else this thread.
 */
export function textReader(files: number, inWorker?: boolean): TextReader {
  const entry = (inWorker ?? files >= TEXT_WORKER_MIN_FILES) ? workerEntry(__dirname, __filename, 'textWorker') : undefined;
  if (entry && (inWorker || entry.execArgv.length === 0)) return workerReader(entry.file, entry.execArgv);
  const interner = new TokenInterner();
  const queue: (readonly TextReadRequest[])[] = [];
  return {
    request: (f) => queue.push(f),
    next: async () => readTextBatch(interner, queue.shift() ?? []),
    close: async () => undefined,
  };
}

/** The worker's side of the protocol: requests in order, one reply per request. */
export interface TextWorkerRequest {
  id: number;
  files: readonly TextReadRequest[];
}
export type TextWorkerReply = ({ id: number } & TextBatch) | { id: number; error: string };

function workerReader(file: string, execArgv: string[]): TextReader {
  const worker = new Worker(file, { execArgv, stdout: false, stderr: false });
  let nextId = 1;
  const pending = new Map<number, { resolve: (b: TextBatch) => void; reject: (e: Error) => void; files: readonly TextReadRequest[] }>();
  const order: Promise<TextBatch>[] = [];
  let broken: Error | undefined;
  /** A worker that fails: what it still owed is read here (same results, this thread). */
  let fallback: TokenInterner | undefined;
  const failAll = (why: Error) => {
    broken ??= why;
    fallback ??= new TokenInterner();
    for (const [id, p] of [...pending].sort((a, b) => a[0] - b[0])) {
      pending.delete(id);
      try {
        p.resolve(readTextBatch(fallback, p.files));
      } catch (e) {
        p.reject(e as Error);
      }
    }
  };
  worker.on('message', (m: TextWorkerReply) => {
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if ('error' in m) p.reject(new Error(m.error));
    else p.resolve({ results: m.results, docs: m.docs });
  });
  worker.on('error', (e) => failAll(e));
  worker.on('exit', (code) => failAll(new Error(`text worker exited with code ${code}`)));
  return {
    request(files) {
      const id = nextId++;
      order.push(
        new Promise<TextBatch>((resolve, reject) => {
          if (broken) {
            try {
              resolve(readTextBatch((fallback ??= new TokenInterner()), files));
            } catch (e) {
              reject(e as Error);
            }
            return;
          }
          pending.set(id, { resolve, reject, files });
          worker.postMessage({ id, files } satisfies TextWorkerRequest);
        }),
      );
    },
    next: () => order.shift() ?? Promise.resolve({ results: [], docs: new Uint8Array(0) }),
    async close() {
      broken ??= new Error('closed');
      // Batches asked ahead and never taken (the refresh stopped) are dropped, not read here.
      for (const p of pending.values()) p.resolve({ results: [], docs: new Uint8Array(0) });
      pending.clear();
      order.length = 0;
      await worker.terminate();
    },
  };
}
