/**
 * The CLI refuses what it does not understand (exit 2, the error, the usage line — and nothing
 * indexed), prints its version and every command's flags, and `serve`'s attach snippet, run as
 * printed, reaches the engine `serve` started (index root included) instead of starting another.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, CLI } from '../helpers/mcpClient';
import { removeDir, smallWorkspace, tempDir, writeTree } from '../helpers/workspace';

const cli = (args: string[], cwd?: string) => spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', timeout: 60_000, ...(cwd ? { cwd } : {}) });

describe('CLI: strict arguments, --version, --help, serve snippets @e2e', function () {
  this.timeout(120_000);
  let ws: string;
  let idx: string;

  beforeEach(() => {
    ws = tempDir('cli-ws');
    idx = tempDir('cli-idx');
    writeTree(ws, smallWorkspace());
  });
  afterEach(() => {
    removeDir(ws);
    removeDir(idx);
  });

  const refused = (r: ReturnType<typeof cli>, error: RegExp, command: string) => {
    assert.equal(r.status, 2, r.stderr);
    assert.match(r.stderr, error);
    assert.match(r.stderr, new RegExp(`\\nusage: sextant ${command} `));
    assert.equal(r.stdout, '');
  };

  it('an unknown flag exits 2 with the usage line and writes no index', () => {
    refused(cli(['index', '--workspace-root', ws, '--index-rot', idx]), /^Error \[INVALID_ARGUMENT\]: Unknown option '--index-rot'\. Hint: see sextant index --help/, 'index');
    assert.equal(fs.existsSync(path.join(ws, '.sextant')), false, 'nothing indexed into the workspace');
    assert.deepEqual(fs.readdirSync(idx), []);
    refused(cli(['mcp', '--workspace-root', ws, '--verbose']), /Unknown option '--verbose'/, 'mcp');
    refused(cli(['doctor', '--json']), /Unknown option '--json'/, 'doctor');
  });

  it('a flag without its value exits 2 instead of falling back to the current folder', () => {
    refused(cli(['index', '--workspace-root'], ws), /^Error \[INVALID_ARGUMENT\]: Option '--workspace-root' needs a value/, 'index');
    refused(cli(['index', '--workspace-root', '--index-root', idx], ws), /Option '--workspace-root' needs a value/, 'index');
    refused(cli(['stats', '--workspace-root', ws, '--index-root='], ws), /Option '--index-root' needs a value/, 'stats');
    refused(cli(['index', '--workspace-root', ws, '--json=yes']), /Option '--json' takes no value/, 'index');
    refused(cli(['query', '--workspace-root', ws]), /No tool named \(one of server_capabilities, /, 'query');
    assert.equal(fs.existsSync(path.join(ws, '.sextant')), false);
  });

  it('mcp says at start which semantic provider serves each language, and what is missing', () => {
    const hidden = tempDir('cli-path');
    try {
      // stdin closed at once: the engine starts, prints the line, and ends with its client.
      const r = spawnSync(process.execPath, [CLI, 'mcp', '--workspace-root', ws, '--index-root', idx], { encoding: 'utf8', timeout: 60_000, input: '' });
      const line = r.stderr.split('\n').find((l) => l.startsWith('semantic providers: '));
      assert.ok(line, r.stderr);
      assert.match(line, /C#: (Sextant's Roslyn host|csharp-ls|no Roslyn host and csharp-ls not installed)/);
      assert.match(line, /TS\/JS: Sextant's TypeScript host \(every tsconfig program\)/);
      // With the engine's own TS host off, typescript-language-server (an npm dependency) serves TS/JS.
      const env = { ...process.env, SEXTANT_NO_TS_PROGRAMS: '1' };
      const r2 = spawnSync(process.execPath, [CLI, 'mcp', '--workspace-root', ws, '--index-root', hidden], { encoding: 'utf8', timeout: 60_000, input: '', env });
      assert.match(r2.stderr, /semantic providers: C#: .*; TS\/JS: typescript-language-server\n/, r2.stderr);
    } finally {
      removeDir(hidden);
    }
  });

  it('a stray argument exits 2; an unknown command too', () => {
    refused(cli(['index', '--workspace-root', ws, 'extra']), /Unexpected argument 'extra'/, 'index');
    refused(cli(['query', 'find_file', 'more', '--workspace-root', ws]), /Unexpected argument 'more'/, 'query');
    const r = cli(['indx']);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /^Error \[INVALID_ARGUMENT\]: Unknown command 'indx'\. Hint: see sextant --help\nusage: sextant index\|mcp\|serve\|query\|stats\|scip\|doctor/);
  });

  it('--version prints the package version; --help lists every flag of every command', () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as { version: string };
    const v = cli(['--version']);
    assert.equal(v.status, 0);
    assert.equal(v.stdout, `sextant ${pkg.version}\n`);
    const h = cli(['--help']);
    assert.equal(h.status, 0);
    const synopsis = (c: string) => h.stdout.split('\n').find((l) => l.startsWith(`usage: sextant ${c} `)) ?? '';
    for (const c of ['index', 'mcp', 'serve', 'query', 'stats']) {
      for (const f of ['--workspace-root D', '--index-root D', '--exclude', '--include']) assert.ok(synopsis(c).includes(f), `${c}: ${f} in ${synopsis(c)}`);
    }
    assert.match(synopsis('index'), /\[--json\]/);
    assert.match(synopsis('query'), /^usage: sextant query TOOL .*\[--args JSON\]/);
    assert.match(synopsis('doctor'), /\[--workspace-root D\] \[--index-root D\]$/);
    const q = cli(['query', '--help']);
    assert.equal(q.status, 0);
    assert.match(q.stdout, /^usage: sextant query TOOL/);
    assert.match(q.stdout, /--index-root D +folder of the index/);
  });

  it('stats reports the status index reported on an unchanged tree', () => {
    const ix = cli(['index', '--workspace-root', ws, '--index-root', idx, '--json']);
    assert.equal(ix.status, 0, ix.stderr);
    assert.equal(JSON.parse(ix.stdout).status, 'fresh');
    const st = cli(['stats', '--workspace-root', ws, '--index-root', idx]);
    assert.equal(st.status, 0, st.stderr);
    const j = JSON.parse(st.stdout);
    assert.equal(j.status, 'fresh');
    assert.equal(j.indexVersion, JSON.parse(ix.stdout).indexVersion, 'an unchanged tree keeps its version');
  });

  it("serve's attach snippet, run as printed, attaches to the engine serve started (its index root included)", async () => {
    const serve: ChildProcess = spawn(process.execPath, [CLI, 'serve', '--workspace-root', ws, '--index-root', idx], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    serve.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
    let client: Client | undefined;
    try {
      const until = Date.now() + 60_000;
      while (!/Keeping the index fresh/.test(err) && Date.now() < until && serve.exitCode === null) await new Promise((r) => setTimeout(r, 100));
      assert.match(err, /Keeping the index fresh/, err);
      assert.match(err, new RegExp(`Checked: the snippet's command attaches to this engine \\(pid ${serve.pid}\\)`));
      const line = /claude mcp add sextant -- (.*)/.exec(err)?.[1] ?? '';
      const [command, ...args] = line.split(' ');
      assert.equal(command, 'node');
      assert.deepEqual(args.slice(1), ['mcp', '--workspace-root', fs.realpathSync(ws), '--index-root', path.resolve(idx)]);
      const vscodeArgs = JSON.parse(/VS Code \(\.vscode\/mcp\.json\):\n([\s\S]*?\n    \})\n/.exec(err)![1]!).servers.sextant.args;
      assert.deepEqual(vscodeArgs, args);

      const transport = new StdioClientTransport({ command: process.execPath, args, stderr: 'pipe' });
      let childErr = '';
      transport.stderr?.on('data', (c: Buffer) => (childErr += c.toString('utf8')));
      client = new Client({ name: 'sextant-cli-e2e', version: '0.0.0' });
      await client.connect(transport);
      const r = await call(client, 'find_file', { query: 'InvoiceService.cs' });
      assert.ok(r.items.length > 0);
      assert.match(childErr, new RegExp(`attached to the running engine .*"pid":${serve.pid}\\b`), childErr);
      assert.equal(fs.existsSync(path.join(ws, '.sextant')), false, 'the attached client wrote no index of its own');
    } finally {
      await client?.close().catch(() => undefined);
      serve.kill('SIGTERM');
      await new Promise((r) => (serve.exitCode !== null ? r(undefined) : serve.once('exit', r)));
    }
  });
});
