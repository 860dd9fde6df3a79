/**
 * Which installed extensions can answer semantic questions for a language. VS Code has no API
 * that lists the providers registered for a language, so this reads the extensions' manifests:
 * an extension with code (`main`/`browser`) that activates on `onLanguage:<id>` (or `*` /
 * `onStartupFinished`) and declares or names the language is a candidate. Grammar-only
 * extensions (no code) are not.
 */
import * as vscode from 'vscode';
import type { EditorLanguageAvailability } from '../../server/src/protocol/protocol';
import { EXTENSION_ID } from '../ids';

/** Languages that share one provider extension (TS service serves JS too). */
const SIBLINGS: Record<string, string[]> = {
  typescript: ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'],
  javascript: ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'],
  typescriptreact: ['typescript', 'typescriptreact'],
  javascriptreact: ['javascript', 'javascriptreact'],
};

interface Manifest {
  main?: string;
  browser?: string;
  activationEvents?: string[];
  contributes?: { languages?: { id?: string }[] };
}

/** Extensions (other than Sextant) with code that activate for `language`. */
export function providerExtensions(language: string): vscode.Extension<unknown>[] {
  const ids = SIBLINGS[language] ?? [language];
  return vscode.extensions.all.filter((ext) => {
    if (ext.id === EXTENSION_ID) return false;
    const m = ext.packageJSON as Manifest;
    if (!m.main && !m.browser) return false;
    const events = m.activationEvents ?? [];
    return ids.some((id) => events.includes(`onLanguage:${id}`));
  });
}

/** Activates the provider extensions of a language; returns the ones now active. */
export async function ensureProvidersActive(language: string): Promise<vscode.Extension<unknown>[]> {
  const exts = providerExtensions(language);
  await Promise.all(exts.map((e) => (e.isActive ? undefined : Promise.resolve(e.activate()).catch(() => undefined))));
  return exts.filter((e) => e.isActive);
}

export function describeExtensions(exts: readonly vscode.Extension<unknown>[]): string {
  return exts.map((e) => `${e.id} ${(e.packageJSON as { version?: string }).version ?? ''}`.trim()).join(', ');
}

/** The editor's readiness for each language (sent to the engine on start and on change). */
export function editorAvailability(languages: readonly string[]): EditorLanguageAvailability[] {
  return languages.map((language) => {
    const exts = providerExtensions(language);
    if (exts.length === 0) return { language, state: 'absent', detail: `no installed extension provides ${language} language features` };
    const active = exts.filter((e) => e.isActive);
    return active.length > 0
      ? { language, state: 'ready', detail: describeExtensions(active) }
      : { language, state: 'loading', detail: `${describeExtensions(exts)} (not activated yet)` };
  });
}
