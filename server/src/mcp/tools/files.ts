/** find_file and source_context: paths, and bounded live reads of spans. */
import { z } from 'zod';
import { DEFAULT_CONTEXT_LINES, MAX_CONTEXT_LINES, MAX_QUERY_CHARS, MAX_SPANS_PER_CALL, DEFAULT_RESPONSE_BYTES } from '../../core/limits';
import { findFiles } from '../../nav/findFile';
import { filesOfProject, projectsOfFile } from '../../nav/projects';
import { readSpans, type SourceSlice } from '../../nav/sourceContext';
import { fileClassEnum, pagingArgs, pathArg } from '../schemas';
import { defineTool } from '../tool';

export const findFile = defineTool({
  name: 'find_file',
  title: 'Find file',
  description:
    'Files by name, path fragment or glob ("**/*.csproj"); source before tests and generated. For code symbols use search_symbol.',
  input: z.strictObject({
    query: z.string().min(1).max(MAX_QUERY_CHARS),
    classes: z.array(fileClassEnum).max(7).optional(),
    languages: z.array(z.string().max(40)).max(20).optional(),
    project: z.string().min(1).max(MAX_QUERY_CHARS).optional(),
    ...pagingArgs,
  }),
  item: z.object({ path: z.string(), fileClass: z.string(), language: z.string().optional(), lines: z.number(), size: z.number(), match: z.string(), projects: z.array(z.string()).optional().describe('Projects that compile or contain the file') }),
  paged: true,
  row: (i: { path: string; fileClass: string; lines: number; match: string }) => `${i.path} (${i.fileClass}, ${i.lines} lines, ${i.match})`,
  async handle(env, args, page) {
    const paths = args.project !== undefined ? filesOfProject(env.engine, args.project).paths : undefined;
    const r = findFiles(env.engine, { query: args.query, classes: args.classes, languages: args.languages, paths, offset: page.offset, limit: page.limit });
    const items = r.hits
      .map((h) => (h.language ? h : { ...h, language: undefined }))
      .map(({ language, ...rest }) => (language ? { ...rest, language } : rest))
      .map((h) => {
        const projects = projectsOfFile(env.engine, h.path);
        return projects.length ? { ...h, projects } : h;
      });
    return {
      summary: r.total === 0 ? `No indexed file matches '${args.query}'.` : `${r.total} file${r.total === 1 ? '' : 's'} match '${args.query}'.`,
      items,
      total: r.total,
      offset: page.offset,
    };
  },
});

const spanSchema = z.strictObject({
  path: pathArg,
  line: z.number().int().min(1),
  endLine: z.number().int().min(1).optional(),
});

export const sourceContext = defineTool({
  name: 'source_context',
  title: 'Source context',
  description:
    'Live source of line spans (from outline, hits, definitions) with context lines. Use instead of reading whole files.',
  input: z.strictObject({
    spans: z.array(spanSchema).min(1).max(MAX_SPANS_PER_CALL),
    contextLines: z.number().int().min(0).max(MAX_CONTEXT_LINES).optional(),
    maxBytes: pagingArgs.maxBytes,
  }),
  item: z.union([
    z.object({
      path: z.string(), startLine: z.number(), endLine: z.number(), totalLines: z.number(), text: z.string(),
      // Flags only when true (false is the default, not repeated on every span).
      truncated: z.literal(true).optional(), changedSinceIndex: z.literal(true).optional(), notIndexed: z.literal(true).optional(), isLarge: z.literal(true).optional(),
    }),
    z.object({ path: z.string(), line: z.number(), error: z.string() }),
  ]),
  paged: false,
  row: (i: SourceSlice | { path: string; line: number; error: string }) =>
    'error' in i ? `${i.path}:${i.line} — ${i.error}` : `${i.path}:${i.startLine}-${i.endLine}${i.truncated ? ' (truncated)' : ''}\n\`\`\`\n${i.text}\n\`\`\``,
  async handle(env, args, page) {
    // The JSON and the text both carry the source once, plus envelope overhead: reserve room for it.
    const budget = Math.max(256, Math.floor((page.maxBytes ?? DEFAULT_RESPONSE_BYTES) * 0.8) - 600);
    const r = await readSpans(env.engine, args.spans, args.contextLines ?? DEFAULT_CONTEXT_LINES, budget, env.deadlineAt);
    const served = r.slices.filter((s) => !('error' in s)).length;
    return {
      summary: `${served} of ${args.spans.length} span${args.spans.length === 1 ? '' : 's'} read (${r.bytesUsed} bytes)${r.truncated ? '; cut at the byte budget' : ''}.`,
      items: r.slices.map(flagsWhenSet),
      total: args.spans.length,
      truncated: r.truncated ? 'cap' : undefined,
    };
  },
});

/** A slice with its false flags left out. */
function flagsWhenSet<T extends object>(slice: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(slice)) if (v !== false) out[k] = v;
  return out as T;
}
