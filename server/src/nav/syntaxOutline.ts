/**
 * Outlines for nav: from the index when the file on disk is the one indexed (same size and
 * mtime), else from a fresh parse of the live file; a virtual document (generated:…, decompiled:…)
 * is parsed from the provider's text (nav/virtualDocuments.ts). Also symbol_at and inspect_syntax_tree, which
 * need the same path checks. Plain data; paths workspace-relative, lines 1-based.
 */
import * as fs from 'node:fs';
import { ToolError } from '../core/errors';
import { LARGE_FILE_BYTES, LARGE_FILE_LINES, MAX_FILE_BYTES } from '../core/limits';
import { readWithOneHandle } from '../core/paths';
import { decodeAttributes } from '../index/symbolsHook';
import { ensureSymbolTables, SYMBOL_FLAG_GENERATED, SYMBOL_FLAG_RECOVERED, SYMBOL_FLAG_TEST } from '../index/symbolTables';
import { languageForPath, supportedLanguageIds, type LanguageConfig } from '../syntax/languageConfig';
import { decodeSource } from '../syntax/parseBatch';
import { parseText } from '../syntax/parseFile';
import { symbolAt, type SymbolAtResult } from '../syntax/symbolAt';
import { inspectText, type SyntaxTreeView } from '../syntax/syntaxTree';
import type { OutlineSymbol, SymbolKind } from '../syntax/types';
import { isVirtualPath } from '../core/virtualPaths';
import type { Engine } from './engine';
import { readVirtualDocument } from './virtualDocuments';

export interface FileOutline {
  path: string;
  language: string;
  lines: number;
  bytes: number;
  /** Above the large-file threshold: outline before reading. */
  isLarge: boolean;
  /** 'index': rows stored for the unchanged file; 'parse': parsed now from the live file. */
  source: 'index' | 'parse';
  hasErrors: boolean;
  errorLines: number[];
  reparsedWith: string[];
  recoveredDeclarations: number;
  depthTruncated: boolean;
  isGenerated: boolean;
  symbols: OutlineSymbol[];
}

/** The outline of one workspace file. Throws ToolError for bad paths, directories, binary, unsupported languages. */
export async function fileOutline(engine: Engine, path: string): Promise<FileOutline> {
  if (isVirtualPath(path)) {
    const doc = await readVirtualDocument(engine, path);
    return parsedOutline(path, doc.text, Buffer.byteLength(doc.text, 'utf8'), 'csharp', doc.kind === 'generated');
  }
  const { rel, abs, config } = resolveSourceFile(engine, path);
  const row = engine.catalog().byRelPath(rel);
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(abs);
  } catch {
    st = undefined;
  }
  if (row && st && row.size === st.size && row.mtimeMs === Math.floor(st.mtimeMs)) {
    const fromIndex = outlineFromIndex(engine, row.id, rel, row.lines, row.size);
    if (fromIndex) return fromIndex;
  }
  const { text, bytes } = readSource(abs, rel);
  return parsedOutline(rel, text, bytes, config.id);
}

async function parsedOutline(rel: string, text: string, bytes: number, language: string, generated?: boolean): Promise<FileOutline> {
  const r = await parseText(rel, text, language);
  if (r.error) throw new ToolError(r.error.code === 'UNSUPPORTED_LANGUAGE' ? 'UNSUPPORTED_LANGUAGE' : 'INTERNAL', r.error.message, 'see server_capabilities for supported languages');
  return {
    path: rel,
    language: r.language,
    lines: r.lineCount,
    bytes,
    isLarge: r.lineCount > LARGE_FILE_LINES || bytes > LARGE_FILE_BYTES,
    source: 'parse',
    hasErrors: r.diagnostics.hasErrors,
    errorLines: r.diagnostics.errorLines,
    reparsedWith: r.diagnostics.reparsedWith,
    recoveredDeclarations: r.diagnostics.recoveredDeclarations,
    depthTruncated: r.diagnostics.depthTruncated,
    isGenerated: generated ?? r.isGenerated,
    symbols: r.symbols,
  };
}

/** symbol_at: the innermost declaration at a position and its containers. */
export async function symbolAtPosition(engine: Engine, path: string, line: number, column?: number): Promise<{ outline: FileOutline; at: SymbolAtResult }> {
  const outline = await fileOutline(engine, path);
  if (line > Math.max(outline.lines, 1)) {
    throw new ToolError('LINE_OUT_OF_RANGE', `Line ${line} is past the end of '${outline.path}' (${outline.lines} lines)`, 'pass a line within the file');
  }
  return { outline, at: symbolAt(outline.symbols, line, column) };
}

/** inspect_syntax_tree on the live file. */
export async function inspectSyntax(engine: Engine, path: string, line: number, column: number | undefined, maxAncestors: number, maxChildren: number): Promise<{ path: string; language: string; view: SyntaxTreeView }> {
  const { rel, abs, config } = resolveSourceFile(engine, path);
  const { text } = readSource(abs, rel);
  const view = await inspectText(text, config, line, column, maxAncestors, maxChildren);
  return { path: rel, language: config.id, view };
}

/** Checks the path and the language; the file must exist inside the workspace. */
export function resolveSourceFile(engine: Engine, path: string): { rel: string; abs: string; config: LanguageConfig } {
  const r = engine.policy.resolveFile(path);
  let isDir = false;
  try {
    isDir = fs.statSync(r.abs).isDirectory();
  } catch {
    isDir = false;
  }
  if (isDir) throw new ToolError('NOT_A_FILE', `'${r.rel}' is a directory`, 'pass a file path; use find_file to list files');
  const config = languageForPath(r.rel);
  if (!config) {
    throw new ToolError('UNSUPPORTED_LANGUAGE', `No syntax support for '${r.rel}'`, `the syntax layer covers ${supportedLanguageIds().join(', ')}; use search_text or source_context for other files`);
  }
  return { rel: r.rel, abs: r.abs, config };
}

function readSource(abs: string, rel: string): { text: string; bytes: number } {
  const { bytes } = readWithOneHandle(abs, rel, MAX_FILE_BYTES);
  const text = decodeSource(bytes);
  if (text === undefined) throw new ToolError('BINARY_FILE', `'${rel}' is a binary file`, 'outline reads source files only');
  return { text, bytes: bytes.length };
}

const SELECT_SYMBOLS = `SELECT ordinal, parent, depth, symbol_id, name, qualified_name, kind, container, namespace, signature,
  line, end_line, col, end_col, name_line, name_col, flags, modifiers, attributes, extended_type FROM symbols`;

/** Converts a `SELECT_SYMBOLS` row. */
export function rowToSymbol(r: unknown[]): OutlineSymbol {
  const flags = r[16] as number;
  const s: OutlineSymbol = {
    id: r[3] as string,
    name: r[4] as string,
    kind: r[6] as SymbolKind,
    qualifiedName: r[5] as string,
    container: r[7] as string,
    namespace: r[8] as string,
    line: r[10] as number,
    endLine: r[11] as number,
    column: r[12] as number,
    endColumn: r[13] as number,
    nameLine: r[14] as number,
    nameColumn: r[15] as number,
    signature: r[9] as string,
    modifiers: r[17] ? String(r[17]).split(' ') : [],
    attributes: [],
    isTest: (flags & SYMBOL_FLAG_TEST) !== 0,
    isGenerated: (flags & SYMBOL_FLAG_GENERATED) !== 0,
    parent: r[1] as number,
    depth: r[2] as number,
  };
  if (r[18]) {
    const a = decodeAttributes(r[18] as string);
    s.attributes = a.names;
    if (a.args) s.attributeArgs = a.args;
  }
  if (r[19]) s.extendedType = r[19] as string;
  if (flags & SYMBOL_FLAG_RECOVERED) s.recovered = true;
  return s;
}

function outlineFromIndex(engine: Engine, fileId: number, rel: string, lines: number, bytes: number): FileOutline | undefined {
  const store = engine.store;
  ensureSymbolTables(store);
  const meta = store.rows('SELECT language, has_errors, error_lines, reparsed, recovered, truncated, generated, error FROM syntax_files WHERE file_id = ?', [fileId])[0];
  if (!meta || meta[7]) return undefined;
  const symbols = store.rows(`${SELECT_SYMBOLS} WHERE file_id = ? ORDER BY ordinal`, [fileId]).map(rowToSymbol);
  return {
    path: rel,
    language: meta[0] as string,
    lines,
    bytes,
    isLarge: lines > LARGE_FILE_LINES || bytes > LARGE_FILE_BYTES,
    source: 'index',
    hasErrors: meta[1] === 1,
    errorLines: meta[2] ? String(meta[2]).split(',').map(Number) : [],
    reparsedWith: JSON.parse(String(meta[3])) as string[],
    recoveredDeclarations: meta[4] as number,
    depthTruncated: ((meta[5] as number) & 1) !== 0,
    isGenerated: meta[6] === 1,
    symbols,
  };
}

export { SELECT_SYMBOLS };
