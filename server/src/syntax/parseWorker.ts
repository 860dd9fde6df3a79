/**
 * Entry point of a parse worker thread (bundled as dist/parseWorker.js). Receives batches of
 * ParseRequests, answers with FileSyntax lists. Each worker owns its own tree-sitter WASM
 * instance; trees are deleted after each file by the parse functions.
 */
import { parentPort } from 'node:worker_threads';
import { parseBatch } from './parseBatch';
import type { WorkerReply, WorkerRequest } from './parsePool';

const port = parentPort;
if (port) {
  port.on('message', (msg: WorkerRequest) => {
    parseBatch(msg.files).then(
      (results) => port.postMessage({ id: msg.id, results } satisfies WorkerReply),
      (e: unknown) => port.postMessage({ id: msg.id, error: (e as Error).message ?? String(e) } satisfies WorkerReply),
    );
  });
}
