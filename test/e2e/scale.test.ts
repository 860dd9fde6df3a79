/**
 * Resource bounds on a 100,000-file tree: `sextant index` stays far under the 1.5 GiB memory
 * ceiling (issue 7, "memory stays under the ceiling on a 100k-file tree").
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { CLI } from '../helpers/mcpClient';
import { removeDir, tempDir } from '../helpers/workspace';

const CEILING_BYTES = 1.5 * 1024 * 1024 * 1024;

describe('scale: a 100,000-file tree @e2e', function () {
  this.timeout(600_000);
  let ws: string;
  let idx: string;
  before(function () {
    ws = tempDir('100k');
    idx = tempDir('100k-idx');
    for (let d = 0; d < 1000; d++) {
      const dir = path.join(ws, 'src', `P${d}`);
      fs.mkdirSync(dir, { recursive: true });
      for (let f = 0; f < 100; f++) {
        const n = `C${d}_${f}`;
        fs.writeFileSync(path.join(dir, `${n}.cs`), `namespace N${d};\npublic class ${n}\n{\n    public int Value${f} { get; set; }\n}\n`);
      }
    }
  });
  after(function () {
    removeDir(ws);
    removeDir(idx);
  });

  it('indexes every file and keeps peak memory under the 1.5 GiB ceiling', function () {
    const out = execFileSync(process.execPath, [CLI, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    const summary = JSON.parse(out.trim().split('\n').pop()!) as { files: number; parsedFiles: number; peakRssBytes: number };
    assert.equal(summary.files, 100_000);
    assert.equal(summary.parsedFiles, 100_000);
    assert.ok(summary.peakRssBytes > 0);
    assert.ok(summary.peakRssBytes < CEILING_BYTES, `peak RSS ${(summary.peakRssBytes / 2 ** 20).toFixed(0)} MiB`);
    console.log(`      100k files: peak RSS ${(summary.peakRssBytes / 2 ** 20).toFixed(0)} MiB (ceiling 1536 MiB)`);
  });
});
