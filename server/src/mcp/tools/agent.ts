/**
 * related_tests and impact: agent-level answers composed from the navigation layers
 * (nav/agent/). Each says what its evidence rests on: related_tests a `signals` line per source and
 * a confidence per row; impact an `execution`, `mode` and completeness per section.
 */
import { z } from 'zod';
import { RELATED_TESTS_DEFAULT_LIMIT, RELATED_TESTS_MAX_CALLER_DEPTH } from '../../core/limits';
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
  target_ref: z.object({ kind: z.string() }).loose(),
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

export const AGENT_TOOLS = [relatedTestsTool];
