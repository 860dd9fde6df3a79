/** search_text: the indexed text layer. */
import { z } from 'zod';
import { MAX_QUERY_CHARS } from '../../core/limits';
import { filesOfProject, projectsOfFile } from '../../nav/projects';
import { searchText, type TextHit } from '../../nav/textSearch';
import { fileClassEnum, pagingArgs } from '../schemas';
import { defineTool } from '../tool';

export const searchTextTool = defineTool({
  name: 'search_text',
  title: 'Search text',
  description:
    'Indexed text search (literal, word or regex), verified on disk: strings, config keys, log messages. Bytes are not symbols: for code facts use search_symbol/references.',
  input: z.strictObject({
    query: z.string().min(1).max(MAX_QUERY_CHARS),
    mode: z.enum(['literal', 'word', 'regex']).optional(),
    case: z.enum(['smart', 'sensitive', 'insensitive']).optional().describe('smart: capitals make it sensitive'),
    pathGlob: z.string().max(500).optional(),
    classes: z.array(fileClassEnum).max(7).optional(),
    project: z.string().min(1).max(MAX_QUERY_CHARS).optional(),
    count: z.boolean().optional().describe('Exact total (slower); default exact when cheap, else totalAtLeast'),
    ...pagingArgs,
  }),
  // Hits grouped by file: the path, class and projects once per file, defaults omitted (see present).
  item: z.object({
    path: z.string(),
    fileClass: fileClassEnum.exclude(['source']).optional().describe('Omitted: source'),
    changedSinceIndex: z.literal(true).optional().describe('The file changed since indexing (hits are from the live bytes)'),
    projects: z.array(z.string()).optional().describe('Projects that compile or contain the file'),
    hits: z.array(z.object({ line: z.number(), column: z.number(), endColumn: z.number(), preview: z.string() })),
  }),
  extra: {
    strategy: z.enum(['index', 'scan']).describe('index: token index + live verification; scan: bounded ripgrep pass'),
    filesWithHits: z.number().describe('Files with a match among those verified so far'),
    totalAtLeast: z.number().optional().describe('When the total is not exact: matches counted so far (pass count: true for the exact total)'),
    navigationLayer: z.literal('text'),
  },
  paged: true,
  present: (rows: Row[]) => groupByFile(rows),
  row: (g: FileGroup) => [g.path, ...g.hits.map((h) => `  ${h.line}:${h.column}  ${h.preview}`)].join('\n'),
  async handle(env, args, page) {
    const r = await searchText(env.engine, {
      query: args.query,
      mode: args.mode ?? 'literal',
      caseMode: args.case ?? 'smart',
      pathGlob: args.pathGlob,
      classes: args.classes,
      paths: args.project !== undefined ? filesOfProject(env.engine, args.project).paths : undefined,
      scopeKey: args.project,
      offset: page.offset,
      limit: page.limit,
      deadlineAt: env.deadlineAt,
      count: args.count,
    });
    const totalText = r.total !== undefined ? `${r.total}` : `at least ${r.totalAtLeast}`;
    const summary =
      r.totalAtLeast === 0 && r.total === 0
        ? `No match for '${args.query}' (${r.strategy === 'index' ? `${r.candidates ?? r.verifiedFiles} candidate files checked` : 'scanned'}).`
        : r.total !== undefined || r.strategy !== 'index'
          ? `${totalText} match${r.totalAtLeast === 1 ? '' : 'es'} in ${r.filesWithHits} file${r.filesWithHits === 1 ? '' : 's'} for '${args.query}'.`
          : `${totalText} matches for '${args.query}' in the first ${r.verifiedFiles} files read${r.candidates !== undefined ? ` of ${r.candidates} candidate files` : ''} (counting stopped once the page was full; pass count: true for the exact total).`;
    const projectsByPath = new Map<string, string[]>();
    const notes: string[] = [];
    if (r.changedSinceIndex > 0) notes.push(`${r.changedSinceIndex} file(s) with hits changed since indexing`);
    if (env.engine.meta().dirty > 0) notes.push(`${env.engine.meta().dirty} file(s) changed since indexing were checked live`);
    return {
      summary,
      items: r.hits.map((h): Row => {
        let projects = projectsByPath.get(h.path);
        if (!projects) projectsByPath.set(h.path, (projects = projectsOfFile(env.engine, h.path)));
        return projects.length ? { ...h, projects } : h;
      }),
      total: r.total,
      offset: page.offset,
      truncated: r.truncated,
      partial: r.truncated === 'deadline' ? 'the search stopped at its deadline; totals are lower bounds' : notes.length ? notes.join('; ') : undefined,
      extra: { strategy: r.strategy, filesWithHits: r.filesWithHits, ...(r.total === undefined ? { totalAtLeast: r.totalAtLeast } : {}), navigationLayer: 'text' as const },
    };
  },
});

/** One hit as the handler pages it (the paging unit: limit, offset and cursor count hits). */
type Row = TextHit & { projects?: string[] };

interface FileGroup {
  path: string;
  fileClass?: Exclude<TextHit['fileClass'], 'source'>;
  changedSinceIndex?: true;
  projects?: string[];
  hits: { line: number; column: number; endColumn: number; preview: string }[];
}

/**
 * A page's hits as file groups, in order: consecutive hits of one file make one group. A file
 * whose hits a page boundary cuts continues as a group of the same path on the next page, so the
 * groups' hits, pages concatenated, are the unpaged answer's hits.
 */
export function groupByFile(rows: readonly Row[]): FileGroup[] {
  const out: FileGroup[] = [];
  let g: FileGroup | undefined;
  for (const r of rows) {
    if (!g || g.path !== r.path) {
      g = {
        path: r.path,
        ...(r.fileClass !== 'source' ? { fileClass: r.fileClass } : {}),
        ...(r.changedSinceIndex ? { changedSinceIndex: true as const } : {}),
        ...(r.projects?.length ? { projects: r.projects } : {}),
        hits: [],
      };
      out.push(g);
    }
    g.hits.push({ line: r.line, column: r.column, endColumn: r.endColumn, preview: r.preview });
  }
  return out;
}
