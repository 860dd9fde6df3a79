/**
 * Solutions: `.sln` (text: Project lines with type GUIDs, nested solution folders), `.slnx` (XML)
 * and `.slnf` (JSON filter naming a solution and a subset of its projects). Members are returned
 * as workspace-relative paths whether or not they exist; the graph reports missing ones.
 */
import * as path from 'node:path';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser/lib/esm/main';
import { attr, parseXml, type XmlElement } from './xmlDocument';

export interface SolutionMember {
  /** Workspace-relative project path ('' when the path leaves the workspace: see `outside`). */
  path: string;
  /** Solution folder ('' at the top level), '/'-separated. */
  folder: string;
  /** The path as written, when it points outside the workspace. */
  outside?: string;
  /** The .sln project type GUID, when given. */
  typeGuid?: string;
}

export interface SolutionRead {
  kind: 'sln' | 'slnx' | 'slnf';
  members: SolutionMember[];
  /** For .slnf: the solution it filters (workspace-relative). */
  baseSolution?: string;
  /** Problems found reading it (malformed lines, entries skipped and why). */
  problems: string[];
  failed?: boolean;
}

const FOLDER_GUID = '2150E333-8FDC-42A3-9474-1A3956D46DE8';
/** Project types the graph models; any other typed entry is reported as skipped. */
const PROJECT_GUIDS: Record<string, string> = {
  'FAE04EC0-301F-11D3-BF4B-00C04F79EFBC': 'C#',
  '9A19103F-16F7-4668-BE54-9A1E7A4F7556': 'C# (SDK)',
  'F184B08F-C81C-45F6-A57F-5ABD9991F28F': 'VB',
  '778DAE3C-4631-46EA-AA77-85C1314464D9': 'VB (SDK)',
  'F2A71F9B-5D33-465A-A702-920D77279786': 'F#',
  '6EC3EE1D-3C4E-46DD-8F32-0CC8E7565705': 'F# (SDK)',
  'D954291E-2A0B-460D-934E-DC6B0785DB48': 'shared',
};

/** Parses a solution file's text; `rel` is its workspace-relative path. */
export function readSolution(rel: string, text: string, root: string): SolutionRead {
  const ext = path.posix.extname(rel).toLowerCase();
  if (ext === '.slnx') return readSlnx(rel, text, root);
  if (ext === '.slnf') return readSlnf(rel, text, root);
  return readSln(rel, text, root);
}

function resolveMember(slnRel: string, p: string, root: string): { path: string; outside?: string } {
  const dir = path.posix.dirname(slnRel);
  const norm = path.posix.normalize(path.posix.join(dir === '.' ? '' : dir, p.replace(/\\/g, '/')));
  if (norm.startsWith('../') || norm === '..' || path.posix.isAbsolute(p.replace(/\\/g, '/'))) {
    const abs = path.posix.isAbsolute(p.replace(/\\/g, '/')) ? p.replace(/\\/g, '/') : path.posix.join(root, norm);
    if (abs.startsWith(root + '/')) return { path: abs.slice(root.length + 1) };
    return { path: '', outside: p };
  }
  return { path: norm };
}

function readSln(rel: string, text: string, root: string): SolutionRead {
  const problems: string[] = [];
  const lines = text.split(/\r?\n/);
  if (!lines.some((l) => /^\s*Microsoft Visual Studio Solution File/.test(l))) {
    problems.push('the file has no "Microsoft Visual Studio Solution File" header');
  }
  const re = /^\s*Project\("\{([0-9A-Fa-f-]+)\}"\)\s*=\s*"([^"]*)"\s*,\s*"([^"]*)"\s*,\s*"\{([0-9A-Fa-f-]+)\}"/;
  const entries: { typeGuid: string; name: string; path: string; guid: string }[] = [];
  const parent = new Map<string, string>();
  let inNested = false;
  for (const line of lines) {
    const m = re.exec(line);
    if (m) {
      entries.push({ typeGuid: m[1]!.toUpperCase(), name: m[2]!, path: m[3]!, guid: m[4]!.toUpperCase() });
      continue;
    }
    if (/^\s*Project\(/.test(line)) problems.push(`could not read the line "${line.trim().slice(0, 120)}"`);
    if (/GlobalSection\(NestedProjects\)/.test(line)) inNested = true;
    else if (inNested && /EndGlobalSection/.test(line)) inNested = false;
    else if (inNested) {
      const n = /^\s*\{([0-9A-Fa-f-]+)\}\s*=\s*\{([0-9A-Fa-f-]+)\}/.exec(line);
      if (n) parent.set(n[1]!.toUpperCase(), n[2]!.toUpperCase());
    }
  }
  const byGuid = new Map(entries.map((e) => [e.guid, e]));
  const folderOf = (guid: string): string => {
    const names: string[] = [];
    const seen = new Set<string>();
    let g = parent.get(guid);
    while (g && !seen.has(g)) {
      seen.add(g);
      const e = byGuid.get(g);
      if (!e) break;
      names.unshift(e.name);
      g = parent.get(g);
    }
    return names.join('/');
  };
  const members: SolutionMember[] = [];
  for (const e of entries) {
    if (e.typeGuid === FOLDER_GUID) continue;
    const known = PROJECT_GUIDS[e.typeGuid];
    const looksLikeProject = /\.(csproj|fsproj|vbproj|shproj)$/i.test(e.path);
    if (!known && !looksLikeProject) {
      problems.push(`'${e.name}' (${e.path}) has a project type this model does not read; skipped`);
      continue;
    }
    const r = resolveMember(rel, e.path, root);
    members.push({ path: r.path, folder: folderOf(e.guid), typeGuid: e.typeGuid, ...(r.outside ? { outside: r.outside } : {}) });
  }
  return { kind: 'sln', members, problems };
}

function readSlnx(rel: string, text: string, root: string): SolutionRead {
  const x = parseXml(text);
  if (!x.ok) return { kind: 'slnx', members: [], problems: [x.error], failed: true };
  const members: SolutionMember[] = [];
  const walk = (el: XmlElement, folder: string) => {
    for (const c of el.children) {
      if (c.name === 'Folder') {
        const name = (attr(c, 'Name') ?? '').replace(/^\/|\/$/g, '');
        walk(c, name);
      } else if (c.name === 'Project') {
        const p = attr(c, 'Path');
        if (!p) continue;
        const r = resolveMember(rel, p, root);
        members.push({ path: r.path, folder, ...(r.outside ? { outside: r.outside } : {}) });
      }
    }
  };
  walk(x.root, '');
  return { kind: 'slnx', members, problems: x.root.name === 'Solution' ? [] : [`the root element is <${x.root.name}>, not <Solution>`] };
}

function readSlnf(rel: string, text: string, root: string): SolutionRead {
  const errors: ParseError[] = [];
  const json = parseJsonc(text, errors, { allowTrailingComma: true }) as unknown;
  const sol = (json as { solution?: { path?: unknown; projects?: unknown } } | undefined)?.solution;
  if (errors.length > 0 || !sol || typeof sol.path !== 'string' || !Array.isArray(sol.projects)) {
    return { kind: 'slnf', members: [], problems: ['not a solution filter: expected {"solution": {"path": ..., "projects": [...]}}'], failed: true };
  }
  const base = resolveMember(rel, sol.path, root);
  const problems: string[] = [];
  if (base.outside) problems.push(`the filtered solution '${sol.path}' is outside the workspace`);
  const baseDir = base.outside ? path.posix.dirname(rel) : path.posix.dirname(base.path);
  const members: SolutionMember[] = [];
  for (const p of sol.projects) {
    if (typeof p !== 'string') continue;
    // Project paths in a filter are relative to the filtered solution's folder.
    const r = resolveMember(baseDir === '.' ? 'x.sln' : `${baseDir}/x.sln`, p, root);
    members.push({ path: r.path, folder: '', ...(r.outside ? { outside: r.outside } : {}) });
  }
  return { kind: 'slnf', members, problems, ...(base.outside ? {} : { baseSolution: base.path }) };
}
