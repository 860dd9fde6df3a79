/**
 * context_pack and locate_code (issue 12 part 2): agent-level answers composed from the navigation
 * layers. context_pack's budget is applied here, deterministically: rows are taken in FILL_ORDER
 * (definition, must-include paths, callers, tests, implementations, config, wider references), each
 * category up to the task's quota, and a row is taken only when the whole answer (text and JSON,
 * measured by the same buildAnswer the server uses) stays within maxBytes / maxTokens and the row
 * and file counts within maxSnippets / maxFiles; a category stops at its first row that does not
 * fit, and what was left is counted per category in `omittedBecauseBudget` — apart from `partial`
 * (coverage missing). locate_code's refinement is parameters of the same tool (`locator` +
 * `choice`), not a second tool: one definition in tools/list instead of two.
 */
import { z } from 'zod';
import { ToolError } from '../../core/errors';
import {
  CONTEXT_PACK_BYTES_PER_TOKEN,
  CONTEXT_PACK_MARGIN_BYTES,
  CONTEXT_PACK_MAX_PATH_FILTERS,
  LOCATE_MAX_HINT_CHARS,
  LOCATE_MAX_HINTS,
  LOCATE_MAX_QUESTION_CHARS,
  MAX_PATH_CHARS,
  MAX_RESPONSE_BYTES,
} from '../../core/limits';
import { FILL_ORDER, gatherContext, TASK_QUOTAS, type PackCategory, type PackGather, type PackRow, type PackTask } from '../../nav/agent/contextPack';
import { locateCode, type LocateAnswer, type LocateCandidate } from '../../nav/agent/locate';
import { buildAnswer, bytesOf } from '../answer';
import { pagingArgs } from '../schemas';
import { defineTool, type ToolResult } from '../tool';
import { targetSchema, toTarget } from './semantic';

const int = (min: number, max: number) => z.number().int().min(min).max(max).optional().meta({ published: { type: 'integer' } });
const paths = z.array(z.string().min(1).max(MAX_PATH_CHARS)).max(CONTEXT_PACK_MAX_PATH_FILTERS, `at most ${CONTEXT_PACK_MAX_PATH_FILTERS} paths`).optional().meta({ published: { type: 'array' } });

const packRowSchema = z.object({
  cat: z.enum(['definition', 'included', 'caller', 'test', 'implementation', 'config', 'reference']),
  path: z.string(),
  line: z.number(),
  endLine: z.number().optional(),
  name: z.string().optional(),
  project: z.string().optional(),
  reason: z.string(),
  snippet: z.string().optional(),
  source: z.string().optional(),
  confidence: z.string().optional(),
  run: z.string().optional(),
})
  // Published loose (the 700-byte output schema budget); answers validate against the full shape in tests.
  .meta({ published: { type: 'object', required: ['cat', 'path', 'line', 'reason'] } });

const counts = z.record(z.string(), z.number());

export const contextPackTool = defineTool({
  name: 'context_pack',
  title: 'Context pack',
  description:
    'Definition, callers, tests, config, risks of a symbol in one budget {maxBytes,maxTokens,maxFiles,maxSnippets}; paths: globs, !x excludes.',
  input: z.strictObject({
    // Published bare: the target forms are those of definition (described there).
    target: targetSchema.meta({ published: { type: 'object' }, description: undefined }),
    budget: z
      .strictObject({ maxBytes: pagingArgs.maxBytes, maxTokens: int(100, MAX_RESPONSE_BYTES), maxFiles: int(1, 100), maxSnippets: int(1, 100) })
      .optional()
      .meta({ published: { type: 'object' } }),
    task: z.enum(['investigate_bug', 'rename', 'add_feature', 'review', 'explore']).optional(),
    // must_include_paths and exclude_paths of the issue as one list (`!` excludes): the 450-byte definition budget.
    paths,
  }),
  item: packRowSchema,
  extra: {
    task: z.string(),
    risks: z.array(z.string()).meta({ published: { type: 'array' } }),
    found: counts.optional(),
    omittedBecauseBudget: counts.optional(),
    target_selection: z.object({}).passthrough().optional(),
  },
  paged: false,
  mode: true,
  maxBytesOf: (a: { budget?: { maxBytes?: number } }) => a.budget?.maxBytes,
  row: (r: PackRow) =>
    `[${r.cat}] ${r.path}:${r.line}${r.endLine && r.endLine !== r.line ? `-${r.endLine}` : ''}${r.name ? ` ${r.name}` : ''} — ${r.reason}${r.confidence ? ` [${r.confidence}]` : ''}${r.run ? ` (run: ${r.run})` : ''}${r.source !== undefined ? `\n${r.source}` : r.snippet ? ` | ${r.snippet}` : ''}`,
  async handle(env, args, page) {
    const task: PackTask = args.task ?? 'explore';
    const g = await gatherContext(env.engine, toTarget(args.target), {
      task,
      mustInclude: (args.paths ?? []).filter((p) => !p.startsWith('!')),
      exclude: (args.paths ?? []).filter((p) => p.startsWith('!')).map((p) => p.slice(1)).filter(Boolean),
      deadlineAt: env.deadlineAt,
    });
    if (g.ambiguous) {
      const n = g.ambiguous.candidates?.length ?? 0;
      return { summary: `The target is ambiguous: ${n} candidates (${g.ambiguous.note ?? 'equal rank'}). Pass one candidate's {symbolId} as target.`, items: [], extra: { task, risks: [], target_selection: g.ambiguous } };
    }
    const bud = args.budget ?? {};
    const maxBytes = Math.min(page.maxBytes, bud.maxTokens !== undefined ? bud.maxTokens * CONTEXT_PACK_BYTES_PER_TOKEN : Infinity);
    const meta = env.engine.meta();
    const measure = (r: ToolResult) => {
      const a = buildAnswer(contextPackTool, r, meta, args, Number.MAX_SAFE_INTEGER);
      return Math.max(bytesOf(a.text), bytesOf(JSON.stringify(a.structured)));
    };
    return packContext(g, task, { maxBytes, maxFiles: bud.maxFiles ?? Infinity, maxSnippets: bud.maxSnippets ?? Infinity }, measure);
  },
});

export interface PackBudget {
  maxBytes: number;
  maxFiles: number;
  maxSnippets: number;
}

/** The deterministic budget algorithm (see the file comment). Exported for its unit test. */
export function packContext(g: PackGather, task: PackTask, b: PackBudget, measure: (r: ToolResult) => number): ToolResult {
  const quotas = TASK_QUOTAS[task];
  const limit = b.maxBytes - CONTEXT_PACK_MARGIN_BYTES;
  const chosen: PackRow[] = [];
  const omitted: Partial<Record<PackCategory, number>> = {};
  const result = (rows: PackRow[], om: Partial<Record<PackCategory, number>>): ToolResult => {
    const shown = new Map<string, number>();
    for (const r of rows) shown.set(r.cat, (shown.get(r.cat) ?? 0) + 1);
    const what = [...shown].filter(([c]) => c !== 'definition').map(([c, n]) => `${n} ${c}${n === 1 ? '' : 's'}`).join(', ');
    const exposed = g.exposedVia.length ? `used from ${g.exposedVia.join(', ')}` : 'not used from other projects';
    const summary = `${g.name}${g.kind ? ` (${g.kind})` : ''}${g.owner ? ` is owned by ${g.owner}` : ''}, ${exposed}. Pack for ${task}: definition${what ? `, ${what}` : ''}.`;
    const extra: Record<string, unknown> = { task, risks: g.risks };
    if (Object.keys(g.found).length) extra.found = g.found;
    if (Object.keys(om).length) extra.omittedBecauseBudget = om;
    if (g.selection?.note) extra.target_selection = g.selection;
    return { summary, items: rows, mode: g.mode, extra, ...(g.partial.length || g.testSource ? { partial: [...g.partial, ...(g.testSource ? [`tests: ${g.testSource}`] : [])].join('; ') } : {}) };
  };
  // Everything a category could add, for the omitted counts of a bare pack.
  const available = (c: PackCategory) => (c === 'definition' || c === 'included' ? g.rows[c].length : Math.min(g.rows[c].length, quotas[c]));
  const restOmitted = (from: number): Partial<Record<PackCategory, number>> => {
    const om: Partial<Record<PackCategory, number>> = { ...omitted };
    for (const c of FILL_ORDER.slice(from)) if (available(c)) om[c] = (om[c] ?? 0) + available(c);
    return om;
  };
  const files = new Set<string>();
  const fitsCounts = (r: PackRow) => chosen.length + 1 <= b.maxSnippets && (files.has(r.path) || files.size + 1 <= b.maxFiles);
  const take = (r: PackRow) => {
    chosen.push(r);
    files.add(r.path);
  };

  const primary = g.rows.definition[0];
  if (!primary) {
    return { ...result([], {}), summary: `No definition found for ${g.name || 'the target'}.` };
  }
  // The definition: with as much of its source as fits (lines cut from the end), else bare.
  const om0 = restOmitted(1);
  const defRest = g.rows.definition.length - 1;
  if (defRest) om0.definition = defRest;
  const withSource = (n: number): PackRow => {
    if (primary.source === undefined) return primary;
    const lines = primary.source.split('\n');
    if (n >= lines.length) return primary;
    const { source: _s, ...bareRow } = primary;
    return n <= 0 ? { ...bareRow, reason: `${primary.reason} (source left out for budget)` } : { ...bareRow, source: lines.slice(0, n).join('\n'), reason: `${primary.reason} (source: first ${n} lines for budget)` };
  };
  const total = primary.source === undefined ? 0 : primary.source.split('\n').length;
  const bareSize = measure(result([withSource(0)], om0));
  if (bareSize > limit) {
    const need = bareSize + CONTEXT_PACK_MARGIN_BYTES;
    throw new ToolError(
      'BUDGET_TOO_SMALL',
      `The smallest context pack (the definition row without source, every other row omitted) needs ${need} bytes; the budget allows ${b.maxBytes}`,
      `re-ask with maxBytes ${need} or more${need / CONTEXT_PACK_BYTES_PER_TOKEN > 0 ? ` (maxTokens ${Math.ceil(need / CONTEXT_PACK_BYTES_PER_TOKEN)} or more)` : ''}`,
      { needBytes: need },
    );
  }
  let lo = 0;
  let hi = total;
  if (measure(result([withSource(total)], om0)) <= limit) lo = total;
  else {
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (measure(result([withSource(mid)], om0)) <= limit) lo = mid;
      else hi = mid - 1;
    }
  }
  take(withSource(lo));

  FILL_ORDER.forEach((c, ci) => {
    if (ci === 0 && defRest === 0) return;
    const list = c === 'definition' ? g.rows.definition.slice(1) : c === 'included' ? g.rows.included : g.rows[c].slice(0, quotas[c]);
    for (let i = 0; i < list.length; i++) {
      const r = list[i]!;
      const ok = fitsCounts(r) && measure(result([...chosen, r], restOmitted(ci + 1))) <= limit;
      if (!ok) {
        omitted[c] = (omitted[c] ?? 0) + (list.length - i);
        break;
      }
      take(r);
    }
  });
  return result(chosen, omitted);
}

// ─── locate_code ───────────────────────────────────────────────────────────────

const candidateSchema = z
  .object({ name: z.string(), kind: z.string(), path: z.string(), line: z.number(), endLine: z.number(), layer: z.string().optional(), why: z.string() })
  .meta({ published: { type: 'object', required: ['name', 'path', 'line', 'endLine'] } });

export const locateCodeTool = defineTool({
  name: 'locate_code',
  title: 'Locate code',
  description:
    'Where is the code that does X: ≤3 candidates, 2 line ranges to read (no source). Refine: locator+choice (candidate number, layer or clue).',
  input: z
    .strictObject({
      question: z.string().min(1).max(LOCATE_MAX_QUESTION_CHARS).optional(),
      hints: z
        .array(z.string().min(1).max(LOCATE_MAX_HINT_CHARS))
        .max(LOCATE_MAX_HINTS, `at most ${LOCATE_MAX_HINTS} hints (symbol names or paths); more is a search, not a hint`)
        .optional()
        .meta({ published: { type: 'array' } }),
      locator: z.string().max(8192).optional(),
      choice: z.string().min(1).max(LOCATE_MAX_HINT_CHARS).optional(),
    })
    .superRefine((a, ctx) => {
      if ((a.question === undefined) === (a.locator === undefined)) ctx.addIssue({ code: 'custom', message: 'give a question, or a locator (with a choice) to refine' });
      if (a.choice !== undefined && a.locator === undefined) ctx.addIssue({ code: 'custom', message: 'choice refines a locator: pass the locator too' });
      if (a.locator !== undefined && a.hints !== undefined) ctx.addIssue({ code: 'custom', message: 'a refinement takes one choice, not hints' });
    }),
  item: candidateSchema,
  extra: {
    status: z.enum(['located', 'ambiguous', 'insufficient_coverage', 'needs_user_input', 'not_indexed', 'stale_index']),
    reads: z.array(z.object({ path: z.string(), startLine: z.number(), endLine: z.number() })),
    scopes: z.array(z.object({ layer: z.string(), matched: z.array(z.string()) })),
    choices: z.array(z.string()).optional().meta({ published: { type: 'array' } }),
    progress: z.enum(['new', 'unchanged']).optional(),
    locator: z.string().optional(),
    next: z.string(),
    verified: z.string().optional(),
    note: z.string().optional(),
  },
  paged: false,
  row: (c: LocateCandidate) => `${c.path}:${c.line}-${c.endLine} ${c.kind} ${c.name}${c.layer ? ` [${c.layer}]` : ''} — ${c.why}`,
  async handle(env, args) {
    const a: LocateAnswer = await locateCode(env.engine, { question: args.question, hints: args.hints, locator: args.locator, choice: args.choice, deadlineAt: env.deadlineAt });
    const items = a.candidates.map((c) => ({ name: c.name, kind: c.kind, path: c.path, line: c.line, endLine: c.endLine, ...(c.layer ? { layer: c.layer } : {}), why: c.why }));
    const extra: Record<string, unknown> = { status: a.status, reads: a.reads, scopes: a.scopes, next: a.next };
    for (const k of ['choices', 'progress', 'locator', 'verified', 'note'] as const) if (a[k] !== undefined) extra[k] = a[k];
    const where = a.candidates[0] ? ` ${a.candidates[0].name} at ${a.candidates[0].path}:${a.candidates[0].line}` : '';
    const summary = `${a.status}${a.progress === 'unchanged' ? ' (refinement changed nothing)' : ''}:${where || ' no candidate'}${a.candidates.length > 1 ? ` (+${a.candidates.length - 1} more)` : ''}.`;
    return { summary, items, extra };
  },
});

export const CONTEXT_TOOLS = [contextPackTool, locateCodeTool];
