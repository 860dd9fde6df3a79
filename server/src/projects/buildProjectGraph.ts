/**
 * Builds the ProjectGraph from the workspace root and the walked file list: MSBuild projects and
 * solutions, Node packages and tsconfig projects, their edges, and the file → projects map.
 * Bad input (unreadable or malformed files, missing or cyclic references, solutions naming missing
 * projects, oversized files) is reported on the project or solution it concerns; it never throws.
 */
import * as path from 'node:path';
import { MAX_PROJECT_FILE_BYTES } from '../core/limits';
import { PathPolicy, toPosix } from '../core/paths';
import { isToolError } from '../core/errors';
import { runSteps, runStepsSliced, timeSlice } from '../core/timeSlice';
import { PACKAGE_ID_PREFIX, type ProjectEdge, type ProjectFileEntry, type ProjectGraph, type ProjectNode, type SolutionNode } from './ProjectGraph';
import { DEFAULT_EXCLUDED_DIRS } from '../workspace/ignoreRules';
import { WorkspaceFiles } from './WorkspaceFiles';
import type { EvaluatedItem } from './msbuild/evaluateProject';
import { blankMsbuildProject, msbuildKind, readMsbuildProject, type MsbuildProject } from './msbuild/readMsbuildProject';
import { readSolution } from './msbuild/readSolution';
import { parseXml, type XmlParse } from './msbuild/xmlDocument';
import { readNodeProjects, type NodeProject } from './node/readNodeProjects';

export interface ProjectGraphInput {
  /** Workspace root (absolute). */
  root: string;
  /** Workspace-relative POSIX paths from discovery; globbing uses this list. */
  files: Iterable<string>;
  /** Reads files; defaults to a PathPolicy on `root`. */
  policy?: PathPolicy;
}

/** Reads every project and solution in the file list into one graph. */
export function buildProjectGraph(input: ProjectGraphInput): ProjectGraph {
  return runSteps(graphSteps(input));
}

/**
 * The same, yielding to the event loop every `sliceMs` of work so a server stays responsive while a
 * large workspace is evaluated.
 */
export async function buildProjectGraphAsync(input: ProjectGraphInput, sliceMs = 25): Promise<ProjectGraph> {
  return runStepsSliced(graphSteps(input), timeSlice(sliceMs));
}

/** The build as steps: one per MSBuild project evaluated (the expensive part), then the rest. */
function* graphSteps(input: ProjectGraphInput): Generator<void, ProjectGraph> {
  const started = performance.now();
  const policy = input.policy ?? new PathPolicy(input.root);
  const root = toPosix(policy.root);
  const files = new WorkspaceFiles(input.files);

  const texts = new Map<string, { ok: true; text: string } | { ok: false; error: string }>();
  const readText = (rel: string) => {
    let t = texts.get(rel);
    if (!t) {
      try {
        const r = policy.readFile(rel, MAX_PROJECT_FILE_BYTES);
        // Visual Studio saves .sln/.slnf/.csproj with a UTF-8 byte order mark; JSON readers (.slnf,
        // package.json, tsconfig) fail on it (a .slnf read as 0 projects), so it is dropped here.
        const text = r.bytes.toString('utf8');
        t = { ok: true, text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text };
      } catch (e) {
        if (!isToolError(e)) throw e;
        t = { ok: false, error: e.code === 'FILE_TOO_LARGE' ? `the file is over the ${MAX_PROJECT_FILE_BYTES}-byte limit for project files; not parsed` : e.message };
      }
      texts.set(rel, t);
    }
    return t;
  };
  const xmlCache = new Map<string, XmlParse>();
  const readXml = (rel: string): XmlParse => {
    let x = xmlCache.get(rel);
    if (!x) {
      const t = readText(rel);
      x = t.ok ? parseXml(t.text) : { ok: false, error: t.error };
      xmlCache.set(rel, x);
    }
    return x;
  };

  /** True when a path the listing lacks exists on disk (ignored or default-excluded by discovery). */
  const onDisk = (rel: string): boolean => {
    try {
      return policy.resolve(rel).exists;
    } catch {
      return false;
    }
  };

  const projects = new Map<string, ProjectNode>();
  const edges: ProjectEdge[] = [];
  const fileMap = new Map<string, ProjectFileEntry[]>();
  const addFile = (file: string, entry: ProjectFileEntry) => {
    const list = fileMap.get(file);
    if (list) list.push(entry);
    else fileMap.set(file, [entry]);
  };

  // MSBuild projects.
  const msbuild: MsbuildProject[] = [];
  const includeCache = new Map<string, EvaluatedItem[]>();
  for (const rel of files.all()) {
    if (!msbuildKind(rel)) continue;
    let p: MsbuildProject;
    try {
      p = readMsbuildProject({ root, files, readXml, includeCache }, rel);
    } catch (e) {
      // A bug in the evaluator must not take the graph down: report it on the project.
      p = { ...emptyMsbuild(rel), status: 'failed', reasons: [`internal error while evaluating: ${(e as Error).message}`] };
    }
    msbuild.push(p);
    yield;
  }
  for (const p of msbuild) {
    const node: ProjectNode = {
      id: p.path,
      path: p.path,
      name: p.name,
      kind: p.kind,
      isTest: p.isTest,
      targetFrameworks: p.targetFrameworks,
      status: p.status,
      reasons: [...p.reasons],
      fileCount: p.files.filter((f) => f.exists).length,
    };
    if (p.assemblyName !== undefined) node.assemblyName = p.assemblyName;
    if (p.rootNamespace !== undefined) node.rootNamespace = p.rootNamespace;
    if (p.sdk !== undefined) node.sdk = p.sdk;
    projects.set(p.path, node);
    const absent = p.files.filter((f) => !f.exists);
    if (absent.length > 0) {
      addWarning(node, `${absent.length} compile item(s) name files that do not exist (e.g. ${absent[0]!.path})`);
    }
    for (const f of p.files) {
      if (!f.exists) continue;
      const e: ProjectFileEntry = { project: p.path };
      if (f.targetFrameworks.length > 0) e.targetFrameworks = f.targetFrameworks;
      if (f.link) e.link = f.link;
      addFile(f.path, e);
    }
  }
  const projitemsOwner = new Map<string, string>();
  for (const p of msbuild) if (p.kind === 'shared') for (const s of p.sharedImports) projitemsOwner.set(s, p.path);
  const missing = new Map<string, string[]>();
  for (const p of msbuild) {
    const node = projects.get(p.path)!;
    for (const r of p.projectReferences) {
      if (!r.inWorkspace) {
        addReason(node, `references a project outside the workspace: ${r.target}`);
        continue;
      }
      const exists = files.has(r.target);
      const edge: ProjectEdge = { kind: 'projectReference', from: p.path, to: r.target };
      if (r.targetFrameworks.length > 0) edge.targetFrameworks = r.targetFrameworks;
      if (!exists) {
        edge.missing = true;
        addReason(node, onDisk(r.target) ? `references ${r.target}, which exists but is not indexed (excluded by ${excludedBy(r.target)}); not read` : `references missing project ${r.target}`);
        const by = missing.get(r.target) ?? [];
        by.push(p.path);
        missing.set(r.target, by);
      }
      edges.push(edge);
    }
    for (const s of p.sharedImports) {
      const owner = projitemsOwner.get(s);
      if (owner && owner !== p.path) edges.push({ kind: 'projectReference', from: p.path, to: owner, shared: true });
    }
    for (const pkg of p.packages) {
      const edge: ProjectEdge = { kind: 'packageReference', from: p.path, to: PACKAGE_ID_PREFIX + pkg.name };
      if (pkg.version) edge.version = pkg.version;
      if (pkg.targetFrameworks.length > 0) edge.targetFrameworks = pkg.targetFrameworks;
      edges.push(edge);
    }
    if (p.outsideFiles.length > 0) {
      addWarning(node, `${p.outsideFiles.length} compile item(s) outside the workspace are not in the file map (e.g. ${p.outsideFiles[0]})`);
    }
  }

  // Node packages and tsconfig projects.
  let nodeProjects: NodeProject[] = [];
  try {
    nodeProjects = readNodeProjects(files, readText, onDisk);
  } catch (e) {
    // Keep the MSBuild results; report the failure on a synthetic entry.
    projects.set('package.json', failedNode('package.json', 'node', `internal error while reading Node projects: ${(e as Error).message}`));
  }
  for (const n of nodeProjects) {
    if (projects.has(n.path)) continue;
    projects.set(n.path, {
      id: n.path,
      path: n.path,
      name: n.name,
      kind: n.kind,
      isTest: n.isTest,
      targetFrameworks: [],
      status: n.status,
      reasons: [...n.reasons],
      fileCount: n.files.length,
    });
    for (const f of n.files) addFile(f, { project: n.path });
  }
  for (const n of nodeProjects) {
    for (const r of n.references) {
      const edge: ProjectEdge = { kind: 'projectReference', from: n.path, to: r };
      if (!files.has(r)) {
        edge.missing = true;
        addReason(projects.get(n.path)!, `references missing project ${r}`);
        const by = missing.get(r) ?? [];
        by.push(n.path);
        missing.set(r, by);
      }
      edges.push(edge);
    }
    for (const pkg of n.packages) edges.push({ kind: 'packageReference', from: n.path, to: PACKAGE_ID_PREFIX + pkg.name, version: pkg.version });
  }

  // Solutions.
  const solutions: SolutionNode[] = [];
  for (const rel of files.all()) {
    const ext = path.posix.extname(rel).toLowerCase();
    if (ext !== '.sln' && ext !== '.slnx' && ext !== '.slnf') continue;
    const kind = ext.slice(1) as SolutionNode['kind'];
    const name = path.posix.basename(rel, ext);
    const t = readText(rel);
    if (!t.ok) {
      solutions.push({ path: rel, name, kind, projects: [], status: 'failed', reasons: [t.error] });
      continue;
    }
    let s: ReturnType<typeof readSolution>;
    try {
      s = readSolution(rel, t.text, root);
    } catch (e) {
      // A bug or a pathological file (nesting beyond the stack) fails this solution only.
      solutions.push({ path: rel, name, kind, projects: [], status: 'failed', reasons: [`could not be read: ${(e as Error).message}`] });
      continue;
    }
    const sol: SolutionNode = { path: rel, name, kind, projects: [], status: s.failed ? 'failed' : 'complete', reasons: [...s.problems] };
    if (s.baseSolution) sol.baseSolution = s.baseSolution;
    if (s.baseSolution && !files.has(s.baseSolution)) sol.reasons.push(`the filtered solution ${s.baseSolution} does not exist`);
    for (const m of s.members) {
      if (m.outside !== undefined) {
        sol.reasons.push(`lists a project outside the workspace: ${m.outside}`);
        continue;
      }
      sol.projects.push(m.path);
      const edge: ProjectEdge = { kind: 'solutionMembership', from: rel, to: m.path, folder: m.folder };
      if (!files.has(m.path)) {
        edge.missing = true;
        sol.reasons.push(onDisk(m.path) ? `lists ${m.path}, which exists but is not indexed (excluded by ${excludedBy(m.path)})` : `lists missing project ${m.path}`);
        const by = missing.get(m.path) ?? [];
        by.push(rel);
        missing.set(m.path, by);
      } else if (!projects.has(m.path)) {
        sol.reasons.push(`lists ${m.path}, which is not a project this model reads`);
      }
      edges.push(edge);
    }
    if (sol.status === 'complete' && sol.reasons.length > 0) sol.status = 'partial';
    solutions.push(sol);
  }

  // Missing projects get failed nodes so nothing is silently absent.
  for (const [rel, by] of missing) {
    if (projects.has(rel)) continue;
    const kind = msbuildKind(rel) ?? (path.posix.basename(rel) === 'package.json' ? 'node' : rel.endsWith('.json') ? 'tsconfig' : 'csharp');
    const refs = `referenced by ${by.slice(0, 3).join(', ')}${by.length > 3 ? ` and ${by.length - 3} more` : ''}`;
    const why = onDisk(rel) ? `the file exists but is not indexed (excluded by ${excludedBy(rel)}; ${refs})` : `the file does not exist (${refs})`;
    projects.set(rel, { ...failedNode(rel, kind, why), ...(onDisk(rel) ? { notIndexed: true as const } : {}) });
  }

  markCycles(projects, edges);

  return { root, projects: [...projects.values()], edges, solutions, files: fileMap, buildMs: Math.round(performance.now() - started) };
}

/** Why discovery left a path out: a folder name excluded by default on its way, else an ignore rule. */
function excludedBy(rel: string): string {
  const dirs = rel.split('/').slice(0, -1);
  const hit = dirs.find((d) => DEFAULT_EXCLUDED_DIRS.some((x) => x.toLowerCase() === d.toLowerCase()));
  return hit ? `default: ${hit}/ folders are not indexed unless the workspace re-admits them` : '.gitignore or the exclude setting';
}

function emptyMsbuild(rel: string): MsbuildProject {
  return blankMsbuildProject(rel, 'failed');
}

function failedNode(rel: string, kind: ProjectNode['kind'], reason: string): ProjectNode {
  return {
    id: rel,
    path: rel,
    name: path.posix.basename(rel, path.posix.extname(rel)),
    kind,
    isTest: false,
    targetFrameworks: [],
    status: 'failed',
    reasons: [reason],
    fileCount: 0,
  };
}

function addReason(node: ProjectNode, reason: string): void {
  if (!node.reasons.includes(reason)) node.reasons.push(reason);
  if (node.status === 'complete') node.status = 'partial';
}

/** A note that does not make the evaluation incomplete (kept in reasons, status unchanged). */
function addWarning(node: ProjectNode, note: string): void {
  if (!node.reasons.includes(note)) node.reasons.push(note);
}

/** Projects on a projectReference cycle become partial, with the cycle spelled out. */
function markCycles(projects: Map<string, ProjectNode>, edges: ProjectEdge[]): void {
  const adj = new Map<string, string[]>();
  for (const e of edges) {
    if (e.kind !== 'projectReference' || e.missing) continue;
    const l = adj.get(e.from);
    if (l) l.push(e.to);
    else adj.set(e.from, [e.to]);
  }
  // Tarjan's strongly connected components, iterative.
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  for (const start of adj.keys()) {
    if (idx.has(start)) continue;
    const work: { v: string; i: number }[] = [{ v: start, i: 0 }];
    idx.set(start, index);
    low.set(start, index++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const next = adj.get(top.v) ?? [];
      if (top.i < next.length) {
        const w = next[top.i++]!;
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(top.v, Math.min(low.get(top.v)!, idx.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.v;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.v)!));
      }
      if (low.get(top.v) === idx.get(top.v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== top.v);
        const selfLoop = comp.length === 1 && (adj.get(comp[0]!) ?? []).includes(comp[0]!);
        if (comp.length > 1 || selfLoop) {
          const members = new Set(comp);
          const cycle = describeCycle(comp[comp.length - 1]!, adj, members);
          for (const m of comp) {
            const node = projects.get(m);
            if (node) addReason(node, `project reference cycle: ${cycle}`);
          }
        }
      }
    }
  }
}

function describeCycle(start: string, adj: Map<string, string[]>, members: Set<string>): string {
  const pathOut = [start];
  const seen = new Set([start]);
  let cur = start;
  for (;;) {
    const next = (adj.get(cur) ?? []).find((n) => members.has(n) && (n === start || !seen.has(n)));
    if (!next) break;
    pathOut.push(next);
    if (next === start) break;
    seen.add(next);
    cur = next;
  }
  return pathOut.join(' → ');
}
