/**
 * Keeps the language server's view of the files we ask about equal to the bytes on disk: a file
 * is opened (`didOpen`) before the first request on it, re-sent (`didChange`, full text) when its
 * size or mtime changed, and the least recently used ones are closed beyond a cap. tsserver needs
 * a file open to find its project; csharp-ls reads closed files from its loaded workspace.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MessageConnection } from 'vscode-jsonrpc';
import { LSP_MAX_OPEN_DOCUMENTS, MAX_FILE_BYTES } from '../../core/limits';
import { readWithOneHandle } from '../../core/paths';
import type { UriMapper } from './convert';

interface OpenDoc {
  version: number;
  /** When the text was last sent (didOpen / didChange). */
  sentAt: number;
  size: number;
  mtimeMs: number;
}

export class OpenDocuments {
  private readonly docs = new Map<string, OpenDoc>();

  constructor(
    private readonly connection: MessageConnection,
    private readonly uris: UriMapper,
    private readonly languageOf: (rel: string) => string | undefined,
  ) {}

  /**
   * Opens or refreshes a workspace file. Returns false when the file cannot be read (missing,
   * too large, binary): the request then goes to the server without it.
   */
  ensure(rel: string): boolean {
    const abs = path.join(this.uris.root, rel);
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch {
      return false;
    }
    const existing = this.docs.get(rel);
    if (existing && existing.size === st.size && existing.mtimeMs === st.mtimeMs) {
      // Touch for LRU order.
      this.docs.delete(rel);
      this.docs.set(rel, existing);
      return true;
    }
    let text: string;
    let mtimeMs: number;
    let size: number;
    try {
      const r = readWithOneHandle(abs, rel, MAX_FILE_BYTES);
      text = r.bytes.toString('utf8');
      mtimeMs = r.mtimeMs;
      size = r.bytes.length;
    } catch {
      return false;
    }
    const uri = this.uris.toUri(rel);
    if (existing) {
      const version = existing.version + 1;
      void this.connection
        .sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ text }] })
        .catch(() => undefined);
      this.docs.delete(rel);
      this.docs.set(rel, { version, size, mtimeMs, sentAt: Date.now() });
      return true;
    }
    const languageId = this.languageOf(rel) ?? 'plaintext';
    void this.connection
      .sendNotification('textDocument/didOpen', { textDocument: { uri, languageId, version: 1, text } })
      .catch(() => undefined);
    this.docs.set(rel, { version: 1, size, mtimeMs, sentAt: Date.now() });
    this.evict();
    return true;
  }

  /** When the file's text was last sent to the server (undefined: not open). */
  sentAt(rel: string): number | undefined {
    return this.docs.get(rel)?.sentAt;
  }

  get size(): number {
    return this.docs.size;
  }

  private evict(): void {
    while (this.docs.size > LSP_MAX_OPEN_DOCUMENTS) {
      const oldest = this.docs.keys().next().value as string | undefined;
      if (oldest === undefined) return;
      this.docs.delete(oldest);
      void this.connection
        .sendNotification('textDocument/didClose', { textDocument: { uri: this.uris.toUri(oldest) } })
        .catch(() => undefined);
    }
  }
}
