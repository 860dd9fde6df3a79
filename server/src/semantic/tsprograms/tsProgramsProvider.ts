/**
 * The headless TS/JS provider of the engine's own: TypeScript language services over every
 * program that can see the target (semantic/tsprograms/tsPrograms.ts), answers merged
 * (tsProgramsSearch.ts says which programs a question searches and how coverage is reported).
 *
 * The programs live in a worker thread (tsProgramsWorker.ts): building and searching a program is
 * synchronous compiler work that runs for seconds on a large package, and on the engine's thread
 * it would hold every other tool call (and the deadline timers) until it ended. This side reads
 * the name at the target and the files mentioning it from the text index, posts the question with
 * its deadline, and gives the question up through a shared cancellation slot when the caller
 * aborts. A reply that does not arrive by the deadline (a program build cannot be interrupted)
 * answers `loading`; the worker goes on building, so a later question finds the program loaded.
 * Between questions the worker builds the programs not loaded yet (the ones the last question
 * left out first), bounded by `TS_PROGRAMS_MAX_LOADED` and a heap budget; the thread's heap has a
 * hard limit, and a worker that dies (out of memory) is replaced on the next question, which says so.
 * Without a worker entry (an unusual bundle) the same search runs in the calling thread.
 *
 * Registered in the registry's `lsp` slot before typescript-language-server, which stays the
 * fallback (documentSymbols / workspaceSymbols, or no `typescript` package).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import {
  TS_PROGRAMS_DEADLINE_MARGIN_MS,
  TS_PROGRAMS_HEAP_BUDGET_MB,
  TS_PROGRAMS_MAX_LOADED,
  TS_PROGRAMS_MAX_PER_QUESTION,
  TS_PROGRAMS_REPLY_GRACE_MS,
  TS_PROGRAMS_WORKER_HEAP_MB,
} from '../../core/limits';
import { log } from '../../core/log';
import { workerEntry } from '../../core/workerEntry';
import type { CallContext, OpArgs, OpResult, ProviderAvailability, ProviderOutcome, SemanticOp, SemanticProvider } from '../provider';
import { loadTypeScript, TsPrograms, type TypeScriptModule } from './tsPrograms';
import { CANCEL_RING, nameAt, searchPrograms, USE_OPS, type Coverage, type SearchReply, type SearchRequest, type WorkerIn, type WorkerInit, type WorkerOut } from './tsProgramsSearch';

export { TS_PROGRAMS_PROVIDER_ID } from './tsProgramsSearch';

const LANGUAGES = new Set(['typescript', 'typescriptreact', 'javascript', 'javascriptreact']);
const OPS: ReadonlySet<SemanticOp> = new Set<SemanticOp>([
  'definition',
  'references',
  'implementation',
  'prepareCallHierarchy',
  'incomingCalls',
  'outgoingCalls',
  'prepareTypeHierarchy',
  'supertypes',
  'subtypes',
]);

export interface TsProgramsProviderOptions {
  /** Canonical absolute workspace root. */
  root: string;
  /**
   * The workspace's tsconfig/jsconfig files (workspace-relative) and a key that changes when they
   * or the file set may have (the index version); undefined while the project model is not built.
   */
  configs: () => { paths: string[]; key: string } | undefined;
  /** Workspace files whose text mentions `name` as a whole token; undefined when unknown (all programs are candidates). */
  mentions: (name: string) => ReadonlySet<string> | undefined;
  maxLoaded?: number;
  maxPerQuestion?: number;
  /** Test hook: the `typescript` module (default: the engine's install). */
  typescript?: TypeScriptModule | null;
  /**
   * 'inline' runs the programs in the calling thread (default: a worker thread when its script is
   * there; SEXTANT_TS_PROGRAMS_THREAD=inline does the same, for comparing in benches).
   */
  thread?: 'worker' | 'inline';
  /** Hard heap limit of the worker thread (default `TS_PROGRAMS_WORKER_HEAP_MB`). */
  workerHeapMb?: number;
}

/** How the worker script is started from here; undefined when only the calling thread can run it. */
export function tsWorkerEntry(): { file: string; execArgv: string[] } | undefined {
  return workerEntry(__dirname, __filename, 'tsProgramsWorker');
}

interface Pending {
  resolve: (r: { reply?: SearchReply; error?: string }) => void;
}

/** The worker thread and the questions in flight. */
class ProgramsThread {
  readonly worker: Worker;
  private readonly cancel = new Int32Array(new SharedArrayBuffer(4 * CANCEL_RING));
  private readonly pendingCount = new Int32Array(new SharedArrayBuffer(4));
  private readonly inFlight = new Map<number, Pending>();
  private nextId = 1;
  /** Why the thread stopped, once it has. */
  died: string | undefined;
  loaded: string[] = [];
  heapMb = 0;

  constructor(entry: { file: string; execArgv: string[] }, init: Omit<WorkerInit, 'cancel' | 'pending'>, heapMb: number) {
    this.worker = new Worker(entry.file, {
      execArgv: entry.execArgv,
      workerData: { ...init, cancel: this.cancel.buffer, pending: this.pendingCount.buffer } satisfies WorkerInit,
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      stdout: false,
      stderr: false,
    });
    this.worker.unref();
    this.worker.on('message', (m: WorkerOut) => {
      const p = this.inFlight.get(m.id);
      if (!p) return;
      this.settle(m.id);
      if ('reply' in m) {
        this.loaded = m.loaded;
        this.heapMb = m.heapMb;
        p.resolve({ reply: m.reply });
      } else p.resolve({ error: m.error });
    });
    const onDeath = (why: string) => {
      if (this.died === undefined) log.warn('the TypeScript programs thread stopped; the next question starts another', { why });
      this.died ??= why;
      for (const [id, p] of [...this.inFlight]) {
        this.settle(id);
        p.resolve({ error: `the TypeScript programs thread stopped: ${why}` });
      }
    };
    this.worker.on('error', (e) => onDeath((e as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY' ? `out of memory (heap limit ${heapMb} MiB)` : e.message));
    this.worker.on('exit', (code) => onDeath(`exited with code ${code}`));
  }

  /** Posts a question; resolves with the reply, an error, or `timedOut` past the deadline. */
  ask(req: SearchRequest, signal: AbortSignal): Promise<{ reply?: SearchReply; error?: string; timedOut?: boolean }> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const giveUp = () => {
        Atomics.store(this.cancel, id % CANCEL_RING, id);
        if (this.inFlight.has(id)) {
          this.settle(id);
          resolve({ timedOut: true });
        }
      };
      const done = (r: { reply?: SearchReply; error?: string }) => {
        if (timer) clearTimeout(timer);
        signal.removeEventListener('abort', giveUp);
        resolve(r);
      };
      this.inFlight.set(id, { resolve: done });
      Atomics.add(this.pendingCount, 0, 1);
      this.worker.ref();
      timer = setTimeout(giveUp, Math.max(0, req.deadline - Date.now()) + TS_PROGRAMS_REPLY_GRACE_MS);
      signal.addEventListener('abort', giveUp, { once: true });
      this.worker.postMessage({ type: 'ask', id, req } satisfies WorkerIn);
    });
  }

  /** Hands the config list to the background build. */
  warm(configs: { paths: string[]; key: string }): void {
    this.worker.postMessage({ type: 'warm', configs } satisfies WorkerIn);
  }

  private settle(id: number): void {
    if (!this.inFlight.delete(id)) return;
    Atomics.sub(this.pendingCount, 0, 1);
    if (this.inFlight.size === 0) this.worker.unref();
  }

  async dispose(): Promise<void> {
    this.died ??= 'disposed';
    await this.worker.terminate();
  }
}

export class TsProgramsProvider implements SemanticProvider {
  readonly id = 'typescript';
  readonly precision = 'precise' as const;
  private readonly ts: TypeScriptModule | undefined;
  private readonly entry: { file: string; execArgv: string[] } | undefined;
  private thread: ProgramsThread | undefined;
  /** The calling-thread programs (no worker entry). */
  private inline: TsPrograms | undefined;
  /** What the last question searched (tests, doctor). */
  lastCoverage: Coverage | undefined;

  constructor(private readonly options: TsProgramsProviderOptions) {
    this.ts = options.typescript === null ? undefined : (options.typescript ?? loadTypeScript());
    const inline = (options.thread ?? process.env.SEXTANT_TS_PROGRAMS_THREAD) === 'inline';
    this.entry = inline || options.typescript ? undefined : tsWorkerEntry();
  }

  supports(language: string, op: SemanticOp): boolean {
    return this.ts !== undefined && LANGUAGES.has(language) && OPS.has(op);
  }

  availability(language: string): ProviderAvailability {
    if (!LANGUAGES.has(language)) return { state: 'absent', detail: `no TypeScript service for ${language}`, started: false };
    if (!this.ts) return { state: 'absent', detail: 'the typescript package is not installed', started: false };
    if (!this.options.configs()) return { state: 'loading', detail: 'waiting for the project model', started: false };
    const n = this.loadedPrograms().length;
    const where = this.entry ? `worker thread${this.thread ? `, ${this.thread.heapMb} MiB heap` : ''}` : 'engine thread';
    return { state: 'ready', detail: `TypeScript ${this.ts.version}, ${n} program(s) loaded (${where})`, started: n > 0 };
  }

  /** Ids of the loaded programs, least recently used first (as of the last answer from the worker). */
  loadedPrograms(): string[] {
    return this.thread ? this.thread.loaded : (this.inline?.loadedIds() ?? []);
  }

  /** True when questions run in a worker thread. */
  get usesWorker(): boolean {
    return this.entry !== undefined;
  }

  async request<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>> {
    return (await this.ask(op, language, args, ctx, false)).outcome;
  }

  /**
   * A use question over every candidate program but the nearest config of the target's file (the
   * one an editor's TypeScript service answers from); `others` is how many programs that left.
   */
  async requestOtherPrograms<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext): Promise<{ outcome: ProviderOutcome<OpResult<K>>; others: number; elapsedMs: number }> {
    const t0 = Date.now();
    return { ...(await this.ask(op, language, args, ctx, true)), elapsedMs: Date.now() - t0 };
  }

  private async ask<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext, skipNearest: boolean): Promise<{ outcome: ProviderOutcome<OpResult<K>>; others: number }> {
    const outcome = await this.answer(op, language, args, ctx, skipNearest);
    const c = this.lastCoverage;
    return { outcome, others: c ? c.searched.length + c.skipped.length : 0 };
  }

  private async answer<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext, skipNearest: boolean): Promise<ProviderOutcome<OpResult<K>>> {
    this.lastCoverage = undefined;
    if (!this.supports(language, op)) return { kind: 'unavailable', state: 'unsupported', reason: `the TypeScript service does not serve ${op} for ${language}` };
    const cfg = this.options.configs();
    if (!cfg) return { kind: 'unavailable', state: 'loading', reason: 'the TypeScript programs are chosen from the project model, which is not built yet' };
    const a = args as { path: string; line: number; column: number; external?: boolean; name?: string; includeDeclaration?: boolean };
    if (a.external || path.isAbsolute(a.path)) return { kind: 'ok', value: [] as unknown as OpResult<K> };
    const req: SearchRequest = {
      op,
      args: { path: a.path, line: a.line, column: a.column, ...(a.name !== undefined ? { name: a.name } : {}), ...(a.includeDeclaration !== undefined ? { includeDeclaration: a.includeDeclaration } : {}) },
      configs: cfg,
      mentions: USE_OPS.has(op) ? this.mentionsOf(op, a) : undefined,
      deadline: ctx.deadline,
      marginMs: TS_PROGRAMS_DEADLINE_MARGIN_MS,
      maxPrograms: this.options.maxPerQuestion ?? TS_PROGRAMS_MAX_PER_QUESTION,
      skipNearest,
    };
    if (!this.entry) return this.answerInline<K>(req, ctx);
    const r = await this.ensureThread().ask(req, ctx.signal);
    if (r.timedOut) return { kind: 'unavailable', state: 'loading', reason: 'the TypeScript programs were still being built at the deadline (they go on loading: ask again)' };
    if (!r.reply) {
      log.warn('TypeScript programs thread failed a question', { error: r.error });
      return { kind: 'unavailable', state: 'failed', reason: `the TypeScript service failed: ${(r.error ?? '').split('\n')[0]}` };
    }
    this.lastCoverage = r.reply.coverage;
    return r.reply.outcome as ProviderOutcome<OpResult<K>>;
  }

  private async answerInline<K extends SemanticOp>(req: SearchRequest, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>> {
    this.inline ??= new TsPrograms(this.ts!, this.options.root, this.options.maxLoaded ?? TS_PROGRAMS_MAX_LOADED);
    const cancelled = () => ctx.signal.aborted || Date.now() > ctx.deadline - req.marginMs / 2;
    this.inline.begin(cancelled);
    const r = await searchPrograms(this.ts!, this.inline, req, cancelled);
    this.lastCoverage = r.coverage;
    return r.outcome as ProviderOutcome<OpResult<K>>;
  }

  private ensureThread(): ProgramsThread {
    if (!this.thread || this.thread.died) {
      this.thread = new ProgramsThread(this.entry!, { root: this.options.root, maxLoaded: this.options.maxLoaded ?? TS_PROGRAMS_MAX_LOADED, heapBudgetMb: TS_PROGRAMS_HEAP_BUDGET_MB }, this.options.workerHeapMb ?? TS_PROGRAMS_WORKER_HEAP_MB);
    }
    return this.thread;
  }

  /**
   * Starts building the workspace's programs in the worker thread before any question (the engine
   * host calls this once the project model is built); questions still go first. Returns false when
   * there is nothing to do (no worker, no typescript, no configs).
   */
  prewarm(): boolean {
    const cfg = this.options.configs();
    if (!this.entry || !this.ts || !cfg || cfg.paths.length === 0) return false;
    this.ensureThread().warm(cfg);
    return true;
  }

  /** Files mentioning the name searched (a hierarchy item names itself; else the identifier at the position). */
  private mentionsOf(op: SemanticOp, a: { path: string; line: number; column: number; name?: string }): string[] | undefined {
    let name = op === 'incomingCalls' || op === 'subtypes' ? a.name : undefined;
    if (name === undefined) {
      try {
        name = nameAt(fs.readFileSync(path.join(this.options.root, a.path), 'utf8'), a.line, a.column);
      } catch {
        name = undefined;
      }
    }
    const set = name ? this.options.mentions(name) : undefined;
    return set ? [...set] : undefined;
  }

  async dispose(): Promise<void> {
    const t = this.thread;
    this.thread = undefined;
    if (t) await t.dispose();
    this.inline?.dispose();
    this.inline = undefined;
  }
}
