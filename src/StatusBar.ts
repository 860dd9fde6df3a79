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
    this.progress = p.phase === 'done' ? undefined : p;
    const now = Date.now();
    if (p.phase === 'done' || now - this.lastPaint >= PROGRESS_THROTTLE_MS) this.paint();
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
    if (this.progress && this.progress.phase === 'index') {
      this.item.text = `$(sync~spin) Sextant: indexing ${this.progress.done}/${this.progress.total}`;
      this.item.tooltip = 'Indexing the workspace; answers meanwhile say `building`.';
      return;
    }
    const statuses = engines.map((e) => e.status).filter((s) => s !== undefined);
    if (engines.length === 0) {
      this.item.text = '$(circle-slash) Sextant';
      this.item.tooltip = 'No workspace folder to index';
    } else if (statuses.length < engines.length || statuses.some((s) => s.state !== 'ready')) {
      this.item.text = `$(sync~spin) Sextant: ${this.progress?.phase ?? 'starting'}`;
      this.item.tooltip = 'The engine is starting or indexing.';
    } else {
      const files = statuses.reduce((n, s) => n + s.index.files, 0);
      this.item.text = `$(check) Sextant`;
      this.item.tooltip = `${files} files indexed; ${statuses.map((s) => s.index.status).join(', ')}. Click for the index status.`;
    }
  }

  dispose(): void {
    this.item.dispose();
  }
}
