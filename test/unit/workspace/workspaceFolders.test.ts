/**
 * A JS/TS monorepo that declares `packages/` as its workspace (package.json `workspaces` or
 * pnpm-workspace.yaml) is indexed there without `--include packages`, and those files are source,
 * not vendor; a NuGet packages folder stays excluded and vendor.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { discoverWorkspace } from '../../../server/src/workspace/discover';
import { classify } from '../../../server/src/workspace/fileClass';
import { workspaceDeclaredDirs } from '../../../server/src/workspace/ignoreRules';

function tree(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-wsdirs-')));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
  return root;
}

describe('workspace-declared folders', () => {
  const roots: string[] = [];
  after(() => {
    for (const r of roots) fs.rmSync(r, { recursive: true, force: true });
  });
  const make = (files: Record<string, string>) => {
    const r = tree({ 'packages/core/src/a.ts': 'export const a = 1;\n', 'packages/core/node_modules/dep/index.js': 'x', 'dist/out.js': 'x', ...files });
    roots.push(r);
    return r;
  };
  const paths = (root: string) => discoverWorkspace(root, {}).files.map((f) => f.path);

  it('pnpm-workspace.yaml packages: packages/ is walked, node_modules and dist still are not', () => {
    const root = make({ 'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  - \"examples/**\" # demos\n  - '!packages/legacy/**'\ncatalog:\n  dist: 1.0.0\n" });
    assert.deepEqual(workspaceDeclaredDirs(root), ['packages']);
    const p = paths(root);
    assert.ok(p.includes('packages/core/src/a.ts'), p.join(', '));
    assert.ok(!p.some((x) => x.includes('node_modules') || x.startsWith('dist/')), p.join(', '));
  });

  it('package.json workspaces, as a list or as { packages }', () => {
    assert.deepEqual(workspaceDeclaredDirs(make({ 'package.json': JSON.stringify({ workspaces: ['packages/*', 'apps/*'] }) })), ['packages']);
    const root = make({ 'package.json': JSON.stringify({ workspaces: { packages: ['./packages/**'] } }) });
    assert.deepEqual(workspaceDeclaredDirs(root), ['packages']);
    assert.ok(paths(root).includes('packages/core/src/a.ts'));
  });

  it('without a workspace declaration packages/ stays excluded; node_modules is never re-admitted', () => {
    assert.ok(!paths(make({ 'package.json': JSON.stringify({ name: 'x' }) })).includes('packages/core/src/a.ts'));
    assert.deepEqual(workspaceDeclaredDirs(make({ 'package.json': JSON.stringify({ workspaces: ['node_modules/*', '.git/x', '*'] }) })), []);
  });

  it('a monorepo package is source or test, a NuGet package folder is vendor', () => {
    assert.equal(classify('packages/core/src/a.ts'), 'source');
    assert.equal(classify('packages/core/src/a.test.ts'), 'test');
    assert.equal(classify('packages/Newtonsoft.Json.13.0.3/lib/net45/Newtonsoft.Json.xml'), 'vendor');
    assert.equal(classify('src/packages/Serilog.2.10.0-dev-01/lib/x.cs'), 'vendor');
    assert.equal(classify('web/node_modules/x/index.js'), 'vendor');
  });
});
