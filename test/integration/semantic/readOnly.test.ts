/**
 * Read-only, whatever the semantic layer starts (issue 14, item 7 and its first Done-when): a
 * snapshot of every path under a C# workspace (files and folders: kind, size, mtime) before and
 * after a session of semantic questions through the real engine (`sextant mcp` over stdio, the
 * built dist/cli.js) must be identical. The index lives outside the tree.
 *
 * The Harbor session runs with each headless C# provider (Sextant's Roslyn host, csharp-ls).
 * Trees: the never-built, never-restored multi-project Harbor fixture (where csharp-ls's design-time
 * builds used to create 89 bin/ and obj/ paths), and the Shapes fixture restored (csharp-ls answers
 * precisely there, so its builds really ran — their output must land in the engine's temp folder,
 * which this test points at a folder of its own and inspects).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI } from '../../helpers/mcpClient';
import { copyFixture, removeDir, restoreCSharp } from './fixture';
import { copyTree, diffTrees, ROSLYN_FIXTURE, snapshotTree } from './roslynFixture';

interface Session {
  client: Client;
  close(): Promise<void>;
}

/** `provider`: SEXTANT_CSHARP_PROVIDER for the engine (roslyn: Sextant's host; csharp-ls). */
async function engine(root: string, indexRoot: string, tmp: string, provider?: 'roslyn' | 'csharp-ls'): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--workspace-root', root, '--index-root', indexRoot],
    env: { ...getDefaultEnvironment(), TMPDIR: tmp, ...(provider ? { SEXTANT_CSHARP_PROVIDER: provider } : {}) },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: 'sextant-readonly-test', version: '0.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

type Ask = [tool: string, target: { path: string; line: number; column: number }, extra?: Record<string, unknown>];

async function session(c: Client, questions: Ask[]): Promise<string[]> {
  const modes: string[] = [];
  for (const [tool, target, extra] of questions) {
    const r = await c.callTool({ name: tool, arguments: { target, waitMs: 10_000, ...(extra ?? {}) } }, undefined, { timeout: 120_000 });
    assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
    const sc = r.structuredContent as { mode?: string; provider?: string };
    modes.push(`${tool}:${sc.mode}${sc.provider && sc.provider !== 'heuristic' ? `/${sc.provider}` : ''}`);
  }
  return modes;
}

/** Files under a folder (relative), for looking at where the design-time builds wrote. */
function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).map(String);
}

describe('read-only: a semantic session writes nothing into the workspace (real engine, real csharp-ls)', function () {
  this.timeout(600_000);
  const cleanup: string[] = [];
  after(() => cleanup.forEach(removeDir));
  const temp = (prefix: string) => {
    const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `sextant-ro-${prefix}-`)));
    cleanup.push(d);
    return d;
  };

  for (const provider of ['roslyn', 'csharp-ls'] as const)
  it(`a never-built, never-restored multi-project fixture (Harbor) is unchanged after a session (C# provider ${provider})`, async () => {
    const dir = copyTree(ROSLYN_FIXTURE, 'ro-harbor');
    cleanup.push(dir);
    const before = snapshotTree(dir);
    assert.ok(![...before.keys()].some((p) => p.endsWith('project.assets.json') || /(^|\/)bin$/.test(p)), 'the fixture copy must be unrestored and unbuilt');
    const c = await engine(dir, temp('idx'), temp('tmp'), provider);
    let modes: string[];
    try {
      modes = await session(c.client, [
        ['definition', { path: 'src/Harbor.App/Program.cs', line: 15, column: 40 }],
        ['references', { path: 'src/Harbor.Core/Ship.cs', line: 3, column: 22 }, { group_by: 'none' }],
        ['implementations', { path: 'src/Harbor.Core/IRepository.cs', line: 3, column: 18 }],
        ['callers', { path: 'src/Harbor.Core/Tanker.cs', line: 9, column: 25 }],
        ['type_hierarchy', { path: 'src/Harbor.Core/Ship.cs', line: 3, column: 22 }],
        ['callees', { path: 'src/Harbor.App/Program.cs', line: 10, column: 23 }],
        ['references', { path: 'shared/Clock.cs', line: 8, column: 26 }],
        ['definition', { path: 'src/Harbor.Text/ManifestParser.cs', line: 11, column: 47 }],
      ]);
      // Give the provider time to finish its load (design-time builds run then), and ask again.
      await new Promise((r) => setTimeout(r, 15_000));
      modes.push(...(await session(c.client, [['references', { path: 'src/Harbor.Core/EntityBase.cs', line: 11, column: 24 }]])));
    } finally {
      await c.close();
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const changes = diffTrees(before, snapshotTree(dir));
    console.log(`      Harbor (never built, ${provider}): ${before.size} paths; ${changes.length} changed after ${modes.length} questions (${modes.join(', ')})`);
    assert.deepEqual(changes, []);
  });

  it('a restored fixture (Shapes): csharp-ls answers precisely, its build output lands in the temp folder, the tree is unchanged', async () => {
    const dir = copyFixture('csharp');
    cleanup.push(dir);
    restoreCSharp(dir);
    const tmp = temp('tmp');
    const before = snapshotTree(dir);
    const c = await engine(dir, temp('idx'), tmp, 'csharp-ls');
    let modes: string[] = [];
    let outputs: string[] = [];
    try {
      const target = { path: 'src/Geometry/Circle.cs', line: 3, column: 21 };
      for (let i = 0; i < 12 && !modes.includes('references:precise/lsp'); i++) modes = await session(c.client, [['references', target, { group_by: 'none' }]]);
      assert.deepEqual(modes, ['references:precise/lsp']);
      modes.push(
        ...(await session(c.client, [
          ['implementations', { path: 'src/Geometry/IShape.cs', line: 4, column: 18 }],
          ['callers', { path: 'src/Geometry/ShapeMath.cs', line: 15, column: 26 }],
          ['definition', { path: 'src/App/Program.cs', line: 10, column: 33 }],
        ])),
      );
      // While the provider runs: its design-time output is under the engine's temp folder.
      outputs = filesUnder(tmp).filter((f) => /msbuild-out\/Geometry-[^/]+\/obj\//.test(f));
    } finally {
      await c.close();
    }
    await new Promise((r) => setTimeout(r, 1_000));
    const changes = diffTrees(before, snapshotTree(dir));
    console.log(`      Shapes (restored): ${changes.length} changed after ${modes.join(', ')}; ${outputs.length} design-time paths in the temp folder`);
    assert.ok(modes.every((m) => m.endsWith(':precise/lsp')), modes.join(', '));
    assert.ok(outputs.some((f) => f.endsWith('.AssemblyInfo.cs') || f.endsWith('.GlobalUsings.g.cs')), `design-time builds wrote nothing to the temp folder: ${outputs.slice(0, 5).join(', ')}`);
    assert.deepEqual(changes, []);
  });

  it('a tree that sets its own output paths: csharp-ls is not started, the answer says why, the tree is unchanged', async () => {
    const dir = copyFixture('csharp');
    cleanup.push(dir);
    const props = path.join(dir, 'Directory.Build.props');
    fs.writeFileSync(props, fs.readFileSync(props, 'utf8').replace('<Nullable>enable</Nullable>', '<Nullable>enable</Nullable>\n    <BaseOutputPath>$(MSBuildThisFileDirectory)out/</BaseOutputPath>'));
    const before = snapshotTree(dir);
    const c = await engine(dir, temp('idx'), temp('tmp'), 'csharp-ls');
    let r: any;
    try {
      for (let i = 0; i < 20; i++) {
        r = (await c.client.callTool({ name: 'definition', arguments: { target: { path: 'src/App/Program.cs', line: 10, column: 33 }, waitMs: 5_000 } })).structuredContent;
        if (/not started on this workspace/.test(r.reason ?? '')) break;
        await new Promise((res) => setTimeout(res, 500));
      }
    } finally {
      await c.close();
    }
    assert.equal(r.mode, 'heuristic_no_precise');
    assert.match(r.reason, /csharp-ls is not started on this workspace: Directory\.Build\.props set their own build output paths/);
    assert.deepEqual(diffTrees(before, snapshotTree(dir)), []);
  });
});
