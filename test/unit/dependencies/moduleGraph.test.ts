/**
 * The module graph across index versions (in-process engine on a copy of the TS/JS fixture): an
 * edit that keeps the file set and the config files reuses the previous version's resolver and the
 * unchanged files' edges; a created file or a changed tsconfig starts over. Answers stay right.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { fileDependencies, moduleGraph } from '../../../server/src/nav/fileDependencies';

const FIXTURE = path.resolve(__dirname, '../../fixtures/dependencies/ts');

describe('file_dependencies: the module graph across index versions', function () {
  this.timeout(60_000);
  let ws: string;
  let engine: Engine;
  const dependents = async (p: string) =>
    (await fileDependencies(engine, { path: p, direction: 'dependents', depth: 1, includeTypeOnly: true, deadlineAt: Date.now() + 10_000 })).rows.map((r) => ('path' in r ? r.path : r.spec));
  const edit = async (rel: string, text: string) => {
    fs.writeFileSync(path.join(ws, rel), text);
    await engine.refresh(undefined, undefined, new Set([rel]));
  };

  before(async () => {
    ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-deps-graph-'));
    fs.cpSync(FIXTURE, ws, { recursive: true });
    engine = await Engine.open({ workspaceRoot: ws, indexRoot: '' });
    await engine.refresh();
  });

  after(async () => {
    await engine.close();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('an edit keeps the resolver and the edges of the other files; the answer follows the edit', async () => {
    assert.deepEqual(await dependents('src/util.ts'), ['src/main.ts', 'src/plain.js']);
    const before = moduleGraph(engine);
    await edit('src/plain.js', "module.exports = require('./dual');\n");
    const after = moduleGraph(engine);
    assert.notEqual(after.version, before.version);
    assert.equal(after.resolver, before.resolver);
    assert.deepEqual(await dependents('src/util.ts'), ['src/main.ts']);
    assert.deepEqual(await dependents('src/dual.js'), ['src/plain.js']);
  });

  it('a changed tsconfig or a created file starts over', async () => {
    const before = moduleGraph(engine);
    await edit('tsconfig.json', fs.readFileSync(path.join(ws, 'tsconfig.json'), 'utf8').replace('"@app/*": ["src/app/*"]', '"@app/*": ["src/lib/*"]'));
    const afterConfig = moduleGraph(engine);
    assert.notEqual(afterConfig.resolver, before.resolver);
    assert.deepEqual(await dependents('src/app/feature.ts'), []); // @app/feature now points into src/lib
    fs.writeFileSync(path.join(ws, 'src/missing.ts'), 'export const missing = 1;\n');
    await engine.refresh();
    assert.notEqual(moduleGraph(engine).resolver, afterConfig.resolver);
    assert.deepEqual(await dependents('src/missing.ts'), ['src/main.ts']);
  });

  it('references parsed in the worker pool are stored too (a batch above PARSE_WORKER_MIN_FILES)', async () => {
    const big = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-deps-workers-'));
    const e = await Engine.open({ workspaceRoot: big, indexRoot: '' });
    try {
      for (let i = 0; i < 120; i++) fs.writeFileSync(path.join(big, `m${i}.ts`), i === 0 ? 'export const base = 0;\n' : `import { base } from './m0.js';\nexport const v${i} = base + ${i};\n`);
      await e.refresh();
      assert.equal(Number(e.store.rows('SELECT count(*) FROM module_refs')[0]![0]), 120);
      const r = await fileDependencies(e, { path: 'm0.ts', direction: 'dependents', depth: 1, includeTypeOnly: true, deadlineAt: Date.now() + 10_000 });
      assert.equal(r.rows.length, 119);
    } finally {
      await e.close();
      fs.rmSync(big, { recursive: true, force: true });
    }
  });
});
