import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentActivity } from '../../../server/src/protocol/protocol';
import { COMMANDS } from '../../../src/ids';
import type { ActivityNode } from '../../../src/views/ActivityView';
import type { ProjectsNode } from '../../../src/views/ProjectsView';
import { folder, readyEngine, sextant, waitFor } from './helpers';

interface Menu {
  command: string;
  when: string;
  group?: string;
}
const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../../package.json'), 'utf8')) as { contributes: { menus: Record<string, Menu[]> } };

async function projectNode(): Promise<ProjectsNode> {
  const api = await sextant();
  await waitFor('projects in the view', () => api.projects.projectCount() > 0);
  const node = api.projects.getChildren().find((n) => n.kind === 'project' && n.project.path === 'package.json');
  assert.ok(node, 'a project row');
  return node;
}

describe('views that act', () => {
  it('project rows have a context menu: Show Graph Around, Open Project File, Reveal in Explorer, Copy Project Path', async function () {
    // Runs after the 3,000-file test: on a loaded machine the engine may still be re-indexing.
    this.timeout(300_000);
    await readyEngine();
    const node = await projectNode();
    const api = await sextant();
    const item = api.projects.getTreeItem(node);
    const menu = manifest.contributes.menus['view/item/context']!.filter((m) => m.when.includes('view == sextant.projects'));
    assert.deepEqual([...new Set(menu.map((m) => m.command))].sort(), [COMMANDS.copyProjectPath, COMMANDS.openProjectFile, COMMANDS.revealProjectInExplorer, COMMANDS.showGraphAround].sort());
    // The menus' `when` matches this row's contextValue.
    assert.match(String(item.contextValue), /^project/);

    const copied = await vscode.commands.executeCommand<string>(COMMANDS.copyProjectPath, node);
    assert.equal(copied, 'package.json');
    assert.equal(await vscode.env.clipboard.readText(), 'package.json');

    await vscode.commands.executeCommand(COMMANDS.openProjectFile, node);
    await waitFor('the project file in the editor', () => vscode.window.activeTextEditor?.document.uri.fsPath === path.join(folder().uri.fsPath, 'package.json'));

    const revealed = await vscode.commands.executeCommand<vscode.Uri>(COMMANDS.revealProjectInExplorer, node);
    assert.equal(revealed?.fsPath, path.join(folder().uri.fsPath, 'package.json'));

    const rendered = new Promise((resolve) => api.graph.onDidRender(resolve));
    const focus = await vscode.commands.executeCommand<string>(COMMANDS.showGraphAround, node);
    assert.equal(focus, 'package.json');
    await Promise.race([rendered, new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`the project graph did not render within 120 s (panel visible: ${api.graph.visible}, last view focus: ${api.graph.lastView?.focus})`)), 120_000))]);
    assert.equal(api.graph.lastView?.focus, 'package.json');
  });

  it('Show Index Status opens a document a person reads', async () => {
    const api = await sextant();
    const engine = await readyEngine();
    // Earlier tests add and remove files: wait until the index has caught up.
    await waitFor('the index up to date', () => api.index.describe().some((l) => l.startsWith('Index: up to date')), 90_000).catch((e: Error) => {
      // Which state it stayed in (a refresh that never re-ran, a change still owed, or no status at all).
      throw new Error(`${e.message}; the Index view says: ${api.index.describe().join(' | ')}; engine status: ${JSON.stringify({ state: engine.status?.state, index: engine.status?.index, error: engine.status?.error })}`);
    });
    await vscode.commands.executeCommand(COMMANDS.showIndexStatus);
    const doc = await waitFor('the status document', () => {
      const d = vscode.window.activeTextEditor?.document;
      return d?.uri.scheme === 'sextant-status' ? d : undefined;
    });
    const text = doc.getText();
    assert.match(text, /^Sextant index status\n/);
    assert.match(text, /\nEngine: running \(pid \d+\)\n/);
    assert.match(text, /\nIndex: up to date, \d+ files\n/);
    assert.match(text, /\n {2}typescript: editor · ready\n {4}Precise: VS Code's own language extension answers/);
    assert.ok(!/\b(finish|heuristic_no_precise|precise_partial)\b/.test(text), text);
  });

  it('the status bar says files and freshness, never an internal phase name', async () => {
    const api = await sextant();
    const engine = await readyEngine();
    const text = await waitFor('a ready status bar', () => (api.statusBar.text.startsWith('$(check)') ? api.statusBar.text : undefined), 90_000);
    // Agent sessions over HTTP (VS Code's own MCP client, earlier tests' agents) are counted when there are any.
    assert.match(text, new RegExp(`^\\$\\(check\\) Sextant: ${engine.status!.index.files.toLocaleString('en-US')} files · up to date( · \\d+ agents?)?$`));
    assert.match(String(api.statusBar.tooltip), /typescript: the editor's language service/);
    // Progress phases other than file indexing never show.
    api.statusBar.onProgress({ phase: 'finish', done: 1, total: 1 } as never);
    assert.ok(!api.statusBar.text.includes('finish'), api.statusBar.text);
    api.statusBar.onProgress({ phase: 'index', done: 3, total: 1200 });
    assert.equal(api.statusBar.text, '$(sync~spin) Sextant: indexing 3/1,200 files');
    api.statusBar.onProgress({ phase: 'done', done: 1200, total: 1200 });
    assert.equal(api.statusBar.text, text);
  });

  it('Agent Activity rows show the time and the mode in words; Filter, Clear, open location and copy arguments act', async () => {
    const api = await sextant();
    await readyEngine();
    const call = (seq: number, tool: string, mode: string, client: string): AgentActivity => ({
      seq: 100_000 + seq,
      time: new Date(Date.UTC(2020, 0, 1, 12, 34, seq)).toISOString(),
      client,
      tool,
      args: { symbol: `S${seq}` },
      mode,
      bytes: 2048,
      durationMs: 12,
      locations: [{ path: 'src/shapes.ts', line: 2 }],
    });
    api.activity.add(folder(), [call(1, 'references', 'precise_partial', 'http:claude-code'), call(2, 'outline', 'syntax', 'vscode')]);
    const rows = api.activity.getChildren().filter((n): n is Extract<ActivityNode, { kind: 'call' }> => n.kind === 'call');
    const item = api.activity.getTreeItem(rows.find((r) => r.a.seq === 100_001)!);
    assert.match(String(item.label), /^\d\d:\d\d:\d\d {2}references$/);
    assert.equal(item.description, 'Partial · 2.0 KB · 12 ms · claude-code');
    assert.equal(item.contextValue, 'call.located');

    const outlines = api.activity.calls().filter((c) => c.tool.includes('outline') || JSON.stringify(c.args).toLowerCase().includes('outline') || c.client.includes('outline')).length;
    assert.equal(await vscode.commands.executeCommand(COMMANDS.filterActivity, 'outline'), outlines);
    assert.ok(api.activity.calls().some((c) => c.seq === 100_002));
    assert.ok(!api.activity.calls().some((c) => c.seq === 100_001));
    await vscode.commands.executeCommand(COMMANDS.filterActivity, '');

    const refs = api.activity.getChildren().find((n): n is Extract<ActivityNode, { kind: 'call' }> => n.kind === 'call' && n.a.seq === 100_001)!;
    const copied = await vscode.commands.executeCommand<string>(COMMANDS.copyActivityArguments, refs);
    assert.deepEqual(JSON.parse(copied), { symbol: 'S1' });
    await vscode.commands.executeCommand(COMMANDS.openActivityLocation, refs);
    await waitFor('the location in the editor', () => vscode.window.activeTextEditor?.document.uri.path.endsWith('src/shapes.ts'));

    await vscode.commands.executeCommand(COMMANDS.clearActivity);
    assert.deepEqual(api.activity.calls(), []);
    api.activity.add(folder(), [call(1, 'references', 'precise', 'vscode')]);
    assert.deepEqual(api.activity.calls(), [], 'a call from before Clear does not come back');
  });
});
