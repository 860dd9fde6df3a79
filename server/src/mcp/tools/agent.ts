/**
 * related_tests and impact: agent-level answers composed from the navigation layers
 * (nav/agent/). Each says what its evidence rests on: related_tests a `signals` line per source and
 * a confidence per row; impact an `execution`, `mode` and completeness per section.
 */
import { z } from 'zod';
import { RELATED_TESTS_DEFAULT_LIMIT, RELATED_TESTS_MAX_CALLER_DEPTH } from '../../core/limits';
import { IMPACT_SECTIONS, impact, type ImpactSection } from '../../nav/agent/impact';
import { relatedTests, type RelatedTest } from '../../nav/agent/relatedTests';
import { pagingArgs } from '../schemas';
import { defineTool } from '../tool';
import { ambiguous, selectionSchema, targetSchema, toTarget } from './semantic';

const testRowSchema = z.object({
  name: z.string(),
  container: z.string().optional(),
  path: z.string(),
  line: z.number(),
  endLine: z.number(),
  project: z.string().optional(),
  framework: z.enum(['xunit', 'nunit', 'mstest', 'mocha', 'jest', 'vitest']).optional(),
  confidence: z.enum(['exact', 'likely', 'possible']),
  score: z.number(),
  reasons: z.array(z.string()),
  run: z.string().optional(),
  target_ref: z.object({ symbolId: z.string() }),
})
  // Published as its key fields only (the outputSchema budget); answers are checked against the whole shape in tests.
  .meta({ published: { type: 'object', properties: { name: { type: 'string' }, path: { type: 'string' }, line: { type: 'number' }, confidence: { type: 'string' }, reasons: { type: 'array' } }, required: ['name', 'path', 'line', 'confidence', 'reasons'] } });

const modeNote = (mode: string, reason?: string) =>
  mode === 'precise' ? '' : mode === 'precise_partial' ? ' References precise but partial.' : ` References ${mode === 'heuristic_no_precise' ? 'heuristic' : 'unavailable'}${reason ? ` (${reason})` : ''}: rows rest on names and text.`;

export const relatedTestsTool = defineTool({
  name: 'related_tests',
  title: 'Related tests',
  description: 'Test methods likely covering a symbol, ranked: reasons, confidence, command to run each.',
  input: z.strictObject({
    target: targetSchema,
    depth: z.number().int().min(1).max(RELATED_TESTS_MAX_CALLER_DEPTH).optional().meta({ published: { type: 'integer' } }),
    ...pagingArgs,
  }),
  item: testRowSchema,
  extra: {
    target_selection: selectionSchema,
    signals: z.record(z.string(), z.string()).optional(),
    provider: z.string().optional(),
    reason: z.string().optional(),
  },
  paged: true,
  mode: true,
  defaultLimit: RELATED_TESTS_DEFAULT_LIMIT,
  row: (r: RelatedTest) => `${r.container ? `${r.container}.` : ''}${r.name} ${r.path}:${r.line} [${r.confidence} ${r.score}] ${r.reasons.join('; ')}${r.run ? `\n    run: ${r.run}` : ''}`,
  async handle(env, args, p) {
    const a = await env.once('related_tests', () =>
      relatedTests(env.engine, toTarget(args.target), {
        deadlineAt: env.deadlineAt,
        ...(args.depth !== undefined ? { depth: args.depth } : {}),
      }),
    );
    if ('ambiguous' in a) return ambiguous(a);
    const exact = a.rows.filter((r) => r.confidence === 'exact').length;
    const files = new Set(a.rows.map((r) => r.path)).size;
    const summary = `${a.rows.length} test${a.rows.length === 1 ? '' : 's'} related to ${a.target_selection.symbol?.name ?? a.name} in ${files} file${files === 1 ? '' : 's'} (${exact} exact).${modeNote(a.mode, a.reason)}`;
    const extra: Record<string, unknown> = { target_selection: a.target_selection, signals: a.signals };
    if (a.provider) extra.provider = a.provider;
    if (a.reason) extra.reason = a.reason;
    return {
      summary,
      items: a.rows.slice(p.offset, p.offset + p.limit),
      total: a.rows.length,
      offset: p.offset,
      mode: a.mode,
      extra,
      // The cap is said on the last page only: a page cut by limit must keep its cursor.
      ...(a.truncated && p.offset + p.limit >= a.rows.length ? { truncated: a.truncated } : {}),
      ...(a.mode === 'precise_partial' ? { partial: a.gaps.join('; ') } : {}),
    };
  },
});

const sectionSchema = z
  .object({
    section: z.enum(IMPACT_SECTIONS),
    execution: z.enum(['included', 'omitted_by_policy', 'not_run_target_unresolved']),
    mode: z.enum(['precise', 'precise_partial', 'heuristic_no_precise', 'unavailable_no_precise']).optional(),
    trust: z.string().optional(),
    count: z.number().optional(),
    truncated: z.enum(['cap', 'deadline']).optional(),
    partial: z.string().optional(),
    why: z.string().optional(),
    drill: z.string().optional(),
    rows: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  // Published as its key fields only (the outputSchema budget); answers are checked against the whole shape in tests.
  .meta({ published: { type: 'object', properties: { section: { type: 'string' }, execution: { type: 'string' }, count: { type: 'number' }, rows: { type: 'array' } }, required: ['section', 'execution'] } });

const sectionText = (s: ImpactSection): string =>
  s.execution !== 'included'
    ? `${s.section}: ${s.execution}${s.why ? ` (${s.why})` : ''}`
    : `${s.section}: ${s.count ?? 0}${s.mode ? ` [${s.mode}]` : ''}${s.truncated ? ` (${s.truncated})` : ''}${s.partial ? ` partial: ${s.partial}` : ''}${(s.rows ?? []).map((r) => `\n    ${Object.entries(r).filter(([k]) => k !== 'target_ref').map(([k, v]) => `${k}=${Array.isArray(v) ? v.join(',') : String(v)}`).join(' ')}`).join('')}${s.drill ? `\n    more: ${s.drill}` : ''}`;

export const impactTool = defineTool({
  name: 'impact',
  title: 'Impact of a change',
  description: 'Blast radius of a change: references per project, callers, implementations, dependents, tests, public API, risks.',
  input: z.strictObject({
    target: targetSchema,
    change_kind: z.enum(['signature', 'behavior', 'rename', 'delete']),
  }),
  item: sectionSchema,
  extra: {
    target_selection: selectionSchema,
    target_ref: z.object({ symbolId: z.string() }).optional(),
    risks: z.array(z.object({ level: z.enum(['high', 'medium', 'low']), section: z.enum(IMPACT_SECTIONS), text: z.string() })).optional(),
  },
  // Seven sections of bounded rows: one answer (no cursor).
  paged: false,
  mode: true,
  row: sectionText,
  async handle(env, args) {
    const a = await env.once('impact', () => impact(env.engine, toTarget(args.target), args.change_kind, { deadlineAt: env.deadlineAt }));
    const items = a.sections;
    if ('ambiguous' in a) {
      const n = a.target_selection.candidates?.length ?? 0;
      return { summary: `The target is ambiguous: ${n} candidates (${a.target_selection.note ?? 'equal rank'}); no section ran. Pass one candidate's {symbolId} as target.`, items, total: a.sections.length, extra: { target_selection: a.target_selection } };
    }
    const high = a.risks.filter((r) => r.level === 'high');
    const inc = a.sections.filter((s) => s.execution === 'included');
    const n = (x: string) => a.sections.find((s) => s.section === x && s.execution === 'included')?.count;
    const facts = [['references', n('references')], ['callers', n('incoming_calls')], ['implementations', n('implementations')], ['dependent projects', n('dependent_projects')], ['tests', n('tests')]].filter(([, c]) => c !== undefined).map(([k, c]) => `${c} ${k}`);
    const summary = `Impact of a ${args.change_kind} change to ${a.name}: ${facts.join(', ')}; ${high.length} high risk${high.length === 1 ? '' : 's'}${high[0] ? ` (${high[0].text})` : ''}. ${inc.length} of ${a.sections.length} sections run.`;
    const extra: Record<string, unknown> = { target_selection: a.target_selection, risks: a.risks };
    if (a.target_ref) extra.target_ref = a.target_ref;
    const worst = inc.map((s) => s.mode).filter((m): m is NonNullable<typeof m> => m !== undefined).sort((x, y) => RANK[y] - RANK[x])[0];
    return { summary, items, total: a.sections.length, ...(worst ? { mode: worst } : {}), extra };
  },
});

const RANK = { precise: 0, precise_partial: 1, heuristic_no_precise: 2, unavailable_no_precise: 3 } as const;

export const AGENT_TOOLS = [relatedTestsTool, impactTool];
