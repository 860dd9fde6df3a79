/**
 * Identifiers the extension shares with its manifest (package.json `contributes`). Kept free of
 * `vscode` imports so the manifest unit test can check both sides agree.
 */

/** The extension's id (`publisher.name`). */
export const EXTENSION_ID = 'sextant.sextant';

/** `contributes.mcpServerDefinitionProviders[].id`. */
export const MCP_PROVIDER_ID = 'sextant.mcp';

/** Every contributed command. */
export const COMMANDS = {
  reindex: 'sextant.reindex',
  showProjectGraph: 'sextant.showProjectGraph',
  showCallGraph: 'sextant.showCallGraph',
  copyMcpConfig: 'sextant.copyMcpConfig',
  showIndexStatus: 'sextant.showIndexStatus',
  openLogs: 'sextant.openLogs',
  restartEngine: 'sextant.restartEngine',
  openLocation: 'sextant.openLocation',
  showGraphAround: 'sextant.showGraphAround',
  revealProjectInExplorer: 'sextant.revealProjectInExplorer',
  copyProjectPath: 'sextant.copyProjectPath',
  openProjectFile: 'sextant.openProjectFile',
  clearActivity: 'sextant.clearActivity',
  filterActivity: 'sextant.filterActivity',
  openActivityLocation: 'sextant.openActivityLocation',
  copyActivityArguments: 'sextant.copyActivityArguments',
} as const;

/** The Sextant view container and its views. */
export const VIEW_CONTAINER = 'sextant';
export const VIEWS = {
  projects: 'sextant.projects',
  index: 'sextant.index',
  activity: 'sextant.activity',
} as const;

/** Configuration keys (`contributes.configuration.properties`), without the `sextant.` prefix. */
export const SETTINGS = {
  indexRoot: 'indexRoot',
  exclude: 'exclude',
  languages: 'languages',
  maxFileBytes: 'maxFileBytes',
  responseBytes: 'budget.responseBytes',
  itemLimit: 'budget.itemLimit',
  toolDeadlineMs: 'budget.toolDeadlineMs',
  useEditorProviders: 'semantic.useEditorProviders',
  restore: 'restore',
  lspCommands: 'lsp.commands',
  httpPort: 'http.port',
  trace: 'trace.server',
} as const;
