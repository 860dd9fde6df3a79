/**
 * Entry point of the walk worker (bundled as dist/discoverWorker.js): one walk per thread, asked
 * in `workerData` (the known paths may follow in a message), answered with the packed result (see
 * `startWalk`).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { discoverPacked, type DiscoverRequest, type KnownMessage } from './discover';

const port = parentPort;
if (port) {
  const known = new Promise<KnownMessage>((resolve) => port.once('message', (m: KnownMessage) => resolve(m)));
  discoverPacked(workerData as DiscoverRequest, () => known).then(
    (out) => port.postMessage(out, [out.sizes.buffer as ArrayBuffer, out.mtimes.buffer as ArrayBuffer]),
    (e: unknown) => port.postMessage({ error: (e as Error).message ?? String(e) }),
  );
}
