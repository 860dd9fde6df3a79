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
import { ActivityView, type ActivityNode } from './views/ActivityView';
import { IndexView } from './views/IndexView';
import { ProjectsView, type ProjectsNode } from './views/ProjectsView';
import { StatusDocument } from './views/StatusDocument';
import { projectOfFile } from './graph/projectModel';

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
  readonly statusDoc: StatusDocument;

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
    this.graph = new GraphPanel(context.extensionUri, this.log, (folder, p, line, column, viewColumn) => this.openLocation(folder, p, line, column, viewColumn));
    this.statusDoc = new StatusDocument(() => this.index.document());
    this.disposables.push(
      this.log,
      this.mcp,
      this.projects,
      this.index,
      this.activity,
      this.statusBar,
      this.graph,
      this.statusDoc,
      vscode.workspace.registerTextDocumentContentProvider(StatusDocument.scheme, this.statusDoc),
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
    this.statusDoc.update();
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

  async openLocation(folder: vscode.Uri, p: string, line: number, column: number, viewColumn?: vscode.ViewColumn): Promise<void> {
    const uri = path.isAbsolute(p) ? vscode.Uri.file(p) : vscode.Uri.joinPath(folder, ...p.split('/'));
    const pos = new vscode.Position(Math.max(0, line - 1), Math.max(0, column - 1));
    await vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos), preview: true, ...(viewColumn ? { viewColumn } : {}) });
  }

  private projectUri(arg: ProjectsNode | undefined): vscode.Uri | undefined {
    return arg?.kind === 'project' ? vscode.Uri.joinPath(arg.engine.folder.uri, ...arg.project.path.split('/')) : undefined;
  }

  /**
   * The project graph, focused on: the tree item or project path given, else the project of the
   * active editor's file, else one the user picks (a searchable list).
   */
  async showProjectGraph(arg?: unknown): Promise<string | undefined> {
    const node = arg as ProjectsNode | undefined;
    const engine = node && typeof node === 'object' && 'engine' in node ? node.engine : this.engineForActiveEditor();
    if (!engine) return void vscode.window.showWarningMessage('Sextant: no engine is running.');
    let projects;
    try {
      projects = await this.graph.projects(engine);
    } catch (e) {
      return void vscode.window.showWarningMessage(`Sextant: the project list is not available yet (${e instanceof Error ? e.message : String(e)}).`);
    }
    let focus: string | undefined;
    if (typeof arg === 'string') focus = arg;
    else if (node && typeof node === 'object' && node.kind === 'project') focus = node.project.path;
    else {
      const uri = vscode.window.activeTextEditor?.document.uri;
      if (uri && uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(uri)?.uri.toString() === engine.folder.uri.toString()) {
        const rel = path.relative(engine.folder.uri.fsPath, uri.fsPath).split(path.sep).join('/');
        focus = projectOfFile(projects, rel)?.path;
      }
    }
    if (!focus && projects.length === 1) focus = projects[0]!.path;
    if (!focus) {
      if (projects.length === 0) return void vscode.window.showInformationMessage('Sextant: no projects found in this workspace yet.');
      const picked = await vscode.window.showQuickPick(
        [...projects].sort((a, b) => a.name.localeCompare(b.name)).map((p) => ({ label: p.name, description: p.path, detail: `${p.references.length} references, ${p.dependents.length} dependents${p.isTest ? ' · test' : ''}`, path: p.path })),
        { title: 'Show the project graph around…', placeHolder: 'Type a project name', matchOnDescription: true },
      );
      focus = picked?.path;
    }
    if (!focus) return undefined;
    await this.graph.show({ kind: 'project', engine, project: focus });
    return focus;
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
      reg(COMMANDS.showProjectGraph, (arg?: unknown) => this.showProjectGraph(arg)),
      reg(COMMANDS.showGraphAround, (arg?: unknown) => this.showProjectGraph(arg)),
      reg(COMMANDS.revealProjectInExplorer, async (arg?: ProjectsNode) => {
        const uri = this.projectUri(arg);
        if (!uri) return undefined;
        await vscode.commands.executeCommand('revealInExplorer', uri);
        return uri;
      }),
      reg(COMMANDS.copyProjectPath, async (arg?: ProjectsNode) => {
        const uri = this.projectUri(arg);
        if (!uri || arg?.kind !== 'project') return undefined;
        await vscode.env.clipboard.writeText(arg.project.path);
        vscode.window.setStatusBarMessage(`Sextant: copied ${arg.project.path}`, 3_000);
        return arg.project.path;
      }),
      reg(COMMANDS.openProjectFile, async (arg?: ProjectsNode) => {
        const uri = this.projectUri(arg);
        if (!uri) return undefined;
        await vscode.window.showTextDocument(uri, { preview: true });
        return uri;
      }),
      reg(COMMANDS.clearActivity, () => this.activity.clear()),
      reg(COMMANDS.filterActivity, async (text?: unknown) => {
        const value =
          typeof text === 'string'
            ? text
            : await vscode.window.showInputBox({ title: 'Filter agent activity', prompt: 'Show calls whose tool, client, mode or arguments contain this text (empty: all)', value: this.activity.filter });
        if (value === undefined) return undefined;
        this.activity.setFilter(value);
        void vscode.commands.executeCommand('setContext', 'sextant.activityFiltered', value.trim() !== '');
        return this.activity.calls().length;
      }),
      reg(COMMANDS.openActivityLocation, async (node?: ActivityNode) => {
        const loc = node?.kind === 'call' ? node.a.locations[0] : node?.kind === 'location' ? node : undefined;
        if (!node || !loc || node.kind === 'arg') return undefined;
        await this.openLocation(node.folder.uri, loc.path, loc.line, loc.column ?? 1);
        return loc.path;
      }),
      reg(COMMANDS.copyActivityArguments, async (node?: ActivityNode) => {
        if (node?.kind !== 'call') return undefined;
        const text = JSON.stringify(node.a.args, null, 2);
        await vscode.env.clipboard.writeText(text);
        vscode.window.setStatusBarMessage(`Sextant: copied the arguments of ${node.a.tool}`, 3_000);
        return text;
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
        // The warning first: a long toast is cut at its end.
        void vscode.window.showInformationMessage(`Keep it private (it holds the endpoint's token): Sextant copied the ${chosen.label} config for ${chosen.where}.`);
        return { kind: chosen.kind, text: chosen.text };
      }),
      reg(COMMANDS.showIndexStatus, async () => {
        const statuses = await Promise.all([...this.engines.values()].map((e) => e.request(EngineStatusRequest.type).catch(() => undefined)));
        this.refreshUi();
        await vscode.commands.executeCommand(`${VIEWS.index}.focus`);
        this.statusDoc.update();
        const doc = await vscode.workspace.openTextDocument(StatusDocument.uri);
        await vscode.window.showTextDocument(doc, { preview: true, preserveFocus: false });
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
