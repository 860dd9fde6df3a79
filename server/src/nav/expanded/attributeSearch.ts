/**
 * search_symbol with `attribute`: declarations by the attributes / decorators they carry
 * (`[HttpGet("{id}")]`, `[Fact]`, `@Injectable()`), with each matching attribute's arguments as
 * written. The attribute is matched by its last name segment without the `Attribute` suffix,
 * case-insensitively (`HttpGet` finds `[HttpGet]`, `[HttpGetAttribute]`, `[Microsoft.AspNetCore.Mvc.HttpGet]`);
 * `Name(text)` also requires `text` in the arguments. The optional name query filters the
 * declarations (exact / prefix / substring / regex / qualified; otherwise a case-insensitive
 * substring). Ranked production before test, handwritten before generated, then path and line.
 */
import picomatch from 'picomatch';
import { ToolError } from '../../core/errors';
import { ATTRIBUTE_SEARCH_MAX_ROWS } from '../../core/limits';
import { compileBoundedRegex } from '../../core/regex';
import { ensureSymbolTables, SYMBOL_FLAG_GENERATED, SYMBOL_FLAG_TEST } from '../../index/symbolTables';
import type { OutlineSymbol, SymbolKind } from '../../syntax/types';
import type { Engine } from '../engine';
import { filesOfProject } from '../projects';
import { symbolIds } from '../symbolIds';
import { rowToSymbol } from '../syntaxOutline';
import type { SymbolHit, SymbolQuery } from '../syntaxSymbols';

export interface AttributeHit extends SymbolHit {
  /** The matching attributes as written with their arguments: `HttpGet("{id}")`. */
  attributes: string[];
}

export interface AttributeSearchResult {
  hits: AttributeHit[];
  total: number;
  /** More than ATTRIBUTE_SEARCH_MAX_ROWS declarations carry it: only the first are ranked and listed. */
  capped: boolean;
}

/** `Xunit.FactAttribute` → `fact` (the outline's normalisation of test attributes). */
export function attributeKey(name: string): string {
  const last = name.slice(name.lastIndexOf('.') + 1).replace(/^.*::/, '');
  return (last.endsWith('Attribute') && last.length > 9 ? last.slice(0, -9) : last).toLowerCase();
}

/** `[HttpGet("{id}")]` / `@Get(':id')` / `HttpGet` → name key and optional argument text. */
export function parseAttributeQuery(q: string): { key: string; args?: string } {
  const t = q.trim().replace(/^[@#[]+/, '').replace(/\]$/, '');
  const open = t.indexOf('(');
  const name = (open < 0 ? t : t.slice(0, open)).trim();
  if (!/^[A-Za-z_][\w.:]*$/.test(name)) {
    throw new ToolError('INVALID_ARGUMENT', `'${q.slice(0, 60)}' is not an attribute name`, 'pass a name like HttpGet, Fact or Injectable, optionally with argument text: JsonPropertyName("id")');
  }
  const args = open < 0 ? undefined : t.slice(open + 1).replace(/\)\s*$/, '').trim();
  return { key: attributeKey(name), ...(args ? { args } : {}) };
}

type Query = Omit<SymbolQuery, 'query' | 'offset' | 'limit'> & { query?: string | undefined; attribute: string };

export function searchByAttribute(engine: Engine, q: Query): AttributeSearchResult {
  const want = parseAttributeQuery(q.attribute);
  const store = engine.store;
  ensureSymbolTables(store);
  const nameOk = nameFilter(q.query, q.match);
  const kinds = q.kinds?.length ? new Set<string>(q.kinds) : undefined;
  const glob = q.pathGlob ? picomatch(q.pathGlob, { dot: true, nocase: true }) : undefined;
  const projectPaths = q.project ? filesOfProject(engine, q.project).paths : undefined;
  const catalog = engine.catalog();
  const ids = symbolIds(engine);
  // The stem is in the stored names whatever their spelling (the key is their last segment, lower case).
  const rows = store.rows(
    `SELECT ordinal, parent, depth, symbol_id, name, qualified_name, kind, container, namespace, signature,
       line, end_line, col, end_col, name_line, name_col, flags, modifiers, attributes, extended_type, file_id
     FROM symbols WHERE attributes <> '' AND instr(lower(attributes), ?) > 0`,
    [want.key],
  );
  const found: { hit: AttributeHit; rank: number }[] = [];
  let capped = false;
  for (const r of rows) {
    const s = rowToSymbol(r);
    const matched = matchingAttributes(s, want);
    if (!matched.length) continue;
    if (kinds && !kinds.has(s.kind)) continue;
    if (!nameOk(s)) continue;
    const file = catalog.get(r[20] as number);
    if (!file) continue;
    if (glob && !glob(file.path)) continue;
    if (projectPaths && !projectPaths.has(file.path)) continue;
    const flags = r[16] as number;
    const isTest = (flags & SYMBOL_FLAG_TEST) !== 0 || file.fileClass === 'test';
    const isGenerated = (flags & SYMBOL_FLAG_GENERATED) !== 0 || file.fileClass === 'generated';
    if (q.scope === 'test' && !isTest) continue;
    if (q.scope === 'production' && isTest) continue;
    if (q.generated === 'exclude' && isGenerated) continue;
    if (q.generated === 'only' && !isGenerated) continue;
    if (found.length >= ATTRIBUTE_SEARCH_MAX_ROWS) {
      capped = true;
      break;
    }
    const hit: AttributeHit = {
      symbolId: ids.idFor(s.id, file.path),
      name: s.name,
      kind: s.kind as SymbolKind,
      qualifiedName: s.qualifiedName,
      signature: s.signature,
      path: file.path,
      line: s.line,
      endLine: s.endLine,
      column: s.column,
      fileClass: file.fileClass,
      match: 'attribute',
      attributes: matched,
    };
    if (isTest) hit.isTest = true;
    if (isGenerated) hit.isGenerated = true;
    if (s.extendedType) hit.extendedType = s.extendedType;
    found.push({ hit, rank: (isGenerated ? 2 : 0) + (isTest ? 1 : 0) });
  }
  found.sort((a, b) => a.rank - b.rank || (a.hit.path < b.hit.path ? -1 : a.hit.path > b.hit.path ? 1 : 0) || a.hit.line - b.hit.line || a.hit.column - b.hit.column);
  return { hits: found.map((f) => f.hit), total: found.length, capped };
}

function matchingAttributes(s: OutlineSymbol, want: { key: string; args?: string }): string[] {
  const out: string[] = [];
  s.attributes.forEach((name, i) => {
    if (attributeKey(name) !== want.key) return;
    const args = s.attributeArgs?.[i] ?? '';
    if (want.args !== undefined && !args.toLowerCase().includes(want.args.toLowerCase())) return;
    out.push(args ? `${name}(${args})` : name);
  });
  return out;
}

function nameFilter(query: string | undefined, match: SymbolQuery['match']): (s: OutlineSymbol) => boolean {
  if (!query) return () => true;
  const lower = query.toLowerCase();
  switch (match) {
    case 'exact':
      return (s) => s.name === query;
    case 'prefix':
      return (s) => s.name.toLowerCase().startsWith(lower);
    case 'qualified':
      return (s) => s.qualifiedName.toLowerCase() === lower || s.qualifiedName.toLowerCase().endsWith('.' + lower);
    case 'regex': {
      const c = compileBoundedRegex(query);
      if (!c.ok) throw new ToolError('INVALID_REGEX', `Invalid regex: ${c.reason}`, 'use JavaScript regex syntax, e.g. ^Get.*Async$');
      return (s) => c.re.test(s.name);
    }
    default:
      return (s) => s.name.toLowerCase().includes(lower);
  }
}
