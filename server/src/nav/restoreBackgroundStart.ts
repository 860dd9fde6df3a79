/** Restore into Sextant's state (semantic/restore/), planned and started once the project model exists. */
import { restorePlan } from '../semantic/restore/restorePlan';
import type { RestoreService } from '../semantic/restore/restoreService';
import type { Engine } from './engine';
import { whenProjectModelReady } from './whenProjectModelReady';

/** Once the project model exists and the index is not being built: plans restore into state and starts it (when allowed). */
export function startRestoreInBackground(engine: Engine, restore: RestoreService): void {
  const wait = whenProjectModelReady(engine, (g) => {
    void restorePlan(g, engine.root, (rel) => {
      try {
        return engine.policy.readFile(rel).bytes.toString('utf8');
      } catch {
        return undefined; // missing (most Directory.Build.targets candidates) or unreadable
      }
    }).then(
      (plan) => {
        if (!wait.stopped()) restore.start(plan.projects, plan.refusal);
      },
      (e: unknown) => {
        if (!wait.stopped()) restore.start([], `restore could not be planned: ${(e as Error).message}`);
      },
    );
  });
  // After the wait's own close hook: nothing is started once disposing begins.
  engine.onClose(() => restore.dispose());
}
