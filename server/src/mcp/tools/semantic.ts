/**
 * definition, references, implementations, callers, callees, type_hierarchy: compiler-backed
 * navigation with honest labels. Every answer carries `mode` (precise | precise_partial |
 * heuristic_no_precise | unavailable_no_precise), per-row `confidence`, `target_selection`, and the
 * provider and reason; call and type hierarchy answers carry `availability` (an empty list with
 * availability `unavailable` is not "no callers").
 */
import { z } from 'zod';
import { ToolError } from '../../core/errors';
import { BATCH_REFERENCES_LOCATIONS, MAX_PATH_CHARS, SEMANTIC_LOCATION_MIN_BYTES, TOOL_DEADLINE_MS, SEMANTIC_CALLS_MAX_DEPTH, SEMANTIC_CALLS_MAX_EDGES, SEMANTIC_REFERENCES_PER_GROUP, SEMANTIC_REFERENCES_SPREAD_LOCATIONS, SEMANTIC_REFERENCES_SPREAD_BYTES, SEMANTIC_GROUP_ROW_BYTES, SEMANTIC_LOCATION_ROW_BYTES, SEMANTIC_REFERENCES_GROUPS_PER_PAGE, SEMANTIC_TYPE_HIERARCHY_MAX_DEPTH, SEMANTIC_TYPE_HIERARCHY_MAX_NODES } from '../../core/limits';
import {
  callsQuery,
  definitionQuery,
  enrichRows,
  implementationsQuery,
  referencesQuery,
  typeHierarchyQuery,
  type AmbiguousAnswer,
  type NavMeta,
  type NavRow,
  type CallEdge,
} from '../../nav/semanticQueries';
import type { TargetInput } from '../../nav/semanticTarget';
import { batchEntrySchema, checkBatch, entryText, fitEntries, isBatchEntry, runBatch, type BatchEntry } from '../batch';
import { budgetArg, pagingArgs, pathArg } from '../schemas';
import { defineTool, type ToolEnv, type ToolResult } from '../tool';

export const targetSchema = z
  .strictObject({
    symbolId: z
      .string()
      .min(1)
      .max(2048)
      .optional(),
    path: pathArg.optional(),
    line: z.number().int().min(1).optional().meta({ published: { type: 'integer' } }),
    column: z.number().int().min(1).optional().meta({ published: { type: 'integer' } }),
    qualifiedName: z.string().min(1).max(2048).optional(),
  })
  .superRefine((t, ctx) => {
    const forms = [
      t.symbolId !== undefined && 'symbolId',
      (t.path !== undefined || t.line !== undefined || t.column !== undefined) && 'path/line/column',
      t.qualifiedName !== undefined && 'qualifiedName',
    ].filter(Boolean);
    if (forms.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: forms.length === 0 ? 'give exactly one of {symbolId} (a row\'s target_ref), {path, line, column?} or {qualifiedName}' : `the target holds ${forms.join(' and ')}; give exactly one form`,
      });
      return;
    }
    if (forms[0] === 'path/line/column' && (t.path === undefined || t.line === undefined)) ctx.addIssue({ code: 'custom', message: 'a position target needs path and line (column optional)' });
  })
  // Published as the forms in one line (the five properties spelled out cost ~150 B on each of seven tools).
  .describe('{symbolId}|{path,line,column?}|{qualifiedName}|a row\'s target_ref')
  .meta({ published: { type: 'object' } });

type TargetArg = z.infer<typeof targetSchema>;

/** Batch form (issue 13): several targets in one call, one budget; published as a plain array of the target forms. */
const targetsArg = z.array(targetSchema).min(1).max(200).optional().meta({ published: { type: 'array' } });

/** The one target of a call, or the batch's targets; exactly one of the two. */
function oneOrBatch(args: { target?: TargetArg | undefined; targets?: TargetArg[] | undefined }): TargetArg[] | undefined {
  if (args.targets) {
    checkBatch(args.targets.length, 'targets', args.target !== undefined);
    return args.targets;
  }
  if (args.target === undefined) throw new ToolError('INVALID_ARGUMENT', 'No target given', 'pass target (one symbol) or targets (a batch)');
  return undefined;
}

function targetLabel(t: TargetArg): string {
  return t.symbolId ?? t.qualifiedName ?? (t.path !== undefined ? `${t.path}:${t.line}${t.column !== undefined ? `:${t.column}` : ''}` : 'target');
}

function ambiguousError(a: AmbiguousAnswer): string {
  const n = a.target_selection.candidates?.length ?? 0;
  return new ToolError('AMBIGUOUS_TARGET', `The target is ambiguous: ${n} candidates (${a.target_selection.note ?? 'equal rank'})`, 'ask this target alone to get its candidates, then pass one candidate\'s {symbolId}').render();
}

/** A batch answer: one item per entry (all entries of the page), fitted into one byte budget. */
function batchResult(tool: string, entries: BatchEntry[], p: { offset: number; limit: number; maxBytes: number }): ToolResult {
  const failed = entries.filter((e) => e.error);
  const page = fitEntries(entries.slice(p.offset, p.offset + p.limit), p.maxBytes);
  return {
    summary: `${tool} of ${entries.length} target${entries.length === 1 ? '' : 's'}: ${entries.length - failed.length} answered, ${failed.length} failed${failed.length ? ` (entries ${failed.map((e) => e.entry).join(', ')})` : ''}.`,
    items: page,
    total: entries.length,
    offset: p.offset,
  };
}

function modeNoteOf(m: NavMeta): string | undefined {
  const n = modeNote(m).trim();
  return n || undefined;
}

export function toTarget(t: TargetArg): TargetInput {
  if (t.symbolId !== undefined) return { symbolId: t.symbolId };
  if (t.qualifiedName !== undefined) return { qualifiedName: t.qualifiedName };
  return t.column !== undefined ? { path: t.path!, line: t.line!, column: t.column } : { path: t.path!, line: t.line! };
}

export const waitArg = {
  waitMs: z.number().int().min(0).max(TOOL_DEADLINE_MS).optional().meta({ published: { type: 'integer' } }),
};

/** A row's target_ref is a target itself: the symbol id of the declaration at the row (a row without one is targeted by its path/line/column). */
export const targetRefSchema = z.object({ symbolId: z.string() });

const rowSchema = z.object({
  path: z.string(),
  line: z.number(),
  column: z.number(),
  endLine: z.number(),
  endColumn: z.number(),
  project: z.string().optional(),
  isTest: z.boolean().optional().describe('In a references group: said by the group'),
  isGenerated: z.boolean().optional().describe('In a references group: only when true'),
  confidence: z.enum(['exact', 'partial', 'heuristic', 'stale', 'unbound']).describe('unbound: the compiler could not bind this mention (see blocked_by)'),
  blocked_by: z.string().optional().describe('Unresolved type that kept an unbound row from binding'),
  role: z.enum(['declaration', 'reference', 'related']).optional(),
  name: z.string().optional(),
  kind: z.string().optional(),
  signature: z.string().optional(),
  container: z.string().optional(),
  snippet: z.string().optional(),
  external: z.boolean().optional(),
  target_ref: targetRefSchema.optional(),
  generator: z.string().optional().describe('Generated document (generated: path): its source generator'),
  assembly: z.string().optional().describe('Framework/package declaration (decompiled: path): assembly, package, doc summary'),
  package: z.string().optional(),
  summary: z.string().optional(),
});

export const selectionSchema = z.object({
  status: z.enum(['resolved', 'ambiguous']),
  via: z.string(),
  note: z.string().optional(),
  symbol: z.object({ symbolId: z.string(), name: z.string(), kind: z.string(), qualifiedName: z.string(), signature: z.string() }).optional(),
  candidates: z.array(z.object({ symbolId: z.string(), name: z.string(), kind: z.string(), qualifiedName: z.string(), signature: z.string(), path: z.string(), line: z.number(), column: z.number() })).optional(),
});

const metaExtra = {
  target_selection: selectionSchema,
  provider: z.string().optional().describe('editor | lsp | heuristic'),
  reason: z.string().optional().describe('Why the answer is not precise'),
  gaps: z.array(z.string()).optional().describe('Known coverage gaps of a precise answer'),
  notes: z.array(z.string()).optional().describe('Facts about the answer that do not make it partial'),
};

const rowText = (r: NavRow): string =>
  `${r.path}:${r.line}:${r.column}${r.role && r.role !== 'reference' ? ` (${r.role})` : ''}${r.name ? ` ${r.kind ?? ''} ${r.name}` : ''} [${r.confidence}${r.isTest ? ', test' : ''}]${r.snippet ? ` — ${r.snippet}` : ''}`;

function metaFields(m: NavMeta): Record<string, unknown> {
  const out: Record<string, unknown> = { target_selection: m.target_selection };
  if (m.provider) out.provider = m.provider;
  if (m.reason) out.reason = m.reason;
  if (m.gaps.length) out.gaps = m.gaps;
  if (m.notes?.length) out.notes = m.notes;
  return out;
}

function modeNote(m: NavMeta): string {
  if (m.mode === 'precise') return '';
  if (m.mode === 'precise_partial') return ` Precise but partial: ${m.gaps[0] ?? 'coverage is incomplete'}.`;
  if (m.mode === 'heuristic_no_precise') return ` Heuristic (name matching, not exact): ${m.reason ?? 'no precise provider'}.`;
  return ` No precise answer: ${m.reason ?? 'no provider'}.`;
}

export function ambiguous(a: AmbiguousAnswer): ToolResult {
  const n = a.target_selection.candidates?.length ?? 0;
  return {
    summary: `The target is ambiguous: ${n} candidates (${a.target_selection.note ?? 'equal rank'}). Pass one candidate's {symbolId} as target.`,
    items: [],
    total: 0,
    extra: { target_selection: a.target_selection },
  };
}

function page<T>(all: T[], p: { offset: number; limit: number }): { items: T[]; total: number; offset: number } {
  return { items: all.slice(p.offset, p.offset + p.limit), total: all.length, offset: p.offset };
}

export const definitionTool = defineTool({
  name: 'definition',
  title: 'Go to definition',
  description:
    'Where a symbol is declared (every part of a partial type): span, signature, container, project. Compiler-precise, else labelled heuristic.',
  input: z.strictObject({ target: targetSchema.optional(), targets: targetsArg, ...waitArg, ...budgetArg }),
  // A batch (targets) answers one item per target (batch.ts); its answer has no target_selection.
  item: z.union([rowSchema, batchEntrySchema]),
  extra: { ...metaExtra, target_selection: selectionSchema.optional() },
  paged: false,
  mode: true,
  row: (i: NavRow | BatchEntry) => (isBatchEntry(i) ? entryText(i, rowText as (r: never) => string) : rowText(i)),
  async handle(env, args, p) {
    const batch = oneOrBatch(args);
    const wait = args.waitMs !== undefined ? { waitForReadyMs: args.waitMs } : {};
    if (batch) {
      const entries = await runBatch(batch, env.deadlineAt, targetLabel, async (t) => {
        const a = await definitionQuery(env.engine, toTarget(t), { deadlineAt: env.deadlineAt, ...wait });
        if ('ambiguous' in a) return { error: ambiguousError(a) };
        const note = modeNoteOf(a);
        return { rows: a.rows, mode: a.mode, ...(note ? { note } : {}) };
      });
      return batchResult('definition', entries, { offset: 0, limit: entries.length, maxBytes: p.maxBytes });
    }
    const a = await definitionQuery(env.engine, toTarget(args.target!), { deadlineAt: env.deadlineAt, ...wait });
    if ('ambiguous' in a) return ambiguous(a);
    const first = a.rows[0];
    const what = a.target_selection.symbol?.name ?? a.name;
    const summary =
      a.total === 0
        ? `No definition found for ${what}.${modeNote(a)}`
        : `${what}: ${a.total} declaration span${a.total === 1 ? '' : 's'}${first?.project ? ` in ${first.project}` : ''}${a.total > a.rows.length ? ` (the first ${a.rows.length} listed)` : ''}.${modeNote(a)}`;
    return { summary, items: a.rows, total: a.total, ...(a.total > a.rows.length ? { truncated: 'limit' as const } : {}), mode: a.mode, extra: metaFields(a), ...(a.mode === 'precise_partial' ? { partial: a.gaps.join('; ') } : {}) };
  },
});

const groupSchema = z.object({
  group: z.string().describe('Project path, file path or role, by group_by'),
  isTest: z.literal(true).optional().describe('A test project or file (only when true)'),
  count: z.number().describe('References in the group; those beyond `locations` are not listed (narrow with project / group_by file)'),
  locations: z.array(rowSchema).optional().describe('A sample of the group, absent when none fits'),
});

/**
 * Locations listed per group: at most `cap` each and `allowance` in all, filled level by level in
 * group order (every group one before any gets two).
 */
export function spreadLocations(counts: number[], cap: number, allowance: number): number[] {
  const out = counts.map(() => 0);
  let left = allowance;
  for (let level = 1; level <= cap && left > 0; level++) {
    let grew = false;
    for (let i = 0; i < counts.length && left > 0; i++) {
      if (counts[i]! >= level) {
        out[i] = level;
        left--;
        grew = true;
      }
    }
    if (!grew) break;
  }
  return out;
}

type GroupBy = 'project' | 'file' | 'kind';
type ReferenceGroup = { group: string; count: number; locations?: NavRow[] };

function referenceRowText(i: NavRow | ReferenceGroup): string {
  if (!('group' in i)) return rowText(i);
  const shown = i.locations ?? [];
  const more = i.count - shown.length;
  return `${i.group}: ${i.count}${shown.map((l) => `\n  - ${rowText(l)}`).join('')}${more ? `\n  - … ${more} more` : ''}`;
}

/** Reference rows grouped by `groupBy`: production groups first, then by size, then by key. */
function orderedGroups(rows: NavRow[], groupBy: GroupBy): [string, NavRow[]][] {
  const keyOf = (r: NavRow) => (groupBy === 'project' ? (r.project ?? '(no project)') : groupBy === 'file' ? r.path : (r.role ?? 'reference'));
  const groups = new Map<string, NavRow[]>();
  for (const r of rows) (groups.get(keyOf(r)) ?? groups.set(keyOf(r), []).get(keyOf(r))!).push(r);
  return [...groups.entries()].sort((x, y) => Number(x[1][0]!.isTest) - Number(y[1][0]!.isTest) || y[1].length - x[1].length || (x[0] < y[0] ? -1 : 1));
}

/** Group items with their listed locations, enriched in one pass (a declaration lookup per page, not per group). */
function groupItems(env: ToolEnv, groups: [string, NavRow[]][], listedOf: (group: string) => number, groupBy: GroupBy) {
  const shown = groups.map(([g, rows]) => rows.slice(0, listedOf(g)));
  const enriched = enrichRows(env.engine, shown.flat());
  let at = 0;
  return groups.map(([group, rows], i) => {
    // The group key is said once: not again on each location.
    const locations = enriched.slice(at, at + shown[i]!.length).map((l) => {
      // The group says the project and the test flag; generated is said only when true.
      const { project, isTest, isGenerated, ...rest } = l;
      const out: Partial<NavRow> = rest;
      if (!(groupBy === 'project' && project === group) && project !== undefined) out.project = project;
      if (groupBy === 'kind') out.isTest = isTest;
      if (isGenerated) out.isGenerated = true;
      return out;
    });
    at += shown[i]!.length;
    // Defaults left out: isTest only when true, no empty sample; what is not listed is count − locations.
    return {
      group,
      ...(groupBy !== 'kind' && rows[0]!.isTest ? { isTest: true as const } : {}),
      count: rows.length,
      ...(locations.length ? { locations } : {}),
    };
  });
}

export const referencesTool = defineTool({
  name: 'references',
  title: 'Find references',
  description:
    'Every reference to a symbol, before changing its behaviour: each project group with its count and locations. Uses via interface/base members: include_related.',
  input: z.strictObject({
    target: targetSchema.optional(),
    targets: targetsArg,
    group_by: z.enum(['project', 'file', 'kind', 'none']).optional(),
    scope: z.enum(['all', 'production', 'test']).optional(),
    project: z.string().max(MAX_PATH_CHARS).optional().describe('Glob, e.g. *.Tests'),
    include_definition: z.boolean().optional(),
    include_related: z.boolean().optional(),
    include_generated: z.boolean().optional(),
    per_group: z.number().int().min(1).max(50).optional().describe(`Default ${SEMANTIC_REFERENCES_PER_GROUP}`),
    ...waitArg,
    ...pagingArgs,
  }),
  // A batch (targets) answers one item per target: its groups as `rows`, `note` the counts (batch.ts).
  item: z.union([groupSchema, rowSchema, batchEntrySchema]),
  extra: {
    ...metaExtra,
    target_selection: selectionSchema.optional(),
    counts: z.object({ total: z.number(), projects: z.number(), productionProjects: z.number(), testProjects: z.number(), production: z.number(), test: z.number(), generated: z.number(), handwritten: z.number(), unbound: z.number().optional() }).optional(),
  },
  paged: true,
  mode: true,
  defaultLimit: SEMANTIC_REFERENCES_GROUPS_PER_PAGE,
  row: (i: NavRow | ReferenceGroup | BatchEntry) => (isBatchEntry(i) ? entryText(i, referenceRowText as (r: never) => string) : referenceRowText(i)),
  async handle(env, args, p) {
    const batch = oneOrBatch(args);
    const opts = {
      deadlineAt: env.deadlineAt,
      ...(args.waitMs !== undefined ? { waitForReadyMs: args.waitMs } : {}),
      ...(args.include_definition !== undefined ? { includeDefinition: args.include_definition } : {}),
      ...(args.include_related ? { includeRelated: true } : {}),
      ...(args.scope ? { scope: args.scope } : {}),
      ...(args.project ? { project: args.project } : {}),
      ...(args.include_generated !== undefined ? { includeGenerated: args.include_generated } : {}),
    };
    if (batch) {
      // Each target's groups (group_by; none: its locations), with BATCH_REFERENCES_LOCATIONS spread over them; kept for the cursor.
      const groupBy = args.group_by ?? 'project';
      const perGroup = args.per_group ?? SEMANTIC_REFERENCES_PER_GROUP;
      const entries = await env.once('referencesBatch', () =>
        runBatch(batch, env.deadlineAt, targetLabel, async (t) => {
          const a = await referencesQuery(env.engine, toTarget(t), opts);
          if ('ambiguous' in a) return { error: ambiguousError(a) };
          const c = a.counts;
          const note = `${c.total} reference${c.total === 1 ? '' : 's'} in ${c.projects} project${c.projects === 1 ? '' : 's'} (${c.productionProjects} production, ${c.testProjects} test)${c.unbound ? `; ${c.unbound} unbound` : ''}.${modeNote(a)}`;
          if (groupBy === 'none') return { rows: enrichRows(env.engine, a.rows.slice(0, BATCH_REFERENCES_LOCATIONS)), total: a.rows.length, mode: a.mode, note };
          const ordered = orderedGroups(a.rows, groupBy);
          const listed = spreadLocations(ordered.map(([, rows]) => rows.length), perGroup, args.per_group === undefined ? BATCH_REFERENCES_LOCATIONS : Infinity);
          const listedOf = new Map(ordered.map(([g], i) => [g, listed[i]!]));
          return { rows: groupItems(env, ordered, (g) => listedOf.get(g)!, groupBy), mode: a.mode, note };
        }),
      );
      return batchResult('references', entries, p);
    }
    // Computed once per answer and kept for its cursor: later pages never re-ask the provider.
    const a = await env.once('references', () => referencesQuery(env.engine, toTarget(args.target!), opts));
    if ('ambiguous' in a) return ambiguous(a);
    const c = a.counts;
    const what = a.target_selection.symbol?.name ?? a.name;
    const split = c.generated > 0 ? `; ${c.generated} in generated files` : '';
    const unbound = c.unbound ? `; ${c.unbound} of them unbound (mentions the compiler could not bind)` : '';
    const summary = `${c.total} reference${c.total === 1 ? '' : 's'} to ${what} across ${c.projects} project${c.projects === 1 ? '' : 's'} (${c.productionProjects} production, ${c.testProjects} test)${split}${unbound}.${modeNote(a)}`;
    const extra = { ...metaFields(a), counts: c };
    const partial = a.mode === 'precise_partial' ? { partial: a.gaps.join('; ') } : {};
    const groupBy = args.group_by ?? 'project';
    if (groupBy === 'none') {
      const pg = page(a.rows, p);
      // Only rows that can fit the byte budget are enriched (the server trims exactly, with a cursor).
      const fit = pg.items.slice(0, Math.max(1, Math.ceil(p.maxBytes / SEMANTIC_LOCATION_MIN_BYTES)));
      return { summary, items: enrichRows(env.engine, fit), total: pg.total, offset: pg.offset, mode: a.mode, extra, ...partial };
    }
    const perGroup = args.per_group ?? SEMANTIC_REFERENCES_PER_GROUP;
    const ordered = orderedGroups(a.rows, groupBy);
    // Locations listed per group: without per_group, SEMANTIC_REFERENCES_SPREAD_LOCATIONS are spread
    // over every group of the answer (each gets one before any gets two), so one answer shows every
    // group with its count; per_group is a maximum. From the whole answer, never the page: pages agree.
    const allowance = Math.max(0, Math.min(SEMANTIC_REFERENCES_SPREAD_LOCATIONS, SEMANTIC_REFERENCES_SPREAD_BYTES, SEMANTIC_GROUP_ROW_BYTES, SEMANTIC_LOCATION_ROW_BYTES, Math.floor((SEMANTIC_REFERENCES_SPREAD_BYTES - ordered.length * SEMANTIC_GROUP_ROW_BYTES) / SEMANTIC_LOCATION_ROW_BYTES)));
    const listed = spreadLocations(ordered.map(([, rows]) => rows.length), perGroup, args.per_group === undefined ? allowance : Infinity);
    const listedOf = new Map(ordered.map(([g], i) => [g, listed[i]!]));
    const pg = page(ordered, p);
    // Groups that can fit the byte budget (at least one; the server trims exactly and issues the
    // cursor): enriching locations the budget drops anyway costs file reads for nothing.
    const fitLocations = Math.max(perGroup, Math.ceil(p.maxBytes / SEMANTIC_LOCATION_MIN_BYTES));
    const fitting: typeof pg.items = [];
    let planned = 0;
    for (const g of pg.items) {
      if (fitting.length > 0 && planned >= fitLocations) break;
      fitting.push(g);
      planned += listedOf.get(g[0])!;
    }
    pg.items = fitting;
    const items = groupItems(env, pg.items, (g) => listedOf.get(g)!, groupBy);
    return { summary, items, total: pg.total, offset: pg.offset, mode: a.mode, extra, ...partial };
  },
});

export const implementationsTool = defineTool({
  name: 'implementations',
  title: 'Find implementations',
  description:
    'Implementors and derived types of an interface/abstract type, or implementing members and overrides of a member.',
  input: z.strictObject({ target: targetSchema, ...waitArg, ...pagingArgs }),
  item: rowSchema,
  extra: metaExtra,
  paged: true,
  mode: true,
  row: rowText,
  async handle(env, args, p) {
    const a = await env.once('implementations', () => implementationsQuery(env.engine, toTarget(args.target), { deadlineAt: env.deadlineAt, ...(args.waitMs !== undefined ? { waitForReadyMs: args.waitMs } : {}) }));
    if ('ambiguous' in a) return ambiguous(a);
    const what = a.target_selection.symbol?.name ?? a.name;
    const pg = page(a.rows, p);
    return {
      summary: `${a.rows.length} implementation${a.rows.length === 1 ? '' : 's'} of ${what}.${modeNote(a)}`,
      items: pg.items,
      total: pg.total,
      offset: pg.offset,
      mode: a.mode,
      extra: metaFields(a),
      ...(a.mode === 'precise_partial' ? { partial: a.gaps.join('; ') } : {}),
    };
  },
});

const edgeSchema = z.object({
  depth: z.number(),
  caller: rowSchema,
  callee: rowSchema,
  sites: z.array(z.object({ line: z.number(), column: z.number() })).describe("Call sites in the caller's file"),
  confidence: z.enum(['exact', 'partial', 'heuristic', 'stale', 'unbound']),
  via: z.enum(['implementation', 'override']).optional().describe('The calls bind to an implementation/override of the target: binds_to'),
  binds_to: z.string().optional(),
  kind: z.literal('reference').optional().describe('A method-group use, not a call'),
  blocked_by: z.string().optional(),
});

function callTool(direction: 'incoming' | 'outgoing') {
  const name = direction === 'incoming' ? 'callers' : 'callees';
  return defineTool({
    name,
    title: direction === 'incoming' ? 'Callers' : 'Callees',
    description:
      direction === 'incoming'
        ? 'Who calls a method, depth-bounded. availability=unavailable means unknown, not "no callers"; calls via interface/base members may be missing (precise_partial).'
        : 'What a method calls, depth-bounded. Edges are provisional: confirm with references or source_context.',
    input: z.strictObject({
      target: targetSchema,
      depth: z.number().int().min(1).max(SEMANTIC_CALLS_MAX_DEPTH).optional(),
      ...waitArg,
      ...pagingArgs,
    }),
    item: edgeSchema,
    extra: {
      ...metaExtra,
      availability: z.enum(['available', 'partial', 'heuristic', 'unavailable']).optional().describe('Absent only when the target is ambiguous (see target_selection)'),
      trust: z.enum(['exact', 'provisional']).optional(),
      root: rowSchema.optional(),
    },
    paged: true,
    mode: true,
    row: (e: CallEdge) =>
      `${e.caller.name ?? e.caller.path} → ${e.callee.name ?? e.callee.path} (${e.caller.path}:${e.sites.map((s) => s.line).join(',')}; depth ${e.depth}, ${e.confidence}${e.via ? `, via ${e.via} ${e.binds_to ?? ''}` : ''}${e.kind ? `, ${e.kind}` : ''}${e.blocked_by ? `, blocked by ${e.blocked_by}` : ''})`,
    async handle(env, args, p) {
      const a = await env.once('calls', () =>
        callsQuery(env.engine, toTarget(args.target), direction, args.depth ?? 1, SEMANTIC_CALLS_MAX_EDGES, {
          deadlineAt: env.deadlineAt,
          ...(args.waitMs !== undefined ? { waitForReadyMs: args.waitMs } : {}),
        }),
      );
      if ('ambiguous' in a) return ambiguous(a);
      const what = a.target_selection.symbol?.name ?? a.root?.name ?? a.name;
      const pg = page(a.edges, p);
      const extra: Record<string, unknown> = { ...metaFields(a), availability: a.availability };
      if (direction === 'outgoing') extra.trust = 'provisional';
      if (a.root) extra.root = a.root;
      const noun = direction === 'incoming' ? 'caller edge' : 'callee edge';
      const summary =
        a.availability === 'unavailable'
          ? `Call hierarchy unavailable for ${what}: ${a.reason ?? 'no provider'} (this is not "no calls").`
          : `${a.edges.length} ${noun}${a.edges.length === 1 ? '' : 's'} for ${what} (depth ≤ ${args.depth ?? 1})${edgeKinds(a.edges)}.${modeNote(a)}`;
      return {
        summary,
        items: pg.items,
        total: pg.total,
        offset: pg.offset,
        mode: a.mode,
        extra,
        ...(a.truncated === 'deadline' ? { truncated: 'deadline' as const } : a.truncated === 'cap' ? { truncated: 'cap' as const } : {}),
        ...(a.mode === 'precise_partial' ? { partial: a.gaps.join('; ') } : {}),
      };
    },
  });
}

export const callersTool = callTool('incoming');
export const calleesTool = callTool('outgoing');

export const typeHierarchyTool = defineTool({
  name: 'type_hierarchy',
  title: 'Type hierarchy',
  description: 'Supertypes (base, interfaces) and subtypes (derived, implementors) of a type, depth-bounded.',
  input: z.strictObject({
    target: targetSchema,
    direction: z.enum(['supertypes', 'subtypes', 'both']).optional(),
    depth: z.number().int().min(1).max(SEMANTIC_TYPE_HIERARCHY_MAX_DEPTH).optional().describe('Default 2'),
    ...waitArg,
    ...pagingArgs,
  }),
  item: rowSchema.extend({
    relation: z.enum(['self', 'supertype', 'subtype']),
    depth: z.number(),
    via: z.string().optional(),
    partials: z.array(z.object({ path: z.string(), line: z.number(), column: z.number() })).optional(),
  }),
  extra: { ...metaExtra, availability: z.enum(['available', 'partial', 'heuristic', 'unavailable']).optional().describe('Absent only when the target is ambiguous (see target_selection)') },
  paged: true,
  mode: true,
  row: (n: NavRow & { relation: string; depth: number; via?: string }) => `${n.relation}${n.depth ? ` (depth ${n.depth}${n.via ? ` via ${n.via}` : ''})` : ''}: ${n.kind ?? ''} ${n.name ?? ''} ${n.path}:${n.line} [${n.confidence}]`,
  async handle(env, args, p) {
    const a = await env.once('typeHierarchy', () =>
      typeHierarchyQuery(env.engine, toTarget(args.target), args.direction ?? 'both', args.depth ?? 2, SEMANTIC_TYPE_HIERARCHY_MAX_NODES, {
        deadlineAt: env.deadlineAt,
        ...(args.waitMs !== undefined ? { waitForReadyMs: args.waitMs } : {}),
      }),
    );
    if ('ambiguous' in a) return ambiguous(a);
    const self = a.nodes.find((n) => n.relation === 'self');
    const sup = a.nodes.filter((n) => n.relation === 'supertype').length;
    const sub = a.nodes.filter((n) => n.relation === 'subtype').length;
    const pg = page(a.nodes, p);
    return {
      summary:
        a.availability === 'unavailable'
          ? `Type hierarchy unavailable: ${a.reason ?? 'no provider'}.`
          : `${self?.name ?? a.name}: ${sup} supertype${sup === 1 ? '' : 's'}, ${sub} subtype${sub === 1 ? '' : 's'}.${modeNote(a)}`,
      items: pg.items,
      total: pg.total,
      offset: pg.offset,
      mode: a.mode,
      extra: { ...metaFields(a), availability: a.availability },
      ...(a.truncated ? { truncated: a.truncated } : {}),
    };
  },
});

export const SEMANTIC_TOOLS = [definitionTool, referencesTool, implementationsTool, callersTool, calleesTool, typeHierarchyTool];

/** What kinds of edges a callers answer holds besides plain calls, counted ("" when none). */
function edgeKinds(edges: readonly CallEdge[]): string {
  const down = edges.filter((e) => e.via).length;
  const refs = edges.filter((e) => e.kind === 'reference').length;
  const unbound = edges.filter((e) => e.confidence === 'unbound').length;
  const parts = [...(down ? [`${down} through an implementation or override`] : []), ...(refs ? [`${refs} method-group reference${refs === 1 ? '' : 's'}`] : []), ...(unbound ? [`${unbound} unbound (the compiler could not bind them)`] : [])];
  return parts.length ? `; ${parts.join(', ')}` : '';
}
