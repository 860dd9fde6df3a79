/**
 * Agent activity view: the recent MCP tool calls from every client (Copilot through VS Code's MCP
 * client, external agents over HTTP or stdio), newest first, with arguments, mode, bytes and
 * clickable locations — how a person sees what the agent looked at.
 */
import * as vscode from 'vscode';
import type { AgentActivity } from '../../server/src/protocol/protocol';
import { COMMANDS } from '../ids';
import { MAX_ACTIVITY_ROWS } from '../extensionLimits';

export type ActivityNode = Node;
type Node =
  | { kind: 'call'; folder: vscode.WorkspaceFolder; a: AgentActivity }
  | { kind: 'arg'; name: string; value: string }
  | { kind: 'location'; folder: vscode.WorkspaceFolder; path: string; line: number; column?: number };

export class ActivityView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private rows: { folder: vscode.WorkspaceFolder; a: AgentActivity }[] = [];
  private filterText = '';
  /** Calls received before the last Clear are not shown again when the engine resends its ring. */
  private clearedBefore = '';

  /** Adds calls (from a notification or the engine's recent ring), keeping the newest. */
  add(folder: vscode.WorkspaceFolder, calls: AgentActivity[]): void {
    const seen = new Set(this.rows.filter((r) => r.folder === folder).map((r) => r.a.seq));
    for (const a of calls) if (!seen.has(a.seq) && a.time > this.clearedBefore) this.rows.unshift({ folder, a });
    this.rows.sort((x, y) => y.a.time.localeCompare(x.a.time));
    this.rows.length = Math.min(this.rows.length, MAX_ACTIVITY_ROWS);
    this.emitter.fire(undefined);
  }

  /** Removes every row (calls made before now are not shown again). */
  clear(): void {
    this.clearedBefore = new Date().toISOString();
    this.rows = [];
    this.emitter.fire(undefined);
  }

  /** Shows only calls whose tool, client, mode or arguments contain `text` (empty: all). */
  setFilter(text: string): void {
    this.filterText = text.trim().toLowerCase();
    this.emitter.fire(undefined);
  }

  get filter(): string {
    return this.filterText;
  }

  /** The calls shown (after the filter), newest first. */
  calls(): AgentActivity[] {
    return this.visibleRows().map((r) => r.a);
  }

  private visibleRows(): { folder: vscode.WorkspaceFolder; a: AgentActivity }[] {
    const f = this.filterText;
    if (!f) return this.rows;
    return this.rows.filter((r) => [r.a.tool, r.a.client, r.a.mode ?? '', JSON.stringify(r.a.args)].some((x) => x.toLowerCase().includes(f)));
  }

  /** The row as a person reads it: time, tool, mode in words, size, duration, client. */
  describe(a: AgentActivity): { label: string; description: string } {
    return {
      label: `${new Date(a.time).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })}  ${a.tool}`,
      description: [a.error ? 'failed' : modeWord(a.mode), `${formatBytes(a.bytes)}`, `${a.durationMs} ms`, clientWord(a.client)].filter(Boolean).join(' · '),
    };
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      const rows = this.visibleRows();
      if (rows.length === 0 && this.filterText) return [{ kind: 'arg', name: `No calls match “${this.filterText}”`, value: '' }];
      return rows.map((r) => ({ kind: 'call', folder: r.folder, a: r.a }));
    }
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
        const d = this.describe(a);
        const t = new vscode.TreeItem(d.label, C.Collapsed);
        t.description = d.description;
        t.contextValue = a.locations.length > 0 ? 'call.located' : 'call';
        t.tooltip = new vscode.MarkdownString(
          [`**${a.tool}** from \`${a.client}\` at ${new Date(a.time).toLocaleString()}`, modeWord(a.mode, true), '```json\n' + JSON.stringify(a.args, null, 2) + '\n```', a.error ?? ''].join('\n\n'),
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
        t.contextValue = 'location';
        t.command = { command: COMMANDS.openLocation, title: 'Open', arguments: [node.folder.uri, node.path, node.line, node.column ?? 1] };
        return t;
      }
    }
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

/** Navigation modes as words (with what they mean when `long`). */
export function modeWord(mode: string | undefined, long = false): string {
  switch (mode) {
    case undefined:
    case '':
      return '';
    case 'precise':
      return long ? 'Precise: answered by a language service' : 'Precise';
    case 'precise_partial':
      return long ? 'Partial: a language service answered, but not everything was loaded or searched' : 'Partial';
    case 'heuristic_no_precise':
      return long ? 'Heuristic: no language service answered; matched by name' : 'Heuristic';
    case 'unavailable_no_precise':
      return long ? 'Unavailable: no language service answered' : 'Unavailable';
    case 'syntax':
      return long ? 'Syntax: from the parsed source, no type information' : 'Syntax';
    case 'text':
      return long ? 'Text: a text search' : 'Text';
    default:
      return mode.replace(/_/g, ' ');
  }
}

function clientWord(c: string): string {
  if (c === 'vscode') return 'VS Code';
  return c.replace(/^(http|stdio):/, '');
}

function formatBytes(n: number): string {
  return n < 1024 ? `${n} B` : `${(n / 1024).toFixed(1)} KB`;
}
