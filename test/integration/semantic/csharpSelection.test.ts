/**
 * Which projects csharp-ls loads, per question, on a restored generated workspace (24 projects,
 * solutions of 19 and 31): the first question loads only its file's project and what that
 * references; a references question grows the set to the projects whose files mention the name,
 * and the references found are exactly the files that use it. Real csharp-ls, real engine.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { cachedWorkspace } from '../../fixtures/generate';
import { Engine } from '../../../server/src/nav/engine';
import { projectGraph } from '../../../server/src/nav/projects';
import { definitionQuery, referencesQuery } from '../../../server/src/nav/semanticQueries';
import { disposeSemanticService, semanticService } from '../../../server/src/nav/semanticService';
import { skipWithoutCsharpLs } from '../../helpers/csharpLs';
import { removeDir, restoredGeneratedCopy } from './fixture';

describe('csharp-ls loads the projects a question needs (generated workspace, real csharp-ls)', function () {
  this.timeout(600_000);
  let dir: string;
  let engine: Engine;
  let mentionPaths: string[];

  before(async function () {
    skipWithoutCsharpLs(this);
    const w = cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 });
    const fact = w.manifest.facts.find((f) => f.id === 'hotType')!;
    mentionPaths = [...(fact as { mentionPaths: string[] }).mentionPaths].sort();
    dir = restoredGeneratedCopy(w.root);
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
    // These tests pin csharp-ls's project selection (the Roslyn host grows one workspace instead).
    semanticService(engine, { csharpProvider: 'csharp-ls' });
  });

  after(async () => {
    if (engine) {
      await disposeSemanticService(engine);
      await engine.close();
    }
    if (dir) removeDir(dir);
  });

  const USE = 'src/Billing/Acme.Billing.Holdings.Domain/Holding.cs';

  it('the first question loads only its project and the projects it references', async () => {
    const lines = fs.readFileSync(`${dir}/${USE}`, 'utf8').split(/\r?\n/);
    const line = lines.findIndex((l) => /\bGuard\./.test(l));
    const target = { path: USE, line: line + 1, column: lines[line]!.indexOf('Guard.') + 1 };
    let a: Awaited<ReturnType<typeof definitionQuery>> | undefined;
    const t0 = Date.now();
    for (let i = 0; i < 30 && !(a && !('ambiguous' in a) && a.mode === 'precise'); i++) a = await definitionQuery(engine, target, { waitForReadyMs: 20_000, deadlineAt: Date.now() + 25_000 });
    assert.ok(a && !('ambiguous' in a));
    assert.equal(a.mode, 'precise', a.reason);
    assert.deepEqual(a.rows.map((r) => `${r.path}:${r.line}:${r.column}`), ['src/Common/Acme.Common/Guard.cs:11:25']);
    const g = projectGraph(engine)!;
    const loaded = [...semanticService(engine).loadedCSharpProjects()!].sort();
    // Holding.cs's project and its references (Acme.Common among them); no test project, and far
    // fewer than either solution.
    const own = g.files.get(USE)![0]!.project;
    assert.ok(loaded.includes(own) && loaded.includes('src/Common/Acme.Common/Acme.Common.csproj'), loaded.join(', '));
    const byId = new Map(g.projects.map((p) => [p.id, p]));
    assert.ok(loaded.every((p) => !byId.get(p)!.isTest), loaded.join(', '));
    assert.ok(loaded.length <= 4, `${loaded.length} projects: ${loaded.join(', ')}`);
    console.log(`      first precise answer after ${Date.now() - t0} ms with ${loaded.length} projects loaded: ${semanticService(engine).csharpScope}`);
  });

  it('a references question grows the set to the projects that mention the name; every use is found', async () => {
    let a: Awaited<ReturnType<typeof referencesQuery>> | undefined;
    for (let i = 0; i < 30 && !(a && !('ambiguous' in a) && a.mode === 'precise'); i++) {
      a = await referencesQuery(engine, { qualifiedName: 'Acme.Common.Guard' }, { waitForReadyMs: 20_000, deadlineAt: Date.now() + 25_000 });
    }
    assert.ok(a && !('ambiguous' in a));
    assert.equal(a.mode, 'precise', `${a.mode}: ${a.reason ?? ''} ${a.gaps.join('; ')}`);
    assert.deepEqual([...new Set(a.rows.map((r) => r.path))].sort(), mentionPaths);
    const loaded = semanticService(engine).loadedCSharpProjects()!;
    assert.ok(loaded.has('tests/Common/Acme.Testing/Acme.Testing.csproj'));
    console.log(`      references: ${a.counts.total} in ${a.counts.projects} projects; ${loaded.size} projects loaded: ${semanticService(engine).csharpScope}`);
  });
});
