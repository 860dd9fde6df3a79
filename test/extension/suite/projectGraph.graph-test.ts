/**
 * The graph suite (runInCodeServer --suite graph): a generated layered C# workspace of 3,000
 * projects (fixtures/layeredProjects.ts). The project graph opens focused on one busy project;
 * the page's own measurements of what it drew are checked against the engine's model: no two
 * labels overlap, every drawn edge is a project reference, the summary counts what is drawn.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { ProjectListRequest } from '../../../server/src/protocol/protocol';
import type { RenderedInfo } from '../../../src/graph/GraphPanel';
import { COMMANDS } from '../../../src/ids';
import { folder, note, screenshot, sextant, waitFor } from './helpers';

describe('project graph on a generated 3,000-project workspace', () => {
  it('opens focused on one project; labels do not overlap, drawn edges are references, the summary counts what is drawn (screenshot)', async function () {
    this.timeout(330_000);
    const api = await sextant();
    const engine = await waitFor('an engine for the workspace folder', () => api.engineFor(folder()));
    const t0 = Date.now();
    await waitFor('the engine to index 3,000 projects', () => engine.status?.state === 'ready', 240_000);
    note(`engine ready after ${Date.now() - t0} ms (${engine.status?.index.files} files)`);
    const list = await waitFor('3,000 projects in the model', async () => {
      const l = await engine.request(ProjectListRequest.type);
      return l.projects.length >= 3000 && !l.partial ? l : undefined;
    }, 60_000);
    assert.equal(list.projects.length, 3000);
    const focus = list.projects.find((p) => p.name === 'Contoso.Core.M0000')!;
    assert.ok(focus.dependents.length > 20, `the focus has ${focus.dependents.length} dependents`);

    const rendered = new Promise<RenderedInfo>((resolve) => api.graph.onDidRender(resolve));
    const started = Date.now();
    await vscode.commands.executeCommand(COMMANDS.showProjectGraph, focus.path);
    const r = await Promise.race([rendered, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('the project graph did not render within 60 s')), 60_000))]);
    const elapsed = Date.now() - started;
    // A figure, not an assertion (a loaded CI machine makes timings flaky); the target is 2 s.
    note(`3,000 projects: command to drawn graph ${elapsed} ms (page layout ${r.layoutMs} ms), ${r.nodes} nodes, ${r.edges} edges`);
    note(r.summary.replace(/\n/g, ' | '));

    const check = (r: RenderedInfo): void => {
      const view = api.graph.lastView!;
      assert.equal(r.nodes, view.nodes.length);
      assert.equal(r.edges, view.edges.length);
      assert.equal(view.focus, focus.path);
      // An edge to or from a folder cluster stands for references of its projects: at least one.
      const refs = new Set(list.projects.flatMap((p) => p.references.map((q) => `${p.path}>${q}`)));
      const ends = (id: string): string[] => view.nodes.find((n) => n.id === id)?.members ?? [id];
      for (const e of r.drawnEdges) {
        const [from, to] = e.split('>') as [string, string];
        assert.ok(ends(from).some((a) => ends(to).some((b) => refs.has(`${a}>${b}`))), `drawn edge ${e} is not a reference in the engine's model`);
      }
      const boxes = [...r.labels].sort((a, b) => a.x - b.x);
      for (let i = 0; i < boxes.length; i++) {
        const a = boxes[i]!;
        for (let j = i + 1; j < boxes.length && boxes[j]!.x < a.x + a.w; j++) {
          const b = boxes[j]!;
          assert.ok(!(a.y < b.y + b.h && b.y < a.y + a.h && b.x < a.x + a.w), `labels ${a.id} and ${b.id} overlap`);
        }
      }
      const m = /^Drawn: (\d+) projects?(?:, (\d+) folder clusters? \(\d+ projects\))? and (\d+) references? — Contoso\.Core\.M0000 with its dependencies and dependents to depth 2\.\n(?:Clusters \(click one to expand it\): .*\n)?Not drawn: (.*)$/.exec(r.summary);
      assert.ok(m, r.summary);
      assert.deepEqual([Number(m[1]) + Number(m[2] ?? 0), Number(m[3])], [r.nodes, r.edges]);
      assert.match(m[4]!, /references implied by a longer path hidden \(transitive reduction\)/);
      assert.ok(r.labels.length === r.nodes);
    };
    check(r);
    const clusters = api.graph.lastView!.nodes.filter((n) => n.category === 'cluster');
    assert.ok(clusters.length > 0, `200 drawn projects are grouped in folder clusters: ${r.summary}`);
    await new Promise((res) => setTimeout(res, 500));
    const shot = await screenshot('project-graph-3000');
    if (shot) assert.ok(shot.distinctColors > 20, `the screenshot looks blank: ${shot.distinctColors} colours`);

    // A click on the largest cluster (the page sends `expand`) draws its projects one by one.
    const largest = clusters.sort((a, b) => b.members!.length - a.members!.length)[0]!;
    const again = new Promise<RenderedInfo>((resolve) => api.graph.onDidRender(resolve));
    await api.graph.receive({ type: 'expand', folder: largest.folder! });
    const r2 = await Promise.race([again, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('the expanded graph did not render within 60 s')), 60_000))]);
    note(`expanded ${largest.folder}/: ${r2.nodes} nodes, ${r2.edges} edges (page layout ${r2.layoutMs} ms)`);
    check(r2);
    assert.equal(r2.nodes, r.nodes - 1 + largest.members!.length);
    for (const id of largest.members!) assert.equal(api.graph.lastView!.nodes.find((n) => n.id === id)?.folder, largest.folder);
    await new Promise((res) => setTimeout(res, 500));
    await screenshot('project-graph-3000-expanded');
  });
});
