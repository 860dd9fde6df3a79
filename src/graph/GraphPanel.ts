/**
 * The graph panel: one webview that draws the project graph around a project (computed here from
 * the engine's project list, see projectModel.ts) or the call graph around the symbol at the
 * cursor (the engine's `sextant/callGraph`, see callView.ts). Scripts only from media/
 * (localResourceRoots), nonce-based CSP, typed messages both ways (messages.ts). The webview is
 * retained while hidden and the page keeps its last graph in its state; a click on a node selects
 * it, Open / double-click opens its file in the editor column (never the graph's own column).
 */
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { CallGraphRequest, ProjectListRequest, type EditorPosition, type GraphData, type ProjectNode } from '../../server/src/protocol/protocol';
import type { EngineClient } from '../engine/EngineClient';
import { GRAPH_CLUSTER_ABOVE_PROJECTS, GRAPH_MAX_PROJECTS } from '../extensionLimits';
import { callView } from './callView';
import { graphHtml, makeNonce } from './graphHtml';
import type { GraphKind, GraphOptions, GraphView, HostMessage, PageMessage, RenderedReport } from './messages';
import { focusProjectGraph, type ProjectDirection } from './projectModel';

export type GraphTarget =
  | { kind: 'project'; engine: EngineClient; project: string }
  | { kind: 'call'; engine: EngineClient; position: EditorPosition; name: string };

/** What the page last reported drawing (tests). */
export type RenderedInfo = RenderedReport;

const DEFAULTS: Record<GraphKind, GraphOptions> = {
  project: { depth: 2, direction: 'both', production: true, test: true, reduce: true },
  call: { depth: 1, direction: 'incoming', production: true, test: true, reduce: false },
};

export class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private target: GraphTarget | undefined;
  private options: GraphOptions = { ...DEFAULTS.project };
  /** Folder clusters the user expanded (kept while the panel re-focuses; reset by a new show()). */
  private expanded = new Set<string>();
  private ready = false;
  private pending: HostMessage | undefined;
  private readonly listings = new Map<EngineClient, { version: string; projects: ProjectNode[] }>();
  private readonly renderedEmitter = new vscode.EventEmitter<RenderedInfo>();
  /** Fires after the page laid out a graph. */
  readonly onDidRender = this.renderedEmitter.event;
  lastRendered: RenderedInfo | undefined;
  /** The view last sent to the page (tests: the model the drawing must match). */
  lastView: GraphView | undefined;
  /** The engine's call graph answer behind the last call graph. */
  lastData: GraphData | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly openLocation: (folder: vscode.Uri, path: string, line: number, column: number, column_?: vscode.ViewColumn) => Promise<void>,
  ) {}

  get visible(): boolean {
    return this.panel?.visible ?? false;
  }

  /** The engine's projects (cached per index version). */
  async projects(engine: EngineClient): Promise<ProjectNode[]> {
    const version = engine.status?.index.version ?? '';
    const known = this.listings.get(engine);
    if (known && known.version === version && version !== '') return known.projects;
    const l = await engine.request(ProjectListRequest.type);
    this.listings.set(engine, { version, projects: l.projects });
    return l.projects;
  }

  async show(target: GraphTarget): Promise<void> {
    if (this.target?.kind !== target.kind) this.options = { ...DEFAULTS[target.kind] };
    this.target = target;
    this.expanded.clear();
    if (!this.panel) this.createPanel();
    else this.panel.reveal(this.panel.viewColumn, false);
    this.panel!.title = target.kind === 'project' ? 'Sextant: Project Graph' : `Sextant: Calls of ${target.name}`;
    await this.load();
  }

  private createPanel(): void {
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    // Beside the editor when one is open; in the active column otherwise (no narrow third column).
    const column = vscode.window.activeTextEditor ? vscode.ViewColumn.Beside : vscode.ViewColumn.Active;
    const panel = vscode.window.createWebviewPanel('sextant.graph', 'Sextant graph', column, {
      enableScripts: true,
      localResourceRoots: [media],
      retainContextWhenHidden: true,
    });
    this.panel = panel;
    this.ready = false;
    panel.iconPath = vscode.Uri.joinPath(media, 'sextant.svg');
    const webview = panel.webview;
    webview.html = graphHtml({
      cspSource: webview.cspSource,
      nonce: makeNonce((n) => crypto.randomBytes(n)),
      scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'graph', 'out', 'graph.js')).toString(),
      styleUri: webview.asWebviewUri(vscode.Uri.joinPath(media, 'graph', 'graph.css')).toString(),
    });
    webview.onDidReceiveMessage((m: PageMessage) => void this.receive(m));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
    });
  }

  /** The column to open files in: an editor's, never the graph's own. */
  private editorColumn(): vscode.ViewColumn {
    const mine = this.panel?.viewColumn;
    const other = vscode.window.visibleTextEditors.find((e) => e.viewColumn !== undefined && e.viewColumn !== mine)?.viewColumn;
    if (other) return other;
    return mine === vscode.ViewColumn.One ? vscode.ViewColumn.Two : vscode.ViewColumn.One;
  }

  /** A message from the page (the tests send the page's messages here too). */
  async receive(m: PageMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (this.pending) void this.post(this.pending);
        break;
      case 'open':
        if (this.target) await this.openLocation(this.target.engine.folder.uri, m.path, m.line, m.column ?? 1, this.editorColumn());
        break;
      case 'focus':
        if (this.target) {
          this.target = { kind: 'project', engine: this.target.engine, project: m.id };
          if (this.options.depth < 1) this.options.depth = 1;
          await this.load();
        }
        break;
      case 'options':
        this.options = m.options;
        await this.load();
        break;
      case 'expand':
        this.expanded.add(m.folder);
        await this.load();
        break;
      case 'collapse':
        if (m.folder === undefined) this.expanded.clear();
        else this.expanded.delete(m.folder);
        await this.load();
        break;
      case 'rendered': {
        const { type: _t, ...report } = m;
        this.lastRendered = report;
        this.log.info(`graph panel drew ${m.nodes} nodes and ${m.edges} edges (${m.width}x${m.height}, layout ${m.layoutMs} ms)`);
        this.renderedEmitter.fire(report);
        break;
      }
    }
  }

  private async load(): Promise<void> {
    const t = this.target;
    if (!t) return;
    void this.post({ type: 'loading', text: t.kind === 'project' ? 'Loading the project graph…' : `Asking for the calls of ${t.name}…` });
    try {
      if (t.kind === 'project') {
        const projects = await this.projects(t.engine);
        const view = focusProjectGraph(projects, {
          focus: t.project,
          depth: this.options.depth,
          direction: this.options.direction as ProjectDirection,
          production: this.options.production,
          test: this.options.test,
          reduce: this.options.reduce,
          maxNodes: GRAPH_MAX_PROJECTS,
          clusterAbove: GRAPH_CLUSTER_ABOVE_PROJECTS,
          expanded: [...this.expanded],
        });
        this.lastView = view;
        const name = projects.find((p) => p.path === t.project)?.name ?? t.project;
        void this.post({ type: 'graph', kind: 'project', title: `Projects around ${name}`, view, options: this.options, projects: projects.map((p) => ({ id: p.path, name: p.name })) });
      } else {
        const data = await t.engine.request(CallGraphRequest.type, {
          position: t.position,
          depth: this.options.depth,
          direction: this.options.direction as 'incoming' | 'outgoing' | 'both',
        });
        this.lastData = data;
        const view = callView(data, { name: t.name, depth: this.options.depth, direction: this.options.direction });
        this.lastView = view;
        void this.post({ type: 'graph', kind: 'call', title: `Calls of ${t.name}`, view, options: this.options });
      }
    } catch (e) {
      void this.post({ type: 'error', text: e instanceof Error ? e.message : String(e) });
    }
  }

  private async post(m: HostMessage): Promise<void> {
    if (!this.panel) return;
    if (!this.ready) {
      if (m.type !== 'loading') this.pending = m;
      return;
    }
    this.pending = undefined;
    await this.panel.webview.postMessage(m);
  }

  dispose(): void {
    this.panel?.dispose();
    this.renderedEmitter.dispose();
  }
}
