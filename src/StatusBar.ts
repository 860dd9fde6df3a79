/** The Sextant status bar item: engine state and index progress; click shows the index status. */
import * as vscode from 'vscode';
import type { IndexProgress } from '../server/src/protocol/protocol';
import type { EngineClient } from './engine/EngineClient';
import { COMMANDS } from './ids';
import { PROGRESS_THROTTLE_MS } from './extensionLimits';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('sextant.status', vscode.StatusBarAlignment.Left, 10);
  private progress: IndexProgress | undefined;
  private lastPaint = 0;
  private restricted = false;

  constructor(private readonly engines: () => EngineClient[]) {
    this.item.name = 'Sextant';
    this.item.command = COMMANDS.showIndexStatus;
    this.paint();
    this.item.show();
  }

  /** Restricted Mode: no engine runs until the workspace is trusted. */
  setRestricted(restricted: boolean): void {
    this.restricted = restricted;
    this.paint();
  }

  onProgress(p: IndexProgress): void {
    const changed = p.phase !== this.progress?.phase;
    this.progress = p.phase === 'done' ? undefined : p;
    const now = Date.now();
    if (changed || now - this.lastPaint >= PROGRESS_THROTTLE_MS) this.paint();
  }

  /** The tooltip shown now (tests). */
  get tooltip(): string {
    return typeof this.item.tooltip === 'string' ? this.item.tooltip : (this.item.tooltip?.value ?? '');
  }

  /** The text shown now (tests). */
  get text(): string {
    return this.item.text;
  }

  paint(): void {
    this.lastPaint = Date.now();
    if (this.restricted) {
      this.item.text = '$(shield) Sextant: restricted';
      this.item.tooltip = 'Sextant starts no engine in Restricted Mode: trust this workspace to index it.';
      return;
    }
    const engines = this.engines();
    const failed = engines.find((e) => e.state === 'failed');
    if (failed) {
      this.item.text = '$(error) Sextant';
      this.item.tooltip = failed.failure ?? 'the engine failed';
      return;
    }
    const statuses = engines.map((e) => e.status).filter((st) => st !== undefined);
    if (engines.length === 0) {
      this.item.text = '$(circle-slash) Sextant: no folder';
      this.item.tooltip = 'No local workspace folder to index.';
      return;
    }
    const p = this.progress;
    if (p && p.phase === 'index' && p.total > 0) {
      this.item.text = `$(sync~spin) Sextant: indexing ${p.done.toLocaleString('en-US')}/${p.total.toLocaleString('en-US')} files`;
      this.item.tooltip = 'Indexing the workspace; answers meanwhile say the index is still building.';
      return;
    }
    if (statuses.length < engines.length || statuses.some((st) => st.state === 'starting')) {
      this.item.text = '$(sync~spin) Sextant: starting';
      this.item.tooltip = 'The engine is starting.';
      return;
    }
    const files = statuses.reduce((n, st) => n + st.index.files, 0).toLocaleString('en-US');
    if (statuses.some((st) => st.state === 'indexing')) {
      // Scanning for changes (a refresh or Reindex): the stored index still answers.
      this.item.text = `$(sync~spin) Sextant: updating ${files} files`;
      this.item.tooltip = 'Checking the workspace for changes; answers come from the stored index meanwhile.';
      return;
    }
    if (statuses.some((st) => st.state === 'error')) {
      this.item.text = '$(warning) Sextant: index error';
      this.item.tooltip = statuses.map((st) => st.error).filter(Boolean).join('\n') || 'Indexing failed. Click for the index status.';
      return;
    }
    const stale = statuses.some((st) => st.index.status !== 'fresh' || (st.index.dirty ?? 0) > 0);
    const sessions = statuses.reduce((n, st) => n + Math.max(0, st.clients - 1), 0);
    // The C# provider matters where there is C#: shown when a C# project is indexed.
    const hasCSharp = statuses.some((st) => st.projects.some((p) => /\.csproj$/i.test(p.project)));
    const csharp = hasCSharp ? statuses.flatMap((st) => st.languages).find((l) => l.language === 'csharp' && l.state !== 'absent') : undefined;
    const parts = [`${files} files`, stale ? 'changes pending' : 'up to date'];
    if (csharp) parts.push(`C#: ${providerWord(csharp.provider)}${csharp.state === 'loading' ? ' (loading)' : ''}`);
    if (sessions > 0) parts.push(`${sessions} agent${sessions === 1 ? '' : 's'}`);
    this.item.text = `${stale ? '$(sync)' : '$(check)'} Sextant: ${parts.join(' · ')}`;
    this.item.tooltip = [
      `${files} files indexed, ${stale ? 'some changes not indexed yet' : 'up to date with the files on disk'}.`,
      ...statuses.flatMap((st) => st.languages.filter((l) => l.state !== 'absent').map((l) => `${l.language}: ${providerWord(l.provider)}${l.state === 'loading' ? ' (loading)' : ''}`)),
      sessions > 0 ? `${sessions} external agent session${sessions === 1 ? '' : 's'} attached over HTTP.` : 'No external agent attached over HTTP.',
      'Click for the index status.',
    ].join('\n');
  }

  dispose(): void {
    this.item.dispose();
  }
}

/** Which kind of provider serves a language, as a person reads it. */
export function providerWord(provider: string): string {
  switch (provider) {
    case 'editor':
      return "the editor's language service";
    case 'lsp':
      return 'a language server';
    case 'roslyn':
      return "Sextant's Roslyn host";
    case 'typescript':
      return "Sextant's TypeScript programs";
    case 'heuristic':
      return 'name matching (heuristic)';
    case 'none':
      return 'nothing yet';
    default:
      return provider;
  }
}
