/**
 * Entry point of the text worker (bundled as dist/textWorker.js): reads, hashes and tokenises the
 * batches one refresh asks for, in order, with one interner for the whole refresh (see
 * `textReader`). The documents of a batch travel as one transferred buffer.
 */
import { parentPort } from 'node:worker_threads';
import { readTextBatch, type TextWorkerReply, type TextWorkerRequest } from './textReader';
import { TokenInterner } from './tokens';

const port = parentPort;
if (port) {
  const interner = new TokenInterner();
  port.on('message', (m: TextWorkerRequest) => {
    try {
      const batch = readTextBatch(interner, m.files);
      // The documents are a view of a larger buffer: send exactly their bytes.
      const docs = batch.docs.byteLength === batch.docs.buffer.byteLength ? batch.docs : batch.docs.slice();
      port.postMessage({ id: m.id, results: batch.results, docs } satisfies TextWorkerReply, [docs.buffer as ArrayBuffer]);
    } catch (e) {
      port.postMessage({ id: m.id, error: (e as Error).message ?? String(e) } satisfies TextWorkerReply);
    }
  });
}
