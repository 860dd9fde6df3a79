/**
 * Index view: per workspace folder, the engine's state, index freshness and size, last refresh,
 * the MCP endpoint, each language with the provider that serves it (editor / lsp / heuristic),
 * and per-project readiness.
 */
import * as vscode from 'vscode';
import type { EngineStatus } from '../../server/src/protocol/protocol';
import type { EngineClient } from '../engine/EngineClient';

interface Row {
  label: string;
  description?: string;
  tooltip?: string;
  icon?: string;
  children?: Row[];
}

export class IndexView implements vscode.TreeDataProvider<Row>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Row | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;

  constructor(private readonly engines: () => EngineClient[]) {}

  refresh(): void {
    this.emitter.fire(undefined);
  }

  getChildren(row?: Row): Row[] {
    if (row) return row.children ?? [];
    const engines = this.engines();
    if (engines.length === 0) return [{ label: 'No engine', description: 'open a folder (and trust it) to index it', icon: 'info' }];
    const rows = engines.map((e) => this.folderRow(e));
    return rows.length === 1 ? (rows[0]!.children ?? []) : rows;
  }

  getTreeItem(row: Row): vscode.TreeItem {
    const t = new vscode.TreeItem(row.label, row.children?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    if (row.description !== undefined) t.description = row.description;
    if (row.tooltip !== undefined) t.tooltip = row.tooltip;
    if (row.icon) t.iconPath = new vscode.ThemeIcon(row.icon);
    return t;
  }

  /** The status as a document a person reads (Show Index Status). */
  document(): string {
    const out: string[] = ['Sextant index status', `as of ${new Date().toLocaleString()}`, ''];
    const walk = (rows: Row[], depth: number): void => {
      for (const r of rows) {
        out.push(`${'  '.repeat(depth)}${r.label}${r.description ? `: ${r.description}` : ''}`);
        if (r.tooltip && depth > 0) for (const t of r.tooltip.split('\n')) out.push(`${'  '.repeat(depth + 1)}${t}`);
        walk(r.children ?? [], depth + 1);
      }
    };
    walk(this.getChildren(), 0);
    return out.join('\n') + '\n';
  }

  /** The rows as plain text (tests). */
  describe(): string[] {
    const out: string[] = [];
    const walk = (rows: Row[], depth: number): void => {
      for (const r of rows) {
        out.push(`${'  '.repeat(depth)}${r.label}${r.description ? `: ${r.description}` : ''}`);
        walk(r.children ?? [], depth + 1);
      }
    };
    walk(this.getChildren(), 0);
    return out;
  }

  private folderRow(e: EngineClient): Row {
    const s = e.status;
    const children: Row[] = [];
    if (!s) {
      children.push({ label: 'Engine', description: e.failure ?? e.state, icon: e.state === 'failed' ? 'error' : 'loading~spin' });
      return { label: e.folder.name, icon: 'root-folder', children };
    }
    const engineText = s.attachedTo ? `attached to the running engine (pid ${s.attachedTo.pid})` : `${engineWord(s.state)} (pid ${s.pid})`;
    children.push({ label: 'Engine', description: engineText, icon: s.attachedTo ? 'plug' : stateIcon(s), ...(s.error ? { tooltip: s.error } : {}) });
    const files = s.index.files.toLocaleString('en-US');
    const indexText =
      s.index.status === 'fresh' && !s.index.dirty
        ? `up to date, ${files} files`
        : s.index.status === 'building'
          ? `building, ${files} files so far`
          : `${files} files, ${s.index.dirty ? `${s.index.dirty} changed files not indexed yet` : 'changes not indexed yet'}`;
    children.push({ label: 'Index', description: indexText, tooltip: `index version ${s.index.version}\nstored in ${s.indexRoot}`, icon: 'database' });
    if (s.index.lastRefresh) children.push({ label: 'Last refresh', description: new Date(s.index.lastRefresh).toLocaleTimeString(), icon: 'history' });
    if (s.index.head) children.push({ label: 'Git HEAD', description: s.index.head.slice(0, 12), icon: 'git-commit' });
    const sessions = Math.max(0, s.clients - 1);
    children.push({
      label: 'MCP endpoint',
      description: s.endpoint ? `${s.endpoint.url} · ${sessions === 0 ? 'no agent session over HTTP' : `${sessions} agent session${sessions === 1 ? '' : 's'} over HTTP`}` : 'not listening',
      tooltip: "VS Code's own MCP client reaches this engine through this endpoint once the Sextant MCP server is started in VS Code's MCP list; external agents with the copied config do too.",
      icon: 'plug',
    });
    children.push({
      label: 'Languages',
      icon: 'symbol-namespace',
      children: s.languages.map((l) => ({
        label: l.language,
        description: `${l.provider} · ${l.state}`,
        tooltip: whyProvider(l),
        icon: l.state === 'ready' ? 'pass' : l.state === 'loading' ? 'loading~spin' : 'warning',
      })),
    });
    if (s.projects.length) {
      const by = (st: string): typeof s.projects => s.projects.filter((p) => p.state === st);
      const notReady = s.projects.filter((p) => p.state !== 'ready');
      const counts = [`${by('ready').length} ready`, by('indexing').length ? `${by('indexing').length} indexing` : '', by('failed').length ? `${by('failed').length} not loaded` : ''].filter(Boolean).join(', ');
      children.push({
        label: 'Projects',
        description: `${s.projects.length.toLocaleString('en-US')} (${counts}) — the Projects view lists them`,
        icon: 'project',
        ...(notReady.length ? { children: notReady.slice(0, 50).map((p) => ({ label: p.project.slice(p.project.lastIndexOf('/') + 1), description: p.state === 'failed' ? 'not loaded' : p.state, tooltip: p.project, icon: p.state === 'failed' ? 'warning' : 'loading~spin' })) } : {}),
      });
    }
    return { label: e.folder.name, icon: 'root-folder', children };
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

function engineWord(state: EngineStatus['state']): string {
  return state === 'indexing' ? 'running, checking for changes' : state === 'ready' ? 'running' : state === 'error' ? 'running, indexing failed' : state;
}

/** Why this provider serves the language (tooltip and the status document). */
function whyProvider(l: EngineStatus['languages'][number]): string {
  const detail = l.detail ? ` (${l.detail})` : '';
  switch (l.provider) {
    case 'editor':
      return l.state === 'ready'
        ? `Precise: VS Code's own language extension answers${detail}.`
        : `VS Code's language extension is installed but not active yet${detail}; answers use the next provider until it is.`;
    case 'heuristic':
      return `Heuristic: no language service is available for ${l.language}${detail}, so answers are matched by name and say so.`;
    case 'lsp':
      return `Precise: a language server started by Sextant answers${detail}.`;
    case 'roslyn':
      return `Precise: Sextant's Roslyn host answers${detail}.`;
    default:
      return `${l.provider}${detail}`;
  }
}

function stateIcon(s: EngineStatus): string {
  return s.state === 'ready' ? 'check' : s.state === 'error' ? 'error' : 'sync~spin';
}
