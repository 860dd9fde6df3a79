#!/usr/bin/env node
// Builds Sextant's Roslyn host (roslyn/Sextant.RoslynHost, net10.0) with `dotnet build -c Release`,
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
  return h.digest('hex');
}

const want = stamp();
if (fs.existsSync(dll) && fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === want) done(0, `up to date (${path.relative(root, dll)})`);

const started = Date.now();
const r = spawnSync('dotnet', ['build', project, '-c', 'Release', '--nologo', '-v', 'q', '--disable-build-servers', '-clp:ErrorsOnly'], {
  cwd: root,
  encoding: 'utf8',
  env,
  stdio: ['ignore', 'pipe', 'pipe'],
  timeout: 15 * 60 * 1000,
});
if (r.status !== 0 || !fs.existsSync(dll)) {
  const tail = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.trim().split('\n').filter(Boolean).slice(-6).join('\n  ');
  done(1, `dotnet build failed (exit ${r.status ?? r.signal}); the Roslyn host is not available. ${LACKS}.\n  ${tail}`);
}
fs.writeFileSync(stampFile, want);
done(0, `built ${path.relative(root, dll)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
