/** Background starts that wait for the project model: polled, never blocking the index or a question. */
import { ROSLYN_PREWARM_POLL_MS } from '../core/limits';
import type { ProjectGraph } from '../projects/ProjectGraph';
import type { Engine } from './engine';
import { projectGraph } from './projects';

export interface ReadyWait {
  /** The engine closed (a start that resolves later does nothing then). */
  stopped(): boolean;
}

/**
 * Calls `ready` once, on a timer turn, when the project model exists and the index is not being
 * built (checked every ROSLYN_PREWARM_POLL_MS until then); `each` on every check that finds a graph.
 * Nothing runs after the engine closed.
 */
export function whenProjectModelReady(engine: Engine, ready: (g: ProjectGraph) => void, each?: (g: ProjectGraph) => void): ReadyWait {
  let stopped = false;
  engine.onClose(() => {
    stopped = true;
  });
  const tick = () => {
    if (stopped) return;
    const g = projectGraph(engine);
    if (g) each?.(g);
    if (!g || engine.meta().status === 'building') {
      setTimeout(tick, ROSLYN_PREWARM_POLL_MS).unref();
      return;
    }
    ready(g);
  };
  setTimeout(tick, 0).unref();
  return { stopped: () => stopped };
}
