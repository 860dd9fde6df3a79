#!/usr/bin/env node
// Bundles the extension test suite (test/extension/suite/**) for the extension host:
// out/extension-tests/suite/index.js (exports run()) and one file per *.test.ts beside it.
// `vscode` stays external (the host provides it) and so does mocha (resolved from the repository's
// node_modules at run time: the suite always runs from a checkout, never from a .vsix).
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const suiteDir = path.join(root, 'test/extension/suite');
const outdir = path.join(root, 'out/extension-tests');
fs.rmSync(outdir, { recursive: true, force: true });

const entryPoints = [path.join(suiteDir, 'index.ts')];
for (const f of fs.readdirSync(suiteDir)) if (/\.([a-z]+-)?test\.ts$/.test(f)) entryPoints.push(path.join(suiteDir, f));

await esbuild.build({
  entryPoints,
  outbase: path.join(root, 'test/extension'),
  outdir,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: 'inline',
  logLevel: 'warning',
  external: ['vscode', 'mocha'],
});
console.log(`built ${entryPoints.length} extension test entries -> ${path.relative(root, outdir)}/`);
