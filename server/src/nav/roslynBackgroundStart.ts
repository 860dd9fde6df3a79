/**
 * The Roslyn host's background start: the process is spawned as soon as the project graph has C#
 * projects (its .NET start, initialize and JIT warm-up run beside the engine's first refresh), and
 * once the index is not being built every C# project is described to it, the most depended-on
 * ones compiled first (RoslynProvider.prewarm). Neither the index nor a question waits for it.
 */
import { log } from '../core/log';
import { timeSlice } from '../core/timeSlice';
import type { ProjectGraph } from '../projects/ProjectGraph';
import type { ProjectDescriber } from '../semantic/roslyn/projectDescriptions';
import { splitKey } from '../semantic/roslyn/projectDescriptions';
import type { RoslynProvider } from '../semantic/roslyn/roslynProvider';
import type { Engine } from './engine';
import { projectGraph } from './projects';
import { projectRefs } from './projectRefs';
import { whenProjectModelReady } from './whenProjectModelReady';

export class RoslynBackgroundStart {
  /** Aborts the background start (engine closing). */
  private readonly controller = new AbortController();
  private hostStarted = false;
  /** C# projects the background start left out because recorded facts cover them (set once decided). */
  leftOut: { projects: number; of: number } | undefined;

  constructor(
    private readonly engine: Engine,
    private readonly roslyn: RoslynProvider,
  ) {}

  /** Spawns the Roslyn host (not waiting for it) once, when the project graph has C# projects. */
  startHostEarly(): void {
    if (this.hostStarted) return;
    const g = projectGraph(this.engine);
    if (!g || !g.projects.some((p) => p.kind === 'csharp')) return;
    this.hostStarted = true;
    this.roslyn.startHost(this.controller.signal);
  }

  /**
   * Starts the host once the graph exists, then describes and compiles once the index is not
   * being built; only when the workspace has C# projects; once per engine. `skipCompile(project)`:
   * a project recorded facts cover is not compiled in the background (its questions are answered from them).
   */
  startInBackground(skipCompile: (project: string) => Promise<boolean>, recorded?: () => Promise<(project: string) => boolean>): void {
    const controller = this.controller;
    whenProjectModelReady(
      this.engine,
      (g) => void this.describeAndCompile(g, skipCompile, recorded),
      // The process itself (initialize + its own JIT warm-up, a few seconds) as soon as the graph
      // exists; describing and compiling wait until the index is not being built.
      () => this.startHostEarly(),
    );
    this.engine.onClose(() => controller.abort(new Error('engine closing')));
  }

  /**
   * `recorded(project)`: recorded facts cover the project's files (their content): it is neither
   * described nor loaded in the background (on 3,000 persisted or imported projects that work
   * would only compete with the questions the facts answer); a question that needs it loads it.
   */
  private async describeAndCompile(g: ProjectGraph, skipCompile: (project: string) => Promise<boolean>, recorded?: () => Promise<(project: string) => boolean>): Promise<void> {
    const controller = this.controller;
    let csharp = g.projects.filter((p) => p.kind === 'csharp' && p.status !== 'failed');
    if (csharp.length === 0) return;
    if (recorded) {
      const covered = await recorded();
      const slice = timeSlice();
      const left: typeof csharp = [];
      for (const p of csharp) {
        await slice();
        if (!covered(p.id)) left.push(p);
      }
      this.leftOut = { projects: csharp.length - left.length, of: csharp.length };
      if (left.length < csharp.length) log.info(`roslyn: background start leaves out ${csharp.length - left.length} of ${csharp.length} C# projects recorded facts cover`);
      if (left.length === 0 || controller.signal.aborted) return;
      csharp = left;
    }
    const up = projectRefs(g).up;
    // Most direct dependents first (in-degree in the project graph): the projects the most
    // questions need. A transitive count would walk the graph once per project.
    const degree = new Map(csharp.map((p) => [p.id, up.get(p.id)?.length ?? 0]));
    const order = (d: ProjectDescriber) =>
      [...csharp]
        .sort((a, b) => degree.get(b.id)! - degree.get(a.id)! || (a.id < b.id ? -1 : 1))
        .map((p) => d.keyOfProject(p.id))
        .filter((k): k is string => k !== undefined);
    void this.roslyn.prewarm({ signal: controller.signal, order, skipCompile: (k: string) => skipCompile(splitKey(k).project) });
  }
}
