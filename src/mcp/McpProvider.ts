/**
 * Publishes each running engine's MCP Streamable HTTP endpoint to VS Code's MCP client
 * (`vscode.lm.registerMcpServerDefinitionProvider`), with the bearer token in the headers, and
 * fires `onDidChangeMcpServerDefinitions` whenever an endpoint appears, moves or goes away.
 */
import * as vscode from 'vscode';
import type { McpEndpoint } from '../../server/src/protocol/protocol';

export interface PublishedEndpoint {
  folder: vscode.WorkspaceFolder;
  endpoint: McpEndpoint;
}

export class McpProvider implements vscode.McpServerDefinitionProvider<vscode.McpHttpServerDefinition>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChangeMcpServerDefinitions = this.emitter.event;
  private endpoints: PublishedEndpoint[] = [];

  constructor(
    private readonly version: string,
    private readonly currentEndpoints: () => PublishedEndpoint[],
  ) {}

  /** Re-reads the endpoints and tells VS Code when they changed. */
  refresh(): void {
    const next = this.currentEndpoints();
    const key = (l: PublishedEndpoint[]): string => l.map((e) => `${e.folder.uri.toString()} ${e.endpoint.url} ${e.endpoint.token}`).join('\n');
    if (key(next) === key(this.endpoints)) return;
    this.endpoints = next;
    this.emitter.fire();
  }

  provideMcpServerDefinitions(): vscode.McpHttpServerDefinition[] {
    this.endpoints = this.currentEndpoints();
    return this.endpoints.map((e) => this.definition(e));
  }

  resolveMcpServerDefinition(server: vscode.McpHttpServerDefinition): vscode.McpHttpServerDefinition {
    return server;
  }

  definition(e: PublishedEndpoint): vscode.McpHttpServerDefinition {
    const label = this.endpoints.length > 1 || vscode.workspace.workspaceFolders?.length !== 1 ? `Sextant (${e.folder.name})` : 'Sextant';
    return new vscode.McpHttpServerDefinition(label, vscode.Uri.parse(e.endpoint.url), { Authorization: `Bearer ${e.endpoint.token}` }, this.version);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
