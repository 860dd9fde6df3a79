/**
 * Node workspaces: every package.json (outside node_modules) is a `node` project; `workspaces`
 * (npm/yarn) and pnpm-workspace.yaml say which packages belong together, and dependencies between
 * workspace packages become project references. Every tsconfig*.json is a `tsconfig` project with
 * its include/exclude/files (after `extends`) and `references`.
 */
import * as path from 'node:path';
import picomatch from 'picomatch';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser/lib/esm/main';
import type { WorkspaceFiles } from '../WorkspaceFiles';
import type { ProjectStatus } from '../ProjectGraph';

export interface NodeProject {
  path: string;
  name: string;
  kind: 'node' | 'tsconfig';
  isTest: boolean;
  status: ProjectStatus;
  reasons: string[];
  files: string[];
  /** Workspace-relative paths of referenced projects (package.json or tsconfig). */
  references: string[];
  packages: { name: string; version: string }[];
  inputs: string[];
}

export type ReadText = (rel: string) => { ok: true; text: string } | { ok: false; error: string };

const SOURCE_EXT = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const DEP_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'] as const;
const TEST_PATH = /(^|\/)(tests?|__tests__|e2e|spec)(\/|$)|(^|[-.])(tests?|spec|e2e)(\.|$)/i;

/**
 * Reads every package.json and tsconfig*.json of the workspace. `onDisk` tells whether a folder
 * exists even though the listing has nothing under it (ignored or default-excluded folders).
 */
export function readNodeProjects(files: WorkspaceFiles, read: ReadText, onDisk: (rel: string) => boolean = () => false): NodeProject[] {
  const all = files.all().filter((f) => !f.split('/').includes('node_modules'));
  const packageJsons = all.filter((f) => path.posix.basename(f) === 'package.json');
  const configs = all.filter((f) => /^(tsconfig|jsconfig)(\.[\w.-]+)?\.json$/.test(path.posix.basename(f)));
  // A project is what tsserver opens (tsconfig.json / jsconfig.json) or what a project's
  // `references` names; other tsconfig.*.json files (bases only ever extended) are not projects.
  const referenced = new Set<string>();
  for (const c of configs) {
    try {
      for (const r of tsconfigReferences(c, read)) referenced.add(r);
    } catch {
      /* reported when the config itself is read */
    }
  }
  const tsconfigs = configs.filter((f) => /^(tsconfig|jsconfig)\.json$/.test(path.posix.basename(f)) || referenced.has(f));
  return [...readPackages(files, all, packageJsons, read, onDisk), ...tsconfigs.map((t) => readTsconfigSafely(files, t, read))];
}

// ---- package.json ----------------------------------------------------------------------------

interface Pkg {
  rel: string;
  dir: string;
  json?: Record<string, unknown>;
  error?: string;
}

function readPackages(files: WorkspaceFiles, all: string[], packageJsons: string[], read: ReadText, onDisk: (rel: string) => boolean): NodeProject[] {
  const pkgs: Pkg[] = packageJsons.map((rel) => {
    const dir = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
    const r = read(rel);
    if (!r.ok) return { rel, dir, error: r.error };
    try {
      const json = JSON.parse(r.text.replace(/^\uFEFF/, '')) as unknown;
      if (!json || typeof json !== 'object' || Array.isArray(json)) return { rel, dir, error: 'package.json is not a JSON object' };
      return { rel, dir, json: json as Record<string, unknown> };
    } catch (e) {
      return { rel, dir, error: `package.json is not valid JSON: ${(e as Error).message}` };
    }
  });
  // Workspace membership: package name → package.json path, for names declared by some workspace root.
  const members = new Map<string, string>();
  const roots = new Map<string, string[]>();
  const unindexed = new Map<string, string[]>();
  for (const p of pkgs) {
    const patterns = workspacePatterns(p, files, read);
    if (patterns.length === 0) continue;
    for (const pat of patterns) {
      if (pat.startsWith('!')) continue;
      const segs = pat.split('/');
      const i = segs.findIndex((x) => x.includes('*') || x.includes('?'));
      const base = [p.dir, ...segs.slice(0, i < 0 ? segs.length : i)].filter(Boolean).join('/');
      if (base && !files.hasDir(base) && onDisk(base)) {
        const l = unindexed.get(p.rel) ?? [];
        l.push(`workspace pattern '${pat}' points into ${base}/, which exists but is not indexed (ignored, or excluded by default: re-admit it with --include)`);
        unindexed.set(p.rel, l);
      }
    }
    const inc = patterns.filter((x) => !x.startsWith('!')).map((x) => picomatch(x.replace(/\/$/, ''), { dot: false }));
    const exc = patterns.filter((x) => x.startsWith('!')).map((x) => picomatch(x.slice(1).replace(/\/$/, ''), { dot: false }));
    const list: string[] = [];
    for (const q of pkgs) {
      if (q === p || !q.json) continue;
      const relDir = p.dir === '' ? q.dir : q.dir.startsWith(p.dir + '/') ? q.dir.slice(p.dir.length + 1) : undefined;
      if (relDir === undefined || relDir === '') continue;
      if (inc.some((m) => m(relDir)) && !exc.some((m) => m(relDir))) {
        list.push(q.rel);
        const name = typeof q.json.name === 'string' ? q.json.name : undefined;
        if (name) members.set(name, q.rel);
      }
    }
    roots.set(p.rel, list);
  }
  const pkgDirs = new Set(pkgs.map((p) => p.dir));
  return pkgs.map((p) => {
    const name = typeof p.json?.name === 'string' ? (p.json.name as string) : p.dir === '' ? '(root)' : path.posix.basename(p.dir);
    const project: NodeProject = {
      path: p.rel,
      name,
      kind: 'node',
      isTest: TEST_PATH.test(p.dir) || TEST_PATH.test(name),
      status: 'complete',
      reasons: [],
      files: ownFiles(p.dir, all, pkgDirs),
      references: [],
      packages: [],
      inputs: [p.rel],
    };
    if (p.error || !p.json) return { ...project, status: 'failed', reasons: [p.error ?? 'unreadable'], files: [] };
    const refs = new Set<string>(roots.get(p.rel) ?? []);
    for (const field of DEP_FIELDS) {
      const deps = p.json[field];
      if (!deps || typeof deps !== 'object') continue;
      for (const [dep, version] of Object.entries(deps as Record<string, unknown>)) {
        const local = members.get(dep);
        if (local && local !== p.rel) refs.add(local);
        else if (!project.packages.some((x) => x.name === dep)) project.packages.push({ name: dep, version: String(version) });
      }
    }
    project.references = [...refs];
    const notIndexed = unindexed.get(p.rel);
    if (notIndexed) {
      project.reasons.push(...notIndexed);
      project.status = 'partial';
    }
    return project;
  });
}

function workspacePatterns(p: Pkg, files: WorkspaceFiles, read: ReadText): string[] {
  const out: string[] = [];
  const ws = p.json?.workspaces;
  if (Array.isArray(ws)) out.push(...ws.filter((x): x is string => typeof x === 'string'));
  else if (ws && typeof ws === 'object' && Array.isArray((ws as { packages?: unknown }).packages)) {
    out.push(...((ws as { packages: unknown[] }).packages.filter((x): x is string => typeof x === 'string')));
  }
  const pnpm = p.dir === '' ? 'pnpm-workspace.yaml' : `${p.dir}/pnpm-workspace.yaml`;
  if (files.has(pnpm)) {
    const r = read(pnpm);
    if (r.ok) {
      // The `packages:` list of pnpm-workspace.yaml: one quoted or bare entry per "- " line.
      let inPackages = false;
      for (const line of r.text.split(/\r?\n/)) {
        if (/^packages\s*:/.test(line)) inPackages = true;
        else if (/^\S/.test(line)) inPackages = false;
        else if (inPackages) {
          const m = /^\s*-\s*['"]?([^'"#]+?)['"]?\s*(#.*)?$/.exec(line);
          if (m) out.push(m[1]!);
        }
      }
    }
  }
  return out.map((x) => x.replace(/^\.\//, ''));
}

/** Source files under `dir` that no nested package owns, outside node_modules. */
function ownFiles(dir: string, all: string[], pkgDirs: Set<string>): string[] {
  const out: string[] = [];
  const prefix = dir === '' ? '' : dir + '/';
  for (const f of all) {
    if (!f.startsWith(prefix) || !SOURCE_EXT.test(f)) continue;
    let d = path.posix.dirname(f);
    let owned = true;
    while (d !== '.' && d !== dir && d !== '') {
      if (pkgDirs.has(d)) {
        owned = false;
        break;
      }
      d = path.posix.dirname(d);
    }
    if (owned) out.push(f);
  }
  return out;
}

// ---- tsconfig.json ---------------------------------------------------------------------------

interface TsConfigLayer {
  dir: string;
  files?: string[];
  include?: string[];
  exclude?: string[];
  allowJs?: boolean;
  outDir?: string;
}

/** One tsconfig; a bug or a pathological file fails that project only. */
function readTsconfigSafely(files: WorkspaceFiles, rel: string, read: ReadText): NodeProject {
  try {
    return readTsconfig(files, rel, read);
  } catch (e) {
    return { path: rel, name: rel, kind: 'tsconfig', isTest: false, status: 'failed', reasons: [`could not be read: ${(e as Error).message}`], files: [], references: [], packages: [], inputs: [rel] };
  }
}

/** The `references` of a tsconfig as workspace-relative config paths ([] when unreadable). */
function tsconfigReferences(rel: string, read: ReadText): string[] {
  const r = read(rel);
  if (!r.ok) return [];
  const json = parseJsonc(r.text, [], { allowTrailingComma: true }) as { references?: unknown } | undefined;
  if (!json || !Array.isArray(json.references)) return [];
  const dir = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
  return json.references
    .map((x) => (x && typeof x === 'object' && typeof (x as { path?: unknown }).path === 'string' ? (x as { path: string }).path : undefined))
    .filter((x): x is string => x !== undefined)
    .map((p) => {
      const t = path.posix.normalize(path.posix.join(dir, p.replace('${configDir}', dir)));
      return t.endsWith('.json') ? t : `${t}/tsconfig.json`;
    });
}

function readTsconfig(files: WorkspaceFiles, rel: string, read: ReadText): NodeProject {
  const dir = path.posix.dirname(rel) === '.' ? '' : path.posix.dirname(rel);
  const name = dir === '' ? path.posix.basename(rel) : `${dir}/${path.posix.basename(rel)}`;
  const project: NodeProject = {
    path: rel,
    name,
    kind: 'tsconfig',
    isTest: TEST_PATH.test(rel),
    status: 'complete',
    reasons: [],
    files: [],
    references: [],
    packages: [],
    inputs: [rel],
  };
  const layers: TsConfigLayer[] = [];
  let references: string[] = [];
  const seen = new Set<string>();
  const load = (cfgRel: string, leaf: boolean): boolean => {
    if (seen.has(cfgRel)) {
      project.reasons.push(`extends cycle at ${cfgRel}`);
      return true;
    }
    seen.add(cfgRel);
    if (cfgRel !== rel) project.inputs.push(cfgRel);
    const r = read(cfgRel);
    if (!r.ok) {
      if (leaf) {
        project.status = 'failed';
        project.reasons.push(r.error);
        return false;
      }
      project.reasons.push(`extended config ${cfgRel} could not be read: ${r.error}`);
      return true;
    }
    const errors: ParseError[] = [];
    const json = parseJsonc(r.text, errors, { allowTrailingComma: true }) as Record<string, unknown> | undefined;
    if (!json || typeof json !== 'object' || (errors.length > 0 && leaf && Object.keys(json).length === 0)) {
      if (leaf) {
        project.status = 'failed';
        project.reasons.push(`${cfgRel} is not valid JSON`);
        return false;
      }
      project.reasons.push(`extended config ${cfgRel} is not valid JSON`);
      return true;
    }
    if (errors.length > 0) project.reasons.push(`${cfgRel} has JSON syntax errors (read as far as possible)`);
    const cfgDir = path.posix.dirname(cfgRel) === '.' ? '' : path.posix.dirname(cfgRel);
    const ext = json.extends;
    const bases = typeof ext === 'string' ? [ext] : Array.isArray(ext) ? ext.filter((x): x is string => typeof x === 'string') : [];
    for (const b of bases) {
      const target = resolveExtends(files, cfgDir, b);
      if (target === undefined) project.reasons.push(`extends '${b}' is not a workspace file; not read`);
      else load(target, false);
    }
    const co = (json.compilerOptions ?? {}) as Record<string, unknown>;
    const layer: TsConfigLayer = { dir: cfgDir };
    const strs = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);
    const f = strs(json.files);
    const inc = strs(json.include);
    const exc = strs(json.exclude);
    if (f) layer.files = f;
    if (inc) layer.include = inc;
    if (exc) layer.exclude = exc;
    if (typeof co.allowJs === 'boolean') layer.allowJs = co.allowJs;
    if (typeof co.outDir === 'string') layer.outDir = co.outDir;
    layers.push(layer);
    if (leaf && Array.isArray(json.references)) {
      references = json.references
        .map((x) => (x && typeof x === 'object' && typeof (x as { path?: unknown }).path === 'string' ? (x as { path: string }).path : undefined))
        .filter((x): x is string => x !== undefined)
        .map((p) => {
          const t = path.posix.normalize(path.posix.join(cfgDir, p.replace('${configDir}', cfgDir)));
          return t.endsWith('.json') ? t : `${t}/tsconfig.json`;
        });
    }
    return true;
  };
  if (!load(rel, true)) return project;
  // Later layers (closer to the leaf) override earlier ones field by field.
  let filesL: TsConfigLayer | undefined;
  let incL: TsConfigLayer | undefined;
  let excL: TsConfigLayer | undefined;
  let allowJs = path.posix.basename(rel).startsWith('jsconfig');
  let outDir: string | undefined;
  for (const l of layers) {
    if (l.files) filesL = l;
    if (l.include) incL = l;
    if (l.exclude) excL = l;
    if (l.allowJs !== undefined) allowJs = l.allowJs;
    if (l.outDir !== undefined) outDir = path.posix.normalize(path.posix.join(l.dir, l.outDir.replace('${configDir}', dir)));
  }
  const ext = allowJs ? /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/ : /\.(ts|tsx|mts|cts)$/;
  const out = new Set<string>();
  for (const f of filesL?.files ?? []) {
    const p = path.posix.normalize(path.posix.join(filesL!.dir, f.replace('${configDir}', dir)));
    if (files.has(p)) out.add(p);
  }
  const includes = incL ? incL.include!.map((p) => [incL!.dir, p] as const) : filesL ? [] : [[dir, '**/*'] as const];
  const excludes = excL
    ? excL.exclude!.map((p) => [excL!.dir, p] as const)
    : [[dir, 'node_modules'], [dir, 'bower_components'], [dir, 'jspm_packages'], ...(outDir !== undefined ? [['', outDir] as const] : [])];
  const exMatchers = excludes.map(([d, p]) => {
    const pat = tsPattern(d, p.replace('${configDir}', dir));
    return picomatch([pat, `${pat}/**`], { dot: false });
  });
  for (const [d, p] of includes) {
    const pat = tsPattern(d, p.replace('${configDir}', dir));
    const last = pat.slice(pat.lastIndexOf('/') + 1);
    const isDirPattern = !last.includes('*') && !last.includes('?') && !/\.[A-Za-z0-9]+$/.test(last);
    const matcher = picomatch(isDirPattern ? `${pat}/**/*` : pat, { dot: false });
    for (const f of files.under(globBase(pat))) {
      if (!ext.test(f) || f.split('/').includes('node_modules')) continue;
      if (matcher(f) && !exMatchers.some((m) => m(f))) out.add(f);
    }
  }
  project.files = [...out].sort();
  project.references = references;
  if (project.reasons.length > 0 && project.status === 'complete') project.status = 'partial';
  return project;
}

function tsPattern(dir: string, p: string): string {
  const joined = path.posix.normalize(path.posix.join(dir, p.replace(/\\/g, '/')));
  return joined === '.' ? '' : joined.replace(/\/$/, '');
}

function globBase(pattern: string): string {
  const segs = pattern.split('/');
  const i = segs.findIndex((s) => s.includes('*') || s.includes('?'));
  return (i < 0 ? segs.slice(0, -1) : segs.slice(0, i)).join('/');
}

function resolveExtends(files: WorkspaceFiles, dir: string, spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('/')) {
    const base = path.posix.normalize(path.posix.join(dir, spec));
    for (const c of [base, `${base}.json`, `${base}/tsconfig.json`]) if (files.has(c)) return c;
    return undefined;
  }
  // A package: look for it in a node_modules folder of the workspace listing, nearest first.
  let d = dir;
  for (;;) {
    const base = d === '' ? `node_modules/${spec}` : `${d}/node_modules/${spec}`;
    for (const c of [base, `${base}.json`, `${base}/tsconfig.json`]) if (files.has(c)) return c;
    if (d === '') return undefined;
    d = path.posix.dirname(d) === '.' ? '' : path.posix.dirname(d);
  }
}
