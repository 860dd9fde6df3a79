/**
 * The `sextant.*` settings, read with their manifest defaults (package.json is the one place the
 * defaults are written; test/unit/extension/manifest.test.ts checks they equal the engine's).
 */
import * as vscode from 'vscode';
import { SETTINGS } from './ids';

export interface Settings {
  indexRoot: string;
  exclude: string[];
  languages: string[];
  maxFileBytes: number;
  responseBytes: number;
  itemLimit: number;
  toolDeadlineMs: number;
  useEditorProviders: boolean;
  restore: boolean;
  lspCommands: Record<string, string[]>;
  httpPort: number;
  trace: string;
}

export function readSettings(scope?: vscode.Uri): Settings {
  const c = vscode.workspace.getConfiguration('sextant', scope);
  const get = <T>(key: string): T => c.get<T>(key) as T;
  return {
    indexRoot: get<string>(SETTINGS.indexRoot) ?? '',
    exclude: get<string[]>(SETTINGS.exclude) ?? [],
    languages: get<string[]>(SETTINGS.languages) ?? [],
    maxFileBytes: get<number>(SETTINGS.maxFileBytes),
    responseBytes: get<number>(SETTINGS.responseBytes),
    itemLimit: get<number>(SETTINGS.itemLimit),
    toolDeadlineMs: get<number>(SETTINGS.toolDeadlineMs),
    useEditorProviders: get<boolean>(SETTINGS.useEditorProviders) ?? true,
    restore: get<boolean>(SETTINGS.restore) ?? true,
    lspCommands: get<Record<string, string[]>>(SETTINGS.lspCommands) ?? {},
    httpPort: get<number>(SETTINGS.httpPort) ?? 0,
    trace: get<string>(SETTINGS.trace) ?? 'off',
  };
}
