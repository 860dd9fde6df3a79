/**
 * What `activate` returns. Other extensions may read engine status from it; the extension tests
 * use it to look inside the running extension (views, MCP definitions, graph panel).
 */
import type * as vscode from 'vscode';
import type { EngineClient } from './engine/EngineClient';
import type { GraphPanel } from './graph/GraphPanel';
import type { McpProvider } from './mcp/McpProvider';
import type { StatusBar } from './StatusBar';
import type { ActivityView } from './views/ActivityView';
import type { IndexView } from './views/IndexView';
import type { ProjectsView } from './views/ProjectsView';

export interface SextantApi {
  engines(): EngineClient[];
  engineFor(folder: vscode.WorkspaceFolder): EngineClient | undefined;
  /** What the MCP provider gives VS Code now. */
  mcpDefinitions(): vscode.McpHttpServerDefinition[];
  /** The MCP server definition provider itself. */
  mcp: McpProvider;
  projects: ProjectsView;
  index: IndexView;
  activity: ActivityView;
  statusBar: StatusBar;
  graph: GraphPanel;
  log: vscode.LogOutputChannel;
}
