/** The syntax layer: outline, search_symbol, symbol_at, inspect_syntax_tree, search_structural. */
import { z } from 'zod';
import { ToolError } from '../../core/errors';
import * as L from '../../core/limits';
import { fileOutline, inspectSyntax, symbolAtPosition, type FileOutline } from '../../nav/syntaxOutline';
import { searchStructural, type StructuralPosition } from '../../nav/syntaxStructural';
import { searchByAttribute } from '../../nav/expanded/attributeSearch';
import { docsOfHits, type DocComment } from '../../nav/expanded/xmlDoc';
import { searchSymbols, type SymbolHit, type SymbolQuery } from '../../nav/syntaxSymbols';
import { symbolIds } from '../../nav/symbolIds';
import type { OutlineSymbol } from '../../syntax/types';
import { checkBatch, entryText as batchEntryText, fitEntries, isBatchEntry, pathsArg, runBatch, batchEntrySchema, type BatchEntry } from '../batch';
import { fileClassEnum, pagingArgs, pathArg } from '../schemas';
import { defineTool, type PageRequest, type ToolEnv, type ToolResult } from '../tool';

const SYMBOL_KINDS = [
  'namespace', 'module', 'package', 'class', 'struct', 'interface', 'record', 'enum', 'enumMember', 'delegate', 'trait', 'impl', 'typeAlias',
  'method', 'constructor', 'destructor', 'property', 'field', 'event', 'indexer', 'operator', 'function', 'variable', 'constant', 'macro', 'testSuite', 'test',
] as const;
const kindEnum = z.enum(SYMBOL_KINDS);
/** Published as a string list: the 27 kinds cost ~330 bytes per tool; a wrong kind is refused with the valid ones listed. */
const kindsArg = z.array(kindEnum).max(SYMBOL_KINDS.length).optional().meta({ published: { type: 'array', items: { type: 'string' } } });

const DEFAULT_OUTLINE_DEPTH = 3;

const fileInfo = z.object({
  path: z.string(),
  language: z.string(),
  lines: z.number(),
  isLarge: z.boolean().describe('Above the large-file threshold: read spans, not the whole file'),
  source: z.enum(['index', 'parse']).describe('index: stored outline of the unchanged file; parse: parsed now'),
  hasErrors: z.boolean().optional().describe('Syntax errors in the text the outline parsed (declarations; C# member bodies are skipped, so errors inside them are not seen); declarations were still extracted'),
  errorLines: z.array(z.number()).optional(),
  reparsedWith: z.array(z.string()).optional().describe('What a re-parse did to get past errors (inactive #if branches blanked, repairs)'),
  generated: z.literal(true).optional().describe('Every declaration is in generated code (rows do not repeat it)'),
  compilations: z
    .array(z.string())
    .optional()
    .describe('C#: every project|framework compiling this file, when more than one; symbolIds name the first (swap the @suffix for another)'),
});

const outlineItem = z.object({
  name: z.string(),
  kind: z.string(),
  line: z.number(),
  endLine: z.number(),
  depth: z.number(),
  signature: z.string(),
  symbolId: z.string().describe('Stable within an index version; C#: documentation-comment id @ project | target framework'),
  isTest: z.boolean().optional(),
  isGenerated: z.boolean().optional(),
  extendedType: z.string().optional(),
  recovered: z.boolean().optional().describe('Found by the tolerant scan of a region with syntax errors'),
});
type OutlineItem = z.infer<typeof outlineItem>;

function outlineRow(s: OutlineSymbol, symbolId: string): OutlineItem {
  const o: OutlineItem = { name: s.name, kind: s.kind, line: s.line, endLine: s.endLine, depth: s.depth, signature: s.signature, symbolId };
  if (s.isTest) o.isTest = true;
  if (s.isGenerated) o.isGenerated = true;
  if (s.extendedType) o.extendedType = s.extendedType;
  if (s.recovered) o.recovered = true;
  return o;
}

/** Namespace kinds: when a file has more types than one answer holds, their rows list the types by name. */
const NAMESPACE_KINDS = new Set(['namespace', 'module', 'package']);

/** The namespaces and the declarations directly in one (or at the top level): a file's types, not their members. */
function typeLevel(listed: OutlineSymbol[]): OutlineSymbol[] {
  const out: OutlineSymbol[] = [];
  const stack: OutlineSymbol[] = [];
  for (const s of listed) {
    while (stack.length && stack[stack.length - 1]!.depth >= s.depth) stack.pop();
    const parent = stack[stack.length - 1];
    if (!parent || NAMESPACE_KINDS.has(parent.kind)) out.push(s);
    stack.push(s);
  }
  return out;
}

/** Kinds that hold members: in the names form their members are listed on their row. */
const CONTAINER_KINDS = new Set(['namespace', 'module', 'package', 'class', 'struct', 'interface', 'record', 'enum', 'trait', 'impl', 'testSuite']);

/**
 * One outline row. Signature form: one row per declaration. Names form (a file whose signatures do
 * not fit OUTLINE_SIGNATURES_MAX_BYTES): one row per namespace/type, its members listed by kind as
 * "Name line-end" (overloads repeat the name). `depth` and `end` are left out when 0 / one line.
 */
const compactOutlineItem = z.object({
  line: z.number().int(),
  end: z.number().int().optional().describe('Last line, when not the first'),
  kind: z.string(),
  sig: z.string().describe('The declaration without its body'),
  depth: z.number().int().optional().describe('Nesting level, when not 0'),
  id: z.string().optional().describe('Symbol id (with ids: true)'),
  members: z.record(z.string(), z.string()).optional().describe('Names form: members by kind, "Name line-end, …" (an overload adds ",line-end"; "+N more" counts members not named)'),
  test: z.literal(true).optional(),
  generated: z.literal(true).optional(),
  recovered: z.literal(true).optional().describe('Found by the tolerant scan of a region with syntax errors'),
  ext: z.string().optional().describe('Extended type of an extension method'),
});
type CompactOutlineItem = z.infer<typeof compactOutlineItem>;

/** Names form: a container with more members than one row holds continues on rows that name only its line (kind and signature are on its first row). */
const continuedOutlineItem = z.object({
  line: z.number().int().describe('Line of the container whose members this row continues'),
  more: z.literal(true),
  members: z.record(z.string(), z.string()),
});
type ContinuedOutlineItem = z.infer<typeof continuedOutlineItem>;
type OutlineRow = CompactOutlineItem | ContinuedOutlineItem;
const isContinued = (r: OutlineRow): r is ContinuedOutlineItem => 'more' in r;

const span = (s: { line: number; endLine: number }) => (s.endLine !== s.line ? `${s.line}-${s.endLine}` : `${s.line}`);

/** A row's text: the signature, with the kind in front only when the signature does not say it. */
function outlineText(kind: string, sig: string): string {
  return sig === '' ? kind : new RegExp(`(^|\\s)${kind}(\\s|$)`).test(sig) ? sig : `${kind} ${sig}`;
}

function compactRow(s: OutlineSymbol, fileGenerated = false): CompactOutlineItem {
  const o: CompactOutlineItem = { line: s.line, kind: s.kind, sig: s.signature || s.name };
  if (s.endLine !== s.line) o.end = s.endLine;
  if (s.depth) o.depth = s.depth;
  if (s.isTest) o.test = true;
  if (s.isGenerated && !fileGenerated) o.generated = true;
  if (s.recovered) o.recovered = true;
  if (s.extendedType) o.ext = s.extendedType;
  return o;
}

/** One member on its container's row in the names form: overloads of a name share the entry. */
interface MemberEntry {
  name: string;
  kind: string;
  spans: string[];
  /** Private (or field without an access modifier): listed after every other member when a file is summarised. */
  low: boolean;
}

interface NamesContainer {
  sym: OutlineSymbol;
  entries: MemberEntry[];
}

/**
 * The names form's structure: containers (namespaces, types) in order, each with its direct
 * non-container members by name, overloads merged ("Name 10-20,30-40"); a declaration whose
 * parent is not listed is a container of its own (a row without members).
 */
function namesContainers(listed: OutlineSymbol[], containerKinds: ReadonlySet<string> = CONTAINER_KINDS): NamesContainer[] {
  const out: NamesContainer[] = [];
  const stack: { depth: number; c?: NamesContainer; byName?: Map<string, MemberEntry> }[] = [];
  for (const s of listed) {
    while (stack.length && stack[stack.length - 1]!.depth >= s.depth) stack.pop();
    const parent = stack[stack.length - 1];
    if (!containerKinds.has(s.kind) && parent?.c && parent.depth === s.depth - 1) {
      const key = `${s.kind}\u0000${s.name}`;
      let e = parent.byName!.get(key);
      if (!e) {
        const low = s.modifiers.includes('private') || (s.kind === 'field' && !s.modifiers.some((m) => m === 'public' || m === 'protected' || m === 'internal'));
        e = { name: s.name, kind: s.kind, spans: [], low };
        parent.byName!.set(key, e);
        parent.c.entries.push(e);
      }
      e.spans.push(span(s));
      stack.push({ depth: s.depth });
      continue;
    }
    const c: NamesContainer = { sym: s, entries: [] };
    out.push(c);
    stack.push({ depth: s.depth, c, byName: new Map() });
  }
  return out;
}

const entryText = (e: MemberEntry) => `${e.name} ${e.spans.join(',')}`;

/**
 * Rows of the names form: one row per container, its members by kind ("Name line-end, …"); a
 * container with more than OUTLINE_MEMBERS_PER_ROW listed members continues on further rows
 * (`more: true`, same span), so every row fits a small budget and pages stay exact. Members not
 * in `keep` are counted per kind as "+N more" on the container's last row.
 */
function namesRows(containers: NamesContainer[], keep?: Set<MemberEntry>, fileGenerated = false): OutlineRow[] {
  const rows: OutlineRow[] = [];
  for (const c of containers) {
    const listed = keep ? c.entries.filter((e) => keep.has(e)) : c.entries;
    const unlisted = new Map<string, number>();
    if (keep) for (const e of c.entries) if (!keep.has(e)) unlisted.set(e.kind, (unlisted.get(e.kind) ?? 0) + e.spans.length);
    const first = compactRow(c.sym, fileGenerated);
    // Summarised: a long container signature (generic parameter lists) is cut, marked with "…".
    if (keep && first.sig.length > L.OUTLINE_SUMMARY_SIG_CHARS) first.sig = first.sig.slice(0, L.OUTLINE_SUMMARY_SIG_CHARS - 1) + '…';
    let row: { members?: Record<string, string> | undefined } = first;
    rows.push(first);
    let count = 0;
    const add = (kind: string, text: string) => {
      const m = (row.members ??= {});
      m[kind] = Object.hasOwn(m, kind) ? `${m[kind]}, ${text}` : text;
    };
    for (const e of listed) {
      if (count === L.OUTLINE_MEMBERS_PER_ROW) {
        const next: ContinuedOutlineItem = { line: c.sym.line, more: true, members: {} };
        rows.push(next);
        row = next;
        count = 0;
      }
      add(e.kind, entryText(e));
      count++;
    }
    for (const [kind, n] of unlisted) add(kind, `+${n} more`);
  }
  return rows;
}

const jsonBytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v));

/**
 * The members a summarised names form lists within OUTLINE_NAMES_MAX_BYTES: public/protected/
 * internal members before private ones and undecorated fields, round-robin over the containers
 * (each type's first member before any type's second), in source order; the first that does not
 * fit ends the list. Depends on the file and the arguments only, so every page agrees.
 */
function summarisedKeep(containers: NamesContainer[], fileGenerated: boolean): Set<MemberEntry> {
  const keep = new Set<MemberEntry>();
  let left = L.OUTLINE_NAMES_MAX_BYTES - jsonBytes(namesRows(containers, keep, fileGenerated));
  const classes = [containers.map((c) => c.entries.filter((e) => !e.low)), containers.map((c) => c.entries.filter((e) => e.low))];
  outer: for (const lists of classes) {
    const longest = Math.max(0, ...lists.map((l) => l.length));
    for (let level = 0; level < longest; level++) {
      for (const l of lists) {
        const e = l[level];
        if (!e) continue;
        const cost = Buffer.byteLength(entryText(e)) + 2;
        if (cost > left) break outer;
        keep.add(e);
        left -= cost;
      }
    }
  }
  // The "+N more" texts and member keys were estimated; take members back from the end until the rows fit.
  const order = [...keep];
  while (order.length && jsonBytes(namesRows(containers, keep, fileGenerated)) > L.OUTLINE_NAMES_MAX_BYTES) keep.delete(order.pop()!);
  return keep;
}

/** The markdown line of an outline row. */
function outlineRowText(i: OutlineRow): string {
  const members = (indent: number) =>
    Object.entries(i.members ?? {})
      .map(([k, v]) => `\n${'  '.repeat(indent)}${k}: ${v}`)
      .join('');
  if (isContinued(i)) return `(members of L${i.line}, continued)${members(1)}`;
  return (
    `${'  '.repeat(i.depth ?? 0)}${outlineText(i.kind, i.sig)}  L${i.line}${i.end ? `-${i.end}` : ''}${i.test ? ' [test]' : ''}${i.recovered ? ' [recovered]' : ''}${i.id ? `  ${i.id}` : ''}` + members((i.depth ?? 0) + 1)
  );
}

export const outlineTool = defineTool({
  name: 'outline',
  title: 'File outline',
  description:
    'Declaration map of a file: kind, span, signature per row (large files: members by name). Call before reading any large file, then source_context.',
  input: z.strictObject({
    path: pathArg.optional(),
    paths: pathsArg,
    depth: z.number().int().min(0).max(L.MAX_OUTLINE_DEPTH).optional().describe(`0 = top level (default ${DEFAULT_OUTLINE_DEPTH})`),
    kinds: kindsArg,
    form: z.enum(['auto', 'signatures', 'names']).optional(),
    ids: z.boolean().optional(),
    ...pagingArgs,
  }),
  // A batch (paths) answers one item per path: its rows, `note` its summary (batch.ts); no file/form then.
  item: z.union([compactOutlineItem, continuedOutlineItem, batchEntrySchema]),
  extra: {
    file: fileInfo.optional(),
    form: z.enum(['signatures', 'names']).optional(),
    deeper: z.number().optional().describe('Declarations below the depth limit, not listed'),
    unlisted: z.number().optional().describe('Names form (auto): members counted as "+N more" on their row, not named'),
  },
  paged: true,
  defaultLimit: L.MAX_ITEM_LIMIT,
  row: (i: OutlineRow | BatchEntry) => (isBatchEntry(i) ? batchEntryText(i, outlineRowText as (r: never) => string) : outlineRowText(i)),
  async handle(env, args, page) {
    if (args.paths) {
      checkBatch(args.paths.length, 'paths', args.path !== undefined);
      const paths = args.paths;
      // Kept for the cursor (entries page like rows); each path's rows are cut to its share of the budget.
      const entries = await env.once('outlineBatch', () =>
        runBatch(paths, env.deadlineAt, (x) => x, async (x) => {
          const r = outlineRows(env, await fileOutline(env.engine, x), args);
          return { rows: r.rows, note: r.summary };
        }),
      );
      const failed = entries.filter((e) => e.error);
      return {
        summary: `Outlines of ${entries.length} path${entries.length === 1 ? '' : 's'}: ${entries.length - failed.length} answered, ${failed.length} failed${failed.length ? ` (entries ${failed.map((e) => e.entry).join(', ')})` : ''}.`,
        items: fitEntries(entries.slice(page.offset, page.offset + page.limit), page.maxBytes),
        total: entries.length,
        offset: page.offset,
      };
    }
    if (args.path === undefined) throw new ToolError('INVALID_ARGUMENT', 'No path given', 'pass path (one file) or paths (a batch)');
    const path = args.path;
    // Kept for the cursor: a file changed on disk is parsed live, and pages slice one parse.
    const o = await env.once('outline', () => fileOutline(env.engine, path));
    const r = outlineRows(env, o, args);
    return { summary: r.summary, items: r.rows.slice(page.offset, page.offset + page.limit), total: r.rows.length, offset: page.offset, partial: r.partial, extra: r.extra };
  },
});

type OutlineArgs = { depth?: number | undefined; kinds?: string[] | undefined; form?: 'auto' | 'signatures' | 'names' | undefined; ids?: boolean | undefined };

/** The rows of one file's outline (all pages) with its summary and file facts: the single form pages them, a batch lists them per path. */
function outlineRows(env: ToolEnv, o: FileOutline, args: OutlineArgs): { summary: string; rows: OutlineRow[]; partial: string | undefined; extra: Record<string, unknown> } {
  const ids = symbolIds(env.engine);
  const compilations = ids.compilationLabels(o.path);
  const depth = args.depth ?? DEFAULT_OUTLINE_DEPTH;
  const listed = o.symbols.filter((s) => s.depth <= depth && (!args.kinds || args.kinds.includes(s.kind)));
  const deeper = o.symbols.filter((s) => s.depth > depth).length;
  // A generated file: said once on the file, not on every row.
  const allGenerated = listed.length > 0 && listed.every((s) => s.isGenerated);
  // The form depends on the file and the arguments only (never on the page or byte budget), so pages agree.
  const sigRows = listed.map((s) => {
    const r = compactRow(s, allGenerated);
    if (args.ids) r.id = ids.idFor(s.id, o.path);
    return r;
  });
  const wanted = args.ids ? 'signatures' : (args.form ?? 'auto');
  const form = wanted === 'auto' ? (jsonBytes(sigRows) <= L.OUTLINE_SIGNATURES_MAX_BYTES ? 'signatures' : 'names') : wanted;
  let rows: OutlineRow[] = sigRows;
  let unlisted = 0;
  let typesOnly = 0;
  if (form === 'names') {
    const containers = namesContainers(listed);
    rows = namesRows(containers, undefined, allGenerated);
    // Auto: a map whose every member does not fit one answer lists what fits and counts the rest.
    if (wanted === 'auto' && jsonBytes(rows) > L.OUTLINE_NAMES_MAX_BYTES) {
      const keep = summarisedKeep(containers, allGenerated);
      rows = namesRows(containers, keep, allGenerated);
      for (const c of containers) for (const e of c.entries) if (!keep.has(e)) unlisted += e.spans.length;
      if (jsonBytes(rows) > L.OUTLINE_NAMES_MAX_BYTES) {
        // More types than one row each fits (an API listing): one row per namespace, its types by
        // name (what fits, the rest "+N more"), their members counted, so the map stays one answer.
        const types = typeLevel(listed);
        const byNamespace = namesContainers(types, NAMESPACE_KINDS);
        const keepTypes = summarisedKeep(byNamespace, allGenerated);
        rows = namesRows(byNamespace, keepTypes, allGenerated);
        typesOnly = listed.length - types.length;
        unlisted = typesOnly;
        for (const c of byNamespace) for (const e of c.entries) if (!keepTypes.has(e)) unlisted += e.spans.length;
      }
    }
  }
  const notes: string[] = [];
  if (o.hasErrors) notes.push(`syntax errors at line${o.errorLines.length === 1 ? '' : 's'} ${o.errorLines.join(', ')}`);
  if (o.reparsedWith.length) notes.push(`re-parsed (${o.reparsedWith.join('; ')})`);
  if (o.recoveredDeclarations) notes.push(`${o.recoveredDeclarations} declaration(s) recovered from error regions`);
  if (deeper) notes.push(`${deeper} deeper declaration(s) not listed (raise depth)`);
  if (form === 'names') notes.push('members by name (form: "signatures" or source_context for signatures)');
  if (typesOnly) notes.push(`types by name per namespace; their ${typesOnly} member(s) are not named`);
  if (unlisted) notes.push(`${unlisted} member(s) counted as "+N more", not named (form: "names" names every one, paged)`);
  if (o.isLarge) notes.push('large file: read spans with source_context');
  const file: Record<string, unknown> = { path: o.path, language: o.language, lines: o.lines, isLarge: o.isLarge, source: o.source };
  if (o.hasErrors) Object.assign(file, { hasErrors: true, errorLines: o.errorLines });
  if (o.reparsedWith.length) file.reparsedWith = o.reparsedWith;
  if (allGenerated) file.generated = true;
  if (compilations.length > 1) file.compilations = compilations;
  return {
  summary: `${o.path}: ${listed.length} declaration${listed.length === 1 ? '' : 's'} in ${o.lines} lines (${o.language})${notes.length ? '; ' + notes.join('; ') : ''}.`,
  rows,
  partial: o.depthTruncated ? `declarations nested deeper than ${L.MAX_OUTLINE_DEPTH} levels are not extracted` : undefined,
  extra: { file, form, ...(deeper ? { deeper } : {}), ...(unlisted ? { unlisted } : {}) },
  };
}


/**
 * One search_symbol row, said once: the symbol id is the target handle and spells the qualified
 * name (C# `T:Ns.Type(…)@project|tfm`, others `path#Ns.name`), so `qualifiedName` is there only when
 * the id does not spell it and `name` only when it is not the qualified name's last part
 * (`symbolRowNames` derives both). Defaults are left out: endLine = line, match exact, fileClass
 * source, isTest in a test file, isGenerated in a generated file.
 */
const symbolHitItem = z.object({
  symbolId: z.string().describe('Target handle, stable within an index version; C#: documentation-comment id @ project | target framework, e.g. T:Ns.Type@App.Core|net8.0'),
  kind: z.string(),
  signature: z.string(),
  path: z.string(),
  line: z.number(),
  endLine: z.number().optional().describe('Omitted: one line'),
  column: z.number(),
  match: z.string().optional().describe('Omitted: exact'),
  qualifiedName: z.string().optional().describe('Only when the symbol id does not spell it'),
  name: z.string().optional().describe('Only when not the last part of the qualified name'),
  fileClass: z.string().optional().describe('Omitted: source'),
  isTest: z.boolean().optional().describe('A test declaration outside a test file'),
  isGenerated: z.boolean().optional(),
  extendedType: z.string().optional(),
  otherSpans: z.array(z.object({ path: z.string(), line: z.number(), endLine: z.number() })).optional().describe('More declarations of the same symbol (partial types)'),
  attributes: z.array(z.string()).optional().describe('With attribute: the matching ones with arguments'),
  doc: z
    .object({
      summary: z.string().optional(), typeParams: z.record(z.string(), z.string()).optional(), params: z.record(z.string(), z.string()).optional(), returns: z.string().optional(),
      value: z.string().optional(), exceptions: z.record(z.string(), z.string()).optional(), remarks: z.string().optional(), deprecated: z.string().optional(),
      inheritedFrom: z.string().optional(), inheritUnresolved: z.string().optional(),
    })
    .optional()
    .describe('With docs: the doc comment (XML doc / JSDoc), <inheritdoc/> resolved in the workspace'),
});

const searchSymbolInput = z.strictObject({
  query: z.string().min(1).max(L.MAX_QUERY_CHARS).optional(),
  match: z.enum(['exact', 'prefix', 'substring', 'camelCase', 'fuzzy', 'regex', 'qualified']).optional().describe('Default exact+prefix+camelCase'),
  attribute: z.string().min(1).max(200).optional(),
  docs: z.boolean().optional(),
  kinds: kindsArg,
  project: z.string().max(L.MAX_PATH_CHARS).optional(),
  pathGlob: z.string().max(500).optional(),
  scope: z.enum(['all', 'production', 'test']).optional(),
  generated: z.enum(['include', 'exclude', 'only']).optional(),
  ...pagingArgs,
});
type SymbolHitRow = z.infer<typeof symbolHitItem>;

/** The qualified name a symbol id spells, if it spells one: C# `X:Ns.Name(…)@…`, others `path#Ns.name`. */
function qualifiedNameInId(id: string, path: string): string | undefined {
  const cs = /^[A-Z]:([^(@]*)/.exec(id);
  if (cs) return cs[1];
  return id.startsWith(`${path}#`) ? id.slice(path.length + 1) : undefined;
}

const lastPartIs = (qn: string, name: string) => qn === name || qn.endsWith(`.${name}`);

/** A search_symbol row's qualified name and name, spelled out or derived from its id. */
export function symbolRowNames(r: { symbolId: string; path: string; qualifiedName?: string | undefined; name?: string | undefined }): { qualifiedName: string; name: string } {
  const qualifiedName = r.qualifiedName ?? qualifiedNameInId(r.symbolId, r.path) ?? '';
  return { qualifiedName, name: r.name ?? qualifiedName.slice(qualifiedName.lastIndexOf('.') + 1) };
}

function symbolHitRow(h: SymbolHit & { attributes?: string[] }): SymbolHitRow {
  const row: SymbolHitRow = { symbolId: h.symbolId, kind: h.kind, signature: h.signature, path: h.path, line: h.line, column: h.column };
  if (h.endLine !== h.line) row.endLine = h.endLine;
  if (h.match !== 'exact') row.match = h.match;
  if (qualifiedNameInId(h.symbolId, h.path) !== h.qualifiedName) row.qualifiedName = h.qualifiedName;
  if (!lastPartIs(h.qualifiedName, h.name)) row.name = h.name;
  if (h.fileClass !== 'source') row.fileClass = h.fileClass;
  if (h.isTest && h.fileClass !== 'test') row.isTest = true;
  if (h.isGenerated && h.fileClass !== 'generated') row.isGenerated = true;
  if (h.extendedType) row.extendedType = h.extendedType;
  if (h.otherSpans) row.otherSpans = h.otherSpans;
  if (h.attributes) row.attributes = h.attributes;
  return row;
}

export const searchSymbolTool = defineTool({
  name: 'search_symbol',
  title: 'Search symbols',
  description:
    'Where is X: declarations by name, camelCase ("GRS"), fuzzy, regex or qualified ("Ns.Type.Member"). Types, then I-interfaces, members, fields; production first.',
  input: searchSymbolInput,
  item: symbolHitItem,
  extra: { navigationLayer: z.literal('syntax'), matchedNames: z.number() },
  paged: true,
  row: (i: SymbolHitRow) =>
    `${i.attributes ? `[${i.attributes.join(', ')}] ` : ''}${i.kind} ${symbolRowNames(i).qualifiedName} — ${i.path}:${i.line}${i.otherSpans ? ` (+${i.otherSpans.length} more span${i.otherSpans.length === 1 ? '' : 's'})` : ''}${i.isTest || i.fileClass === 'test' ? ' [test]' : ''}${i.isGenerated || i.fileClass === 'generated' ? ' [generated]' : ''}\n  ${i.signature}`,
  async handle(env, args, page) {
    const r = await symbolAnswer(env, args, page);
    if (!args.docs) return r;
    // Doc comments of the page's rows (read from the live files just above each declaration).
    const hits = r.items as (SymbolHitRow & { doc?: DocComment })[];
    // A row says its name only when the id does not spell it: derive it.
    const docs = await docsOfHits(env.engine, hits.map((h) => ({ path: h.path, line: h.line, name: symbolRowNames(h).name })));
    return { ...r, items: hits.map((h, i) => (docs[i] ? { ...h, doc: docs[i] } : h)) };
  },
});

async function symbolAnswer(env: ToolEnv, args: z.infer<typeof searchSymbolInput>, page: PageRequest): Promise<ToolResult> {
  {
    if (args.attribute !== undefined) return attributeAnswer(env, { ...args, attribute: args.attribute }, page);
    if (args.query === undefined) throw new ToolError('INVALID_ARGUMENT', 'search_symbol needs a query or an attribute', 'pass query (a name) or attribute (e.g. "HttpGet"), or both');
    await env.engine.symbolTableReady(); // the table's first build in slices, not in one piece on this thread
    const r = searchSymbols(env.engine, {
      query: args.query,
      match: args.match ?? 'auto',
      kinds: args.kinds,
      project: args.project,
      pathGlob: args.pathGlob,
      scope: args.scope,
      generated: args.generated,
      offset: page.offset,
      limit: page.limit,
      deadlineAt: env.deadlineAt,
    });
    const total = r.totalIsLowerBound ? `at least ${r.total}` : `${r.total}`;
    const meta = env.engine.meta();
    // Text + files commit before outlines/symbols: until those are all written the answer is partial.
    const building = meta.status === 'building' || (meta.symbolsPending ?? 0) > 0;
    return {
      summary: r.total === 0 ? `No declaration matches '${args.query}'${building ? ' yet (the symbol index is still being built)' : ''}.` : `${total} symbol${r.total === 1 ? '' : 's'} match '${args.query}'.`,
      items: r.hits.map(symbolHitRow),
      total: r.totalIsLowerBound ? undefined : r.total,
      offset: page.offset,
      truncated: r.truncated === 'deadline' ? 'deadline' : r.totalIsLowerBound ? 'limit' : undefined,
      partial: building
        ? `the symbol index is still being built${meta.symbolsPending ? ` (${meta.symbolsPending} file(s) not parsed yet)` : ''}; their symbols are missing`
        : undefined,
      extra: { navigationLayer: 'syntax' as const, matchedNames: r.names },
    };
  }
}

/** search_symbol with `attribute` (nav/expanded/attributeSearch.ts): one ranked list per answer, pages slice it. */
async function attributeAnswer(env: ToolEnv, args: Omit<SymbolQuery, 'query' | 'offset' | 'limit' | 'deadlineAt' | 'match'> & { attribute: string; query?: string | undefined; match?: SymbolQuery['match'] | undefined }, page: PageRequest): Promise<ToolResult> {
  const r = await env.once('attribute', () => searchByAttribute(env.engine, { ...args, match: args.match ?? 'auto', deadlineAt: env.deadlineAt }));
  const meta = env.engine.meta();
  const building = meta.status === 'building' || (meta.symbolsPending ?? 0) > 0;
  const what = `[${args.attribute}]${args.query ? ` named like '${args.query}'` : ''}`;
  return {
    summary: r.total === 0 ? `No declaration carries ${what}${building ? ' yet (the symbol index is still being built)' : ''}.` : `${r.total}${r.capped ? '+' : ''} declaration${r.total === 1 ? ' carries' : 's carry'} ${what}.`,
    items: r.hits.slice(page.offset, page.offset + page.limit).map(symbolHitRow),
    total: r.total,
    offset: page.offset,
    partial: [r.capped ? `more than ${r.total} declarations carry it; only those were ranked (narrow with query, kinds or pathGlob)` : '', building ? 'the symbol index is still being built; symbols of unparsed files are missing' : ''].filter(Boolean).join('; ') || undefined,
    extra: { navigationLayer: 'syntax' as const, matchedNames: new Set(r.hits.map((h) => h.name)).size },
  };
}

const containerItem = z.object({ name: z.string(), kind: z.string(), line: z.number(), endLine: z.number(), symbolId: z.string() });

export const symbolAtTool = defineTool({
  name: 'symbol_at',
  title: 'Symbol at position',
  description:
    'The declaration enclosing a file position, with its containers: map a stack frame, build error or diff hunk to its method.',
  input: z.strictObject({
    path: pathArg,
    line: z.number().int().min(1),
    column: z.number().int().min(1).optional(),
  }),
  item: outlineItem,
  extra: { containers: z.array(containerItem).describe('Outermost first'), file: fileInfo, navigationLayer: z.literal('syntax') },
  paged: false,
  row: (i: OutlineItem) => `${i.kind} ${i.signature || i.name}  L${i.line}-${i.endLine}`,
  async handle(env, args) {
    const { outline, at } = await symbolAtPosition(env.engine, args.path, args.line, args.column);
    const ids = symbolIds(env.engine);
    const compilations = ids.compilationLabels(outline.path);
    const containers = at.containers.map((c) => ({ name: c.name, kind: c.kind, line: c.line, endLine: c.endLine, symbolId: ids.idFor(c.id, outline.path) }));
    const where = `${outline.path}:${args.line}${args.column ? `:${args.column}` : ''}`;
    const chain = [...at.containers, ...(at.symbol ? [at.symbol] : [])].map((s) => s.name).join(' > ');
    return {
      summary: at.symbol ? `${where} is in ${at.symbol.kind} ${chain}.` : `${where} is outside every declaration.`,
      items: at.symbol ? [outlineRow(at.symbol, ids.idFor(at.symbol.id, outline.path))] : [],
      extra: {
        containers,
        file: { path: outline.path, language: outline.language, lines: outline.lines, isLarge: outline.isLarge, source: outline.source, hasErrors: outline.hasErrors, errorLines: outline.errorLines, reparsedWith: outline.reparsedWith, ...(compilations.length > 1 ? { compilations } : {}) },
        navigationLayer: 'syntax' as const,
      },
    };
  },
});

/** A syntax node; `named` and `hasError` only when not the default (named, no error). */
const nodeInfo = z.object({
  type: z.string(),
  field: z.string().optional(),
  named: z.literal(false).optional(),
  line: z.number(),
  column: z.number(),
  endLine: z.number(),
  endColumn: z.number(),
  text: z.string(),
  childCount: z.number(),
  hasError: z.literal(true).optional(),
});
type NodeInfo = z.infer<typeof nodeInfo>;

function nodeRow<T extends { named: boolean; hasError: boolean }>(n: T): Omit<T, 'named' | 'hasError'> & { named?: false; hasError?: true } {
  const { named, hasError, ...rest } = n;
  return { ...rest, ...(named ? {} : { named: false as const }), ...(hasError ? { hasError: true as const } : {}) };
}

export const inspectSyntaxTreeTool = defineTool({
  name: 'inspect_syntax_tree',
  title: 'Inspect syntax tree',
  description:
    'Tree-sitter node at a position: ancestors, children, field names, a query skeleton. For writing search_structural queries.',
  input: z.strictObject({
    path: pathArg,
    line: z.number().int().min(1),
    column: z.number().int().min(1).optional(),
    maxAncestors: z.number().int().min(0).max(L.MAX_SYNTAX_TREE_NODES).optional(),
    maxChildren: z.number().int().min(0).max(L.MAX_SYNTAX_TREE_NODES).optional(),
    maxBytes: pagingArgs.maxBytes,
  }),
  item: nodeInfo,
  // Children cut by maxChildren are said by completeness (total = the node's child count), not again here.
  extra: { node: nodeInfo, ancestors: z.array(nodeInfo), queryHint: z.string(), language: z.string(), truncatedAncestors: z.literal(true).optional().describe('More ancestors than maxAncestors') },
  paged: false,
  row: (i: NodeInfo) => `${i.field ? i.field + ': ' : ''}${i.type}${i.named === false ? ' (anonymous)' : ''} L${i.line}:${i.column}-L${i.endLine}:${i.endColumn}  ${i.text}`,
  async handle(env, args) {
    const r = await inspectSyntax(env.engine, args.path, args.line, args.column, args.maxAncestors ?? L.DEFAULT_SYNTAX_TREE_NODES, args.maxChildren ?? L.DEFAULT_SYNTAX_TREE_NODES);
    const v = r.view;
    const chain = v.ancestors.slice(0, 4).map((a) => a.type).join(' < ');
    return {
      summary: `${r.path}:${args.line}: ${v.node.field ? v.node.field + ': ' : ''}${v.node.type}${chain ? ' < ' + chain : ''}; ${v.children.length} child node(s) shown. Query skeleton: ${v.queryHint}`,
      items: v.children.map(nodeRow),
      total: v.node.childCount,
      truncated: v.truncatedChildren ? 'limit' : undefined,
      extra: { node: nodeRow(v.node), ancestors: v.ancestors.map(nodeRow), queryHint: v.queryHint, language: r.language, ...(v.truncatedAncestors ? { truncatedAncestors: true as const } : {}) },
    };
  },
});

const structuralItem = z.object({
  path: z.string(),
  capture: z.string(),
  line: z.number(),
  column: z.number(),
  endLine: z.number(),
  endColumn: z.number(),
  text: z.string(),
  captures: z.array(z.object({ name: z.string(), line: z.number(), column: z.number(), endLine: z.number(), endColumn: z.number(), text: z.string() })).optional().describe('Other captures of the match (omitted: none)'),
});

export const searchStructuralTool = defineTool({
  name: 'search_structural',
  title: 'Structural search',
  description:
    'Tree-sitter query over one language\'s files, e.g. (invocation_expression) @match, or "@calls", "@calls:Name". One row per primary capture.',
  input: z.strictObject({
    query: z.string().min(1).max(L.MAX_QUERY_CHARS * 4),
    language: z.string().min(1).max(40).describe('csharp, typescript, tsx, python…'),
    pathRegex: z.string().max(L.MAX_REGEX_CHARS).optional(),
    pathGlob: z.string().max(500).optional(),
    capture: z.string().max(100).optional().describe('Primary capture, default @match'),
    classes: z.array(fileClassEnum).max(7).optional(),
    ...pagingArgs,
  }),
  item: structuralItem,
  extra: { navigationLayer: z.literal('syntax'), filesSearched: z.number(), filesWithMatches: z.number(), candidateFiles: z.number(), primaryCapture: z.string() },
  paged: true,
  row: (i: z.infer<typeof structuralItem>) => `${i.path}:${i.line}:${i.column} @${i.capture} ${i.text}${i.captures?.length ? '  [' + i.captures.map((c) => `@${c.name}=${c.text}`).join(', ') + ']' : ''}`,
  async handle(env, args, page) {
    const r = await searchStructural(env.engine, {
      query: args.query,
      language: args.language,
      pathRegex: args.pathRegex,
      pathGlob: args.pathGlob,
      capture: args.capture,
      classes: args.classes,
      offset: page.offset,
      limit: Math.min(page.limit, Math.ceil(page.maxBytes / L.STRUCTURAL_MATCH_MIN_BYTES)),
      deadlineAt: env.deadlineAt,
      // Pages seek (file, match in file) instead of re-running from the first file, so a later page continues past the per-call file bound.
      start: structuralStart(page.resume),
    });
    // Stopped by the file bound or the deadline: the cursor continues from where the search stopped.
    const resumable = r.truncated === 'cap' || r.truncated === 'deadline';
    const moved = r.matches.length > 0 || r.frontier.f > (structuralStart(page.resume)?.f ?? 0);
    const why =
      r.truncated === 'deadline'
        ? `this page stopped at the deadline after ${r.filesSearched} files${moved ? '; the cursor continues' : ''}`
        : r.truncated === 'cap'
          ? `this page stopped after ${r.filesSearched} files (per-call file bound); the cursor continues, or narrow with pathRegex/pathGlob`
          : undefined;
    const notes = [r.exceededMatchLimit ? 'some files had more in-progress matches than the query cursor keeps; rows may be missing' : undefined].filter(Boolean);
    if (why && !moved) notes.unshift(why);
    return {
      positionAfter: (i: number) => r.positions[i],
      ...(resumable && moved && r.matches.length === 0 ? { resumeAt: r.frontier } : {}),
      summary: `${r.matches.length === 0 && page.offset === 0 ? 'No match' : `${r.matches.length} match${r.matches.length === 1 ? '' : 'es'}`} of @${r.primaryCapture} in ${r.filesWithMatches} of ${r.filesSearched} ${args.language} files searched (${r.candidateFiles} candidates)${why && moved ? `; ${why}` : ''}.`,
      items: r.matches.map(({ captures, ...m }) => (captures.length ? { ...m, captures } : m)),
      offset: page.offset,
      truncated: resumable && moved ? 'limit' : r.truncated,
      partial: notes.length ? notes.join('; ') : undefined,
      extra: { navigationLayer: 'syntax' as const, filesSearched: r.filesSearched, filesWithMatches: r.filesWithMatches, candidateFiles: r.candidateFiles, primaryCapture: r.primaryCapture },
    };
  },
});

/** The resume position of a search_structural cursor (INVALID_CURSOR when it is not one). */
function structuralStart(resume: unknown): StructuralPosition | undefined {
  if (resume === undefined) return undefined;
  const p = resume as StructuralPosition;
  if (!p || typeof p !== 'object' || !Number.isInteger(p.f) || !Number.isInteger(p.s) || p.f < 0 || p.s < 0) {
    throw new ToolError('INVALID_CURSOR', 'The cursor is not one this server issued', 'pass nextCursor unchanged, or drop cursor to start over');
  }
  return { f: p.f, s: p.s };
}

export const SYNTAX_TOOLS = [outlineTool, searchSymbolTool, symbolAtTool, inspectSyntaxTreeTool, searchStructuralTool];
