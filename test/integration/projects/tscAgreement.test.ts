/**
 * tsconfig projects against the real TypeScript compiler: for every tsconfig project of the Node
 * fixture (extends chains, include directories and globs, leaf excludes replacing base excludes,
 * `files`, allowJs, outDir, references), the files must equal `tsc -p <config> --listFilesOnly`
 * (workspace files only; the fixture's sources import nothing, so tsc lists exactly its inputs).
 */
import { strict as assert } from 'node:assert';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildProjectGraph } from '../../../server/src/projects/buildProjectGraph';
import { copyFixture, listFiles } from './msbuildOracle';

const TSC = require.resolve('typescript/bin/tsc');

describe('projects: tsconfig agreement with tsc --listFilesOnly', function () {
  this.timeout(120_000);

  it('every tsconfig project lists the files tsc compiles', () => {
    const root = copyFixture(path.resolve(__dirname, '../../fixtures/projects/node'), 'sextant-tsc-');
    try {
      const g = buildProjectGraph({ root, files: listFiles(root) });
      const configs = g.projects.filter((p) => p.kind === 'tsconfig');
      assert.deepEqual(configs.map((p) => p.id).sort(), ['packages/core/tsconfig.json', 'packages/legacy/tsconfig.json', 'packages/web/tsconfig.app.json', 'tsconfig.json']);
      let compared = 0;
      for (const p of configs) {
        const ours = [...g.files].filter(([, es]) => es.some((e) => e.project === p.id)).map(([f]) => f).sort();
        let out: string;
        try {
          out = execFileSync(process.execPath, [TSC, '-p', path.join(root, p.id), '--listFilesOnly'], { cwd: root, encoding: 'utf8' });
        } catch (e) {
          out = String((e as { stdout?: string }).stdout ?? '');
        }
        const theirs = out
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter((l) => l.startsWith(root + '/'))
          .map((l) => l.slice(root.length + 1))
          .sort();
        assert.deepEqual(ours, theirs, p.id);
        compared += theirs.length;
      }
      console.log(`      ${configs.length} tsconfig projects, ${compared} files: identical to tsc`);
      assert.ok(compared >= 10);
      assert.equal(g.projects.find((p) => p.id === 'packages/web/package.json')?.kind, 'node');
      assert.ok(g.edges.some((e) => e.from === 'packages/web/package.json' && e.to === 'packages/core/package.json' && e.kind === 'projectReference'));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
