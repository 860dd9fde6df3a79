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
 *
 * Restore into Sextant's state (issue 23, item 2) on the never-restored Depot fixture: with
 * `--restore` the engine runs `dotnet restore` with every output under its index root (the NuGet
 * cache, NUGET_PACKAGES, is a temp folder of the test's own), the tree stays byte-identical
 * (paths, sizes, mtimes, contents hashes), and references through a package type go from
 * missing to complete and precise; without `--restore` the answer says that restore was not allowed.
 */
import * as assert from 'node:assert/strict';
import * as crypto from 'node:crypto';
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
async function engine(root: string, indexRoot: string, tmp: string, provider?: 'roslyn' | 'csharp-ls', extra: { args?: string[]; env?: Record<string, string> } = {}): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'mcp', '--workspace-root', root, '--index-root', indexRoot, ...(extra.args ?? [])],
    env: { ...getDefaultEnvironment(), TMPDIR: tmp, ...(provider ? { SEXTANT_CSHARP_PROVIDER: provider } : {}), ...extra.env },
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

const DEPOT_FIXTURE = path.resolve(__dirname, '../../fixtures/restore');
const RECORD = { path: 'src/Depot.Core/Audit.cs', line: 7, column: 24 };
const RECORD_CALLS = ['src/Depot.App/Worker.cs:12:16', 'src/Depot.App/Worker.cs:13:16', 'src/Depot.App/Worker.cs:8:35'];

/** Every path under a tree with kind, size, mtime and (files) a SHA-256 of the contents: byte-identical means equal. */
function hashTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [rel, e] of snapshotTree(root)) {
    const hash = e.kind === 'file' ? crypto.createHash('sha256').update(fs.readFileSync(path.join(root, rel))).digest('hex') : '';
    out.set(rel, `${e.kind} ${e.size} ${e.mtimeMs} ${hash}`);
  }
  return out;
}

function diffHashed(before: Map<string, string>, after: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [p, a] of after) if (before.get(p) !== a) out.push(`${before.has(p) ? 'changed' : 'created'} ${p}: ${before.get(p) ?? '-'} → ${a}`);
  for (const p of before.keys()) if (!after.has(p)) out.push(`removed ${p}`);
  return out.sort();
}

interface RefsAnswer {
  mode: string;
  rows: string[];
  notes: string[];
}

async function recordReferences(c: Client): Promise<RefsAnswer> {
  const r = await c.callTool({ name: 'references', arguments: { target: RECORD, waitMs: 10_000, group_by: 'none', include_definition: false } }, undefined, { timeout: 120_000 });
  assert.ok(!r.isError, JSON.stringify(r.content).slice(0, 300));
  const sc = r.structuredContent as { mode: string; items: { path: string; line: number; column: number; role?: string }[]; notes?: string[] };
  return { mode: sc.mode, rows: sc.items.filter((i) => i.role !== 'declaration').map((i) => `${i.path}:${i.line}:${i.column}`).sort(), notes: sc.notes ?? [] };
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

  describe('restore into Sextant\'s state (never-restored Depot fixture, real dotnet restore, real Roslyn host)', () => {
    let nugetCache: string;
    before(() => {
      // The user-level NuGet cache of these engines: empty, so nothing resolves before restore.
      nugetCache = temp('nuget');
    });

    it('without --restore: the answer says restore was not allowed and what that costs; the tree is unchanged', async () => {
      const dir = copyTree(DEPOT_FIXTURE, 'ro-depot');
      cleanup.push(dir);
      const before = hashTree(dir);
      const c = await engine(dir, temp('idx'), temp('tmp'), 'roslyn', { env: { NUGET_PACKAGES: nugetCache } });
      let a: RefsAnswer;
      try {
        a = await recordReferences(c.client);
        for (let i = 0; i < 10 && a.mode.startsWith('heuristic'); i++) a = await recordReferences(c.client);
      } finally {
        await c.close();
      }
      console.log(`      Depot without --restore: ${a.mode}, ${a.rows.length} of 3 calls; notes: ${a.notes.join(' | ')}`);
      // An extension method on an unresolved receiver type: Roslyn binds none of the calls.
      assert.equal(a.rows.filter((r) => RECORD_CALLS.includes(r)).length < 3 || a.mode !== 'precise', true, `before restore: ${a.mode} ${a.rows.join(' ')}`);
      assert.ok(a.notes.some((n) => /restore is not allowed \(it is off: pass --restore/.test(n) && /2 project\(s\) without project\.assets\.json/.test(n)), a.notes.join(' | '));
      assert.deepEqual(diffHashed(before, hashTree(dir)), []);
      assert.deepEqual(fs.readdirSync(nugetCache), [], 'nothing was restored');
    });

    it('with --restore: restored into the index root, announced while it runs, then complete and precise; the tree stays byte-identical', async () => {
      const dir = copyTree(DEPOT_FIXTURE, 'ro-depot');
      cleanup.push(dir);
      const before = hashTree(dir);
      assert.ok(![...before.keys()].some((p) => /(^|\/)(obj|bin)$/.test(p)), 'the fixture copy must be unrestored and unbuilt');
      const idx = temp('idx');
      const c = await engine(dir, idx, temp('tmp'), 'roslyn', { args: ['--restore'], env: { NUGET_PACKAGES: nugetCache } });
      const seen: string[] = [];
      let a: RefsAnswer | undefined;
      const t0 = Date.now();
      try {
        while (Date.now() - t0 < 300_000) {
          a = await recordReferences(c.client);
          seen.push(`${a.mode} ${a.rows.length}${a.notes.length ? ` (${a.notes.map((n) => n.slice(0, 90)).join(' | ')})` : ''}`);
          if (a.mode === 'precise' && a.rows.length === 3 && !a.notes.some((n) => /^restoring /.test(n))) break;
          await new Promise((r) => setTimeout(r, 2_000));
        }
      } finally {
        await c.close();
      }
      console.log(`      Depot with --restore (${Math.round((Date.now() - t0) / 1000)} s): ${seen.join('; ')}`);
      assert.ok(seen.some((s) => /restoring \d+ of 2 projects into Sextant's state/.test(s)), `restore was not announced while it ran: ${seen.join('; ')}`);
      assert.equal(a!.mode, 'precise');
      assert.deepEqual(a!.rows, RECORD_CALLS);
      for (const p of ['src/Depot.Core', 'src/Depot.App']) assert.ok(fs.existsSync(path.join(idx, 'restore', 'out', p, 'obj', 'project.assets.json')), `no assets for ${p} in the state folder`);
      assert.ok(fs.readdirSync(nugetCache).includes('microsoft.extensions.logging.abstractions'), 'the package went to the NuGet cache');
      await new Promise((r) => setTimeout(r, 1_000));
      assert.deepEqual(diffHashed(before, hashTree(dir)), []);
    });
  });
});
