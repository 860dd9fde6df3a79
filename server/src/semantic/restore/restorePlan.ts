/**
 * What to restore into Sextant's state, and whether it may run: the C# projects of the graph that
 * have no project.assets.json in the tree (the most depended-on first: the projects most questions
 * need), and the permission — restore runs the repository's MSBuild logic, so it is on only when
 * the caller says so (a trusted VS Code workspace with `sextant.restore`, or `--restore` headless).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as crypto from 'node:crypto';
import type { ProjectGraph } from '../../projects/ProjectGraph';
import { restoreOverrides } from './restoreLayout';
import { backgroundSlice } from '../../core/timeSlice';
import type { RestorePermission } from './restoreService';

/** `wanted`: the engine's option (VS Code: trusted workspace and the setting); else env SEXTANT_RESTORE=1 (`--restore`). */
export function restorePermission(wanted?: boolean): RestorePermission {
  const on = wanted ?? process.env.SEXTANT_RESTORE === '1';
  return on ? { allowed: true } : { allowed: false, why: 'it is off: pass --restore to sextant mcp / serve, or turn on sextant.restore in a trusted VS Code workspace' };
}

/** The state folder: under the index root, or (in-memory index) a per-workspace temp folder. */
export function restoreStateDir(indexRoot: string, root: string): string {
  if (indexRoot) return path.join(indexRoot, 'restore');
  return path.join(os.tmpdir(), `sextant-restore-${crypto.createHash('sha1').update(root).digest('hex').slice(0, 12)}`);
}

export interface RestorePlan {
  /** Workspace-relative project files without project.assets.json, most depended-on first. */
  projects: string[];
  /** C# projects in the graph. */
  csharp: number;
  /** Why the tree may not be restored into state (it moves restore's output itself). */
  refusal?: string;
}

export async function restorePlan(g: ProjectGraph, root: string, read: (rel: string) => string | undefined): Promise<RestorePlan> {
  // On the engine thread: one stat per project and one read per project / .targets candidate held
  // it 3.6 s in one piece on the 3,000-project workspace; yield between them.
  // Background work (no question waits for the plan): its turns also wait for cheap questions in flight.
  const slice = backgroundSlice();
  const csharp = g.projects.filter((p) => p.kind === 'csharp' && p.status !== 'failed');
  const unrestored: typeof csharp = [];
  for (const p of csharp) {
    await slice();
    if (!fs.existsSync(path.join(root, path.posix.dirname(p.path), 'obj', 'project.assets.json'))) unrestored.push(p);
  }
  const degree = new Map<string, number>();
  for (const e of g.edges) if (e.kind === 'projectReference') degree.set(e.to, (degree.get(e.to) ?? 0) + 1);
  const projects = unrestored.map((p) => p.path).sort((a, b) => (degree.get(b) ?? 0) - (degree.get(a) ?? 0) || (a < b ? -1 : 1));
  if (projects.length === 0) return { projects, csharp: csharp.length };
  const files = new Set<string>();
  for (const p of csharp) {
    files.add(p.path);
    for (let dir = path.posix.dirname(p.path); ; dir = path.posix.dirname(dir)) {
      files.add(dir === '.' ? 'Directory.Build.targets' : `${dir}/Directory.Build.targets`);
      if (dir === '.' || dir === '/' || dir === '') break;
    }
  }
  const found: string[] = [];
  for (const f of files) {
    await slice();
    found.push(...restoreOverrides([f], read));
  }
  return {
    projects,
    csharp: csharp.length,
    ...(found.length ? { refusal: `${found.slice(0, 3).join(', ')}${found.length > 3 ? ` and ${found.length - 3} more` : ''} set restore's output paths themselves, so restore would write inside the workspace` } : {}),
  };
}
