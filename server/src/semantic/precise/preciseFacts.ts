/**
 * The precise facts of one engine: the occurrence store filled from the persisted layer
 * (`<index-root>/precise/*.scip`) and from imported SCIP indexes (`--scip PATH…`, env
 * `SEXTANT_SCIP`, and `<workspace>/.sextant/scip/` by default), and the answers over it.
 *
 * Loading streams each file in the background; until a file is read its documents are simply
 * not in the store (answered live). The persisted layer's units are taken from its units catalog
 * (unitsCatalog.ts) where their files are unchanged. A file that does not decode is refused with the reason
 * (`refused()`), and nothing else is lost.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { log } from '../../core/log';
import { backgroundSlice, timeSlice } from '../../core/timeSlice';
import { OccurrenceStore, type PreciseUnit, type Provenance } from './occurrenceStore';
import { parseCatalogRegion, type ScipCatalog } from './scipCatalog';
import { readUnitsCatalog, sameStamp, stampOf, writeUnitsCatalog, type UnitsCatalogEntry } from './unitsCatalog';
import { PreciseAnswers, type PreciseEnv } from './preciseAnswers';

/** The folder of imported indexes looked in by default, relative to the workspace root. */
export const DEFAULT_SCIP_FOLDER = '.sextant/scip';
/** The persisted layer's folder inside the index root. */
export const PERSISTED_FOLDER = 'precise';

export interface PreciseFactsOptions {
  workspaceRoot: string;
  /** '' = in memory: no persisted layer. */
  indexRoot: string;
  /** Index files or folders of them to import (relative to the workspace root, or absolute). */
  scip: readonly string[];
  env: PreciseEnv;
  /** Loading's time slice (ms; default NAV_WORK_SLICE_MS). */
  loadSliceMs?: number;
}

export class PreciseFacts {
  readonly store = new OccurrenceStore();
  readonly answers: PreciseAnswers;
  /** Resolves once every file found at start has been read (or refused). */
  readonly ready: Promise<void>;
  private readonly refusedFiles: { file: string; reason: string }[] = [];

  constructor(private readonly o: PreciseFactsOptions) {
    this.answers = new PreciseAnswers(this.store, o.env);
    this.ready = this.loadAll().catch((e: unknown) => log.warn('precise facts: loading failed', { error: String(e) }));
  }

  private hurried = false;

  /**
   * A question waits for the facts: the units still to be taken from the units catalog are taken
   * at once instead of in time slices between other work (at start the engine's other work made
   * 1.9 s of loading take 23 s at load ~18, while the question went to the cold host).
   */
  hurry(): void {
    this.hurried = true;
  }

  /** Index files that were refused, with the reason. */
  refused(): readonly { file: string; reason: string }[] {
    return this.refusedFiles;
  }

  units(): PreciseUnit[] {
    return this.store.listUnits();
  }

  /** The persisted layer's folder ('' when the index is in memory). */
  persistedDir(): string {
    return this.o.indexRoot ? path.join(this.o.indexRoot, PERSISTED_FOLDER) : '';
  }

  /** Reads (or re-reads) one index file into the store. */
  async add(file: string, provenance: Provenance): Promise<boolean> {
    const r = await this.store.addUnit(file, provenance, this.o.workspaceRoot);
    if (!r.ok) {
      this.refusedFiles.push({ file: r.file, reason: r.reason });
      log.warn(`precise facts: ${r.file} refused: ${r.reason}`);
      return false;
    }
    this.answers.envGeneration++;
    log.debug(`precise facts: ${r.unit.file}: ${r.unit.documents} documents (${r.unit.producer || provenance})`);
    // A unit taken from its catalog is checked against its file in the background; dropped whole when it does not match.
    void r.unit.verified?.then((problem) => {
      if (problem === undefined) return;
      this.refusedFiles.push({ file: r.unit.file, reason: problem });
      this.answers.envGeneration++;
      log.warn(`precise facts: ${r.unit.file} refused: ${problem}`);
    });
    return true;
  }

  /**
   * The persisted layer's units: each one whose file is as the units catalog lists it is taken from
   * there (no file opened, not checked again), the others from their files; in time slices. When
   * some were not listed (or listed ones are gone), the units catalog is written again once their
   * checks are done.
   */
  private async loadPersisted(dir: string): Promise<void> {
    const listed = readUnitsCatalog(dir);
    const files = scipFiles(dir);
    const slice = timeSlice(this.o.loadSliceMs);
    let fromFiles = 0;
    for (const f of files) {
      // a question waiting for the facts: the rest is read at once (CPU only: the regions are in memory)
      if (!this.hurried) await slice();
      const c = listed.get(path.basename(f));
      const stamp = c ? stampOf(f) : undefined;
      let catalog: ScipCatalog | undefined;
      if (c && stamp && sameStamp(c, stamp)) {
        try {
          catalog = parseCatalogRegion(c.region);
        } catch {
          catalog = undefined;
        }
      }
      if (catalog && this.store.addChecked(f, 'persisted', this.o.workspaceRoot, catalog).ok) continue;
      fromFiles++;
      await this.add(f, 'persisted');
    }
    this.listed = listed;
    if (fromFiles > 0 || listed.size !== files.length) void this.saveUnitsCatalog();
  }

  /** The units catalog read at start (the regions of units whose files have not changed are taken from it). */
  private listed: ReadonlyMap<string, UnitsCatalogEntry> = new Map();
  private saving: Promise<number> | undefined;

  /**
   * Writes the persisted layer's units catalog (unitsCatalog.ts) for the units in the store now,
   * after their checks against their files: the next start takes them from one file. Called after a
   * start that read units from their files and after a background pass wrote some. One at a time.
   */
  saveUnitsCatalog(): Promise<number> {
    const dir = this.persistedDir();
    if (!dir) return Promise.resolve(0);
    const run = async (): Promise<number> => {
      const units = this.store.listUnits().filter((u) => u.provenance === 'persisted');
      await Promise.all(units.map((u) => u.verified));
      const held = scipFiles(dir).filter((f) => this.store.unit(f)?.provenance === 'persisted');
      const n = await writeUnitsCatalog(dir, held, this.listed);
      log.debug(`precise facts: units catalog of ${dir}: ${n} unit(s)`);
      return n;
    };
    const next = (this.saving ?? Promise.resolve(0)).catch(() => 0).then(run);
    this.saving = next;
    return next;
  }

  private async loadAll(): Promise<void> {
    const t0 = Date.now();
    await this.loadFiles();
    const units = this.store.listUnits();
    if (units.length) log.info(`precise facts: ${units.length} file(s), ${this.store.size} documents read in ${Date.now() - t0} ms`);
    if (units.length && !this.closed) void this.checkAll().catch((e: unknown) => log.warn('precise facts: checking failed', { error: String(e) }));
  }

  private closed = false;

  /** Stops the background check and closes the store's files. */
  dispose(): void {
    this.closed = true;
    this.store.close();
  }

  /**
   * After loading, every recorded document's facts are checked once in the background (its key
   * against the workspace now: the verdicts are kept per content and index version), so the first
   * questions only read occurrences (a first question over 1,233 candidates spent most of its
   * 2.4 s CPU checking them). Yields to questions.
   */
  private async checkAll(): Promise<void> {
    const t0 = Date.now();
    const slice = backgroundSlice();
    const generation = this.store.generation;
    let n = 0;
    for (const p of [...this.store.paths()]) {
      await slice();
      if (this.closed || this.store.generation !== generation) return log.debug(`precise facts: checking stopped after ${n} document(s) (${this.closed ? 'closed' : 'the units changed'})`);
      n += this.answers.currentAll(p).length;
    }
    log.debug(`precise facts: ${n} document(s) whose facts hold, checked in ${Date.now() - t0} ms`);
  }

  private async loadFiles(): Promise<void> {
    const dir = this.persistedDir();
    if (dir) await this.loadPersisted(dir);
    const wanted = this.o.scip.length ? this.o.scip : [DEFAULT_SCIP_FOLDER];
    for (const w of wanted) {
      const abs = path.resolve(this.o.workspaceRoot, w);
      if (!fs.existsSync(abs)) {
        if (this.o.scip.length) this.refusedFiles.push({ file: abs, reason: 'does not exist' });
        continue;
      }
      for (const f of fs.statSync(abs).isDirectory() ? scipFiles(abs) : [abs]) await this.add(f, 'scip');
    }
  }
}

/** The `*.scip` files of a folder (not recursive), sorted. */
export function scipFiles(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isFile() && d.name.endsWith('.scip'))
      .map((d) => path.join(dir, d.name))
      .sort();
  } catch {
    return [];
  }
}
