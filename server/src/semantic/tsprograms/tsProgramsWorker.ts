/**
 * Entry point of the TypeScript programs worker thread (bundled as dist/tsProgramsWorker.js): it
 * owns the workspace's TypeScript language services (tsPrograms.ts), answers questions one at a
 * time (tsProgramsSearch.ts), and between questions builds the programs not loaded yet, so the
 * engine's event loop never waits for the compiler (building and searching a program is
 * synchronous TypeScript code that runs for seconds).
 *
 * Protocol (tsProgramsProvider.ts is the other side):
 * - workerData: `{ root, maxLoaded, heapBudgetMb, cancel, pending }`; `cancel` is a shared ring of
 *   request ids (`cancel[id % ring] === id`: that question was given up), `pending[0]` the number
 *   of questions posted and not answered (the background build stops while it is above 0).
 * - in: `{ type: 'ask', id, req: SearchRequest }`; out: `{ id, reply: SearchReply, loaded, heapMb }`
 *   or `{ id, error }`.
 * - in: `{ type: 'warm', configs }`: the config list to build in the background.
 * Memory: at most `maxLoaded` programs, fewer when the isolate's heap passes `heapBudgetMb` (the
 * least recently used are disposed); the thread's hard heap limit is set by the provider.
 */
import { getHeapStatistics } from 'node:v8';
import { parentPort, workerData } from 'node:worker_threads';
import { log } from '../../core/log';
import { loadTypeScript, TsPrograms } from './tsPrograms';
import { CANCEL_RING, searchPrograms, type SearchRequest, type WorkerIn, type WorkerInit, type WorkerOut } from './tsProgramsSearch';

const port = parentPort;
if (port) {
  const init = workerData as WorkerInit;
  const ts = loadTypeScript();
  const cancel = new Int32Array(init.cancel);
  const pending = new Int32Array(init.pending);
  const programs = ts ? new TsPrograms(ts, init.root, init.maxLoaded) : undefined;
  const queue: { id: number; req: SearchRequest }[] = [];
  const failed = new Set<string>();
  let running = false;
  let configs: { paths: string[]; key: string } | undefined;
  /** Programs the last question left out: built first. */
  let first: string[] = [];
  let warmTimer: NodeJS.Immediate | undefined;

  const heapMb = () => Math.round(getHeapStatistics().used_heap_size / 1048576);
  /** Disposes least recently used programs while the heap is above the budget (keeps one). */
  const trim = () => {
    while (programs && heapMb() > init.heapBudgetMb && programs.loadedIds().length > 1) programs.evictOldest();
  };

  const pump = async () => {
    if (running) return;
    if (!programs || !ts) {
      for (let job = queue.shift(); job; job = queue.shift()) port.postMessage({ id: job.id, error: 'the typescript package could not be loaded in the worker thread' } satisfies WorkerOut);
      return;
    }
    running = true;
    try {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const { id, req } = job;
        // The compiler stops half the margin before the deadline, so the partial answer (the programs
        // searched by then) reaches the engine while it still waits for it.
        const cancelled = () => Atomics.load(cancel, id % CANCEL_RING) === id || Date.now() > req.deadline - req.marginMs / 2;
        configs = req.configs;
        programs.begin(cancelled);
        try {
          const reply = await searchPrograms(ts, programs, req, cancelled);
          first = reply.coverage.skipped.map((s) => s.id);
          trim();
          port.postMessage({ id, reply, loaded: programs.loadedIds(), heapMb: heapMb() } satisfies WorkerOut);
        } catch (e) {
          port.postMessage({ id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) } satisfies WorkerOut);
        }
      }
    } finally {
      running = false;
    }
    warm();
  };

  /** Builds one program not loaded yet, then schedules the next, while no question waits. */
  const warm = () => {
    if (warmTimer || !programs || !configs) return;
    warmTimer = setImmediate(() => {
      warmTimer = undefined;
      if (running || queue.length > 0 || Atomics.load(pending, 0) > 0 || !configs) return;
      if (heapMb() > init.heapBudgetMb) return;
      const parsed = programs.configs(configs.paths, configs.key).configs.filter((c) => !c.error && c.roots.size > 0);
      const loaded = new Set(programs.loadedIds());
      const order = [...first.map((id) => parsed.find((c) => c.id === id)), ...parsed];
      // Up to maxLoaded programs are kept loaded; past it the others are built once each only to
      // learn their file sets (a question then skips those that do not compile the target's file).
      const full = loaded.size >= init.maxLoaded;
      const next = order.find((c) => c && !loaded.has(c.id) && !failed.has(c.id) && !(full && programs.fileSetKnown(c)));
      if (!next) return;
      programs.begin(() => Atomics.load(pending, 0) > 0);
      try {
        if (full) programs.probe(next);
        else programs.load(next);
      } catch (e) {
        if (Atomics.load(pending, 0) === 0) {
          failed.add(next.id);
          log.warn('TypeScript program failed to load', { program: next.id, error: e instanceof Error ? e.message : String(e) });
        }
      }
      warm();
    });
  };

  port.on('message', (m: WorkerIn) => {
    if (m.type === 'ask') {
      queue.push({ id: m.id, req: m.req });
      void pump();
    } else if (m.type === 'warm') {
      configs = m.configs;
      warm();
    }
  });
}
