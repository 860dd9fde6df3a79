/** Every tool this server registers, in the order tools/list shows them. Add a group per file. */
import type { AnyTool } from '../tool';
import { CONTEXT_TOOLS } from './context';
import { AGENT_TOOLS } from './agent';
import { repoOverviewTool, serverCapabilities } from './core';
import { fileDependenciesTool } from './dependencies';
import { EXPANDED_TOOLS } from './expanded';
import { diagnosticsTool } from './diagnostics';
import { findFile, sourceContext } from './files';
import { PROJECT_TOOLS } from './projects';
import { SEMANTIC_TOOLS } from './semantic';
import { SYNTAX_TOOLS } from './syntax';
import { searchTextTool } from './text';

export const ALL_TOOLS: readonly AnyTool[] = [
  serverCapabilities,
  repoOverviewTool,
  findFile,
  searchTextTool,
  sourceContext,
  ...SYNTAX_TOOLS,
  fileDependenciesTool,
  ...SEMANTIC_TOOLS,
  ...PROJECT_TOOLS,
  ...EXPANDED_TOOLS,
  diagnosticsTool,
  ...CONTEXT_TOOLS,
  ...AGENT_TOOLS,
];
