/**
 * locate_code's architecture map: at most LOCATE_MAX_LAYERS layers, each with a glob scope and
 * keywords. Read from the optional workspace file `sextant.layers.json` (bounded, validated), else
 * inferred: from the project model (the role a project's name ends with: `Acme.Billing.Journals.Data`
 * → layer `data`, scope `**\/*.Data/**`), else from folders (the folder where the source files fan
 * out, its largest children as layers). The built-in vocabulary is platform-neutral; product or
 * framework words belong in the workspace file. Cached per index version.
 */
import { isToolError } from '../../core/errors';
import { LOCATE_LAYER_FILE_MAX_BYTES, LOCATE_MAX_KEYWORDS_PER_LAYER, LOCATE_MAX_LAYERS, LOCATE_MAX_PATHS_PER_LAYER } from '../../core/limits';
import type { Engine } from '../engine';
import { projectGraph } from '../projects';

export const LAYER_FILE = 'sextant.layers.json';

export interface Layer {
  id: string;
  /** Globs over workspace-relative paths. */
  globs: string[];
  keywords: string[];
  /** Projects or folders the layer stands for (counted). */
  members: number;
}

export interface ArchitectureMap {
  source: 'file' | 'projects' | 'folders' | 'empty';
  layers: Layer[];
  /** Words naming things inside layers (project-name segments, folder names): the question's domain terms. */
  domainWords: Set<string>;
  /** Problem with the workspace file (it was ignored). */
  fileProblem?: string;
}

/** Canonical roles and the words that point at them (platform-neutral). */
const VOCABULARY: Record<string, string[]> = {
  api: ['api', 'web', 'http', 'rest', 'route', 'routes', 'endpoint', 'controller', 'request', 'response', 'grpc', 'graphql', 'validator', 'registration', 'program', 'startup'],
  application: ['application', 'app', 'service', 'services', 'usecase', 'process', 'processing', 'processor', 'workflow', 'command', 'orchestration', 'scoring', 'score'],
  domain: ['domain', 'core', 'model', 'entity', 'entities', 'policy', 'rule', 'rules', 'validation', 'specification', 'aggregate', 'extension', 'active'],
  data: ['data', 'db', 'database', 'persistence', 'repository', 'store', 'storage', 'sql', 'query', 'mapper', 'mapping', 'column', 'table', 'migration', 'infrastructure', 'planner', 'builder'],
  contracts: ['contracts', 'contract', 'dto', 'interface', 'abstractions', 'status', 'message', 'messages', 'events', 'diagnostics'],
  tests: ['test', 'tests', 'testing', 'spec', 'specs', 'fake', 'fakes', 'mock', 'mocks', 'fixture', 'fixtures'],
  ui: ['ui', 'view', 'views', 'component', 'components', 'page', 'pages', 'frontend', 'widget'],
  common: ['common', 'shared', 'util', 'utils', 'helper', 'helpers', 'logging', 'logger', 'guard', 'clock', 'time', 'text'],
};

/** The canonical role a layer name stands for, if any. */
function roleOf(name: string): string | undefined {
  const n = name.toLowerCase();
  for (const [role, words] of Object.entries(VOCABULARY)) if (role === n || words.includes(n) || words.includes(n.replace(/s$/, ''))) return role;
  return undefined;
}

function keywordsFor(id: string): string[] {
  const role = roleOf(id);
  return [...new Set([...splitWords(id), ...(role ? [role, ...VOCABULARY[role]!] : [])])];
}

/** Lower-case words of an identifier or phrase: camelCase, dots, dashes and underscores split. */
export function splitWords(s: string): string[] {
  return s
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

const cache = new WeakMap<Engine, { version: string; map: ArchitectureMap }>();

export function architectureMap(engine: Engine): ArchitectureMap {
  const c = cache.get(engine);
  if (c && c.version === engine.version) return c.map;
  const map = build(engine);
  cache.set(engine, { version: engine.version, map });
  return map;
}

function build(engine: Engine): ArchitectureMap {
  const fromFile = readLayerFile(engine);
  const domainWords = new Set<string>();
  const g = projectGraph(engine);
  for (const p of g?.projects ?? []) for (const w of splitWords(p.name)) domainWords.add(w);
  if (fromFile && 'layers' in fromFile) return { source: 'file', layers: fromFile.layers, domainWords: addFolderWords(engine, domainWords) };
  const fileProblem = fromFile?.problem;
  const withProblem = (m: ArchitectureMap): ArchitectureMap => (fileProblem ? { ...m, fileProblem } : m);
  // Projects: the role a project's name ends with, when several projects share roles.
  const projects = (g?.projects ?? []).filter((p) => p.kind !== undefined);
  if (projects.length >= 2) {
    const byRole = new Map<string, { folders: Set<string>; isTest: boolean }>();
    for (const p of projects) {
      const role = p.isTest ? 'Tests' : (p.name.split('.').pop() ?? p.name);
      const dir = p.path.includes('/') ? p.path.slice(0, p.path.lastIndexOf('/')) : '';
      const e = byRole.get(role) ?? { folders: new Set<string>(), isTest: p.isTest };
      e.folders.add(dir);
      byRole.set(role, e);
    }
    const shared = [...byRole.entries()];
    // Roles repeat across projects (a layered solution); a set of unrelated packages is mapped by folders.
    if (shared.filter(([, e]) => e.folders.size >= 2).length >= 2) {
      const layers = shared
        .sort((a, b) => b[1].folders.size - a[1].folders.size || (a[0] < b[0] ? -1 : 1))
        .slice(0, LOCATE_MAX_LAYERS)
        .map(([role, e]): Layer => {
          const folders = [...e.folders].sort();
          const suffix = `.${role}`;
          let globs: string[];
          if (role === 'Tests') globs = folders.length <= LOCATE_MAX_PATHS_PER_LAYER ? folders.map(globOf) : [`**/*${suffix}/**`, '**/*.Test/**', '**/*Tests/**'];
          else if (folders.every((f) => f.endsWith(suffix))) globs = [`**/*${suffix}/**`];
          else globs = folders.length <= LOCATE_MAX_PATHS_PER_LAYER ? folders.map(globOf) : [`{${folders.map((f) => (f ? `${f}/**` : '*')).join(',')}}`];
          return { id: role.toLowerCase(), globs, keywords: keywordsFor(role), members: folders.length };
        });
      return withProblem({ source: 'projects', layers, domainWords: addFolderWords(engine, domainWords) });
    }
  }
  // Folders: descend while one folder holds most source files, then its largest children are layers.
  const files = engine.catalog().all().filter((r) => r.fileClass === 'source' || r.fileClass === 'test');
  if (files.length === 0) return withProblem({ source: 'empty', layers: [], domainWords });
  let prefix = '';
  for (let depth = 0; depth < 4; depth++) {
    const counts = childCounts(files.map((f) => f.path), prefix);
    const top = [...counts.entries()].sort((a, b) => b[1] - a[1])[0];
    if (!top || counts.size > 1 && top[1] < files.length * 0.6) break;
    if (counts.size === 1 || top[1] >= files.length * 0.6) {
      const next = `${prefix}${top[0]}/`;
      if (!files.some((f) => f.path.startsWith(next) && f.path.slice(next.length).includes('/'))) break;
      prefix = next;
    }
  }
  const counts = childCounts(files.map((f) => f.path), prefix);
  const layers = [...counts.entries()]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, LOCATE_MAX_LAYERS)
    .map(([name, n]): Layer => ({ id: name.toLowerCase(), globs: [`${prefix}${name}/**`], keywords: keywordsFor(name), members: n }));
  return withProblem({ source: layers.length ? 'folders' : 'empty', layers, domainWords: addFolderWords(engine, domainWords) });
}

function globOf(folder: string): string {
  return folder ? `${folder}/**` : '*';
}

/** File counts per child folder of `prefix` (files directly in it are not a layer). */
function childCounts(paths: string[], prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const p of paths) {
    if (!p.startsWith(prefix)) continue;
    const rest = p.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash <= 0) continue;
    const k = rest.slice(0, slash);
    out.set(k, (out.get(k) ?? 0) + 1);
  }
  return out;
}

function addFolderWords(engine: Engine, words: Set<string>): Set<string> {
  const seen = new Set<string>();
  for (const r of engine.catalog().all()) {
    if (r.fileClass !== 'source' && r.fileClass !== 'test') continue;
    const parts = r.path.split('/');
    parts.pop();
    for (const part of parts) {
      if (seen.has(part)) continue;
      seen.add(part);
      for (const w of splitWords(part)) words.add(w);
    }
    if (seen.size > 20_000) break;
  }
  return words;
}

/** `sextant.layers.json` at the root: `{ layers: [{ id, paths: [..≤3], keywords: [..] }] }` (≤ 7 layers, ≤ 64 KiB). */
function readLayerFile(engine: Engine): { layers: Layer[] } | { problem: string } | undefined {
  let text: string;
  try {
    const r = engine.policy.readFile(LAYER_FILE, LOCATE_LAYER_FILE_MAX_BYTES);
    if (r.bytes.length > LOCATE_LAYER_FILE_MAX_BYTES) return { problem: `${LAYER_FILE} is over ${LOCATE_LAYER_FILE_MAX_BYTES} bytes` };
    text = r.bytes.toString('utf8');
  } catch (e) {
    if (isToolError(e) && (e.code === 'FILE_NOT_FOUND' || e.code === 'NOT_A_FILE')) return undefined;
    if (isToolError(e) && e.code === 'FILE_TOO_LARGE') return { problem: `${LAYER_FILE} is too large` };
    return undefined;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { problem: `${LAYER_FILE} is not valid JSON` };
  }
  const raw = (json as { layers?: unknown }).layers;
  if (!Array.isArray(raw) || raw.length === 0) return { problem: `${LAYER_FILE} has no "layers" array` };
  if (raw.length > LOCATE_MAX_LAYERS) return { problem: `${LAYER_FILE} has ${raw.length} layers; at most ${LOCATE_MAX_LAYERS}` };
  const layers: Layer[] = [];
  for (const l of raw as { id?: unknown; paths?: unknown; keywords?: unknown }[]) {
    if (typeof l?.id !== 'string' || !/^[\w.-]{1,40}$/.test(l.id)) return { problem: `${LAYER_FILE}: a layer needs an "id" (letters, digits, . _ -)` };
    const paths = Array.isArray(l.paths) ? l.paths.filter((p): p is string => typeof p === 'string' && p.length > 0 && p.length < 300 && !p.startsWith('/') && !p.split('/').includes('..')) : [];
    if (paths.length === 0 || paths.length > LOCATE_MAX_PATHS_PER_LAYER) return { problem: `${LAYER_FILE}: layer ${l.id} needs 1-${LOCATE_MAX_PATHS_PER_LAYER} repository-relative paths` };
    const kws = Array.isArray(l.keywords) ? l.keywords.filter((k): k is string => typeof k === 'string').slice(0, LOCATE_MAX_KEYWORDS_PER_LAYER) : [];
    layers.push({
      id: l.id.toLowerCase(),
      globs: paths.map((p) => (/[*?[{]/.test(p) ? p : `${p.replace(/\/+$/, '')}/**`)),
      keywords: [...new Set([...splitWords(l.id), ...kws.flatMap(splitWords)])],
      members: paths.length,
    });
  }
  return { layers };
}
