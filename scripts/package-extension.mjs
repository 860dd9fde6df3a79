#!/usr/bin/env node
// `npm run package`: builds the bundles, adds this platform's ripgrep binary to dist/bin/, and
// packages the extension with @vscode/vsce offline (no dependency scan: everything is bundled).
// Prints `vsce ls` and fails if a required file is missing or anything unexpected is inside.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(path.join(root, 'package.json'));
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const target = `${process.platform}-${process.arch}`;
const out = path.join(root, `${pkg.name}-${pkg.version}-${target}.vsix`);
const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

run(process.execPath, [path.join(root, 'scripts', 'build.mjs')]);

// ripgrep: the engine looks for dist/bin/rg before node_modules (server/src/nav/ripgrep.ts).
const rgName = process.platform === 'win32' ? 'rg.exe' : 'rg';
const rg = require.resolve(`@vscode/ripgrep-${process.platform}-${process.arch}/bin/${rgName}`);
fs.mkdirSync(path.join(root, 'dist', 'bin'), { recursive: true });
fs.copyFileSync(rg, path.join(root, 'dist', 'bin', rgName));
fs.chmodSync(path.join(root, 'dist', 'bin', rgName), 0o755);

// Sextant's Roslyn host, framework-dependent (runs on the user's dotnet): built if needed, copied to
// dist/roslyn-host/ (the engine looks there first; server/src/semantic/roslyn/roslynHost.ts). A
// machine without the .NET 10 SDK packages without it, and says so: C# then falls back to csharp-ls.
execFileSync(process.execPath, [path.join(root, 'scripts', 'build-roslyn-host.mjs')], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
const hostOut = path.join(root, 'roslyn', 'out', 'host');
const hostDist = path.join(root, 'dist', 'roslyn-host');
fs.rmSync(hostDist, { recursive: true, force: true });
const hostBuilt = fs.existsSync(path.join(hostOut, 'Sextant.RoslynHost.dll'));
if (hostBuilt) {
  fs.mkdirSync(hostDist, { recursive: true });
  fs.cpSync(hostOut, hostDist, { recursive: true, filter: (src) => !src.endsWith('.pdb') });
} else console.error('package: the Roslyn host is not built; the .vsix will serve C# through csharp-ls only');

const flags = ['--no-dependencies', '--allow-missing-repository', '--skip-license', '--target', target];
const listing = run(process.execPath, [vsce, 'ls', '--no-dependencies']).trim().split('\n').sort();
console.log(`vsce ls (${listing.length} files):\n  ${listing.join('\n  ')}`);
const required = ['package.json', 'dist/extension.js', 'dist/cli.js', 'dist/cliMain.js', 'dist/wasm/sql-wasm.wasm', `dist/bin/${rgName}`, 'dist/native/parcel-watcher.node', 'media/graph/out/graph.js', 'media/icon.png', ...(hostBuilt ? ['dist/roslyn-host/Sextant.RoslynHost.dll', 'dist/roslyn-host/Sextant.RoslynHost.runtimeconfig.json'] : [])];
const missing = required.filter((f) => !listing.includes(f));
const unexpected = listing.filter((f) => /(^|\/)node_modules\/|\.map$|\.ts$|^src\/|^server\/|^test\//.test(f));
if (missing.length || unexpected.length) {
  console.error(`package check failed: missing ${JSON.stringify(missing)}, unexpected ${JSON.stringify(unexpected)}`);
  process.exit(1);
}
run(process.execPath, [vsce, 'package', ...flags, '--out', out]);
console.log(`packaged ${path.relative(root, out)} (${(fs.statSync(out).size / 1024 / 1024).toFixed(1)} MiB)`);
