/** Issue 13 part 1: recent_changes, generated_for (xml_doc follows). */
import { z } from 'zod';
import { ToolError } from '../../core/errors';
import { MAX_PATH_CHARS, XML_DOC_SEMANTIC_MARGIN_MS } from '../../core/limits';
import type { Engine } from '../../nav/engine';
import { generatedFor, type GeneratedRow } from '../../nav/expanded/generatedFor';
import { DocReader, semanticDocOf, wantsSemanticDoc, type DocComment, type SemanticDocOutcome } from '../../nav/expanded/xmlDoc';
import { symbolIds } from '../../nav/symbolIds';
import { recentChanges, type ChangedFile } from '../../nav/expanded/recentChanges';
import { resolveTarget } from '../../nav/semanticTarget';
import { fileOutline } from '../../nav/syntaxOutline';
import { symbolAt } from '../../syntax/symbolAt';
import type { OutlineSymbol } from '../../syntax/types';
import { budgetArg, pagingArgs, pathArg } from '../schemas';
import { defineTool } from '../tool';
import { targetSchema, toTarget } from './semantic';

/** One changed file; `status` M, `project` '' and production are the defaults left out. */
interface ChangeRow {
  path: string;
  status?: string;
  in: string[];
  add: number;
  del: number;
  symbols?: string[];
  outside?: number;
  more?: number;
  project?: string;
  test?: true;
}

function changeRow(f: ChangedFile): ChangeRow {
  const r: ChangeRow = { path: f.path, in: f.where, add: f.added, del: f.removed };
  if (f.status !== 'M') r.status = f.status;
  if (f.symbols.length) r.symbols = f.symbols;
  if (f.outside) r.outside = f.outside;
  if (f.moreSymbols) r.more = f.moreSymbols;
  if (f.project) r.project = f.project;
  if (f.test) r.test = true;
  return r;
}

export const recentChangesTool = defineTool({
  name: 'recent_changes',
  title: 'Recent changes',
  description:
    'Changed files + the declarations each hunk touches: working tree (staged, unstaged, untracked) and commits since a ref/date; by project, production first.',
  input: z.strictObject({
    scope: z.string().max(MAX_PATH_CHARS).optional(),
    since: z.string().max(200).optional().describe('Ref or date'),
    ...pagingArgs,
  }),
  item: z.object({
    path: z.string(),
    status: z.string().optional().describe('A|D|T; omitted: M'),
    in: z.array(z.string()),
    add: z.number(),
    del: z.number(),
    symbols: z.array(z.string()).optional(),
    outside: z.number().optional().describe('Lines outside declarations'),
    more: z.number().optional(),
    project: z.string().optional(),
    test: z.literal(true).optional(),
  })
    // Published loose (the rows say their fields): tools/list stays within TOOLS_LIST_MAX_BYTES.
    .meta({ published: { type: 'object', required: ['path', 'in', 'add', 'del'] } }),
  extra: {
    git: z.literal(false).optional(),
    base: z.string().optional(),
    commits: z.array(z.object({ sha: z.string(), date: z.string(), subject: z.string() })).optional(),
    commitCount: z.number().optional(),
    projects: z.array(z.object({ project: z.string(), prod: z.number(), test: z.number() })),
  },
  paged: true,
  row: (i: ChangeRow) =>
    `${i.status ?? 'M'} ${i.path} (+${i.add} -${i.del}; ${i.in.join(', ') || 'since index'})${i.test ? ' [test]' : ''}${i.project ? ` {${i.project}}` : ''}${i.symbols ? '\n  ' + i.symbols.join('; ') : ''}${i.more ? ` +${i.more} more` : ''}`,
  async handle(env, args, page) {
    const r = await env.once('recent', () => recentChanges(env.engine, { scope: args.scope, since: args.since, deadlineAt: env.deadlineAt }));
    const rows = r.files.map(changeRow);
    const byProject = new Map<string, { project: string; prod: number; test: number }>();
    for (const f of r.files) {
      const g = byProject.get(f.project) ?? { project: f.project, prod: 0, test: 0 };
      if (f.test) g.test++;
      else g.prod++;
      byProject.set(f.project, g);
    }
    const range = r.since ? ` and ${r.commitCount}${r.commitsCapped ? '+' : ''} commit${r.commitCount === 1 ? '' : 's'} since ${r.since}` : '';
    const notes: string[] = [];
    if (!r.git) notes.push(`no git (${r.reason}): files changed on disk since they were indexed`);
    if (r.commitsCapped) notes.push(`history walk stopped at ${r.commitCount} commits`);
    if (r.unmapped) notes.push(`${r.unmapped} file(s) not mapped to declarations`);
    if (r.untrackedFromIndex) notes.push('untracked files looked for among indexed ones (folders the index excludes not scanned)');
    const partial = [r.filesCapped ? `${r.filesCapped} more changed files not listed (narrow with scope)` : '', r.deadline ? 'mapping stopped at the deadline' : ''].filter(Boolean).join('; ');
    return {
      summary: `${r.files.length} changed file${r.files.length === 1 ? '' : 's'} in ${byProject.size} project group${byProject.size === 1 ? '' : 's'}${r.git ? ` (working tree${range})` : ''}${notes.length ? '; ' + notes.join('; ') : ''}.`,
      items: rows.slice(page.offset, page.offset + page.limit),
      total: rows.length,
      offset: page.offset,
      partial: partial || undefined,
      extra: {
        ...(r.git ? {} : { git: false as const }),
        ...(r.base ? { base: r.base } : {}),
        ...(r.commits.length ? { commits: r.commits, commitCount: r.commitCount } : {}),
        projects: [...byProject.values()],
      },
    };
  },
});

/** A target's file and its syntax-layer declaration (the innermost one at the name position). */
export async function targetDeclaration(engine: Engine, target: z.infer<typeof targetSchema>): Promise<{ path: string; symbol: OutlineSymbol | undefined }> {
  const r = resolveTarget(engine, toTarget(target));
  if ('ambiguous' in r) {
    const c = r.selection.candidates ?? [];
    throw new ToolError('AMBIGUOUS_TARGET', `The target names ${c.length} declarations`, `pass one symbolId: ${c.slice(0, 4).map((x) => x.symbolId).join(', ')}`, { candidates: c.slice(0, 10).map((x) => x.symbolId) });
  }
  const o = await fileOutline(engine, r.position.path);
  return { path: o.path, symbol: symbolAt(o.symbols, r.position.line, r.position.column).symbol };
}

export const generatedForTool = defineTool({
  name: 'generated_for',
  title: 'Generated code',
  description:
    'Generated file/symbol: its producer (source generator, MSBuild target, .resx/.xaml/.razor/.proto) and sources; source symbol: generated parts on disk.',
  input: z.strictObject({ path: pathArg.optional(), target: targetSchema.optional(), ...budgetArg }),
  item: z
    .object({ rel: z.enum(['producer', 'source', 'output']), kind: z.string(), name: z.string().optional(), path: z.string().optional(), line: z.number().optional(), detail: z.string().optional() })
    .meta({ published: { type: 'object', required: ['rel', 'kind'] } }),
  extra: {
    coverage: z.object({ project: z.string().optional(), built: z.boolean(), generatorFilesOnDisk: z.boolean(), note: z.string() }),
  },
  paged: false,
  row: (i: GeneratedRow) => `${i.rel} ${i.kind}${i.name ? ` ${i.name}` : ''}${i.path ? ` — ${i.path}${i.line ? `:${i.line}` : ''}` : ''}${i.detail ? ` (${i.detail})` : ''}`,
  async handle(env, args) {
    if ((args.path === undefined) === (args.target === undefined)) throw new ToolError('INVALID_ARGUMENT', 'generated_for takes a path or a target (one of them)', 'pass {path: "obj/…/X.g.cs"} or {target: {qualifiedName: "Ns.Type"}}');
    const t = args.target ? await targetDeclaration(env.engine, args.target) : { path: args.path!, symbol: undefined };
    const a = await generatedFor(env.engine, t);
    const producers = a.rows.filter((r) => r.rel === 'producer').map((r) => r.name);
    const outputs = a.rows.filter((r) => r.rel === 'output').length;
    const what = a.symbol ?? a.path;
    return {
      summary: a.generated
        ? `${a.path} is generated${producers.length ? ` by ${producers.join(', ')}` : ' (producer not detected)'}; ${a.rows.filter((r) => r.rel === 'source').length} source(s) found (coverage says what is on disk).`
        : `${what}: ${outputs ? `${outputs} generated part(s) on disk` : 'nothing generated from it on disk'} (coverage says what that means).`,
      items: a.rows,
      total: a.rows.length,
      truncated: a.capped ? 'cap' : undefined,
      extra: { coverage: a.coverage },
    };
  },
});

type DocRow = DocComment & { symbolId: string; kind: string; qualifiedName: string; path: string; line: number };

export const xmlDocTool = defineTool({
  name: 'xml_doc',
  title: 'Doc comment',
  description: 'Doc comment of a symbol without reading its source: C# XML doc (summary, params, returns, exceptions; <inheritdoc/> resolved) or JSDoc/TSDoc; compiler/hover docs where the source has none.',
  input: z.strictObject({ target: targetSchema }),
  item: z
    .object({
      symbolId: z.string(), kind: z.string(), qualifiedName: z.string(), path: z.string(), line: z.number(),
      summary: z.string().optional(), typeParams: z.record(z.string(), z.string()).optional(), params: z.record(z.string(), z.string()).optional(), returns: z.string().optional(),
      value: z.string().optional(), exceptions: z.record(z.string(), z.string()).optional(), remarks: z.string().optional(), deprecated: z.string().optional(),
      inheritedFrom: z.string().optional(), inheritUnresolved: z.string().optional(),
    })
    .meta({ published: { type: 'object', required: ['symbolId', 'kind', 'qualifiedName', 'path', 'line'] } }),
  // syntax: the source's doc comment alone; semantic: a provider's documentation filled what the source does not say (`provider` answered).
  extra: { navigationLayer: z.enum(['syntax', 'semantic']), provider: z.string().optional() },
  paged: false,
  mode: true,
  row: (i: DocRow) =>
    `${i.kind} ${i.qualifiedName} — ${i.path}:${i.line}${i.summary ? `\n  ${i.summary}` : ''}${Object.entries(i.params ?? {}).map(([k, v]) => `\n  @param ${k}: ${v}`).join('')}${i.returns ? `\n  returns: ${i.returns}` : ''}${Object.entries(i.exceptions ?? {}).map(([k, v]) => `\n  throws ${k}: ${v}`).join('')}${i.inheritedFrom ? `\n  (inherited from ${i.inheritedFrom})` : ''}${i.inheritUnresolved ? `\n  <inheritdoc/> unresolved: ${i.inheritUnresolved}` : ''}`,
  async handle(env, args) {
    const t = await targetDeclaration(env.engine, args.target);
    if (!t.symbol) throw new ToolError('TARGET_NOT_FOUND', `No declaration at the target in ${t.path}`, 'pass a symbolId or qualifiedName from search_symbol, or a position on a declaration');
    const s = t.symbol;
    const own = new DocReader(env.engine).docOf(t.path, s);
    // The semantic providers where the source says nothing or points outside the workspace.
    const sem: SemanticDocOutcome | undefined = wantsSemanticDoc(t.path, own) ? await semanticDocOf(env.engine, t.path, s, own, env.deadlineAt - XML_DOC_SEMANTIC_MARGIN_MS) : undefined;
    const doc = sem?.used ? sem.doc : own;
    const row: DocRow = { symbolId: symbolIds(env.engine).idFor(s.id, t.path), kind: s.kind, qualifiedName: s.qualifiedName, path: t.path, line: s.line, ...(doc ?? {}) };
    const what = `${s.kind} ${s.qualifiedName}`;
    const via = sem?.used ? ` (from ${sem.provider}'s documentation${own && Object.keys(own).some((k) => k !== 'inheritUnresolved') ? ', the source\'s own tags kept' : ''})` : '';
    const fallback = sem && !sem.used ? (sem.provider ? `; ${sem.provider} has no documentation for it either` : `; no semantic provider answered (${sem.reason ?? 'none'})`) : '';
    const partial = sem && (sem.mode === 'unavailable_no_precise' || sem.mode === 'precise_partial') ? `semantic fallback: ${sem.reason ?? sem.mode}` : undefined;
    return {
      summary: doc ? `Doc comment of ${what}${doc.inheritedFrom ? ` (inherited from ${doc.inheritedFrom})` : ''}${via}${fallback}.` : `${what} has no doc comment${fallback}.`,
      items: doc ? [row] : [],
      ...(sem ? { mode: sem.used || sem.provider ? sem.mode : ('unavailable_no_precise' as const) } : {}),
      ...(partial ? { partial } : {}),
      extra: { navigationLayer: sem?.used ? ('semantic' as const) : ('syntax' as const), ...(sem?.provider ? { provider: sem.provider } : {}) },
    };
  },
});

export const EXPANDED_TOOLS = [recentChangesTool, generatedForTool, xmlDocTool];
