/**
 * What the .vsix carries (`vsce ls`, the list `npm run package` packs): the bundles, the WASM the
 * engine loads — sql.js, the tree-sitter runtime and exactly the grammars language-configs/ names —
 * the workspace watcher's native binding (dist/native), the language configs, the webview assets
 * and the manifest/docs. Nothing else (no unused grammar,
 * no second C# grammar, no sources, maps or node_modules). Needs `npm run build` (npm test runs it).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '../../..');

describe('the .vsix carries only what it runs', function () {
  this.timeout(60_000);

  it('lists the bundles, sql.js, the tree-sitter runtime and only the grammars language-configs/ uses', () => {
    const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
    const listing = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: root, encoding: 'utf8' }).trim().split('\n').sort();
    const configs = fs.readdirSync(path.join(root, 'language-configs')).filter((d) => fs.existsSync(path.join(root, 'language-configs', d, 'language.json')));
    const grammars = configs.map((d) => (JSON.parse(fs.readFileSync(path.join(root, 'language-configs', d, 'language.json'), 'utf8')) as { grammar: { file: string } }).grammar.file);
    const wasm = listing.filter((f) => f.startsWith('dist/wasm/'));
    assert.deepEqual(wasm, [...new Set(['sql-wasm.wasm', 'web-tree-sitter.wasm', ...grammars])].map((f) => `dist/wasm/${f}`).sort());
    assert.deepEqual(wasm.filter((f) => /c.sharp/.test(f)), ['dist/wasm/tree-sitter-c_sharp.wasm'], 'one C# grammar');
    for (const f of ['package.json', 'README.md', 'CHANGELOG.md', 'dist/extension.js', 'dist/cli.js', 'dist/cliMain.js', 'dist/parseWorker.js', 'dist/tsProgramsWorker.js', 'dist/native/parcel-watcher.node', 'media/icon.png', 'media/graph/out/graph.js']) assert.ok(listing.includes(f), `${f} missing`);
    const others = listing.filter((f) => !f.startsWith('dist/wasm/') && !f.startsWith('language-configs/'));
    assert.deepEqual(others.filter((f) => !/^(package\.json|README\.md|CHANGELOG\.md|dist\/[\w-]+\.js|dist\/bin\/rg(\.exe)?|dist\/native\/parcel-watcher\.node|media\/[\w/.-]+\.(png|svg|css|js))$/.test(f)), [], 'unexpected files');
    const bytes = listing.reduce((n, f) => n + fs.statSync(path.join(root, f)).size, 0);
    console.log(`      .vsix: ${listing.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB uncompressed; wasm: ${wasm.map((f) => path.basename(f)).join(', ')}`);
  });
});
