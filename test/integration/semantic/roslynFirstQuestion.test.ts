/**
 * The first C# question and the Roslyn host's background start (issue 14), real host, restored
 * generated workspace (24 projects): the host process is spawned when the semantic service is
 * created (not on a later tick, after the engine's first refresh), and a question asked while the
 * background start is compiling is answered precisely before that start has finished — it goes
 * first — after which the start goes on and finishes. Ordering only, no timings.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { cachedWorkspace } from '../../fixtures/generate';
import { Engine } from '../../../server/src/nav/engine';
import { disposeSemanticService, semanticService, type SemanticService } from '../../../server/src/nav/semanticService';
import { findDotnet, locateRoslynHost } from '../../../server/src/semantic/roslyn/roslynHost';
import { removeDir, restoredGeneratedCopy, waitFor } from './fixture';

describe('semantic: the first C# question goes before the Roslyn background start (real host, generated workspace)', function () {
  this.timeout(600_000);
  let dir: string;
  let engine: Engine;
  let svc: SemanticService;

  before(async function () {
    const host = locateRoslynHost();
    if (!host.ok) {
      if (findDotnet()) throw new Error(`dotnet is installed but ${host.reason}; run node scripts/build-roslyn-host.mjs`);
      this.skip();
    }
    dir = restoredGeneratedCopy(cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 }).root);
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
  });

  after(async () => {
    if (engine) {
      await disposeSemanticService(engine);
      await engine.close();
    }
    if (dir) removeDir(dir);
  });

  it('the host process is spawned when the semantic service is created, before any background step', () => {
    svc = semanticService(engine, { csharpProvider: 'roslyn' });
    // Synchronously after creation: the process exists and initializes (the background start's
    // first tick has not run yet, nothing is described).
    const st = svc.roslyn!.host.status();
    assert.equal(st.state, 'starting', st.detail);
    assert.ok(st.pid !== undefined, 'no host process yet');
    assert.equal(svc.roslyn!.ensuredKeys().size, 0);
  });

  it('a question asked while the background start compiles is answered precisely before the start ends', async () => {
    const roslyn = svc.roslyn!;
    assert.ok(await waitFor(() => (roslyn.prewarming?.compiled ?? 0) >= 1 || roslyn.lastPrewarm !== undefined, 300_000), 'the background start never began compiling');
    assert.equal(roslyn.lastPrewarm, undefined, `the background start ended before the question: ${JSON.stringify(roslyn.lastPrewarm)}`);
    const use = 'src/Billing/Acme.Billing.Holdings.Domain/Holding.cs';
    const lines = fs.readFileSync(`${dir}/${use}`, 'utf8').split(/\r?\n/);
    const line = lines.findIndex((l) => /\bGuard\./.test(l));
    const target = { path: use, line: line + 1, column: lines[line]!.indexOf('Guard.') + 1 };
    const compiledBefore = roslyn.prewarming!.compiled;
    const a = await svc.request('definition', 'csharp', target, { deadlineAt: Date.now() + 120_000, waitForReadyMs: 120_000 });
    const runningAtAnswer = roslyn.prewarming !== undefined;
    assert.equal(a.mode, 'precise', `${a.reason ?? ''} ${a.gaps.join('; ')}`);
    assert.equal(a.provider, 'roslyn');
    assert.deepEqual(a.value!.map((l) => `${l.path}:${l.line}:${l.column}`), ['src/Common/Acme.Common/Guard.cs:11:25']);
    assert.ok(runningAtAnswer, `the question was answered only after the background start ended: ${JSON.stringify(roslyn.lastPrewarm)}`);
    // The start goes on after the question and finishes on the same host process.
    const generation = roslyn.host.status().generation;
    assert.ok(await waitFor(() => roslyn.lastPrewarm !== undefined, 300_000), 'the background start never finished');
    const r = roslyn.lastPrewarm!;
    console.log(`      background start: ${JSON.stringify(r)}; compiled ${compiledBefore} before the question`);
    assert.equal(r.state, 'done', r.detail);
    assert.ok(r.compiled > compiledBefore, 'the background start did not go on after the question');
    assert.equal(roslyn.host.status().generation, generation, 'the host restarted');
  });
});
