/**
 * One request's view of a ready language server: sends LSP requests bound to the caller's abort
 * signal, opens files before asking about them, and caches per-call lookups (document symbols)
 * that the C# workarounds repeat.
 */
import type * as lsp from 'vscode-languageserver-protocol';
import type { DocumentSymbolNode, SemanticLocation, SourcePosition } from '../types';
import { spanContains, TYPE_KINDS } from '../types';
import { toDocumentSymbols, toLocations, toLspPosition, type UriMapper } from './convert';
import type { LanguageServer } from './languageServer';
import type { OpenDocuments } from './openDocuments';

/** A document symbol with its ancestors, innermost last. */
export interface SymbolPath {
  symbol: DocumentSymbolNode;
  ancestors: DocumentSymbolNode[];
}

export class Session {
  private readonly symbolCache = new Map<string, Promise<DocumentSymbolNode[] | null>>();

  constructor(
    readonly server: LanguageServer,
    readonly documents: OpenDocuments,
    readonly capabilities: lsp.ServerCapabilities,
    readonly signal: AbortSignal,
    readonly deadline: number,
  ) {}

  get uris(): UriMapper {
    return this.server.uris;
  }

  /** Milliseconds left before the deadline. */
  remainingMs(): number {
    return this.deadline - Date.now();
  }

  send<R>(method: string, params: unknown): Promise<R> {
    return this.server.request<R>(method, params, this.signal);
  }

  /** Opens (or refreshes) a workspace file before a request about it. */
  open(rel: string): void {
    this.documents.ensure(rel);
  }

  textDocumentPosition(p: SourcePosition): lsp.TextDocumentPositionParams {
    return { textDocument: { uri: this.uris.toUri(p.path) }, position: toLspPosition(p) };
  }

  async definition(p: SourcePosition): Promise<SemanticLocation[] | null> {
    const raw = await this.send<lsp.Definition | lsp.LocationLink[] | null>('textDocument/definition', this.textDocumentPosition(p));
    return raw === null ? null : toLocations(this.uris, raw);
  }

  /** References with or without declarations; null when the server has no document for the file. */
  async references(p: SourcePosition, includeDeclaration: boolean): Promise<SemanticLocation[] | null> {
    const raw = await this.send<lsp.Location[] | null>('textDocument/references', { ...this.textDocumentPosition(p), context: { includeDeclaration } });
    return raw === null ? null : toLocations(this.uris, raw);
  }

  /** The file's outline (cached for this request); null when the server has no document for it. */
  documentSymbols(rel: string): Promise<DocumentSymbolNode[] | null> {
    let hit = this.symbolCache.get(rel);
    if (!hit) {
      hit = this.send<(lsp.DocumentSymbol | lsp.SymbolInformation)[] | null>('textDocument/documentSymbol', {
        textDocument: { uri: this.uris.toUri(rel) },
      }).then((r) => (r === null ? null : toDocumentSymbols(this.uris, r)));
      hit.catch(() => undefined);
      this.symbolCache.set(rel, hit);
    }
    return hit;
  }

  /** The innermost declared symbol whose name (selection) is at `loc`, with its ancestors. */
  async symbolAt(loc: SemanticLocation): Promise<SymbolPath | undefined> {
    if (loc.external) return undefined;
    const roots = await this.documentSymbols(loc.path);
    if (!roots) return undefined;
    let best: SymbolPath | undefined;
    const walk = (nodes: DocumentSymbolNode[], ancestors: DocumentSymbolNode[]) => {
      for (const n of nodes) {
        if (spanContains(n.span, loc.line, loc.column) || spanContains(n.selection, loc.line, loc.column)) {
          if (spanContains(n.selection, loc.line, loc.column)) best = { symbol: n, ancestors };
          walk(n.children, [...ancestors, n]);
        }
      }
    };
    walk(roots, []);
    return best;
  }

  /** The nearest enclosing type of a symbol path. */
  static containingType(p: SymbolPath): DocumentSymbolNode | undefined {
    for (let i = p.ancestors.length - 1; i >= 0; i--) {
      const a = p.ancestors[i]!;
      if (TYPE_KINDS.has(a.kind)) return a;
    }
    return undefined;
  }
}
