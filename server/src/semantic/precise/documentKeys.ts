/**
 * The parts of a document's key that the engine computes itself, the same way on every machine:
 * a project's compilation inputs (root-independent) and a file's declaration shape (its
 * declarations' ids, kinds and signatures from the symbol index — not their positions, so an
 * edit inside a body leaves it, and the facts of documents binding to it, unchanged).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { generatedPathParts } from '../../core/virtualPaths';
import type { IndexStore } from '../../index/store';
import type { ProjectGraph } from '../../projects/ProjectGraph';
import type { ProjectDescription } from '../roslyn/hostProtocol';
import type { ProjectDescriber } from '../roslyn/projectDescriptions';

/** A hash of what a C# compilation depends on besides its documents' text. */
export function compilationKey(d: ProjectDescription, root: string): string {
  const rel = (p: string) => {
    const r = path.relative(root, p).split(path.sep).join('/');
    return r.startsWith('..') || path.isAbsolute(r) ? path.basename(p) : r;
  };
  const inputs = {
    tfm: d.targetFramework,
    out: d.outputKind ?? '',
    lang: d.langVersion ?? '',
    nullable: d.nullable ?? '',
    unsafe: d.allowUnsafe ?? false,
    checked: d.checkForOverflow ?? false,
    defines: [...d.defines].sort(),
    usings: d.globalUsings.map((u) => JSON.stringify(u)).sort(),
    projects: [...d.projectReferences].sort(),
    packages: d.packageReferences.map((p) => `${p.id}@${p.version ?? ''}`).sort(),
    frameworks: [...d.frameworkReferences].sort(),
    references: d.references.map(rel).sort(),
    documents: d.documents.map((x) => x.path).sort(),
  };
  return crypto.createHash('sha1').update(JSON.stringify(inputs)).digest('hex');
}

/**
 * What a project's source generators read, as a hash: its compilation inputs, its analyzers and
 * generator triggers, and the content hash of every document it compiles (generator output left
 * out). A generated document (`generated:<projectKey>/…`, nothing on disk) is keyed by it: its text
 * can only change when one of these does. Undefined when a document's hash is not known now.
 */
export function generatorInputsHash(d: ProjectDescription, root: string, hashOf: (rel: string) => string | undefined): string | undefined {
  const h = crypto.createHash('sha1').update(compilationKey(d, root));
  const rel = (p: string) => {
    const r = path.relative(root, p).split(path.sep).join('/');
    return r.startsWith('..') || path.isAbsolute(r) ? path.basename(p) : r;
  };
  h.update(JSON.stringify([d.analyzers.map(rel).sort(), [...(d.generatorTriggers ?? ['*'])].sort()]));
  for (const doc of [...d.documents].filter((x) => !x.generated).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const hash = hashOf(doc.path);
    if (hash === undefined) return undefined;
    h.update(`${doc.path}\u0000${hash}\n`);
  }
  return h.digest('hex');
}

/** The declaration shape of indexed files, memoised per content hash. */
export class DeclarationShapes {
  private readonly memo = new Map<string, string>();

  /**
   * `generated`: the current key of a generator's document (`generated:…` paths are not indexed;
   * what their declarations look like can only change with the generator's inputs).
   */
  constructor(
    private readonly store: IndexStore,
    private readonly generated?: (p: string) => string | undefined,
  ) {}

  /** The shape of a file as the index holds it ('' when it is not indexed). */
  shape(p: string): string {
    if (p.startsWith('generated:')) return this.generated?.(p) ?? '';
    const row = this.store.rows('SELECT id, hash FROM files WHERE path = ?', [p])[0];
    if (!row) return '';
    const key = `${p}\u0000${row[1] as string}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    const h = crypto.createHash('sha1');
    for (const r of this.store.rows('SELECT symbol_id, kind, signature, modifiers, extended_type FROM symbols WHERE file_id = ? ORDER BY ordinal', [row[0] as number])) h.update(r.map((x) => String(x ?? '')).join('\u0001') + '\n');
    const s = h.digest('hex').slice(0, 16);
    if (this.memo.size > 200_000) this.memo.clear();
    this.memo.set(key, s);
    return s;
  }
}

/**
 * The current key of generator documents (`generated:<projectKey>/…`): the generator inputs hash
 * of their project as described now, memoised per `version` (the index version: any indexed
 * change gives a new one).
 */
export class GeneratedKeys {
  private memo: { version: string; byKey: Map<string, string | undefined> } = { version: '', byKey: new Map() };

  constructor(
    private readonly o: {
      root: string;
      describer: () => ProjectDescriber | undefined;
      hashOf: (rel: string) => string | undefined;
      version: () => string;
    },
  ) {}

  /** The key of a generated document now; undefined when its project cannot be described or a document's hash is unknown. */
  of(p: string): string | undefined {
    const parts = generatedPathParts(p);
    if (!parts) return undefined;
    const v = this.o.version();
    if (this.memo.version !== v) this.memo = { version: v, byKey: new Map() };
    if (this.memo.byKey.has(parts.projectKey)) return this.memo.byKey.get(parts.projectKey);
    const d = this.o.describer()?.describe(parts.projectKey);
    const h = d?.ok ? generatorInputsHash(d.description, this.o.root, this.o.hashOf) : undefined;
    this.memo.byKey.set(parts.projectKey, h);
    return h;
  }
}

/** Files whose text an MSBuild evaluation may read (the project describer reads no others). */
const MSBUILD_INPUT = /\.(csproj|vbproj|fsproj|proj|props|targets|projitems|shproj)$/i;
/** A property that moves generated output away from `<project>/obj/`, where the fingerprint lists it. */
const MOVES_OUTPUT = ['IntermediateOutputPath', 'BaseIntermediateOutputPath'];
/** Folders under `<project>/obj/` listed for generated files (the describer lists at most ROSLYN_GENERATED_DIRS_MAX_PER_PROJECT). */
const OBJ_DIRS_MAX = 256;

/** The files of each project, from the graph's file → projects map (`withFrameworks`: `path|tfm;tfm` when only some frameworks compile it). */
export function filesByProject(g: ProjectGraph, filter: (p: string) => boolean = () => true, withFrameworks = true): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [file, entries] of g.files) {
    if (!filter(file)) continue;
    for (const e of entries) (out.get(e.project) ?? out.set(e.project, []).get(e.project)!).push(withFrameworks && e.targetFrameworks?.length ? `${file}|${e.targetFrameworks.join(';')}` : file);
  }
  return out;
}

/**
 * A cheap fingerprint of what a C# compilation key (`compilationKey`) is computed from, without
 * evaluating the project: the content of every MSBuild file in the workspace (any project's
 * evaluation may import any of them, and project references flow transitively), the project's node
 * in the graph, the C# files under its folder and its graph membership (its Compile globs match
 * among them), and the `.cs` files under `<project>/obj/` (generated output the describer adds).
 * For a generator's document (`withContents`) also the content hash of each of those files: what
 * `generatorInputsHash` reads. Equal fingerprints ⇒ equal keys; a different one only means "describe
 * and compare". Undefined (never equal) when a workspace MSBuild file moves intermediate output
 * elsewhere (the listing would miss it) or the project is unknown. Memoised per index version.
 */
export class CompilationInputs {
  private memo: { stamp: string; graph: ProjectGraph | undefined; workspace: string | undefined; underDir: Map<string, string[]>; members: Map<string, string[]>; nodes: Map<string, ProjectGraph['projects'][number]>; byKey: Map<string, string | undefined> } | undefined;

  constructor(
    private readonly o: {
      root: string;
      graph: () => ProjectGraph | undefined;
      /** The indexed files with their content hashes. */
      files: () => Iterable<{ path: string; hash: string }>;
      hashOf: (rel: string) => string | undefined;
      version: () => string;
      /** Files whose text mentions a word (the text index). */
      filesMentioning: (word: string) => ReadonlySet<string> | undefined;
    },
  ) {}

  /** The fingerprint of a compilation (`project|tfm`) now. */
  of(projectKey: string, withContents = false): string | undefined {
    const g = this.o.graph();
    if (!g) return undefined;
    const m = this.state(g);
    const k = `${withContents ? 'c' : 'k'}:${projectKey}`;
    if (m.byKey.has(k)) return m.byKey.get(k);
    const v = this.compute(g, m, projectKey, withContents);
    m.byKey.set(k, v);
    return v;
  }

  private state(g: ProjectGraph): NonNullable<CompilationInputs['memo']> {
    const stamp = this.o.version();
    if (this.memo && this.memo.stamp === stamp && this.memo.graph === g) return this.memo;
    const msbuild: string[] = [];
    const cs: string[] = [];
    for (const f of this.o.files()) {
      if (MSBUILD_INPUT.test(f.path)) msbuild.push(`${f.path}\u0000${f.hash}`);
      else if (/\.cs$/i.test(f.path)) cs.push(f.path);
    }
    msbuild.sort();
    let workspace: string | undefined = crypto.createHash('sha1').update(msbuild.join('\n')).digest('hex');
    for (const w of MOVES_OUTPUT) {
      const hits = this.o.filesMentioning(w);
      if (!hits || [...hits].some((p) => MSBUILD_INPUT.test(p))) workspace = undefined;
    }
    // the C# files under each project folder (nested projects' files count for both)
    const dirs = new Set(g.projects.map((p) => path.posix.dirname(p.id)));
    const underDir = new Map<string, string[]>();
    for (const f of cs) {
      for (let d = path.posix.dirname(f); ; d = path.posix.dirname(d)) {
        if (dirs.has(d)) (underDir.get(d) ?? underDir.set(d, []).get(d)!).push(f);
        if (d === '.' || d === '/' || d === '') break;
      }
    }
    this.memo = { stamp, graph: g, workspace, underDir, members: filesByProject(g), nodes: new Map(g.projects.map((p) => [p.id, p])), byKey: new Map() };
    return this.memo;
  }

  private compute(g: ProjectGraph, m: NonNullable<CompilationInputs['memo']>, projectKey: string, withContents: boolean): string | undefined {
    if (m.workspace === undefined) return undefined;
    const i = projectKey.lastIndexOf('|');
    const id = i < 0 ? projectKey : projectKey.slice(0, i);
    const node = m.nodes.get(id);
    if (!node || node.kind !== 'csharp') return undefined;
    const dir = path.posix.dirname(id);
    const files = [...(m.underDir.get(dir) ?? [])].sort();
    const members = [...(m.members.get(id) ?? [])].sort();
    const obj = objListing(this.o.root, dir);
    const h = crypto.createHash('sha1');
    h.update(JSON.stringify({ v: 1, projectKey, workspace: m.workspace, node: [node.name, node.kind, node.status, node.sdk ?? '', node.assemblyName ?? '', node.targetFrameworks] }));
    h.update('\nfiles\n' + files.join('\n'));
    h.update('\nmembers\n' + members.join('\n'));
    h.update('\nobj\n' + obj.join('\n'));
    if (withContents) {
      for (const f of new Set([...files, ...members.map((x) => x.split('|')[0]!)])) {
        const hash = this.o.hashOf(f);
        if (hash === undefined) return undefined;
        h.update(`\n${f}\u0000${hash}`);
      }
      // generator output under obj/ is read by later generators too: its bytes
      for (const f of obj) {
        try {
          h.update(`\n${f}\u0000${crypto.createHash('sha1').update(fs.readFileSync(path.join(this.o.root, f))).digest('hex')}`);
        } catch {
          return undefined;
        }
      }
    }
    return h.digest('hex');
  }
}

/** The `.cs` files under `<root>/<dir>/obj/` (workspace-relative, sorted), read-only. */
function objListing(root: string, dir: string): string[] {
  const start = dir === '.' ? `${root}/obj` : `${root}/${dir}/obj`;
  const out: string[] = [];
  // most projects of a tree that was never built have no obj/ (a failed readdir throws: costly per project)
  if (!fs.statSync(start, { throwIfNoEntry: false })?.isDirectory()) return out;
  const queue = [start];
  let dirs = 0;
  while (queue.length && dirs++ < OBJ_DIRS_MAX) {
    const d = queue.shift()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      if (e.isDirectory()) queue.push(`${d}/${e.name}`);
      else if (e.isFile() && /\.cs$/i.test(e.name)) out.push(path.posix.relative(root, `${d}/${e.name}`));
    }
  }
  return out.sort();
}
