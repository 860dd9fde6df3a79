/**
 * "Sextant: Show Index Status" as a read-only document a person reads (a virtual
 * `sextant-status:` document, refreshed whenever the engine's status changes while it is open).
 */
import * as vscode from 'vscode';

export class StatusDocument implements vscode.TextDocumentContentProvider, vscode.Disposable {
  static readonly scheme = 'sextant-status';
  static readonly uri = vscode.Uri.from({ scheme: StatusDocument.scheme, path: '/Sextant Index Status' });
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly render: () => string) {}

  provideTextDocumentContent(): string {
    return this.render();
  }

  update(): void {
    if (vscode.workspace.textDocuments.some((d) => d.uri.toString() === StatusDocument.uri.toString())) this.emitter.fire(StatusDocument.uri);
  }

  dispose(): void {
    this.emitter.dispose();
  }
}
