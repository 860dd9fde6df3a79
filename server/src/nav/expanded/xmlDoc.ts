/**
 * Documentation comments of a declaration from the syntax layer: C# XML doc comments (`///`
 * lines: summary, typeparams, params, returns, value, exceptions, remarks; `<inheritdoc/>`
 * resolved where the base is declared in the workspace: a base type or interface of the
 * container for a member, the base list for a type, or a `cref`) and JSDoc / TSDoc / Javadoc
 * (block comments opened with slash-star-star: description, @param, @returns, @throws, @deprecated). The comment is read from the
 * live file just above the declaration's first line (its attributes included); nothing else of
 * the source is returned. Plain text: XML tags and JSDoc markup are reduced to their words.
 *
 * xml_doc's semantic fallback (semanticDocOf): where the syntax layer finds no doc comment or cannot
 * resolve an `<inheritdoc/>` (its base outside the workspace: a framework type), the precise
 * providers are asked for the symbol's `documentation` — the Roslyn host's doc-comment XML with
 * `<inheritdoc/>` followed through the compiler (reference assemblies' XML docs included), a
 * language server's or the editor's hover text — and its fields fill what the source does not say
 * (own tags win, as the compiler's rule for `<inheritdoc/>`). The answer names who answered.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { XML_DOC_INHERIT_DEPTH, XML_DOC_MAX_CHARS, XML_DOC_MAX_COMMENT_LINES } from '../../core/limits';
import { splitTopLevel, topLevelColon } from '../../semantic/heuristic/identifiers';
import { languageOfPath } from '../../semantic/language';
import type { NavigationMode } from '../../semantic/provider';
import type { SemanticDocumentation } from '../../semantic/types';
import type { OutlineSymbol } from '../../syntax/types';
import type { Engine } from '../engine';
import { semanticService } from '../semanticService';
import { fileOutline, rowToSymbol } from '../syntaxOutline';

export interface DocComment {
  summary?: string;
  typeParams?: Record<string, string>;
  params?: Record<string, string>;
  returns?: string;
  value?: string;
  exceptions?: Record<string, string>;
  remarks?: string;
  deprecated?: string;
  /** Where an `<inheritdoc/>` was resolved to (qualified name), or why not. */
  inheritedFrom?: string;
  inheritUnresolved?: string;
}

/** The declaration's comment lines (raw) just above `line` (1-based), or undefined. */
export function commentAbove(lines: readonly string[], line: number): { style: 'xml' | 'block'; text: string } | undefined {
  let i = line - 2;
  while (i >= 0 && lines[i]!.trim() === '') i--;
  if (i < 0) return undefined;
  const last = lines[i]!.trim();
  if (last.startsWith('///')) {
    const out: string[] = [];
    while (i >= 0 && lines[i]!.trim().startsWith('///') && out.length < XML_DOC_MAX_COMMENT_LINES) out.unshift(lines[i--]!.trim().replace(/^\/\/\/ ?/, ''));
    return { style: 'xml', text: out.join('\n') };
  }
  if (last.endsWith('*/')) {
    const out: string[] = [];
    while (i >= 0 && out.length < XML_DOC_MAX_COMMENT_LINES) {
      const t = lines[i]!.trim();
      out.unshift(t);
      if (t.startsWith('/**')) break;
      if (t.startsWith('/*')) return undefined; // a plain block comment is not documentation
      i--;
    }
    if (!out[0]?.startsWith('/**')) return undefined;
    const body = out.join('\n').replace(/^\/\*\*/, '').replace(/\*\/$/, '').split('\n').map((l) => l.replace(/^\s*\* ?/, '')).join('\n');
    return { style: 'block', text: body };
  }
  return undefined;
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML doc inner text → plain words: <see cref="T:A.B"/> → B… kept as A.B, <paramref name="x"/> → x, <c>x</c> → x. */
function xmlText(s: string): string {
  return clip(
    s
      .replace(/<(see|seealso)\s+(?:cref|href|langword)\s*=\s*"(?:[A-Z]:)?([^"]*)"\s*\/>/g, (_, _t, v: string) => v.replace(/`\d+/g, '').replace(/\{/g, '<').replace(/\}/g, '>'))
      .replace(/<(see|seealso)\s+(?:cref|href)\s*=\s*"[^"]*"\s*>([\s\S]*?)<\/\1>/g, '$2')
      .replace(/<(paramref|typeparamref)\s+name\s*=\s*"([^"]*)"\s*\/>/g, '$2')
      .replace(/<\/?(para|br)\s*\/?>/g, '\n')
      .replace(/<[^>]+>/g, '')
      .replace(/&(lt|gt|amp|quot|apos);/g, (_, e: string) => ENTITIES[e]!)
      .replace(/[ \t]*\n[ \t]*/g, '\n')
      .replace(/\n{2,}/g, '\n')
      .replace(/[ \t]+/g, ' ')
      .trim(),
  );
}

const clip = (s: string) => (s.length > XML_DOC_MAX_CHARS ? s.slice(0, XML_DOC_MAX_CHARS - 1) + '…' : s);

export function parseXmlDoc(xml: string): DocComment & { inherit?: { cref?: string } } {
  const d: DocComment & { inherit?: { cref?: string } } = {};
  const one = (tag: string) => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(xml)?.[1];
  const named = (tag: string, attr: string) => {
    const out: Record<string, string> = {};
    const re = new RegExp(`<${tag}\\s+${attr}\\s*=\\s*"([^"]*)"\\s*(?:/>|>([\\s\\S]*?)</${tag}>)`, 'g');
    for (const m of xml.matchAll(re)) out[m[1]!.replace(/^[A-Z]:/, '')] = xmlText(m[2] ?? '');
    return Object.keys(out).length ? out : undefined;
  };
  const summary = one('summary');
  if (summary !== undefined) d.summary = xmlText(summary);
  const tp = named('typeparam', 'name');
  if (tp) d.typeParams = tp;
  const params = named('param', 'name');
  if (params) d.params = params;
  const returns = one('returns');
  if (returns !== undefined) d.returns = xmlText(returns);
  const value = one('value');
  if (value !== undefined) d.value = xmlText(value);
  const ex = named('exception', 'cref');
  if (ex) d.exceptions = ex;
  const remarks = one('remarks');
  if (remarks !== undefined) d.remarks = xmlText(remarks);
  const inh = /<inheritdoc(?:\s+cref\s*=\s*"([^"]*)")?\s*\/?>/.exec(xml);
  if (inh) d.inherit = inh[1] ? { cref: inh[1] } : {};
  if (!summary && !inh && !params && !returns && xml.trim() && !/<\w+/.test(xml)) d.summary = xmlText(xml);
  return d;
}

/** JSDoc / TSDoc / Javadoc body (without the comment markers). */
export function parseJsDoc(body: string): DocComment & { inherit?: { cref?: string } } {
  const d: DocComment & { inherit?: { cref?: string } } = {};
  const parts = body.split(/\n(?=\s*@)/);
  const desc = parts[0]!.startsWith('@') ? '' : parts.shift()!;
  const text = (s: string) => clip(s.replace(/\{@link\s+([^}|\s]+)(?:[|\s][^}]*)?\}/g, '$1').replace(/[ \t]*\n[ \t]*/g, '\n').replace(/\s+$/, '').trim());
  if (desc.trim()) d.summary = text(desc);
  for (const p of parts) {
    const m = /^\s*@(\w+)\s*([\s\S]*)$/.exec(p);
    if (!m) continue;
    const [, tag, rest] = m as unknown as [string, string, string];
    if (tag === 'param' || tag === 'arg' || tag === 'argument') {
      const pm = /^(?:\{[^}]*\}\s*)?\[?([\w$.]+)(?:=[^\]]*)?\]?\s*(?:-\s*)?([\s\S]*)$/.exec(rest);
      if (pm) (d.params ??= {})[pm[1]!] = text(pm[2] ?? '');
    } else if (tag === 'returns' || tag === 'return') d.returns = text(rest.replace(/^\{[^}]*\}\s*/, ''));
    else if (tag === 'throws' || tag === 'exception') {
      const tm = /^(?:\{([^}]*)\}\s*)?([\s\S]*)$/.exec(rest)!;
      (d.exceptions ??= {})[tm[1] ?? 'Error'] = text(tm[2] ?? '');
    } else if (tag === 'deprecated') d.deprecated = text(rest) || 'deprecated';
    else if (tag === 'remarks') d.remarks = text(rest);
    else if (tag === 'typeParam' || tag === 'template') {
      const pm = /^(?:\{[^}]*\}\s*)?([\w$]+)\s*(?:-\s*)?([\s\S]*)$/.exec(rest);
      if (pm) (d.typeParams ??= {})[pm[1]!] = text(pm[2] ?? '');
    } else if (tag === 'inheritDoc' || tag === 'inheritdoc') d.inherit = {};
  }
  return d;
}

/** Reads files once per call (several hits in one file). */
export class DocReader {
  private files = new Map<string, string[] | undefined>();
  constructor(private readonly engine: Engine) {}

  private lines(rel: string): string[] | undefined {
    if (this.files.has(rel)) return this.files.get(rel);
    let lines: string[] | undefined;
    try {
      const abs = path.join(this.engine.root, rel);
      if (this.engine.policy.canonicalInside(abs)) lines = fs.readFileSync(abs, 'utf8').split(/\r?\n/);
    } catch {
      lines = undefined;
    }
    this.files.set(rel, lines);
    return lines;
  }

  /** The doc comment of `s` in `rel`, `<inheritdoc/>` resolved through the workspace; undefined when it has none. */
  docOf(rel: string, s: OutlineSymbol, depth = 0): DocComment | undefined {
    const lines = this.lines(rel);
    if (!lines) return undefined;
    const c = commentAbove(lines, s.line);
    if (!c) return undefined;
    const d = c.style === 'xml' || /^\s*</.test(c.text) ? parseXmlDoc(c.text) : parseJsDoc(c.text);
    const inherit = d.inherit;
    delete d.inherit;
    if (!inherit) return d;
    const base = depth < XML_DOC_INHERIT_DEPTH ? this.inherited(rel, s, inherit.cref, depth) : undefined;
    if (!base) return { ...d, inheritUnresolved: inherit.cref ? `${inherit.cref.replace(/^[A-Z]:/, '')} is not declared in the workspace (or has no doc comment)` : 'no base type or interface in the workspace documents it' };
    // Own tags win over inherited ones (the C# compiler's rule for <inheritdoc/>).
    const merged: DocComment = { ...base.doc, ...Object.fromEntries(Object.entries(d).filter(([, v]) => v !== undefined)), inheritedFrom: base.from };
    delete merged.inheritUnresolved;
    return merged;
  }

  private inherited(rel: string, s: OutlineSymbol, cref: string | undefined, depth: number): { doc: DocComment; from: string } | undefined {
    const store = this.engine.store;
    const select = `SELECT ordinal, parent, depth, symbol_id, name, qualified_name, kind, container, namespace, signature,
       line, end_line, col, end_col, name_line, name_col, flags, modifiers, attributes, extended_type, f.path FROM symbols JOIN files f ON f.id = file_id`;
    const tryRows = (rows: unknown[][]): { doc: DocComment; from: string } | undefined => {
      for (const r of rows) {
        const b = rowToSymbol(r);
        if (b.qualifiedName === s.qualifiedName && (r[20] as string) === rel && b.line === s.line) continue;
        const doc = this.docOf(r[20] as string, b, depth + 1);
        if (doc && (doc.summary || doc.params || doc.returns)) return { doc, from: b.qualifiedName };
      }
      return undefined;
    };
    if (cref) {
      const qn = cref.replace(/^[A-Z]:/, '').replace(/\(.*$/, '').replace(/\{.*?\}/g, '');
      const last = qn.slice(qn.lastIndexOf('.') + 1);
      return tryRows(store.rows(`${select} WHERE name = ? AND (qualified_name = ? OR qualified_name LIKE ?) LIMIT 20`, [last, qn, `%.${qn}`]));
    }
    // A member: the same name in the container's base types / interfaces; a type: its bases.
    const typeSig = s.kind === 'class' || s.kind === 'struct' || s.kind === 'record' || s.kind === 'interface' ? s.signature : this.containerSignature(rel, s);
    const bases = baseNames(typeSig ?? '');
    for (const b of bases) {
      const rows =
        typeSig === s.signature
          ? store.rows(`${select} WHERE name = ? AND kind IN ('class', 'interface', 'struct', 'record') LIMIT 20`, [b])
          : store.rows(`${select} WHERE name = ? AND container = ? OR (name = ? AND container LIKE ?) LIMIT 40`, [s.name, b, s.name, `%.${b}`]);
      const hit = tryRows(rows);
      if (hit) return hit;
    }
    return undefined;
  }

  private containerSignature(rel: string, s: OutlineSymbol): string | undefined {
    if (!s.container) return undefined;
    const name = s.container.slice(s.container.lastIndexOf('.') + 1);
    const r = this.engine.store.rows(`SELECT signature FROM symbols JOIN files f ON f.id = file_id WHERE f.path = ? AND name = ? AND kind IN ('class', 'struct', 'record', 'interface') LIMIT 1`, [rel, name])[0];
    return r ? (r[0] as string) : undefined;
  }
}

/** `public class A<T> : Base<T>, IFoo where T : new()` → ['Base', 'IFoo']; TS `extends B implements I, J` too. */
export function baseNames(sig: string): string[] {
  const ts = /\b(?:extends|implements)\s+([\s\S]+)$/.exec(sig);
  let list = '';
  if (ts) list = ts[1]!.replace(/\b(?:extends|implements)\b/g, ',');
  else {
    const i = topLevelColon(sig);
    if (i < 0) return [];
    list = sig.slice(i + 1).replace(/\bwhere\b[\s\S]*$/, '');
  }
  return splitTopLevel(list)
    .map((x) => x.trim().replace(/<[\s\S]*$/, '').replace(/^.*\./, ''))
    .filter((x) => /^[A-Za-z_]\w*$/.test(x));
}

/** Doc comments of search hits (path, first line, name), in order; undefined where a declaration has none. */
export async function docsOfHits(engine: Engine, hits: readonly { path: string; line: number; name: string }[]): Promise<(DocComment | undefined)[]> {
  const reader = new DocReader(engine);
  const outlines = new Map<string, OutlineSymbol[] | undefined>();
  const out: (DocComment | undefined)[] = [];
  for (const h of hits) {
    if (!outlines.has(h.path)) {
      try {
        outlines.set(h.path, (await fileOutline(engine, h.path)).symbols);
      } catch {
        outlines.set(h.path, undefined);
      }
    }
    const s = outlines.get(h.path)?.find((x) => x.line === h.line && x.name === h.name);
    out.push(s ? reader.docOf(h.path, s) : undefined);
  }
  return out;
}

/**
 * A hover's markdown as doc fields: code blocks (the signature) dropped; TypeScript's tag lines
 * (`*@param* \`x\` — text`, `*@returns* — text`) read as tags; the rest is the summary. Undefined
 * when nothing but the signature is left.
 */
export function parseHover(md: string): DocComment | undefined {
  const body = md.replace(/```[\s\S]*?```/g, '').replace(/^\s*(?:-{3,}|\*{3,}|_{3,})\s*$/gm, '').trim();
  if (!body) return undefined;
  const d: DocComment = {};
  const text = (s: string) => clip(s.replace(/[ \t]*\n[ \t]*/g, '\n').replace(/\n{2,}/g, '\n').replace(/[ \t]+/g, ' ').trim());
  const parts = body.split(/\n+(?=\*@\w+\*)/);
  if (!parts[0]!.startsWith('*@')) {
    const desc = text(parts.shift()!);
    if (desc) d.summary = desc;
  }
  for (const p of parts) {
    const m = /^\*@(\w+)\*\s*(?:`([^`]+)`)?\s*(?:[—–-]\s*)?([\s\S]*)$/.exec(p);
    if (!m) continue;
    const [, tag, name, rest] = m as unknown as [string, string, string | undefined, string];
    if ((tag === 'param' || tag === 'arg' || tag === 'argument') && name) (d.params ??= {})[name] = text(rest);
    else if (tag === 'returns' || tag === 'return') d.returns = text(rest);
    else if (tag === 'throws' || tag === 'exception') {
      const t = /^(?:\{([^}]*)\}\s*)?([\s\S]*)$/.exec(rest)!;
      (d.exceptions ??= {})[name ?? t[1] ?? 'Error'] = text(t[2] ?? '');
    } else if (tag === 'deprecated') d.deprecated = text(rest) || 'deprecated';
    else if (tag === 'remarks') d.remarks = text(rest);
    else if ((tag === 'typeParam' || tag === 'template') && name) (d.typeParams ??= {})[name] = text(rest);
  }
  return hasText(d) ? d : undefined;
}

/** True when a doc says something (an `<inheritdoc/>` alone does not). */
function hasText(d: DocComment): boolean {
  return !!(d.summary || d.params || d.returns || d.exceptions || d.remarks || d.value || d.typeParams || d.deprecated);
}

/** A provider's documentation as doc fields (undefined when it says nothing). */
export function parseSemanticDoc(v: SemanticDocumentation): DocComment | undefined {
  if (v.format === 'xml') {
    const d = parseXmlDoc(v.text);
    delete d.inherit;
    return hasText(d) ? d : undefined;
  }
  return v.format === 'markdown' ? parseHover(v.text) : parseHover(v.text.replace(/`/g, ''));
}

/** What the semantic fallback did, for the answer's labels. */
export interface SemanticDocOutcome {
  doc: DocComment | undefined;
  /** The provider that answered (`roslyn`, `lsp`, `editor`); undefined when none did. */
  provider?: string;
  mode: NavigationMode;
  /** True when the provider's documentation filled a field the syntax layer did not. */
  used: boolean;
  /** Why no provider answered, or the answer's coverage gaps. */
  reason?: string;
}

/** True when xml_doc asks the semantic providers: no doc comment found, or an `<inheritdoc/>` left unresolved. */
export function wantsSemanticDoc(rel: string, own: DocComment | undefined): boolean {
  return languageOfPath(rel) !== undefined && (own === undefined || own.inheritUnresolved !== undefined);
}

/** xml_doc's fallback: the precise providers' documentation of the declaration at its name, merged under the syntax doc. */
export async function semanticDocOf(engine: Engine, rel: string, s: OutlineSymbol, own: DocComment | undefined, deadlineAt: number): Promise<SemanticDocOutcome> {
  const lang = languageOfPath(rel)!;
  const a = await semanticService(engine).request('documentation', lang, { path: rel, line: s.nameLine, column: s.nameColumn }, { deadlineAt, waitForReadyMs: Math.max(0, deadlineAt - Date.now()), preciseOnly: true, name: s.name });
  if (a.value === undefined || !a.provider) return { doc: own, mode: 'unavailable_no_precise', used: false, reason: a.reason ?? `no precise provider for ${lang}` };
  const gaps = a.gaps.length ? a.gaps.join('; ') : undefined;
  const got = a.value ? parseSemanticDoc(a.value) : undefined;
  if (!got) return { doc: own, provider: a.provider, mode: a.mode, used: false, ...(gaps ? { reason: gaps } : {}) };
  // Own tags win (the compiler's rule for <inheritdoc/>); the provider fills the rest.
  const mine = Object.fromEntries(Object.entries(own ?? {}).filter(([k, v]) => v !== undefined && k !== 'inheritUnresolved' && k !== 'inheritedFrom'));
  const merged: DocComment = { ...got, ...mine };
  // A doc id (`M:System.Object.ToString~System.String`) named as the syntax layer names: `System.Object.ToString`.
  if (a.value?.inheritedFrom) merged.inheritedFrom = a.value.inheritedFrom.replace(/^[A-Z]:/, '').replace(/[(~][\s\S]*$/, '').replace(/`+\d+/g, '');
  return { doc: merged, provider: a.provider, mode: a.mode, used: true, ...(gaps ? { reason: gaps } : {}) };
}
