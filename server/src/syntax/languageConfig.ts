/**
 * Language configurations: one folder per language under `language-configs/<id>/` holding a
 * `language.json` (file extensions, grammar, outline rules, test and generated-code markers) and
 * optional `.scm` queries. Adding a language is adding a folder; the engine reads whatever is there.
 *
 * The outline rules are declarative: which node types the outline walk descends into, which node
 * types are declarations (kind, where the name is, where the body is, where the signature ends),
 * which wrap a declaration (export, decorators), and where modifiers and attributes sit.
 * A "path" is a dot-separated list of steps; each step is a field name or, failing that, the type
 * of a direct child (`value.body`, `variable_declaration.variable_declarator`).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { packageRoot } from '../core/assets';
import type { SymbolKind } from './types';

export interface LanguageConfig {
  /** Folder name and language id ('csharp', 'typescript', ...). */
  id: string;
  displayName: string;
  /** File extensions including the dot, lower case ('.cs'). */
  extensions: string[];
  /** The WASM grammar: file name under dist/wasm/ and the node_modules specifier used from source. */
  grammar: { file: string; package: string };
  /** 'csharp-doc': documentation-comment ids; 'path': `path#Qualified.Name`. */
  idStyle: 'csharp-doc' | 'path';
  /** Node types the outline walk descends into (module bodies, #if blocks, statement wrappers). */
  descend: string[];
  /** Node types that wrap one declaration and lend it modifiers, attributes and their start. */
  wrappers?: Record<string, WrapperRule>;
  /** Declaration rules by node type; with several, the first whose conditions hold wins. */
  declarations: Record<string, DeclRule | DeclRule[]>;
  modifiers?: { nodes?: string[]; groups?: string[]; tokens?: string[] };
  attributes?: { nodes: string[]; groups?: string[]; preceding?: string[] };
  tests?: {
    /** Attribute / annotation / decorator names (last segment, `Attribute` suffix optional). */
    attributes?: string[];
    /** Function or method names that are tests by convention (regex source). */
    namePattern?: string;
    /** Only files whose path matches this regex hold name-convention tests. */
    filePattern?: string;
  };
  generated?: {
    /** Regex sources matched against the workspace-relative path. */
    pathPatterns?: string[];
    /** Regex source matched against the first lines of the file. */
    headerPattern?: string;
    /** Attribute names that mark one declaration as generated. */
    attributes?: string[];
  };
  /** C#-style preprocessor: re-parse with inactive branches blanked when the first parse has errors. */
  preprocessor?: boolean;
  /**
   * Parse a skeleton first: the file with member bodies blanked by a built-in lexical scan
   * ('csharp': see csharpSkeleton.ts). Used when it (or its preprocessor variants) parses without
   * errors; otherwise the whole file is parsed as usual.
   */
  skeleton?: 'csharp';
  /**
   * Node types of declarations that live inside bodies (C# local functions). They are found with
   * one C-side descendant search per file, not by walking bodies, and attached to the innermost
   * enclosing declaration. Each type needs a rule in `declarations`.
   */
  localDeclarations?: string[];
  /**
   * Length-preserving text repairs tried when a file does not parse cleanly: every match of
   * `pattern` has its first character replaced by `with` (default '_'). They work around grammar
   * gaps (C#: `async` used as an identifier, C# 14 `a?[i] = v`). Names and signatures are always
   * cut from the unrepaired text.
   */
  repairs?: { pattern: string; with?: string; why: string }[];
  /** Tolerant text patterns applied inside ERROR regions; capture group 1 is the name. */
  recovery?: { kind: SymbolKind; pattern: string }[];
  /** Queries shipped as `.scm` files in the folder, by file name without extension. */
  queries: Record<string, string>;
}

export interface WrapperRule {
  /** Anonymous tokens of the wrapper that become modifiers ('export', 'default', 'declare'). */
  modifierTokens?: string[];
}

export interface Condition {
  /** Path from the node (or the `each` item) to inspect. */
  path: string;
  /** Holds when the node at `path` has one of these types. */
  types?: string[];
  /** Holds when the text at `path` starts with one of these identifiers (`describe`, `it`). */
  textRoot?: string[];
  /** Invert the condition (also holds when nothing is at `path`). */
  not?: boolean;
}

export interface DeclRule {
  kind: SymbolKind;
  /** Kind to use when the declaration sits directly inside a type (function → method). */
  kindInType?: SymbolKind;
  /** Paths to the name node, tried in order. */
  name?: string[];
  /** Take the name from the first string argument of a call (test blocks). */
  nameFromArgument?: boolean;
  /** The rule applies only when the parent node has one of these types. */
  inside?: string[];
  /** All conditions must hold (evaluated on the `each` item when there is one). */
  when?: Condition[];
  /** Only when exported (wrapped by an export wrapper): top-level constants. */
  exportedOnly?: boolean;
  /** Path(s) whose last step repeats: one declaration per match (`int a, b;`). */
  each?: string | string[];
  /** Paths to the member containers the walk descends into. */
  body?: string[];
  /** Paths whose start ends the signature (relative to the `each` item when there is one). */
  signatureEnd?: string[];
  /** How the declaration scopes what it contains. */
  scope?: 'type' | 'namespace' | 'namespaceFollowing' | 'block';
  /** Emit a symbol (default true); false for package clauses that only set the namespace. */
  emit?: boolean;
  /** Path to the type parameter list (generic arity for ids). */
  typeParameters?: string;
  /** Path to the parameter list (ids, extension methods). */
  parameters?: string;
  /** Path to the declared/returned type (conversion operator ids). */
  returns?: string;
  /** Every declaration matched by this rule is a test. */
  test?: boolean;
  /** Path to a node naming the container (Go method receivers: `(r *Repo)` → `Repo`). */
  containerFrom?: string;
  /** Strip these characters from both ends of the name (quotes of `module 'x'`). */
  trimName?: string;
  /**
   * The node is a block of extension members for the type of its first parameter (C# 14
   * `extension(T x) { ... }`): members inside get that type as `extendedType`.
   */
  extensionBlock?: boolean;
}

const cache = new Map<string, LanguageConfig>();
let loadedAll = false;

/** The folder holding the language configurations. */
export function languageConfigRoot(): string {
  return path.join(packageRoot(), 'language-configs');
}

/** Every configured language, loaded once from `language-configs/`. */
export function allLanguages(): LanguageConfig[] {
  if (!loadedAll) {
    const root = languageConfigRoot();
    const dirs = fs.existsSync(root) ? fs.readdirSync(root, { withFileTypes: true }).filter((d) => d.isDirectory()) : [];
    for (const d of dirs.sort((a, b) => a.name.localeCompare(b.name))) {
      if (!cache.has(d.name) && fs.existsSync(path.join(root, d.name, 'language.json'))) cache.set(d.name, loadConfig(path.join(root, d.name)));
    }
    loadedAll = true;
  }
  return [...cache.values()];
}

/** The configuration for a language id, or undefined when none is configured. */
export function languageById(id: string): LanguageConfig | undefined {
  if (!cache.has(id)) allLanguages();
  return cache.get(id);
}

/** The language of a workspace-relative path by its extension, or undefined. */
export function languageForPath(p: string): LanguageConfig | undefined {
  const lower = p.toLowerCase();
  const dot = lower.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = lower.slice(dot);
  return allLanguages().find((l) => l.extensions.includes(ext));
}

/** Language ids, for "supported languages" answers. */
export function supportedLanguageIds(): string[] {
  return allLanguages().map((l) => l.id);
}

/** Reads and checks one language folder; a malformed config is a bug in the package, so it throws. */
export function loadConfig(dir: string): LanguageConfig {
  let raw = JSON.parse(fs.readFileSync(path.join(dir, 'language.json'), 'utf8')) as Omit<LanguageConfig, 'queries'> & { extends?: string };
  const id = path.basename(dir);
  if (raw.extends) {
    // `"extends": "typescript"`: start from that folder's config, override the fields given here.
    const base = JSON.parse(fs.readFileSync(path.join(path.dirname(dir), raw.extends, 'language.json'), 'utf8')) as Record<string, unknown>;
    raw = { ...base, ...raw } as typeof raw;
  }
  const problems: string[] = [];
  if (raw.id !== id) problems.push(`id '${raw.id}' differs from the folder name`);
  if (!Array.isArray(raw.extensions) || raw.extensions.some((e) => !/^\.[a-z0-9]+$/.test(e))) problems.push('extensions must be lower-case ".ext" strings');
  if (!raw.grammar?.file || !raw.grammar.package) problems.push('grammar.file and grammar.package are required');
  if (!Array.isArray(raw.descend)) problems.push('descend must be a list of node types');
  if (typeof raw.declarations !== 'object') problems.push('declarations must map node types to rules');
  for (const p of [...(raw.generated?.pathPatterns ?? []), raw.generated?.headerPattern, raw.tests?.namePattern, raw.tests?.filePattern, ...(raw.recovery ?? []).map((r) => r.pattern), ...(raw.repairs ?? []).map((r) => r.pattern)]) {
    if (p === undefined) continue;
    try {
      new RegExp(p);
    } catch (e) {
      problems.push(`bad regex ${p}: ${(e as Error).message}`);
    }
  }
  for (const r of raw.repairs ?? []) if (r.with !== undefined && r.with.length !== 1) problems.push(`repair ${r.pattern}: 'with' must be one character`);
  if (problems.length) throw new Error(`language-configs/${id}/language.json: ${problems.join('; ')}`);
  const queries: Record<string, string> = {};
  if (raw.extends) {
    const baseDir = path.join(path.dirname(dir), raw.extends);
    for (const f of fs.readdirSync(baseDir)) if (f.endsWith('.scm')) queries[f.slice(0, -4)] = fs.readFileSync(path.join(baseDir, f), 'utf8');
  }
  for (const f of fs.readdirSync(dir)) {
    if (f.endsWith('.scm')) queries[f.slice(0, -4)] = fs.readFileSync(path.join(dir, f), 'utf8');
  }
  const { extends: _base, ...rest } = raw;
  void _base;
  return { ...rest, id, queries };
}

/** The rules for a node type as a list. */
export function rulesFor(config: LanguageConfig, nodeType: string): DeclRule[] | undefined {
  const r = config.declarations[nodeType];
  if (r === undefined) return undefined;
  return Array.isArray(r) ? r : [r];
}
