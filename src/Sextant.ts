/**
 * Owns everything the extension registers: one EngineClient per trusted local workspace folder,
 * the MCP server definition provider, the three views, the status bar, the graph panel and the
 * commands. Disposes all of it on deactivation.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { EngineStatusRequest, RecentActivityRequest, ReindexRequest, type EngineStatus } from '../server/src/protocol/protocol';
import type { SextantApi } from './api';
import { EngineClient } from './engine/EngineClient';
import { MAX_ACTIVITY_ROWS } from './extensionLimits';
import { GraphPanel } from './graph/GraphPanel';
import { COMMANDS, MCP_PROVIDER_ID, VIEWS } from './ids';
import { McpProvider } from './mcp/McpProvider';
import { agentConfigs, type AgentKind } from './mcp/mcpConfig';
import { StatusBar } from './StatusBar';
import { ActivityView } from './views/ActivityView';
import { IndexView } from './views/IndexView';
import { ProjectsView } from './views/ProjectsView';

export class Sextant implements vscode.Disposable {
  readonly log = vscode.window.createOutputChannel('Sextant', { log: true });
  private readonly engines = new Map<string, EngineClient>();
  private readonly disposables: vscode.Disposable[] = [];
  readonly mcp: McpProvider;
  readonly projects: ProjectsView;
  readonly index: IndexView;
  readonly activity = new ActivityView();
  readonly statusBar: StatusBar;
  readonly graph: GraphPanel;

  constructor(private readonly context: vscode.ExtensionContext) {
    const list = (): EngineClient[] => [...this.engines.values()];
    const version = (context.extension.packageJSON as { version?: string }).version ?? '0.0.0';
    this.mcp = new McpProvider(version, () =>
      list()
        .filter((e) => e.endpoint)
        .map((e) => ({ folder: e.folder, endpoint: e.endpoint! })),
    );
    this.projects = new ProjectsView(list);
    this.index = new IndexView(list);
    this.statusBar = new StatusBar(list);
    this.graph = new GraphPanel(context.extensionUri, this.log, (folder, p, line, column) => this.openLocation(folder, p, line, column));
    this.disposables.push(
      this.log,
      this.mcp,
      this.projects,
      this.index,
      this.activity,
      this.statusBar,
      this.graph,
      vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, this.mcp),
      vscode.window.createTreeView(VIEWS.projects, { treeDataProvider: this.projects, showCollapseAll: true }),
      vscode.window.createTreeView(VIEWS.index, { treeDataProvider: this.index }),
      vscode.window.createTreeView(VIEWS.activity, { treeDataProvider: this.activity }),
      ...this.registerCommands(),
      vscode.workspace.onDidChangeWorkspaceFolders(() => void this.syncFolders()),
      vscode.workspace.onDidGrantWorkspaceTrust(() => void this.syncFolders()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('sextant')) void this.restartAll('settings changed');
      }),
    );
  }

  /** Starts an engine for every trusted local folder. */
  async start(): Promise<void> {
    await this.syncFolders();
  }

  /** The object `activate` returns (used by the extension tests). */
  api(): SextantApi {
    return {
      engines: () => [...this.engines.values()],
      engineFor: (folder) => this.engines.get(folder.uri.toString()),
      mcpDefinitions: () => this.mcp.provideMcpServerDefinitions(),
      mcp: this.mcp,
      projects: this.projects,
      index: this.index,
      activity: this.activity,
      statusBar: this.statusBar,
      graph: this.graph,
      log: this.log,
    };
  }

  private async syncFolders(): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      this.statusBar.setRestricted(true);
      this.log.info('Restricted Mode: no engine is started until the workspace is trusted.');
      return;
    }
    this.statusBar.setRestricted(false);
    const wanted = new Map((vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file').map((f) => [f.uri.toString(), f]));
    for (const [key, engine] of this.engines) {
      if (!wanted.has(key)) {
        this.engines.delete(key);
        await engine.dispose();
      }
    }
    await Promise.all(
      [...wanted].map(async ([key, folder]) => {
        if (this.engines.has(key)) return;
        const engine = new EngineClient(folder, this.context, this.log);
        this.engines.set(key, engine);
        this.wire(engine);
        await engine.start();
      }),
    );
    this.refreshUi();
  }

  private wire(engine: EngineClient): void {
    this.disposables.push(
      engine.onDidChangeState((s) => {
        this.log.info(`[${engine.folder.name}] engine ${s}`);
        this.refreshUi();
        if (s === 'running') {
          void engine.request(RecentActivityRequest.type, { limit: MAX_ACTIVITY_ROWS }).then(
            (rows) => this.activity.add(engine.folder, rows),
            () => undefined,
          );
        }
      }),
      engine.onStatus((s: EngineStatus) => {
        this.refreshUi();
        if (s.state === 'ready') void this.projects.reload();
      }),
      engine.onProgress((p) => this.statusBar.onProgress(p)),
      engine.onEndpoint(() => this.mcp.refresh()),
      engine.onActivity((a) => this.activity.add(engine.folder, [a])),
    );
  }

  private refreshUi(): void {
    this.statusBar.paint();
    this.index.refresh();
    this.mcp.refresh();
  }

  private async restartAll(reason: string): Promise<void> {
    this.log.info(`restarting engines: ${reason}`);
    await Promise.all([...this.engines.values()].map((e) => e.restart()));
    this.refreshUi();
  }

  private engineForActiveEditor(): EngineClient | undefined {
    const uri = vscode.window.activeTextEditor?.document.uri;
    const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : undefined;
    return (folder && this.engines.get(folder.uri.toString())) ?? this.engines.values().next().value;
  }

  async openLocation(folder: vscode.Uri, p: string, line: number, column: number): Promise<void> {
    const uri = path.isAbsolute(p) ? vscode.Uri.file(p) : vscode.Uri.joinPath(folder, ...p.split('/'));
    const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
    await vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos), preview: true });
  }

  private registerCommands(): vscode.Disposable[] {
    const reg = (id: string, fn: (...args: never[]) => unknown): vscode.Disposable => vscode.commands.registerCommand(id, fn);
    return [
      reg(COMMANDS.reindex, async () => {
        const engines = [...this.engines.values()];
        if (engines.length === 0) return void vscode.window.showWarningMessage('Sextant: no engine is running (open and trust a folder).');
        return vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Sextant: reindexing' }, async () => {
          const results = await Promise.all(engines.map((e) => e.request(ReindexRequest.type, { full: false })));
          const files = results.reduce((n, r) => n + r.files, 0);
          void this.projects.reload();
          vscode.window.setStatusBarMessage(`Sextant: ${files} files indexed`, 5_000);
          return results;
        });
      }),
      reg(COMMANDS.showProjectGraph, async (arg?: unknown) => {
        const engine = this.engineForActiveEditor();
        if (!engine) return void vscode.window.showWarningMessage('Sextant: no engine is running.');
        const project = typeof arg === 'string' ? arg : undefined;
        await this.graph.show({ kind: 'project', engine, ...(project ? { project } : {}) });
      }),
      reg(COMMANDS.showCallGraph, async () => {
        const editor = vscode.window.activeTextEditor;
        const folder = editor ? vscode.workspace.getWorkspaceFolder(editor.document.uri) : undefined;
        const engine = folder && this.engines.get(folder.uri.toString());
        if (!editor || !folder || !engine) return void vscode.window.showWarningMessage('Sextant: put the cursor on a function in a workspace file first.');
        const pos = editor.selection.active;
        const rel = path.relative(folder.uri.fsPath, editor.document.uri.fsPath).split(path.sep).join('/');
        const word = editor.document.getText(editor.document.getWordRangeAtPosition(pos)) || 'symbol';
        await this.graph.show({ kind: 'call', engine, position: { path: rel, line: pos.line + 1, column: pos.character + 1 }, name: word });
      }),
      reg(COMMANDS.copyMcpConfig, async (kind?: AgentKind) => {
        const engine = this.engineForActiveEditor();
        if (!engine) return void vscode.window.showWarningMessage('Sextant: no engine is running.');
        const configs = agentConfigs({
          name: 'sextant',
          ...(engine.endpoint ? { url: engine.endpoint.url, token: engine.endpoint.token } : {}),
          node: 'node',
          cli: this.context.asAbsolutePath(path.join('dist', 'cli.js')),
          workspaceRoot: engine.folder.uri.fsPath,
          indexRoot: engine.indexRoot(),
        });
        // A kind given by the caller (keybinding, tests) skips the picker.
        const chosen =
          typeof kind === 'string'
            ? configs.find((c) => c.kind === kind)
            : (
                await vscode.window.showQuickPick(
                  configs.map((c) => ({ label: c.label, detail: c.where, config: c })),
                  { title: 'Copy MCP config for an external agent', placeHolder: engine.endpoint ? "The config attaches to this window's engine" : 'The HTTP endpoint is not up yet: only stdio is offered' },
                )
              )?.config;
        if (!chosen) return undefined;
        await vscode.env.clipboard.writeText(chosen.text);
        void vscode.window.showInformationMessage(`Sextant: copied the ${chosen.label} config (${chosen.where}). It contains the endpoint's token: keep it private.`);
        return { kind: chosen.kind, text: chosen.text };
      }),
      reg(COMMANDS.showIndexStatus, async () => {
        const statuses = await Promise.all([...this.engines.values()].map((e) => e.request(EngineStatusRequest.type).catch(() => undefined)));
        await vscode.commands.executeCommand(`${VIEWS.index}.focus`);
        const lines = this.index.describe();
        this.log.info(`index status:\n${lines.join('\n')}`);
        return statuses;
      }),
      reg(COMMANDS.openLogs, () => this.log.show(true)),
      reg(COMMANDS.restartEngine, () => this.restartAll('requested')),
      reg(COMMANDS.openLocation, (folder: vscode.Uri, p: string, line: number, column: number) => this.openLocation(folder, p, line, column)),
    ];
  }

  async disposeAsync(): Promise<void> {
    await Promise.all([...this.engines.values()].map((e) => e.dispose()));
    this.engines.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }

  dispose(): void {
    void this.disposeAsync();
  }
}
