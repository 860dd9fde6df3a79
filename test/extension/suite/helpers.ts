/** Shared helpers of the extension tests (run inside the extension host). */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SextantApi } from '../../../src/api';
import type { EngineClient } from '../../../src/engine/EngineClient';
import { EXTENSION_ID } from '../../../src/ids';

export async function sextant(): Promise<SextantApi> {
  const ext = vscode.extensions.getExtension<SextantApi>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded`);
  return ext.activate();
}

export function folder(): vscode.WorkspaceFolder {
  const f = vscode.workspace.workspaceFolders?.[0];
  if (!f) throw new Error('the test window has no workspace folder');
  return f;
}

/** Polls until `get` returns a value (not undefined/false), or fails with `what`. */
export async function waitFor<T>(what: string, get: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const start = Date.now();
  for (;;) {
    const v = await get();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - start > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export async function readyEngine(): Promise<EngineClient> {
  const api = await sextant();
  const engine = await waitFor('an engine for the workspace folder', () => api.engineFor(folder()));
  await waitFor('the engine to be ready', () => engine.status?.state === 'ready', 90_000);
  return engine;
}

/** 1-based line/column of the `nth` (0-based) occurrence of `needle` in a workspace file. */
export function at(rel: string, needle: string, nth = 0): { path: string; line: number; column: number } {
  const text = fs.readFileSync(path.join(folder().uri.fsPath, rel), 'utf8');
  let idx = -1;
  for (let i = 0; i <= nth; i++) {
    idx = text.indexOf(needle, idx + 1);
    if (idx < 0) throw new Error(`'${needle}' #${nth} not found in ${rel}`);
  }
  const before = text.slice(0, idx).split('\n');
  return { path: rel, line: before.length, column: before[before.length - 1]!.length + 1 };
}

/** Asks the code-server runner for a screenshot; undefined when not running under it. */
export async function screenshot(name: string): Promise<{ path: string; width: number; height: number; distinctColors: number } | undefined> {
  const base = process.env.SEXTANT_TEST_CONTROL_URL;
  if (!base) return undefined;
  const res = await fetch(`${base}/screenshot?name=${encodeURIComponent(name)}`, { method: 'POST' });
  if (!res.ok) throw new Error(`screenshot failed: ${res.status} ${await res.text()}`);
  return (await res.json()) as { path: string; width: number; height: number; distinctColors: number };
}

/** A line in the runner's output (the extension host's own stdout is not shown by code-server). */
export function note(line: string): void {
  const file = process.env.SEXTANT_EXT_TEST_LOG;
  if (file) fs.appendFileSync(file, `      · ${line}\n`);
  else process.stdout.write(`      · ${line}\n`);
}

/** VS Code names MCP tools `mcp_<server>_<tool>` (the exact prefix is VS Code's choice). */
export const toolNamed = (name: string): vscode.LanguageModelToolInformation | undefined => vscode.lm.tools.find((t) => t.name === name || t.name.endsWith(`_${name}`));

/** Calls a Sextant tool through VS Code's MCP client; VS Code hands back the structuredContent JSON. */
export async function callTool(name: string, input: object): Promise<Record<string, unknown>> {
  const tool = await waitFor(`the ${name} tool`, () => toolNamed(name), 30_000);
  // As an agent does: a call the engine is still working on (STILL_WORKING after TOOL_ANSWER_MS)
  // is asked again with the same arguments, which joins it.
  let text = '';
  for (const end = Date.now() + 120_000; ; ) {
    const result = await vscode.lm.invokeTool(tool.name, { input, toolInvocationToken: undefined });
    text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    if (!text.startsWith('Error [STILL_WORKING]') || Date.now() > end) break;
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`${name} answered no JSON: ${text.slice(0, 500)}`);
  }
}


/**
 * Starts Sextant's MCP server in VS Code's MCP client and waits until its tools are listed. The
 * definition is published once the engine announces its endpoint, which can come after `ready`;
 * a start asked before that starts nothing, so it is asked again until the tools appear.
 */
export async function startMcp(timeoutMs = 90_000): Promise<void> {
  const engine = await readyEngine();
  await waitFor('the engine to announce its MCP endpoint', () => engine.endpoint?.url, 60_000);
  const start = Date.now();
  while (!toolNamed('definition')) {
    if (Date.now() - start > timeoutMs) throw new Error(`Sextant's tools did not appear in vscode.lm.tools within ${timeoutMs} ms (${vscode.lm.tools.length} tools: ${vscode.lm.tools.map((t) => t.name).slice(0, 20).join(', ')})`);
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { promptType: 'never', autoTrustChanges: true, waitForLiveTools: true });
    await waitFor('the definition tool', () => toolNamed('definition'), 5_000).catch(() => undefined);
  }
}
