/** file_dependencies: the workspace files a file loads or uses (TS/JS, C#), or the files that depend on it. */
import { z } from 'zod';
import { FILE_DEPS_MAX_DEPTH } from '../../core/limits';
import { fileDependencies, type DepRow } from '../../nav/fileDependencies';
import { pagingArgs, pathArg } from '../schemas';
import { defineTool } from '../tool';

const kindEnum = z.enum(['export', 'require', 'import_equals', 'dynamic']);

export const fileDependenciesTool = defineTool({
  name: 'file_dependencies',
  title: 'File dependencies',
  description: 'Files a TS/JS/C# file imports or uses; direction "dependents": files using it; depth: hops. Packages counted.',
  input: z.strictObject({
    path: pathArg,
    // The enum is said in the description; a wrong value is refused with the valid ones listed.
    direction: z.enum(['dependencies', 'dependents']).optional().meta({ published: { type: 'string' } }),
    depth: z.number().int().min(1).max(FILE_DEPS_MAX_DEPTH).optional().meta({ published: { type: 'integer' } }),
    typeOnly: z.boolean().optional(),
    ...pagingArgs,
  }),
  item: z.union([
    z.object({
      path: z.string(),
      line: z.number().describe('First referencing line, in the depending file'),
      kind: kindEnum.optional().describe('Left out for an ES import'),
      typeOnly: z.literal(true).optional(),
      depth: z.number().optional(),
      via: z.string().optional(),
      stale: z.literal(true).optional(),
      project: z.string().optional(),
      uses: z.array(z.string()).optional(),
    }),
    z.object({ spec: z.string(), reason: z.enum(['not_found', 'invalid', 'outside_workspace']), line: z.number(), kind: kindEnum.optional() }),
  ]),
  extra: {
    counts: z.object({ packages: z.number().optional(), builtins: z.number().optional(), computed: z.number().optional() }).optional(),
  },
  paged: true,
  mode: true,
  row: (i: DepRow) =>
    'spec' in i
      ? `unresolved '${i.spec}' (${i.reason}) L${i.line}${i.kind ? ` ${i.kind}` : ''}`
      : `${i.depth ? `[${i.depth}] ` : ''}${i.path}  L${i.line}${i.kind ? ` ${i.kind}` : ''}${i.typeOnly ? ' type-only' : ''}${i.via ? ` via ${i.via}` : ''}${i.project ? ` (${i.project})` : ''}${i.uses ? `: ${i.uses.join(', ')}` : ''}${i.stale ? ' [stale]' : ''}`,
  async handle(env, args, page) {
    const direction = args.direction ?? 'dependencies';
    // Kept for the cursor: a live parse or a provider answer is computed once per answer.
    const r = await env.once('file_dependencies', () =>
      fileDependencies(env.engine, { path: args.path, direction, depth: args.depth ?? 1, includeTypeOnly: args.typeOnly ?? true, deadlineAt: env.deadlineAt }),
    );
    const files = r.rows.filter((x) => !('spec' in x)).length;
    const unresolved = r.rows.length - files;
    const c = r.counts ?? {};
    const counted = [c.packages ? `${c.packages} package specifier(s)` : '', c.builtins ? `${c.builtins} built-in(s)` : '', c.computed ? `${c.computed} computed require/import` : ''].filter(Boolean);
    const what = direction === 'dependencies' ? 'file(s) it depends on' : 'file(s) depending on it';
    const summary = `${r.path}: ${files} ${what}${unresolved ? `, ${unresolved} unresolved` : ''}${counted.length ? `; counted, not listed: ${counted.join(', ')}` : ''}${r.notes.length ? `; ${r.notes.join('; ')}` : ''}.`;
    const extra: Record<string, unknown> = {};
    if (r.counts) extra.counts = r.counts;
    return {
      summary,
      items: r.rows.slice(page.offset, page.offset + page.limit),
      total: r.rows.length,
      offset: page.offset,
      truncated: r.capped && page.offset + page.limit >= r.rows.length ? 'cap' : undefined,
      partial: r.partial,
      ...(r.mode ? { mode: r.mode } : {}),
      extra,
    };
  },
});
