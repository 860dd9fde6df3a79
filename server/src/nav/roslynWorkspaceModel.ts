/** The project model as the Roslyn provider reads it: a describer per project-graph version, dependents, text-index mentions. */
import type { ProjectGraph } from '../projects/ProjectGraph';
import { ProjectDescriber } from '../semantic/roslyn/projectDescriptions';
import type { RoslynWorkspaceModel } from '../semantic/roslyn/roslynProvider';
import type { RestoreService } from '../semantic/restore/restoreService';
import type { Engine } from './engine';
import { projectGraph } from './projects';
import { projectRefs, reachable } from './projectRefs';
import type { TextMentions } from './textMentions';

export interface EngineRoslynModel extends RoslynWorkspaceModel {
  describer(): ProjectDescriber | undefined;
  /** Restored projects are described again (their packages now resolve) on their next question. */
  forget(projects: string[]): void;
}

/** `restore()`: the engine's restore into state, read when a graph's describer is made (it is created after the model). */
export function roslynWorkspaceModel(engine: Engine, mentions: TextMentions, restore: () => RestoreService | undefined): EngineRoslynModel {
  const describers = new WeakMap<ProjectGraph, ProjectDescriber>();
  const dependentsCache = new WeakMap<ProjectGraph, Map<string, Set<string>>>();
  return {
    describer: () => {
      const g = projectGraph(engine);
      if (!g) return undefined;
      let d = describers.get(g);
      if (!d) {
        const r = restore();
        d = new ProjectDescriber({
          root: engine.root,
          graph: g,
          files: engine.catalog().all().map((x) => x.path),
          policy: engine.policy,
          ...(r ? { restoredAssets: (project: string) => r.stateAssets(project) } : {}),
        });
        describers.set(g, d);
      }
      return d;
    },
    forget: (projects) => {
      const g = projectGraph(engine);
      if (g) describers.get(g)?.forget(projects);
    },
    dependents: (project) => {
      const g = projectGraph(engine);
      if (!g) return new Set();
      let m = dependentsCache.get(g);
      if (!m) dependentsCache.set(g, (m = new Map()));
      let set = m.get(project);
      if (!set) {
        set = reachable(projectRefs(g).up, [project]);
        set.delete(project);
        m.set(project, set);
      }
      return set;
    },
    projectsMentioning: (name) => {
      const g = projectGraph(engine);
      return g ? mentions.projectsMentioning(g, name) : undefined;
    },
    filesMentioning: (name) => mentions.filesMentioning(name),
    pendingPaths: () => engine.pendingPaths(),
  };
}
