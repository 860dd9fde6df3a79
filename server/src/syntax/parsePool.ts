/**
 * A pool of parse worker threads. `parseFiles` splits the requests into batches and hands each
 * batch to the next idle worker, so large and small files even out across cores; results come
 * back in request order.
 *
 * Where the worker code comes from:
 * - bundled engine (dist/): `parseWorker.js` next to the running bundle;
 * - source under tsx (tests, `npm run bench`): `parseWorker.ts` started with tsx's CommonJS hook
 *   (`execArgv: ['--require', 'tsx/cjs']`), so the worker runs TypeScript like its parent;
 * - neither available, or `workers: 0`: files are parsed in the calling thread (same results).
 * A worker that dies is replaced and its batch retried once; a batch that fails twice yields
 * per-file INTERNAL errors instead of a rejected promise.
 */
import * as os from 'node:os';
import { Worker } from 'node:worker_threads';
import { PARSE_BATCH_FILES } from '../core/limits';
import { log } from '../core/log';
import { workerEntry as sharedWorkerEntry } from '../core/workerEntry';
import { parseBatch } from './parseBatch';
import { unsupported } from './parseFile';
import type { FileSyntax, ParseRequest } from './types';

export interface WorkerRequest {
  id: number;
  files: ParseRequest[];
}
export type WorkerReply = { id: number; results: FileSyntax[] } | { id: number; error: string };

export interface ParsePoolOptions {
  /** Worker threads; default: the available cores (at most 8). 0 parses in the calling thread. */
  workers?: number;
  /** Files per message. */
  batchFiles?: number;
}

interface Job {
  id: number;
  files: ParseRequest[];
  attempts: number;
  resolve: (r: FileSyntax[]) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

/** Default worker count: every available core, capped. */
export function defaultParseWorkers(): number {
  const n = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.max(1, Math.min(8, n));
}

/** How the worker script is started from here; undefined when only in-thread parsing is possible. */
export function workerEntry(): { file: string; execArgv: string[] } | undefined {
  return sharedWorkerEntry(__dirname, __filename, 'parseWorker');
}

export class ParsePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private disposed = false;
  private readonly size: number;
  private readonly batchFiles: number;
  private readonly entry: { file: string; execArgv: string[] } | undefined;

  constructor(options: ParsePoolOptions = {}) {
    this.size = options.workers ?? defaultParseWorkers();
    this.batchFiles = Math.max(1, options.batchFiles ?? PARSE_BATCH_FILES);
    this.entry = this.size > 0 ? workerEntry() : undefined;
    if (this.size > 0 && !this.entry) log.warn('parse workers unavailable; parsing in the calling thread');
  }

  /** Number of worker threads this pool runs (0 = in-thread). */
  get workerCount(): number {
    return this.entry ? this.size : 0;
  }

  /** Parses the files; the answer has one FileSyntax per request, in request order. */
  async parseFiles(files: ParseRequest[]): Promise<FileSyntax[]> {
    if (this.disposed) throw new Error('ParsePool is disposed');
    if (files.length === 0) return [];
    if (!this.entry) return parseBatch(files);
    const batches: ParseRequest[][] = [];
    for (let i = 0; i < files.length; i += this.batchFiles) batches.push(files.slice(i, i + this.batchFiles));
    const parts = await Promise.all(batches.map((b) => new Promise<FileSyntax[]>((resolve) => this.enqueue({ id: this.nextId++, files: b, attempts: 0, resolve }))));
    return parts.flat();
  }

  /** Terminates the workers. Pending batches resolve with errors. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const job of this.queue.splice(0)) job.resolve(errorResults(job.files, 'the parse pool was disposed'));
    const slots = this.slots.splice(0);
    for (const s of slots) if (s.job) s.job.resolve(errorResults(s.job.files, 'the parse pool was disposed'));
    await Promise.all(slots.map((s) => s.worker.terminate()));
  }

  private enqueue(job: Job): void {
    this.queue.push(job);
    this.pump();
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => !s.job);
      if (!slot && this.slots.length < this.size) slot = this.spawn();
      if (!slot) return;
      const job = this.queue.shift();
      if (!job) return;
      slot.job = job;
      slot.worker.ref();
      slot.worker.postMessage({ id: job.id, files: job.files } satisfies WorkerRequest);
    }
  }

  private spawn(): Slot {
    const entry = this.entry;
    if (!entry) throw new Error('no worker entry');
    const worker = new Worker(entry.file, { execArgv: entry.execArgv, stdout: false, stderr: false });
    const slot: Slot = { worker, job: undefined };
    worker.on('message', (reply: WorkerReply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      slot.job = undefined;
      worker.unref();
      if ('results' in reply) job.resolve(reply.results);
      else this.retry(job, reply.error);
      this.pump();
    });
    const onDeath = (why: string): void => {
      const i = this.slots.indexOf(slot);
      if (i >= 0) this.slots.splice(i, 1);
      const job = slot.job;
      slot.job = undefined;
      if (job) this.retry(job, why);
      if (!this.disposed) this.pump();
    };
    worker.on('error', (e) => onDeath(`parse worker failed: ${e.message}`));
    worker.on('exit', (code) => {
      if (!this.disposed) onDeath(`parse worker exited with code ${code}`);
    });
    this.slots.push(slot);
    return slot;
  }

  private retry(job: Job, why: string): void {
    if (this.disposed) {
      job.resolve(errorResults(job.files, why));
      return;
    }
    job.attempts++;
    log.warn('parse batch failed', { why, attempt: job.attempts, files: job.files.length });
    if (job.attempts >= 2) job.resolve(errorResults(job.files, why));
    else this.queue.unshift(job);
  }
}

function errorResults(files: ParseRequest[], message: string): FileSyntax[] {
  return files.map((f) => ({ ...unsupported(f.path, f.language, ''), error: { code: 'INTERNAL', message } }));
}

/** One-shot convenience: parse with a temporary pool and dispose it. */
export async function parseFiles(files: ParseRequest[], options?: ParsePoolOptions): Promise<FileSyntax[]> {
  const pool = new ParsePool(options);
  try {
    return await pool.parseFiles(files);
  } finally {
    await pool.dispose();
  }
}
