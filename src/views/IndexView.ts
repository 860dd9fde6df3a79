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

  /** The rows as plain text (tests, "Show Index Status"). */
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
    const engineText = s.attachedTo ? `attached to the running engine (pid ${s.attachedTo.pid})` : `${s.state} (pid ${s.pid})`;
    children.push({ label: 'Engine', description: engineText, icon: s.attachedTo ? 'plug' : stateIcon(s), ...(s.error ? { tooltip: s.error } : {}) });
    children.push({
      label: 'Index',
      description: `${s.index.status}, ${s.index.files} files${s.index.dirty ? `, ${s.index.dirty} changed` : ''}`,
      tooltip: `version ${s.index.version}\n${s.indexRoot}`,
      icon: 'database',
    });
    if (s.index.lastRefresh) children.push({ label: 'Last refresh', description: new Date(s.index.lastRefresh).toLocaleTimeString(), icon: 'history' });
    if (s.index.head) children.push({ label: 'Git HEAD', description: s.index.head.slice(0, 12), icon: 'git-commit' });
    children.push({
      label: 'MCP endpoint',
      description: s.endpoint ? `${s.endpoint.url} (${s.clients} client${s.clients === 1 ? '' : 's'})` : 'not listening',
      icon: 'plug',
    });
    children.push({
      label: 'Languages',
      icon: 'symbol-namespace',
      children: s.languages.map((l) => ({ label: l.language, description: `${l.provider} · ${l.state}`, tooltip: l.detail, icon: l.state === 'ready' ? 'pass' : l.state === 'loading' ? 'loading~spin' : 'warning' })),
    });
    if (s.projects.length) {
      const ready = s.projects.filter((p) => p.state === 'ready').length;
      children.push({
        label: 'Projects',
        description: `${ready}/${s.projects.length} ready`,
        icon: 'project',
        children: s.projects.map((p) => ({ label: p.project, description: `${p.state} · ${p.files} files`, icon: p.state === 'ready' ? 'pass' : p.state === 'failed' ? 'error' : 'loading~spin' })),
      });
    }
    return { label: e.folder.name, icon: 'root-folder', children };
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

function stateIcon(s: EngineStatus): string {
  return s.state === 'ready' ? 'check' : s.state === 'error' ? 'error' : 'sync~spin';
}
