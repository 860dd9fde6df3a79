import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/ids';
import { EngineStatusRequest } from '../../../server/src/protocol/protocol';
import { folder, readyEngine, sextant, waitFor } from './helpers';

describe('engine over node IPC', () => {
  it('starts one engine for the workspace folder and indexes it', async () => {
    const engine = await readyEngine();
    const status = await engine.request(EngineStatusRequest.type);
    assert.equal(status.state, 'ready');
    assert.equal(status.workspaceRoot, folder().uri.fsPath);
    assert.ok(status.index.files >= 4, `indexed ${status.index.files} files`);
    assert.ok(status.pid > 0 && status.pid !== process.pid);
  });

  it('shows the index status in the Index view and the status bar', async () => {
    const api = await sextant();
    await readyEngine();
    // The TypeScript extension activates when a TypeScript file opens, usually after the engine
    // started: the extension must tell the engine then (VS Code has no activation event), and the
    // engine's next status push brings the row to the view. Run alone (--grep) nothing else opens one.
    await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder().uri, 'src', 'main.ts'));
    const rows = await waitFor('index view rows with the index fresh and the editor provider for typescript', () => {
      const r = api.index.describe();
      return r.some((l) => l.startsWith('Index: up to date')) && r.some((l) => /^ {2}typescript: editor/.test(l)) ? r : undefined;
    });
    assert.ok(rows.some((l) => /^Engine: running \(pid \d+\)$/.test(l)), rows.join('\n'));
    assert.ok(rows.some((l) => l.startsWith('Languages')), rows.join('\n'));
    assert.ok(rows.some((l) => /^ {2}typescript: editor · ready$/.test(l)), rows.join('\n'));
    // An agent session (VS Code's MCP client, once a test started it) is counted too.
    assert.match(api.statusBar.text, /^\$\(check\) Sextant: \d+ files · up to date( · \d+ agents?)?$/);
  });

  it('lists the workspace projects in the Projects view', async () => {
    const api = await sextant();
    await readyEngine();
    await waitFor('projects in the view', () => api.projects.projectCount() > 0);
    const top = api.projects.getChildren();
    const labels = top.map((n) => String(api.projects.getTreeItem(n).label));
    assert.ok(labels.includes('sextant-ext-fixture'), labels.join(', '));
  });

  it('Reindex Workspace picks up a new file, and Show Index Status reports it', async () => {
    const engine = await readyEngine();
    const before = engine.status!.index.files;
    const file = path.join(folder().uri.fsPath, 'src', 'extra.ts');
    fs.writeFileSync(file, 'export const extra = 1;\n');
    try {
      const results = (await vscode.commands.executeCommand(COMMANDS.reindex)) as { files: number }[];
      assert.equal(results.length, 1);
      assert.equal(results[0]!.files, before + 1);
      const statuses = (await vscode.commands.executeCommand(COMMANDS.showIndexStatus)) as { index: { files: number } }[];
      assert.equal(statuses[0]!.index.files, before + 1);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  it('restarts the engine after it is killed, serves again, and re-announces its MCP endpoint', async () => {
    const api = await sextant();
    const engine = await readyEngine();
    const oldPid = engine.pid!;
    const oldUrl = await waitFor('the MCP endpoint', () => api.mcpDefinitions()[0]?.uri.toString());
    let changes = 0;
    const sub = api.mcp.onDidChangeMcpServerDefinitions(() => changes++);
    try {
      process.kill(oldPid, 'SIGKILL');
      await waitFor('a new engine process', () => engine.pid !== undefined && engine.pid !== oldPid && engine.status?.state === 'ready', 60_000);
      const status = await engine.request(EngineStatusRequest.type);
      assert.notEqual(status.pid, oldPid);
      assert.equal(status.state, 'ready');
      assert.throws(() => process.kill(oldPid, 0), 'the killed engine is gone');
      // The new engine took over the stale lock and listens on a new port; VS Code is told.
      const newUrl = await waitFor('a new MCP endpoint', () => {
        const u = api.mcpDefinitions()[0]?.uri.toString();
        return u && u !== oldUrl ? u : undefined;
      });
      assert.equal(newUrl, engine.endpoint?.url);
      assert.ok(changes >= 1, 'onDidChangeMcpServerDefinitions fired');
    } finally {
      sub.dispose();
    }
  });
});
