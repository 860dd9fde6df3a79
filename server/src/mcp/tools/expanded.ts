/** Issue 13 part 1: recent_changes (xml_doc, generated_for follow). */
import { z } from 'zod';
import { MAX_PATH_CHARS } from '../../core/limits';
import { recentChanges, type ChangedFile } from '../../nav/expanded/recentChanges';
import { pagingArgs } from '../schemas';
import { defineTool } from '../tool';

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
    'Changed files and the declarations each hunk touches: working tree (staged, unstaged, untracked) plus commits since a ref or date; by project, production first.',
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
  }),
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

export const EXPANDED_TOOLS = [recentChangesTool];
