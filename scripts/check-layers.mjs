#!/usr/bin/env node
// Checks that imports point down the layers (docs/architecture.md, ../shared/DESIGN.md):
//   core < protocol < workspace < {projects, syntax} < index < semantic < nav < mcp < cli.ts
// plus: `vscode` only in src/; the MCP SDK and zod only in server/src/mcp/ (and cli.ts);
// LSP libraries only in server/src/semantic/lsp/ and server/src/protocol/ (the Roslyn host client in
// semantic/roslyn/ reaches its JSON-RPC channel through semantic/lsp/rpcChannel.ts); src/ imports
// only server/src/protocol/ from the engine.
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const RANK = { core: 0, protocol: 1, workspace: 2, projects: 3, syntax: 3, index: 4, semantic: 5, nav: 6, mcp: 7 };
const problems = [];

function* walk(dir) {
  if (!fs.existsSync(dir)) return;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (/\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) yield p;
  }
}

function importsOf(file) {
  const src = fs.readFileSync(file, 'utf8');
  const out = [];
  const re = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|(?:require|import)\(\s*['"]([^'"]+)['"]\s*\)/gm;
  let m;
  while ((m = re.exec(src))) out.push(m[1] ?? m[2]);
  return out;
}

function layerOf(abs) {
  const rel = path.relative(path.join(root, 'server/src'), abs).split(path.sep);
  if (rel[0] === '..') return undefined;
  if (rel.length === 1) return 'cli';
  return rel[0];
}

const MCP_ONLY = [/^@modelcontextprotocol\/sdk/, /^zod(\/|$)/];
const LSP_ONLY = [/^vscode-jsonrpc/, /^vscode-languageserver-protocol/, /^vscode-languageclient/];

for (const file of walk(path.join(root, 'server/src'))) {
  const layer = layerOf(file);
  const relFile = path.relative(root, file);
  const inLsp = relFile.startsWith('server/src/semantic/lsp/');
  for (const spec of importsOf(file)) {
    if (spec === 'vscode') problems.push(`${relFile}: imports 'vscode' (only src/ may)`);
    if (MCP_ONLY.some((r) => r.test(spec)) && layer !== 'mcp' && layer !== 'cli') problems.push(`${relFile}: imports ${spec} (only server/src/mcp/ may)`);
    if (LSP_ONLY.some((r) => r.test(spec)) && !inLsp && layer !== 'protocol') problems.push(`${relFile}: imports ${spec} (only server/src/semantic/lsp/ may)`);
    if (!spec.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), spec);
    const tl = layerOf(target);
    if (!tl || tl === layer) continue;
    if (tl === 'cli') { problems.push(`${relFile}: imports the CLI entry`); continue; }
    if (layer === 'cli') continue;
    if (!(layer in RANK) || !(tl in RANK)) { problems.push(`${relFile}: unknown layer ${layer} -> ${tl}`); continue; }
    if (RANK[tl] >= RANK[layer]) problems.push(`${relFile}: ${layer} imports ${tl} (${spec}); imports must point down the layers`);
  }
}

for (const file of walk(path.join(root, 'src'))) {
  const relFile = path.relative(root, file);
  for (const spec of importsOf(file)) {
    if (!spec.startsWith('.')) continue;
    const target = path.relative(root, path.resolve(path.dirname(file), spec));
    if (target.startsWith('server/') && !target.startsWith('server/src/protocol')) problems.push(`${relFile}: imports ${target} (src/ may import only server/src/protocol/)`);
  }
}

if (problems.length) {
  console.error('Layer check failed:\n  ' + problems.join('\n  '));
  process.exit(1);
}
console.log('layers ok');
