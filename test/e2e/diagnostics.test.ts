/**
 * diagnostics over a real MCP client on real stdio (built dist/cli.js), on the diagnostics fixture
 * (test/fixtures/diagnostics): TS answered by the REAL typescript-language-server (published
 * diagnostics), C# by our REAL Roslyn host (the host's diagnostics op) and, pinned with
 * --csharp-provider csharp-ls, by the REAL csharp-ls. Expected codes, lines, severities and
 * enclosing symbols checked by hand against the fixture files.
 */
import * as assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { DIAGNOSTICS_LSP_MAX_FILES } from '../../server/src/core/limits';
import { skipWithoutCsharpLs, skipWithoutDotnet } from '../helpers/csharpLs';
import { call, callError, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir } from '../helpers/workspace';

const FIXTURE = path.resolve(__dirname, '../fixtures/diagnostics');

/** A temp copy of the fixture as a git repository with one commit (the changed-files scope reads git). */
function copy(): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-diag-ws-')));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  const git = (...a: string[]) => cp.spawnSync('git', a, { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  return dir;
}

async function open(dir: string, extra: string[] = []): Promise<{ c: Connected; idx: string }> {
  const idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-diag-idx-'));
  const c = await connectStdio(dir, idx, extra);
  await waitFor(async () => {
    const s = await call(c.client, 'repo_overview', {});
    return s.index.status === 'fresh' && !s.index.symbolsPending;
  }, 60_000);
  return { c, idx };
}

/** Asks until the answer is precise and complete (a language server's cold start can outlast one 10 s tool deadline on a loaded machine). */
async function settled(c: Connected, args: Record<string, unknown>): Promise<any> {
  let r: any;
  for (let i = 0; i < 5; i++) {
    r = await call(c.client, 'diagnostics', { ...args });
    if (r.mode === 'precise' && !r.completeness.partial) return r;
  }
  return r;
}

const brief = (d: any) => `${d.severity} ${d.code} ${d.path}:${d.line}:${d.column} ${d.symbol ?? '-'} [${d.from}]`;

describe('diagnostics over MCP (real typescript-language-server, Roslyn host, csharp-ls) @e2e', function () {
  this.timeout(240_000);
  let dir: string;
  let c: Connected;
  let idx: string;

  before(async function () {
    dir = copy();
    ({ c, idx } = await open(dir));
  });
  after(async function () {
    await c?.close();
    if (dir) removeDir(dir);
    if (idx) removeDir(idx);
  });

  it('a TS file with a known error: code 2551, line 6, error, in OrderBook.add, from typescript-language-server', async function () {
    const t0 = Date.now();
    const r = await settled(c, { path: 'src/orders.ts' });
    console.log(`      first TS diagnostics ${Date.now() - t0} ms: ${r.items.map(brief).join('; ')}`);
    assert.deepEqual(r.items.map(brief), ['error 2551 src/orders.ts:6:17 OrderBook.add [lsp]']);
    assert.match(r.items[0].message, /Property 'totl' does not exist on type 'OrderBook'/);
    assert.equal(r.items[0].source, 'typescript');
    assert.equal(r.mode, 'precise');
    assert.deepEqual(r.sources.map((s: any) => `${s.language} ${s.from} ${s.files} ${s.freshness}`), ['typescript lsp 1 now']);
    assert.match(r.summary, /^1 error\(s\), 0 warning\(s\), 0 info in src\/orders.ts/);
  });

  it('a folder: every file checked, rows ordered by project, severity, path, line; a clean file has none', async function () {
    const r = await settled(c, { path: 'src', limit: 200 });
    const paths = r.items.map((d: any) => `${d.path}:${d.line}`);
    assert.equal(r.completeness.total, 13, JSON.stringify(r.items.map(brief)));
    assert.deepEqual(paths.slice(0, 3), ['src/many.ts:3', 'src/many.ts:4', 'src/many.ts:5']);
    assert.equal(paths[12], 'src/orders.ts:6');
    assert.ok(!paths.some((p: string) => p.startsWith('src/clean.ts')));
    assert.ok(r.items.slice(0, 12).every((d: any) => d.code === '2322' && d.symbol === 'values'));
    assert.deepEqual(r.groups, [{ project: r.items[0].project, severity: 'error', count: 13 }]);
  });

  it('paged: pages concatenate to the whole answer', async function () {
    const whole = (await call(c.client, 'diagnostics', { path: 'src', limit: 200 })).items;
    const rows: unknown[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 20; i++) {
      const r = await call(c.client, 'diagnostics', { path: 'src', limit: 4, ...(cursor ? { cursor } : {}) });
      rows.push(...r.items);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    assert.deepEqual(rows, whole);
  });

  it('bad input: a scope outside the workspace, two scopes at once', async function () {
    assert.match(await callError(c.client, 'diagnostics', { path: '../outside.ts' }), /^Error \[PATH_OUTSIDE_ROOT\]: .*Hint: /s);
    assert.match(await callError(c.client, 'diagnostics', { path: 'src', changed: true }), /^Error \[INVALID_ARGUMENT\]: .*Hint: /s);
    assert.match(await callError(c.client, 'diagnostics', { project: 'NoSuchProject' }), /^Error \[PROJECT_NOT_FOUND\]: .*Hint: /s);
  });

  it('the changed files: a file edited after indexing is the scope', async function () {
    // Changed = git's modified/untracked files plus files changed since indexing (the watcher's).
    fs.writeFileSync(path.join(dir, 'src/clean.ts'), 'export function double(n: number): number {\n  return n * "2";\n}\n');
    await waitFor(async () => (await call(c.client, 'repo_overview', {})).index.gitDirty === 1, 30_000);
    const r = await settled(c, { changed: true });
    assert.match(r.summary, /changed files \(git and since indexing\)/);
    assert.deepEqual(r.items.map(brief), ['error 2363 src/clean.ts:2:14 double [lsp]']);
    fs.writeFileSync(path.join(dir, 'src/clean.ts'), 'export function double(n: number): number {\n  return n * 2;\n}\n');
  });

  it('past the language server cap: the rest get parse errors only, and the answer says which source checked what', async function () {
    // 45 files of one type error each; the last also has a syntax error. The server is asked about the first 40.
    fs.mkdirSync(path.join(dir, 'src/gen'));
    for (let i = 0; i < 45; i++) fs.writeFileSync(path.join(dir, `src/gen/f${String(i).padStart(2, '0')}.ts`), `export const v${i}: number = 'v${i}';\n${i === 44 ? 'export const broken = ;\n' : ''}`);
    await waitFor(async () => (await call(c.client, 'find_file', { query: 'src/gen/f44.ts' })).items.length === 1, 30_000);
    let r: any;
    for (let i = 0; i < 5; i++) {
      r = await call(c.client, 'diagnostics', { path: 'src/gen', limit: 100, maxBytes: 65536 });
      if (r.sources.find((s: any) => s.from === 'lsp')?.files === DIAGNOSTICS_LSP_MAX_FILES && !r.sources.find((s: any) => s.from === 'lsp')?.gaps?.some((g: string) => /in time/.test(g))) break;
    }
    assert.deepEqual(r.sources.map((s: any) => `${s.from} ${s.files} ${s.mode}`), [`lsp ${DIAGNOSTICS_LSP_MAX_FILES} precise_partial`, 'syntax 5 heuristic_no_precise']);
    const fromLsp = r.items.filter((d: any) => d.from === 'lsp');
    assert.equal(fromLsp.length, DIAGNOSTICS_LSP_MAX_FILES);
    assert.ok(fromLsp.every((d: any) => d.code === '2322' && d.path < 'src/gen/f40.ts'));
    assert.deepEqual(r.items.filter((d: any) => d.from === 'syntax').map((d: any) => `${d.path}:${d.line}`), ['src/gen/f44.ts:2']);
    assert.equal(r.mode, 'precise_partial');
    assert.match(r.completeness.partial, /parse errors only/);
    fs.rmSync(path.join(dir, 'src/gen'), { recursive: true, force: true });
  });

  it('C# through the Roslyn host: CS0103 at Cart.cs:11, error, in Cart.Total', async function () {
    skipWithoutDotnet(this);
    const t0 = Date.now();
    const first = await call(c.client, 'diagnostics', { path: 'cs/Shop/Cart.cs' });
    console.log(`      first C# diagnostics call ${Date.now() - t0} ms: ${first.items.map(brief).join('; ') || 'none'} ${JSON.stringify(first.sources)}`);
    const r = await settled(c, { path: 'cs/Shop/Cart.cs' });
    console.log(`      first complete C# diagnostics (Roslyn host) ${Date.now() - t0} ms: ${r.items.map(brief).join('; ')}`);
    assert.deepEqual(r.items.map(brief), ['error CS0103 cs/Shop/Cart.cs:11:22 Cart.Total [roslyn]']);
    assert.match(r.items[0].message, /The name 'discount' does not exist in the current context/);
    assert.equal(r.items[0].project, 'cs/Shop/Shop.csproj');
    const proj = await settled(c, { project: 'Shop' });
    assert.deepEqual(proj.items.map(brief), ['error CS0103 cs/Shop/Cart.cs:11:22 Cart.Total [roslyn]']);
    assert.deepEqual(proj.sources.map((s: any) => `${s.language} ${s.from} ${s.files}`), ['csharp roslyn 2']);
  });

  it('C# through csharp-ls (pinned): the same diagnostic, pulled from the real server', async function () {
    skipWithoutCsharpLs(this);
    const d2 = copy();
    const o = await open(d2, ['--csharp-provider', 'csharp-ls']);
    try {
      // csharp-ls never restores: the fixture is restored as a user's build would (into the temp copy).
      cp.spawnSync('dotnet', ['restore', 'cs/Shop/Shop.csproj', '-v', 'q'], { cwd: d2, env: { ...process.env, DOTNET_NOLOGO: '1', DOTNET_CLI_TELEMETRY_OPTOUT: '1' }, timeout: 120_000 });
      let r: any;
      for (let i = 0; i < 6; i++) {
        r = await call(o.c.client, 'diagnostics', { path: 'cs/Shop/Cart.cs' });
        if (r.items.some((d: any) => d.code === 'CS0103')) break;
        await new Promise((res) => setTimeout(res, 2000));
      }
      console.log(`      csharp-ls: ${r.items.map(brief).join('; ')} (${JSON.stringify(r.sources)})`);
      assert.deepEqual(r.items.filter((d: any) => d.severity === 'error').map(brief), ['error CS0103 cs/Shop/Cart.cs:11:22 Cart.Total [lsp]']);
    } finally {
      await o.c.close();
      removeDir(d2);
      removeDir(o.idx);
    }
  });
});
