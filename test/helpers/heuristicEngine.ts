import { Engine } from '../../server/src/nav/engine';
import { disposeSemanticService, semanticService } from '../../server/src/nav/semanticService';
import { removeDir } from './workspace';

/** Mocha hooks: an engine over the folder `makeDir` creates, answering semantic questions with the heuristic provider only. */
export function heuristicEngine(makeDir: () => string): () => Engine {
  let dir: string;
  let engine: Engine;
  before(async () => {
    dir = makeDir();
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
    semanticService(engine, { noLsp: true });
  });
  after(async () => {
    await disposeSemanticService(engine);
    await engine.close();
    removeDir(dir);
  });
  return () => engine;
}
