/**
 * inspect_syntax_tree: the node shape around a position (the node, its ancestors, its children,
 * with field names), so an agent can write a structural query for it. Plain data; lines and
 * columns 1-based.
 */
import type { Node, Tree } from 'web-tree-sitter';
import { ToolError } from '../core/errors';
import { PREVIEW_CHARS } from '../core/limits';
import { loadGrammar } from './grammars';
import type { LanguageConfig } from './languageConfig';
import { withTree } from './parseFile';

export interface SyntaxNodeInfo {
  type: string;
  /** Field name under its parent (`name`, `body`), when it has one. */
  field?: string;
  named: boolean;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** First line of the node's text, capped. */
  text: string;
  childCount: number;
  hasError: boolean;
}

export interface SyntaxTreeView {
  node: SyntaxNodeInfo;
  /** Nearest first. */
  ancestors: SyntaxNodeInfo[];
  children: SyntaxNodeInfo[];
  truncatedAncestors: boolean;
  truncatedChildren: boolean;
  /** A query skeleton matching this node by type and its fields, e.g. `(method_declaration name: (identifier) @name) @match`. */
  queryHint: string;
}

/** Describes the smallest named node at (line, column) of a parsed tree. */
export function inspectTree(tree: Tree, text: string, line: number, column: number, maxAncestors: number, maxChildren: number): SyntaxTreeView {
  const point = { row: line - 1, column: Math.max(0, column - 1) };
  const node = tree.rootNode.namedDescendantForPosition(point) ?? tree.rootNode;
  const ancestors: SyntaxNodeInfo[] = [];
  let truncatedAncestors = false;
  for (let cur = node.parent, child: Node = node; cur; child = cur, cur = cur.parent) {
    if (ancestors.length >= maxAncestors) {
      truncatedAncestors = true;
      break;
    }
    ancestors.push(info(cur, text, fieldOf(cur, child)));
  }
  const children: SyntaxNodeInfo[] = [];
  const count = node.childCount;
  for (let i = 0; i < count && children.length < maxChildren; i++) {
    const c = node.child(i);
    if (c) children.push(info(c, text, node.fieldNameForChild(i) ?? undefined));
  }
  const parent = node.parent;
  const self = info(node, text, parent ? fieldOf(parent, node) : undefined);
  return { node: self, ancestors, children, truncatedAncestors, truncatedChildren: count > children.length, queryHint: queryHint(node) };
}

function fieldOf(parent: Node, child: Node): string | undefined {
  const n = parent.childCount;
  for (let i = 0; i < n; i++) {
    const c = parent.child(i);
    if (c && c.startIndex === child.startIndex && c.endIndex === child.endIndex && c.type === child.type) return parent.fieldNameForChild(i) ?? undefined;
  }
  return undefined;
}

function info(n: Node, text: string, field: string | undefined): SyntaxNodeInfo {
  const s = n.startPosition;
  const e = n.endPosition;
  const raw = text.slice(n.startIndex, Math.min(n.endIndex, n.startIndex + PREVIEW_CHARS * 2));
  const firstLine = raw.split('\n')[0] ?? '';
  const preview = firstLine.length > PREVIEW_CHARS ? firstLine.slice(0, PREVIEW_CHARS - 1) + '…' : firstLine;
  const out: SyntaxNodeInfo = {
    type: n.type,
    named: n.isNamed,
    line: s.row + 1,
    column: s.column + 1,
    endLine: e.row + 1,
    endColumn: e.column + 1,
    text: preview.trimEnd() + (raw.includes('\n') ? ' …' : ''),
    childCount: n.childCount,
    hasError: n.hasError,
  };
  if (field) out.field = field;
  return out;
}

function queryHint(n: Node): string {
  const parts: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < n.childCount && parts.length < 4; i++) {
    const f = n.fieldNameForChild(i);
    const c = n.child(i);
    if (!f || !c || !c.isNamed || seen.has(f)) continue;
    seen.add(f);
    parts.push(`${f}: (${c.type})${f === 'name' ? ' @name' : ''}`);
  }
  return `(${n.type}${parts.length ? ' ' + parts.join(' ') : ''}) @match`;
}

/**
 * Parses `text` as `config`'s language and describes the node at (line, column); the column
 * defaults to the line's first non-blank character. Throws ToolError LINE_OUT_OF_RANGE.
 */
export async function inspectText(text: string, config: LanguageConfig, line: number, column: number | undefined, maxAncestors: number, maxChildren: number): Promise<SyntaxTreeView> {
  const lines = text.split('\n');
  if (line < 1 || line > lines.length) {
    throw new ToolError('LINE_OUT_OF_RANGE', `Line ${line} is outside the file (1-${lines.length})`, 'pass a line within the file; outline shows where declarations are');
  }
  const lineText = lines[line - 1] ?? '';
  const col = column ?? (lineText.length - lineText.trimStart().length + 1);
  await loadGrammar(config);
  return withTree(text, config, (tree) => inspectTree(tree, text, line, col, maxAncestors, maxChildren));
}
