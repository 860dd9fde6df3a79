/**
 * No language server outlives its engine: `sextant mcp` on a workspace with C# and TypeScript
 * starts csharp-ls and typescript-language-server (real ones); when the client goes away, or the
 * engine is killed with SIGKILL (no exit handler runs), every process the engine started — the
 * servers, what they started (tsserver, build hosts) and their watchdogs — is gone within 5 s.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { skipWithoutCsharpLs } from '../helpers/csharpLs';
import { CLI } from '../helpers/mcpClient';
import { removeDir, tempDir } from '../helpers/workspace';
import { copyFixture, FIXTURES, restoreCSharp } from '../integration/semantic/fixture';

interface Proc {
  pid: number;
  ppid: number;
  state: string;
  cmd: string;
}

function processes(): Proc[] {
  const out: Proc[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0').join(' ').trim();
      out.push({ pid: Number(d), ppid: Number(rest[1]), state: rest[0]!, cmd });
    } catch {
      /* gone meanwhile */
    }
  }
  return out;
}

/** Every live descendant of `root`. */
function descendants(root: number): Proc[] {
  const all = processes();
  const found: Proc[] = [];
  const queue = [root];
  while (queue.length) {
    const p = queue.shift()!;
    for (const c of all) if (c.ppid === p && c.state !== 'Z') (found.push(c), queue.push(c.pid));
  }
  return found;
}

/** Those of `procs` still running (a zombie waiting to be reaped runs nothing and holds no memory). */
function stillRunning(procs: Proc[]): Proc[] {
  const now = new Map(processes().map((p) => [p.pid, p]));
  return procs.filter((p) => {
    const q = now.get(p.pid);
    return q !== undefined && q.state !== 'Z' && q.cmd === p.cmd;
  });
}

describe('no language server outlives its engine (real csharp-ls and typescript-language-server) @e2e', function () {
  this.timeout(300_000);
  let ws: string;
  let idx: string;

  before(function () {
    if (process.platform !== 'linux') this.skip();
    skipWithoutCsharpLs(this);
    ws = copyFixture('csharp');
    restoreCSharp(ws);
    fs.cpSync(path.join(FIXTURES, 'typescript'), path.join(ws, 'web'), { recursive: true });
  });
  after(() => {
    if (ws) removeDir(ws);
  });
  beforeEach(() => {
    idx = tempDir('orphans-idx');
  });
  afterEach(() => removeDir(idx));

  /** Starts the engine and both language servers; returns the client, the engine pid and what it started. */
  async function engineWithServers(extraEnv: Record<string, string> = {}): Promise<{ client: Client; transport: StdioClientTransport; engine: number; started: Proc[] }> {
    // SEXTANT_NO_TS_PROGRAMS: TypeScript through typescript-language-server, not the engine's own TS host;
    // C# through csharp-ls unless a test picks Sextant's Roslyn host (the default provider).
    const env = { ...(process.env as Record<string, string>), SEXTANT_NO_TS_PROGRAMS: '1', SEXTANT_CSHARP_PROVIDER: 'csharp-ls', ...extraEnv };
    const csharpServer = env.SEXTANT_CSHARP_PROVIDER === 'roslyn' ? /Sextant\.RoslynHost/ : /csharp-ls/;
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, 'mcp', '--workspace-root', ws, '--index-root', idx], env, stderr: 'pipe' });
    transport.stderr?.on('data', () => undefined);
    const client = new Client({ name: 'sextant-orphans-e2e', version: '0.0.0' });
    await client.connect(transport);
    const engine = transport.pid!;
    assert.ok(engine > 0);
    const until = Date.now() + 120_000;
    let started: Proc[] = [];
    try {
      for (;;) {
        // Each semantic question starts its language server (answers stay heuristic while it loads).
        await client.callTool({ name: 'definition', arguments: { target: { path: 'src/App/Program.cs', line: 10, column: 33 } } }).catch(() => undefined);
        await client.callTool({ name: 'definition', arguments: { target: { path: 'web/src/main.ts', line: 6, column: 15 } } }).catch(() => undefined);
        started = descendants(engine);
        const names = started.map((p) => p.cmd).join('\n');
        if (csharpServer.test(names) && /typescript-language-server/.test(names) && /tsserver/.test(names)) break;
        assert.ok(Date.now() < until, `language servers did not start; engine children:\n${names}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    } catch (e) {
      await client.close().catch(() => undefined);
      throw e;
    }
    return { client, transport, engine, started };
  }

  async function noneLeftAfter5s(started: Proc[]): Promise<void> {
    const until = Date.now() + 5_000;
    while (stillRunning(started).length > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 200));
    const left = stillRunning(started);
    assert.deepEqual(left.map((p) => `${p.pid} ${p.cmd.slice(0, 120)}`), [], 'processes the engine started are still running 5 s after it went away');
  }

  it('the client goes away: the engine exits and takes every language server with it', async () => {
    const { client, started } = await engineWithServers();
    console.log(`      engine started ${started.length} processes: ${[...new Set(started.map((p) => path.basename(p.cmd.split(' ').find((a) => /csharp-ls|typescript-language-server|tsserver|sh$/.test(a)) ?? p.cmd.split(' ')[0]!)))].join(', ')}`);
    await client.close();
    await noneLeftAfter5s(started);
  });

  it('the engine is killed with SIGKILL: its watchdogs take every language server down', async () => {
    const { client, engine, started } = await engineWithServers();
    process.kill(engine, 'SIGKILL');
    await noneLeftAfter5s(started);
    await client.close().catch(() => undefined);
  });

  it('the engine is killed with SIGKILL while Sextant\'s Roslyn host serves C#: the host goes down too', async function () {
    if (!fs.existsSync(path.join(__dirname, '../../roslyn/out/host/Sextant.RoslynHost.dll'))) this.skip(); // not built on this machine (npm install says why)
    const { client, engine, started } = await engineWithServers({ SEXTANT_CSHARP_PROVIDER: 'roslyn' });
    assert.ok(started.some((p) => /Sextant\.RoslynHost/.test(p.cmd)), started.map((p) => p.cmd).join('\n'));
    process.kill(engine, 'SIGKILL');
    await noneLeftAfter5s(started);
    await client.close().catch(() => undefined);
  });

  it('SIGKILL with a server that does not end on end-of-input (a wrapper script): the watchdog still takes it down', async () => {
    // Real servers end when their stdin closes with the engine; a wrapper that goes on after its
    // server (or a server stuck in a load) does not — only the process-group watchdog ends it.
    const dir = tempDir('orphans-wrapper');
    try {
      const wrapper = path.join(dir, 'tsls-wrapper.sh');
      const tsls = require.resolve('typescript-language-server/lib/cli.mjs');
      fs.writeFileSync(wrapper, `#!/bin/sh\n"${process.execPath}" "${tsls}" --stdio\nsleep 300\n`, { mode: 0o755 });
      const { client, engine, started } = await engineWithServers({ SEXTANT_LSP: `typescript:.ts=${wrapper}` });
      assert.ok(started.some((p) => p.cmd.includes('tsls-wrapper.sh')), started.map((p) => p.cmd).join('\n'));
      process.kill(engine, 'SIGKILL');
      await noneLeftAfter5s(started);
      await client.close().catch(() => undefined);
    } finally {
      removeDir(dir);
    }
  });
});
