/**
 * Agent activity view: the recent MCP tool calls from every client (Copilot through VS Code's MCP
 * client, external agents over HTTP or stdio), newest first, with arguments, mode, bytes and
 * clickable locations — how a person sees what the agent looked at.
 */
import * as vscode from 'vscode';
import type { AgentActivity } from '../../server/src/protocol/protocol';
import { COMMANDS } from '../ids';
import { MAX_ACTIVITY_ROWS } from '../extensionLimits';

type Node =
  | { kind: 'call'; folder: vscode.WorkspaceFolder; a: AgentActivity }
  | { kind: 'arg'; name: string; value: string }
  | { kind: 'location'; folder: vscode.WorkspaceFolder; path: string; line: number; column?: number };

export class ActivityView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private rows: { folder: vscode.WorkspaceFolder; a: AgentActivity }[] = [];

  /** Adds calls (from a notification or the engine's recent ring), keeping the newest. */
  add(folder: vscode.WorkspaceFolder, calls: AgentActivity[]): void {
    const seen = new Set(this.rows.filter((r) => r.folder === folder).map((r) => r.a.seq));
    for (const a of calls) if (!seen.has(a.seq)) this.rows.unshift({ folder, a });
    this.rows.sort((x, y) => y.a.time.localeCompare(x.a.time));
    this.rows.length = Math.min(this.rows.length, MAX_ACTIVITY_ROWS);
    this.emitter.fire(undefined);
  }

  /** The calls shown, newest first. */
  calls(): AgentActivity[] {
    return this.rows.map((r) => r.a);
  }

  getChildren(node?: Node): Node[] {
    if (!node) return this.rows.map((r) => ({ kind: 'call', folder: r.folder, a: r.a }));
    if (node.kind !== 'call') return [];
    const args: Node[] = Object.entries(node.a.args).map(([name, v]) => ({ kind: 'arg', name, value: typeof v === 'string' ? v : JSON.stringify(v) }));
    const locs: Node[] = node.a.locations.map((l) => ({ kind: 'location', folder: node.folder, path: l.path, line: l.line, ...(l.column !== undefined ? { column: l.column } : {}) }));
    return [...args, ...locs];
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const C = vscode.TreeItemCollapsibleState;
    switch (node.kind) {
      case 'call': {
        const a = node.a;
        const t = new vscode.TreeItem(a.tool, C.Collapsed);
        t.description = [a.mode, `${a.bytes} B`, `${a.durationMs} ms`, a.client].filter(Boolean).join(' · ');
        t.tooltip = new vscode.MarkdownString(
          [`**${a.tool}** from \`${a.client}\` at ${new Date(a.time).toLocaleTimeString()}`, '```json\n' + JSON.stringify(a.args, null, 2) + '\n```', a.error ?? ''].join('\n\n'),
        );
        t.iconPath = new vscode.ThemeIcon(a.error ? 'error' : a.mode && a.mode !== 'precise' ? 'warning' : 'tools');
        return t;
      }
      case 'arg': {
        const t = new vscode.TreeItem(node.name, C.None);
        t.description = node.value;
        t.iconPath = new vscode.ThemeIcon('symbol-parameter');
        return t;
      }
      case 'location': {
        const t = new vscode.TreeItem(`${node.path}:${node.line}`, C.None);
        t.iconPath = new vscode.ThemeIcon('go-to-file');
        t.command = { command: COMMANDS.openLocation, title: 'Open', arguments: [node.folder.uri, node.path, node.line, node.column ?? 1] };
        return t;
      }
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
