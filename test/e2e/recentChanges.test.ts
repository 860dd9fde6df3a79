/**
 * recent_changes over a real MCP client on real stdio, on a temp git repository whose commits the
 * test makes (real git): commits since a ref and since a date, staged / unstaged / untracked
 * changes, hunks mapped to the declarations they touch, project grouping with the test split,
 * bad input, no git, and that nothing was written into the repository (.git/index untouched).
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, callError, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, tempDir, writeTree } from '../helpers/workspace';

const ORDERS_V1 = [
  'namespace Acme.Orders;', // 1
  '', // 2
  'public class OrderService', // 3
  '{', // 4
  '    public int Total(int a, int b)', // 5
  '    {', // 6
  '        return a + b;', // 7
  '    }', // 8
  '', // 9
  '    public string Name() => "orders";', // 10
  '}', // 11
  '',
].join('\n');

const TESTS_V1 = [
  'using Xunit;',
  'namespace Acme.Orders.Tests;',
  'public class OrderTests',
  '{',
  '    [Fact]',
  '    public void Adds() { }',
  '}',
  '',
].join('\n');

const FILES: Record<string, string> = {
  'src/App/App.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup></Project>\n',
  'src/App/Orders.cs': ORDERS_V1,
  'tests/App.Tests/App.Tests.csproj':
    '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework><IsTestProject>true</IsTestProject></PropertyGroup><ItemGroup><ProjectReference Include="../../src/App/App.csproj" /></ItemGroup></Project>\n',
  'tests/App.Tests/OrderTests.cs': TESTS_V1,
  'web/util.ts': 'export function slug(s: string): string {\n  return s.toLowerCase();\n}\n',
  '.gitignore': 'bin/\nobj/\n',
};

function gitIn(cwd: string, args: string[], date?: string): string {
  return execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...(date ? { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } : {}) },
  });
}

describe('recent_changes over MCP on a real git repository @e2e', function () {
  let ws: string;
  let idx: string;
  let c: Connected;
  let first: string;

  before(async function () {
    ws = tempDir('recent');
    idx = tempDir('recent-idx');
    writeTree(ws, FILES);
    gitIn(ws, ['init', '-q', '-b', 'main']);
    gitIn(ws, ['add', '-A']);
    gitIn(ws, ['commit', '-q', '-m', 'initial'], '2026-01-01T10:00:00Z');
    first = gitIn(ws, ['rev-parse', 'HEAD']).trim();
    // Commit 2: the body of Total changes (line 7).
    fs.writeFileSync(path.join(ws, 'src/App/Orders.cs'), ORDERS_V1.replace('return a + b;', 'return checked(a + b);'));
    gitIn(ws, ['commit', '-q', '-am', 'checked total'], '2026-06-01T10:00:00Z');
    // Working tree: Name changes (unstaged), a test is added to the test file (staged), a new untracked file.
    fs.writeFileSync(path.join(ws, 'src/App/Orders.cs'), ORDERS_V1.replace('return a + b;', 'return checked(a + b);').replace('"orders"', '"orders-v2"'));
    fs.writeFileSync(path.join(ws, 'tests/App.Tests/OrderTests.cs'), TESTS_V1.replace('    public void Adds() { }\n', '    public void Adds() { }\n\n    [Fact]\n    public void Names() { }\n'));
    gitIn(ws, ['add', 'tests/App.Tests/OrderTests.cs']);
    writeTree(ws, { 'src/App/Invoice.cs': 'namespace Acme.Orders;\n\npublic record Invoice(int Id);\n\npublic enum InvoiceState { Open, Paid }\n' });
    c = await connectStdio(ws, idx);
    await waitFor(async () => (await call(c.client, 'repo_overview', {})).index.status === 'fresh', 30_000);
  });

  after(async function () {
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });

  it('working tree only: staged, unstaged and untracked files, each hunk mapped to its declaration, by project, production first', async function () {
    // A stat-only change (same content, new mtime): porcelain `git diff` would rewrite .git/index to
    // refresh its stat data; the tool must neither write it nor list the file.
    const util = path.join(ws, 'web/util.ts');
    fs.utimesSync(util, new Date(), new Date(Date.now() + 5_000));
    await waitFor(async () => (await call(c.client, 'repo_overview', {})).index.status === 'fresh', 30_000);
    const indexBefore = fs.readFileSync(path.join(ws, '.git/index'));
    const statBefore = fs.statSync(path.join(ws, '.git/index')).mtimeMs;
    const r = await call(c.client, 'recent_changes', {});
    console.log(`      ${r.summary}\n      ${JSON.stringify(r.items)}`);
    assert.deepEqual(r.items, [
      { path: 'src/App/Invoice.cs', status: 'A', in: ['untracked'], add: 5, del: 0, symbols: ['record Invoice L3', 'enum InvoiceState L5'], project: 'src/App/App.csproj' },
      { path: 'src/App/Orders.cs', in: ['unstaged'], add: 1, del: 1, symbols: ['method OrderService.Name L10'], project: 'src/App/App.csproj' },
      { path: 'tests/App.Tests/OrderTests.cs', in: ['staged'], add: 3, del: 0, symbols: ['class OrderTests L3-10', 'method OrderTests.Names L8-9'], project: 'tests/App.Tests/App.Tests.csproj', test: true },
    ]);
    assert.deepEqual(r.projects, [{ project: 'src/App/App.csproj', prod: 2, test: 0 }, { project: 'tests/App.Tests/App.Tests.csproj', prod: 0, test: 1 }]);
    assert.equal(r.commits, undefined);
    // Read-only: git's index file was not refreshed or rewritten by the calls.
    assert.deepEqual(fs.readFileSync(path.join(ws, '.git/index')), indexBefore);
    assert.equal(fs.statSync(path.join(ws, '.git/index')).mtimeMs, statBefore);
  });

  it('since a ref: the commit range plus the working tree, the commit listed, the file in both', async function () {
    const r = await call(c.client, 'recent_changes', { since: first, scope: 'src' });
    console.log(`      ${r.summary}\n      ${JSON.stringify(r.items)} ${JSON.stringify(r.commits)}`);
    assert.equal(r.commitCount, 1);
    assert.equal(r.commits[0].subject, 'checked total');
    assert.equal(r.base, first.slice(0, 10));
    const orders = r.items.find((i: { path: string }) => i.path === 'src/App/Orders.cs');
    assert.deepEqual(orders, { path: 'src/App/Orders.cs', in: ['commit', 'unstaged'], add: 2, del: 2, symbols: ['method OrderService.Total L5-8', 'method OrderService.Name L10'], project: 'src/App/App.csproj' });
    assert.ok(!r.items.some((i: { path: string }) => i.path.startsWith('tests/')), 'scope src keeps tests out');
  });

  it('since a date: only the commits after it (hand-set commit dates)', async function () {
    const r = await call(c.client, 'recent_changes', { since: '2026-03-01' });
    assert.equal(r.commitCount, 1);
    assert.equal(r.commits[0].subject, 'checked total');
    const all = await call(c.client, 'recent_changes', { since: '2025-12-01' });
    assert.equal(all.commitCount, 2);
    assert.equal(all.base, 'empty tree');
    // Since before the first commit, every tracked file is in the range.
    assert.ok(all.items.some((i: { path: string; in: string[] }) => i.path === 'web/util.ts' && i.in.includes('commit')), JSON.stringify(all.items));
  });

  it('pages concatenate to the unpaged answer', async function () {
    const whole = await call(c.client, 'recent_changes', { since: '2025-12-01', limit: 200 });
    const rows: unknown[] = [];
    let cursor: string | undefined;
    do {
      const p = await call(c.client, 'recent_changes', { since: '2025-12-01', limit: 2, ...(cursor ? { cursor } : {}) });
      rows.push(...p.items);
      cursor = p.nextCursor;
    } while (cursor);
    assert.deepEqual(rows, whole.items);
    assert.ok(whole.items.length >= 5);
  });

  it('bad input: unknown ref, unparsable date, option-shaped ref, scope outside the workspace', async function () {
    const e1 = await callError(c.client, 'recent_changes', { since: 'no-such-branch' });
    assert.match(e1, /^Error \[REF_NOT_FOUND\]: No commit, branch or tag 'no-such-branch'.* Hint: /);
    const e2 = await callError(c.client, 'recent_changes', { since: '2026-13-45' });
    assert.match(e2, /^Error \[INVALID_ARGUMENT\]: 'since' \(2026-13-45\) is not a date.* Hint: /);
    const e3 = await callError(c.client, 'recent_changes', { since: '--output=/tmp/x' });
    assert.match(e3, /^Error \[INVALID_ARGUMENT\]: 'since' .* is neither a ref nor a date/);
    const e4 = await callError(c.client, 'recent_changes', { scope: '../elsewhere' });
    assert.match(e4, /^Error \[PATH_OUTSIDE_ROOT\]: .* Hint: /);
  });
});

describe('recent_changes without git @e2e', function () {
  let ws: string;
  let idx: string;
  let c: Connected;

  before(async function () {
    ws = tempDir('recent-nogit');
    idx = tempDir('recent-nogit-idx');
    writeTree(ws, { 'a.ts': 'export const a = 1;\n', 'b.ts': 'export function b() {\n  return 2;\n}\n' });
    c = await connectStdio(ws, idx);
    await waitFor(async () => (await call(c.client, 'repo_overview', {})).index.status === 'fresh', 30_000);
  });

  after(async function () {
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });

  it('says there is no git and lists the files changed since they were indexed', async function () {
    const none = await call(c.client, 'recent_changes', {});
    assert.equal(none.git, false);
    assert.match(none.summary, /no git \(the workspace is not in a git repository\)/);
    assert.deepEqual(none.items, []);
    fs.writeFileSync(path.join(ws, 'b.ts'), 'export function b() {\n  return 3;\n}\n');
    const after = await call(c.client, 'recent_changes', {});
    assert.ok(after.items.some((i: { path: string; in: string[]; symbols?: string[] }) => i.path === 'b.ts' && i.in.length === 0 && i.symbols?.[0] === 'function b L1-3'), JSON.stringify(after.items));
    const e = await callError(c.client, 'recent_changes', { since: 'main' });
    assert.match(e, /^Error \[INVALID_ARGUMENT\]: 'since' names a ref \(main\) but the workspace is not in a git repository.* Hint: /);
  });
});
