/**
 * Evaluates one MSBuild project file the way MSBuild's evaluator orders things, without running
 * MSBuild: pass 1 reads properties and follows imports (the project's SDK is modelled by
 * sdkModel.ts), pass 2 evaluates items with the final property values. Globs are answered from
 * the walked file list. What cannot be evaluated becomes a reason (the project is then `partial`);
 * a value is never guessed silently.
 */
import * as path from 'node:path';
import { MAX_MSBUILD_IMPORT_DEPTH } from '../../core/limits';
import { evaluateCondition } from './condition';
import { absPath, clip, expand, relInside, TOOLSET_ROOT, Unevaluable, type ExpansionHost, type PropertyValue, type Taint } from './expression';
import { ADDITIVE_SDKS, MODELLED_SDKS, SDK_PROPS_PATH, SDK_TARGETS_PATH, sdkFlags, toolsetFile } from './sdkModel';
import type { WorkspaceFiles } from '../WorkspaceFiles';
import { hasWildcard } from '../WorkspaceFiles';
import { attr, type XmlElement, type XmlParse } from './xmlDocument';

/** What the evaluator needs from its caller: the workspace and a cached XML reader. */
export interface EvaluationContext {
  /** Canonical POSIX absolute root. */
  root: string;
  files: WorkspaceFiles;
  /** Reads and parses a workspace file (cached by the caller); failures are values. */
  readXml(rel: string): XmlParse;
  /** Include+Exclude results shared by the evaluations of one graph build (per-framework builds repeat them). */
  includeCache?: Map<string, EvaluatedItem[]>;
  /**
   * Item types to evaluate besides the tracked ones (lower-case; e.g. `using`, `frameworkreference`
   * for a compilation's description). Their problems never make the project partial.
   */
  extraItemTypes?: readonly string[];
}

export interface EvaluatedItem {
  /** The include as evaluated (one part of the Include list, or one glob match). */
  spec: string;
  /** Normalised absolute POSIX path of `spec` relative to the project directory. */
  abs: string;
  /** Workspace-relative path when `abs` lies inside the root. */
  rel?: string;
  metadata: Map<string, string>;
}

export interface Evaluation {
  properties: Map<string, PropertyValue & { name: string }>;
  items: Map<string, EvaluatedItem[]>;
  /** Reasons the evaluation is incomplete, in the order found. */
  reasons: string[];
  /** The subset of `reasons` found while evaluating items (pass 2). */
  itemReasons: string[];
  /** Workspace files read as imports (relative paths). */
  imports: string[];
  /** SDK names of the project (empty for a legacy project). */
  sdks: string[];
}

/** Attributes of an item element that are not metadata. */
const ITEM_ATTRIBUTES = new Set(['include', 'exclude', 'remove', 'update', 'condition', 'keepmetadata', 'removemetadata', 'keepduplicates', 'matchonmetadata', 'matchonmetadataoptions']);

/** Item types whose identity is a name (compared ignoring case), not a path. */
const NAME_LIKE_ITEMS = new Set(['packagereference', 'packageversion', 'globalpackagereference']);

/** Item types whose evaluation problems make the project partial. */
const TRACKED_ITEMS = new Set(['compile', 'projectreference', 'packagereference', 'packageversion', 'globalpackagereference']);

/** Properties MSBuild or the build environment sets that a read of the files cannot know. */
const UNKNOWN_PROPERTIES: Record<string, string> = {
  solutiondir: 'set only when building through a solution',
  solutionname: 'set only when building through a solution',
  solutionpath: 'set only when building through a solution',
  solutionfilename: 'set only when building through a solution',
  solutionext: 'set only when building through a solution',
  nugetpackageroot: 'set by NuGet restore',
  msbuildstartupdirectory: 'the directory the build is started from',
  msbuildversion: 'the MSBuild version',
  netcoresdkversion: 'the installed .NET SDK version',
  netcoresdkruntimeidentifier: 'the installed .NET SDK',
  bundlednetcoreapptargetframeworkversion: 'the installed .NET SDK',
  bundlednetcoreapppackageversion: 'the installed .NET SDK',
  netcoreappmaximumversion: 'the installed .NET SDK',
  bundlednetstandardtargetframeworkversion: 'the installed .NET SDK',
  unsupportedtargetframeworkversion: 'the installed .NET SDK',
  netcoresdkportableruntimeidentifier: 'the installed .NET SDK',
  microsoftnetframeworkreferenceassemblieslatestpackageversion: 'the installed .NET SDK',
  sdkanalysislevel: 'the installed .NET SDK',
  minimummsbuildversion: 'the installed .NET SDK',
  netcoreroot: 'where the .NET SDK is installed',
  netcoretargetingpackroot: 'where the .NET SDK is installed',
  bundledmsbuildversion: 'the installed .NET SDK',
  buildinginsidevisualstudio: 'set by Visual Studio',
  designtimebuild: 'set by the IDE',
  continuousintegrationbuild: 'set by CI',
  tf_build: 'an environment variable',
  ci: 'an environment variable',
  github_actions: 'an environment variable',
  userprofile: 'an environment variable',
  home: 'an environment variable',
  programfiles: 'an environment variable',
  'programfiles(x86)': 'an environment variable',
  msbuildprogramfiles32: 'the machine',
  msbuilduserextensionspath: 'the machine',
};

interface FileCtx {
  abs: string;
  dir: string;
  host: ExpansionHost;
  itemHost: ExpansionHost;
}

/** Evaluates `projectRel` with the given global properties. The project XML must parse (caller checks). */
export function evaluateProject(ctx: EvaluationContext, projectRel: string, projectXml: XmlElement, globals: Record<string, string>): Evaluation {
  return new ProjectEvaluator(ctx, projectRel, globals).run(projectXml);
}

class ProjectEvaluator {
  private readonly props = new Map<string, PropertyValue & { name: string }>();
  private readonly globals = new Set<string>();
  private readonly items = new Map<string, EvaluatedItem[]>();
  private readonly itemTaint = new Map<string, string>();
  private readonly reasons: string[] = [];
  private readonly reasonSet = new Set<string>();
  private readonly itemReasons: string[] = [];
  private inItemPass = false;
  private readonly imported = new Set<string>();
  private readonly importsRead: string[] = [];
  private readonly itemQueue: { el: XmlElement; file: FileCtx }[] = [];
  private readonly projectAbs: string;
  private readonly projectDir: string;
  /** Workspace-relative folder of the project ('' at the root). */
  private readonly projectFolderRel: string | undefined;
  private sdks: string[] = [];
  /** SDKs named by the project or an import whose props/targets are not read. */
  private readonly unreadSdks: string[] = [];

  constructor(
    private readonly ctx: EvaluationContext,
    private readonly projectRel: string,
    globalProps: Record<string, string>,
  ) {
    this.projectAbs = `${ctx.root}/${projectRel}`;
    this.projectDir = path.posix.dirname(this.projectAbs);
    this.projectFolderRel = relInside(ctx, this.projectDir);
    const ext = path.posix.extname(projectRel);
    const name = path.posix.basename(projectRel, ext);
    const reserved: Record<string, string> = {
      MSBuildProjectDirectory: this.projectDir,
      MSBuildProjectDirectoryNoRoot: this.projectDir.replace(/^\//, ''),
      MSBuildProjectFile: path.posix.basename(projectRel),
      MSBuildProjectExtension: ext,
      MSBuildProjectFullPath: this.projectAbs,
      MSBuildProjectName: name,
      MSBuildRuntimeType: 'Core',
      MSBuildToolsVersion: 'Current',
      MSBuildToolsPath: TOOLSET_ROOT,
      MSBuildBinPath: TOOLSET_ROOT,
      MSBuildExtensionsPath: TOOLSET_ROOT,
      MSBuildExtensionsPath32: TOOLSET_ROOT,
      MSBuildExtensionsPath64: TOOLSET_ROOT,
      MSBuildSDKsPath: `${TOOLSET_ROOT}/Sdks`,
      // The toolset modelled is the MSBuild of the .NET 10 SDK (checked against it).
      VisualStudioVersion: '18.0',
      OS: process.platform === 'win32' ? 'Windows_NT' : 'Unix',
    };
    for (const [k, v] of Object.entries(reserved)) this.props.set(k.toLowerCase(), { name: k, value: v });
    for (const [k, v] of Object.entries(globalProps)) {
      this.props.set(k.toLowerCase(), { name: k, value: v });
      this.globals.add(k.toLowerCase());
    }
  }

  run(projectXml: XmlElement): Evaluation {
    const file = this.fileCtx(this.projectAbs);
    this.imported.add(this.projectAbs);
    this.sdks = this.sdkNames(projectXml, file);
    const modelled = this.sdks.filter((s) => MODELLED_SDKS.has(s.toLowerCase()));
    for (const s of this.sdks) {
      const l = s.toLowerCase();
      if (!MODELLED_SDKS.has(l) && !ADDITIVE_SDKS.has(l)) {
        this.reason(`SDK '${s}' is not modelled (its props and targets are not read)`);
        this.unreadSdks.push(s);
      }
    }
    const usesNetSdk = modelled.length > 0 || this.sdks.some((s) => s.toLowerCase().startsWith('microsoft.net.sdk'));
    if (usesNetSdk) {
      for (const s of this.sdks) for (const [k, v] of Object.entries(sdkFlags(s))) this.setProperty(k, v);
      this.importPath(SDK_PROPS_PATH, file, 0);
    }
    this.walk(projectXml.children, file, 0);
    if (usesNetSdk) this.importPath(SDK_TARGETS_PATH, file, 0);
    this.inItemPass = true;
    const needed = this.neededItemTypes();
    for (const q of this.itemQueue) this.evaluateItemGroup(q.el, q.file, needed);
    return { properties: this.props, items: this.items, reasons: this.reasons, itemReasons: this.itemReasons, imports: this.importsRead, sdks: this.sdks };
  }

  // ---- helpers ----------------------------------------------------------------------------

  private reason(r: string): void {
    if (!this.reasonSet.has(r)) {
      this.reasonSet.add(r);
      this.reasons.push(r);
      if (this.inItemPass) this.itemReasons.push(r);
    }
  }

  private rel(abs: string): string {
    return relInside(this.ctx, abs) ?? abs;
  }

  private fileCtx(abs: string): FileCtx {
    const dir = path.posix.dirname(abs);
    const base = path.posix.basename(abs);
    const ext = path.posix.extname(base);
    const thisFile: Record<string, string> = {
      msbuildthisfile: base,
      msbuildthisfiledirectory: dir.endsWith('/') ? dir : dir + '/',
      msbuildthisfiledirectorynoroot: (dir.endsWith('/') ? dir : dir + '/').replace(/^\//, ''),
      msbuildthisfilefullpath: abs,
      msbuildthisfilename: base.slice(0, base.length - ext.length),
      msbuildthisfileextension: ext,
    };
    const inToolset = abs.startsWith(TOOLSET_ROOT + '/');
    const lookup = (name: string): PropertyValue | undefined => {
      const l = name.toLowerCase();
      const t = thisFile[l];
      if (t !== undefined) return { value: t };
      const p = this.props.get(l);
      if (p) return p;
      const u = UNKNOWN_PROPERTIES[l];
      if (u) return { value: '', unknown: `$(${name}) is ${u}` };
      // After an SDK that is not read, an undefined property may well be one it sets. (The SDK
      // model's own files keep MSBuild's defaults: they run as if that SDK set nothing.)
      if (this.unreadSdks.length > 0 && !inToolset) return { value: '', unknown: `$(${name}) may be set by SDK '${this.unreadSdks[0]}', which is not read` };
      return undefined;
    };
    const host: ExpansionHost = { root: this.ctx.root, files: this.ctx.files, projectDir: this.projectDir, thisFileDir: dir, lookup };
    const itemHost: ExpansionHost = {
      ...host,
      items: (type: string) => {
        const l = type.toLowerCase();
        const taint = this.itemTaint.get(l);
        if (taint) throw new Unevaluable(taint);
        return this.items.get(l);
      },
    };
    return { abs, dir, host, itemHost };
  }

  private sdkNames(root: XmlElement, file: FileCtx): string[] {
    const out: string[] = [];
    const add = (s: string) => {
      for (const part of s.split(';')) {
        const name = part.trim().split('/')[0]!.trim();
        if (name && !out.some((o) => o.toLowerCase() === name.toLowerCase())) out.push(name);
      }
    };
    const a = attr(root, 'Sdk');
    if (a) add(a);
    for (const c of root.children) if (c.name === 'Sdk') add(attr(c, 'Name') ?? '');
    void file;
    return out;
  }

  /** Evaluates a condition; an unknown input or an unevaluable expression is returned as `unknown` (then false). */
  private cond(cond: string | undefined, host: ExpansionHost, where: string): { v: boolean; unknown?: string } {
    if (cond === undefined || cond.trim() === '') return { v: true };
    const taint: Taint = {};
    const relativeToFile = where === 'PropertyGroup' || where === 'Import' || where === 'ImportGroup';
    try {
      const v = evaluateCondition(cond, host, taint, (abs) => toolsetFile(abs) !== undefined, relativeToFile);
      return taint.unknown ? { v, unknown: `${where} condition "${clip(cond.trim())}" depends on ${taint.unknown}` } : { v };
    } catch (e) {
      if (!(e instanceof Unevaluable)) throw e;
      return { v: false, unknown: `${where}: ${e.reason}` };
    }
  }

  /** A condition whose uncertainty makes the project partial (imports, choices, tracked items). */
  private condition(cond: string | undefined, host: ExpansionHost, where: string): boolean {
    const r = this.cond(cond, host, where);
    if (r.unknown) this.reason(r.unknown);
    return r.v;
  }

  private setProperty(name: string, value: string, unknown?: string): void {
    const l = name.toLowerCase();
    if (this.globals.has(l)) return;
    if (l.startsWith('msbuild') && this.props.has(l) && l !== 'msbuildprojectextensionspath' && l !== 'msbuildtreatwarningsaserrors') {
      return;
    }
    this.props.set(l, unknown === undefined ? { name, value } : { name, value, unknown });
  }

  // ---- pass 1: properties and imports -----------------------------------------------------

  private walk(children: XmlElement[], file: FileCtx, depth: number): void {
    for (const el of children) {
      switch (el.name) {
        case 'PropertyGroup': {
          // An uncertain group condition taints the properties it sets instead of the whole project.
          const r = this.cond(attr(el, 'Condition'), file.host, 'PropertyGroup');
          if (r.v || r.unknown) for (const p of el.children) this.property(p, file, r.unknown, r.v);
          break;
        }
        case 'ItemGroup':
          this.itemQueue.push({ el, file });
          break;
        case 'Import':
          if (this.condition(attr(el, 'Condition'), file.host, 'Import')) this.importElement(el, file, depth);
          break;
        case 'ImportGroup':
          if (this.condition(attr(el, 'Condition'), file.host, 'ImportGroup')) {
            for (const c of el.children) {
              if (c.name === 'Import' && this.condition(attr(c, 'Condition'), file.host, 'Import')) this.importElement(c, file, depth);
            }
          }
          break;
        case 'Choose':
          this.choose(el, file, depth);
          break;
        default:
          break;
      }
    }
  }

  private choose(el: XmlElement, file: FileCtx, depth: number): void {
    for (const c of el.children) {
      if (c.name === 'When') {
        if (this.condition(attr(c, 'Condition'), file.host, 'When')) {
          this.walk(c.children, file, depth);
          return;
        }
      } else if (c.name === 'Otherwise') {
        this.walk(c.children, file, depth);
        return;
      }
    }
  }

  private property(p: XmlElement, file: FileCtx, groupUnknown?: string, groupTrue = true): void {
    const r = this.cond(attr(p, 'Condition'), file.host, `Property ${p.name}`);
    const unknown = groupUnknown ?? r.unknown;
    if (!(groupTrue && r.v)) {
      // Not set here as far as we can tell; when that is uncertain, the current value is uncertain too.
      if (unknown) {
        const cur = this.props.get(p.name.toLowerCase());
        this.setProperty(p.name, cur?.value ?? '', cur?.unknown ?? unknown);
      }
      return;
    }
    const taint: Taint = {};
    try {
      const value = expand(p.text.trim() === '' && p.text.includes('\n') ? '' : p.text, file.host, taint);
      this.setProperty(p.name, value, unknown ?? taint.unknown);
    } catch (e) {
      if (!(e instanceof Unevaluable)) throw e;
      this.setProperty(p.name, '', `$(${p.name}) could not be evaluated (${e.reason})`);
    }
  }

  private importElement(el: XmlElement, file: FileCtx, depth: number): void {
    const sdk = attr(el, 'Sdk');
    const project = attr(el, 'Project') ?? '';
    if (sdk !== undefined) {
      const name = sdk.split('/')[0]!.trim();
      const l = name.toLowerCase();
      if (!MODELLED_SDKS.has(l) && !ADDITIVE_SDKS.has(l)) {
        this.reason(`SDK '${name}' is not modelled (its props and targets are not read)`);
        if (!this.unreadSdks.includes(name)) this.unreadSdks.push(name);
        return;
      }
      if (ADDITIVE_SDKS.has(l)) return;
      if (!this.sdks.some((s) => s.toLowerCase() === l)) this.sdks.push(name);
      const which = project.toLowerCase().endsWith('.targets') ? SDK_TARGETS_PATH : SDK_PROPS_PATH;
      if (which === SDK_PROPS_PATH) for (const [k, v] of Object.entries(sdkFlags(name))) this.setProperty(k, v);
      this.importPath(which, file, depth);
      return;
    }
    const taint: Taint = {};
    let expanded: string;
    try {
      expanded = expand(project, file.host, taint).trim();
    } catch (e) {
      if (!(e instanceof Unevaluable)) throw e;
      this.reason(`Import "${clip(project)}" could not be evaluated: ${e.reason}`);
      return;
    }
    if (taint.unknown) {
      this.reason(`Import "${clip(project)}" depends on ${taint.unknown}; not read`);
      return;
    }
    if (expanded === '') {
      this.reason(`Import "${clip(project)}" evaluates to an empty path`);
      return;
    }
    for (const part of expanded.split(';')) {
      const p = part.trim();
      if (p === '') continue;
      const abs = absPath({ ...file.host, projectDir: file.dir }, p);
      if (hasWildcard(abs)) {
        const relPattern = relInside(this.ctx, abs);
        if (relPattern === undefined) {
          this.reason(`Import "${clip(p)}" is outside the workspace; not read`);
          continue;
        }
        for (const m of this.ctx.files.glob(relPattern)) this.importPath(`${this.ctx.root}/${m}`, file, depth);
        continue;
      }
      this.importPath(abs, file, depth);
    }
  }

  private importPath(abs: string, from: FileCtx, depth: number): void {
    if (this.imported.has(abs)) return; // MSBuild skips a file already imported in this evaluation
    if (depth >= MAX_MSBUILD_IMPORT_DEPTH) {
      this.reason(`imports nest deeper than ${MAX_MSBUILD_IMPORT_DEPTH} levels at ${this.rel(abs)}`);
      return;
    }
    let root: XmlElement;
    if (abs === TOOLSET_ROOT || abs.startsWith(TOOLSET_ROOT + '/')) {
      const el = toolsetFile(abs);
      if (!el) {
        this.reason(`imports toolset file '${path.posix.basename(abs)}', which is not modelled`);
        return;
      }
      root = el;
    } else {
      const rel = relInside(this.ctx, abs);
      if (rel === undefined) {
        this.reason(`Import of '${abs}' is outside the workspace; not read`);
        return;
      }
      if (!this.ctx.files.has(rel)) {
        this.reason(`imported file '${rel}' does not exist`);
        return;
      }
      const parsed = this.ctx.readXml(rel);
      if (!parsed.ok) {
        this.reason(`imported file '${rel}' could not be read: ${parsed.error}`);
        return;
      }
      root = parsed.root;
      this.importsRead.push(rel);
    }
    void from;
    this.imported.add(abs);
    this.walk(root.children, this.fileCtx(abs), depth + 1);
  }

  // ---- pass 2: items ---------------------------------------------------------------------

  /** Tracked item types plus every type they reach through @(...) (other items are not evaluated). */
  private neededItemTypes(): Set<string> {
    const needed = new Set([...TRACKED_ITEMS, ...(this.ctx.extraItemTypes ?? [])]);
    const refs = /@\(\s*([A-Za-z_](?:\w|-(?!>))*)/g;
    for (let changed = true; changed; ) {
      changed = false;
      for (const q of this.itemQueue) {
        const groupCond = attr(q.el, 'Condition') ?? '';
        for (const el of q.el.children) {
          if (!needed.has(el.name.toLowerCase())) continue;
          const text = groupCond + ' ' + Object.values(el.attrs).join(' ');
          if (!text.includes('@(')) continue;
          for (const m of text.matchAll(refs)) {
            const t = m[1]!.toLowerCase();
            if (!needed.has(t)) {
              needed.add(t);
              changed = true;
            }
          }
        }
      }
    }
    return needed;
  }

  private evaluateItemGroup(group: XmlElement, file: FileCtx, needed: Set<string>): void {
    const groupCond = attr(group, 'Condition');
    let groupOk: boolean | undefined;
    for (const el of group.children) {
      const type = el.name.toLowerCase();
      if (!needed.has(type)) continue;
      const tracked = TRACKED_ITEMS.has(type);
      if (groupOk === undefined) {
        groupOk = groupCond === undefined ? true : this.itemCondition(groupCond, file, tracked ? `ItemGroup (${el.name})` : undefined, type);
      }
      if (!groupOk) {
        continue;
      }
      try {
        this.itemElement(el, type, file, tracked);
      } catch (e) {
        if (!(e instanceof Unevaluable)) throw e;
        if (tracked) this.reason(`${el.name} item: ${e.reason}`);
        else if (!this.itemTaint.has(type)) this.itemTaint.set(type, `@(${el.name}) could not be evaluated (${e.reason})`);
      }
    }
  }

  private itemCondition(cond: string, file: FileCtx, where: string | undefined, type: string): boolean {
    const taint: Taint = {};
    try {
      const v = evaluateCondition(cond, file.itemHost, taint, (abs) => toolsetFile(abs) !== undefined);
      if (taint.unknown && where) this.reason(`${where} condition "${clip(cond.trim())}" depends on ${taint.unknown}`);
      return v;
    } catch (e) {
      if (!(e instanceof Unevaluable)) throw e;
      if (where) this.reason(`${where}: ${e.reason}`);
      else if (!this.itemTaint.has(type)) this.itemTaint.set(type, `@(${type}) has a condition that could not be evaluated`);
      return false;
    }
  }

  private expandTracked(s: string, file: FileCtx, tracked: boolean, what: string): string {
    const taint: Taint = {};
    const v = expand(s, file.itemHost, taint);
    if (taint.unknown && tracked) this.reason(`${what} "${clip(s)}" depends on ${taint.unknown}`);
    return v;
  }

  private itemElement(el: XmlElement, type: string, file: FileCtx, tracked: boolean): void {
    const cond = attr(el, 'Condition');
    if (cond !== undefined && !this.itemCondition(cond, file, tracked ? `${el.name} item` : undefined, type)) return;
    if (attr(el, 'MatchOnMetadata') !== undefined) throw new Unevaluable(`${el.name} with MatchOnMetadata is not evaluated`);
    const include = attr(el, 'Include');
    const remove = attr(el, 'Remove');
    const update = attr(el, 'Update');
    const list = this.items.get(type) ?? [];
    this.items.set(type, list);
    if (include !== undefined) {
      const specs = this.expandTracked(include, file, tracked, `${el.name} Include`);
      const excludeRaw = attr(el, 'Exclude');
      const excludeSpecs = excludeRaw !== undefined ? this.expandTracked(excludeRaw, file, tracked, `${el.name} Exclude`) : undefined;
      const key = `${this.projectDir}\0${type}\0${specs}\0${excludeSpecs ?? ''}`;
      let added: EvaluatedItem[];
      const cached = this.ctx.includeCache?.get(key);
      if (cached) {
        added = cached.map((i) => ({ ...i, metadata: new Map(i.metadata) }));
      } else {
        const exclude = excludeSpecs !== undefined ? this.matcherFor(excludeSpecs, tracked, el.name) : undefined;
        added = this.expandSpecs(specs, tracked, el.name).filter((i) => !exclude || !exclude(i));
        // Keyed by project folder: only the per-framework evaluations of one project share an entry.
        this.ctx.includeCache?.set(key, added.map((i) => ({ ...i, metadata: new Map(i.metadata) })));
      }
      if (added.length === 0) return;
      const meta = this.metadataOf(el, file);
      for (const item of added) {
        for (const [k, v] of meta) {
          const value = v.includes('%(') ? itemMetadata(v, item) : v;
          if (value !== undefined) item.metadata.set(k, value);
        }
        list.push(item);
      }
      return;
    }
    if (remove !== undefined) {
      const m = this.matcherFor(this.expandTracked(remove, file, tracked, `${el.name} Remove`), tracked, el.name, type);
      const kept = list.filter((i) => !m(i));
      this.items.set(type, kept);
      return;
    }
    if (update !== undefined) {
      const specs = this.expandTracked(update, file, tracked, `${el.name} Update`);
      const meta = this.metadataOf(el, file);
      const nameLike = NAME_LIKE_ITEMS.has(type);
      const targets: EvaluatedItem[] = [];
      if (nameLike && !hasWildcard(specs)) {
        // Literal names (Directory.Packages.props updates hundreds of PackageVersions): use an index.
        const byName = this.nameIndex(type, list);
        for (const part of specs.split(';')) targets.push(...(byName.get(part.trim().toLowerCase()) ?? []));
      } else {
        const m = this.matcherFor(specs, tracked, el.name, type);
        for (const i of list) if (m(i)) targets.push(i);
      }
      for (const i of targets) for (const [k, v] of meta) i.metadata.set(k, v);
    }
  }

  private nameIndexCache = new Map<string, { list: EvaluatedItem[]; size: number; index: Map<string, EvaluatedItem[]> }>();

  /** Items of a name-like type by lower-cased name; rebuilt when the list changed. */
  private nameIndex(type: string, list: EvaluatedItem[]): Map<string, EvaluatedItem[]> {
    const c = this.nameIndexCache.get(type);
    if (c && c.list === list && c.size === list.length) return c.index;
    const index = new Map<string, EvaluatedItem[]>();
    for (const i of list) {
      const k = i.spec.toLowerCase();
      const l = index.get(k);
      if (l) l.push(i);
      else index.set(k, [i]);
    }
    this.nameIndexCache.set(type, { list, size: list.length, index });
    return index;
  }

  /** Metadata from attributes and child elements; values that cannot be evaluated are left out. */
  private metadataOf(el: XmlElement, file: FileCtx): Map<string, string> {
    const meta = new Map<string, string>();
    const skip = ITEM_ATTRIBUTES;
    const put = (k: string, raw: string) => {
      try {
        // Property pass host: %(...) stays literal and is filled per item by itemMetadata().
        meta.set(k.toLowerCase(), expand(raw, file.host, {}));
      } catch {
        /* metadata using functions this model does not evaluate: not recorded */
      }
    };
    for (const [k, v] of Object.entries(el.attrs)) if (!skip.has(k.toLowerCase())) put(k, v);
    for (const c of el.children) {
      const cc = attr(c, 'Condition');
      if (cc !== undefined && !this.condition(cc, file.host, `${el.name} metadata`)) continue;
      put(c.name, c.text);
    }
    return meta;
  }

  private expandSpecs(specs: string, tracked: boolean, what: string): EvaluatedItem[] {
    const out: EvaluatedItem[] = [];
    for (const part of specs.split(';')) {
      const spec = part.trim();
      if (spec === '') continue;
      if (hasWildcard(spec)) {
        const abs = absPath({ root: this.ctx.root, files: this.ctx.files, projectDir: this.projectDir, thisFileDir: this.projectDir, lookup: () => undefined }, spec);
        const relPattern = relInside(this.ctx, abs);
        if (relPattern === undefined) {
          if (tracked) this.reason(`${what} glob "${clip(spec)}" reaches outside the workspace`);
          continue;
        }
        const fixed = spec.replace(/\\/g, '/');
        const wildAt = firstWildcardSegment(fixed);
        const baseRel = relPattern.split('/').slice(0, firstWildcardIndex(relPattern)).join('/');
        for (const m of this.ctx.files.glob(relPattern)) {
          const remainder = baseRel === '' ? m : m.slice(baseRel.length + 1);
          const recursiveDir = recursiveDirOf(relPattern, m);
          const metadata = new Map<string, string>(recursiveDir !== undefined ? [['recursivedir', recursiveDir]] : []);
          out.push({ spec: fixed.slice(0, wildAt) + remainder, abs: `${this.ctx.root}/${m}`, rel: m, metadata });
        }
        continue;
      }
      const abs = absPath({ root: this.ctx.root, files: this.ctx.files, projectDir: this.projectDir, thisFileDir: this.projectDir, lookup: () => undefined }, spec);
      const rel = relInside(this.ctx, abs);
      out.push(rel === undefined ? { spec, abs, metadata: new Map() } : { spec, abs, rel, metadata: new Map() });
    }
    return out;
  }

  /** A predicate matching items against a `;` list of literal paths and globs (Exclude/Remove/Update). */
  private matcherFor(specs: string, tracked: boolean, what: string, type?: string): (i: EvaluatedItem) => boolean {
    const literal = new Set<string>();
    const literalCi = new Set<string>();
    const globs: ((rel: string) => boolean)[] = [];
    const nameLike = type !== undefined && NAME_LIKE_ITEMS.has(type);
    for (const part of specs.split(';')) {
      const spec = part.trim();
      if (spec === '') continue;
      if (nameLike) {
        literalCi.add(spec.toLowerCase());
        continue;
      }
      if (hasWildcard(spec)) {
        // A pattern inside the project folder is matched against paths relative to it, so the
        // compiled matcher ("**/*.user", "bin/**") is shared by every project.
        const local = spec.replace(/\\/g, '/').replace(/^(\.\/)+/, '').replace(/\/{2,}/g, '/');
        if (this.projectFolderRel !== undefined && !local.startsWith('/') && !local.split('/').some((seg) => seg === '..' || seg === '.')) {
          const m = this.ctx.files.matcher(local);
          const prefix = this.projectFolderRel === '' ? '' : this.projectFolderRel + '/';
          globs.push(prefix === '' ? m : (rel) => rel.startsWith(prefix) && m(rel.slice(prefix.length)));
          continue;
        }
        const abs = absPath({ root: this.ctx.root, files: this.ctx.files, projectDir: this.projectDir, thisFileDir: this.projectDir, lookup: () => undefined }, spec);
        const relPattern = relInside(this.ctx, abs);
        if (relPattern === undefined) {
          if (tracked) this.reason(`${what} pattern "${clip(spec)}" reaches outside the workspace`);
          continue;
        }
        globs.push(this.ctx.files.matcher(relPattern));
      } else literal.add(absPath({ root: this.ctx.root, files: this.ctx.files, projectDir: this.projectDir, thisFileDir: this.projectDir, lookup: () => undefined }, spec));
    }
    return (i) => {
      if (nameLike) return literalCi.has(i.spec.toLowerCase());
      if (literal.has(i.abs)) return true;
      if (i.rel !== undefined) for (const g of globs) if (g(i.rel)) return true;
      return false;
    };
  }
}

/** Fills the well-known item metadata %(Filename), %(Extension), %(RecursiveDir), %(Identity); undefined for others. */
function itemMetadata(raw: string, item: EvaluatedItem): string | undefined {
  let ok = true;
  const base = path.posix.basename(item.abs);
  const ext = path.posix.extname(base);
  const out = raw.replace(/%\(\s*([\w.-]+)\s*\)/g, (_m, name: string) => {
    switch (name.toLowerCase()) {
      case 'filename':
        return base.slice(0, base.length - ext.length);
      case 'extension':
        return ext;
      case 'recursivedir':
        return item.metadata.get('recursivedir') ?? '';
      case 'identity':
        return item.spec;
      default:
        ok = false;
        return '';
    }
  });
  return ok ? out : undefined;
}

function firstWildcardIndex(p: string): number {
  const segs = p.split('/');
  const i = segs.findIndex(hasWildcard);
  return i < 0 ? segs.length : i;
}

function firstWildcardSegment(p: string): number {
  const segs = p.split('/');
  const i = segs.findIndex(hasWildcard);
  if (i <= 0) return 0;
  return segs.slice(0, i).join('/').length + 1;
}

/** %(RecursiveDir): the part of the match that the first wildcard segment onward covered, minus the file name. */
function recursiveDirOf(pattern: string, match: string): string | undefined {
  const segs = pattern.split('/');
  const i = segs.findIndex(hasWildcard);
  if (i < 0) return undefined;
  const mSegs = match.split('/');
  const dirSegs = mSegs.slice(i, mSegs.length - 1);
  return dirSegs.length ? dirSegs.join('/') + '/' : '';
}

