/**
 * file_dependencies over a real MCP client on real stdio (dist/cli.js), on the TS/JS fixture
 * test/fixtures/dependencies/ts copied to a temp folder with a link pointing outside it: every
 * import form (ES import incl. side-effect and `import type`, re-exports, require(),
 * `import x = require()`, dynamic import()) and every resolution rule (NodeNext `.js` → `.ts`,
 * `.mjs` → `.mts`, `.cjs` → `.cts`, `.jsx` → `.tsx`, extension probing, directory index, tsconfig
 * `paths` and `baseUrl`, package.json `exports` / `imports` / `main` of workspace packages, bundler
 * query suffix, a missing target, a path and a link leading outside), dependents from the index,
 * depth, freshness after an edit, and bad input.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, callError, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, tempDir } from '../helpers/workspace';

const FIXTURE = path.resolve(__dirname, '../fixtures/dependencies/ts');

describe('file_dependencies over MCP stdio (TS/JS fixture) @e2e', function () {
  this.timeout(120_000);
  let ws: string;
  let outside: string;
  let idx: string;
  let c: Connected;

  before(async function () {
    ws = tempDir('deps-ws');
    outside = tempDir('deps-outside');
    idx = tempDir('deps-idx');
    fs.cpSync(FIXTURE, ws, { recursive: true });
    fs.writeFileSync(path.join(outside, 'thing.ts'), 'export const linked = 1;\n');
    fs.symlinkSync(outside, path.join(ws, 'src/ext'));
    // No existence oracle: a link to an outside folder that exists and one to a folder that does not answer alike.
    fs.symlinkSync(path.join(outside, 'no-such-folder'), path.join(ws, 'src/dangling'));
    fs.writeFileSync(path.join(ws, 'src/tool.py'), 'import os\n');
    fs.writeFileSync(path.join(ws, 'src/oracle.ts'), "import './ext/thing.js';\nimport './dangling/thing.js';\nimport './ext/none.js';\n");
    c = await connectStdio(ws, idx);
    await waitFor(async () => {
      const s = await call(c.client, 'repo_overview', {});
      return s.index.status === 'fresh' && !s.index.symbolsPending;
    }, 60_000);
  });

  after(async function () {
    await c?.close();
    for (const d of [ws, outside, idx]) if (d) removeDir(d);
  });

  it('lists every local file main.ts loads, one row per target, each form and rule resolved', async function () {
    const sc = await call(c.client, 'file_dependencies', { path: 'src/main.ts', limit: 200 });
    const files = sc.items.filter((i: { path?: string }) => i.path);
    assert.deepEqual(files, [
      { path: 'libs/core/src/features/a.ts', line: 18 }, // exports "./feature/*" pattern, .js → .ts
      { path: 'libs/core/src/index.ts', line: 16 }, // exports ".": types target not indexed, the import condition's .js → .ts
      { path: 'libs/core/src/util.ts', line: 17 }, // exports "./util"
      { path: 'libs/plain/lib/main.js', line: 19 }, // workspace package without exports: main
      { path: 'src/app/feature.ts', line: 8 }, // tsconfig paths "@app/*"
      { path: 'src/baseurl/thing.ts', line: 15 }, // baseUrl
      { path: 'src/both.ts', line: 4 }, // type-only once, value once: not type-only
      { path: 'src/cjs.cts', line: 12 }, // .cjs → .cts
      { path: 'src/comp.tsx', line: 11 }, // .jsx → .tsx
      { path: 'src/data.json', line: 14 }, // exact file
      { path: 'src/dual.ts', line: 22 }, // a TS importer prefers the .ts source over the .js sibling
      { path: 'src/esm.mts', line: 10 }, // .mjs → .mts
      { path: 'src/icons/logo.svg', line: 21 }, // bundler query suffix ?raw
      { path: 'src/internal/secret.ts', line: 20 }, // package.json imports "#internal/*"
      { path: 'src/lazy.ts', line: 38, kind: 'dynamic' }, // import() inside a function
      { path: 'src/legacy.js', line: 13 }, // .js with no .ts source: the .js itself
      { path: 'src/lib/index.ts', line: 7 }, // directory index (also reached through paths "~utils": one row)
      { path: 'src/reexported.ts', line: 30, kind: 'export' },
      { path: 'src/required.ts', line: 32, kind: 'import_equals' },
      { path: 'src/required2.js', line: 33, kind: 'require' },
      { path: 'src/side.ts', line: 6 }, // side-effect import
      { path: 'src/typeonly-reexport.ts', line: 31, kind: 'export', typeOnly: true },
      { path: 'src/types.ts', line: 3, typeOnly: true },
      { path: 'src/util.ts', line: 1 }, // './util.js' and './util': one row
    ]);
    const unresolved = sc.items.filter((i: { spec?: string }) => i.spec);
    assert.deepEqual(unresolved, [
      { spec: './missing.js', reason: 'not_found', line: 23 },
      { spec: '../../outside.js', reason: 'outside_workspace', line: 24 },
      { spec: './ext/thing.js', reason: 'outside_workspace', line: 25 }, // a link inside the workspace pointing out
    ]);
    assert.deepEqual(sc.counts, { packages: 2, builtins: 2, computed: 2 }); // zod, react/jsx-runtime; node:fs, path; require(name), import(`…${x}`)
    assert.equal(sc.completeness.total, 27);
    assert.ok(!JSON.stringify(sc).includes(outside), 'the answer says where the outside link points');
    assert.match(sc.summary, /24 file\(s\) it depends on, 3 unresolved/);
  });

  it('no existence oracle: links to an existing and a missing outside target answer alike, and never say where', async function () {
    const sc = await call(c.client, 'file_dependencies', { path: 'src/oracle.ts' });
    assert.deepEqual(sc.items, [
      { spec: './ext/thing.js', reason: 'outside_workspace', line: 1 },
      { spec: './dangling/thing.js', reason: 'outside_workspace', line: 2 },
      { spec: './ext/none.js', reason: 'outside_workspace', line: 3 },
    ]);
    assert.ok(!JSON.stringify(sc).includes(outside) && !sc.summary.includes(outside));
  });

  it('a JS importer gets what Node.js would load; typeOnly: false drops type-only targets', async function () {
    const js = await call(c.client, 'file_dependencies', { path: 'src/plain.js' });
    assert.deepEqual(js.items, [
      { path: 'src/dual.js', line: 2, kind: 'require' },
      { path: 'src/util.ts', line: 1, kind: 'require' },
    ]);
    const values = await call(c.client, 'file_dependencies', { path: 'src/main.ts', typeOnly: false, limit: 200 });
    const paths = values.items.map((i: { path?: string }) => i.path).filter(Boolean);
    assert.ok(!paths.includes('src/types.ts') && !paths.includes('src/typeonly-reexport.ts'));
    assert.ok(paths.includes('src/both.ts'));
    assert.equal(paths.length, 22);
  });

  it('dependents come from the index, depth follows hops with via', async function () {
    const d1 = await call(c.client, 'file_dependencies', { path: 'src/util.ts', direction: 'dependents' });
    assert.deepEqual(d1.items, [
      { path: 'src/main.ts', line: 1 },
      { path: 'src/plain.js', line: 1, kind: 'require' },
    ]);
    const d2 = await call(c.client, 'file_dependencies', { path: 'src/util.ts', direction: 'dependents', depth: 2 });
    assert.deepEqual(d2.items.at(-1), { path: 'src/entry.ts', line: 1, depth: 2, via: 'src/main.ts' });
    const core = await call(c.client, 'file_dependencies', { path: 'libs/core/src/index.ts', direction: 'dependents' });
    assert.deepEqual(core.items, [{ path: 'src/main.ts', line: 16 }]);
    const deps2 = await call(c.client, 'file_dependencies', { path: 'src/entry.ts', depth: 2, limit: 200 });
    assert.deepEqual(deps2.items[0], { path: 'src/main.ts', line: 1 });
    assert.equal(deps2.items.filter((i: { depth?: number }) => i.depth === 2).length, 24);
  });

  it('stays fresh: a created file resolves, an edited importer changes the dependents', async function () {
    fs.writeFileSync(path.join(ws, 'src/missing.ts'), 'export const missing = 1;\n');
    fs.writeFileSync(path.join(ws, 'src/entry.ts'), "import { util } from './util.js';\nexport default util;\n");
    await waitFor(async () => {
      const sc = await call(c.client, 'file_dependencies', { path: 'src/util.ts', direction: 'dependents' });
      return sc.items.some((i: { path: string }) => i.path === 'src/entry.ts');
    }, 30_000);
    const d = await call(c.client, 'file_dependencies', { path: 'src/util.ts', direction: 'dependents' });
    assert.deepEqual(d.items.map((i: { path: string }) => i.path), ['src/entry.ts', 'src/main.ts', 'src/plain.js']);
    const m = await call(c.client, 'file_dependencies', { path: 'src/main.ts', limit: 200 });
    assert.ok(m.items.some((i: { path?: string; line: number }) => i.path === 'src/missing.ts' && i.line === 23));
    assert.ok(!m.items.some((i: { spec?: string }) => i.spec === './missing.js'));
    const main = await call(c.client, 'file_dependencies', { path: 'src/main.ts', direction: 'dependents' });
    assert.deepEqual(main.items, []); // entry.ts no longer imports main.ts
    // An edit that leaves the file set alone: only the edited file's edges are resolved again.
    fs.writeFileSync(path.join(ws, 'src/plain.js'), "const { dual } = require('./dual');\nmodule.exports = { dual };\n");
    await waitFor(async () => {
      const sc = await call(c.client, 'file_dependencies', { path: 'src/util.ts', direction: 'dependents' });
      return !sc.items.some((i: { path: string }) => i.path === 'src/plain.js');
    }, 30_000);
    const after = await call(c.client, 'file_dependencies', { path: 'src/util.ts', direction: 'dependents' });
    assert.deepEqual(after.items.map((i: { path: string }) => i.path), ['src/entry.ts', 'src/main.ts']);
    const dual = await call(c.client, 'file_dependencies', { path: 'src/dual.js', direction: 'dependents' });
    assert.deepEqual(dual.items, [{ path: 'src/plain.js', line: 1, kind: 'require' }]);
  });

  it('bad input: outside path, missing file, unsupported language, absurd depth', async function () {
    assert.match(await callError(c.client, 'file_dependencies', { path: '../outside.ts' }), /^Error \[PATH_OUTSIDE_ROOT\]: .*Hint: /s);
    assert.match(await callError(c.client, 'file_dependencies', { path: 'src/ext/thing.ts' }), /^Error \[PATH_OUTSIDE_ROOT\]: .*Hint: /s);
    assert.match(await callError(c.client, 'file_dependencies', { path: 'src/nope.ts' }), /^Error \[FILE_NOT_FOUND\]: .*Hint: /s);
    for (const p of ['src/data.json', 'src/tool.py']) assert.match(await callError(c.client, 'file_dependencies', { path: p }), /^Error \[UNSUPPORTED_LANGUAGE\]: file_dependencies does not cover .*Hint: it covers TypeScript, JavaScript and C#/s);
    assert.match(await callError(c.client, 'file_dependencies', { path: 'src/main.ts', depth: 1000 }), /^Error \[INVALID_ARGUMENT\]: .*depth.*Hint: /s);
    assert.match(await callError(c.client, 'file_dependencies', { path: 'src/main.ts', direction: 'sideways' }), /^Error \[INVALID_ARGUMENT\]: .*dependents.*Hint: /s);
  });
});
