/**
 * The warm state's check by `stat` alone (index/warmCheck.ts): it says "unchanged" only when the
 * walk would list and admit the same files — any added, removed or touched file, ignored ones and
 * rule files included, or another index.db, makes it undecided (the ordinary path then decides).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeWarmState } from '../../../server/src/index/warmState';
import { unchangedByStat } from '../../../server/src/index/warmCheck';
import { discoverWorkspace } from '../../../server/src/workspace/discover';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

describe('warm state: unchanged by stat alone', function () {
  let ws: string;
  let idx: string;
  const summary = { files: 0, sourceFiles: 0, bytes: 0, indexVersion: 'v1', skippedTooLarge: 0 };

  /** What a complete `sextant index` leaves: index.db, its sum, and warm.json from a fresh walk. */
  function indexed(): void {
    fs.writeFileSync(path.join(idx, 'index.db'), 'index bytes');
    fs.writeFileSync(path.join(idx, 'index.db.sum'), '11:abc\n');
    writeWarmState(idx, ws, {}, discoverWorkspace(ws, {}), summary);
  }
  const unchanged = () => unchangedByStat(idx, ws, {}) !== undefined;
  const later = (file: string) => fs.utimesSync(file, new Date(), new Date(Date.now() + 10_000));

  beforeEach(() => {
    ws = tempDir('warmck');
    idx = tempDir('warmckidx');
    writeTree(ws, { '.gitignore': '*.log\nbin/\n', 'src/A.cs': 'class A {}\n', 'src/deep/B.cs': 'class B {}\n', 'notes.log': 'ignored\n', 'package.json': '{}\n' });
    indexed();
  });
  afterEach(() => {
    removeDir(ws);
    removeDir(idx);
  });

  it('is unchanged right after the run that wrote it', function () {
    assert.equal(unchanged(), true);
    assert.equal(unchanged(), true, 'checking changes nothing');
  });

  it('sees a touched, added or removed file, in any folder', function () {
    later(path.join(ws, 'src/deep/B.cs'));
    assert.equal(unchanged(), false, 'touched');
    indexed();
    fs.writeFileSync(path.join(ws, 'src/deep/C.cs'), 'class C {}\n');
    assert.equal(unchanged(), false, 'added');
    indexed();
    fs.rmSync(path.join(ws, 'src/A.cs'));
    assert.equal(unchanged(), false, 'removed');
    indexed();
    fs.mkdirSync(path.join(ws, 'src/deep/new'));
    assert.equal(unchanged(), false, 'a new folder');
  });

  it('sees changes to files the rules read or left out: .gitignore, package.json, ignored files', function () {
    later(path.join(ws, 'notes.log'));
    assert.equal(unchanged(), false, 'an ignored file: admitted under other rules, so it counts');
    indexed();
    fs.writeFileSync(path.join(ws, '.gitignore'), '*.lag\nbin/\n'); // same size, new rules
    later(path.join(ws, '.gitignore'));
    assert.equal(unchanged(), false, '.gitignore');
    indexed();
    later(path.join(ws, 'package.json'));
    assert.equal(unchanged(), false, 'package.json (workspaces decide what is walked)');
  });

  it('sees another index.db, even with the same bytes, and another walk option', function () {
    const db = path.join(idx, 'index.db');
    fs.writeFileSync(db + '.new', fs.readFileSync(db));
    fs.renameSync(db + '.new', db);
    assert.equal(unchanged(), false, 'replaced by rename');
    indexed();
    assert.equal(unchangedByStat(idx, ws, { exclude: ['src/**'] }), undefined, 'other options');
  });

  it('leaves a tree with links to the walk check', function () {
    fs.symlinkSync(path.join(ws, 'src/A.cs'), path.join(ws, 'src/Linked.cs'));
    indexed();
    assert.equal(unchanged(), false);
  });
});
