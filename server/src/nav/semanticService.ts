/**
 * The semantic registry of one engine: the editor slot (filled by the extension host), the
 * headless language servers, and the heuristic provider over the engine's index.
 *
 * The C# projects csharp-ls loads come from the project model, per question: csharp-ls loads one
 * solution at start and never re-selects, and loading costs about a second per project, so it gets
 * a generated solution of what the question needs — the target's projects (their references load
 * with them) and, for questions about uses (references, implementations, callers, subtypes), the
 * projects that depend on them and whose files the text index says mention the name. A later
 * question that needs projects outside that set grows it (csharp-ls restarts on the union; the
 * question waits or is answered heuristically meanwhile). A small solution containing the target
 * is loaded whole instead. A use question whose projects could not all be loaded is
 * `precise_partial`, naming what is missing.
 *
 * That is the fallback. The headless C# slot is taken by Sextant's own Roslyn host
 * (semantic/roslyn/) whenever it is built and dotnet is found: one live workspace grown by need
 * from the project model, never restarted. `SEXTANT_CSHARP_PROVIDER=csharp-ls` (or the
 * `csharpProvider` option) selects csharp-ls instead; without a built host csharp-ls serves C#.
 */
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { CSHARP_GENERATED_SOLUTION_MAX_PROJECTS, CSHARP_WHOLE_SOLUTION_MAX_PROJECTS, ROSLYN_PREWARM_POLL_MS, SEMANTIC_DEADLINE_MS, SEMANTIC_WAIT_FOR_READY_MS } from '../core/limits';
import { matchFiles } from '../index/textIndex';
import type { ProjectGraph } from '../projects/ProjectGraph';
import { HeuristicProvider } from '../semantic/heuristic/heuristicProvider';
import type { ServerDoctorRow } from '../semantic/lsp/doctor';
import { csharpOutputOverrides } from '../semantic/lsp/csharpReadOnly';
import { LspProvider, type FileCoverage } from '../semantic/lsp/lspProvider';
import { parseServerOverride } from '../semantic/lsp/serverSpec';
import type { OpArgs, OpResult, SemanticOp, SemanticProvider } from '../semantic/provider';
import { SemanticRegistry, type SemanticAnswer } from '../semantic/registry';
import { MERGED_OPS, mergeAnswers } from '../semantic/tsprograms/mergeAnswers';
import { TsProgramsProvider } from '../semantic/tsprograms/tsProgramsProvider';
import { ProjectDescriber, splitKey } from '../semantic/roslyn/projectDescriptions';
import { RoslynProvider, type RoslynWorkspaceModel } from '../semantic/roslyn/roslynProvider';
import { locateRoslynHost } from '../semantic/roslyn/roslynHost';
import { PreciseFacts } from '../semantic/precise/preciseFacts';
import { languageOfPath } from '../semantic/language';
import { compilationKey, DeclarationShapes, GeneratedKeys } from '../semantic/precise/documentKeys';
import { PersistedLayer } from '../semantic/precise/persistedLayer';
import { FactsCoverage } from '../semantic/precise/factsCoverage';

/** The producer version written into persisted SCIP files. */
const SERVER_VERSION_FOR_FACTS = '0.1.0';
import type { PreciseEnv } from '../semantic/precise/preciseAnswers';
import { restorePermission, restorePlan, restoreStateDir } from '../semantic/restore/restorePlan';
import { RestoreService } from '../semantic/restore/restoreService';
import type { Engine } from './engine';
import { projectGraph } from './projects';

/** Languages the editor's TypeScript service answers one program at a time. */
const TS_LANGUAGES: ReadonlySet<string> = new Set(['typescript', 'typescriptreact', 'javascript', 'javascriptreact']);

/** Questions about uses: their answer needs the projects that depend on the target's. */
const USE_OPS: ReadonlySet<SemanticOp> = new Set(['references', 'implementation', 'incomingCalls', 'subtypes']);

/** What a request is about, for choosing the C# projects. */
export interface RequestFocus {
  /** The identifier asked about (filters dependents to those mentioning it). */
  name?: string;
  /** The project the target's id named (project file path). */
  project?: string;
}

export interface SemanticServiceOptions {
  /** Extra language servers, `<lang>[:<.ext>,…]=<command> [args…]` each (CLI `--lsp`, env SEXTANT_LSP). */
  servers?: string[];
  /** Skip the headless language servers (tests of the heuristic path). */
  noLsp?: boolean;
  /** Skip the engine's own TypeScript host (typescript-language-server answers TS/JS instead). */
  noTsPrograms?: boolean;
  /**
   * Which headless backend serves C#: `roslyn` (Sextant's Roslyn host; the default when it is
   * built) or `csharp-ls`. Env `SEXTANT_CSHARP_PROVIDER` when not given.
   */
  csharpProvider?: CSharpProviderChoice;
  /**
   * Start the Roslyn host in the background once the project model exists (default true; env
   * SEXTANT_ROSLYN_NO_PREWARM=1 turns it off): false starts it on the first C# question.
   */
  roslynPrewarm?: boolean;
  /** TS/JS: build the tsconfig programs in the background once the project model is built (default true; SEXTANT_TS_NO_PREWARM=1 turns it off). */
  tsPrewarm?: boolean;
  /** SCIP indexes to import (files or folders; CLI `--scip`, env SEXTANT_SCIP); default `<workspace>/.sextant/scip/`. */
  scip?: string[];
  /**
   * Restore C# projects without project.assets.json into Sextant's state (semantic/restore/):
   * VS Code passes its trusted workspace's `sextant.restore`; headless `--restore` (env SEXTANT_RESTORE=1).
   */
  restore?: boolean;
  /** The persisted layer's quiet time before its background pass (ms); false turns it off (env SEXTANT_PRECISE_PERSIST=0). */
  precisePersist?: { idleMs?: number } | false;
}

export type CSharpProviderChoice = 'roslyn' | 'csharp-ls';

/** The C# backend to use and why (for doctor and answers). */
export function chooseCSharpProvider(wanted?: string): { choice: CSharpProviderChoice; why: string } {
  const w = (wanted ?? process.env.SEXTANT_CSHARP_PROVIDER ?? '').trim().toLowerCase();
  if (w === 'csharp-ls' || w === 'lsp') return { choice: 'csharp-ls', why: 'csharp-ls selected (SEXTANT_CSHARP_PROVIDER / option)' };
  const host = locateRoslynHost();
  if (host.ok) return { choice: 'roslyn', why: `Roslyn host ${host.command.dll}` };
  return { choice: 'csharp-ls', why: `csharp-ls serves C# because ${host.reason}` };
}

export class SemanticService {
  readonly registry = new SemanticRegistry();
  readonly lsp: LspProvider | undefined;
  /** TS/JS: every tsconfig program that can see the target (semantic/tsprograms/). */
  readonly tsPrograms: TsProgramsProvider | undefined;
  /** Sextant's Roslyn host provider, when it serves C#. */
  readonly roslyn: RoslynProvider | undefined;
  /** Restore into Sextant's state, for the Roslyn host (allowed or not: answers say which). */
  readonly restore: RestoreService | undefined;
  /** Why C# is served the way it is. */
  readonly csharpBackend: { choice: CSharpProviderChoice; why: string };
  readonly heuristic: HeuristicProvider;
  /** Recorded precise facts (persisted layer, imported SCIP) answering before the providers. */
  readonly precise: PreciseFacts;
  /** Writes what the Roslyn host resolves into the index root's persisted layer, in quiet time. */
  readonly persisted: PersistedLayer | undefined;
  private lastQuestion = Date.now();
  private describers = new WeakMap<ProjectGraph, ProjectDescriber>();
  private dependentsCache = new WeakMap<ProjectGraph, Map<string, Set<string>>>();
  /** The projects listed in csharp-ls's solution (undefined: it chose itself, or nothing chosen yet). */
  private loadedCSharp: Set<string> | undefined;
  /** Those and every project they reference (loaded with them). */
  private coveredCSharp: Set<string> | undefined;
  private chosenOnce = false;
  private mentions: { version: string; byName: Map<string, Set<string> | undefined> } = { version: '', byName: new Map() };
  /** How the C# projects were chosen, for answers and doctor. */
  csharpScope = 'csharp-ls picks (no project model yet)';

  constructor(private readonly engine: Engine, options: SemanticServiceOptions = {}) {
    const servers = [...(options.servers ?? []), ...envServers()].map(parseServerOverride);
    this.csharpBackend = options.noLsp ? { choice: 'csharp-ls', why: 'no headless servers' } : chooseCSharpProvider(options.csharpProvider);
    // The Roslyn host process is spawned first of all (before the TypeScript module loads and the
    // engine's first refresh blocks the event loop for seconds on a big tree): its .NET start,
    // initialize and JIT warm-up then run beside them, and the first C# question finds it ready.
    const roslyn = !options.noLsp && this.csharpBackend.choice === 'roslyn' ? new RoslynProvider({ root: engine.root, model: this.roslynModel() }) : undefined;
    const prewarmRoslyn = options.roslynPrewarm ?? !process.env.SEXTANT_ROSLYN_NO_PREWARM;
    if (roslyn && prewarmRoslyn) this.startRoslynHostEarly(roslyn);
    if (!options.noLsp && !options.noTsPrograms && !process.env.SEXTANT_NO_TS_PROGRAMS) {
      // Before typescript-language-server in the same slot: it stays the fallback.
      this.tsPrograms = new TsProgramsProvider({ root: engine.root, configs: () => this.tsConfigs(), mentions: (name) => this.filesMentioning(name) });
      this.registry.register(this.tsPrograms, 'lsp');
      if (options.tsPrewarm ?? !process.env.SEXTANT_TS_NO_PREWARM) this.startTsProgramsInBackground();
    }
    if (!options.noLsp) {
      if (roslyn) {
        this.restore = new RestoreService({
          root: engine.root,
          stateDir: restoreStateDir(engine.indexRoot, engine.root),
          permission: restorePermission(options.restore),
          // The restored projects are described again (their packages now resolve) on their next question.
          onRestored: (projects) => this.describers.get(projectGraph(this.engine)!)?.forget(projects),
        });
        this.startRestoreInBackground();
        this.roslyn = roslyn;
        this.registry.register(roslyn, 'lsp');
        engine.onFileChanged((rel) => roslyn.filesChanged([rel]));
        this.csharpScope = 'Roslyn host: projects loaded by need';
        if (prewarmRoslyn) this.startRoslynInBackground();
      }
      this.lsp = new LspProvider({ root: engine.root, servers, coverage: (language, p) => this.coverage(language, p), csharpWriteRisk: () => this.csharpWriteRisk(), ...(this.roslyn ? { noCSharp: true } : {}) });
      this.registry.register(this.lsp, 'lsp');
    }
    this.heuristic = new HeuristicProvider({ store: engine.store, root: engine.root });
    this.registry.register(this.heuristic, 'heuristic');
    this.generatedKeys = new GeneratedKeys({ root: engine.root, describer: () => this.roslynModel().describer(), hashOf: (p) => (engine.pendingPaths().has(p) ? undefined : engine.catalog().byRelPath(p)?.hash), version: () => engine.version });
    this.shapes = new DeclarationShapes(engine.store, (p) => this.generatedKeys.of(p));
    const scip = options.scip ?? (process.env.SEXTANT_SCIP ? process.env.SEXTANT_SCIP.split(path.delimiter).filter(Boolean) : []);
    this.precise = new PreciseFacts({ workspaceRoot: engine.root, indexRoot: engine.indexRoot, scip, env: this.preciseEnv() });
    this.registry.setPrecise(this.precise.answers, this.precise.ready);
    this.factsCoverage = new FactsCoverage({ answers: this.precise.answers, store: this.precise.store, graph: () => projectGraph(engine), version: () => engine.version });
    const persist = options.precisePersist ?? (process.env.SEXTANT_PRECISE_PERSIST === '0' ? false : {});
    if (persist && roslyn && engine.indexRoot) {
      this.persisted = new PersistedLayer({
        facts: this.precise,
        version: SERVER_VERSION_FOR_FACTS,
        lastQuestion: () => this.lastQuestion,
        live: { up: () => roslyn.status().state === 'ready', occurrences: (key, signal, quietMs) => roslyn.occurrences(key, signal, quietMs) },
        covered: (p) => this.factsCoverage.covers(p),
        ...(persist.idleMs !== undefined ? { idleMs: persist.idleMs } : {}),
        input: () => {
          const g = projectGraph(engine);
          if (!g || engine.meta().status === 'building') return undefined;
          const catalog = engine.catalog();
          const describer = this.roslynModel().describer();
          return { root: engine.root, graph: g, files: catalog.all().map((r) => r.path), policy: engine.policy, shapes: this.shapes, indexedHash: (p) => catalog.byRelPath(p)?.hash, generatedKey: (p) => this.generatedKeys.of(p), ...(describer ? { describer } : {}) };
        },
        order: () => {
          const g = projectGraph(engine);
          if (!g) return [];
          const up = projectRefs(g).up;
          return g.projects
            .filter((p) => p.kind === 'csharp' && p.status !== 'failed')
            .sort((a, b) => (up.get(b.id)?.length ?? 0) - (up.get(a.id)?.length ?? 0) || (a.id < b.id ? -1 : 1))
            .map((p) => p.id);
        },
      });
      this.persisted.start();
      engine.onClose(() => this.persisted?.dispose());
    }
  }

  /**
   * Why a recorded document key no longer holds: its project's compilation inputs changed (as the
   * Roslyn provider would describe the project now), or a declaration document it binds to has
   * another declaration shape. Undefined when it holds.
   */
  private keyProblem(key: import('../semantic/precise/scipCodec').DocumentKey): string | undefined {
    if (key.compilation) {
      const g = projectGraph(this.engine);
      const d = this.roslynModel().describer();
      if (!g || !d) return 'the project model is not built yet';
      let memo = this.compilationKeys.get(g);
      if (!memo) this.compilationKeys.set(g, (memo = new Map()));
      let now = memo.get(key.project);
      if (now === undefined) {
        const k = d.node(key.project) ? d.keyOfProject(key.project) : key.project;
        const described = k ? d.describe(k) : undefined;
        now = described?.ok ? compilationKey(described.description, this.engine.root) : '';
        memo.set(key.project, now);
      }
      if (now !== key.compilation) return now ? `the compilation inputs of ${key.project} changed` : `${key.project} is no longer a project`;
    }
    for (const dep of key.deps) if (this.shapes.shape(dep.path) !== dep.shape) return `declarations it uses in ${dep.path} changed`;
    return undefined;
  }
  private readonly compilationKeys = new WeakMap<ProjectGraph, Map<string, string>>();
  private readonly shapes: DeclarationShapes;
  private readonly generatedKeys: GeneratedKeys;
  /** C# projects recorded facts cover whole (no background compile, no persisted pass for them). */
  private readonly factsCoverage: FactsCoverage;

  /** What the occurrence store asks of the engine: indexed hashes, mentions, texts, languages. */
  private preciseEnv(): PreciseEnv {
    const engine = this.engine;
    return {
      currentHash: (p) => {
        if (p.startsWith('generated:')) return this.generatedKeys.of(p);
        if (engine.pendingPaths().has(p)) return undefined;
        const indexed = engine.catalog().byRelPath(p)?.hash;
        if (indexed) return indexed;
        // generator output under obj/ is never indexed: hashed as it is now
        if (!/(^|\/)obj\//.test(p)) return undefined;
        try {
          return crypto.createHash('sha1').update(engine.policy.readFile(p).bytes).digest('hex');
        } catch {
          return undefined;
        }
      },
      keyProblem: (key) => this.keyProblem(key),
      filesMentioning: (name) => this.filesMentioning(name),
      readText: (p) => {
        try {
          return engine.policy.readFile(p).bytes.toString('utf8');
        } catch {
          return undefined;
        }
      },
      languageOf: (p) => languageOfPath(p),
      version: () => engine.version,
      compilationsSeenBy: (k) => {
        const d = this.roslynModel().describer()?.describe(k);
        return d?.ok ? new Set([k, ...d.description.projectReferences]) : undefined;
      },
      primaryCompilation: (p) => this.roslynModel().describer()?.keysOfFile(p)[0],
    };
  }

  /**
   * TS/JS: once the project model is built and the index is not being built, the worker thread
   * starts building the tsconfig programs (TsProgramsProvider.prewarm; questions go first).
   */
  private startTsProgramsInBackground(): void {
    let stopped = false;
    this.engine.onClose(() => {
      stopped = true;
    });
    const tick = () => {
      if (stopped || !this.tsPrograms) return;
      if (!projectGraph(this.engine) || this.engine.meta().status === 'building') {
        setTimeout(tick, ROSLYN_PREWARM_POLL_MS).unref();
        return;
      }
      this.tsPrograms.prewarm();
    };
    setTimeout(tick, 0).unref();
  }

  /**
   * Starts the Roslyn host in the background once the project model exists and the index is not
   * being built (neither the index nor a question waits for it): every C# project is described to
   * it, the most depended-on ones compiled first (RoslynProvider.prewarm). Only when the workspace
   * has C# projects; once per engine.
   */
  private startRoslynInBackground(): void {
    const roslyn = this.roslyn!;
    const controller = this.roslynStart;
    this.engine.onClose(() => controller.abort(new Error('engine closing')));
    const tick = () => {
      if (controller.signal.aborted) return;
      const g = projectGraph(this.engine);
      // The process itself (initialize + its own JIT warm-up, a few seconds) as soon as the graph
      // exists; describing and compiling wait until the index is not being built.
      if (g) this.startRoslynHostEarly(roslyn);
      if (!g || this.engine.meta().status === 'building') {
        setTimeout(tick, ROSLYN_PREWARM_POLL_MS).unref();
        return;
      }
      const csharp = g.projects.filter((p) => p.kind === 'csharp' && p.status !== 'failed');
      if (csharp.length === 0) return;
      const up = projectRefs(g).up;
      // Most direct dependents first (in-degree in the project graph): the projects the most
      // questions need. A transitive count would walk the graph once per project.
      const degree = new Map(csharp.map((p) => [p.id, up.get(p.id)?.length ?? 0]));
      const order = (d: ProjectDescriber) =>
        [...csharp]
          .sort((a, b) => degree.get(b.id)! - degree.get(a.id)! || (a.id < b.id ? -1 : 1))
          .map((p) => d.keyOfProject(p.id))
          .filter((k): k is string => k !== undefined);
      // A project the recorded facts cover is not compiled in the background (its questions are answered from them).
      const skipCompile = async (k: string) => {
        await this.precise.ready;
        return this.factsCoverage.covers(splitKey(k).project);
      };
      void roslyn.prewarm({ signal: controller.signal, order, skipCompile });
    };
    setTimeout(tick, 0).unref();
  }

  /** Once the project model exists and the index is not being built: plans restore into state and starts it (when allowed). */
  private startRestoreInBackground(): void {
    const restore = this.restore!;
    let stopped = false;
    this.engine.onClose(() => {
      stopped = true;
      restore.dispose();
    });
    const tick = () => {
      if (stopped) return;
      const g = projectGraph(this.engine);
      if (!g || this.engine.meta().status === 'building') {
        setTimeout(tick, ROSLYN_PREWARM_POLL_MS).unref();
        return;
      }
      void restorePlan(g, this.engine.root, (rel) => {
        try {
          return this.engine.policy.readFile(rel).bytes.toString('utf8');
        } catch {
          return undefined; // missing (most Directory.Build.targets candidates) or unreadable
        }
      }).then(
        (plan) => {
          if (!stopped) restore.start(plan.projects, plan.refusal);
        },
        (e: unknown) => {
          if (!stopped) restore.start([], `restore could not be planned: ${(e as Error).message}`);
        },
      );
    };
    setTimeout(tick, 0).unref();
  }

  /** Aborts the Roslyn host's background start (engine closing). */
  private readonly roslynStart = new AbortController();
  private roslynHostStarted = false;

  /** Spawns the Roslyn host (not waiting for it) once, when the project graph has C# projects. */
  private startRoslynHostEarly(roslyn: RoslynProvider): void {
    if (this.roslynHostStarted) return;
    const g = projectGraph(this.engine);
    if (!g || !g.projects.some((p) => p.kind === 'csharp')) return;
    this.roslynHostStarted = true;
    roslyn.startHost(this.roslynStart.signal);
  }

  /** The extension host registers its editor provider here; the returned function removes it. */
  registerEditor(provider: SemanticProvider): () => void {
    return this.registry.register(provider, 'editor');
  }

  /** Asks the providers for one target (workspace-relative path), choosing the C# projects first. */
  async request<K extends SemanticOp>(
    op: K,
    language: string,
    args: OpArgs<K>,
    o: { deadlineAt?: number; waitForReadyMs?: number; preciseOnly?: boolean } & RequestFocus = {},
  ): Promise<SemanticAnswer<OpResult<K>>> {
    this.lastQuestion = Date.now();
    const answer = await this.ask(op, language, args, o);
    const note = language === 'csharp' ? this.restore?.note() : undefined;
    // Restore into state is announced while it runs and whenever it may not run; once done, only where something may be missing.
    if (note && (this.restore!.status().phase !== 'done' || answer.mode !== 'precise')) return { ...answer, notes: [...(answer.notes ?? []), note] };
    return answer;
  }

  private async ask<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, o: { deadlineAt?: number; waitForReadyMs?: number; preciseOnly?: boolean } & RequestFocus): Promise<SemanticAnswer<OpResult<K>>> {
    let missing: string[] = [];
    const holdBack: { provider: string; reason: string }[] = [];
    if (language === 'csharp' && this.roslyn) {
      if (!projectGraph(this.engine) && (this.engine.meta().status === 'building' || this.engine.symbolsPending() > 0)) {
        holdBack.push({ provider: this.roslyn.id, reason: 'the Roslyn host starts once the project model is built (the index is being built)' });
      }
    } else if (language === 'csharp' && this.lsp && !projectGraph(this.engine) && (this.engine.meta().status === 'building' || this.engine.symbolsPending() > 0)) {
      // Without the project model csharp-ls would load the biggest solution (then restart on the
      // chosen projects): wait for it. The graph is stored beside the first refresh's parse phase.
      holdBack.push({ provider: this.lsp.id, reason: 'csharp-ls starts once the project model is built (the index is being built)' });
    } else if (language === 'csharp') {
      const a = args as { path?: string; name?: string; external?: boolean };
      if (a.path !== undefined && !a.external) {
        // A hierarchy item names itself; a position is named by the caller.
        const name = a.name ?? o.name;
        const focus: RequestFocus = { ...(name ? { name: name.replace(/[(<].*$/, '') } : {}), ...(o.project ? { project: o.project } : {}) };
        missing = await this.chooseCSharp(op, a.path, focus);
      }
    }
    const deadlineMs = o.deadlineAt !== undefined ? Math.max(200, o.deadlineAt - Date.now()) : SEMANTIC_DEADLINE_MS;
    const answer = await this.registry.request(op, language, args, {
      deadlineMs,
      waitForReadyMs: o.waitForReadyMs ?? SEMANTIC_WAIT_FOR_READY_MS,
      ...(o.preciseOnly ? { preciseOnly: true } : {}),
      ...(holdBack.length ? { holdBack } : {}),
    });
    if (missing.length > 0 && (answer.mode === 'precise' || answer.mode === 'precise_partial')) {
      const gap = `${missing.length} project(s) that may use it were not loaded (more than ${CSHARP_GENERATED_SOLUTION_MAX_PROJECTS} needed): ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', …' : ''}`;
      return { ...answer, mode: 'precise_partial', gaps: [...answer.gaps, gap] };
    }
    if (answer.provider === 'editor' && answer.value !== undefined && this.tsPrograms?.supports(language, op) && MERGED_OPS.has(op)) {
      return this.withOtherPrograms(op, language, args, answer, o.deadlineAt ?? Date.now() + SEMANTIC_DEADLINE_MS);
    }
    // The editor's TypeScript service answered from the programs of open files, and the engine has
    // no TypeScript host to search the others (turned off, or the typescript module is not where the
    // engine runs, as in a packaged extension): with several tsconfig programs that is partial.
    if (answer.provider === 'editor' && answer.value !== undefined && TS_LANGUAGES.has(language) && MERGED_OPS.has(op) && answer.mode === 'precise') {
      const programs = this.tsConfigs()?.paths.length ?? 0;
      if (programs > 1) {
        const why = this.tsPrograms ? 'the typescript module could not be loaded' : 'it is turned off';
        const gap = `the editor's TypeScript service searched only the programs of open files; the workspace has ${programs} tsconfig programs and the others were not searched (the engine's TypeScript host: ${why})`;
        return { ...answer, mode: 'precise_partial', gaps: [...answer.gaps, gap] };
      }
    }
    // The engine's TS host did not answer (deadline, failure): typescript-language-server answered
    // a use question from the target file's program only, which is not every program that may see it.
    const host = answer.provider !== 'editor' && answer.provider !== this.tsPrograms?.id && MERGED_OPS.has(op) && this.tsPrograms?.supports(language, op) ? answer.attempts.find((a) => a.provider === this.tsPrograms!.id) : undefined;
    if (host && host.outcome !== 'ok' && (answer.mode === 'precise' || answer.mode === 'precise_partial')) {
      const gap = `${answer.provider} searched only the TypeScript program of the target's file; the other tsconfig programs that may see it were not searched (the engine's TypeScript host: ${host.reason ?? host.outcome})`;
      return { ...answer, mode: 'precise_partial', gaps: [...answer.gaps, gap] };
    }
    return answer;
  }

  /**
   * Read-only guard for csharp-ls (semantic/lsp/csharpReadOnly.ts): its design-time builds are
   * redirected out of the tree, except where a project file or a Directory.Build file sets its own
   * output paths — then it is not started, and this says why. Checked once per project graph.
   */
  private csharpWriteRisk(): string | undefined {
    const g = projectGraph(this.engine);
    if (!g) return undefined;
    if (this.writeRisk?.graph === g) return this.writeRisk.reason;
    const files = new Set<string>();
    for (const p of g.projects) {
      if (p.kind !== 'csharp') continue;
      files.add(p.path);
      // Directory.Build.props/targets from the project's folder up to the root.
      for (let dir = path.posix.dirname(p.path); ; dir = path.posix.dirname(dir)) {
        for (const f of ['Directory.Build.props', 'Directory.Build.targets']) files.add(dir === '.' ? f : `${dir}/${f}`);
        if (dir === '.' || dir === '/' || dir === '') break;
      }
    }
    const found = csharpOutputOverrides([...files], (rel) => {
      try {
        return this.engine.policy.readFile(rel).bytes.toString('utf8');
      } catch {
        return undefined; // missing (most Directory.Build candidates) or unreadable
      }
    });
    const reason = found.length
      ? `${found.slice(0, 3).join(', ')}${found.length > 3 ? ` and ${found.length - 3} more` : ''} set their own build output paths, and csharp-ls's design-time builds would write there, inside the workspace (Sextant never writes to the workspace)`
      : undefined;
    this.writeRisk = { graph: g, reason };
    return reason;
  }
  private writeRisk: { graph: ProjectGraph; reason: string | undefined } | undefined;

  /**
   * VS Code's TypeScript service answers a use question from the programs of the files it has
   * open: the engine's own host adds every other program that can see the symbol, or the answer
   * says they were not searched.
   */
  private async withOtherPrograms<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, answer: SemanticAnswer<OpResult<K>>, deadlineAt: number): Promise<SemanticAnswer<OpResult<K>>> {
    const deadline = Math.max(Date.now() + 200, deadlineAt - 300);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('deadline')), deadline - Date.now());
    let reason: string;
    try {
      const r = await this.tsPrograms!.requestOtherPrograms(op, language, args, { signal: controller.signal, deadline, waitForReadyMs: 0 });
      if (r.others === 0) return answer;
      if (r.outcome.kind === 'ok') {
        const gaps = [...answer.gaps, ...(r.outcome.gaps ?? [])];
        return { ...answer, value: mergeAnswers(op, answer.value!, r.outcome.value), gaps, mode: gaps.length ? 'precise_partial' : answer.mode, elapsedMs: answer.elapsedMs + r.elapsedMs };
      }
      reason = r.outcome.reason;
    } catch (e) {
      reason = e instanceof Error ? e.message : String(e);
    } finally {
      clearTimeout(timer);
    }
    const gap = `the editor's TypeScript service searched only the programs of open files; the other tsconfig programs that may see it were not searched (${reason})`;
    return { ...answer, mode: 'precise_partial', gaps: [...answer.gaps, gap] };
  }

  /** The project model as the Roslyn provider reads it (describers per graph version, dependents, text-index mentions). */
  private roslynModel(): RoslynWorkspaceModel {
    return {
      describer: () => {
        const g = projectGraph(this.engine);
        if (!g) return undefined;
        let d = this.describers.get(g);
        if (!d) {
          const restore = this.restore;
          d = new ProjectDescriber({
            root: this.engine.root,
            graph: g,
            files: this.engine.catalog().all().map((r) => r.path),
            policy: this.engine.policy,
            ...(restore ? { restoredAssets: (project: string) => restore.stateAssets(project) } : {}),
          });
          this.describers.set(g, d);
        }
        return d;
      },
      dependents: (project) => {
        const g = projectGraph(this.engine);
        if (!g) return new Set();
        let m = this.dependentsCache.get(g);
        if (!m) this.dependentsCache.set(g, (m = new Map()));
        let set = m.get(project);
        if (!set) {
          set = walk(projectRefs(g).up, [project]);
          set.delete(project);
          m.set(project, set);
        }
        return set;
      },
      projectsMentioning: (name) => {
        const g = projectGraph(this.engine);
        return g ? this.projectsMentioning(g, name) : undefined;
      },
      filesMentioning: (name) => this.filesMentioning(name),
      pendingPaths: () => this.engine.pendingPaths(),
    };
  }

  /** Projects csharp-ls has loaded, their references included (undefined: it chose itself). */
  loadedCSharpProjects(): ReadonlySet<string> | undefined {
    return this.coveredCSharp;
  }

  async doctor(): Promise<ServerDoctorRow[]> {
    return this.lsp ? this.lsp.doctor() : [];
  }

  async dispose(): Promise<void> {
    this.restore?.dispose();
    await this.registry.dispose();
  }

  /**
   * Makes csharp-ls's project set cover what this question needs; returns the needed projects
   * that are left out because of the size bound.
   */
  private async chooseCSharp(op: SemanticOp, path: string, focus: RequestFocus): Promise<string[]> {
    if (!this.lsp) return [];
    const g = projectGraph(this.engine);
    if (!g) return []; // no project model yet: csharp-ls picks (the solution with most projects)
    const csharp = new Set(g.projects.filter((p) => p.kind === 'csharp').map((p) => p.id));
    const own = focus.project && csharp.has(focus.project) ? [focus.project] : (g.files.get(path) ?? []).map((e) => e.project).filter((p) => csharp.has(p));
    if (own.length === 0) {
      if (!this.chosenOnce) this.csharpScope = 'csharp-ls picks (the target file belongs to no known project)';
      return [];
    }
    const refs = projectRefs(g);
    if (!this.chosenOnce) {
      this.chosenOnce = true;
      // A small solution containing the target: load it whole (later questions rarely need more).
      const small = g.solutions
        .filter((s) => s.kind !== 'slnf' && s.projects.some((p) => own.includes(p)) && s.projects.length <= CSHARP_WHOLE_SOLUTION_MAX_PROJECTS)
        .sort((a, b) => a.projects.length - b.projects.length)[0];
      if (small) {
        this.loadedCSharp = new Set(small.projects);
        this.coveredCSharp = walk(refs.down, small.projects);
        this.csharpScope = `solution ${small.path} (${small.projects.length} projects)`;
        await this.lsp.configureCSharp({ solution: small.path });
      }
    }
    const need = new Set(own);
    if (USE_OPS.has(op)) {
      const dependents = walk(refs.up, own);
      // Only when some dependent is not loaded does the text index narrow them to those mentioning the name.
      const loaded = this.coveredCSharp;
      const mention = focus.name && !(loaded && [...dependents].every((d) => loaded.has(d))) ? this.projectsMentioning(g, focus.name) : undefined;
      for (const d of dependents) if (!mention || mention.has(d)) need.add(d);
    }
    const covered = this.coveredCSharp;
    const add = [...need].filter((p) => !covered?.has(p));
    if (covered && add.length === 0) return [];
    // Grow: what is loaded, then the question's projects with everything they reference (csharp-ls
    // resolves into source only for listed projects), bounded; the rest is reported missing.
    const next = [...new Set([...(this.loadedCSharp ?? []), ...walk(refs.down, own), ...walk(refs.down, add)])];
    const listed = next.slice(0, CSHARP_GENERATED_SOLUTION_MAX_PROJECTS);
    this.loadedCSharp = new Set(listed);
    this.coveredCSharp = walk(refs.down, listed);
    this.csharpScope = `generated solution: ${listed.length} project(s) for ${own[0]}${covered ? ' (grown)' : ''}`;
    await this.lsp.configureCSharp({ projects: listed });
    return [...need].filter((p) => !this.coveredCSharp!.has(p));
  }

  /** Projects with a file the text index says mentions `name` (whole token); cached per index version. */
  private projectsMentioning(g: ProjectGraph, name: string): Set<string> | undefined {
    const version = this.engine.version;
    if (this.mentions.version !== version) this.mentions = { version, byName: new Map() };
    if (!this.mentions.byName.has(name)) this.mentions.byName.set(name, this.readProjectsMentioning(g, name));
    return this.mentions.byName.get(name);
  }

  private readProjectsMentioning(g: ProjectGraph, name: string): Set<string> | undefined {
    const files = this.filesMentioning(name.replace(/"/g, ''));
    if (!files) return undefined;
    const out = new Set<string>();
    for (const p of files) for (const e of g.files.get(p) ?? []) out.add(e.project);
    return out;
  }

  /** The tsconfig/jsconfig programs of the project model, keyed by the index version. */
  private tsConfigs(): { paths: string[]; key: string } | undefined {
    const g = projectGraph(this.engine);
    if (!g) return undefined;
    return { paths: g.projects.filter((p) => p.kind === 'tsconfig').map((p) => p.id).sort(), key: this.engine.version };
  }

  /** Files whose text the index says mentions `name` as a token (undefined: cannot tell). */
  private filesMentioning(name: string): ReadonlySet<string> | undefined {
    const token = name.toLowerCase();
    if (!/^\w+$/.test(token)) return undefined;
    let ids: number[];
    try {
      ids = matchFiles(this.engine.store, `"${token}"`);
    } catch {
      return undefined;
    }
    const catalog = this.engine.catalog();
    const out = new Set<string>();
    for (const id of ids) {
      const p = catalog.get(id)?.path;
      if (p) out.add(p);
    }
    return out;
  }

  private coverage(language: string, p: string): FileCoverage {
    if (language !== 'csharp') return { kind: 'unknown' };
    const g = projectGraph(this.engine);
    const entries = g?.files.get(p) ?? [];
    if (entries.length > 1) return { kind: 'multi_project', projects: entries.map((e) => e.project) };
    if (this.coveredCSharp && entries.length > 0 && !entries.some((e) => this.coveredCSharp!.has(e.project))) {
      return { kind: 'not_covered', reason: `csharp-ls loaded ${this.csharpScope}; ${entries[0]!.project} is not in it` };
    }
    return entries.length ? { kind: 'covered' } : { kind: 'unknown' };
  }
}

/** Project-reference adjacency both ways (cached per graph). */
const adjacency = new WeakMap<ProjectGraph, { down: Map<string, string[]>; up: Map<string, string[]> }>();
function projectRefs(g: ProjectGraph): { down: Map<string, string[]>; up: Map<string, string[]> } {
  let a = adjacency.get(g);
  if (a) return a;
  a = { down: new Map(), up: new Map() };
  for (const e of g.edges) {
    if (e.kind !== 'projectReference') continue;
    (a.down.get(e.from) ?? a.down.set(e.from, []).get(e.from)!).push(e.to);
    (a.up.get(e.to) ?? a.up.set(e.to, []).get(e.to)!).push(e.from);
  }
  adjacency.set(g, a);
  return a;
}

/** The start projects and everything reachable from them along `next`. */
function walk(next: Map<string, string[]>, start: Iterable<string>): Set<string> {
  const out = new Set(start);
  const queue = [...out];
  while (queue.length) {
    const p = queue.shift()!;
    for (const n of next.get(p) ?? []) {
      if (out.has(n)) continue;
      out.add(n);
      queue.push(n);
    }
  }
  return out;
}

function envServers(): string[] {
  const v = process.env.SEXTANT_LSP;
  return v ? v.split(';').map((s) => s.trim()).filter(Boolean) : [];
}

const services = new WeakMap<Engine, SemanticService>();

/** The engine's semantic service, created on first use. */
export function semanticService(engine: Engine, options?: SemanticServiceOptions): SemanticService {
  let s = services.get(engine);
  if (!s) {
    s = new SemanticService(engine, options);
    services.set(engine, s);
    engine.onClose(() => disposeSemanticService(engine));
  }
  return s;
}

/** Stops the engine's language servers (engine shutdown). */
export async function disposeSemanticService(engine: Engine): Promise<void> {
  const s = services.get(engine);
  services.delete(engine);
  await s?.dispose();
}
