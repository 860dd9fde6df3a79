/**
 * Smoke helper (not the engine's description builder): turns the engine's ProjectGraph of a
 * workspace into ProjectDescriptions for `Sextant.RoslynHost --selftest`, so the host can be
 * exercised standalone. Defines and implicit usings are the SDK's defaults for the TFM.
 *   node --import tsx roslyn/smoke/describe.ts <workspaceRoot> <out.json> [queries.json]
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildProjectGraph } from '../../server/src/projects/buildProjectGraph';

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (e.name === '.git' || e.name === 'node_modules' || e.name === 'bin') continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(r);
      else out.push(r);
    }
  };
  walk('');
  return out;
}

function tfmDefines(tfm: string): string[] {
  const m = /^net(\d+)\.(\d+)/.exec(tfm);
  const d = ['TRACE', 'DEBUG', 'NET', 'NETCOREAPP'];
  if (m) {
    const major = Number(m[1]);
    d.push(`NET${major}_${m[2]}`, `NETCOREAPP${major}_${m[2]}`);
    for (let v = 5; v <= major; v++) d.push(`NET${v}_0_OR_GREATER`);
    d.push('NETCOREAPP3_1_OR_GREATER', 'NETCOREAPP3_0_OR_GREATER', 'NETCOREAPP2_1_OR_GREATER', 'NETSTANDARD2_1_OR_GREATER', 'NETSTANDARD2_0_OR_GREATER');
  }
  return d;
}

const IMPLICIT = ['System', 'System.Collections.Generic', 'System.IO', 'System.Linq', 'System.Net.Http', 'System.Threading', 'System.Threading.Tasks'];

/** <Using Include> items of the project file and the Directory.Build.props above it (smoke approximation). */
function usingItems(root: string, projectRel: string): { name: string; static?: boolean; alias?: string }[] {
  const files = [path.join(root, projectRel)];
  for (let dir = path.dirname(path.join(root, projectRel)); dir.startsWith(root); dir = path.dirname(dir)) {
    const props = path.join(dir, 'Directory.Build.props');
    if (fs.existsSync(props)) files.push(props);
    if (dir === root) break;
  }
  const out: { name: string; static?: boolean; alias?: string }[] = [];
  for (const f of files) {
    for (const m of fs.readFileSync(f, 'utf8').matchAll(/<Using\s+Include="([^"]+)"([^>]*)\/?>/g)) {
      const attrs = m[2] ?? '';
      const alias = /Alias="([^"]+)"/.exec(attrs)?.[1];
      out.push({ name: m[1]!, ...(/Static="true"/i.test(attrs) ? { static: true } : {}), ...(alias ? { alias } : {}) });
    }
  }
  return out;
}

const [root0, out, queriesFile] = process.argv.slice(2);
if (!root0 || !out) throw new Error('usage: describe.ts <root> <out.json> [queries.json]');
const root = path.resolve(root0);
const g = buildProjectGraph({ root, files: listFiles(root) });
const cs = g.projects.filter((p) => p.kind === 'csharp');
const pick = (tfms: string[]) => (tfms.includes('net10.0') ? 'net10.0' : tfms[tfms.length - 1] ?? 'net10.0');
const keyOf = new Map(cs.map((p) => [p.id, `${p.path}|${pick(p.targetFrameworks)}`]));
const docs = new Map<string, { path: string; linkPath?: string }[]>();
for (const [file, entries] of g.files) {
  if (!file.endsWith('.cs')) continue;
  for (const e of entries) {
    const tfm = pick(cs.find((p) => p.id === e.project)?.targetFrameworks ?? []);
    if (e.targetFrameworks && !e.targetFrameworks.includes(tfm)) continue;
    const l = docs.get(e.project) ?? [];
    l.push(e.link ? { path: file, linkPath: e.link } : { path: file });
    docs.set(e.project, l);
  }
}
const projects = cs.map((p) => {
  const tfm = pick(p.targetFrameworks);
  const edges = g.edges.filter((e) => e.from === p.id);
  const dir = path.posix.dirname(p.path);
  const assets = path.join(root, dir, 'obj', 'project.assets.json');
  const d = {
    key: keyOf.get(p.id)!,
    projectPath: p.path,
    name: p.name,
    assemblyName: p.assemblyName ?? p.name,
    targetFramework: tfm,
    outputKind: 'library',
    langVersion: 'latest',
    nullable: 'enable',
    defines: tfmDefines(tfm),
    globalUsings: [...IMPLICIT.map((name) => ({ name })), ...usingItems(root, p.path)],
    documents: docs.get(p.id) ?? [],
    projectReferences: edges.filter((e) => e.kind === 'projectReference' && keyOf.has(e.to)).map((e) => keyOf.get(e.to)!),
    packageReferences: edges.filter((e) => e.kind === 'packageReference').map((e) => ({ id: e.to.replace(/^package:/, ''), ...(e.version ? { version: e.version } : {}) })),
    frameworkReferences: [] as string[],
    references: [] as string[],
    analyzers: [] as string[],
    ...(fs.existsSync(assets) ? { assetsFile: path.posix.join(dir, 'obj', 'project.assets.json') } : {}),
    hash: '',
  };
  d.hash = String(JSON.stringify(d).length) + ':' + d.documents.length;
  return d;
});
const queries = queriesFile ? JSON.parse(fs.readFileSync(queriesFile, 'utf8')) : [];
fs.writeFileSync(out, JSON.stringify({ workspaceRoot: root, projects, queries }, null, 1));
console.log(`${projects.length} C# projects, ${projects.reduce((n, p) => n + p.documents.length, 0)} documents -> ${out}`);
