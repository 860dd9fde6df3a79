#!/usr/bin/env node
// Bundles the engine (dist/cli.js + workers) and the extension (dist/extension.js) with esbuild and
// copies the WASM assets (sql.js, the tree-sitter runtime and the grammars language-configs/ names) to dist/wasm/.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const require = createRequire(path.join(root, 'package.json'));
const dist = path.join(root, 'dist');
fs.mkdirSync(path.join(dist, 'wasm'), { recursive: true });

const engineEntries = {
  // dist/cli.js is the small launcher (a warm `sextant index` answered before the engine loads); the engine's CLI is dist/cliMain.js
  cli: 'server/src/cliLauncher.ts',
  cliMain: 'server/src/cli.ts',
  parseWorker: 'server/src/syntax/parseWorker.ts',
  discoverWorker: 'server/src/workspace/discoverWorker.ts',
  textWorker: 'server/src/index/textWorker.ts',
  tsProgramsWorker: 'server/src/semantic/tsprograms/tsProgramsWorker.ts',
};
const entryPoints = Object.fromEntries(
  Object.entries(engineEntries).filter(([, p]) => fs.existsSync(path.join(root, p))).map(([k, p]) => [k, path.join(root, p)]),
);

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // web-tree-sitter and sql.js locate their wasm through options we pass; keep node builtins external.
  external: ['vscode'],
};

await esbuild.build({ ...common, entryPoints, outdir: dist });
if (fs.existsSync(path.join(root, 'src/extension.ts'))) {
  await esbuild.build({ ...common, entryPoints: { extension: path.join(root, 'src/extension.ts') }, outdir: dist });
}
// The graph panel's page script (webview; browser bundle, loaded only from media/).
if (fs.existsSync(path.join(root, 'media/graph/main.ts'))) {
  await esbuild.build({ entryPoints: { graph: path.join(root, 'media/graph/main.ts') }, outdir: path.join(root, 'media/graph/out'), bundle: true, platform: 'browser', format: 'iife', target: 'es2022', minify: true, logLevel: 'warning' });
}

function copy(from, name) {
  fs.copyFileSync(from, path.join(dist, 'wasm', name ?? path.basename(from)));
}
// Only what runs: sql.js, the tree-sitter runtime, and the grammars language-configs/*/language.json
// name (dist/wasm/ goes into the .vsix whole; anything else left there from an older build is removed).
const wanted = new Set();
function copyWanted(from, name) {
  copy(from, name);
  wanted.add(name ?? path.basename(from));
}
copyWanted(require.resolve('sql.js/dist/sql-wasm.wasm'));
const wts = path.dirname(require.resolve('web-tree-sitter'));
for (const f of ['web-tree-sitter.wasm', 'tree-sitter.wasm']) {
  if (fs.existsSync(path.join(wts, f))) copyWanted(path.join(wts, f), 'web-tree-sitter.wasm');
}
for (const d of fs.readdirSync(path.join(root, 'language-configs'), { withFileTypes: true })) {
  const cfg = path.join(root, 'language-configs', d.name, 'language.json');
  if (!d.isDirectory() || !fs.existsSync(cfg)) continue;
  const g = JSON.parse(fs.readFileSync(cfg, 'utf8')).grammar;
  if (g) copyWanted(require.resolve(g.package), g.file);
}
for (const f of fs.readdirSync(path.join(dist, 'wasm'))) if (!wanted.has(f)) fs.rmSync(path.join(dist, 'wasm', f), { force: true });
// The native file watcher's binding for this platform (server/src/workspace/watcher.ts loads
// dist/native/parcel-watcher.node first; without it the engine falls back to Node's fs.watch and says so).
fs.rmSync(path.join(dist, 'native'), { recursive: true, force: true });
for (const libc of process.platform === 'linux' ? ['-glibc', '-musl'] : ['']) {
  let binding;
  try {
    binding = require.resolve(`@parcel/watcher-${process.platform}-${process.arch}${libc}/watcher.node`);
  } catch {
    continue;
  }
  fs.mkdirSync(path.join(dist, 'native'), { recursive: true });
  fs.copyFileSync(binding, path.join(dist, 'native', 'parcel-watcher.node'));
  break;
}
if (!fs.existsSync(path.join(dist, 'native', 'parcel-watcher.node'))) console.error(`build: no @parcel/watcher binary for ${process.platform}-${process.arch}; the engine will watch with fs.watch`);
console.log(`built ${Object.keys(entryPoints).join(', ')} -> dist/`);
