/**
 * The Sextant extension: starts one engine per trusted workspace folder, offers it to VS Code's
 * agent mode as an MCP server, answers its semantic questions with the editor's own language
 * services, and shows projects, index status, agent activity and graphs.
 */
import type * as vscode from 'vscode';
import type { SextantApi } from './api';
import { Sextant } from './Sextant';

let sextant: Sextant | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<SextantApi> {
  sextant = new Sextant(context);
  await sextant.start();
  return sextant.api();
}

export async function deactivate(): Promise<void> {
  const s = sextant;
  sextant = undefined;
  await s?.disposeAsync();
}
