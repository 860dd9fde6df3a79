/**
 * ProjectDescriptions for the Roslyn host, from Sextant's own evaluated MSBuild model — no
 * design-time build, nothing run in the user's tree. The project graph knows each project's files
 * per target framework but not its compile options, so a needed project+framework is evaluated
 * again here (same evaluator, same SDK model) with the item types a compilation needs besides
 * Compile: `Using`, `FrameworkReference`, `Reference`, `Analyzer`. Generated files present under
 * the project's intermediate folder (obj/…/generated/**, *.g.cs) are found by a read-only listing.
 *
 * Framework defines, default language versions and nearest-framework matching follow the .NET
 * SDK's documented rules (docs: "Target frameworks in SDK-style projects", "C# language
 * versioning", NuGet's framework compatibility).
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_PROJECT_FILE_BYTES, ROSLYN_GENERATED_DIRS_MAX_PER_PROJECT, ROSLYN_GENERATED_FILES_MAX_PER_PROJECT } from '../../core/limits';
import type { PathPolicy } from '../../core/paths';
import type { ProjectGraph, ProjectNode } from '../../projects/ProjectGraph';
import { WorkspaceFiles } from '../../projects/WorkspaceFiles';
import { evaluateProject, type Evaluation, type EvaluationContext } from '../../projects/msbuild/evaluateProject';
import { parseXml, type XmlParse } from '../../projects/msbuild/xmlDocument';
import type { GlobalUsing, ProjectDescription, ProjectKey } from './hostProtocol';

/** Item types a compilation needs besides the graph's tracked ones. */
const COMPILATION_ITEMS = ['using', 'frameworkreference', 'reference', 'analyzer', 'internalsvisibleto', 'assemblyattribute'] as const;

export interface DescriptionInput {
  /** Canonical absolute workspace root (POSIX). */
  root: string;
  graph: ProjectGraph;
  /** The indexed file list (globs are answered from it, as for the graph). */
  files: Iterable<string>;
  policy: PathPolicy;
  /** A project's (workspace-relative) assets file restored into Sextant's state, when the tree has none (semantic/restore/). */
  restoredAssets?: (project: string) => string | undefined;
}

export type Described =
  | { ok: true; description: ProjectDescription; notes: string[] }
  | { ok: false; reason: string };

function assetsInState(input: DescriptionInput, project: string): { assetsFile?: string } {
  const f = input.restoredAssets?.(project);
  return f ? { assetsFile: f.replace(/\\/g, '/') } : {};
}

/** `<project path>|<tfm>` */
export function projectKey(project: string, tfm: string | undefined): ProjectKey {
  return `${project}|${tfm ?? ''}`;
}

export function splitKey(key: ProjectKey): { project: string; tfm: string } {
  const i = key.lastIndexOf('|');
  return i < 0 ? { project: key, tfm: '' } : { project: key.slice(0, i), tfm: key.slice(i + 1) };
}

/** Describes projects of one graph version; evaluations are cached for its lifetime. */
export class ProjectDescriber {
  private readonly files: WorkspaceFiles;
  private readonly nodes: Map<string, ProjectNode>;
  private readonly xml = new Map<string, XmlParse>();
  private readonly evaluations = new Map<string, Evaluation | { failed: string }>();
  private readonly described = new Map<ProjectKey, Described>();

  constructor(private readonly input: DescriptionInput) {
    this.files = new WorkspaceFiles(input.files);
    this.nodes = new Map(input.graph.projects.map((p) => [p.id, p]));
  }

  /** The key a file's question binds in: its (first) C# project and that project's first framework it compiles under. */
  keysOfFile(rel: string): ProjectKey[] {
    const out: ProjectKey[] = [];
    for (const e of this.input.graph.files.get(rel) ?? []) {
      const n = this.nodes.get(e.project);
      if (!n || n.kind !== 'csharp') continue;
      const tfms = e.targetFrameworks?.length ? e.targetFrameworks : n.targetFrameworks;
      out.push(projectKey(n.id, tfms[0]));
    }
    return out;
  }

  /** The key of a project (its first framework), or undefined for a project that is not C#. */
  keyOfProject(id: string): ProjectKey | undefined {
    const n = this.nodes.get(id);
    if (!n || n.kind !== 'csharp') return undefined;
    return projectKey(n.id, n.targetFrameworks[0]);
  }

  node(id: string): ProjectNode | undefined {
    return this.nodes.get(id);
  }

  describe(key: ProjectKey): Described {
    let d = this.described.get(key);
    if (!d) {
      try {
        d = this.build(key);
        if (d.ok) d = this.withTransitiveReferences(d);
      } catch (e) {
        d = { ok: false, reason: `internal error while describing ${key}: ${(e as Error).message}` };
      }
      this.described.set(key, d);
    }
    return d;
  }

  /**
   * Project references flow transitively in SDK projects (a project compiles against the whole
   * closure of what it references, unless a reference says `PrivateAssets="all"` or the project
   * sets DisableTransitiveProjectReferences): a Roslyn compilation sees only what is listed, so
   * the closure is listed (MassTransit.Newtonsoft → MassTransit → MassTransit.Abstractions: without
   * it IMessageSerializer did not bind).
   */
  private withTransitiveReferences(d: Extract<Described, { ok: true }>): Described {
    const key = d.description.key;
    if (this.building.has(key)) return d; // a cycle: its own references only
    this.building.add(key);
    try {
      const own = this.direct.get(key) ?? { refs: d.description.projectReferences, privateRefs: new Set<ProjectKey>(), disableTransitive: false };
      if (own.disableTransitive) return d;
      const out = new Set<ProjectKey>(own.refs);
      for (const r of own.refs) {
        const rd = this.describe(r);
        if (!rd.ok) continue;
        for (const t of this.exposed.get(r) ?? rd.description.projectReferences) if (t !== key) out.add(t);
      }
      // What this project passes on to its dependents: all but its PrivateAssets="all" references.
      const exposed: ProjectKey[] = [];
      for (const r of own.refs) {
        if (own.privateRefs.has(r)) continue;
        exposed.push(r);
        const rd = this.described.get(r);
        if (rd?.ok) for (const t of this.exposed.get(r) ?? rd.description.projectReferences) exposed.push(t);
      }
      this.exposed.set(key, unique(exposed.filter((t) => t !== key)));
      if (out.size === d.description.projectReferences.length) return d;
      const { hash: _old, ...body } = d.description;
      const withRefs = { ...body, projectReferences: [...out] };
      const hash = crypto.createHash('sha1').update(JSON.stringify(withRefs)).digest('hex');
      return { ok: true, description: { ...withRefs, hash }, notes: d.notes };
    } finally {
      this.building.delete(key);
    }
  }
  private readonly building = new Set<ProjectKey>();
  /** Direct references as evaluated, with those not passed on (PrivateAssets="all"). */
  private readonly direct = new Map<ProjectKey, { refs: ProjectKey[]; privateRefs: Set<ProjectKey>; disableTransitive: boolean }>();
  /** References a project passes on to its dependents (transitively). */
  private readonly exposed = new Map<ProjectKey, ProjectKey[]>();

  private build(key: ProjectKey): Described {
    const { project, tfm } = splitKey(key);
    const node = this.nodes.get(project);
    if (!node) return { ok: false, reason: `${project} is not in the project model` };
    if (node.kind !== 'csharp') return { ok: false, reason: `${project} is not a C# project` };
    if (node.status === 'failed') return { ok: false, reason: `${project} could not be evaluated: ${node.reasons[0] ?? 'unknown reason'}` };
    const ev = this.evaluate(project, tfm);
    if ('failed' in ev) return { ok: false, reason: ev.failed };
    const notes: string[] = [];
    const prop = (n: string) => ev.properties.get(n.toLowerCase())?.value.trim() ?? '';
    const root = this.input.root;
    const projectDir = path.posix.dirname(project);
    const absProjectDir = projectDir === '.' ? root : `${root}/${projectDir}`;

    // Documents: the evaluated Compile items inside the workspace, then generated files under obj/.
    const documents: ProjectDescription['documents'] = [];
    const seen = new Set<string>();
    let outside = 0;
    for (const item of ev.items.get('compile') ?? []) {
      if (item.rel === undefined) {
        outside++;
        continue;
      }
      if (seen.has(item.rel) || !this.files.has(item.rel)) continue;
      seen.add(item.rel);
      const link = item.metadata.get('link');
      documents.push(link ? { path: item.rel, linkPath: link.replace(/\\/g, '/') } : { path: item.rel });
    }
    if (outside > 0) notes.push(`${outside} compile item(s) outside the workspace are not loaded`);
    const intermediate = normDir(prop('IntermediateOutputPath') || `obj/${prop('Configuration') || 'Debug'}/${tfm}/`);
    for (const g of this.generatedFiles(absProjectDir, intermediate, notes)) {
      if (seen.has(g)) continue;
      seen.add(g);
      documents.push({ path: g, generated: true });
    }

    // Parse options.
    const defines = unique([...prop('DefineConstants').split(/[;,]/).map((s) => s.trim()).filter(Boolean), ...frameworkDefines(tfm)]);
    const langVersion = prop('LangVersion') || defaultLangVersion(tfm);
    const nullable = prop('Nullable').toLowerCase();
    const globalUsings = usingsOf(ev);
    const internalsVisibleTo = friendsOf(ev, prop);

    // References.
    const projectReferences: ProjectKey[] = [];
    const privateRefs = new Set<ProjectKey>();
    const analyzers: string[] = [];
    for (const item of ev.items.get('projectreference') ?? []) {
      const meta = (k: string) => item.metadata.get(k)?.trim() ?? '';
      const target = item.rel;
      if (target === undefined) {
        notes.push(`project reference outside the workspace: ${item.abs}`);
        continue;
      }
      const t = this.nodes.get(target);
      const isAnalyzer = meta('outputitemtype').toLowerCase() === 'analyzer';
      if (isAnalyzer) {
        const out = this.outputAssembly(target);
        if (out) analyzers.push(out);
        else notes.push(`analyzer project ${target} could not be evaluated; its analyzer is not loaded`);
        continue;
      }
      if (meta('referenceoutputassembly').toLowerCase() === 'false') continue;
      if (!t || t.status === 'failed') {
        notes.push(`referenced project ${target} is missing or could not be evaluated`);
        continue;
      }
      if (t.kind !== 'csharp') {
        notes.push(`referenced ${t.kind} project ${target} cannot be loaded into a C# workspace; its symbols are missing`);
        continue;
      }
      const set = meta('settargetframework').replace(/^TargetFramework=/i, '');
      const chosen = set || nearestFramework(tfm, t.targetFrameworks);
      if (chosen === undefined) {
        notes.push(`no target framework of ${target} (${t.targetFrameworks.join(', ')}) is compatible with ${tfm}; using ${t.targetFrameworks[0] ?? 'none'}`);
      }
      const refKey = projectKey(target, chosen ?? t.targetFrameworks[0]);
      projectReferences.push(refKey);
      if (meta('privateassets').toLowerCase() === 'all') privateRefs.add(refKey);
    }
    this.direct.set(key, { refs: unique(projectReferences), privateRefs, disableTransitive: prop('DisableTransitiveProjectReferences').toLowerCase() === 'true' });
    for (const item of ev.items.get('analyzer') ?? []) analyzers.push(item.abs);

    const central = prop('ManagePackageVersionsCentrally').toLowerCase() === 'true';
    const versions = new Map<string, string>();
    if (central) for (const pv of ev.items.get('packageversion') ?? []) versions.set(pv.spec.toLowerCase(), pv.metadata.get('version') ?? '');
    const packageReferences: ProjectDescription['packageReferences'] = [];
    const pkgSeen = new Set<string>();
    for (const item of [...(ev.items.get('packagereference') ?? []), ...(central ? (ev.items.get('globalpackagereference') ?? []) : [])]) {
      const l = item.spec.toLowerCase();
      if (pkgSeen.has(l)) continue;
      pkgSeen.add(l);
      const version = item.metadata.get('versionoverride') || item.metadata.get('version') || (central ? versions.get(l) : undefined) || undefined;
      packageReferences.push(version ? { id: item.spec, version } : { id: item.spec });
    }

    const frameworkReferences = unique([...implicitFrameworks(tfm, node.sdk), ...(ev.items.get('frameworkreference') ?? []).map((i) => i.spec)]);
    const references: string[] = [];
    for (const item of ev.items.get('reference') ?? []) {
      const hint = item.metadata.get('hintpath');
      if (hint) references.push(path.posix.resolve(absProjectDir, hint.replace(/\\/g, '/')));
    }

    const extPath = normDir(prop('MSBuildProjectExtensionsPath') || 'obj/');
    const assets = path.posix.resolve(absProjectDir, extPath, 'project.assets.json');
    const outputType = prop('OutputType').toLowerCase();
    const body: Omit<ProjectDescription, 'hash'> = {
      key,
      projectPath: project,
      name: node.name,
      assemblyName: prop('AssemblyName') || node.assemblyName || node.name,
      targetFramework: tfm,
      outputKind: outputType === 'exe' ? 'exe' : outputType === 'winexe' ? 'winexe' : 'library',
      langVersion,
      ...(nullable ? { nullable } : {}),
      allowUnsafe: prop('AllowUnsafeBlocks').toLowerCase() === 'true',
      checkForOverflow: prop('CheckForOverflowUnderflow').toLowerCase() === 'true',
      defines,
      globalUsings,
      ...(internalsVisibleTo.length ? { internalsVisibleTo } : {}),
      documents,
      projectReferences: unique(projectReferences),
      packageReferences,
      frameworkReferences,
      references: unique(references),
      analyzers: unique(analyzers),
      ...(fs.existsSync(assets) ? { assetsFile: assets } : assetsInState(this.input, project)),
    };
    const hash = crypto.createHash('sha1').update(JSON.stringify(body)).digest('hex');
    return { ok: true, description: { ...body, hash }, notes };
  }

  /** Forgets the descriptions of these projects (every framework; their evaluations are kept): restore into state wrote their assets. */
  forget(projects: Iterable<string>): void {
    const gone = new Set(projects);
    for (const k of [...this.described.keys()]) if (gone.has(splitKey(k).project)) this.described.delete(k);
  }

  /** Evaluates a project for one framework (cached), with the compilation's extra item types. */
  private evaluate(project: string, tfm: string): Evaluation | { failed: string } {
    const k = projectKey(project, tfm);
    const cached = this.evaluations.get(k);
    if (cached) return cached;
    let r: Evaluation | { failed: string };
    const x = this.readXml(project);
    if (!x.ok) r = { failed: `${project} could not be read: ${x.error}` };
    else if (x.root.name !== 'Project') r = { failed: `${project}: the root element is <${x.root.name}>, not <Project>` };
    else {
      const ctx: EvaluationContext = { root: this.input.root, files: this.files, readXml: (rel) => this.readXml(rel), extraItemTypes: COMPILATION_ITEMS };
      try {
        r = evaluateProject(ctx, project, x.root, tfm ? { TargetFramework: tfm } : {});
      } catch (e) {
        r = { failed: `${project} could not be evaluated: ${(e as Error).message}` };
      }
    }
    this.evaluations.set(k, r);
    return r;
  }

  private readXml(rel: string): XmlParse {
    let x = this.xml.get(rel);
    if (!x) {
      try {
        const r = this.input.policy.readFile(rel, MAX_PROJECT_FILE_BYTES);
        x = parseXml(r.bytes.toString('utf8'));
      } catch (e) {
        x = { ok: false, error: (e as Error).message };
      }
      this.xml.set(rel, x);
    }
    return x;
  }

  /** The Debug output assembly of a project (analyzer references point at it; it may not exist). */
  private outputAssembly(project: string): string | undefined {
    const n = this.nodes.get(project);
    if (!n || n.status === 'failed') return undefined;
    const tfm = n.targetFrameworks[0] ?? '';
    const ev = this.evaluate(project, tfm);
    if ('failed' in ev) return undefined;
    const prop = (k: string) => ev.properties.get(k.toLowerCase())?.value.trim() ?? '';
    const dir = path.posix.dirname(project);
    const abs = dir === '.' ? this.input.root : `${this.input.root}/${dir}`;
    const out = normDir(prop('OutputPath') || `bin/${prop('Configuration') || 'Debug'}/${tfm}/`);
    return path.posix.resolve(abs, out, `${prop('AssemblyName') || n.assemblyName || n.name}.dll`);
  }

  /**
   * Generated C# under the project's intermediate folder: everything below a `generated` folder
   * (EmitCompilerGeneratedFiles output) and `*.g.cs` elsewhere (XAML and other build-time
   * generators), minus the SDK's own GlobalUsings/AssemblyInfo files (their content is described
   * directly). A read-only listing: nothing is created when the folder is absent.
   */
  private generatedFiles(absProjectDir: string, intermediate: string, notes: string[]): string[] {
    const root = this.input.root;
    const start = path.posix.resolve(absProjectDir, intermediate);
    if (!start.startsWith(root + '/')) return [];
    let real: string;
    try {
      real = fs.realpathSync(start);
    } catch {
      return [];
    }
    if (real !== start && !real.startsWith(root + '/')) return [];
    const out: string[] = [];
    const queue: { dir: string; generated: boolean }[] = [{ dir: start, generated: false }];
    let dirs = 0;
    while (queue.length) {
      const { dir, generated } = queue.shift()!;
      if (++dirs > ROSLYN_GENERATED_DIRS_MAX_PER_PROJECT) {
        notes.push(`more than ${ROSLYN_GENERATED_DIRS_MAX_PER_PROJECT} folders under ${path.posix.relative(root, start)}; generated files beyond them are not loaded`);
        break;
      }
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const e of entries) {
        const abs = `${dir}/${e.name}`;
        if (e.isDirectory()) queue.push({ dir: abs, generated: generated || e.name.toLowerCase() === 'generated' });
        else if (e.isFile()) {
          const lower = e.name.toLowerCase();
          if (!lower.endsWith('.cs')) continue;
          if (!generated && !lower.endsWith('.g.cs')) continue;
          if (!generated && (lower.endsWith('.globalusings.g.cs') || lower.endsWith('.assemblyinfo.cs'))) continue;
          if (out.length >= ROSLYN_GENERATED_FILES_MAX_PER_PROJECT) {
            notes.push(`more than ${ROSLYN_GENERATED_FILES_MAX_PER_PROJECT} generated files under ${path.posix.relative(root, start)}; the rest are not loaded`);
            return out;
          }
          out.push(path.posix.relative(root, abs));
        }
      }
    }
    return out;
  }
}

function normDir(p: string): string {
  const s = p.replace(/\\/g, '/');
  return s.endsWith('/') ? s : s + '/';
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

function usingsOf(ev: Evaluation): GlobalUsing[] {
  const out: GlobalUsing[] = [];
  const seen = new Set<string>();
  for (const item of ev.items.get('using') ?? []) {
    const alias = item.metadata.get('alias')?.trim();
    const isStatic = item.metadata.get('static')?.trim().toLowerCase() === 'true';
    const k = `${item.spec}|${alias ?? ''}|${isStatic}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push({ name: item.spec, ...(alias ? { alias } : {}), ...(isStatic ? { static: true } : {}) });
  }
  return out;
}

/**
 * The assemblies the project's internals are visible to, as the SDK's generated AssemblyInfo says
 * them: `<InternalsVisibleTo Include="X"/>` items (unless GenerateAssemblyInfo or
 * GenerateInternalsVisibleToAttributes is false) and `<AssemblyAttribute
 * Include="System.Runtime.CompilerServices.InternalsVisibleTo[Attribute]">` items' _Parameter1.
 * Names only: the host's compilations are not signed, so a `PublicKey=` part would not match.
 */
function friendsOf(ev: Evaluation, prop: (k: string) => string): string[] {
  const out = new Set<string>();
  const generated = prop('GenerateAssemblyInfo').toLowerCase() !== 'false';
  if (generated && prop('GenerateInternalsVisibleToAttributes').toLowerCase() !== 'false')
    for (const item of ev.items.get('internalsvisibleto') ?? []) if (item.spec.trim()) out.add(item.spec.trim());
  if (generated)
    for (const item of ev.items.get('assemblyattribute') ?? []) {
      if (!/^(global::)?System\.Runtime\.CompilerServices\.InternalsVisibleTo(Attribute)?$/.test(item.spec.trim())) continue;
      const name = item.metadata.get('_parameter1')?.split(',')[0]?.trim();
      if (name) out.add(name);
    }
  return [...out].sort();
}

// ─── target frameworks ─────────────────────────────────────────────────────────

interface Tfm {
  family: 'core' | 'standard' | 'framework' | 'other';
  /** major*100 + minor*10 + patch (4.7.2 → 472, 8.0 → 800). */
  version: number;
  major: number;
  minor: number;
  platform: string;
}

export function parseTfm(t: string): Tfm {
  const s = t.trim().toLowerCase();
  const [base = '', platformPart = ''] = s.split('-', 2);
  const platform = platformPart.replace(/[\d.]+$/, '');
  let m = /^netcoreapp(\d+)\.(\d+)$/.exec(base);
  if (m) return { family: 'core', major: +m[1]!, minor: +m[2]!, version: +m[1]! * 100 + +m[2]! * 10, platform };
  m = /^netstandard(\d+)\.(\d+)$/.exec(base);
  if (m) return { family: 'standard', major: +m[1]!, minor: +m[2]!, version: +m[1]! * 100 + +m[2]! * 10, platform };
  m = /^net(\d+)\.(\d+)$/.exec(base);
  if (m && +m[1]! >= 5) return { family: 'core', major: +m[1]!, minor: +m[2]!, version: +m[1]! * 100 + +m[2]! * 10, platform };
  m = /^net(\d)(\d)(\d)?$/.exec(base);
  if (m) return { family: 'framework', major: +m[1]!, minor: +m[2]!, version: +m[1]! * 100 + +m[2]! * 10 + +(m[3] ?? 0), platform };
  return { family: 'other', major: 0, minor: 0, version: 0, platform };
}

/** Can a project targeting `consumer` reference one built for `candidate`? (NuGet's rules, the common cases.) */
function compatible(consumer: Tfm, candidate: Tfm): boolean {
  if (candidate.platform && candidate.platform !== consumer.platform) return false;
  if (consumer.family === candidate.family) return candidate.version <= consumer.version;
  if (candidate.family === 'standard') {
    if (consumer.family === 'core') return consumer.version >= 300 ? candidate.version <= 210 : consumer.version >= 200 ? candidate.version <= 200 : candidate.version <= 160;
    if (consumer.family === 'framework') return consumer.version >= 461 && candidate.version <= 200;
  }
  return false;
}

/** The framework of a referenced project a `consumer` build picks (nearest compatible), or undefined. */
export function nearestFramework(consumer: string, candidates: readonly string[]): string | undefined {
  if (candidates.length === 0) return undefined;
  if (candidates.includes(consumer)) return consumer;
  if (candidates.length === 1 && !consumer) return candidates[0];
  const c = parseTfm(consumer);
  let best: { t: string; score: number } | undefined;
  for (const t of candidates) {
    const p = parseTfm(t);
    if (!compatible(c, p)) continue;
    // Same family first (then the platform-specific one), then the highest version.
    const score = (p.family === c.family ? 1_000_000 : 0) + (p.platform ? 100_000 : 0) + p.version;
    if (!best || score > best.score) best = { t, score };
  }
  return best?.t;
}

const CORE_OLD = [
  [1, 0],
  [1, 1],
  [2, 0],
  [2, 1],
  [2, 2],
  [3, 0],
  [3, 1],
] as const;
const STANDARD = [
  [1, 0],
  [1, 1],
  [1, 2],
  [1, 3],
  [1, 4],
  [1, 5],
  [1, 6],
  [2, 0],
  [2, 1],
] as const;
const FRAMEWORK = ['20', '35', '40', '45', '451', '452', '46', '461', '462', '47', '471', '472', '48', '481'];

/** The preprocessor symbols the SDK defines for a target framework (NET8_0, NET8_0_OR_GREATER, NETCOREAPP, …). */
export function frameworkDefines(tfm: string): string[] {
  const t = parseTfm(tfm);
  const out: string[] = [];
  if (t.family === 'core') {
    out.push('NETCOREAPP');
    for (const [a, b] of CORE_OLD) if (a * 100 + b * 10 <= t.version) out.push(`NETCOREAPP${a}_${b}_OR_GREATER`);
    if (t.major >= 5) {
      out.push('NET', `NET${t.major}_${t.minor}`);
      for (let m = 5; m <= t.major; m++) out.push(`NET${m}_0_OR_GREATER`);
      if (t.minor > 0) out.push(`NET${t.major}_${t.minor}_OR_GREATER`);
    } else out.push(`NETCOREAPP${t.major}_${t.minor}`);
  } else if (t.family === 'standard') {
    out.push('NETSTANDARD', `NETSTANDARD${t.major}_${t.minor}`);
    for (const [a, b] of STANDARD) if (a * 100 + b * 10 <= t.version) out.push(`NETSTANDARD${a}_${b}_OR_GREATER`);
  } else if (t.family === 'framework') {
    const own = tfm.trim().toLowerCase().split('-')[0]!.slice(3);
    out.push('NETFRAMEWORK', `NET${own}`);
    for (const v of FRAMEWORK) {
      const n = Number(v.padEnd(3, '0'));
      if (n <= t.version) out.push(`NET${v}_OR_GREATER`);
    }
  }
  if (t.platform) out.push(t.platform.toUpperCase());
  return out;
}

/** The C# version the SDK picks when LangVersion is not set. */
export function defaultLangVersion(tfm: string): string {
  const t = parseTfm(tfm);
  if (t.family === 'core') {
    if (t.major >= 10) return '14.0';
    if (t.major >= 5) return `${t.major + 4}.0`;
    if (t.major === 3) return '8.0';
    return '7.3';
  }
  if (t.family === 'standard') return t.version >= 210 ? '8.0' : '7.3';
  return '7.3';
}

/** Shared frameworks the SDK references implicitly. */
function implicitFrameworks(tfm: string, sdk: string | undefined): string[] {
  const t = parseTfm(tfm);
  if (t.family !== 'core' || t.major < 3) return [];
  const out = ['Microsoft.NETCore.App'];
  if (sdk?.toLowerCase() === 'microsoft.net.sdk.web') out.push('Microsoft.AspNetCore.App');
  return out;
}
