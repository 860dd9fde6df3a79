/**
 * Parses one file and extracts its outline. Never throws for bad input: the answer carries the
 * declarations it could find and diagnostics saying what was wrong.
 *
 * Skeleton first (languages with a `skeleton` scan, C#): the parse leaves out the insides of member
 * bodies (tree-sitter `includedRanges`, offsets unchanged), which holds every declaration and costs
 * a fraction of a whole-file parse. It is used when it parses without errors, directly or through
 * its preprocessor variants; otherwise the whole file is parsed as below. Syntax errors inside
 * bodies left out are therefore not reported.
 *
 * Robustness for C#-style preprocessors: when the first parse has errors and the file has `#if`
 * groups, the file is parsed twice more with inactive branches blanked (first branches kept, then
 * last branches kept); the outline of the cleaner variant is the primary one and declarations that
 * only the other variant has are added, so nothing that exists under `#else` is lost.
 * Every tree is deleted before returning (the WASM heap is small and shared by all files).
 */
import type { Node, Point, Range, Tree } from 'web-tree-sitter';
import { MAX_REPORTED_ERROR_LINES, SKELETON_MIN_LEFT_OUT_SHARE } from '../core/limits';
import { loadGrammar, loadedGrammar, Parser } from './grammars';
import { languageById, languageForPath, supportedLanguageIds, type LanguageConfig } from './languageConfig';
import { extractOutline, isGeneratedFile, type OutlineResult } from './outline';
import { BRANCHES_CHANGE_DEPTH, csharpSkeleton, csharpSkeletonOrReason, type Skeleton } from './csharpSkeleton';
import { blankInactiveBranches, conditionalsAreSimple, hasConditionalDirectives } from './preprocessor';
import type { FileSyntax, ModuleRefs, OutlineSymbol, SyntaxDiagnostics } from './types';
import { moduleRefsOf } from './moduleRefs';

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

/** Options of a synchronous parse. */
export interface ParseTextOptions {
  /** Try the config's skeleton parse first (default true; false parses the whole file, for comparisons). */
  skeleton?: boolean;
}

/** Synchronous parse; the grammar must have been loaded with `prepareLanguage`. */
export function parseTextSync(path: string, text: string, config: LanguageConfig, options: ParseTextOptions = {}): FileSyntax {
  const t0 = performance.now();
  const parser = parserFor(config);
  const fileGenerated = isGeneratedFile(config, path, text);
  const outcome = (options.skeleton !== false ? parseSkeleton(parser, text, config, path, fileGenerated) : undefined) ?? parseWhole(parser, text, config, path, fileGenerated);
  const { result, reparsedWith } = outcome;
  const diagnostics: SyntaxDiagnostics = {
    hasErrors: result.errorCount > 0,
    errorLines: result.errorLines,
    reparsedWith,
    recoveredDeclarations: result.outline.symbols.filter((s) => s.recovered).length,
    depthTruncated: result.outline.depthTruncated,
    symbolsTruncated: result.outline.symbolsTruncated,
  };
  const out: FileSyntax = {
    path,
    language: config.id,
    lineCount: countLines(text),
    length: text.length,
    isGenerated: fileGenerated,
    symbols: result.outline.symbols,
    diagnostics,
    parseMs: Math.round((performance.now() - t0) * 100) / 100,
  };
  if (result.modules) out.modules = result.modules;
  return out;
}

interface Outcome {
  result: Parsed;
  reparsedWith: string[];
}

/**
 * The skeleton parse (member bodies left out): accepted when the skeleton parses without errors,
 * or when its preprocessor variants / repaired texts do (merged as for the whole file).
 * Undefined — parse the whole file — when the language has no skeleton, the scan was unsure, or
 * errors remain.
 */
function parseSkeleton(parser: Parser, text: string, config: LanguageConfig, path: string, generated: boolean): Outcome | undefined {
  if (config.skeleton !== 'csharp') return undefined;
  const skeleton = csharpSkeletonOrReason(text);
  if (typeof skeleton === 'string') {
    // `#if` alternatives that each open a brace (two headers sharing one body): no skeleton of
    // the file, but each preprocessor variant has one
    const simple = skeleton === BRANCHES_CHANGE_DEPTH && config.preprocessor === true && conditionalsAreSimple(text);
    return simple ? parseVariantSkeletons(parser, text, config, path, generated) : undefined;
  }
  if (skeleton.blanked < SKELETON_MIN_LEFT_OUT_SHARE * text.length) return undefined;
  const ranges = includedRanges(text, skeleton.ranges);
  const locals = localsOf(skeleton);
  // A grammar gap in the parsed part (`bool async)` in a header) is repaired before the first
  // parse: error recovery can cost many times a clean parse (a second on a LINQ-heavy test file).
  const gaps = new Set<string>();
  const repairedFirst = repairsMatch(text, skeleton.ranges, config) ? applyRepairs(text, config, gaps) : text;
  const first = parseOutline(parser, repairedFirst, text, config, path, generated, ranges, locals);
  if (first.errorCount === 0) return { result: first, reparsedWith: [...gaps].map((why) => `repaired: ${why}`) };
  // as for the whole file: preprocessor variants, repairs (length-preserving, so the ranges hold)
  const reparsedWith: string[] = [];
  const variants = reparseVariants(text, config, reparsedWith, (parseable, base) => parseOutline(parser, parseable, base, config, path, generated, ranges, locals));
  const merged = mergeVariants(first, variants);
  if (!merged || merged.errorCount > 0) return undefined;
  return { result: merged, reparsedWith };
}

/** True when one of the config's repair patterns matches in the text outside `skip` ranges. */
function repairsMatch(text: string, skip: number[], config: LanguageConfig): boolean {
  const repairs = config.repairs ?? [];
  if (repairs.length === 0) return false;
  const parts: string[] = [];
  let from = 0;
  for (let k = 0; k < skip.length; k += 2) {
    parts.push(text.slice(from, skip[k] as number));
    from = skip[k + 1] as number;
  }
  parts.push(text.slice(from));
  const kept = parts.join('\n');
  return repairs.some((r) => new RegExp(r.pattern).test(kept));
}

/** Where the outline looks for local functions: the whole tree, only the names the scan kept, or nowhere. */
function localsOf(skeleton: Skeleton): boolean | number[] {
  if (skeleton.localFunctionsElsewhere) return true;
  return skeleton.localFunctionNames.length > 0 ? skeleton.localFunctionNames : false;
}

/**
 * The skeletons of the file's two preprocessor variants (first / last branch of every group),
 * merged; for files whose groups have at most two branches and do not nest, so that the two
 * variants hold every branch. Undefined when a variant has no skeleton or errors remain.
 */
function parseVariantSkeletons(parser: Parser, text: string, config: LanguageConfig, path: string, generated: boolean): Outcome | undefined {
  const variants: Parsed[] = [];
  for (const choice of ['first', 'last'] as const) {
    const variant = blankInactiveBranches(text, choice);
    const skeleton = variant === undefined ? undefined : csharpSkeleton(variant);
    if (variant === undefined || !skeleton) return undefined;
    variants.push(parseOutline(parser, variant, variant, config, path, generated, includedRanges(variant, skeleton.ranges), localsOf(skeleton)));
  }
  const none: Parsed = { outline: { symbols: [], depthTruncated: false, symbolsTruncated: false, recovered: 0 }, errorCount: 0, errorLines: [] };
  const merged = mergeVariants(none, variants);
  if (!merged || merged.errorCount > 0) return undefined;
  return { result: merged, reparsedWith: ['inactive #if branches blanked'] };
}

/** The complement of `skip` ([start, end) pairs in order) over the text, as tree-sitter ranges. */
function includedRanges(text: string, skip: number[]): Range[] {
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  let line = 0;
  // offsets only grow, so the line search moves forward
  const point = (index: number): Point => {
    while (line + 1 < lineStarts.length && (lineStarts[line + 1] as number) <= index) line++;
    return { row: line, column: index - (lineStarts[line] as number) };
  };
  const out: Range[] = [];
  let from = 0;
  const add = (a: number, b: number): void => {
    if (b > a) out.push({ startIndex: a, startPosition: point(a), endIndex: b, endPosition: point(b) });
  };
  for (let k = 0; k < skip.length; k += 2) {
    add(from, skip[k] as number);
    from = skip[k + 1] as number;
  }
  add(from, text.length);
  return out;
}

/**
 * The whole file: parsed as is; when that has errors, its two preprocessor variants (or the file
 * itself) with the config's repairs applied, merged.
 */
function parseWhole(parser: Parser, text: string, config: LanguageConfig, path: string, fileGenerated: boolean): Outcome {
  const first = parseOutline(parser, text, text, config, path, fileGenerated);
  const reparsedWith: string[] = [];
  if (first.errorCount === 0) return { result: first, reparsedWith };
  const variants = reparseVariants(text, config, reparsedWith, (parseable, base) => parseOutline(parser, parseable, base, config, path, fileGenerated));
  return { result: mergeVariants(first, variants) ?? first, reparsedWith };
}

/**
 * The re-parses of a file whose first parse had errors. Display texts: the file, or its two
 * preprocessor variants (inactive `#if` branches blanked); each is parsed with the config's
 * repairs applied, unless that leaves the file as it was. What was done goes to `reparsedWith`.
 */
function reparseVariants(text: string, config: LanguageConfig, reparsedWith: string[], parse: (parseable: string, base: string) => Parsed): Parsed[] {
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
    if (parseable !== text) variants.push(parse(parseable, base));
  }
  for (const why of applied) reparsedWith.push(`repaired: ${why}`);
  return variants;
}

/**
 * The variant with the fewest errors, plus the declarations only the others have, plus those of
 * the unblanked parse whose name no variant has (middle `#elif` branches). Matching the last by
 * name only: error recovery there can misplace a declaration the variants already hold under its
 * right container. Undefined when there is no variant.
 */
function mergeVariants(first: Parsed, variants: Parsed[]): Parsed | undefined {
  if (variants.length === 0) return undefined;
  variants.sort((a, b) => a.errorCount - b.errorCount);
  const [primary, ...others] = variants;
  if (!primary) return undefined;
  let symbols = primary.outline.symbols;
  for (const o of others) symbols = mergeOutlines(symbols, o.outline.symbols);
  symbols = mergeOutlines(symbols, first.outline.symbols.filter((s) => !s.recovered), (s) => `${s.kind}|${s.name}`);
  return { ...primary, outline: { ...primary.outline, symbols } };
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
  modules?: ModuleRefs;
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

/**
 * Parses `parseable` (only `ranges` of it when given); names and signatures are cut from
 * `display` (same offsets, no repairs).
 */
function parseOutline(parser: Parser, parseable: string, display: string, config: LanguageConfig, path: string, generated: boolean, ranges?: Range[], locals: boolean | number[] = true): Parsed {
  const tree = ranges ? parser.parse(parseable, null, { includedRanges: ranges }) : parser.parse(parseable);
  if (!tree) {
    return { outline: { symbols: [], depthTruncated: false, symbolsTruncated: false, recovered: 0 }, errorCount: 1, errorLines: [1] };
  }
  try {
    const root = tree.rootNode;
    const errors = root.hasError ? collectErrors(root) : { count: 0, lines: [] };
    const outline = extractOutline(root, display, config, path, generated, { locals });
    // Module references come from whole-file parses only (a skeleton parse leaves bodies out).
    const modules = ranges ? undefined : moduleRefsOf(root, config);
    return modules ? { outline, errorCount: errors.count, errorLines: errors.lines, modules } : { outline, errorCount: errors.count, errorLines: errors.lines };
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
  // The same name at the same place is the same declaration, however a parse with errors
  // misplaced or mis-kinded it (a method read as a local function under the namespace).
  const at = (s: OutlineSymbol): string => `${s.name}@${s.nameLine}:${s.nameColumn}`;
  const byPlace = new Map<string, number>();
  a.forEach((s, i) => byPlace.set(at(s), i));
  const merged: OutlineSymbol[] = a.map((s) => ({ ...s }));
  const bIndexToMerged = new Map<number, number>();
  let added = false;
  b.forEach((s, i) => {
    const k = key(s);
    const existing = index.get(k) ?? byPlace.get(at(s));
    if (existing !== undefined) {
      bIndexToMerged.set(i, existing);
      return;
    }
    const parent = s.parent >= 0 ? (bIndexToMerged.get(s.parent) ?? -1) : -1;
    const copy = { ...s, parent };
    bIndexToMerged.set(i, merged.length);
    index.set(k, merged.length);
    byPlace.set(at(s), merged.length);
    merged.push(copy);
    added = true;
  });
  if (!added) return a;
  const order = merged.map((s, i) => ({ s, i })).sort((x, y) => x.s.line - y.s.line || x.s.column - y.s.column || x.s.depth - y.s.depth || x.i - y.i);
  const remap = new Map<number, number>();
  order.forEach((o, n) => remap.set(o.i, n));
  return order.map((o) => ({ ...o.s, parent: o.s.parent >= 0 ? (remap.get(o.s.parent) ?? -1) : -1 }));
}
