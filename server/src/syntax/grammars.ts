/**
 * web-tree-sitter runtime and grammar loading. One runtime per thread (each worker has its own
 * WASM instance); grammars load once per thread and are cached. The runtime and grammar files are
 * located with `assetPath` (dist/wasm/ in a build, node_modules when running from source).
 */
import type * as WebTreeSitter from 'web-tree-sitter';
import { assetPath } from '../core/assets';

// `require`, not `import`: bundled as CommonJS, esbuild must pick web-tree-sitter's CJS build
// (its ESM build locates itself through import.meta.url, which a CJS bundle does not have).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const TreeSitter = require('web-tree-sitter') as typeof WebTreeSitter;
export const Parser = TreeSitter.Parser;
export type Parser = WebTreeSitter.Parser;
export const Language = TreeSitter.Language;
export type Language = WebTreeSitter.Language;
export const Query = TreeSitter.Query;
export type Query = WebTreeSitter.Query;
import type { LanguageConfig } from './languageConfig';

let runtime: Promise<void> | undefined;
const languages = new Map<string, Promise<Language>>();
const loaded = new Map<string, Language>();

/** Initialises the tree-sitter runtime once per thread. */
export function initRuntime(): Promise<void> {
  runtime ??= Parser.init({
    locateFile: () => assetPath('web-tree-sitter.wasm', 'web-tree-sitter/web-tree-sitter.wasm'),
  });
  return runtime;
}

/** Loads (once) the grammar of a language. */
export async function loadGrammar(config: LanguageConfig): Promise<Language> {
  await initRuntime();
  let p = languages.get(config.id);
  if (!p) {
    p = Language.load(assetPath(config.grammar.file, config.grammar.package)).then((lang) => {
      loaded.set(config.id, lang);
      return lang;
    });
    languages.set(config.id, p);
  }
  return p;
}

/** The grammar if it is already loaded (synchronous callers); undefined otherwise. */
export function loadedGrammar(config: LanguageConfig): Language | undefined {
  return loaded.get(config.id);
}

