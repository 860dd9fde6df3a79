import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/ids';
import type { RenderedInfo } from '../../../src/graph/GraphPanel';
import { at, folder, readyEngine, screenshot, sextant, waitFor } from './helpers';

async function renderedAfter(run: () => Thenable<unknown>, what: string): Promise<RenderedInfo> {
  const api = await sextant();
  const rendered = new Promise<RenderedInfo>((resolve) => api.graph.onDidRender(resolve));
  await run();
  return Promise.race([rendered, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${what} did not render within 30 s`)), 30_000))]);
}

describe('graph panel', () => {
  it('opens the project graph focused on the project of the active editor file', async () => {
    const api = await sextant();
    await readyEngine();
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder().uri, 'src/main.ts'));
    await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    const r = await renderedAfter(() => vscode.commands.executeCommand(COMMANDS.showProjectGraph), 'the project graph');
    const view = api.graph.lastView!;
    const focus = view.nodes.find((n) => n.focus);
    assert.ok(focus && ['package.json', 'tsconfig.json'].includes(focus.id), JSON.stringify(view.nodes));
    assert.equal(r.nodes, view.nodes.length);
    assert.match(r.summary, new RegExp(`^Drawn: ${r.nodes} projects? and ${r.edges} references?`));
    assert.ok(api.graph.visible);
  });

  it('draws the call graph of the symbol at the cursor at depth 1, mode in words, and the screenshot is not blank', async () => {
    const api = await sextant();
    await readyEngine();
    const decl = at('src/shapes.ts', 'totalArea');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder().uri, 'src/shapes.ts'));
    const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    const pos = new vscode.Position(decl.line - 1, decl.column);
    editor.selection = new vscode.Selection(pos, pos);
    const r = await renderedAfter(() => vscode.commands.executeCommand(COMMANDS.showCallGraph), 'the call graph');
    assert.equal(api.graph.lastData?.mode, 'precise', api.graph.lastData?.summary);
    // Depth 1: totalArea and its direct caller report (reportTwice calls report, one level up).
    assert.equal(r.nodes, 2);
    assert.equal(r.edges, 1);
    assert.match(r.summary, /^Drawn: 2 functions and 1 call \(1 exact, 0 heuristic\) — callers of totalArea to depth 1\.\nPrecise: /);
    await new Promise((res) => setTimeout(res, 500));
    const shot = await screenshot('call-graph');
    if (shot) assert.ok(shot.distinctColors > 20, `the screenshot looks blank: ${shot.distinctColors} colours`);
    await waitFor('the panel to stay open', () => api.graph.visible);
  });
});
