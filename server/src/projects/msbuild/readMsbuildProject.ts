/**
 * One MSBuild project as the graph needs it: evaluated once for its target frameworks (the outer
 * build) and once per target framework (the inner builds, where compile items and references
 * live), merged into files, references and packages with the frameworks they apply to.
 */
import * as path from 'node:path';
import type { ProjectKind, ProjectStatus } from '../ProjectGraph';
import { evaluateProject, type EvaluatedItem, type Evaluation, type EvaluationContext } from './evaluateProject';
import { isTestPackage } from './testMarkers';

export interface MsbuildProjectFile {
  path: string;
  targetFrameworks: string[];
  link?: string;
  /** False for a Compile item naming a file that is not in the workspace listing. */
  exists: boolean;
}

export interface MsbuildReference {
  /** Workspace-relative target, or the absolute path when it lies outside the workspace. */
  target: string;
  inWorkspace: boolean;
  targetFrameworks: string[];
}

export interface MsbuildPackage {
  name: string;
  version?: string;
  targetFrameworks: string[];
}

export interface MsbuildProject {
  path: string;
  name: string;
  kind: ProjectKind;
  sdk?: string;
  isTest: boolean;
  targetFrameworks: string[];
  /** Set from TargetFrameworks (even with one entry): items come from one inner build per framework. */
  crossTargeting: boolean;
  assemblyName?: string;
  rootNamespace?: string;
  status: ProjectStatus;
  reasons: string[];
  files: MsbuildProjectFile[];
  /** Compile items outside the workspace (absolute paths; not part of the file map). */
  outsideFiles: string[];
  projectReferences: MsbuildReference[];
  packages: MsbuildPackage[];
  /** .projitems files the project imports (shared projects). */
  sharedImports: string[];
  /** Every workspace file read for this project (the project, its imports); for freshness. */
  inputs: string[];
}

/** The kind of a project file by extension. */
export function msbuildKind(rel: string): ProjectKind | undefined {
  switch (path.posix.extname(rel).toLowerCase()) {
    case '.csproj':
      return 'csharp';
    case '.fsproj':
      return 'fsharp';
    case '.vbproj':
      return 'vb';
    case '.shproj':
      return 'shared';
    default:
      return undefined;
  }
}

/** A project node with nothing evaluated yet: the starting point of a read, or a failed placeholder. */
export function blankMsbuildProject(rel: string, status: ProjectStatus): MsbuildProject {
  return {
    path: rel,
    name: path.posix.basename(rel, path.posix.extname(rel)),
    kind: msbuildKind(rel) ?? 'csharp',
    isTest: false,
    targetFrameworks: [],
    crossTargeting: false,
    status,
    reasons: [],
    files: [],
    outsideFiles: [],
    projectReferences: [],
    packages: [],
    sharedImports: [],
    inputs: [rel],
  };
}

/** Reads and evaluates one project file. Never throws for bad input: problems become `failed`/`partial`. */
export function readMsbuildProject(ctx: EvaluationContext, rel: string): MsbuildProject {
  const base = blankMsbuildProject(rel, 'complete');
  const { kind, name } = base;
  const xml = ctx.readXml(rel);
  if (!xml.ok) return { ...base, status: 'failed', reasons: [xml.error] };
  if (xml.root.name !== 'Project') return { ...base, status: 'failed', reasons: [`the root element is <${xml.root.name}>, not <Project>`] };

  const reasons: string[] = [];
  const addReasons = (rs: string[], tfm?: string) => {
    for (const r of rs) {
      const s = tfm ? `${r} (${tfm})` : r;
      if (!reasons.includes(s) && !reasons.includes(r)) reasons.push(s);
    }
  };

  // The include cache only pays off across the per-framework builds of one multi-targeting project.
  const { includeCache: _shared, ...single } = ctx;
  void _shared;
  const outer = evaluateProject(single, rel, xml.root, {});
  const sdk = outer.sdks[0] ?? (kind === 'shared' ? undefined : 'legacy');
  const legacy = outer.sdks.length === 0;
  const prop = (ev: Evaluation, n: string) => ev.properties.get(n.toLowerCase());
  const tf = prop(outer, 'TargetFramework');
  const tfs = prop(outer, 'TargetFrameworks');
  let frameworks: string[] = [];
  let multi = false;
  if (kind === 'shared') {
    frameworks = [];
  } else if (tf && tf.value.trim() !== '') {
    frameworks = [tf.value.trim()];
    if (tf.unknown) reasons.push(`TargetFramework depends on ${tf.unknown}`);
  } else if (tfs && tfs.value.trim() !== '') {
    frameworks = [...new Set(tfs.value.split(';').map((s) => s.trim()).filter(Boolean))];
    multi = true;
    if (tfs.unknown) reasons.push(`TargetFrameworks depends on ${tfs.unknown}`);
  } else if (legacy) {
    const v = prop(outer, 'TargetFrameworkVersion')?.value.trim();
    if (v) frameworks = [legacyTfm(v)];
  } else if (prop(outer, 'UsingMicrosoftTraversalSdk')?.value !== 'true') {
    reasons.push('no TargetFramework or TargetFrameworks is set');
  }

  // Inner builds: one per framework for a multi-targeting project; the outer one otherwise.
  const inner: { tfm: string | undefined; ev: Evaluation }[] = multi
    ? frameworks.map((tfm) => ({ tfm, ev: evaluateProject(ctx, rel, xml.root, { TargetFramework: tfm }) }))
    : [{ tfm: frameworks[0], ev: outer }];
  // A multi-targeting project's items come from its inner builds: the outer build's item problems do not apply.
  addReasons(multi ? outer.reasons.filter((r) => !outer.itemReasons.includes(r)) : outer.reasons);
  for (const { tfm, ev } of inner) if (ev !== outer) addReasons(ev.reasons, tfm);

  const files = new Map<string, { tfms: Set<string>; link?: string }>();
  const outside = new Set<string>();
  const refs = new Map<string, { inWorkspace: boolean; tfms: Set<string> }>();
  const pkgs = new Map<string, { name: string; version?: string; tfms: Set<string> }>();
  const shared = new Set<string>();
  const inputs = new Set<string>([rel]);
  let isTest = false;
  for (const { tfm, ev } of inner) {
    const key = tfm ?? '';
    for (const i of ev.imports) {
      inputs.add(i);
      if (i.toLowerCase().endsWith('.projitems')) shared.add(i);
    }
    for (const item of ev.items.get('compile') ?? []) {
      if (item.rel === undefined) {
        outside.add(item.abs);
        continue;
      }
      const e = files.get(item.rel) ?? { tfms: new Set<string>() };
      e.tfms.add(key);
      const link = item.metadata.get('link');
      if (link && !e.link) e.link = link.replace(/\\/g, '/');
      files.set(item.rel, e);
    }
    for (const item of ev.items.get('projectreference') ?? []) {
      const target = item.rel ?? item.abs;
      const e = refs.get(target) ?? { inWorkspace: item.rel !== undefined, tfms: new Set<string>() };
      e.tfms.add(key);
      refs.set(target, e);
    }
    const central = prop(ev, 'ManagePackageVersionsCentrally')?.value.toLowerCase() === 'true';
    const versions = new Map<string, string>();
    if (central) for (const pv of ev.items.get('packageversion') ?? []) versions.set(pv.spec.toLowerCase(), pv.metadata.get('version') ?? '');
    const packageItems: EvaluatedItem[] = [...(ev.items.get('packagereference') ?? []), ...(central ? (ev.items.get('globalpackagereference') ?? []) : [])];
    for (const item of packageItems) {
      const lname = item.spec.toLowerCase();
      const version = item.metadata.get('version') || item.metadata.get('versionoverride') || (central ? versions.get(lname) : undefined) || undefined;
      const e = pkgs.get(lname) ?? { name: item.spec, tfms: new Set<string>() };
      if (version && !e.version) e.version = version;
      e.tfms.add(key);
      pkgs.set(lname, e);
      if (isTestPackage(item.spec)) isTest = true;
    }
    const itp = prop(ev, 'IsTestProject');
    if (itp?.value.toLowerCase() === 'true') isTest = true;
  }
  const explicitNotTest = prop(inner[0]!.ev, 'IsTestProject')?.value.toLowerCase() === 'false';
  if (explicitNotTest) isTest = false;

  const all = inner.map((x) => x.tfm ?? '');
  const subset = (s: Set<string>) => (s.size === all.length || (all.length === 1 && all[0] === '') ? [] : all.filter((t) => s.has(t)));
  const last = inner[inner.length - 1]!.ev;
  const assemblyName = prop(last, 'AssemblyName')?.value.trim();
  const rootNamespace = prop(last, 'RootNamespace')?.value.trim();
  if (kind !== 'shared') {
    for (const n of ['AssemblyName', 'RootNamespace', 'IsTestProject']) {
      const u = prop(last, n)?.unknown;
      if (u) addReasons([`${n} depends on ${u}`]);
    }
  }
  const result: MsbuildProject = {
    ...base,
    targetFrameworks: frameworks,
    crossTargeting: multi,
    isTest,
    status: reasons.length > 0 ? 'partial' : 'complete',
    reasons,
    files: [...files].map(([p, e]) => ({ path: p, targetFrameworks: subset(e.tfms), exists: ctx.files.has(p), ...(e.link ? { link: e.link } : {}) })),
    outsideFiles: [...outside],
    projectReferences: [...refs].map(([t, e]) => ({ target: t, inWorkspace: e.inWorkspace, targetFrameworks: subset(e.tfms) })),
    packages: [...pkgs.values()].map((p) => ({ name: p.name, ...(p.version ? { version: p.version } : {}), targetFrameworks: subset(p.tfms) })),
    sharedImports: [...shared],
    inputs: [...inputs],
  };
  if (sdk !== undefined) result.sdk = sdk;
  if (assemblyName && kind !== 'shared') result.assemblyName = assemblyName;
  if (rootNamespace && kind !== 'shared') result.rootNamespace = rootNamespace;
  return result;
}

/** v4.7.2 → net472 */
function legacyTfm(v: string): string {
  return 'net' + v.replace(/^v/i, '').split('.').join('');
}
