#!/usr/bin/env node
// Builds Sextant's Roslyn host (roslyn/Sextant.RoslynHost, net10.0) with `dotnet publish -c Release` ReadyToRun
// for this machine's runtime identifier (framework-dependent; else `dotnet build -c Release`),
// offline through the registry that roslyn/NuGet.config names, into roslyn/out/host/ (where the
// engine looks for it from a checkout; `npm run package` copies it into the .vsix). Run by
// `npm install` (scripts/postinstall.mjs) and by `npm run package`.
//
// Without the .NET SDK it says what C# will lack and succeeds; a failed build is reported the same
// way (the engine then serves C# through csharp-ls). `--strict` makes both an error (packaging).
// A stamp of the sources' sizes and mtimes skips a build that would change nothing.
import { spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const strict = process.argv.includes('--strict');
const project = path.join(root, 'roslyn', 'Sextant.RoslynHost', 'Sextant.RoslynHost.csproj');
const outDir = path.join(root, 'roslyn', 'out', 'host');
const dll = path.join(outDir, 'Sextant.RoslynHost.dll');
const stampFile = path.join(root, 'roslyn', 'out', '.sextant-build-stamp');
const say = (msg) => process.stderr.write(`sextant roslyn host: ${msg}\n`);
const env = { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1', MSBUILDDISABLENODEREUSE: '1' };
const LACKS =
  'C# questions are answered by csharp-ls when it is installed (restarts to grow its project set, capped at 300 projects), else by name matching (heuristic)';

function done(code, msg) {
  if (msg) say(msg);
  process.exit(strict ? code : 0);
}

if (!fs.existsSync(project)) done(1, `no ${path.relative(root, project)} in this checkout; nothing to build. ${LACKS}.`);

const v = spawnSync('dotnet', ['--version'], { cwd: root, encoding: 'utf8', env });
if (v.status !== 0) done(1, `dotnet not found: the Roslyn host is not built. ${LACKS}. Install the .NET 10 SDK and run npm install again.`);
const major = Number(String(v.stdout).trim().split('.')[0]);
if (!(major >= 10)) done(1, `the .NET SDK ${String(v.stdout).trim()} cannot build the host (it targets net10.0): not built. ${LACKS}. Install the .NET 10 SDK and run npm install again.`);

/** Sizes and mtimes of every source of the host, so an unchanged tree is not rebuilt. */
function stamp() {
  const h = crypto.createHash('sha1');
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.name === 'out' || e.name === 'bin' || e.name === 'obj' || e.name === 'node_modules') continue;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(cs|csproj|props|targets|config|json)$/i.test(e.name)) {
        const st = fs.statSync(p);
        h.update(`${path.relative(root, p)}\0${st.size}\0${st.mtimeMs}\n`);
      }
    }
  };
  walk(path.join(root, 'roslyn'));
  h.update(String(v.stdout).trim());
  h.update(`r2r=${process.env.SEXTANT_ROSLYN_R2R ?? ''}`);
  return h.digest('hex');
}

const want = stamp();
if (fs.existsSync(dll) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === want) done(0, `up to date (${path.relative(root, dll)})`);

const started = Date.now();
// A build that "succeeds" but leaves an older host in place (a publish stopped by its timeout, an
// MSBuild step skipped as up to date) must not be reported as built: the host must be this build's.
const fresh = () => fs.existsSync(dll) && fs.statSync(dll).mtimeMs >= started - 2000;
const run = (args) =>
  spawnSync('dotnet', args, { cwd: root, encoding: 'utf8', env, stdio: ['ignore', 'pipe', 'pipe'], timeout: 15 * 60 * 1000 });
const tailOf = (r) => `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').filter(Boolean).slice(-6).join('\n  ');

// ReadyToRun (precompiled native code for this machine's runtime identifier, still framework-dependent:
// the assemblies keep their IL, so another OS or CPU JITs as before): the first question of a cold
// host spends a third less CPU (measured: tiny workspace first query 932 -> 441 ms CPU; MassTransit's
// first definition 5.8 -> 3.6 s, medians of 3, same run). It needs the registry's crossgen2 and runtime
// packs for the RID; when they cannot be had (or SEXTANT_ROSLYN_R2R=0) the plain build is used.
const rid = { 'linux-x64': 'linux-x64', 'linux-arm64': 'linux-arm64', 'darwin-x64': 'osx-x64', 'darwin-arm64': 'osx-arm64', 'win32-x64': 'win-x64', 'win32-arm64': 'win-arm64' }[`${process.platform}-${process.arch}`];
let how = 'build';
let r = { status: 1 };
if (rid && process.env.SEXTANT_ROSLYN_R2R !== '0') {
  // in place (other work trees link to this folder; a running host keeps its loaded files)
  const buildDir = path.join(root, 'roslyn', 'out', 'r2r-build') + path.sep;
  r = run(['publish', project, '-c', 'Release', '-r', rid, '--self-contained', 'false', '-p:PublishReadyToRun=true', `-p:OutDir=${buildDir}`, '-o', outDir, '--nologo', '-v', 'q', '--disable-build-servers', '-clp:ErrorsOnly']);
  fs.rmSync(buildDir, { recursive: true, force: true });
  if (r.status === 0 && fresh()) how = `ReadyToRun ${rid}`;
  else say(`ReadyToRun publish for ${rid} failed (exit ${r.status ?? r.signal}); building without it.\n  ${tailOf(r)}`);
}
if (how === 'build') {
  r = run(['build', project, '-c', 'Release', '--nologo', '-v', 'q', '--disable-build-servers', '-clp:ErrorsOnly']);
  if (r.status === 0 && !fresh()) {
    // MSBuild judged the output up to date: copy again from a clean output so the host is this source's.
    fs.rmSync(path.join(root, 'roslyn', 'out', 'obj'), { recursive: true, force: true });
    r = run(['build', project, '-c', 'Release', '--nologo', '-v', 'q', '--disable-build-servers', '-clp:ErrorsOnly', '--no-incremental']);
  }
  if (r.status !== 0 || !fresh()) done(1, `dotnet build failed (exit ${r.status ?? r.signal}${r.status === 0 ? ', and the host dll was not rewritten' : ''}); the Roslyn host is not available. ${LACKS}.\n  ${tailOf(r)}`);
}
fs.writeFileSync(stampFile, want);
done(0, `built ${path.relative(root, dll)} (${how}) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
