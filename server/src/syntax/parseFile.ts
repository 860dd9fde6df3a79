/**
 * Parses one file and extracts its outline. Never throws for bad input: the answer carries the
 * declarations it could find and diagnostics saying what was wrong.
 *
 * Robustness for C#-style preprocessors: when the first parse has errors and the file has `#if`
 * groups, the file is parsed twice more with inactive branches blanked (first branches kept, then
 * last branches kept); the outline of the cleaner variant is the primary one and declarations that
 * only the other variant has are added, so nothing that exists under `#else` is lost.
 * Every tree is deleted before returning (the WASM heap is small and shared by all files).
 */
import type { Node, Tree } from 'web-tree-sitter';
import { MAX_REPORTED_ERROR_LINES } from '../core/limits';
import { loadGrammar, loadedGrammar, Parser } from './grammars';
import { languageById, languageForPath, supportedLanguageIds, type LanguageConfig } from './languageConfig';
import { extractOutline, isGeneratedFile, type OutlineResult } from './outline';
import { blankInactiveBranches, hasConditionalDirectives } from './preprocessor';
import type { FileSyntax, OutlineSymbol, SyntaxDiagnostics } from './types';

const parsers = new Map<string, Parser>();

/** Loads the grammar of a language (by id) so that `parseText` can run synchronously. */
export async function prepareLanguage(languageId: string): Promise<LanguageConfig | undefined> {
  const config = languageById(languageId);
  if (!config) return undefined;
  await loadGrammar(config);
  return config;
}

/** Parses and outlines one file; loads the grammar first if needed. */
export async function parseText(path: string, text: string, languageId?: string): Promise<FileSyntax> {
  const config = languageId ? languageById(languageId) : languageForPath(path);
  if (!config) return unsupported(path, languageId ?? '', text);
  await loadGrammar(config);
  return parseTextSync(path, text, config);
}

/** Synchronous parse; the grammar must have been loaded with `prepareLanguage`. */
export function parseTextSync(path: string, text: string, config: LanguageConfig): FileSyntax {
  const t0 = performance.now();
  const parser = parserFor(config);
  const fileGenerated = isGeneratedFile(config, path, text);
  const first = parseOutline(parser, text, text, config, path, fileGenerated);
  let result = first;
  const reparsedWith: string[] = [];
  if (first.errorCount > 0) {
    // Display texts: the file, or its two preprocessor variants; each is parsed with repairs applied.
    let bases = [text];
    if (config.preprocessor && hasConditionalDirectives(text)) {
      const blanked = [blankInactiveBranches(text, 'first'), blankInactiveBranches(text, 'last')].filter((v): v is string => v !== undefined);
      if (blanked.length > 0) {
        bases = blanked;
        reparsedWith.push('inactive #if branches blanked');
      }
    }
    const variants: Parsed[] = [];
    const applied = new Set<string>();
    for (const base of bases) {
      const parseable = applyRepairs(base, config, applied);
      if (parseable === text) continue;
      variants.push(parseOutline(parser, parseable, base, config, path, fileGenerated));
    }
    for (const why of applied) reparsedWith.push(`repaired: ${why}`);
    if (variants.length > 0) {
      variants.sort((a, b) => a.errorCount - b.errorCount);
      const [primary, ...others] = variants;
      if (primary) {
        let symbols = primary.outline.symbols;
        for (const o of others) symbols = mergeOutlines(symbols, o.outline.symbols);
        // Declarations of the unblanked parse whose name neither variant has (middle #elif
        // branches). Matching by name only: error recovery there can misplace a declaration
        // the variants already hold under its right container.
        symbols = mergeOutlines(symbols, first.outline.symbols.filter((s) => !s.recovered), (s) => `${s.kind}|${s.name}`);
        result = { ...primary, outline: { ...primary.outline, symbols } };
      }
    }
  }
  const diagnostics: SyntaxDiagnostics = {
    hasErrors: result.errorCount > 0,
    errorLines: result.errorLines,
    reparsedWith,
    recoveredDeclarations: result.outline.symbols.filter((s) => s.recovered).length,
    depthTruncated: result.outline.depthTruncated,
    symbolsTruncated: result.outline.symbolsTruncated,
  };
  return {
    path,
    language: config.id,
    lineCount: countLines(text),
    length: text.length,
    isGenerated: fileGenerated,
    symbols: result.outline.symbols,
    diagnostics,
    parseMs: Math.round((performance.now() - t0) * 100) / 100,
  };
}

/** Parses `text` and hands the tree to `fn`; the tree is deleted afterwards. Grammar must be loaded. */
export function withTree<T>(text: string, config: LanguageConfig, fn: (tree: Tree) => T): T {
  const tree = parserFor(config).parse(text);
  if (!tree) throw new Error(`tree-sitter returned no tree for a ${config.id} file`);
  try {
    return fn(tree);
  } finally {
    tree.delete();
  }
}

/** The FileSyntax of a file whose language is not supported. */
export function unsupported(path: string, languageId: string, text: string): FileSyntax {
  const what = languageId ? `language '${languageId}'` : `files like '${path}'`;
  return {
    path,
    language: languageId,
    lineCount: countLines(text),
    length: text.length,
    isGenerated: false,
    symbols: [],
    diagnostics: { hasErrors: false, errorLines: [], reparsedWith: [], recoveredDeclarations: 0, depthTruncated: false, symbolsTruncated: false },
    parseMs: 0,
    error: { code: 'UNSUPPORTED_LANGUAGE', message: `No syntax support for ${what}; supported: ${supportedLanguageIds().join(', ')}` },
  };
}

// ---------------------------------------------------------------------------------------------

interface Parsed {
  outline: OutlineResult;
  errorCount: number;
  errorLines: number[];
}

function parserFor(config: LanguageConfig): Parser {
  let p = parsers.get(config.id);
  if (!p) {
    const lang = loadedGrammar(config);
    if (!lang) throw new Error(`grammar for ${config.id} not loaded (call prepareLanguage first)`);
    p = new Parser();
    p.setLanguage(lang);
    parsers.set(config.id, p);
  }
  return p;
}

/** The text with the config's length-preserving repairs applied (the same string when none match). */
export function applyRepairs(text: string, config: LanguageConfig, applied?: Set<string>): string {
  let out = text;
  for (const r of config.repairs ?? []) {
    const re = new RegExp(r.pattern, 'g');
    const w = r.with ?? '_';
    const next = out.replace(re, (m) => (m.length > 0 ? w + m.slice(1) : m));
    if (next !== out) applied?.add(r.why);
    out = next;
  }
  return out;
}

/** Parses `parseable`; names and signatures are cut from `display` (same offsets, no repairs). */
function parseOutline(parser: Parser, parseable: string, display: string, config: LanguageConfig, path: string, generated: boolean): Parsed {
  const tree = parser.parse(parseable);
  if (!tree) {
    return { outline: { symbols: [], depthTruncated: false, symbolsTruncated: false, recovered: 0 }, errorCount: 1, errorLines: [1] };
  }
  try {
    const root = tree.rootNode;
    const errors = root.hasError ? collectErrors(root) : { count: 0, lines: [] };
    const outline = extractOutline(root, display, config, path, generated);
    return { outline, errorCount: errors.count, errorLines: errors.lines };
  } finally {
    tree.delete();
  }
}

/** Counts ERROR / MISSING nodes, following only subtrees that contain errors. */
function collectErrors(root: Node): { count: number; lines: number[] } {
  let count = 0;
  const lines: number[] = [];
  const stack: Node[] = [root];
  while (stack.length) {
    const n = stack.pop();
    if (!n) break;
    if (n.isError || n.isMissing) {
      count++;
      const line = n.startPosition.row + 1;
      if (lines.length < MAX_REPORTED_ERROR_LINES && !lines.includes(line)) lines.push(line);
      if (n.isMissing) continue;
    }
    const kids = n.children;
    for (let i = kids.length - 1; i >= 0; i--) {
      const k = kids[i];
      if (k && (k.hasError || k.isMissing)) stack.push(k);
    }
  }
  lines.sort((a, b) => a - b);
  return { count, lines };
}

function countLines(text: string): number {
  if (text.length === 0) return 0;
  let n = 1;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  if (text.endsWith('\n')) n--;
  return n;
}

/**
 * Adds to `a` the declarations of `b` that `a` lacks, keeping document order and parent links.
 * Two declarations are the same when kind, qualified name and last line agree: alternative
 * headers of one class (`#if` / `#else` before one body) end on the same brace, while alternative
 * one-line members (`#if NET8 int X => 1; #else long X => 1; #endif`) end on different lines.
 */
export function mergeOutlines(a: OutlineSymbol[], b: OutlineSymbol[], key: (s: OutlineSymbol) => string = (s) => `${s.kind}|${s.qualifiedName}|${s.endLine}`): OutlineSymbol[] {
  const index = new Map<string, number>();
  a.forEach((s, i) => index.set(key(s), i));
  const merged: OutlineSymbol[] = a.map((s) => ({ ...s }));
  const bIndexToMerged = new Map<number, number>();
  let added = false;
  b.forEach((s, i) => {
    const k = key(s);
    const existing = index.get(k);
    if (existing !== undefined) {
      bIndexToMerged.set(i, existing);
      return;
    }
    const parent = s.parent >= 0 ? (bIndexToMerged.get(s.parent) ?? -1) : -1;
    const copy = { ...s, parent };
    bIndexToMerged.set(i, merged.length);
    index.set(k, merged.length);
    merged.push(copy);
    added = true;
  });
  if (!added) return a;
  const order = merged.map((s, i) => ({ s, i })).sort((x, y) => x.s.line - y.s.line || x.s.column - y.s.column || x.s.depth - y.s.depth || x.i - y.i);
  const remap = new Map<number, number>();
  order.forEach((o, n) => remap.set(o.i, n));
  return order.map((o) => ({ ...o.s, parent: o.s.parent >= 0 ? (remap.get(o.s.parent) ?? -1) : -1 }));
}
