/**
 * The graph panel: one webview that draws the project graph around a project or the call graph
 * around the symbol at the cursor. Scripts only from media/ (localResourceRoots), nonce-based CSP,
 * typed messages both ways (messages.ts); a click on a node opens its location.
 */
import * as crypto from 'node:crypto';
import * as vscode from 'vscode';
import { CallGraphRequest, ProjectGraphRequest, type EditorPosition, type GraphData } from '../../server/src/protocol/protocol';
import type { EngineClient } from '../engine/EngineClient';
import { graphHtml, makeNonce } from './graphHtml';
import type { GraphKind, GraphOptions, HostMessage, PageMessage } from './messages';

export type GraphTarget =
  | { kind: 'project'; engine: EngineClient; project?: string }
  | { kind: 'call'; engine: EngineClient; position: EditorPosition; name: string };

/** What the page last reported drawing (tests). */
export interface RenderedInfo {
  nodes: number;
  edges: number;
  width: number;
  height: number;
}

export class GraphPanel implements vscode.Disposable {
  private panel: vscode.WebviewPanel | undefined;
  private target: GraphTarget | undefined;
  private options: GraphOptions = { depth: 2, direction: 'both', production: true, test: true };
  private ready = false;
  private pending: HostMessage | undefined;
  private readonly renderedEmitter = new vscode.EventEmitter<RenderedInfo>();
  /** Fires after the page laid out a graph. */
  readonly onDidRender = this.renderedEmitter.event;
  lastRendered: RenderedInfo | undefined;
  lastData: GraphData | undefined;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: vscode.LogOutputChannel,
    private readonly openLocation: (folder: vscode.Uri, path: string, line: number, column: number) => Promise<void>,
  ) {}

  get visible(): boolean {
    return this.panel?.visible ?? false;
  }

  async show(target: GraphTarget): Promise<void> {
    if (this.target?.kind !== target.kind) {
      this.options = { depth: 2, direction: target.kind === 'project' ? 'both' : 'incoming', production: true, test: true };
    }
    this.target = target;
    if (!this.panel) this.createPanel();
    else this.panel.reveal(vscode.ViewColumn.Beside, false);
    this.panel!.title = target.kind === 'project' ? 'Sextant: Project Graph' : `Sextant: Calls of ${target.name}`;
    await this.load();
  }

  private createPanel(): void {
    const media = vscode.Uri.joinPath(this.extensionUri, 'media');
    const panel = vscode.window.createWebviewPanel('sextant.graph', 'Sextant graph', vscode.ViewColumn.Beside, {
      enableScripts: true,
      localResourceRoots: [media],
      retainContextWhenHidden: false,
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
    webview.onDidReceiveMessage((m: PageMessage) => void this.onMessage(m));
    panel.onDidDispose(() => {
      this.panel = undefined;
      this.ready = false;
    });
  }

  private async onMessage(m: PageMessage): Promise<void> {
    switch (m.type) {
      case 'ready':
        this.ready = true;
        if (this.pending) void this.post(this.pending);
        break;
      case 'open':
        if (this.target) await this.openLocation(this.target.engine.folder.uri, m.path, m.line, m.column ?? 1);
        break;
      case 'options':
        this.options = m.options;
        await this.load();
        break;
      case 'rendered':
        this.lastRendered = { nodes: m.nodes, edges: m.edges, width: m.width, height: m.height };
        this.log.info(`graph panel drew ${m.nodes} nodes and ${m.edges} edges (${m.width}x${m.height})`);
        this.renderedEmitter.fire(this.lastRendered);
        break;
    }
  }

  private async load(): Promise<void> {
    const t = this.target;
    if (!t) return;
    void this.post({ type: 'loading', text: t.kind === 'project' ? 'Loading the project graph…' : `Asking the editor for the calls of ${t.name}…` });
    try {
      const data =
        t.kind === 'project'
          ? await t.engine.request(ProjectGraphRequest.type, {
              ...(t.project ? { project: t.project } : {}),
              depth: this.options.depth,
              direction: this.options.direction as 'dependencies' | 'dependents' | 'both',
              include: { production: this.options.production, test: this.options.test },
            })
          : await t.engine.request(CallGraphRequest.type, {
              position: t.position,
              depth: this.options.depth,
              direction: this.options.direction as 'incoming' | 'outgoing' | 'both',
            });
      this.lastData = data;
      const kind: GraphKind = t.kind;
      const title = t.kind === 'project' ? (t.project ? `Projects around ${t.project}` : 'Project graph') : `Call graph: ${t.name}`;
      void this.post({ type: 'graph', kind, title, data, options: this.options });
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
