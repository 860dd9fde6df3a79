/**
 * A test-only VS Code extension standing in for C# Dev Kit in code-server: it serves C# language
 * features (definition, references, implementations, call hierarchy) through vscode-languageclient
 * and csharp-ls (installed into .tools/csharp-ls by npm install), for the solution at the
 * workspace root. Like C# Dev Kit it activates on `onLanguage:csharp` and loads the solution
 * after activation, so the Sextant extension sees it `loading` first.
 *
 * What C# Dev Kit does that this does not (the bridge cannot be checked on it here): its own
 * project-loading notifications and status item, Razor (.razor/.cshtml) files, and a solution
 * explorer that picks the solution; csharp-ls takes `-s <solution>` instead.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<{ client: () => LanguageClient | undefined }> {
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const exe = process.env.SEXTANT_STANDIN_CSHARP_LS;
  const log = vscode.window.createOutputChannel('C# stand-in', { log: true });
  context.subscriptions.push(log);
  if (!root || !exe || !fs.existsSync(exe)) {
    log.error(`no workspace folder or no csharp-ls (SEXTANT_STANDIN_CSHARP_LS=${exe ?? ''})`);
    return { client: () => undefined };
  }
  const sln = fs.readdirSync(root).find((f) => f.endsWith('.sln'));
  const serverOptions: ServerOptions = {
    command: exe,
    args: sln ? ['--solution', path.join(root, sln)] : [],
    options: { cwd: root, env: { ...process.env } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'csharp' }],
    outputChannel: log,
  };
  client = new LanguageClient('csharpStandin', 'C# stand-in (csharp-ls)', serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => void client?.stop() });
  await client.start();
  log.info(`csharp-ls started for ${sln ?? root}`);
  return { client: () => client };
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
