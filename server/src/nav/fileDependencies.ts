/**
 * file_dependencies: which workspace files a file loads or uses, and which files depend on it.
 *
 * TS/JS: the file's module references (syntax layer, `modules.scm`) resolved by `ModuleResolver`
 * against the index's file set. The references of every parsed file are stored in the index
 * (`module_refs`, written with its outline), so `dependents` and `depth` > 1 read the index and
 * never re-parse the workspace: the forward edges are resolved per index version (a created or
 * deleted file changes what resolves), the reverse graph built from them once per version. The
 * asked file itself is parsed live when it changed since indexing; other files changed since
 * indexing are labelled `stale`.
 * C#: `csharpDependencies.ts` (semantic layer when available, else using directives + symbols).
 *
 * Rows are one per target file (several spellings of one target are one row; a row is type-only
 * only if every reference is), in a total order: depth, then path; unresolved specifiers follow,
 * by line then specifier. Packages and built-ins are counted, not listed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../core/errors';
import { FILE_DEPS_MAX_ROWS, MAX_FILE_BYTES } from '../core/limits';
import { readAllModuleRefs, readModuleRefs } from '../index/moduleRefsStore';
import { hasModuleQuery } from '../syntax/moduleRefs';
import { decodeSource } from '../syntax/parseBatch';
import { parseText } from '../syntax/parseFile';
import type { ModuleRefKind, ModuleRefs } from '../syntax/types';
import { csharpDependencies } from './csharpDependencies';
import type { Engine } from './engine';
import { ModuleResolver, type Resolution } from './moduleResolver';
import type { NavigationMode } from '../semantic/provider';
import { resolveSourceFile } from './syntaxOutline';

export type DepDirection = 'dependencies' | 'dependents';

/** A file row. `kind` is left out for a plain ES import, `depth` and `via` at depth 1. */
export interface DepFileRow {
  path: string;
  /** First line of the reference (in the depending file: the asked file, or the dependent). */
  line: number;
  kind?: Exclude<ModuleRefKind, 'import'>;
  typeOnly?: true;
  depth?: number;
  /** The file one hop nearer the asked file (depth > 1). */
  via?: string;
  /** The depending file changed since indexing (its references are the indexed ones). */
  stale?: true;
  /** C#: the project declaring the used symbols, and their names. */
  project?: string;
  uses?: string[];
}

export interface DepUnresolvedRow {
  spec: string;
  reason: 'not_found' | 'invalid' | 'outside_workspace';
  line: number;
  kind?: Exclude<ModuleRefKind, 'import'>;
}

export type DepRow = DepFileRow | DepUnresolvedRow;

export interface FileDependencies {
  path: string;
  language: string;
  direction: DepDirection;
  rows: DepRow[];
  /** Specifiers of the asked file only counted: outside packages, built-ins, computed require()/import(). */
  counts?: { packages?: number; builtins?: number; computed?: number };
  mode?: NavigationMode;
  /** Coverage missing (not truncation): files not parsed yet, a provider's gaps. */
  partial?: string;
  /** The walk stopped at FILE_DEPS_MAX_ROWS files. */
  capped?: boolean;
  notes: string[];
}

export interface DepQuery {
  path: string;
  direction: DepDirection;
  depth: number;
  includeTypeOnly: boolean;
  deadlineAt: number;
}

/** The answer for one file. Throws ToolError for bad paths, missing files, unsupported languages. */
export async function fileDependencies(engine: Engine, q: DepQuery): Promise<FileDependencies> {
  let source: ReturnType<typeof resolveSourceFile>;
  try {
    source = resolveSourceFile(engine, q.path);
  } catch (e) {
    if (e instanceof ToolError && e.code === 'UNSUPPORTED_LANGUAGE') throw unsupported(q.path);
    throw e;
  }
  const { rel, abs, config } = source;
  if (config.id === 'csharp') return csharpDependencies(engine, rel, q);
  if (!hasModuleQuery(config)) throw unsupported(rel);
  const graph = moduleGraph(engine);
  const own = await ownRefs(engine, rel, abs, config.id);
  const notes: string[] = [];
  if (own.live) notes.push('file changed since indexing: parsed now');
  const pending = engine.symbolsPending();
  const partial = pending > 0 ? `${pending} file(s) not parsed yet; their references are missing` : undefined;
  const result: FileDependencies = { path: rel, language: config.id, direction: q.direction, rows: [], notes };
  if (partial) result.partial = partial;
  if (q.direction === 'dependencies') {
    const first = graph.edgesOf(rel, own.refs, q.includeTypeOnly);
    result.rows = walk(engine, rel, first.files, q, (p) => graph.edgesOf(p, undefined, q.includeTypeOnly).files);
    const un = first.unresolved.map((u) => u as DepRow);
    if (result.rows.length >= FILE_DEPS_MAX_ROWS) result.capped = true;
    result.rows.push(...un);
    const counts: NonNullable<FileDependencies['counts']> = {};
    if (first.packages) counts.packages = first.packages;
    if (first.builtins) counts.builtins = first.builtins;
    if (own.refs?.computed) counts.computed = own.refs.computed;
    if (Object.keys(counts).length) result.counts = counts;
    if (own.refs?.truncated) notes.push('more module references than are kept per file: the rest are not listed');
  } else {
    const reverse = graph.reverse(q.includeTypeOnly);
    result.rows = walk(engine, rel, reverse.get(rel) ?? [], q, (p) => reverse.get(p) ?? []);
    if (result.rows.length >= FILE_DEPS_MAX_ROWS) result.capped = true;
  }
  return result;
}

function unsupported(rel: string): ToolError {
  return new ToolError('UNSUPPORTED_LANGUAGE', `file_dependencies does not cover '${rel}'`, 'it covers TypeScript, JavaScript and C# files; for others use search_text with the file name to find its uses');
}

/** One resolved edge: from the depending file to the file it loads. */
interface Edge {
  /** The other end (the loaded file for dependencies, the dependent for dependents). */
  path: string;
  line: number;
  kind: ModuleRefKind;
  typeOnly: boolean;
}

/** Breadth-first to `depth` hops; each file once, at its first (nearest) hop, ties by path. */
function walk(engine: Engine, start: string, first: Edge[], q: DepQuery, next: (p: string) => Edge[]): DepFileRow[] {
  const seen = new Set<string>([start]);
  const pending = engine.pendingPaths();
  const rows: DepFileRow[] = [];
  let frontier: { edge: Edge; via?: string }[] = first.map((edge) => ({ edge }));
  for (let d = 1; d <= q.depth && frontier.length > 0; d++) {
    frontier.sort((a, b) => cmp(a.edge.path, b.edge.path) || cmp(a.via ?? '', b.via ?? ''));
    const level: DepFileRow[] = [];
    for (const { edge, via } of frontier) {
      if (seen.has(edge.path)) continue;
      seen.add(edge.path);
      const row: DepFileRow = { path: edge.path, line: edge.line };
      if (edge.kind !== 'import') row.kind = edge.kind;
      if (edge.typeOnly) row.typeOnly = true;
      if (d > 1) {
        row.depth = d;
        row.via = via!;
      }
      // The file whose text holds the reference: the asked file's own references were read live.
      const holder = q.direction === 'dependents' ? edge.path : via;
      if (holder && pending.has(holder)) row.stale = true;
      level.push(row);
      if (rows.length + level.length >= FILE_DEPS_MAX_ROWS) break;
    }
    rows.push(...level);
    if (rows.length >= FILE_DEPS_MAX_ROWS || d === q.depth || Date.now() > q.deadlineAt) break;
    frontier = level.flatMap((r) => next(r.path).map((edge) => ({ edge, via: r.path })));
  }
  return rows;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The asked file's references: from the index when the file is the one indexed, else parsed now. */
async function ownRefs(engine: Engine, rel: string, abs: string, language: string): Promise<{ refs: ModuleRefs | undefined; live: boolean }> {
  const row = engine.catalog().byRelPath(rel);
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(abs);
  } catch {
    st = undefined;
  }
  if (row && st && row.size === st.size && row.mtimeMs === Math.floor(st.mtimeMs)) {
    const stored = readModuleRefs(engine.store, row.id);
    if (stored) return { refs: stored, live: false };
  }
  const { bytes } = engine.policy.readFile(rel, MAX_FILE_BYTES);
  const text = decodeSource(bytes);
  if (text === undefined) throw new ToolError('BINARY_FILE', `'${rel}' is a binary file`, 'file_dependencies reads source files only');
  const parsed = await parseText(rel, text, language);
  return { refs: parsed.modules, live: true };
}

interface FileEdges {
  files: Edge[];
  unresolved: DepUnresolvedRow[];
  packages: number;
  builtins: number;
}

/** A file's resolved edges and the content hash they were resolved from. */
interface ForwardEntry {
  hash: string;
  edges: FileEdges;
}

/**
 * The resolved module graph of one index version. A later version whose resolution inputs are the
 * same (the same file paths, the same package.json / tsconfig / jsconfig contents) starts from the
 * previous one: the edges of a file whose content hash did not change are kept, so an edit costs
 * the edited files' resolution, not the workspace's.
 */
class ModuleGraph {
  private readonly forward: Map<string, ForwardEntry>;
  private readonly reverses = new Map<boolean, Map<string, Edge[]>>();

  constructor(readonly version: string, readonly inputsKey: string, private readonly engine: Engine, readonly resolver: ModuleResolver, previous?: ModuleGraph) {
    this.forward = previous ? new Map(previous.forward) : new Map();
  }

  resolveOne(spec: string, from: string): Resolution {
    return this.resolver.resolve(spec, from);
  }

  /** Edges of `file` (its stored references unless `refs` is given), merged per target. */
  edgesOf(file: string, refs: ModuleRefs | undefined, includeTypeOnly: boolean, bulk?: Map<number, ModuleRefs>): FileEdges {
    if (refs) return this.resolveAll(file, refs, includeTypeOnly);
    const key = `${includeTypeOnly ? 1 : 0}:${file}`;
    const row = this.engine.catalog().byRelPath(file);
    const hash = row?.hash ?? '';
    const hit = this.forward.get(key);
    if (hit && hit.hash === hash) return hit.edges;
    const stored = row ? (bulk?.get(row.id) ?? readModuleRefs(this.engine.store, row.id)) : undefined;
    const edges = this.resolveAll(file, stored, includeTypeOnly);
    // Not kept while the file's references are not written yet (its outline is pending): the same
    // hash would otherwise keep the empty edges after they are.
    if (stored) this.forward.set(key, { hash, edges });
    return edges;
  }

  private resolveAll(file: string, refs: ModuleRefs | undefined, includeTypeOnly: boolean): FileEdges {
    const byTarget = new Map<string, Edge>();
    const unresolved = new Map<string, DepUnresolvedRow>();
    const packages = new Set<string>();
    const builtins = new Set<string>();
    for (const ref of refs?.refs ?? []) {
      if (ref.typeOnly && !includeTypeOnly) continue;
      const r: Resolution = this.resolver.resolve(ref.spec, file);
      if (r.kind === 'file') {
        const e = byTarget.get(r.path);
        if (!e) byTarget.set(r.path, { path: r.path, line: ref.line, kind: ref.kind, typeOnly: ref.typeOnly === true });
        else {
          if (!ref.typeOnly) e.typeOnly = false;
          if (ref.line < e.line) {
            e.line = ref.line;
            e.kind = ref.kind;
          }
        }
      } else if (r.kind === 'package') packages.add(ref.spec);
      else if (r.kind === 'builtin') builtins.add(ref.spec.replace(/^node:/, ''));
      else if (!unresolved.has(ref.spec)) {
        const u: DepUnresolvedRow = { spec: ref.spec, reason: r.reason, line: ref.line };
        if (ref.kind !== 'import') u.kind = ref.kind;
        unresolved.set(ref.spec, u);
      }
    }
    byTarget.delete(file);
    const un = [...unresolved.values()].sort((a, b) => a.line - b.line || cmp(a.spec, b.spec));
    return { files: [...byTarget.values()], unresolved: un, packages: packages.size, builtins: builtins.size };
  }

  /** Target → the files loading it (each edge carries the dependent's path and line). */
  reverse(includeTypeOnly: boolean): Map<string, Edge[]> {
    let rev = this.reverses.get(includeTypeOnly);
    if (rev) return rev;
    rev = new Map();
    const catalog = this.engine.catalog();
    // The first build of a workspace reads every stored row at once; later versions only the changed files'.
    const bulk = this.forward.size === 0 ? readAllModuleRefs(this.engine.store) : undefined;
    for (const row of catalog.all()) {
      if (!row.language || !MODULE_LANGUAGES.has(row.language)) continue;
      for (const e of this.edgesOf(row.path, undefined, includeTypeOnly, bulk).files) {
        let list = rev.get(e.path);
        if (!list) rev.set(e.path, (list = []));
        list.push({ path: row.path, line: e.line, kind: e.kind, typeOnly: e.typeOnly });
      }
    }
    this.reverses.set(includeTypeOnly, rev);
    return rev;
  }
}

/** Languages whose files carry module references (their folders ship modules.scm). */
const MODULE_LANGUAGES = new Set(['typescript', 'tsx', 'javascript']);
const RESOLUTION_INPUT = /(^|\/)(package\.json|(tsconfig|jsconfig)[\w.-]*\.json)$/;

const graphs = new WeakMap<Engine, ModuleGraph>();

/** What resolution depends on besides a file's own references: the file paths and the config files' contents. */
function inputsKeyOf(engine: Engine): string {
  let paths = 0;
  let configs = 0;
  let n = 0;
  for (const r of engine.catalog().all()) {
    n++;
    paths = (paths + hash32(r.path)) | 0;
    if (RESOLUTION_INPUT.test(r.path)) configs = (configs + hash32(r.path + '\0' + r.hash)) | 0;
  }
  return `${n}:${paths >>> 0}:${configs >>> 0}`;
}

function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h;
}

/** The graph of the engine's current index version (rebuilt lazily when the version moves). */
export function moduleGraph(engine: Engine): ModuleGraph {
  const version = engine.version;
  const cached = graphs.get(engine);
  if (cached && cached.version === version) return cached;
  const inputsKey = inputsKeyOf(engine);
  if (cached && cached.inputsKey === inputsKey) {
    const g = new ModuleGraph(version, inputsKey, engine, cached.resolver, cached);
    graphs.set(engine, g);
    return g;
  }
  const catalog = engine.catalog();
  const root = engine.root;
  const resolver = new ModuleResolver(
    {
      has: (rel) => {
        const r = catalog.byRelPath(rel);
        return r !== undefined && !r.binary;
      },
      read: (rel) => {
        try {
          return decodeSource(engine.policy.readFile(rel, MAX_FILE_BYTES).bytes);
        } catch {
          return undefined;
        }
      },
      inside: (rel) => engine.policy.canonicalInside(path.join(root, rel)) !== undefined,
      root,
    },
    () => catalog.all().map((r) => r.path),
  );
  const g = new ModuleGraph(version, inputsKey, engine, resolver);
  graphs.set(engine, g);
  return g;
}

/** How `spec` written in `from` resolves in the current index version (for checks against tsc). */
export function resolveModuleSpecifier(engine: Engine, spec: string, from: string): Resolution {
  return moduleGraph(engine).resolveOne(spec, from);
}
