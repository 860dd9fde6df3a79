import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { fileOutline } from '../../../server/src/nav/syntaxOutline';
import { searchSymbols } from '../../../server/src/nav/syntaxSymbols';

const FILES = 90; // above PARSE_WORKER_MIN_FILES: the first refresh parses in worker threads

function write(root: string, rel: string, text: string): void {
  fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  fs.writeFileSync(path.join(root, rel), text);
}

describe('syntax: symbols in the index', function () {
  this.timeout(120_000);
  let root: string;
  let engine: Engine;

  before(async () => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-symbols-'));
    for (let i = 0; i < FILES; i++) write(root, `src/M${i}/Service${i}.cs`, `namespace App.M${i};\npublic class Service${i}\n{\n    public int Get${i}() => ${i};\n}\n`);
    write(root, 'web/util.ts', 'export function formatInvoice(n: number): string { return String(n); }\n');
    engine = await Engine.open({ workspaceRoot: root, indexRoot: '' });
    await engine.refresh();
  });

  after(async () => {
    await engine.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  const count = (sql: string, params: (string | number)[] = []): number => Number(engine.store.rows(sql, params)[0]?.[0] ?? 0);

  it('stores every declaration of every parsed file, one syntax_files row per file', () => {
    assert.equal(count('SELECT count(*) FROM syntax_files'), FILES + 1);
    assert.equal(count("SELECT count(*) FROM symbols WHERE kind = 'class'"), FILES);
    assert.equal(count("SELECT count(*) FROM symbols WHERE symbol_id = 'M:App.M7.Service7.Get7'"), 1);
    assert.equal(count("SELECT count(*) FROM symbols WHERE symbol_id = 'web/util.ts#formatInvoice'"), 1);
  });

  it('outline of an unchanged file comes from the index', async () => {
    const o = await fileOutline(engine, 'src/M3/Service3.cs');
    assert.equal(o.source, 'index');
    assert.deepEqual(o.symbols.map((s) => s.name), ['App.M3', 'Service3', 'Get3']);
  });

  it('re-indexes only the changed file and drops the rows of a deleted one', async () => {
    write(root, 'src/M5/Service5.cs', 'namespace App.M5;\npublic class Service5\n{\n    public int Renamed5() => 5;\n}\n');
    fs.rmSync(path.join(root, 'src/M6/Service6.cs'));
    const stats = await engine.refresh();
    assert.equal(stats.parsedFiles, 1);
    assert.equal(stats.deleted, 1);
    assert.equal(count("SELECT count(*) FROM symbols WHERE name = 'Get5'"), 0);
    assert.equal(count("SELECT count(*) FROM symbols WHERE name = 'Renamed5'"), 1);
    assert.equal(count("SELECT count(*) FROM symbols WHERE name = 'Service6'"), 0);
    assert.equal(count('SELECT count(*) FROM syntax_files'), FILES);
    const hits = searchSymbols(engine, { query: 'Renamed5', match: 'exact', offset: 0, limit: 5, deadlineAt: Date.now() + 5000 });
    assert.equal(hits.hits[0]?.path, 'src/M5/Service5.cs');
  });
});
