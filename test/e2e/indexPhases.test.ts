/**
 * The text + files snapshot survives a stop during parsing, against the built CLI: `sextant index`
 * on a workspace large enough to persist between its phases is killed (SIGKILL) once index.db
 * appears — text + files committed, outlines still being parsed. The index on disk then loads
 * cleanly, lists and searches every file, says its symbols are pending, and the next run parses
 * exactly the files still owed and nothing else.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PERSIST_BETWEEN_PHASES_MIN_FILES } from '../../server/src/core/limits';
import { Engine } from '../../server/src/nav/engine';
import { findFiles } from '../../server/src/nav/findFile';
import { searchText } from '../../server/src/nav/textSearch';
import { CLI } from '../helpers/mcpClient';
import { removeDir, tempDir } from '../helpers/workspace';

const FILES = PERSIST_BETWEEN_PHASES_MIN_FILES + 500;

function writeWorkspace(ws: string): void {
  for (let i = 0; i < FILES; i++) {
    const dir = path.join(ws, 'src', `P${i % 30}`);
    fs.mkdirSync(dir, { recursive: true });
    let s = `namespace P${i % 30};\npublic class Phase${i} {\n`;
    for (let m = 0; m < 80; m++) s += `  public int Method${m}_${i}(int x) { var y = x * ${m}; return y + ${i}; } // phasemark${i}\n`;
    fs.writeFileSync(path.join(dir, `Phase${i}.cs`), s + '}\n');
  }
}

describe('two-phase index: a stop during parsing keeps text + files @e2e', function () {
  this.timeout(600_000);
  let ws: string;
  let idx: string;
  before(() => {
    ws = tempDir('phasesws');
    writeWorkspace(ws);
  });
  after(() => removeDir(ws));
  beforeEach(() => (idx = tempDir('phasesidx')));
  afterEach(() => removeDir(idx));

  it('killed after the text snapshot: the index loads, answers text queries, reports pending symbols; the next run finishes them', async () => {
    let pending = 0;
    for (let attempt = 1; attempt <= 3 && pending === 0; attempt++) {
      removeDir(idx);
      fs.mkdirSync(idx, { recursive: true });
      const child = spawn(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { stdio: 'ignore' });
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      const file = path.join(idx, 'index.db');
      const deadline = Date.now() + 120_000;
      // Synchronously, so the kill lands right after the first snapshot is renamed into place.
      while (Date.now() < deadline && child.exitCode === null && !fs.existsSync(file)) {
        /* poll */
      }
      child.kill('SIGKILL');
      await exited;
      const e = await Engine.open({ workspaceRoot: ws, indexRoot: idx, hooks: [] });
      try {
        assert.equal(e.meta().recovered, undefined, 'the snapshot loads without recovery');
        assert.equal(e.store.getMeta('committed'), '1');
        pending = e.meta().symbolsPending ?? 0;
        if (pending === 0) continue; // the run finished before the kill: try again
        assert.match(e.version, /-g1t$/, 'a text-only snapshot has its own version');
        assert.equal(findFiles(e, { query: 'src/**/*.cs', offset: 0, limit: 10 }).total, FILES, 'every file is listed');
        const hits = await searchText(e, { query: `phasemark${FILES - 1}`, mode: 'word', caseMode: 'sensitive', offset: 0, limit: 10, deadlineAt: Date.now() + 30_000 });
        assert.deepEqual([...new Set(hits.hits.map((h) => h.path))], [`src/P${(FILES - 1) % 30}/Phase${FILES - 1}.cs`], 'the last file is searchable');
        const parsed = Number(e.store.rows('SELECT count(*) FROM syntax_files')[0]?.[0] ?? 0);
        assert.equal(parsed + pending, FILES, 'pending counts exactly the files without an outline');
      } finally {
        await e.close();
      }
    }
    assert.ok(pending > 0, 'the kill landed between the phases in one of three attempts');

    const again = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8', timeout: 300_000 });
    assert.equal(again.status, 0, again.stderr);
    const j = JSON.parse(again.stdout.trim().split('\n').pop() ?? '{}') as { added: number; changed: number; deleted: number; parsedFiles: number; symbolsPending: number; indexVersion: string };
    assert.deepEqual([j.added, j.changed, j.deleted], [0, 0, 0], 'no file is read again for text');
    assert.equal(j.parsedFiles, pending, 'exactly the owed files are parsed');
    assert.equal(j.symbolsPending, 0);
    assert.match(j.indexVersion, /-g2$/, 'a new snapshot, not the text-only one');
    const third = spawnSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8', timeout: 300_000 });
    assert.equal(JSON.parse(third.stdout.trim().split('\n').pop() ?? '{}').parsedFiles, 0, 'then nothing is owed');
  });
});
