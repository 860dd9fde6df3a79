/**
 * Stable symbol ids as tools show and accept them. A C# id is the declaration's
 * documentation-comment id plus the compilation it belongs to:
 *
 *   <doc-id>@<project>|<target framework>     M:Acme.Common.Guard.NotNull(System.Object)@Acme.Common|net8.0
 *
 * `<project>` is the project's name, or its project-file path when several projects share that
 * name; `|<tfm>` is left out for a project without a known target framework. A file compiled by
 * several projects (linked files) or for several frameworks (multi-targeting) has one id per
 * compilation; answers show the primary one (the project that owns the file, else the first by
 * key; its first framework in declared order) and list the others where the file is shown.
 * Ids are derived from the index's syntax id and the project graph of the same index version, so
 * they are stable within an indexVersion. Other languages keep the index's `path#Qualified.Name`.
 * Parsing accepts the bare doc-id too; resolving it is the caller's business (nav/semanticTarget).
 */
import { projectsContaining } from '../projects/graphQueries';
import type { ProjectGraph, ProjectNode } from '../projects/ProjectGraph';
import type { Engine } from './engine';
import { projectGraph } from './projects';

/** One compilation of a file: a project and one of its target frameworks. */
export interface Compilation {
  project: ProjectNode;
  /** How ids name the project: its name, or its path when the name is not unique. */
  key: string;
  tfm?: string;
  /** The project compiles the file through a link (it lives elsewhere). */
  linked: boolean;
}

/** A symbol id taken apart. `project` is set when the suffix named a known project. */
export interface ParsedSymbolId {
  docId: string;
  /** The suffix's project text, known or not. */
  projectKey?: string;
  project?: ProjectNode;
  tfm?: string;
}

const CSHARP_DOC_ID = /^[NTMPFE]:/;

/** True for a C# documentation-comment id (with or without a compilation suffix). */
export function isCSharpDocId(id: string): boolean {
  return CSHARP_DOC_ID.test(id);
}

/** `<doc-id>@<key>|<tfm>` (or `@<key>` without a framework). */
export function formatSymbolId(docId: string, c: { key: string; tfm?: string } | undefined): string {
  if (!c) return docId;
  return `${docId}@${c.key}${c.tfm ? `|${c.tfm}` : ''}`;
}

/**
 * Splits `<doc-id>@<project>[|<tfm>]`. Doc-ids contain `@` themselves (by-reference parameters,
 * `M:N.T.M(System.Int32@)`), so the suffix is found from the end: the last `@` whose remainder
 * names a project (`isProject`), else the last `@` not inside a parameter list.
 */
export function splitSymbolId(id: string, isProject: (key: string) => ProjectNode | undefined): ParsedSymbolId {
  if (!isCSharpDocId(id)) return { docId: id };
  let fallback: ParsedSymbolId | undefined;
  for (let i = id.lastIndexOf('@'); i > 2; i = id.lastIndexOf('@', i - 1)) {
    const rest = id.slice(i + 1);
    const bar = rest.lastIndexOf('|');
    const key = bar >= 0 ? rest.slice(0, bar) : rest;
    const tfm = bar >= 0 ? rest.slice(bar + 1) : undefined;
    const parsed: ParsedSymbolId = { docId: id.slice(0, i), projectKey: key, ...(tfm ? { tfm } : {}) };
    const project = key ? isProject(key) : undefined;
    if (project) return { ...parsed, project };
    // A by-reference marker is followed by ')' or ',' (or '~' / ']' in conversion operators and
    // arrays); a suffix never is. The first such '@' from the end is the suffix of an unknown project.
    if (!fallback && key && !/^[),~\]}]/.test(rest) && !/[(),]/.test(key)) fallback = parsed;
  }
  return fallback ?? { docId: id };
}

/** Ids over one project graph: project keys, a file's compilations, formatting and parsing. */
export class SymbolIdSpace {
  private readonly keyOf = new Map<string, string>();
  private readonly byKey = new Map<string, ProjectNode>();
  private readonly byFile = new Map<string, Compilation[]>();

  constructor(readonly graph: ProjectGraph | undefined) {
    if (!graph) return;
    const nameCount = new Map<string, number>();
    for (const p of graph.projects) nameCount.set(p.name.toLowerCase(), (nameCount.get(p.name.toLowerCase()) ?? 0) + 1);
    for (const p of graph.projects) {
      const key = nameCount.get(p.name.toLowerCase()) === 1 && !/[@|]/.test(p.name) ? p.name : p.id;
      this.keyOf.set(p.id, key);
      this.byKey.set(key.toLowerCase(), p);
      this.byKey.set(p.id.toLowerCase(), p);
    }
  }

  /** The key ids use for a project (its name, or its path when the name is shared). */
  projectKey(project: ProjectNode): string {
    return this.keyOf.get(project.id) ?? project.id;
  }

  /** A project by the key an id names (its name or path, case-insensitive). */
  projectByKey(key: string): ProjectNode | undefined {
    return this.byKey.get(key.toLowerCase());
  }

  /** Every compilation of a file, primary first: owning projects before linking ones, then by key; frameworks in declared order. */
  compilations(file: string): Compilation[] {
    let list = this.byFile.get(file);
    if (list) return list;
    list = [];
    if (this.graph) {
      const containing = projectsContaining(this.graph, file)
        .filter((c) => c.project.kind !== 'node' && c.project.kind !== 'tsconfig')
        .map((c) => ({ c, key: this.projectKey(c.project), linked: c.link !== undefined }))
        .sort((a, b) => Number(a.linked) - Number(b.linked) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      for (const { c, key, linked } of containing) {
        if (c.targetFrameworks.length === 0) list.push({ project: c.project, key, linked });
        for (const tfm of c.targetFrameworks) list.push({ project: c.project, key, tfm, linked });
      }
    }
    this.byFile.set(file, list);
    return list;
  }

  /** The compilation answers show for a file. */
  primary(file: string): Compilation | undefined {
    return this.compilations(file)[0];
  }

  /** The id to show for a declaration whose index id is `indexId` in `file` (C#: with its compilation). */
  idFor(indexId: string, file: string, c: Compilation | undefined = this.primary(file)): string {
    if (!isCSharpDocId(indexId) || !file.toLowerCase().endsWith('.cs')) return indexId;
    return formatSymbolId(indexId, c);
  }

  /** `project|tfm` of every compilation of a file (for answers that show the file). */
  compilationLabels(file: string): string[] {
    return this.compilations(file).map((c) => `${c.key}${c.tfm ? `|${c.tfm}` : ''}`);
  }

  parse(id: string): ParsedSymbolId {
    return splitSymbolId(id.trim(), (k) => this.projectByKey(k));
  }
}

const spaces = new WeakMap<Engine, { graph: ProjectGraph | undefined; space: SymbolIdSpace }>();

/** The id space of the engine's current project graph (rebuilt when the graph is). */
export function symbolIds(engine: Engine): SymbolIdSpace {
  const graph = projectGraph(engine);
  const hit = spaces.get(engine);
  if (hit && hit.graph === graph) return hit.space;
  const space = new SymbolIdSpace(graph);
  spaces.set(engine, { graph, space });
  return space;
}
