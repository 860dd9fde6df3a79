/**
 * The semantic registry of one engine: the editor slot (filled by the extension host), the
 * headless language servers, and the heuristic provider over the engine's index. The C# projects
 * csharp-ls loads are chosen from the project model on the first C# request: the smallest
 * solution that contains the target's project, else a generated list (the project, what it
 * references, and what references it).
 */
import { SEMANTIC_DEADLINE_MS, SEMANTIC_WAIT_FOR_READY_MS } from '../core/limits';
import { HeuristicProvider } from '../semantic/heuristic/heuristicProvider';
import type { ServerDoctorRow } from '../semantic/lsp/doctor';
import { LspProvider, type CSharpSelection, type FileCoverage } from '../semantic/lsp/lspProvider';
import { parseServerOverride } from '../semantic/lsp/serverSpec';
import type { OpArgs, OpResult, SemanticOp, SemanticProvider } from '../semantic/provider';
import { SemanticRegistry, type SemanticAnswer } from '../semantic/registry';
import type { Engine } from './engine';
import { projectGraph } from './projects';

/** Projects a generated C# solution may list at most (a bigger closure loads the smallest solution instead). */
const MAX_GENERATED_PROJECTS = 300;

export interface SemanticServiceOptions {
  /** Extra language servers, `<lang>[:<.ext>,…]=<command> [args…]` each (CLI `--lsp`, env SEXTANT_LSP). */
  servers?: string[];
  /** Skip the headless language servers (tests of the heuristic path). */
  noLsp?: boolean;
}

export class SemanticService {
  readonly registry = new SemanticRegistry();
  readonly lsp: LspProvider | undefined;
  readonly heuristic: HeuristicProvider;
  private csharpChosen = false;
  private loadedCSharp: Set<string> | undefined;
  /** How the C# projects were chosen, for answers and doctor. */
  csharpScope = 'csharp-ls picks (no project model yet)';

  constructor(private readonly engine: Engine, options: SemanticServiceOptions = {}) {
    const servers = [...(options.servers ?? []), ...envServers()].map(parseServerOverride);
    if (!options.noLsp) {
      this.lsp = new LspProvider({ root: engine.root, servers, coverage: (language, p) => this.coverage(language, p) });
      this.registry.register(this.lsp, 'lsp');
    }
    this.heuristic = new HeuristicProvider({ store: engine.store, root: engine.root });
    this.registry.register(this.heuristic, 'heuristic');
  }

  /** The extension host registers its editor provider here; the returned function removes it. */
  registerEditor(provider: SemanticProvider): () => void {
    return this.registry.register(provider, 'editor');
  }

  /** Asks the providers for one target (workspace-relative path), choosing the C# projects first. */
  async request<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, o: { deadlineAt?: number; waitForReadyMs?: number; preciseOnly?: boolean } = {}): Promise<SemanticAnswer<OpResult<K>>> {
    if (language === 'csharp') await this.chooseCSharp((args as { path?: string }).path);
    const deadlineMs = o.deadlineAt !== undefined ? Math.max(200, o.deadlineAt - Date.now()) : SEMANTIC_DEADLINE_MS;
    return this.registry.request(op, language, args, {
      deadlineMs,
      waitForReadyMs: o.waitForReadyMs ?? SEMANTIC_WAIT_FOR_READY_MS,
      ...(o.preciseOnly ? { preciseOnly: true } : {}),
    });
  }

  /** Projects csharp-ls has loaded (undefined: it chose itself). */
  loadedCSharpProjects(): ReadonlySet<string> | undefined {
    return this.loadedCSharp;
  }

  async doctor(): Promise<ServerDoctorRow[]> {
    return this.lsp ? this.lsp.doctor() : [];
  }

  async dispose(): Promise<void> {
    await this.registry.dispose();
  }

  private async chooseCSharp(path: string | undefined): Promise<void> {
    if (this.csharpChosen || !this.lsp || path === undefined) return;
    this.csharpChosen = true;
    const g = projectGraph(this.engine);
    if (!g) return; // no project model yet: csharp-ls picks (the solution with most projects)
    const own = (g.files.get(path) ?? []).map((e) => e.project);
    let selection: CSharpSelection = { auto: true };
    const solutions = g.solutions.filter((s) => s.kind !== 'slnf' && s.projects.some((p) => own.includes(p))).sort((a, b) => a.projects.length - b.projects.length);
    if (solutions[0]) {
      selection = { solution: solutions[0].path };
      this.loadedCSharp = new Set(solutions[0].projects);
      this.csharpScope = `solution ${solutions[0].path} (${solutions[0].projects.length} projects)`;
    } else if (own.length > 0) {
      const closure = projectClosure(g.edges, own, MAX_GENERATED_PROJECTS);
      selection = { projects: closure };
      this.loadedCSharp = new Set(closure);
      this.csharpScope = `generated solution: ${closure.length} projects around ${own[0]}`;
    } else {
      this.csharpScope = 'csharp-ls picks (the target file belongs to no known project)';
    }
    await this.lsp.configureCSharp(selection);
  }

  private coverage(language: string, p: string): FileCoverage {
    if (language !== 'csharp') return { kind: 'unknown' };
    const g = projectGraph(this.engine);
    const entries = g?.files.get(p) ?? [];
    if (entries.length > 1) return { kind: 'multi_project', projects: entries.map((e) => e.project) };
    if (this.loadedCSharp && entries.length > 0 && !entries.some((e) => this.loadedCSharp!.has(e.project))) {
      return { kind: 'not_covered', reason: `csharp-ls loaded ${this.csharpScope}; ${entries[0]!.project} is not in it` };
    }
    return entries.length ? { kind: 'covered' } : { kind: 'unknown' };
  }
}

/** The projects, their references (transitively) and their dependents (transitively), bounded. */
function projectClosure(edges: readonly { kind: string; from: string; to: string }[], start: string[], max: number): string[] {
  const refs = edges.filter((e) => e.kind === 'projectReference');
  const down = new Map<string, string[]>();
  const up = new Map<string, string[]>();
  for (const e of refs) {
    (down.get(e.from) ?? down.set(e.from, []).get(e.from)!).push(e.to);
    (up.get(e.to) ?? up.set(e.to, []).get(e.to)!).push(e.from);
  }
  const out = new Set(start);
  for (const graph of [down, up]) {
    const queue = [...start];
    while (queue.length && out.size < max) {
      const p = queue.shift()!;
      for (const n of graph.get(p) ?? []) {
        if (out.has(n)) continue;
        out.add(n);
        queue.push(n);
      }
    }
  }
  return [...out].slice(0, max);
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
