/**
 * Project tools: project_graph, projects_containing, dependency_path, projects_under,
 * namespace_layout, config_lookup — and the projects section of repo_overview.
 */
import { z } from 'zod';
import { ToolError } from '../../core/errors';
import { DEFAULT_GRAPH_NODES, DEFAULT_RESPONSE_BYTES, MAX_DEPENDENCY_PATHS, MAX_GRAPH_NODES, MAX_ITEM_LIMIT, MAX_QUERY_CHARS } from '../../core/limits';
import { configLookup } from '../../nav/projectsConfig';
import { namespaceLayout } from '../../nav/projectsNamespaces';
import { containing, dependencyPath, graphQuery, projectRow, projectsOverview, shownStatus, under, type ProjectsOverview } from '../../nav/projects';
import { pagingArgs, pathArg } from '../schemas';
import { defineTool } from '../tool';

const kindEnum = z.enum(['csharp', 'fsharp', 'vb', 'shared', 'node', 'tsconfig']);
const statusEnum = z.enum(['complete', 'partial', 'failed', 'not_indexed']);

/** A project row; defaults are left out (name = file name without extension, kind csharp, not a test, no frameworks, status complete). */
const projectRowSchema = z.object({
  id: z.string().describe('Project file path (the project id)'),
  name: z.string().optional(),
  kind: kindEnum.optional(),
  isTest: z.literal(true).optional(),
  targetFrameworks: z.array(z.string()).optional(),
  status: statusEnum.optional().describe('partial (see reasons) | failed | not_indexed (excluded folder); omitted: complete'),
  reasons: z.array(z.string()).optional(),
  assemblyName: z.string().optional(),
  rootNamespace: z.string().optional(),
  files: z.number().describe('Files the project compiles or contains'),
});

const edgeAttrSchema = z.object({
  tf: z.array(z.string()).optional().describe('Only under these target frameworks'),
  v: z.string().optional().describe('Package version'),
  missing: z.literal(true).optional().describe('The referenced project file does not exist'),
  shared: z.literal(true).optional().describe('A shared project imported through its .projitems'),
});
type EdgeAttr = z.infer<typeof edgeAttrSchema>;

/**
 * One row per node; `n` is the node's key (its position in the whole answer, stable over pages).
 * Edges are the node's own `to` list (node keys; the target may be on a later page), so the answer
 * has one edge list, paged with its nodes, and nothing repeated. Defaults are left out: kind csharp,
 * name = file name without extension, status complete.
 */
const graphNodeSchema = z.object({
  n: z.number().int(),
  id: z.string().describe('Project path, package:<name> or solution path'),
  name: z.string().optional(),
  kind: z.string().optional(),
  d: z.number().int().describe('Hops from the nearest start (0 = start)'),
  test: z.literal(true).optional(),
  status: z.string().optional(),
  to: z.array(z.number().int()).optional().describe('Keys of the nodes this one references (or lists, for a solution)'),
  via: z.record(z.string(), edgeAttrSchema).optional().describe('Edge attributes by target key, for edges that are conditional, versioned, missing or shared'),
});
type GraphNodeRow = z.infer<typeof graphNodeSchema>;

const graphCutSchema = z.object({
  maxNodes: z.number().int().optional().describe('Nodes reached but left out by the node cap'),
  maxEdges: z.number().int().optional().describe('Edges left out by the edge cap'),
  depth: z.literal(true).optional().describe('More nodes lie beyond depth'),
});

const KIND_DEFAULT = 'csharp';
const baseName = (id: string) => id.slice(id.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');

/** A project row (projects_under, projects_containing) with its defaults left out. */
function withoutDefaults<T extends { name: string; kind: string; isTest: boolean; targetFrameworks: string[]; status: string }>(row: T, id: string) {
  const { name, kind, isTest, targetFrameworks, status, ...rest } = row;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    out[k] = v;
    if (k !== 'id' && k !== 'project') continue;
    if (name !== baseName(id)) out.name = name;
    if (kind !== KIND_DEFAULT) out.kind = kind;
    if (isTest) out.isTest = true;
    if (targetFrameworks.length) out.targetFrameworks = targetFrameworks;
    if (status !== 'complete') out.status = status;
  }
  return out;
}

export const projectGraphTool = defineTool({
  name: 'project_graph',
  title: 'Project graph',
  description:
    'Project references around a project, solution or folder, from project files: node rows with the keys they reference. Depth 1 lists every direct neighbour.',
  input: z.strictObject({
    project: z.string().min(1).max(MAX_QUERY_CHARS).optional().describe('Path/name, or a .sln/.slnx/.slnf'),
    prefix: z.string().max(MAX_QUERY_CHARS).optional().describe('Or: every project under this folder'),
    direction: z.enum(['dependencies', 'dependents', 'both']).optional(),
    depth: z.number().int().min(1).max(20).optional().describe('Default 2'),
    includePackages: z.boolean().optional(),
    includeSolutions: z.boolean().optional(),
    allEdges: z.boolean().optional().describe('Also edges among neighbours'),
    maxNodes: z.number().int().min(1).max(MAX_GRAPH_NODES).optional(),
    ...pagingArgs,
  }),
  item: graphNodeSchema,
  extra: { cut: graphCutSchema.optional() },
  paged: true,
  defaultLimit: DEFAULT_GRAPH_NODES,
  row: (r: GraphNodeRow) => {
    const tags = [r.kind, r.test ? 'test' : undefined, r.status].filter(Boolean).join(', ');
    const to = (r.to ?? []).map((k) => {
      const a = r.via?.[String(k)];
      const notes = a ? [a.tf ? a.tf.join(';') : '', a.v ?? '', a.missing ? 'missing' : '', a.shared ? 'shared' : ''].filter(Boolean).join(' ') : '';
      return `#${k}${notes ? ` (${notes})` : ''}`;
    });
    return `#${r.n} ${r.id}${r.name ? ` "${r.name}"` : ''}${tags ? ` [${tags}]` : ''} d${r.d}${to.length ? ` → ${to.join(', ')}` : ''}`;
  },
  async handle(env, args, page) {
    if ((args.project === undefined) === (args.prefix === undefined)) {
      throw new ToolError('INVALID_ARGUMENT', 'Pass exactly one of project or prefix', 'e.g. {"project": "src/App/App.csproj"} or {"prefix": "src/Billing"}');
    }
    const q = {
      project: args.project,
      prefix: args.prefix,
      depth: args.depth ?? 2,
      direction: args.direction ?? ('dependencies' as const),
      includePackages: args.includePackages ?? false,
      includeSolutions: args.includeSolutions ?? false,
      edges: args.allEdges ? ('induced' as const) : ('walk' as const),
      maxNodes: args.maxNodes ?? MAX_GRAPH_NODES,
      maxEdges: MAX_GRAPH_NODES * 8,
    };
    const r = graphQuery(env.engine, q);
    // A total order: starts first, then by distance, then by id.
    const nodes = [...r.nodes].sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const key = new Map(nodes.map((n, i) => [n.id, i]));
    const out = new Map<string, { to: number; attr?: EdgeAttr }[]>();
    for (const e of r.edges) {
      const t = key.get(e.to);
      if (t === undefined || !key.has(e.from)) continue;
      const attr: EdgeAttr = {};
      if (e.targetFrameworks) attr.tf = e.targetFrameworks;
      if (e.version) attr.v = e.version;
      if (e.missing) attr.missing = true;
      if (e.shared) attr.shared = true;
      const l = out.get(e.from) ?? out.set(e.from, []).get(e.from)!;
      l.push(Object.keys(attr).length ? { to: t, attr } : { to: t });
    }
    const rows: GraphNodeRow[] = nodes.map((n, i) => {
      const row: GraphNodeRow = { n: i, id: n.id, d: n.distance };
      const derived = n.kind === 'package' ? n.id.slice('package:'.length) : baseName(n.id);
      if (n.name !== derived && n.name !== n.id.slice(n.id.lastIndexOf('/') + 1)) row.name = n.name;
      if (n.kind !== KIND_DEFAULT) row.kind = n.kind;
      if (n.isTest) row.test = true;
      if (n.status && n.status !== 'complete') row.status = n.notIndexed ? 'not_indexed' : n.status;
      const es = (out.get(n.id) ?? []).sort((a, b) => a.to - b.to);
      if (es.length) row.to = es.map((e) => e.to);
      for (const e of es) if (e.attr) (row.via ??= {})[String(e.to)] = e.attr;
      return row;
    });
    const cut: z.infer<typeof graphCutSchema> = {};
    if (r.cut.nodes) cut.maxNodes = r.cut.nodes;
    if (r.cut.edges) cut.maxEdges = r.cut.edges;
    if (r.cut.depthLimited) cut.depth = true;
    const why = [cut.maxNodes ? `${cut.maxNodes} nodes left out by maxNodes ${q.maxNodes}` : '', cut.maxEdges ? `${cut.maxEdges} edges left out by the edge cap` : '', cut.depth ? `more lie beyond depth ${q.depth}` : '']
      .filter(Boolean)
      .join('; ');
    const starts = r.starts.length === 1 ? r.starts[0]! : args.prefix !== undefined ? `${r.starts.length} projects under '${args.prefix}'` : `the ${r.starts.length} projects of ${args.project}`;
    const edgeCount = rows.reduce((k, x) => k + (x.to?.length ?? 0), 0);
    return {
      summary: `${rows.length} nodes, ${edgeCount} edges around ${starts}, ${q.direction}, depth ${q.depth}${why ? ` (cut: ${why})` : ''}.`,
      items: rows.slice(page.offset, page.offset + page.limit),
      total: rows.length,
      offset: page.offset,
      // Not `truncated: cap`: the node list is still paged exactly; what the caps left out is coverage.
      partial: cut.maxNodes || cut.maxEdges ? why : undefined,
      extra: Object.keys(cut).length ? { cut } : {},
    };
  },
});

export const projectsContainingTool = defineTool({
  name: 'projects_containing',
  title: 'Projects containing a file',
  description:
    'Projects that compile, link or contain a file (linked/shared: several), with target frameworks.',
  // Paged: it is the tool other answers name for a file's whole project list ("+N more: projects_containing").
  input: z.strictObject({ path: pathArg, ...pagingArgs }),
  // Defaults left out as in projects_under.
  item: z.object({
    project: z.string(), name: z.string().optional(), kind: kindEnum.optional(), isTest: z.literal(true).optional(), targetFrameworks: z.array(z.string()).optional(), status: statusEnum.optional(), link: z.string().optional(),
  }),
  paged: true,
  defaultLimit: MAX_ITEM_LIMIT,
  row: (i: { project: string; targetFrameworks?: string[]; link?: string; isTest?: true }) =>
    `${i.project}${i.isTest ? ' (test)' : ''}${i.targetFrameworks?.length ? ` [${i.targetFrameworks.join(', ')}]` : ''}${i.link ? ` as ${i.link}` : ''}`,
  async handle(env, args, page) {
    const p = env.engine.policy.resolve(args.path).rel;
    const rows = containing(env.engine, p).map((r) => withoutDefaults(r, r.project));
    return {
      summary: rows.length === 0 ? `No project compiles or contains ${p}.` : `${p} is in ${rows.length} project${rows.length === 1 ? '' : 's'}.`,
      items: rows.slice(page.offset, page.offset + page.limit),
      total: rows.length,
      offset: page.offset,
    };
  },
});

export const dependencyPathTool = defineTool({
  name: 'dependency_path',
  title: 'Dependency path',
  description:
    'Shortest project-reference paths from one project to another ("why does A depend on B?"); the reverse is tried and flagged.',
  input: z.strictObject({
    from: z.string().min(1).max(MAX_QUERY_CHARS),
    to: z.string().min(1).max(MAX_QUERY_CHARS),
    maxPaths: z.number().int().min(1).max(MAX_DEPENDENCY_PATHS).optional(),
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
    prefix: z.string().max(MAX_QUERY_CHARS),
    kinds: z.array(kindEnum).max(6).optional(),
    tests: z.enum(['include', 'only', 'exclude']).optional(),
    status: z.array(statusEnum).max(4).optional(),
    ...pagingArgs,
  }),
  item: projectRowSchema,
  paged: true,
  row: (p: z.infer<typeof projectRowSchema>) =>
    `${p.id} [${p.kind ?? KIND_DEFAULT}${p.isTest ? ', test' : ''}${p.targetFrameworks?.length ? `, ${p.targetFrameworks.join(';')}` : ''}]${p.status ? ` ${p.status}: ${(p.reasons ?? []).join('; ')}` : ''}`,
  async handle(env, args, page) {
    const kinds = args.kinds?.length ? new Set(args.kinds) : undefined;
    const statuses = args.status?.length ? new Set(args.status) : undefined;
    const tests = args.tests ?? 'include';
    const all = under(env.engine, args.prefix).filter(
      (p) => (!kinds || kinds.has(p.kind)) && (!statuses || statuses.has(shownStatus(p))) && (tests === 'include' || (tests === 'only') === p.isTest),
    );
    const rows = all.slice(page.offset, page.offset + page.limit).map((p) => withoutDefaults(projectRow(p), p.id));
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
    'Namespaces under a prefix ("Acme.Billing"): files declaring each, projects compiling them; depth collapses deeper ones.',
  input: z.strictObject({
    prefix: z.string().max(MAX_QUERY_CHARS).optional(),
    depth: z.number().int().min(1).max(10).optional(),
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
    'Where a config key is set (appsettings, launchSettings, package.json, tsconfig, MSBuild props, NuGet.config); "A:B:C" and "A__B__C" match nesting.',
  input: z.strictObject({ key: z.string().min(1).max(MAX_QUERY_CHARS).describe('e.g. ConnectionStrings:Default'), ...pagingArgs }),
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
