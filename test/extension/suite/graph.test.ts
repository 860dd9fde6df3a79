import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/ids';
import { at, folder, readyEngine, screenshot, sextant, waitFor } from './helpers';

describe('graph panel', () => {
  it('draws the project graph in a webview', async () => {
    const api = await sextant();
    await readyEngine();
    const rendered = new Promise<{ nodes: number }>((resolve) => api.graph.onDidRender(resolve));
    await vscode.commands.executeCommand(COMMANDS.showProjectGraph);
    const r = await Promise.race([rendered, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('the graph page did not render within 30 s')), 30_000))]);
    assert.ok(r.nodes >= 1, `drew ${r.nodes} nodes`);
    assert.ok(api.graph.visible);
  });

  it('draws the call graph of the symbol at the cursor, and the workbench screenshot is not blank', async () => {
    const api = await sextant();
    await readyEngine();
    const decl = at('src/shapes.ts', 'totalArea');
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder().uri, 'src/shapes.ts'));
    const editor = await vscode.window.showTextDocument(doc, vscode.ViewColumn.One);
    const pos = new vscode.Position(decl.line - 1, decl.column);
    editor.selection = new vscode.Selection(pos, pos);
    const rendered = new Promise<{ nodes: number; edges: number }>((resolve) => api.graph.onDidRender(resolve));
    await vscode.commands.executeCommand(COMMANDS.showCallGraph);
    const r = await Promise.race([rendered, new Promise<never>((_, rej) => setTimeout(() => rej(new Error('the call graph did not render within 30 s')), 30_000))]);
    assert.equal(api.graph.lastData?.mode, 'precise', api.graph.lastData?.summary);
    assert.equal(r.nodes, 3);
    assert.equal(r.edges, 2);
    await new Promise((res) => setTimeout(res, 1_000)); // let the canvas paint
    const shot = await screenshot('graph-panel');
    if (shot) {
      assert.ok(shot.distinctColors > 20, `the screenshot looks blank: ${shot.distinctColors} colours`);
      api.log.info(`screenshot ${shot.path}`);
    }
    await waitFor('the panel to stay open', () => api.graph.visible);
  });
});
