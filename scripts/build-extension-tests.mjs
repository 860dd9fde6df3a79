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
for (const f of fs.readdirSync(suiteDir)) if (/\.([a-z-]+-)?test\.ts$/.test(f)) entryPoints.push(path.join(suiteDir, f));

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

// The test-only C# stand-in extension (test/extension/csharp-standin): its manifest and bundle.
const standinSrc = path.join(root, 'test/extension/csharp-standin');
if (fs.existsSync(standinSrc)) {
  const standinOut = path.join(outdir, 'csharp-standin');
  await esbuild.build({
    entryPoints: [path.join(standinSrc, 'extension.ts')],
    outfile: path.join(standinOut, 'extension.js'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'warning',
    external: ['vscode'],
  });
  fs.copyFileSync(path.join(standinSrc, 'package.json'), path.join(standinOut, 'package.json'));
  console.log(`built the C# stand-in extension -> ${path.relative(root, standinOut)}/`);
}
