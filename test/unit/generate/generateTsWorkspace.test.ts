import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { generateTsWorkspace } from '../../fixtures/generate/generateTsWorkspace';
import { factById, type WorkspaceManifest } from '../../fixtures/generate/manifest';

describe('TS/JS workspace generator', () => {
  let tmp: string;
  let ws: string;
  let manifest: WorkspaceManifest;
  const read = (rel: string) => fs.readFileSync(path.join(ws, rel), 'utf8');

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-gen-ts-'));
    ws = path.join(tmp, 'a');
    manifest = generateTsWorkspace(ws, { packages: 5, seed: 4 });
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('the same seed gives the same files and contents', () => {
    const again = path.join(tmp, 'b');
    const m2 = generateTsWorkspace(again, { packages: 5, seed: 4 });
    assert.deepEqual(m2.totals, manifest.totals);
    for (const p of manifest.projects) {
      const dir = path.dirname(p.path);
      for (const f of fs.readdirSync(path.join(ws, dir, 'src'))) {
        assert.equal(fs.readFileSync(path.join(again, dir, 'src', f), 'utf8'), fs.readFileSync(path.join(ws, dir, 'src', f), 'utf8'));
      }
    }
  });

  it('uses npm workspaces and tsconfig project references that resolve', () => {
    const pkg = JSON.parse(read('package.json')) as { workspaces: string[] };
    assert.deepEqual(pkg.workspaces, ['libs/*']);
    const rootTs = JSON.parse(read('tsconfig.json')) as { references: Array<{ path: string }> };
    assert.ok(rootTs.references.length >= 3);
    for (const r of rootTs.references) {
      const cfg = JSON.parse(read(`${r.path}/tsconfig.json`)) as { references: Array<{ path: string }> };
      for (const d of cfg.references) assert.ok(fs.existsSync(path.join(ws, r.path, d.path, 'tsconfig.json')), `${r.path} -> ${d.path}`);
    }
    assert.equal(manifest.projects.length, 5);
    assert.ok(manifest.projects.some((p) => fs.existsSync(path.join(ws, path.dirname(p.path), 'src/parse.js'))), 'one plain JavaScript package');
  });

  it('has classes, interfaces, arrow consts and describe/it tests at the lines the manifest names', () => {
    for (const id of ['genericClass', 'arrowConst', 'interface', 'serviceClass', 'serviceInterface', 'enum', 'jsFunction']) {
      const f = factById(manifest, id, 'symbol');
      assert.equal(f.declarations.length, 1, id);
      const d = f.declarations[0];
      assert.ok(d);
      const line = read(d.path).split('\n')[d.line - 1] ?? '';
      assert.equal(line.slice(d.column - 1, d.column - 1 + f.name.length), f.name, id);
      assert.ok(f.mentionFiles >= 1);
    }
    const title = factById(manifest, 'describeTitle', 'literal');
    assert.equal(title.mentionFiles, 1);
    assert.match(read(title.mentionPaths?.[0] ?? ''), /describe\('[\s\S]*it\('/);
    assert.ok(manifest.excluded.files >= 2, 'node_modules/ and dist/ files exist for exclusion tests');
  });
});
