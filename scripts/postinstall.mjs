#!/usr/bin/env node
// `npm install`'s own steps after the dependencies are in (npm runs `prepare` — the build — after
// this). Each step installs into the checkout only, never into HOME or a global location, and a
// step that cannot run on this machine says what will be missing and lets `npm install` succeed.
// Steps run in order; add a step by appending to STEPS (e.g. building a .NET host).
//
//   csharp-ls   the C# language server, pinned in .config/dotnet-tools.json, installed with
//               `dotnet tool install --tool-path .tools/csharp-ls` (the engine looks there first).
//   roslyn-host Sextant's own Roslyn host, `dotnet publish -c Release` (ReadyToRun, framework-dependent; else `dotnet build`) of roslyn/ into roslyn/out/host/
//               (scripts/build-roslyn-host.mjs).
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const say = (msg) => process.stderr.write(`sextant postinstall: ${msg}\n`);
const dotnetEnv = { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1' };

function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { cwd: root, encoding: 'utf8', env: dotnetEnv, ...opts });
}

/** The .NET SDK's version, or undefined when `dotnet` is not installed. */
function dotnetVersion() {
  const r = run('dotnet', ['--version']);
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** csharp-ls at the version pinned in the tool manifest, under .tools/csharp-ls/. */
function csharpLs() {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, '.config', 'dotnet-tools.json'), 'utf8'));
  const version = manifest.tools['csharp-ls'].version;
  const dir = path.join(root, '.tools', 'csharp-ls');
  const exe = path.join(dir, process.platform === 'win32' ? 'csharp-ls.exe' : 'csharp-ls');
  if (!dotnetVersion()) {
    say(`dotnet not found: csharp-ls ${version} not installed, so C# definitions, references and call hierarchy will be heuristic (name matching) and the C# semantic tests skip. Install the .NET SDK 8 or later and run npm install again.`);
    return;
  }
  const installed = fs.existsSync(path.join(dir, '.store', 'csharp-ls', version)) && fs.existsSync(exe);
  if (installed) {
    say(`csharp-ls ${version} already installed in ${path.relative(root, dir)}/`);
    return;
  }
  fs.rmSync(dir, { recursive: true, force: true });
  const r = run('dotnet', ['tool', 'install', 'csharp-ls', '--version', version, '--tool-path', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  if (r.status !== 0 || !fs.existsSync(exe)) {
    say(`installing csharp-ls ${version} failed (dotnet tool install exited ${r.status}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' ')}. C# semantic answers will be heuristic until npm install succeeds at this step.`);
    return;
  }
  say(`csharp-ls ${version} installed in ${path.relative(root, dir)}/`);
}

/** Sextant's Roslyn host (roslyn/ → roslyn/out/host/); says what C# lacks when it cannot be built. */
function roslynHost() {
  run(process.execPath, [path.join(root, 'scripts', 'build-roslyn-host.mjs')], { stdio: 'inherit' });
}

const STEPS = [
  ['csharp-ls', csharpLs],
  ['roslyn-host', roslynHost],
];

for (const [name, step] of STEPS) {
  try {
    step();
  } catch (e) {
    say(`step ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
