/**
 * Module references of a parsed file (file_dependencies): what the language folder's `modules.scm`
 * captures. The capture name is the form (`import`, `export`, `require`, `import_equals`,
 * `dynamic`); the captured node is the specifier. A string literal (or a template without
 * substitutions) is a specifier; anything else is counted as computed, never guessed. The query
 * matches anywhere in the tree, so a `require` inside a function or a lazy `import()` counts too.
 * Type-only: the statement carries a `type` keyword (`import type`, `export type … from`), every
 * named specifier does (`import { type A }`), or the reference sits in a type position
 * (`type T = import('./x').T`).
 */
import { MODULE_REFS_MAX_PER_FILE } from '../core/limits';
import { loadedGrammar, Query, type Query as QueryT } from './grammars';
import type { LanguageConfig } from './languageConfig';
import type { ModuleRef, ModuleRefKind, ModuleRefs } from './types';
import type { Node } from 'web-tree-sitter';

const KINDS = new Set<string>(['import', 'export', 'require', 'import_equals', 'dynamic']);
const queries = new Map<string, QueryT | null>();

/** Ancestors that put a reference in a type position (it is erased at run time). */
const TYPE_CONTEXT = new Set(['type_annotation', 'type_alias_declaration', 'type_arguments', 'type_query', 'interface_declaration', 'implements_clause', 'ambient_declaration']);
/** Where the climb for a type context stops. */
const STATEMENT_LEVEL = new Set(['program', 'statement_block', 'class_body', 'expression_statement', 'lexical_declaration', 'variable_declaration', 'return_statement']);

/** True when the language ships a modules query (its files have module references). */
export function hasModuleQuery(config: LanguageConfig): boolean {
  return config.queries.modules !== undefined;
}

/** The module references under `root`, or undefined when the language has no modules query. */
export function moduleRefsOf(root: Node, config: LanguageConfig): ModuleRefs | undefined {
  const query = queryFor(config);
  if (!query) return undefined;
  const refs: ModuleRef[] = [];
  let computed = 0;
  let truncated = false;
  for (const c of query.captures(root)) {
    if (!KINDS.has(c.name)) continue;
    const spec = literalOf(c.node);
    if (spec === undefined) {
      computed++;
      continue;
    }
    if (refs.length >= MODULE_REFS_MAX_PER_FILE) {
      truncated = true;
      break;
    }
    const ref: ModuleRef = { spec, kind: c.name as ModuleRefKind, line: c.node.startPosition.row + 1 };
    if (isTypeOnly(c.node, ref.kind)) ref.typeOnly = true;
    refs.push(ref);
  }
  const out: ModuleRefs = { refs, computed };
  if (truncated) out.truncated = true;
  return out;
}

function queryFor(config: LanguageConfig): QueryT | undefined {
  let q = queries.get(config.id);
  if (q === undefined) {
    const source = config.queries.modules;
    const lang = loadedGrammar(config);
    if (!source || !lang) return undefined;
    try {
      q = new Query(lang, source);
    } catch {
      q = null; // a broken query file: no references rather than a failed parse (the config test catches it)
    }
    queries.set(config.id, q);
  }
  return q ?? undefined;
}

/** The specifier of a string literal or a substitution-free template; undefined when computed. */
function literalOf(n: Node): string | undefined {
  if (n.type === 'string') return unescape(n.text.slice(1, -1));
  if (n.type === 'template_string') {
    for (let i = 0; i < n.namedChildCount; i++) if (n.namedChild(i)?.type === 'template_substitution') return undefined;
    return unescape(n.text.slice(1, -1));
  }
  return undefined;
}

/** Simple escapes only; a specifier with anything else keeps its text (it will not resolve). */
function unescape(s: string): string {
  return s.includes('\\') ? s.replace(/\\(['"`\\/])/g, '$1') : s;
}

function hasTypeKeyword(n: Node): boolean {
  for (let i = 0; i < n.childCount; i++) {
    const c = n.child(i);
    if (c && !c.isNamed && c.type === 'type') return true;
  }
  return false;
}

/** Every specifier of a named list carries `type` (and nothing but the list is imported). */
function allSpecifiersTyped(list: Node | null, specifierType: string): boolean {
  if (!list) return false;
  let n = 0;
  for (let i = 0; i < list.namedChildCount; i++) {
    const s = list.namedChild(i);
    if (!s || s.type !== specifierType) continue;
    if (!hasTypeKeyword(s)) return false;
    n++;
  }
  return n > 0;
}

function isTypeOnly(spec: Node, kind: ModuleRefKind): boolean {
  if (kind === 'import' || kind === 'export' || kind === 'import_equals') {
    const stmt = kind === 'import_equals' ? spec.parent?.parent : spec.parent;
    if (!stmt) return false;
    if (hasTypeKeyword(stmt)) return true;
    if (kind === 'import') {
      const clause = stmt.namedChildren.find((c) => c?.type === 'import_clause');
      if (!clause || clause.namedChildCount !== 1) return false;
      return allSpecifiersTyped(clause.namedChild(0), 'import_specifier');
    }
    if (kind === 'export') return allSpecifiersTyped(stmt.namedChildren.find((c) => c?.type === 'export_clause') ?? null, 'export_specifier');
    return false;
  }
  // require() / import(): erased when it sits in a type position
  for (let a = spec.parent, hops = 0; a && hops < 16; a = a.parent, hops++) {
    if (TYPE_CONTEXT.has(a.type) || a.type.endsWith('_type')) return true;
    if (STATEMENT_LEVEL.has(a.type)) return false;
  }
  return false;
}
