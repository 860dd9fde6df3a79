/**
 * The real evaluator as an oracle: `dotnet msbuild <proj> -getProperty:... -getItem:...` (no
 * restore, no build) and a comparison of its answers with the project model's, per target framework.
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { MsbuildProject } from '../../../server/src/projects/msbuild/readMsbuildProject';

export interface OracleAnswer {
  properties: Record<string, string>;
  compile: string[];
  projectReferences: string[];
  ms: number;
  error?: string;
}

const ENV = {
  ...process.env,
  DOTNET_CLI_TELEMETRY_OPTOUT: '1',
  DOTNET_NOLOGO: '1',
  DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1',
  MSBUILDDISABLENODEREUSE: '1',
  DOTNET_CLI_UI_LANGUAGE: 'en',
};

export function dotnetAvailable(): boolean {
  try {
    return require('node:child_process').spawnSync('dotnet', ['--version'], { env: ENV, timeout: 60_000 }).status === 0;
  } catch {
    return false;
  }
}

/** Evaluates one project with MSBuild; paths come back workspace-relative (absolute when outside). */
export function askMsbuild(root: string, projectRel: string, targetFramework?: string): Promise<OracleAnswer> {
  const args = [
    'msbuild',
    path.join(root, projectRel),
    '-nologo',
    '-getProperty:TargetFramework',
    '-getProperty:TargetFrameworks',
    '-getProperty:AssemblyName',
    '-getProperty:RootNamespace',
    '-getItem:Compile',
    '-getItem:ProjectReference',
  ];
  if (targetFramework) args.push(`-p:TargetFramework=${targetFramework}`);
  const started = performance.now();
  return new Promise((resolve) => {
    execFile('dotnet', args, { env: ENV, cwd: root, maxBuffer: 256 * 1024 * 1024, timeout: 120_000 }, (err, stdout) => {
      const ms = performance.now() - started;
      const start = stdout.indexOf('{');
      if (err || start < 0) {
        resolve({ properties: {}, compile: [], projectReferences: [], ms, error: (stdout || String(err)).slice(0, 2000) });
        return;
      }
      const json = JSON.parse(stdout.slice(start)) as {
        Properties?: Record<string, string>;
        Items?: Record<string, { FullPath: string }[]>;
      };
      const rel = (p: string) => {
        const r = path.relative(root, p).split(path.sep).join('/');
        return r.startsWith('..') ? p : r;
      };
      resolve({
        properties: json.Properties ?? {},
        compile: (json.Items?.Compile ?? []).map((i) => rel(i.FullPath)),
        projectReferences: (json.Items?.ProjectReference ?? []).map((i) => rel(i.FullPath)),
        ms,
      });
    });
  });
}

/**
 * Many evaluations in one MSBuild process: a driver project calls the MSBuild task on every
 * (project, framework) pair with a target injected through CustomAfterMicrosoftCommon(CrossTargeting)Targets
 * that writes the evaluated Compile / ProjectReference items and properties to a file. The target
 * depends on nothing, so the items are exactly the evaluation's. Projects MSBuild cannot evaluate
 * come back with `error`.
 */
export async function askMsbuildBatch(root: string, jobs: { project: string; targetFramework?: string }[]): Promise<{ answers: OracleAnswer[]; ms: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-oracle-'));
  try {
    const out = path.join(dir, 'out.txt');
    const dump = path.join(dir, 'dump.targets');
    fs.writeFileSync(
      dump,
      `<Project>
  <Target Name="SxDump">
    <PropertyGroup><_SxKey>$(MSBuildProjectFullPath)|$(SxJob)</_SxKey></PropertyGroup>
    <ItemGroup>
      <_SxLine Include="$(_SxKey)|P|TargetFramework|$([MSBuild]::Escape($(TargetFramework)))" />
      <_SxLine Include="$(_SxKey)|P|TargetFrameworks|$([MSBuild]::Escape($(TargetFrameworks)))" />
      <_SxLine Include="$(_SxKey)|P|AssemblyName|$([MSBuild]::Escape($(AssemblyName)))" />
      <_SxLine Include="$(_SxKey)|P|RootNamespace|$([MSBuild]::Escape($(RootNamespace)))" />
      <_SxLine Include="@(Compile->'$(_SxKey)|C|%(FullPath)')" />
      <_SxLine Include="@(ProjectReference->'$(_SxKey)|R|%(FullPath)')" />
    </ItemGroup>
    <WriteLinesToFile File="${out}" Lines="@(_SxLine)" Overwrite="false" />
  </Target>
</Project>
`,
    );
    const items = jobs
      .map((j, i) => {
        const props = [`SxJob=${i}`, ...(j.targetFramework ? [`TargetFramework=${j.targetFramework}`] : [])].join(';');
        return `    <_SxProject Include="${escapeXml(path.join(root, j.project))}" AdditionalProperties="${escapeXml(props)}" />`;
      })
      .join('\n');
    const driver = path.join(dir, 'driver.proj');
    fs.writeFileSync(
      driver,
      `<Project>
  <ItemGroup>
${items}
  </ItemGroup>
  <Target Name="Run">
    <MSBuild Projects="@(_SxProject)" Targets="SxDump" BuildInParallel="false" ContinueOnError="true"
             Properties="CustomAfterMicrosoftCommonTargets=${dump};CustomAfterMicrosoftCommonCrossTargetingTargets=${dump}" />
  </Target>
</Project>
`,
    );
    const started = performance.now();
    const log = await new Promise<string>((resolve) => {
      execFile('dotnet', ['msbuild', driver, '-nologo', '-t:Run', '-m:1', '-nr:false', '-v:q', '-clp:ErrorsOnly;NoSummary'], { env: ENV, cwd: dir, maxBuffer: 256 * 1024 * 1024, timeout: 1_800_000 }, (_err, stdout) =>
        resolve(stdout),
      );
    });
    const ms = performance.now() - started;
    const answers: OracleAnswer[] = jobs.map(() => ({ properties: {}, compile: [], projectReferences: [], ms: ms / Math.max(1, jobs.length) }));
    const seen = new Set<number>();
    const rel = (p: string) => {
      const r = path.relative(root, p).split(path.sep).join('/');
      return r.startsWith('..') ? p : r;
    };
    const text = fs.existsSync(out) ? fs.readFileSync(out, 'utf8') : '';
    for (const line of text.split(/\r?\n/)) {
      if (!line) continue;
      const [, job, kind, a, b] = line.split('|');
      const i = Number(job);
      const ans = answers[i];
      if (!ans) continue;
      seen.add(i);
      if (kind === 'P') ans.properties[a!] = b ?? '';
      else if (kind === 'C') ans.compile.push(rel(a!));
      else if (kind === 'R') ans.projectReferences.push(rel(a!));
    }
    jobs.forEach((j, i) => {
      if (!seen.has(i)) answers[i]!.error = `MSBuild did not evaluate ${j.project}${j.targetFramework ? ` (${j.targetFramework})` : ''}: ${log.split('\n').filter((l) => l.includes(j.project.split('/').pop()!)).slice(0, 2).join(' ').slice(0, 500)}`;
    });
    return { answers, ms };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** Runs tasks with at most `n` in flight. */
export async function pool<T, R>(items: T[], n: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

export interface Disagreement {
  project: string;
  targetFramework: string;
  what: 'targetFrameworks' | 'compile' | 'projectReference' | 'assemblyName' | 'rootNamespace' | 'msbuild-error';
  onlyModel: string[];
  onlyMsbuild: string[];
}

export interface Agreement {
  projects: number;
  evaluations: number;
  compile: { compared: number; agreed: number };
  projectReferences: { compared: number; agreed: number };
  targetFrameworks: { compared: number; agreed: number };
  names: { compared: number; agreed: number };
  disagreements: Disagreement[];
  msbuildMs: number[];
}

/** Compares model projects with MSBuild's evaluation of each (per target framework for multi-targeting). */
export async function compareWithMsbuild(root: string, projects: MsbuildProject[], parallel = 2, batch = false): Promise<Agreement> {
  const jobs: { p: MsbuildProject; tfm?: string }[] = [];
  for (const p of projects) {
    jobs.push({ p });
    if (p.crossTargeting) for (const tfm of p.targetFrameworks) jobs.push({ p, tfm });
  }
  const answers = batch
    ? (await askMsbuildBatch(root, jobs.map((j) => (j.tfm ? { project: j.p.path, targetFramework: j.tfm } : { project: j.p.path })))).answers
    : await pool(jobs, parallel, (j) => askMsbuild(root, j.p.path, j.tfm));
  const result: Agreement = {
    projects: projects.length,
    evaluations: jobs.length,
    compile: { compared: 0, agreed: 0 },
    projectReferences: { compared: 0, agreed: 0 },
    targetFrameworks: { compared: 0, agreed: 0 },
    names: { compared: 0, agreed: 0 },
    disagreements: [],
    msbuildMs: answers.map((a) => a.ms),
  };
  jobs.forEach((j, i) => {
    const a = answers[i]!;
    const p = j.p;
    const tfmLabel = j.tfm ?? '';
    if (a.error) {
      result.disagreements.push({ project: p.path, targetFramework: tfmLabel, what: 'msbuild-error', onlyModel: [], onlyMsbuild: [a.error] });
      return;
    }
    const outer = j.tfm === undefined;
    if (outer) {
      const tf = (a.properties.TargetFramework ?? '').trim();
      const theirs = tf !== '' ? [tf] : (a.properties.TargetFrameworks ?? '').split(';').map((s) => s.trim()).filter(Boolean);
      const legacy = p.sdk === 'legacy';
      if (!legacy) tally(result, 'targetFrameworks', p.path, tfmLabel, p.targetFrameworks, theirs);
      tally(result, 'assemblyName', p.path, tfmLabel, p.assemblyName ? [p.assemblyName] : [], a.properties.AssemblyName ? [a.properties.AssemblyName] : []);
      tally(result, 'rootNamespace', p.path, tfmLabel, p.rootNamespace ? [p.rootNamespace] : [], a.properties.RootNamespace ? [a.properties.RootNamespace] : []);
    }
    // Compile items and references: the inner build for multi-targeting projects, the only build otherwise.
    const multi = p.crossTargeting;
    if (multi && outer) return;
    const applies = (tfms: string[]) => !multi || tfms.length === 0 || tfms.includes(j.tfm!);
    const modelCompile = p.files.filter((f) => applies(f.targetFrameworks)).map((f) => f.path);
    const modelOutside = p.outsideFiles;
    tally(result, 'compile', p.path, tfmLabel, [...modelCompile, ...modelOutside], a.compile);
    const modelRefs = p.projectReferences.filter((r) => applies(r.targetFrameworks)).map((r) => r.target);
    tally(result, 'projectReference', p.path, tfmLabel, modelRefs, a.projectReferences);
  });
  return result;
}

function tally(r: Agreement, what: Disagreement['what'], project: string, tfm: string, model: string[], msbuild: string[]): void {
  const bucket = what === 'compile' ? r.compile : what === 'projectReference' ? r.projectReferences : what === 'targetFrameworks' ? r.targetFrameworks : r.names;
  const m = new Set(model);
  const t = new Set(msbuild);
  const onlyModel = [...m].filter((x) => !t.has(x));
  const onlyMsbuild = [...t].filter((x) => !m.has(x));
  const union = new Set([...m, ...t]);
  bucket.compared += union.size;
  bucket.agreed += union.size - onlyModel.length - onlyMsbuild.length;
  if (onlyModel.length || onlyMsbuild.length) r.disagreements.push({ project, targetFramework: tfm, what, onlyModel, onlyMsbuild });
}

/** Copies a fixture folder to a fresh temp folder (MSBuild must not see the repository around it). */
export function copyFixture(src: string, prefix: string): string {
  const dst = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.cpSync(src, dst, { recursive: true });
  return fs.realpathSync(dst);
}

/** Every file under `root` as workspace-relative POSIX paths (the test's stand-in for discovery). */
export function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(path.relative(root, p).split(path.sep).join('/'));
    }
  };
  walk(root);
  return out.sort();
}
