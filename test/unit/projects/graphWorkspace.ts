/** Hand-written workspaces for project-model tests: written to a temp folder, read into a graph, removed. */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildProjectGraph } from '../../../server/src/projects/buildProjectGraph';
import type { ProjectGraph, ProjectNode } from '../../../server/src/projects/ProjectGraph';

export interface GraphWorkspace {
  root: string;
  graph: ProjectGraph;
  project(id: string): ProjectNode;
  files(project: string): string[];
  dispose(): void;
}

/** Writes `files` (relative path → content) under a new temp folder and builds the graph over them. */
export function graphWorkspace(files: Record<string, string | Buffer>): GraphWorkspace {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-projects-')));
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(root, rel);
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, content);
  }
  const graph = buildProjectGraph({ root, files: Object.keys(files) });
  return {
    root,
    graph,
    project(id) {
      const p = graph.projects.find((x) => x.id === id);
      if (!p) throw new Error(`no project ${id}; have ${graph.projects.map((x) => x.id).join(', ')}`);
      return p;
    },
    files(project) {
      return [...graph.files].filter(([, es]) => es.some((e) => e.project === project)).map(([f]) => f).sort();
    },
    dispose() {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A minimal SDK-style project. */
export function sdkProject(body = '', tfm = 'net8.0'): string {
  return `<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><TargetFramework>${tfm}</TargetFramework></PropertyGroup>\n${body}\n</Project>\n`;
}
