/**
 * The semantic registry of one engine and how a question is routed through it: the editor slot
 * (filled by the extension host), recorded precise facts (enginePreciseFacts.ts), Sextant's Roslyn
 * host for C# whenever it is built and dotnet is found (one live workspace grown by need from the
 * project model: roslynWorkspaceModel.ts; started in the background: roslynBackgroundStart.ts;
 * restore into state: restoreBackgroundStart.ts), the engine's TypeScript host, the headless
 * language servers, and the heuristic provider over the engine's index.
 *
 * `SEXTANT_CSHARP_PROVIDER=csharp-ls` (or the `csharpProvider` option) selects csharp-ls for C#
 * instead; without a built host csharp-ls serves C#, its projects chosen per question
 * (csharpLsScope.ts). TS/JS answers of the editor are completed with the other tsconfig programs
 * (otherTsPrograms.ts).
 */
import { CSHARP_GENERATED_SOLUTION_MAX_PROJECTS, SEMANTIC_DEADLINE_MS, SEMANTIC_WAIT_FOR_READY_MS } from '../core/limits';
import { HeuristicProvider } from '../semantic/heuristic/heuristicProvider';
import type { ServerDoctorRow } from '../semantic/lsp/doctor';
import { LspProvider } from '../semantic/lsp/lspProvider';
import { parseServerOverride } from '../semantic/lsp/serverSpec';
import type { FactsCoverage } from '../semantic/precise/factsCoverage';
import type { PersistedLayer } from '../semantic/precise/persistedLayer';
import type { PreciseFacts } from '../semantic/precise/preciseFacts';
import type { OpArgs, OpResult, SemanticOp, SemanticProvider } from '../semantic/provider';
import { SemanticRegistry, type SemanticAnswer } from '../semantic/registry';
import { restorePermission, restoreStateDir } from '../semantic/restore/restorePlan';
import { RestoreService } from '../semantic/restore/restoreService';
import { RoslynProvider } from '../semantic/roslyn/roslynProvider';
import { locateRoslynHost } from '../semantic/roslyn/roslynHost';
import { TsProgramsProvider } from '../semantic/tsprograms/tsProgramsProvider';
import { CSharpLsScope, type RequestFocus } from './csharpLsScope';
import type { Engine } from './engine';
import { enginePreciseFacts, scipSources } from './enginePreciseFacts';
import { withOtherTsPrograms } from './otherTsPrograms';
import { projectGraph } from './projects';
import { startRestoreInBackground } from './restoreBackgroundStart';
import { RoslynBackgroundStart } from './roslynBackgroundStart';
import { roslynWorkspaceModel, type EngineRoslynModel } from './roslynWorkspaceModel';
import { TextMentions } from './textMentions';
import { whenProjectModelReady } from './whenProjectModelReady';

export type { RequestFocus } from './csharpLsScope';

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
  /** The Roslyn host's background start (tests, doctor). */
  readonly roslynStart: RoslynBackgroundStart | undefined;
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
  private readonly mentions: TextMentions;
  private readonly model: EngineRoslynModel;
  private readonly csharpLs: CSharpLsScope;
  /** C# projects recorded facts cover whole (no background compile, no persisted pass for them). */
  private readonly factsCoverage: FactsCoverage;

  constructor(private readonly engine: Engine, options: SemanticServiceOptions = {}) {
    const servers = [...(options.servers ?? []), ...envServers()].map(parseServerOverride);
    this.csharpBackend = options.noLsp ? { choice: 'csharp-ls', why: 'no headless servers' } : chooseCSharpProvider(options.csharpProvider);
    this.mentions = new TextMentions(engine);
    this.csharpLs = new CSharpLsScope(engine, this.mentions);
    this.model = roslynWorkspaceModel(engine, this.mentions, () => this.restore);
    // The Roslyn host process is spawned first of all (before the TypeScript module loads and the
    // engine's first refresh blocks the event loop for seconds on a big tree): its .NET start,
    // initialize and JIT warm-up then run beside them, and the first C# question finds it ready.
    const roslyn = !options.noLsp && this.csharpBackend.choice === 'roslyn' ? new RoslynProvider({ root: engine.root, model: this.model }) : undefined;
    const prewarmRoslyn = options.roslynPrewarm ?? !process.env.SEXTANT_ROSLYN_NO_PREWARM;
    const roslynStart = roslyn ? new RoslynBackgroundStart(engine, roslyn) : undefined;
    this.roslynStart = roslynStart;
    if (roslynStart && prewarmRoslyn) roslynStart.startHostEarly();
    if (!options.noLsp && !options.noTsPrograms && !process.env.SEXTANT_NO_TS_PROGRAMS) {
      // Before typescript-language-server in the same slot: it stays the fallback.
      const tsPrograms = new TsProgramsProvider({ root: engine.root, configs: () => this.tsConfigs(), mentions: (name) => this.mentions.filesMentioning(name) });
      this.tsPrograms = tsPrograms;
      this.registry.register(tsPrograms, 'lsp');
      // Once the project model is built and the index is not being built, the worker thread starts
      // building the tsconfig programs (questions go first).
      if (options.tsPrewarm ?? !process.env.SEXTANT_TS_NO_PREWARM) whenProjectModelReady(engine, () => tsPrograms.prewarm());
    }
    if (!options.noLsp) {
      if (roslyn) {
        this.restore = new RestoreService({
          root: engine.root,
          stateDir: restoreStateDir(engine.indexRoot, engine.root),
          permission: restorePermission(options.restore),
          // The restored projects are described again (their packages now resolve) on their next question.
          onRestored: (projects) => this.model.forget(projects),
        });
        startRestoreInBackground(engine, this.restore);
        this.roslyn = roslyn;
        this.registry.register(roslyn, 'lsp');
        engine.onFileChanged((rel) => roslyn.filesChanged([rel]));
        if (prewarmRoslyn) {
          roslynStart!.startInBackground(
            async (project) => {
              await this.precise.ready;
              return this.factsCoverage.covers(project);
            },
            async () => {
              await this.precise.ready;
              return (project) => this.factsCoverage.recorded(project);
            },
          );
        }
      }
      this.lsp = new LspProvider({ root: engine.root, servers, coverage: (language, p) => this.csharpLs.coverage(language, p), csharpWriteRisk: () => this.csharpLs.writeRisk(), ...(this.roslyn ? { noCSharp: true } : {}) });
      this.registry.register(this.lsp, 'lsp');
    }
    this.heuristic = new HeuristicProvider({ store: engine.store, root: engine.root, pathOf: (id) => engine.catalog().get(id)?.path });
    this.registry.register(this.heuristic, 'heuristic');
    const facts = enginePreciseFacts(engine, {
      model: this.model,
      mentions: this.mentions,
      scip: scipSources(options.scip),
      persist: options.precisePersist ?? (process.env.SEXTANT_PRECISE_PERSIST === '0' ? false : {}),
      roslyn,
      lastQuestion: () => this.lastQuestion,
      registry: this.registry,
    });
    this.precise = facts.precise;
    this.factsCoverage = facts.factsCoverage;
    this.persisted = facts.persisted;
  }

  /** How the C# projects are chosen, for answers and doctor. */
  get csharpScope(): string {
    return this.roslyn ? 'Roslyn host: projects loaded by need' : this.csharpLs.scope;
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
      if (a.path !== undefined && !a.external && this.lsp) {
        // A hierarchy item names itself; a position is named by the caller.
        const name = a.name ?? o.name;
        const focus: RequestFocus = { ...(name ? { name: name.replace(/[(<].*$/, '') } : {}), ...(o.project ? { project: o.project } : {}) };
        missing = await this.csharpLs.choose(this.lsp, op, a.path, focus);
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
    return withOtherTsPrograms(op, language, args, answer, { tsPrograms: this.tsPrograms, programs: () => this.tsConfigs()?.paths.length ?? 0, deadlineAt: o.deadlineAt });
  }

  /** Projects csharp-ls has loaded, their references included (undefined: it chose itself). */
  loadedCSharpProjects(): ReadonlySet<string> | undefined {
    return this.csharpLs.coveredProjects();
  }

  async doctor(): Promise<ServerDoctorRow[]> {
    return this.lsp ? this.lsp.doctor() : [];
  }

  async dispose(): Promise<void> {
    this.restore?.dispose();
    await this.registry.dispose();
  }

  /** The tsconfig/jsconfig programs of the project model, keyed by the index version. */
  private tsConfigs(): { paths: string[]; key: string } | undefined {
    const g = projectGraph(this.engine);
    if (!g) return undefined;
    return { paths: g.projects.filter((p) => p.kind === 'tsconfig').map((p) => p.id).sort(), key: this.engine.version };
  }
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
