/** server_capabilities and repo_overview: what this server can do, and what the workspace is. */
import { z } from 'zod';
import * as L from '../../core/limits';
import { repoOverview } from '../../nav/overview';
import { supportedLanguageIds } from '../../syntax/languageConfig';
import { overviewProjects, projectsOverviewSchema, projectsSummary } from './projects';
import { defineTool } from '../tool';
import { toolLayer } from '../toolTable';

export const serverCapabilities = defineTool({
  name: 'server_capabilities',
  title: 'Server capabilities',
  description:
    'Tools, layers per language, budgets, large-file threshold and index status. Cheap; call once to plan.',
  input: z.strictObject({}),
  item: z.object({ tool: z.string(), title: z.string(), layer: z.string() }),
  extra: {
    layers: z.array(z.object({ layer: z.enum(['text', 'syntax', 'semantic']), languages: z.array(z.string()), status: z.string() })),
    budgets: z.object({ defaultResponseBytes: z.number(), maxResponseBytes: z.number(), defaultItemLimit: z.number(), maxItemLimit: z.number(), toolDeadlineMs: z.number() }),
    largeFileThreshold: z.object({ lines: z.number(), bytes: z.number() }),
    conventions: z.string(),
  },
  paged: false,
  row: (i: { tool: string; layer: string; title: string }) => `${i.tool} (${i.layer}): ${i.title}`,
  async handle(env) {
    const items = env.tools.map((t) => ({ tool: t.name, title: t.title, layer: toolLayer(t.name) }));
    const langs = [...new Set(env.engine.catalog().all().map((r) => r.language).filter((l): l is string => !!l))].sort();
    const hasSyntax = env.tools.some((t) => t.name === 'outline');
    const hasSemantic = env.tools.some((t) => t.name === 'references');
    return {
      summary: `${items.length} tools; text layer over ${langs.length} languages${hasSyntax ? ', syntax layer' : ''}${hasSemantic ? ', semantic layer' : ''}.`,
      items,
      extra: {
        layers: [
          { layer: 'text' as const, languages: langs, status: 'available' },
          { layer: 'syntax' as const, languages: hasSyntax ? supportedLanguageIds() : [], status: hasSyntax ? 'available' : 'not in this build' },
          { layer: 'semantic' as const, languages: [], status: hasSemantic ? 'available' : 'not in this build' },
        ],
        budgets: {
          defaultResponseBytes: L.DEFAULT_RESPONSE_BYTES,
          maxResponseBytes: L.MAX_RESPONSE_BYTES,
          defaultItemLimit: L.DEFAULT_ITEM_LIMIT,
          maxItemLimit: L.MAX_ITEM_LIMIT,
          toolDeadlineMs: L.TOOL_DEADLINE_MS,
        },
        largeFileThreshold: { lines: L.LARGE_FILE_LINES, bytes: L.LARGE_FILE_BYTES },
        conventions:
          'Paths are workspace-relative POSIX; lines and columns are 1-based; pass nextCursor back as cursor; errors read "Error [CODE]: … Hint: …".' +
          // Issue 12: when the composed tools save the primitive chain (only said when they are registered).
          (env.tools.some((t) => t.name === 'locate_code') ? ' "Where is the code that does X": locate_code, then read only its ranges (refine with locator + choice).' : '') +
          (env.tools.some((t) => t.name === 'context_pack') ? ' Before changing one symbol: context_pack (definition, callers, tests, config, risks in one budget) instead of chaining definition/references/callers.' : ''),
      },
    };
  },
});

export const repoOverviewTool = defineTool({
  name: 'repo_overview',
  title: 'Repository overview',
  description:
    'Workspace map: files by class, languages, largest folders, projects, git and index state. Call first in a new workspace.',
  input: z.strictObject({ maxFolders: z.number().int().min(1).max(100).optional() }),
  item: z.object({ path: z.string(), files: z.number(), sourceFiles: z.number() }),
  extra: {
    files: z.number(),
    byClass: z.record(z.string(), z.number()),
    languages: z.array(z.object({ language: z.string(), files: z.number(), lines: z.number() })),
    git: z.object({ available: z.boolean(), head: z.string().nullable(), branch: z.string().nullable(), dirtyFiles: z.number(), reason: z.string().optional() }),
    skippedTooLarge: z.number(),
    lastRefresh: z.string().nullable(),
    projects: projectsOverviewSchema,
  },
  paged: false,
  row: (i: { path: string; files: number; sourceFiles: number }) => `${i.path}/ — ${i.sourceFiles} source files, ${i.files} files`,
  async handle(env, args) {
    const o = repoOverview(env.engine, args.maxFolders ?? 15);
    const langs = o.languages.slice(0, 4).map((l) => `${l.language} ${l.files} files/${l.lines} lines`).join(', ');
    return {
      summary: `${o.files} files indexed (${o.byClass.source ?? 0} source, ${o.byClass.test ?? 0} test, ${o.byClass.generated ?? 0} generated)${langs ? '; ' + langs : ''}${projectsSummary(env)}.`,
      items: o.topFolders,
      extra: { files: o.files, byClass: o.byClass as Record<string, number>, languages: o.languages.slice(0, 20), git: o.git, skippedTooLarge: o.skippedTooLarge, lastRefresh: o.lastRefresh, projects: overviewProjects(env) },
    };
  },
});
