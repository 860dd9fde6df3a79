/**
 * The C# suite (runInCodeServer --suite csharp): the Projects view, Index view and project graph
 * on a multi-project C# solution (test/fixtures/semantic/csharp). No C# extension is installed in
 * code-server, so C# semantics come from the engine's own providers, and the Index view says so.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/ids';
import { readyEngine, screenshot, sextant, waitFor } from './helpers';

type Tree = vscode.TreeDataProvider<unknown>;

async function labels(tree: Tree, parent?: unknown): Promise<{ node: unknown; item: vscode.TreeItem }[]> {
  const kids = ((await tree.getChildren(parent)) ?? []) as unknown[];
  return Promise.all(kids.map(async (node) => ({ node, item: await tree.getTreeItem(node) })));
}
const text = (i: vscode.TreeItem): string => (typeof i.label === 'string' ? i.label : (i.label?.label ?? ''));

describe('C# solution: Projects view, Index view, project graph', () => {
  it('shows the solution, its projects with the test project marked, and references/dependents', async () => {
    const api = await sextant();
    await readyEngine();
    await waitFor('projects in the view', () => api.projects.projectCount() >= 3);
    const tree = api.projects as unknown as Tree;
    const top = await labels(tree);
    assert.deepEqual(top.map((t) => text(t.item)), ['Shapes']);
    assert.equal(top[0]!.item.description, '3 projects');
    const projects = await labels(tree, top[0]!.node);
    // Production projects first, then tests.
    assert.deepEqual(projects.map((p) => text(p.item)), ['App', 'Geometry', 'Geometry.Tests']);
    const tests = projects.find((p) => text(p.item) === 'Geometry.Tests')!;
    assert.match(String(tests.item.description), /\btest\b/);
    assert.equal((tests.item.iconPath as vscode.ThemeIcon).id, 'beaker');
    const geometry = projects.find((p) => text(p.item) === 'Geometry')!;
    const groups = await labels(tree, geometry.node);
    assert.deepEqual(groups.map((g) => text(g.item)), ['Dependents (2)']);
    const dependents = await labels(tree, groups[0]!.node);
    assert.deepEqual(dependents.map((d) => text(d.item)), ['App', 'Geometry.Tests']);
    const app = projects.find((p) => text(p.item) === 'App')!;
    const appGroups = await labels(tree, app.node);
    assert.deepEqual(appGroups.map((g) => text(g.item)), ['References (1)']);
  });

  it('clicking a project opens its project file', async () => {
    const api = await sextant();
    await readyEngine();
    const tree = api.projects as unknown as Tree;
    const top = await labels(tree);
    const geometry = (await labels(tree, top[0]!.node)).find((p) => text(p.item) === 'Geometry')!;
    const cmd = geometry.item.command!;
    await vscode.commands.executeCommand(cmd.command, ...(cmd.arguments ?? []));
    await waitFor('the project file in the editor', () => vscode.window.activeTextEditor?.document.uri.path.endsWith('src/Geometry/Geometry.csproj'));
  });

  it('the Index view says which provider serves C# (not the editor: no C# extension here)', async () => {
    const api = await sextant();
    await readyEngine();
    const rows = await waitFor('a csharp row', () => {
      const r = api.index.describe();
      return r.find((l) => /^ {2}csharp: /.test(l));
    });
    assert.match(rows, /^ {2}csharp: (roslyn|lsp|heuristic) · (ready|loading|absent)$/);
    assert.ok(api.index.describe().some((l) => /^Projects: 3 \(3 ready\) — the Projects view lists them$/.test(l)), api.index.describe().join('\n'));
  });

  it('the project graph around Geometry shows its dependents, the test project marked (screenshot)', async () => {
    const api = await sextant();
    await readyEngine();
    const rendered = new Promise<{ nodes: number; edges: number }>((resolve) => api.graph.onDidRender(resolve));
    await vscode.commands.executeCommand(COMMANDS.showProjectGraph, 'src/Geometry/Geometry.csproj');
    const r = await Promise.race([rendered, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('the project graph did not render within 30 s')), 30_000))]);
    assert.deepEqual({ nodes: r.nodes, edges: r.edges }, { nodes: 3, edges: 2 });
    const view = api.graph.lastView!;
    assert.deepEqual(view.nodes.map((n) => `${n.label}${n.focus ? '*' : ''}${n.category === 'test' ? ' (test)' : ''}`).sort(), ['App', 'Geometry*', 'Geometry.Tests (test)']);
    await new Promise((res) => setTimeout(res, 1_000));
    const shot = await screenshot('project-graph');
    if (shot) assert.ok(shot.distinctColors > 20, `the screenshot looks blank: ${shot.distinctColors} colours`);
  });
});
