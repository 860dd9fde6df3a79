/**
 * The project graph: plain data, built from the workspace's project files without running a build.
 * Every path is workspace-relative POSIX. A project's id is the path of its project file.
 */

/** What a project is; `shared` is an MSBuild shared project (.shproj + .projitems). */
export type ProjectKind = 'csharp' | 'fsharp' | 'vb' | 'shared' | 'node' | 'tsconfig';

/**
 * `complete`: every rule that shaped this project was evaluated.
 * `partial`: evaluated, but something could not be (see `reasons`); the rest is still reported.
 * `failed`: the project file could not be read or parsed (see `reasons`).
 */
export type ProjectStatus = 'complete' | 'partial' | 'failed';

export interface ProjectNode {
  /** Workspace-relative path of the project file (also its id). */
  id: string;
  path: string;
  name: string;
  kind: ProjectKind;
  isTest: boolean;
  /** Effective target frameworks (one inner build each); empty when none apply (node, shared). */
  targetFrameworks: string[];
  assemblyName?: string;
  rootNamespace?: string;
  /** MSBuild SDK (`Microsoft.NET.Sdk`, ...) or `legacy` for a project without one. */
  sdk?: string;
  status: ProjectStatus;
  /** Why the status is not `complete` (deduplicated, most important first). */
  reasons: string[];
  /** Compiled/member file count (union over target frameworks). */
  fileCount: number;
  /**
   * The project file exists but is not indexed (ignored, or in a folder excluded by default), so
   * it was not read: `failed` with the reason, but not broken (the editor shows it as excluded).
   */
  notIndexed?: true;
}

export type ProjectEdgeKind = 'projectReference' | 'packageReference' | 'solutionMembership';

export interface ProjectEdge {
  kind: ProjectEdgeKind;
  /** Project id (projectReference, packageReference) or solution path (solutionMembership). */
  from: string;
  /** Project id, `package:<name>` for packages. */
  to: string;
  /** Package version (after central package management), when known. */
  version?: string;
  /** Target frameworks the edge applies to, when it does not apply to all of them. */
  targetFrameworks?: string[];
  /** For projectReference: the referenced project file does not exist. */
  missing?: boolean;
  /** For projectReference: a shared project pulled in through its .projitems import. */
  shared?: boolean;
  /** For solutionMembership: the solution folder the project sits in ('' at the top). */
  folder?: string;
}

export type SolutionKind = 'sln' | 'slnx' | 'slnf';

export interface SolutionNode {
  path: string;
  name: string;
  kind: SolutionKind;
  /** Member project ids (existing or not; missing ones have a failed project node). */
  projects: string[];
  /** For a .slnf: the solution it filters. */
  baseSolution?: string;
  status: ProjectStatus;
  reasons: string[];
}

/** A file's membership in one project. */
export interface ProjectFileEntry {
  project: string;
  /** Target frameworks under which the project compiles the file (all of the project's when omitted). */
  targetFrameworks?: string[];
  /** The Link metadata of a linked file, POSIX. */
  link?: string;
}

export interface ProjectGraph {
  root: string;
  projects: ProjectNode[];
  edges: ProjectEdge[];
  solutions: SolutionNode[];
  /** File path → the projects that compile or contain it (several for linked files and overlaps). */
  files: Map<string, ProjectFileEntry[]>;
  /** Wall-clock time the build of this graph took. */
  buildMs: number;
}

/** Prefix of package node ids in edges. */
export const PACKAGE_ID_PREFIX = 'package:';
