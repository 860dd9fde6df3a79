/**
 * Projects view: solutions → projects → references / dependents. Test projects are marked;
 * clicking a project opens its project file. Data comes from `sextant/projects`.
 */
import * as vscode from 'vscode';
import { ProjectListRequest, type ProjectNode, type SolutionNode } from '../../server/src/protocol/protocol';
import type { EngineClient } from '../engine/EngineClient';

export type ProjectsNode = Node;
type Node =
  | { kind: 'folder'; engine: EngineClient }
  | { kind: 'solution'; engine: EngineClient; solution: SolutionNode }
  | { kind: 'loose'; engine: EngineClient; projects: string[] }
  | { kind: 'project'; engine: EngineClient; project: ProjectNode }
  | { kind: 'group'; engine: EngineClient; label: string; projects: string[]; icon: string }
  | { kind: 'message'; text: string };

interface Listing {
  solutions: SolutionNode[];
  projects: ProjectNode[];
  partial: boolean;
}

export class ProjectsView implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly listings = new Map<EngineClient, Listing>();

  constructor(private readonly engines: () => EngineClient[]) {}

  /** Re-asks every engine for its projects. */
  async reload(): Promise<void> {
    await Promise.all(
      this.engines().map(async (e) => {
        try {
          this.listings.set(e, await e.request(ProjectListRequest.type));
        } catch {
          this.listings.delete(e);
        }
      }),
    );
    this.emitter.fire(undefined);
  }

  /** The listed projects of an engine (the graph's project picker). */
  listed(engine: EngineClient): ProjectNode[] {
    return this.listings.get(engine)?.projects ?? [];
  }

  /** Project count per engine (tests and the Index view). */
  projectCount(): number {
    let n = 0;
    for (const l of this.listings.values()) n += l.projects.length;
    return n;
  }

  getChildren(node?: Node): Node[] {
    const engines = this.engines();
    if (!node) {
      if (engines.length === 0) return [{ kind: 'message', text: 'No workspace folder with a running engine' }];
      if (engines.length === 1) return this.folderChildren(engines[0]!);
      return engines.map((engine) => ({ kind: 'folder', engine }));
    }
    switch (node.kind) {
      case 'folder':
        return this.folderChildren(node.engine);
      case 'solution':
        return this.projectNodes(node.engine, node.solution.projects);
      case 'loose':
        return this.projectNodes(node.engine, node.projects);
      case 'project': {
        const p = node.project;
        const out: Node[] = [];
        if (p.references.length) out.push({ kind: 'group', engine: node.engine, label: `References (${p.references.length})`, projects: p.references, icon: 'arrow-right' });
        if (p.dependents.length) out.push({ kind: 'group', engine: node.engine, label: `Dependents (${p.dependents.length})`, projects: p.dependents, icon: 'arrow-left' });
        return out;
      }
      case 'group':
        return this.projectNodes(node.engine, node.projects);
      default:
        return [];
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const C = vscode.TreeItemCollapsibleState;
    switch (node.kind) {
      case 'message':
        return new vscode.TreeItem(node.text, C.None);
      case 'folder': {
        const t = new vscode.TreeItem(node.engine.folder.name, C.Expanded);
        t.iconPath = new vscode.ThemeIcon('root-folder');
        return t;
      }
      case 'solution': {
        const t = new vscode.TreeItem(node.solution.name, C.Expanded);
        t.description = `${node.solution.projects.length} projects`;
        t.tooltip = node.solution.path;
        t.iconPath = new vscode.ThemeIcon('file-submodule');
        t.contextValue = 'solution';
        return t;
      }
      case 'loose': {
        const t = new vscode.TreeItem('Projects outside a solution', C.Collapsed);
        t.description = `${node.projects.length}`;
        t.iconPath = new vscode.ThemeIcon('folder');
        return t;
      }
      case 'project': {
        const p = node.project;
        const t = new vscode.TreeItem(p.name, p.references.length || p.dependents.length ? C.Collapsed : C.None);
        // A project in a folder excluded from the index was not read: say so, not "failed".
        const state = p.notIndexed ? 'not indexed (excluded folder)' : p.status !== 'complete' ? p.status : '';
        t.description = [p.isTest ? 'test' : '', p.targetFrameworks?.join(';') ?? '', state].filter(Boolean).join(' · ');
        t.tooltip = new vscode.MarkdownString(
          [`**${p.name}** — \`${p.path}\``, `${p.fileCount} files`, p.isTest ? 'test project' : 'production', ...p.reasons.map((r) => `- ${r}`)].join('\n\n'),
        );
        t.iconPath = new vscode.ThemeIcon(p.notIndexed ? 'eye-closed' : p.isTest ? 'beaker' : p.status === 'failed' ? 'error' : p.status === 'partial' ? 'warning' : 'project');
        t.resourceUri = vscode.Uri.joinPath(node.engine.folder.uri, p.path);
        t.command = { command: 'vscode.open', title: 'Open project file', arguments: [t.resourceUri] };
        t.contextValue = p.isTest ? 'project.test' : 'project';
        return t;
      }
      case 'group': {
        const t = new vscode.TreeItem(node.label, C.Collapsed);
        t.iconPath = new vscode.ThemeIcon(node.icon);
        return t;
      }
    }
  }

  private folderChildren(engine: EngineClient): Node[] {
    const l = this.listings.get(engine);
    if (!l) return [{ kind: 'message', text: engine.state === 'running' ? 'Loading projects…' : `Engine ${engine.state}` }];
    const out: Node[] = l.solutions.map((solution) => ({ kind: 'solution', engine, solution }));
    const inSolution = new Set(l.solutions.flatMap((s) => s.projects));
    const loose = l.projects.filter((p) => !inSolution.has(p.path)).map((p) => p.path);
    if (l.solutions.length === 0) return this.projectNodes(engine, loose);
    if (loose.length) out.push({ kind: 'loose', engine, projects: loose });
    return out;
  }

  private projectNodes(engine: EngineClient, paths: string[]): Node[] {
    const byPath = new Map((this.listings.get(engine)?.projects ?? []).map((p) => [p.path, p]));
    return paths
      .map((p) => byPath.get(p))
      .filter((p): p is ProjectNode => p !== undefined)
      .sort((a, b) => Number(a.isTest) - Number(b.isTest) || a.name.localeCompare(b.name))
      .map((project) => ({ kind: 'project', engine, project }));
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
