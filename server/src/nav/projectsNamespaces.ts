/**
 * namespace_layout: namespace prefix → the namespaces declared under it, with file and project
 * counts. Namespaces come from the syntax layer's symbols (namespace declarations, nested ones with
 * their full name) or, when the index has none, from `namespace X` lines found by the text layer;
 * files are mapped to projects through the project graph.
 */
import { MAX_NAMESPACE_SCAN_HITS } from '../core/limits';
import type { Engine } from './engine';
import { projectGraph } from './projects';
import { searchText } from './textSearch';

export interface NamespaceRow {
  namespace: string;
  files: number;
  projects: number;
  /** A few of the projects (ids), most files first. */
  topProjects: string[];
  /** When rows are collapsed by `depth`: how many declared namespaces this row stands for. */
  namespaces?: number;
}

export interface NamespaceLayout {
  rows: NamespaceRow[];
  totalFiles: number;
  totalProjects: number;
  /** Files with a declaration that no project compiles. */
  filesWithoutProject: number;
  /** Set when the scan stopped early (counts are lower bounds). */
  truncated?: 'deadline' | 'cap' | 'limit';
  /** Where the declarations came from: the syntax layer's symbols, or a text scan when it has none. */
  layer: 'syntax' | 'text';
}

const DECL = /^\s*namespace\s+([A-Za-z_][\w.]*)/;

/** Namespace declarations from the syntax layer's symbols table, or undefined when it has none. */
function fromSymbols(engine: Engine): { namespace: string; path: string }[] | undefined {
  try {
    const parsed = engine.store.rows('SELECT count(*) FROM syntax_files')[0]?.[0];
    // While outlines are still being written the symbols miss files: the text scan is complete.
    if (!parsed || engine.symbolsPending() > 0) return undefined;
    return engine.store
      .rows("SELECT DISTINCT s.qualified_name, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind = 'namespace'")
      .map((r) => ({ namespace: String(r[0]), path: String(r[1]) }));
  } catch {
    return undefined; // no symbols table in this index
  }
}

export async function namespaceLayout(engine: Engine, prefix: string, depth: number | undefined, deadlineAt: number): Promise<NamespaceLayout> {
  const clean = prefix.trim().replace(/\.+$/, '');
  const declared = fromSymbols(engine);
  if (declared) return group(engine, declared.filter((d) => !clean || d.namespace.startsWith(clean)), clean, depth, 'syntax');
  const r = await searchText(engine, {
    query: clean ? `namespace ${clean}` : 'namespace',
    mode: clean ? 'literal' : 'word',
    caseMode: 'sensitive',
    pathGlob: '**/*.{cs,fs}',
    offset: 0,
    limit: MAX_NAMESPACE_SCAN_HITS,
    deadlineAt,
  });
  const found: { namespace: string; path: string }[] = [];
  for (const h of r.hits) {
    const m = DECL.exec(h.preview);
    if (m && (!clean || m[1]!.startsWith(clean))) found.push({ namespace: m[1]!, path: h.path });
  }
  const out = group(engine, found, clean, depth, 'text');
  if (r.truncated) out.truncated = r.truncated;
  return out;
}

function group(engine: Engine, found: { namespace: string; path: string }[], clean: string, depth: number | undefined, layer: 'syntax' | 'text'): NamespaceLayout {
  const g = projectGraph(engine);
  const groups = new Map<string, { files: Set<string>; projects: Map<string, number>; declared: Set<string> }>();
  const allFiles = new Set<string>();
  const allProjects = new Set<string>();
  let withoutProject = 0;
  for (const h of found) {
    const ns = h.namespace;
    const key = collapse(ns, clean, depth);
    const grp = groups.get(key) ?? { files: new Set<string>(), projects: new Map<string, number>(), declared: new Set<string>() };
    groups.set(key, grp);
    grp.declared.add(ns);
    if (grp.files.has(h.path)) continue;
    grp.files.add(h.path);
    if (!allFiles.has(h.path)) {
      allFiles.add(h.path);
      if (!(g?.files.get(h.path)?.length)) withoutProject++;
    }
    for (const e of g?.files.get(h.path) ?? []) {
      grp.projects.set(e.project, (grp.projects.get(e.project) ?? 0) + 1);
      allProjects.add(e.project);
    }
  }
  const rows = [...groups]
    .map(([namespace, v]) => {
      const row: NamespaceRow = {
        namespace,
        files: v.files.size,
        projects: v.projects.size,
        topProjects: [...v.projects].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([p]) => p),
      };
      if (depth !== undefined) row.namespaces = v.declared.size;
      return row;
    })
    .sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : 0));
  return { rows, totalFiles: allFiles.size, totalProjects: allProjects.size, filesWithoutProject: withoutProject, layer };
}

/** The namespace cut to `depth` segments below the prefix (unchanged when depth is undefined). */
function collapse(ns: string, prefix: string, depth: number | undefined): string {
  if (depth === undefined) return ns;
  const base = prefix ? prefix.split('.').length : 0;
  return ns.split('.').slice(0, base + depth).join('.');
}
