/**
 * No call with default arguments fails for size (issue 25), over a real MCP client on real stdio:
 *
 * - a 10-line constants file linked into 300 projects (the shape of a shared AssemblyInfo.cs /
 *   GlobalUsings.cs / telemetry-names file): every tool asked about it, and about a search hit in
 *   it, answers within the default 8 KiB budget — its project list is said shortened ("+N more:
 *   projects_containing"), never whole per row, and projects_containing pages the whole list;
 * - a property (fast-check): no per-file tool asked with default arguments about a generated
 *   workspace's files, or about the files of a tree shaped like a real repository
 *   (test/fixtures/realShapes/, measured from efcore; no code of it), answers BUDGET_TOO_SMALL.
 *
 * The semantic tools run with whatever provider the engine picks (the Roslyn host when built).
 */
import * as assert from 'node:assert/strict';
import { FILE_FACT_SHOWN_ENTRIES } from '../../server/src/core/limits';
import { connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { ask, noCallFailsForSize, settled, sizeProblem, type Answer } from '../helpers/defaultBudget';
import { removeDir, tempDir, writeTree } from '../helpers/workspace';
import { cachedWorkspace } from '../fixtures/generate';
import { loadShape, writeShapedTree } from '../fixtures/realShapes/shapedTree';

const LINKED_PROJECTS = 300;
const SHARED = 'shared/TelemetryNames.cs';

/** The shared file: a type every project uses, constants, a method (10 lines). */
const sharedFile = [
  'namespace Acme.Shared;',
  '',
  'public static class TelemetryNames',
  '{',
  '    public const string ActivitySource = "Acme.Telemetry";',
  '    public const string RequestStarted = "acme.request.started";',
  '    public static string Metric(string name) => ActivitySource + "." + name;',
  '}',
  '',
  '',
].join('\n');

function linkedWorkspace(): Record<string, string> {
  const files: Record<string, string> = { [SHARED]: sharedFile };
  for (let i = 0; i < LINKED_PROJECTS; i++) {
    const name = `Acme.Platform.Module${String(i).padStart(3, '0')}.Services`;
    files[`src/${name}/${name}.csproj`] =
      '<Project Sdk="Microsoft.NET.Sdk">\n  <PropertyGroup><TargetFrameworks>net8.0;net9.0</TargetFrameworks></PropertyGroup>\n' +
      '  <ItemGroup><Compile Include="..\\..\\shared\\TelemetryNames.cs" Link="Properties\\TelemetryNames.cs" /></ItemGroup>\n</Project>\n';
    files[`src/${name}/Service${i}.cs`] = `namespace Acme.Platform.Module${i};\n\npublic class Service${i}\n{\n    public string Source => Acme.Shared.TelemetryNames.ActivitySource;\n}\n`;
  }
  files['src/Acme.Platform.Module000.Services/appsettings.json'] = '{ "Telemetry": { "Source": "Acme.Telemetry" } }\n';
  return files;
}

/** An answer at the default budget: not an error of size, and within 8 KiB as text and as JSON. */
function assertFits(a: Answer, what: string): void {
  const problem = sizeProblem(a);
  assert.equal(problem, undefined, `${what}: ${problem}`);
}

/** Every list under `projects` / `compilations` in an answer. */
function factLists(v: unknown, out: string[][] = []): string[][] {
  if (Array.isArray(v)) for (const x of v) factLists(x, out);
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'projects' || k === 'compilations') && typeof (v as { path?: unknown }).path === 'string' && Array.isArray(x) && x.every((e) => typeof e === 'string')) out.push(x as string[]);
      else factLists(x, out);
    }
  }
  return out;
}

describe('MCP over stdio: no call with default arguments fails for size', function () {
  this.timeout(600_000);

  describe(`a file linked into ${LINKED_PROJECTS} projects`, function () {
    let ws: string;
    let idx: string;
    let c: Connected;

    before(async function () {
      ws = tempDir('linked300');
      idx = tempDir('linked300-idx');
      writeTree(ws, linkedWorkspace());
      c = await connectStdio(ws, idx);
      await waitFor(async () => (await ask(c, 'repo_overview', {})).sc?.index.status === 'fresh' && !(await ask(c, 'projects_containing', { path: SHARED })).error, 120_000, 250);
    });

    after(async function () {
      await c?.close();
      removeDir(ws);
      removeDir(idx);
    });

    it('every tool on the file and on a search hit in it answers within the default budget', async function () {
      const hit = await ask(c, 'search_text', { query: 'acme.request.started' });
      assertFits(hit, 'search_text');
      const group = hit.sc.items.find((g: { path: string }) => g.path === SHARED);
      assert.ok(group, JSON.stringify(hit.sc.items).slice(0, 300));
      const h = group.hits[0];
      const at = { path: SHARED, line: h.line, column: h.column };
      const type = { path: SHARED, line: 3, column: 21 };
      const method = { path: SHARED, line: 7, column: 26 };
      const sym = await ask(c, 'search_symbol', { query: 'TelemetryNames' });
      assertFits(sym, 'search_symbol');
      const symbolId = sym.sc.items[0].symbolId as string;
      const calls: [string, Record<string, unknown>][] = [
        ['server_capabilities', {}],
        ['repo_overview', {}],
        ['find_file', { query: 'TelemetryNames.cs' }],
        ['find_file', { query: '**/*.cs' }],
        ['search_text', { query: 'TelemetryNames' }],
        ['search_text', { query: 'Acme\\.\\w+', mode: 'regex' }],
        ['source_context', { spans: [{ path: SHARED, line: h.line }] }],
        ['outline', { path: SHARED }],
        ['outline', { paths: [SHARED, 'src/Acme.Platform.Module001.Services/Service1.cs'] }],
        ['search_symbol', { query: 'RequestStarted' }],
        ['symbol_at', { path: SHARED, line: h.line }],
        ['inspect_syntax_tree', { path: SHARED, line: h.line }],
        ['search_structural', { query: '(class_declaration) @match', language: 'csharp' }],
        ['file_dependencies', { path: SHARED }],
        ['definition', { target: at }],
        ['definition', { target: { symbolId } }],
        ['references', { target: type }],
        ['implementations', { target: type }],
        ['callers', { target: method }],
        ['callees', { target: method }],
        ['type_hierarchy', { target: type }],
        ['project_graph', { project: 'src/Acme.Platform.Module000.Services/Acme.Platform.Module000.Services.csproj' }],
        ['projects_containing', { path: SHARED }],
        ['dependency_path', { from: 'Acme.Platform.Module000.Services', to: 'Acme.Platform.Module001.Services' }],
        ['projects_under', { prefix: '' }],
        ['namespace_layout', {}],
        ['config_lookup', { key: 'Telemetry:Source' }],
        ['recent_changes', {}],
        ['generated_for', { path: SHARED }],
        ['xml_doc', { target: type }],
        ['diagnostics', { path: SHARED }],
        ['context_pack', { target: type }],
        ['locate_code', { question: 'where are the telemetry activity names' }],
        ['related_tests', { target: type }],
        ['impact', { target: type, change_kind: 'rename' }],
      ];
      const listed = (await c.client.listTools()).tools.map((t) => t.name);
      assert.deepEqual(listed.filter((n) => !calls.some(([t]) => t === n)), [], 'a tool is not asked here: add it');
      for (const [tool, args] of calls) {
        const a = await ask(c, tool, args);
        assertFits(a, `${tool} ${JSON.stringify(args)}`);
        for (const list of factLists(a.sc)) {
          assert.ok(list.length <= FILE_FACT_SHOWN_ENTRIES + 1, `${tool}: a per-file list of ${list.length} entries`);
        }
      }
    });

    it('per-file project lists are said shortened, with the count and the tool that lists them', async function () {
      const o = await ask(c, 'outline', { path: SHARED });
      const compilations = o.sc.file.compilations as string[];
      assert.equal(compilations.length, FILE_FACT_SHOWN_ENTRIES + 1);
      assert.equal(compilations.at(-1), `+${LINKED_PROJECTS * 2 - FILE_FACT_SHOWN_ENTRIES} more: projects_containing`);
      assert.match(compilations[0]!, /^Acme\.Platform\.Module000\.Services\|net8\.0$/);
      const f = await ask(c, 'find_file', { query: 'TelemetryNames.cs' });
      assert.deepEqual(f.sc.items[0].projects.at(-1), `+${LINKED_PROJECTS - FILE_FACT_SHOWN_ENTRIES} more: projects_containing`);
      const t = await ask(c, 'search_text', { query: 'acme.request.started' });
      assert.equal(t.sc.items[0].projects.length, FILE_FACT_SHOWN_ENTRIES + 1);
    });

    it('property: per-file questions with default arguments about its files never fail for size', async function () {
      const files = [SHARED, SHARED, SHARED, 'src/Acme.Platform.Module007.Services/Service7.cs', 'src/Acme.Platform.Module000.Services/appsettings.json'];
      await noCallFailsForSize(c, ws, files, 40, 15_000);
    });

    it('projects_containing pages the whole list at the default budget', async function () {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pages = 0; ; pages++) {
        assert.ok(pages < 100);
        const a = await ask(c, 'projects_containing', { path: SHARED, ...(cursor ? { cursor } : {}) });
        assertFits(a, 'projects_containing');
        seen.push(...a.sc.items.map((r: { project: string }) => r.project));
        cursor = a.sc.nextCursor;
        if (!cursor) break;
      }
      assert.equal(seen.length, LINKED_PROJECTS);
      assert.equal(new Set(seen).size, LINKED_PROJECTS);
    });
  });

  it('property: per-file questions with default arguments over a generated workspace never fail for size', async function () {
    const root = cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 }).root;
    const idx = tempDir('budget-gen-idx');
    const c = await connectStdio(root, idx);
    try {
      const files: string[] = [];
      let cursor: string | undefined;
      await waitFor(async () => (await ask(c, 'repo_overview', {})).sc?.index.status === 'fresh', 300_000, 250);
      do {
        const r = (await ask(c, 'find_file', { query: '**/*.cs', limit: 200, maxBytes: 65536, ...(cursor ? { cursor } : {}) })).sc;
        files.push(...r.items.map((i: { path: string }) => i.path));
        cursor = r.nextCursor;
      } while (cursor);
      await settled(c, files[0]!);
      const { asked } = await noCallFailsForSize(c, root, files, 60, 30_000);
      console.log(`      ${[...asked.values()].reduce((a, b) => a + b, 0)} calls over ${files.length} files: ${[...asked].map(([t, n]) => `${t} ${n}`).join(', ')}`);
    } finally {
      await c.close();
      removeDir(idx);
    }
  });

  it('property: per-file questions with default arguments over a tree shaped like efcore never fail for size', async function () {
    const root = tempDir('budget-efcore-shape');
    const idx = tempDir('budget-efcore-shape-idx');
    const files = writeShapedTree(root, loadShape('efcore'));
    const c = await connectStdio(root, idx);
    try {
      await settled(c, files[0]!);
      const { asked } = await noCallFailsForSize(c, root, files, 60, 30_000);
      console.log(`      ${[...asked.values()].reduce((a, b) => a + b, 0)} calls over ${files.length} files: ${[...asked].map(([t, n]) => `${t} ${n}`).join(', ')}`);
    } finally {
      await c.close();
      removeDir(root);
      removeDir(idx);
    }
  });
});
