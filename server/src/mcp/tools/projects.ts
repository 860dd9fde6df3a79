/**
 * Project tools: project_graph, projects_containing, dependency_path, projects_under,
 * namespace_layout, config_lookup — and the projects section of repo_overview.
 */
import { z } from 'zod';
import { ToolError } from '../../core/errors';
import { DEFAULT_GRAPH_NODES, DEFAULT_RESPONSE_BYTES, MAX_DEPENDENCY_PATHS, MAX_GRAPH_NODES, MAX_QUERY_CHARS } from '../../core/limits';
import { configLookup } from '../../nav/projectsConfig';
import { namespaceLayout } from '../../nav/projectsNamespaces';
import { containing, dependencyPath, graphQuery, projectRow, projectsOverview, under, type ProjectsOverview } from '../../nav/projects';
import { pagingArgs, pathArg } from '../schemas';
import { defineTool } from '../tool';

const kindEnum = z.enum(['csharp', 'fsharp', 'vb', 'shared', 'node', 'tsconfig']);
const statusEnum = z.enum(['complete', 'partial', 'failed']);
const projectArg = z.string().min(1).max(MAX_QUERY_CHARS).describe('Project file path or project/assembly name');

const projectRowSchema = z.object({
  id: z.string().describe('Project file path (the project id)'),
  name: z.string(),
  kind: kindEnum,
  isTest: z.boolean(),
  targetFrameworks: z.array(z.string()),
  status: statusEnum.describe('complete | partial (see reasons) | failed'),
  reasons: z.array(z.string()).optional(),
  assemblyName: z.string().optional(),
  rootNamespace: z.string().optional(),
  files: z.number().describe('Files the project compiles or contains'),
});

const edgeSchema = z.object({
  kind: z.enum(['projectReference', 'packageReference', 'solutionMembership']),
  from: z.string(),
  to: z.string().describe("Project id, or 'package:<name>'"),
  version: z.string().optional(),
  targetFrameworks: z.array(z.string()).optional().describe('Only under these frameworks'),
  missing: z.boolean().optional(),
  shared: z.boolean().optional().describe('A shared project imported through its .projitems'),
});

interface NodeRow {
  id: string;
  kind: string;
  name: string;
  distance: number;
  isTest?: boolean;
  status?: string;
  dependsOn: string[];
}

export const projectGraphTool = defineTool({
  name: 'project_graph',
  title: 'Project graph',
  description:
    'Project references around a project, a solution or a folder prefix: a node table and an edge list, from project files without building. Depth 1 lists every direct neighbour; cut says what was left out.',
  input: z.strictObject({
    project: projectArg.optional().describe('Project path or name, or a .sln/.slnx/.slnf'),
    prefix: z.string().max(MAX_QUERY_CHARS).optional().describe('Instead of project: every project under this folder'),
    direction: z.enum(['dependencies', 'dependents', 'both']).optional().describe('Default dependencies'),
    depth: z.number().int().min(1).max(20).optional().describe('Default 2'),
    includePackages: z.boolean().optional().describe('Add package edges'),
    includeSolutions: z.boolean().optional().describe('Add solution-membership edges'),
    maxNodes: z.number().int().min(1).max(MAX_GRAPH_NODES).optional().describe(`Default ${DEFAULT_GRAPH_NODES}`),
    maxBytes: pagingArgs.maxBytes,
  }),
  item: z.object({ id: z.string(), kind: z.string(), name: z.string(), distance: z.number(), isTest: z.boolean().optional(), status: z.string().optional(), dependsOn: z.array(z.string()) }),
  // Optional only because an answer that cannot fit even one node drops them (completeness.partial says so).
  extra: {
    edges: z.array(edgeSchema).optional(),
    starts: z.array(z.string()).optional(),
    cut: z.object({ nodes: z.number(), edges: z.number(), depthLimited: z.boolean() }).optional().describe('What the bounds left out'),
  },
  paged: false,
  row: (n: NodeRow) => `${n.id} [${n.kind}${n.isTest ? ', test' : ''}${n.status && n.status !== 'complete' ? `, ${n.status}` : ''}] d=${n.distance}${n.dependsOn.length ? ` → ${n.dependsOn.join(', ')}` : ''}`,
  async handle(env, args, page) {
    if ((args.project === undefined) === (args.prefix === undefined)) {
      throw new ToolError('INVALID_ARGUMENT', 'Pass exactly one of project or prefix', 'e.g. {"project": "src/App/App.csproj"} or {"prefix": "src/Billing"}');
    }
    // Nodes appear in the JSON and the text, edges in the JSON; keep room for the envelope (~600 bytes).
    const budget = Math.max(200, Math.floor((page.maxBytes ?? DEFAULT_RESPONSE_BYTES) * 0.45) - 600);
    let maxNodes = args.maxNodes ?? DEFAULT_GRAPH_NODES;
    const q = {
      project: args.project,
      prefix: args.prefix,
      depth: args.depth ?? 2,
      direction: args.direction ?? ('dependencies' as const),
      includePackages: args.includePackages ?? false,
      includeSolutions: args.includeSolutions ?? false,
      maxEdges: MAX_GRAPH_NODES * 4,
    };
    // Shrink the node cap until nodes and edges fit the byte budget, so edges never dangle.
    for (;;) {
      const r = graphQuery(env.engine, { ...q, maxNodes });
      const deps = new Map<string, string[]>();
      for (const e of r.edges) {
        const l = deps.get(e.from) ?? [];
        l.push(e.to);
        deps.set(e.from, l);
      }
      const nodes: NodeRow[] = r.nodes.map((n) => {
        const row: NodeRow = { id: n.id, kind: n.kind, name: n.name, distance: n.distance, dependsOn: deps.get(n.id) ?? [] };
        if (n.isTest) row.isTest = true;
        if (n.status && n.status !== 'complete') row.status = n.status;
        return row;
      });
      const edges = r.edges.map((e) => {
        const o: z.infer<typeof edgeSchema> = { kind: e.kind, from: e.from, to: e.to };
        if (e.version) o.version = e.version;
        if (e.targetFrameworks) o.targetFrameworks = e.targetFrameworks;
        if (e.missing) o.missing = true;
        if (e.shared) o.shared = true;
        return o;
      });
      const size = Buffer.byteLength(JSON.stringify({ nodes, edges }), 'utf8');
      if (size > budget && maxNodes > 1) {
        maxNodes = Math.max(1, Math.floor(maxNodes * Math.min(0.8, budget / size)));
        continue;
      }
      const start = r.starts.length === 1 ? r.starts[0]! : args.prefix !== undefined ? `${r.starts.length} projects under '${args.prefix}'` : `the ${r.starts.length} projects of ${args.project}`;
      const cutText = r.cut.nodes || r.cut.edges || r.cut.depthLimited ? ` (cut: ${r.cut.nodes} nodes, ${r.cut.edges} edges${r.cut.depthLimited ? ', more beyond depth' : ''})` : '';
      return {
        summary: `${nodes.length} nodes, ${edges.length} edges around ${start}, ${q.direction}, depth ${q.depth}${cutText}.`,
        items: nodes,
        total: nodes.length + r.cut.nodes,
        truncated: r.cut.nodes > 0 || r.cut.edges > 0 ? ('cap' as const) : undefined,
        extra: { edges, starts: r.starts, cut: r.cut },
      };
    }
  },
});

export const projectsContainingTool = defineTool({
  name: 'projects_containing',
  title: 'Projects containing a file',
  description:
    'Which projects compile, link or contain a file (linked files and shared projects give several), with target frameworks.',
  input: z.strictObject({ path: pathArg, maxBytes: pagingArgs.maxBytes }),
  item: z.object({
    project: z.string(), name: z.string(), kind: kindEnum, isTest: z.boolean(), targetFrameworks: z.array(z.string()), link: z.string().optional(), status: statusEnum,
  }),
  paged: false,
  row: (i: { project: string; targetFrameworks: string[]; link?: string; isTest: boolean }) =>
    `${i.project}${i.isTest ? ' (test)' : ''}${i.targetFrameworks.length ? ` [${i.targetFrameworks.join(', ')}]` : ''}${i.link ? ` as ${i.link}` : ''}`,
  async handle(env, args) {
    const p = env.engine.policy.resolve(args.path).rel;
    const rows = containing(env.engine, p);
    return {
      summary: rows.length === 0 ? `No project compiles or contains ${p}.` : `${p} is in ${rows.length} project${rows.length === 1 ? '' : 's'}.`,
      items: rows,
      total: rows.length,
    };
  },
});

export const dependencyPathTool = defineTool({
  name: 'dependency_path',
  title: 'Dependency path',
  description:
    'Shortest project-reference paths from one project to another ("why does A depend on B?"); the reverse is tried and flagged.',
  input: z.strictObject({
    from: projectArg,
    to: projectArg,
    maxPaths: z.number().int().min(1).max(MAX_DEPENDENCY_PATHS).optional().describe('Default 5'),
    maxBytes: pagingArgs.maxBytes,
  }),
  item: z.object({ hops: z.number(), path: z.array(z.string()) }),
  extra: { from: z.string(), to: z.string(), reverse: z.boolean().describe('True when the paths lead from `to` to `from`') },
  paged: false,
  row: (i: { path: string[] }) => i.path.join(' → '),
  async handle(env, args) {
    const r = dependencyPath(env.engine, args.from, args.to, args.maxPaths ?? 5);
    const items = r.paths.map((p) => ({ hops: p.length - 1, path: p }));
    const summary =
      items.length === 0
        ? `${r.from.id} and ${r.to.id} are not connected by project references in either direction.`
        : `${items.length}${r.truncated ? '+' : ''} shortest path${items.length === 1 ? '' : 's'} of ${r.length} hop${r.length === 1 ? '' : 's'} from ${r.reverse ? r.to.id : r.from.id} to ${r.reverse ? r.from.id : r.to.id}${r.reverse ? ' (reverse direction: no path the way asked)' : ''}.`;
    return { summary, items, total: items.length, truncated: r.truncated ? ('limit' as const) : undefined, extra: { from: r.from.id, to: r.to.id, reverse: r.reverse === true } };
  },
});

export const projectsUnderTool = defineTool({
  name: 'projects_under',
  title: 'Projects under a folder',
  description: 'Projects under a folder prefix ("" for all): kind, test flag, target frameworks, evaluation status with reasons.',
  input: z.strictObject({
    prefix: z.string().max(MAX_QUERY_CHARS).describe('e.g. src/Billing'),
    kinds: z.array(kindEnum).max(6).optional(),
    tests: z.enum(['include', 'only', 'exclude']).optional(),
    status: z.array(statusEnum).max(3).optional(),
    ...pagingArgs,
  }),
  item: projectRowSchema,
  paged: true,
  row: (p: z.infer<typeof projectRowSchema>) =>
    `${p.id} [${p.kind}${p.isTest ? ', test' : ''}${p.targetFrameworks.length ? `, ${p.targetFrameworks.join(';')}` : ''}]${p.status !== 'complete' ? ` ${p.status}: ${(p.reasons ?? []).join('; ')}` : ''}`,
  async handle(env, args, page) {
    const kinds = args.kinds?.length ? new Set(args.kinds) : undefined;
    const statuses = args.status?.length ? new Set(args.status) : undefined;
    const tests = args.tests ?? 'include';
    const all = under(env.engine, args.prefix).filter(
      (p) => (!kinds || kinds.has(p.kind)) && (!statuses || statuses.has(p.status)) && (tests === 'include' || (tests === 'only') === p.isTest),
    );
    const rows = all.slice(page.offset, page.offset + page.limit).map((p) => projectRow(p));
    const testCount = all.filter((p) => p.isTest).length;
    return {
      summary: all.length === 0 ? `No project under '${args.prefix}'.` : `${all.length} project${all.length === 1 ? '' : 's'} under '${args.prefix || '.'}' (${testCount} test).`,
      items: rows,
      total: all.length,
      offset: page.offset,
    };
  },
});

export const namespaceLayoutTool = defineTool({
  name: 'namespace_layout',
  title: 'Namespace layout',
  description:
    'Namespaces under a prefix (e.g. "Acme.Billing") with how many files declare each and which projects compile them; depth collapses deeper ones.',
  input: z.strictObject({
    prefix: z.string().max(MAX_QUERY_CHARS).optional(),
    depth: z.number().int().min(1).max(10).optional().describe('Segments below the prefix'),
    ...pagingArgs,
  }),
  item: z.object({ namespace: z.string(), files: z.number(), projects: z.number(), topProjects: z.array(z.string()), namespaces: z.number().optional() }),
  extra: { totalFiles: z.number(), totalProjects: z.number(), filesWithoutProject: z.number(), navigationLayer: z.enum(['syntax', 'text']) },
  paged: true,
  row: (r: { namespace: string; files: number; projects: number; topProjects: string[] }) =>
    `${r.namespace} — ${r.files} file${r.files === 1 ? '' : 's'}, ${r.projects} project${r.projects === 1 ? '' : 's'}${r.topProjects.length ? ` (${r.topProjects.join(', ')})` : ''}`,
  async handle(env, args, page) {
    // Kept for the cursor: a scan cut by its deadline is paged as it was first computed.
    const r = await env.once('layout', () => namespaceLayout(env.engine, args.prefix ?? '', args.depth, env.deadlineAt));
    return {
      summary: `${r.rows.length} namespace${r.rows.length === 1 ? '' : 's'}${args.prefix ? ` under ${args.prefix}` : ''} in ${r.totalFiles} files across ${r.totalProjects} projects${r.truncated ? ' (scan stopped early: counts are lower bounds)' : ''}.`,
      items: r.rows.slice(page.offset, page.offset + page.limit),
      total: r.rows.length,
      offset: page.offset,
      partial: r.truncated ? `the declaration scan stopped (${r.truncated}); counts are lower bounds` : undefined,
      extra: { totalFiles: r.totalFiles, totalProjects: r.totalProjects, filesWithoutProject: r.filesWithoutProject, navigationLayer: r.layer },
    };
  },
});

export const configLookupTool = defineTool({
  name: 'config_lookup',
  title: 'Configuration lookup',
  description:
    'Where a configuration key is set (appsettings, launchSettings, package.json, tsconfig, MSBuild props, NuGet.config); "A:B:C" and "A__B__C" match JSON nesting.',
  input: z.strictObject({ key: z.string().min(1).max(MAX_QUERY_CHARS).describe('e.g. ConnectionStrings:Default, LangVersion'), ...pagingArgs }),
  item: z.object({
    path: z.string(), line: z.number(), column: z.number(), preview: z.string(),
    fileKind: z.enum(['appsettings', 'launchSettings', 'global.json', 'package.json', 'tsconfig', 'msbuild', 'nuget']),
    keyPath: z.string().optional().describe("JSON key path at the hit, ':'-joined"),
    project: z.string().optional().describe('Project whose folder holds the file'),
  }),
  extra: { navigationLayer: z.literal('text') },
  paged: true,
  row: (h: { path: string; line: number; preview: string; keyPath?: string }) => `${h.path}:${h.line}${h.keyPath ? ` [${h.keyPath}]` : ''}  ${h.preview}`,
  async handle(env, args, page) {
    // Kept for the cursor: a scan cut by its deadline is paged as it was first computed.
    const r = await env.once('config', () => configLookup(env.engine, args.key, env.deadlineAt));
    const files = new Set(r.hits.map((h) => h.path)).size;
    return {
      summary: r.hits.length === 0 ? `'${args.key}' is not set in any configuration file.` : `'${args.key}': ${r.hits.length} hit${r.hits.length === 1 ? '' : 's'} in ${files} configuration file${files === 1 ? '' : 's'}.`,
      items: r.hits.slice(page.offset, page.offset + page.limit),
      total: r.hits.length,
      offset: page.offset,
      partial: r.truncated ? `the text scan stopped (${r.truncated}); more files may set the key` : undefined,
      extra: { navigationLayer: 'text' as const },
    };
  },
});

/** The `projects` section of repo_overview (schema and value). */
export const projectsOverviewSchema = z
  .object({
    total: z.number(),
    byKind: z.record(z.string(), z.object({ production: z.number(), test: z.number() })),
    readiness: z.object({ complete: z.number(), partial: z.number(), failed: z.number() }),
    notComplete: z.array(z.object({ id: z.string(), status: statusEnum, reason: z.string() })),
    solutions: z.array(z.object({ path: z.string(), kind: z.string(), projects: z.number(), status: z.string() })),
    solutionCount: z.number(),
    targetFrameworks: z.record(z.string(), z.number()),
    packages: z.number(),
  })
  .nullable()
  .describe('Project model: kinds (production/test), readiness, solutions, target frameworks; null before it is built');

export function overviewProjects(env: { engine: Parameters<typeof projectsOverview>[0] }): ProjectsOverview | null {
  return projectsOverview(env.engine) ?? null;
}

/** '; 12 projects (3 test, 1 partial), 2 solutions' for the repo_overview summary ('' before the graph exists). */
export function projectsSummary(env: { engine: Parameters<typeof projectsOverview>[0] }): string {
  const o = projectsOverview(env.engine);
  if (!o) return '';
  const tests = Object.values(o.byKind).reduce((n, k) => n + k.test, 0);
  const notComplete = [o.readiness.partial ? `${o.readiness.partial} partial` : '', o.readiness.failed ? `${o.readiness.failed} failed` : ''].filter(Boolean);
  return `; ${o.total} projects (${tests} test${notComplete.length ? ', ' + notComplete.join(', ') : ''}), ${o.solutionCount} solution${o.solutionCount === 1 ? '' : 's'}`;
}

export const PROJECT_TOOLS = [projectGraphTool, projectsContainingTool, dependencyPathTool, projectsUnderTool, namespaceLayoutTool, configLookupTool];
