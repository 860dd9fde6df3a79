/**
 * The project model's index hook: after a refresh, rebuilds the project graph when project inputs
 * or the file set changed, and stores it: the whole graph as the blob `project_graph` (gzipped)
 * that readers load, plus the table `projects` from migration 3 (project names for SQL lookups).
 * `project_edges` and `project_files` are left empty: nothing reads them by SQL and the blob has
 * them (21k edges and 39k file rows, ~25 MB with their indexes on the 3,000-project workspace).
 */
import * as path from 'node:path';
import { log } from '../core/log';
import { buildProjectGraphAsync } from '../projects/buildProjectGraph';
import type { ProjectGraph } from '../projects/ProjectGraph';
import { PROJECT_GRAPH_FORMAT, serializeProjectGraph } from '../projects/serializeProjectGraph';
import type { IndexHook, RefreshContext } from './indexer';
import type { IndexStore } from './store';

/** Blob key of the serialized graph. */
export const PROJECT_GRAPH_BLOB = 'project_graph';
/** Meta key that changes whenever the stored graph does. */
export const PROJECT_GRAPH_STAMP = 'project_graph_stamp';

const PROJECT_INPUT = /\.(csproj|fsproj|vbproj|shproj|projitems|props|targets|sln|slnx|slnf)$/i;

/** True for files whose content shapes the project graph (not merely its file lists). */
export function isProjectInput(rel: string): boolean {
  const base = path.posix.basename(rel);
  return PROJECT_INPUT.test(base) || base === 'package.json' || base === 'pnpm-workspace.yaml' || /^tsconfig(\.[\w.-]+)?\.json$/.test(base);
}

export function projectsHook(): IndexHook {
  return {
    name: 'projects',
    deleteFiles() {
      /* the graph is rebuilt in finish() when files disappear */
    },
    async finish(store: IndexStore, ctx: RefreshContext) {
      const fileCount = ctx.discovery.files.length + ctx.discovery.skippedTooLarge.length;
      const stored = store.getMeta('project_graph_files');
      const needed =
        ctx.full ||
        stored === undefined ||
        Number(stored) !== fileCount ||
        ctx.deletedPaths.length > 0 ||
        ctx.changedPaths.some(isProjectInput) ||
        store.getMeta('project_graph_format') !== String(PROJECT_GRAPH_FORMAT);
      if (!needed) return;
      const first = stored === undefined || ctx.full;
      // Files discovery skipped as too large still exist: the graph reports such project files as failed.
      const files = [...ctx.discovery.files.map((f) => f.path), ...ctx.discovery.skippedTooLarge];
      // Yields to the event loop while evaluating, so tool calls are answered during a rebuild.
      const graph = await buildProjectGraphAsync({ root: ctx.root, files });
      store.transaction(() => writeGraph(store, graph));
      store.setMeta('project_graph_files', String(fileCount));
      store.setMeta('project_graph_format', String(PROJECT_GRAPH_FORMAT));
      // Readers cache the graph by this stamp (a rebuild can happen without a new index generation).
      store.setMeta(PROJECT_GRAPH_STAMP, `${Date.now()}-${graph.projects.length}`);
      // The first build is a milestone (the bench waits for it); rebuilds on file changes are routine.
      (first ? log.info : log.debug)('project graph rebuilt', { projects: graph.projects.length, edges: graph.edges.length, ms: graph.buildMs });
    },
  };
}

function writeGraph(store: IndexStore, g: ProjectGraph): void {
  const db = store.db;
  db.run('DELETE FROM projects');
  db.run('DELETE FROM project_edges');
  db.run('DELETE FROM project_files');
  const p = db.prepare('INSERT OR REPLACE INTO projects(id, name, kind, is_test, target_frameworks, assembly_name, root_namespace, sdk, status, reasons) VALUES (?,?,?,?,?,?,?,?,?,?)');
  try {
    for (const x of g.projects) {
      p.run([x.id, x.name, x.kind, x.isTest ? 1 : 0, x.targetFrameworks.join(';'), x.assemblyName ?? null, x.rootNamespace ?? null, x.sdk ?? null, x.status, JSON.stringify(x.reasons)]);
    }
  } finally {
    p.free();
  }
  store.setBlobText(PROJECT_GRAPH_BLOB, serializeProjectGraph(g));
}
