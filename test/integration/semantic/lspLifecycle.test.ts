/**
 * Language server lifecycle with real processes: missing executables, servers configured by
 * command line, idle stop, engine exit, and csharp-ls loading only the selected projects.
 */
import * as assert from 'node:assert/strict';
import * as cp from 'node:child_process';
import * as path from 'node:path';
import { LspProvider } from '../../../server/src/semantic/lsp/lspProvider';
import { parseServerOverride } from '../../../server/src/semantic/lsp/serverSpec';
import { SemanticRegistry } from '../../../server/src/semantic/registry';
import { skipWithoutCsharpLs } from '../../helpers/csharpLs';
import { alive, ats, copyFixture, pos, removeDir, restoreCSharp, waitFor } from './fixture';

const TSLS = path.resolve(__dirname, '../../../node_modules/.bin/typescript-language-server');

describe('semantic: language server lifecycle (real processes)', function () {
  this.timeout(240_000);
  const dirs: string[] = [];
  const fixture = (name: 'csharp' | 'typescript') => {
    const d = copyFixture(name);
    dirs.push(d);
    return d;
  };
  after(() => dirs.forEach(removeDir));

  it('a language server that is not installed is reported absent with the install hint', async () => {
    const dir = fixture('typescript');
    const provider = new LspProvider({ root: dir, noDefaults: true, servers: [parseServerOverride('typescript:.ts=sextant-no-such-language-server --stdio')] });
    const registry = new SemanticRegistry();
    registry.register(provider, 'lsp');
    try {
      const a = await registry.request('definition', 'typescript', pos('src/main.ts:6:15'));
      assert.equal(a.mode, 'unavailable_no_precise');
      assert.equal(a.attempts[0]?.outcome, 'absent');
      assert.match(a.reason ?? '', /sextant-no-such-language-server not found .*run npm install/);
      assert.equal(provider.availability('typescript').state, 'absent');
      const [row] = await provider.doctor();
      assert.equal(row?.found, false);
      assert.equal(row?.state, 'absent');
    } finally {
      await registry.dispose();
    }
  });

  it('any LSP server can be configured by command line per language', async () => {
    const dir = fixture('typescript');
    const spec = parseServerOverride(`typescript,javascript:.ts,.js=${TSLS} --stdio`);
    const provider = new LspProvider({ root: dir, noDefaults: true, servers: [spec] });
    try {
      const ac = new AbortController();
      const r = await provider.request('definition', 'typescript', pos('src/main.ts:6:15'), { signal: ac.signal, deadline: Date.now() + 60_000, waitForReadyMs: 60_000 });
      assert.equal(r.kind, 'ok');
      assert.deepEqual(ats(r.kind === 'ok' ? r.value : []), ['src/math.ts:3:17']);
      assert.equal(provider.statuses()[0]?.executable, TSLS);
    } finally {
      await provider.dispose();
    }
  });

  it('an idle server is stopped and starts again on the next request', async () => {
    const dir = fixture('typescript');
    const provider = new LspProvider({ root: dir, noDefaults: false, idleStopMs: 1_000 });
    const ask = () => {
      const ac = new AbortController();
      return provider.request('definition', 'typescript', pos('src/main.ts:6:15'), { signal: ac.signal, deadline: Date.now() + 60_000, waitForReadyMs: 60_000 });
    };
    try {
      assert.equal((await ask()).kind, 'ok');
      const server = provider.serverForLanguage('typescript')!;
      const pid = server.status().pid!;
      assert.ok(await waitFor(() => server.status().state === 'stopped', 10_000), `state ${server.status().state}`);
      assert.ok(await waitFor(() => !alive(pid), 5_000));
      assert.equal(provider.availability('typescript').started, false);
      const again = await ask();
      assert.equal(again.kind, 'ok');
      assert.notEqual(server.status().pid, pid);
      assert.equal(server.status().restarts, 0, 'an idle stop is not a crash');
    } finally {
      await provider.dispose();
    }
  });

  it('language servers die with the engine process', async () => {
    const dir = fixture('typescript');
    const script = [
      `const { LspProvider } = require(${JSON.stringify(path.resolve(__dirname, '../../../server/src/semantic/lsp/lspProvider'))});`,
      `const p = new LspProvider({ root: ${JSON.stringify(dir)} });`,
      `const ac = new AbortController();`,
      `p.request('definition', 'typescript', { path: 'src/main.ts', line: 6, column: 15 }, { signal: ac.signal, deadline: Date.now() + 60000, waitForReadyMs: 60000 })`,
      `  .then(() => { console.log('PID ' + p.serverForLanguage('typescript').status().pid); process.exit(0); });`,
    ].join('\n');
    const out = cp.execFileSync(process.execPath, ['--require', 'tsx/cjs', '-e', script], { cwd: path.resolve(__dirname, '../../..'), encoding: 'utf8', timeout: 90_000 });
    const pid = Number(/PID (\d+)/.exec(out)?.[1]);
    assert.ok(pid > 0, out);
    assert.ok(await waitFor(() => !alive(pid), 5_000), `language server ${pid} outlived the engine`);
  });

  it('csharp-ls loads only the selected projects (a generated solution)', async function () {
    skipWithoutCsharpLs(this);
    const dir = fixture('csharp');
    restoreCSharp(dir);
    const provider = new LspProvider({ root: dir, csharp: { projects: ['src/App/App.csproj', 'src/Geometry/Geometry.csproj'] } });
    const registry = new SemanticRegistry();
    registry.register(provider, 'lsp');
    try {
      const a = await registry.request('references', 'csharp', { ...pos('src/Geometry/Circle.cs:3:21'), includeDeclaration: false }, { deadlineMs: 180_000, waitForReadyMs: 180_000 });
      assert.equal(a.mode, 'precise');
      // The test project is not loaded: only the App use remains.
      assert.deepEqual(ats(a.value!), ['src/App/Program.cs:9:45']);
      assert.deepEqual(provider.availability('csharp').progress, { done: 2, total: 2 });
      assert.equal(provider.availability('csharp', 'tests/Geometry.Tests/Geometry.Tests.csproj').state, 'absent');
      assert.equal(provider.availability('csharp', 'src/App/App.csproj').state, 'ready');
      // Nothing was written into the workspace for the generated solution.
      assert.deepEqual(
        cp.execFileSync('find', ['.', '-name', '*.slnx'], { cwd: dir, encoding: 'utf8' }).trim(),
        '',
      );
    } finally {
      await registry.dispose();
    }
  });
});
