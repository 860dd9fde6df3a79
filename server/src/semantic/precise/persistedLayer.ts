/**
 * The persisted layer: precise facts the engine resolves in the background, written under
 * `<index-root>/precise/` as one SCIP file per C# project (the same documents and keys as
 * `sextant scip export`), so the next engine on this index — another window, a CLI agent, the next
 * morning — answers from them at once.
 *
 * The pass runs when no semantic question came for `PRECISE_PERSIST_IDLE_MS`, project by project in
 * the given order (most depended-on first). When the engine's own Roslyn host is up (it answered or
 * prewarmed), the pass asks it, between questions, as background work (a question cancels the
 * request, which is asked again after `PRECISE_PERSIST_LIVE_QUIET_MS` of quiet): no second compile of
 * what the host already holds. Otherwise it runs in a Roslyn host of its own with a memory cap
 * (`SEXTANT_PRECISE_MEMORY_MB`) at a low CPU priority (`SEXTANT_PRECISE_NICE`), which a question
 * stops (the rest waits for the next quiet time). A project whose file already holds, or whose
 * files imported facts cover (factsCoverage.ts), is skipped. After a pass that wrote some, the
 * folder's units catalog (unitsCatalog.ts) is written again, so the next start reads one file.
 * `SEXTANT_PRECISE_PERSIST=0` turns it off; `SEXTANT_PRECISE_IDLE_MS` sets the quiet time.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRECISE_PERSIST_HOST_MEMORY_MB, PRECISE_PERSIST_IDLE_MS, PRECISE_PERSIST_LIVE_QUIET_MS, PRECISE_PERSIST_NICE } from '../../core/limits';
import { log } from '../../core/log';
import { timeSlice } from '../../core/timeSlice';
import type { OccurrencesResult, ProjectKey } from '../roslyn/hostProtocol';
import { projectKey } from '../roslyn/projectDescriptions';
import { csharpDocuments, keyedDocuments, type CSharpExportInput } from './csharpExport';
import type { PreciseFacts } from './preciseFacts';
import { writeScipIndex } from './scipCatalog';
import type { ScipDocument } from './scipCodec';

export interface PersistedLayerOptions {
  facts: PreciseFacts;
  /** The export input for the current index and project model (undefined: not ready). */
  input: () => Omit<CSharpExportInput, 'memoryCapMb' | 'nice'> | undefined;
  /** C# project ids, most depended-on first. */
  order: () => string[];
  /** Epoch ms of the last semantic question. */
  lastQuestion: () => number;
  idleMs?: number;
  version: string;
  /** The engine's own Roslyn host, asked instead of a second one while it is up. */
  live?: LiveOccurrences;
  /** Projects whose files recorded facts (imported ones too) cover whole: not resolved again. */
  covered?: (project: string) => boolean;
}

/** The engine's Roslyn host as the pass uses it (RoslynProvider). */
export interface LiveOccurrences {
  /** Whether the host process is up now (started by a question or the background start). */
  up(): boolean;
  /** One compilation's occurrences between questions; undefined when `signal` aborted. */
  occurrences(key: ProjectKey, signal: AbortSignal, quietMs: number): Promise<{ ok: true; result: OccurrencesResult } | { ok: false; reason: string } | undefined>;
}

/** The unit file of a project. */
export function unitFile(dir: string, project: string): string {
  return path.join(dir, `${crypto.createHash('sha1').update(project).digest('hex').slice(0, 16)}.scip`);
}

export class PersistedLayer {
  private running: Promise<number> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly life = new AbortController();
  /** Projects persisted by this engine, and the total. */
  readonly stats = { projects: 0, documents: 0, passes: 0, byLiveHost: 0 };

  constructor(private readonly o: PersistedLayerOptions) {}

  /** Quiet time before a pass: the option, else SEXTANT_PRECISE_IDLE_MS, else PRECISE_PERSIST_IDLE_MS. */
  private idleMs(): number {
    const env = Number(process.env.SEXTANT_PRECISE_IDLE_MS);
    return this.o.idleMs ?? (process.env.SEXTANT_PRECISE_IDLE_MS && Number.isFinite(env) && env >= 0 ? env : PRECISE_PERSIST_IDLE_MS);
  }

  /** Checks for quiet time every few seconds and runs a pass then. */
  start(): void {
    const tick = () => {
      if (this.life.signal.aborted) return;
      if (!this.running && Date.now() - this.o.lastQuestion() >= this.idleMs()) void this.runOnce();
      this.timer = setTimeout(tick, Math.max(200, Math.min(5_000, this.idleMs()))).unref();
    };
    this.timer = setTimeout(tick, 0).unref();
  }

  /** One pass over the projects not persisted yet; resolves with the number persisted. */
  runOnce(): Promise<number> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  async dispose(): Promise<void> {
    this.life.abort(new Error('engine closing'));
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => undefined);
  }

  private async pass(): Promise<number> {
    const dir = this.o.facts.persistedDir();
    const input = this.o.input();
    if (!dir || !input) return 0;
    await this.o.facts.ready;
    // Checking what holds reads every recorded document's key: in slices (3,000 projects held the
    // engine thread for over a minute at a pass start), never throwing (a unit file removed meanwhile).
    const slice = timeSlice();
    const todo: string[] = [];
    for (const p of this.o.order()) {
      await slice();
      if (this.life.signal.aborted) return 0;
      let held = false;
      try {
        held = this.holds(unitFile(dir, p)) || (this.o.covered?.(p) ?? false);
      } catch {
        held = false;
      }
      if (!held) todo.push(p);
    }
    if (todo.length === 0) return 0;
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.stats.passes++;
    if (this.o.live?.up() && input.describer) return this.passOnLiveHost(dir, input, todo, this.o.live);
    // A question stops the pass (the host it started is stopped with it).
    const stop = new AbortController();
    const started = this.o.lastQuestion();
    const watch = setInterval(() => {
      if (this.o.lastQuestion() !== started || this.life.signal.aborted) stop.abort(new Error('a question came'));
    }, 200).unref();
    let done = 0;
    let current: { project: string; docs: ScipDocument[] } | undefined;
    const flush = async () => {
      if (!current) return;
      await this.write(dir, input.root, current.project, current.docs);
      done++;
      current = undefined;
    };
    const envMb = Number(process.env.SEXTANT_PRECISE_MEMORY_MB);
    const envNice = Number(process.env.SEXTANT_PRECISE_NICE);
    try {
      for await (const d of csharpDocuments({ ...input, memoryCapMb: envMb > 0 ? envMb : PRECISE_PERSIST_HOST_MEMORY_MB, nice: Number.isFinite(envNice) && process.env.SEXTANT_PRECISE_NICE ? envNice : PRECISE_PERSIST_NICE }, todo, stop.signal)) {
        const project = d.key!.project.replace(/\|[^|]*$/, '');
        if (current && current.project !== project) await flush();
        current ??= { project, docs: [] };
        current.docs.push(d);
      }
      if (!stop.signal.aborted) await flush();
    } catch (e) {
      if (!stop.signal.aborted) log.warn('persisted layer: background pass failed', { error: e instanceof Error ? e.message : String(e) });
    } finally {
      clearInterval(watch);
    }
    if (done) {
      log.info(`persisted layer: ${done} project(s) persisted (${this.stats.documents} documents so far)`);
      void this.o.facts.saveUnitsCatalog();
    }
    return done;
  }

  /** Writes one project's unit file and reads it into the store. */
  private async write(dir: string, root: string, project: string, docs: ScipDocument[]): Promise<void> {
    const file = unitFile(dir, project);
    await writeScipIndex(file, { version: 0, toolInfo: { name: 'sextant', version: this.o.version, arguments: ['persisted', project] }, projectRoot: `file://${root}`, textDocumentEncoding: 1 }, docs);
    await this.o.facts.add(file, 'persisted');
    this.stats.projects++;
    this.stats.documents += docs.length;
  }

  /**
   * The pass on the engine's own host: each compilation of each project asked between questions
   * (the host's background request, cancelled by a question and asked again after quiet time);
   * a project is written once all its compilations answered in full.
   */
  private async passOnLiveHost(dir: string, input: NonNullable<ReturnType<PersistedLayerOptions['input']>>, todo: string[], live: LiveOccurrences): Promise<number> {
    const describer = input.describer!;
    const quietMs = Math.min(this.idleMs(), PRECISE_PERSIST_LIVE_QUIET_MS);
    let done = 0;
    for (const project of todo) {
      if (this.life.signal.aborted || !live.up()) break;
      const n = describer.node(project);
      if (!n || n.kind !== 'csharp') continue;
      const docs: ScipDocument[] = [];
      let complete = true;
      for (const t of n.targetFrameworks.length ? n.targetFrameworks : [undefined]) {
        const key = projectKey(project, t);
        const d = describer.describe(key);
        if (!d.ok) {
          complete = false;
          break;
        }
        const r = await live.occurrences(key, this.life.signal, quietMs);
        if (!r) {
          if (done) void this.o.facts.saveUnitsCatalog();
          return done;
        }
        if (!r.ok || r.result.notDone.length > 0) {
          log.info(`persisted layer: ${key} not persisted (${r.ok ? `${r.result.notDone.length} document(s) not done` : r.reason})`);
          complete = false;
          break;
        }
        docs.push(...keyedDocuments(r.result, key, d.description, input));
      }
      if (!complete || this.life.signal.aborted) continue;
      await this.write(dir, input.root, project, docs);
      this.stats.byLiveHost++;
      done++;
    }
    if (done) {
      log.info(`persisted layer: ${done} project(s) persisted by the engine's host (${this.stats.documents} documents so far)`);
      void this.o.facts.saveUnitsCatalog();
    }
    return done;
  }

  /** True when the unit file exists and most of its documents' facts hold. */
  private holds(file: string): boolean {
    const store = this.o.facts.store;
    const unit = store.unit(file);
    if (!unit) return false;
    const docs = store.documentsOf(unit);
    let ok = 0;
    for (const e of docs) if (this.o.facts.answers.currentAll(e.path).includes(e)) ok++;
    return docs.length > 0 && ok / docs.length >= 0.9;
  }
}
