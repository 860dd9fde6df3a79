/**
 * recent_changes' untracked files on a big tree come from the engine's own walk minus git's tracked
 * files, then `git check-ignore --stdin` (nav/expanded/recentChanges.ts untrackedFiles). On a real
 * git repository made by the test, the index path finds the same untracked files as git's own walk
 * (`ls-files --others --exclude-standard`): an ignored file (.gitignore and .git/info/exclude) and
 * tracked files are left out, a nested repository's files too; and .git/index is not written.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { recentChanges } from '../../../server/src/nav/expanded/recentChanges';

const gitIn = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], { cwd, encoding: 'utf8' });

function write(root: string, files: Record<string, string>): void {
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  }
}

describe('recent_changes untracked files from the index walk (real git)', function () {
  let ws: string;
  let engine: Engine;

  before(async function () {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-untracked-')));
    write(ws, { 'src/a.ts': 'export const a = 1;\n', 'src/b.ts': 'export const b = 2;\n', '.gitignore': 'gen/\n*.log\n' });
    gitIn(ws, 'init', '-q', '-b', 'main');
    gitIn(ws, 'add', '-A');
    gitIn(ws, 'commit', '-q', '-m', 'initial');
    fs.appendFileSync(path.join(ws, '.git/info/exclude'), 'local.ts\n');
    write(ws, {
      'src/new.ts': 'export const n = 3;\n', // untracked
      'docs/notes.md': '# notes\n', // untracked
      'debug.log': 'x\n', // ignored (*.log)
      'gen/out.ts': 'export const g = 1;\n', // ignored (gen/)
      'local.ts': 'export const l = 1;\n', // ignored (.git/info/exclude)
      'vendor/lib/x.ts': 'export const x = 1;\n', // a nested repository's file
    });
    gitIn(path.join(ws, 'vendor/lib'), 'init', '-q');
    engine = await Engine.open({ workspaceRoot: ws, indexRoot: '' });
    await engine.refresh();
  });
  after(async function () {
    await engine?.close();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  const untracked = async (how: 'git' | 'index', scope?: string) => {
    const r = await recentChanges(engine, { deadlineAt: Date.now() + 10_000, untracked: how, ...(scope ? { scope } : {}) });
    return { paths: r.files.filter((f) => f.where.includes('untracked')).map((f) => f.path).sort(), fromIndex: r.untrackedFromIndex === true };
  };

  it('the same untracked files as git ls-files --others, ignored, tracked and nested-repository files left out', async function () {
    const indexBefore = fs.readFileSync(path.join(ws, '.git/index'));
    const byGit = await untracked('git');
    const byIndex = await untracked('index');
    console.log(`      git walk: ${byGit.paths.join(', ')}; index: ${byIndex.paths.join(', ')}`);
    assert.deepEqual(byIndex.paths, ['docs/notes.md', 'src/new.ts']);
    assert.equal(byIndex.fromIndex, true);
    assert.equal(byGit.fromIndex, false);
    // git's walk lists the nested repository as its folder; the index path leaves it out entirely.
    assert.deepEqual(byGit.paths.filter((p) => !p.startsWith('vendor/')), byIndex.paths);
    assert.deepEqual(await untracked('index', 'src'), { paths: ['src/new.ts'], fromIndex: true });
    assert.ok(fs.readFileSync(path.join(ws, '.git/index')).equals(indexBefore), '.git/index was not written');
  });

  it('the two-phase diffs (hunks, statuses, unstaged only of the files that differ) answer as the tree-wide ones', async function () {
    fs.writeFileSync(path.join(ws, 'src/a.ts'), 'export const a = 10;\nexport const a2 = 2;\n'); // unstaged
    fs.writeFileSync(path.join(ws, 'src/b.ts'), 'export const b = 20;\n');
    gitIn(ws, 'add', 'src/b.ts'); // staged
    fs.rmSync(path.join(ws, '.gitignore')); // deleted, unstaged
    try {
      const deadlineAt = Date.now() + 10_000;
      const two = await recentChanges(engine, { deadlineAt, untracked: 'git' });
      const full = await recentChanges(engine, { deadlineAt, untracked: 'git', diffPasses: 'full' });
      const brief = (r: typeof two) => r.files.map((f) => `${f.status} ${f.path} ${f.where.join('+')} +${f.added} -${f.removed}`);
      console.log(`      ${brief(two).join('; ')}`);
      assert.deepEqual(brief(two), brief(full));
      assert.deepEqual(brief(two).filter((l) => !l.includes('untracked')), ['D .gitignore unstaged +0 -2', 'M src/a.ts unstaged +2 -1', 'M src/b.ts staged +1 -1']);
    } finally {
      gitIn(ws, 'checkout', '-q', 'HEAD', '--', 'src/a.ts', 'src/b.ts', '.gitignore');
    }
  });

  it('a file created after indexing (a watcher path not yet indexed) is found too', async function () {
    write(ws, { 'src/later.ts': 'export const later = 1;\n' });
    (engine.pendingPaths() as Set<string>).add('src/later.ts');
    try {
      assert.deepEqual((await untracked('index', 'src')).paths, ['src/later.ts', 'src/new.ts']);
    } finally {
      (engine.pendingPaths() as Set<string>).delete('src/later.ts');
    }
  });
});
