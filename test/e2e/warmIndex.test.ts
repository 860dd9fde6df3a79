/**
 * `sextant index` run again with nothing changed answers from the state the last complete run left
 * (index/warmState.ts) without loading the index — and only then: a changed file, a damaged
 * index.db or an index an engine rewrote since take the ordinary path.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI } from '../helpers/mcpClient';
import { removeDir, smallWorkspace, tempDir, writeTree } from '../helpers/workspace';

interface Summary {
  files: number;
  indexVersion: string;
  added: number;
  changed: number;
  deleted: number;
  parsedFiles: number;
  status: string;
  recovered: string | null;
  unchanged?: true;
}

let probe = '';
let engineLoaded: boolean | undefined;

function index(ws: string, idx: string, ...extra: string[]): Summary {
  const r = spawnSync(process.execPath, ['--require', probe, CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json', ...extra], { encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  engineLoaded = /engine bundle loaded: true/.test(r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as Summary;
}

describe('sextant index: a warm run with nothing changed', function () {
  let ws: string;
  let idx: string;
  before(() => {
    ws = tempDir('warmws');
    idx = tempDir('warmidx');
    writeTree(ws, smallWorkspace());
    // says at exit whether the process loaded the engine's bundle (dist/cliMain.js) or only the launcher
    probe = path.join(tempDir('warmprobe'), 'probe.js');
    fs.writeFileSync(probe, "process.on('exit', () => process.stderr.write('engine bundle loaded: ' + Object.keys(require.cache).some((k) => k.endsWith('cliMain.js')) + '\\n'));\n");
  });
  after(() => {
    removeDir(ws);
    removeDir(idx);
    removeDir(path.dirname(probe));
  });

  it('answers from the last complete run, and takes the ordinary path for a change, damage or other options', function () {
    const cold = index(ws, idx);
    assert.equal(cold.unchanged, undefined);
    assert.ok(cold.added > 5 && cold.status === 'fresh', JSON.stringify(cold));
    assert.equal(engineLoaded, true);
    const warm = index(ws, idx);
    assert.equal(warm.unchanged, true, 'nothing changed: answered without loading the index');
    assert.equal(engineLoaded, false, 'answered by the launcher, before the engine bundle loads');
    assert.deepEqual([warm.files, warm.indexVersion, warm.added + warm.changed + warm.deleted, warm.parsedFiles, warm.status], [cold.files, cold.indexVersion, 0, 0, 'fresh']);

    // A changed file (same size, new content and mtime) is indexed.
    const file = path.join(ws, 'src/Billing/Application/InvoiceService.cs');
    const text = fs.readFileSync(file, 'utf8');
    fs.writeFileSync(file, text.replace('class', 'CLASS'));
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
    const changed = index(ws, idx);
    assert.equal(changed.unchanged, undefined);
    assert.equal(changed.changed, 1);
    assert.notEqual(changed.indexVersion, cold.indexVersion);
    assert.equal(index(ws, idx).unchanged, true, 'unchanged again after that run');

    // A new file.
    fs.writeFileSync(path.join(ws, 'src/Billing/Added.cs'), 'class Added { }\n');
    const added = index(ws, idx);
    assert.deepEqual([added.unchanged, added.added], [undefined, 1]);
    assert.equal(index(ws, idx).unchanged, true);

    // A new .gitignore rule for a file already indexed: the file leaves the index.
    fs.appendFileSync(path.join(ws, '.gitignore'), '\nAdded.cs\n');
    const ignored = index(ws, idx);
    assert.deepEqual([ignored.unchanged, ignored.deleted], [undefined, 1]);
    assert.equal(index(ws, idx).unchanged, true);
    assert.equal(engineLoaded, false);

    // Other walk options are another index's question.
    assert.equal(index(ws, idx, '--exclude', 'docs/**').unchanged, undefined);

    // Damaged bytes (same size): the ordinary load finds them and rebuilds.
    assert.equal(index(ws, idx).unchanged, undefined, 'back to the default options: the ordinary path');
    assert.equal(index(ws, idx).unchanged, true);
    const db = path.join(idx, 'index.db');
    const bytes = fs.readFileSync(db);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100]! + 1) % 256;
    fs.writeFileSync(db, bytes);
    const damaged = index(ws, idx);
    assert.equal(damaged.unchanged, undefined);
    assert.ok(damaged.recovered, `the damage is reported: ${JSON.stringify(damaged)}`);
  });
});
