/**
 * The paging contract over a real MCP client on real stdio (built dist/cli.js), property-tested
 * with fast-check: random queries through every paged tool, paged with a random `limit` and
 * `maxBytes`, all cursors followed, must concatenate to the unpaged answer (the same query paged
 * at the largest limit and budget) — same rows, same order, no duplicate, no gap. Every answer is
 * validated against the outputSchema the tool publishes in tools/list and against the server's
 * full zod schema of it (every row field, nested objects too), and stays within its budget.
 *
 * Index-backed tools run on the generated C# workspace; the semantic tools (references,
 * implementations, callers, callees, type_hierarchy) on a restored copy of it with the REAL
 * csharp-ls. `SEXTANT_PAGING_WORKSPACE=/path` runs both against that folder instead (a fetched,
 * restored real repository; the queries are drawn from what the index finds there), and
 * `SEXTANT_PAGING_RUNS=n` sets the runs per part.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import fc from 'fast-check';
import { outputSchemaOf } from '../../server/src/mcp/server';
import { ALL_TOOLS } from '../../server/src/mcp/tools';
import { findDotnet, locateRoslynHost } from '../../server/src/semantic/roslyn/roslynHost';
import { cachedWorkspace } from '../fixtures/generate';
import { skipWithoutCsharpLs } from '../helpers/csharpLs';
import { connectStdio, type Connected, callSettled } from '../helpers/mcpClient';
import { symbolRowNames } from '../../server/src/mcp/tools/syntax';
import { removeDir, restoredGeneratedCopy } from '../integration/semantic/fixture';

const REAL = process.env['SEXTANT_PAGING_WORKSPACE'];
const RUNS = Number(process.env['SEXTANT_PAGING_RUNS'] ?? 0) || undefined;
const MAX_LIMIT = 200;
const MAX_BYTES = 65536;
const DEFAULT_BYTES = 8192;

type Args = Record<string, unknown>;

/** The zod envelope each tool's answers are built against (published compact in tools/list). */
const FULL_SCHEMAS = new Map(ALL_TOOLS.map((t) => [t.name, outputSchemaOf(t)]));
interface Query {
  tool: string;
  args: Args;
}

/** Calls, validation and budget checks for one connection; the unpaged answer of each query once. */
class Pager {
  validated = 0;
  calls = 0;
  private validators = new Map<string, (v: unknown) => { valid: boolean; errorMessage?: string }>();
  private unpaged = new Map<string, unknown[]>();
  /** Queries whose unpaged answer stopped at the tool deadline. */
  readonly cutByDeadline = new Set<string>();
  constructor(readonly c: Connected) {}

  async init(): Promise<void> {
    const ajv = new AjvJsonSchemaValidator();
    const { tools } = await this.c.client.listTools(); // from here on the SDK client validates answers too
    for (const t of tools) if (t.outputSchema) this.validators.set(t.name, ajv.getValidator(t.outputSchema as never) as never);
  }

  /** One call: structuredContent (validated, within budget), or the error text. */
  async call(tool: string, args: Args): Promise<{ sc?: any; error?: string }> {
    this.calls++;
    const r = await callSettled(this.c.client, tool, args);
    const text = (r.content as { text: string }[])[0]?.text ?? '';
    if (r.isError) return { error: text };
    const budget = (args.maxBytes as number | undefined) ?? DEFAULT_BYTES;
    assert.ok(Buffer.byteLength(text) <= budget, `${tool}: text ${Buffer.byteLength(text)} > ${budget}`);
    assert.ok(Buffer.byteLength(JSON.stringify(r.structuredContent)) <= budget, `${tool}: JSON over ${budget}`);
    const v = this.validators.get(tool)!(r.structuredContent);
    assert.ok(v.valid, `${tool} ${JSON.stringify(args)} breaks its outputSchema: ${v.errorMessage}`);
    const full = FULL_SCHEMAS.get(tool)?.safeParse(r.structuredContent);
    assert.ok(full?.success, `${tool} ${JSON.stringify(args)} breaks its full schema: ${full?.error?.message ?? 'no such tool'}`);
    this.validated++;
    return { sc: r.structuredContent };
  }

  /** Every page of a query, cursors followed; BUDGET_TOO_SMALL is answered by the bytes it names. */
  async pages(q: Query, limit: number, maxBytes: number): Promise<{ rows: unknown[]; first: any; last: any; pages: number }> {
    const rows: unknown[] = [];
    let cursor: string | undefined;
    let bytes = maxBytes;
    let first: any;
    let last: any;
    let pages = 0;
    for (;;) {
      const r = await this.call(q.tool, { ...q.args, limit, maxBytes: bytes, ...(cursor ? { cursor } : {}) });
      if (r.error) {
        const m = /^Error \[BUDGET_TOO_SMALL\]: The answer needs (\d+) bytes/.exec(r.error);
        assert.ok(m, `${q.tool} ${JSON.stringify(q.args)} limit ${limit} maxBytes ${bytes}${cursor ? ' (cursor)' : ''}: ${r.error}`);
        const need = Number(m[1]);
        assert.ok(need > bytes && need <= MAX_BYTES, `BUDGET_TOO_SMALL asks ${need} with ${bytes}`);
        bytes = need;
        continue;
      }
      pages++;
      first ??= r.sc;
      last = r.sc;
      // An empty page carries a cursor only where a seeking tool stopped at a per-call bound (it moved on: checked below).
      if (r.sc.nextCursor && r.sc.items.length === 0) assert.equal(q.tool, 'search_structural', `${q.tool}: an empty page with a cursor`);
      if (r.sc.completeness.reason === 'budget') assert.ok(r.sc.nextCursor, `${q.tool}: a budget cut without a cursor`);
      rows.push(...r.sc.items);
      if (!r.sc.nextCursor) break;
      assert.notEqual(r.sc.nextCursor, cursor);
      cursor = r.sc.nextCursor;
      bytes = maxBytes;
      assert.ok(pages <= 2000, `${q.tool}: paging does not end`);
    }
    return { rows, first, last, pages };
  }

  /** The unpaged answer: the query at the largest limit and budget (a single page when it fits). */
  async whole(q: Query): Promise<unknown[]> {
    const key = `${q.tool} ${JSON.stringify(q.args)}`;
    let rows = this.unpaged.get(key);
    if (!rows) {
      const r = await this.pages(q, MAX_LIMIT, MAX_BYTES);
      rows = r.rows;
      const seen = new Set(rows.map((x) => JSON.stringify(x)));
      assert.equal(seen.size, rows.length, `${key}: the unpaged answer repeats a row`);
      const total = r.first.completeness.total;
      if (total !== undefined && !['deadline', 'cap'].includes(r.last.completeness.reason)) assert.equal(rows.length, total, `${key}: rows ≠ completeness.total`);
      if (r.last.completeness.reason === 'deadline') this.cutByDeadline.add(key);
      this.unpaged.set(key, rows);
    }
    return rows;
  }
}

/** limit: mostly small (many pages), sometimes the largest. */
const limitArb = fc.oneof({ arbitrary: fc.integer({ min: 1, max: 6 }), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 40 }), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: MAX_LIMIT }), weight: 1 });
/** maxBytes: mostly tight budgets (rows cut for budget), sometimes the default or the largest. */
const bytesArb = fc.oneof({ arbitrary: fc.integer({ min: 512, max: 2048 }), weight: 3 }, { arbitrary: fc.integer({ min: 512, max: 12_000 }), weight: 3 }, { arbitrary: fc.constantFrom(DEFAULT_BYTES, MAX_BYTES), weight: 1 });

/** Runs the property: `runs` runs, stopped early (not failed) after `timeMs` so the CI part stays bounded on a loaded machine. */
/**
 * Runs the property: `minRuns` runs whatever the time they take (so the check never depends on how
 * loaded the machine is), then up to `runs` in all while `timeMs` lasts.
 */
async function checkProperty(p: Pager, queries: Query[], runs: number, timeMs: number, minRuns: number): Promise<{ runs: number; pages: number; rows: number }> {
  let pages = 0;
  let rows = 0;
  let done = 0;
  let deadlineCut = 0;
  const t0 = Date.now();
  const property = () =>
    fc.asyncProperty(fc.constantFrom(...queries), limitArb, bytesArb, async (q, limit, maxBytes) => {
      done++;
      const t = Date.now();
      const whole = await p.whole(q);
      const r = await p.pages(q, limit, maxBytes);
      if (process.env['SEXTANT_PAGING_DEBUG']) console.log(`        ${q.tool} ${JSON.stringify(q.args).slice(0, 90)} limit ${limit} maxBytes ${maxBytes}: ${whole.length} rows, ${r.pages} pages${r.last.completeness.reason ? ` (${r.last.completeness.reason})` : ''}, ${Date.now() - t} ms`);
      pages += r.pages;
      rows += r.rows.length;
      const what = `${q.tool} ${JSON.stringify(q.args)} paged by limit ${limit}, maxBytes ${maxBytes}`;
      if (r.last.completeness.reason === 'deadline' || p.cutByDeadline.has(`${q.tool} ${JSON.stringify(q.args)}`)) {
        // A walk cut by the tool deadline (a loaded machine) is a prefix of the whole walk, which is in a total order.
        deadlineCut++;
        const n = Math.min(r.rows.length, whole.length);
        assert.deepEqual(r.rows.slice(0, n), whole.slice(0, n), `${what}: a deadline-cut answer is not a prefix of the other`);
      } else assert.deepEqual(r.rows, whole, `${what}: pages ≠ unpaged answer`);
    });
  await fc.assert(property(), { numRuns: Math.min(minRuns, runs) });
  const left = timeMs - (Date.now() - t0);
  if (runs > minRuns && left > 0) await fc.assert(property(), { numRuns: runs - minRuns, interruptAfterTimeLimit: left, markInterruptAsFailure: false });
  if (deadlineCut) console.log(`      ${deadlineCut} run(s) were cut by the tool deadline: compared as prefixes`);
  return { runs: done, pages, rows };
}

const uniq = <T,>(xs: T[]): T[] => [...new Set(xs)];

/** Queries for the index-backed tools, drawn from what the index holds (generated or real workspace). */
async function indexQueries(p: Pager): Promise<Query[]> {
  const files = (await p.call('find_file', { query: '**/*.cs', limit: 200, maxBytes: MAX_BYTES })).sc.items as { path: string; lines: number }[];
  const big = [...files].sort((a, b) => b.lines - a.lines || (a.path < b.path ? -1 : 1)).slice(0, 4).map((f) => f.path);
  const projects = ((await p.call('projects_under', { prefix: '', limit: 200, maxBytes: MAX_BYTES })).sc.items as { id: string }[]);
  const dirs = uniq(projects.map((x) => path.posix.dirname(path.posix.dirname(x.id))).filter((d) => d !== '.')).slice(0, 3);
  const namesOf = async (kinds: string[]) =>
    uniq(((await p.call('search_symbol', { query: '^[A-Z]\\w{4,}$', match: 'regex', kinds, limit: 40, maxBytes: MAX_BYTES })).sc.items as { symbolId: string; path: string }[]).map((x) => symbolRowNames(x).name)).filter(Boolean);
  const typeNames = (await namesOf(['class', 'interface'])).slice(0, 2);
  const memberNames = (await namesOf(['method', 'property'])).slice(0, 2);
  const names = [...typeNames, ...memberNames];
  const ns = ((await p.call('namespace_layout', { depth: 1, limit: 20, maxBytes: MAX_BYTES })).sc.items as { namespace: string }[]).map((n) => n.namespace);
  const q: Query[] = [];
  for (const f of big) q.push({ tool: 'outline', args: { path: f } }, { tool: 'outline', args: { path: f, depth: 1 } });
  q.push({ tool: 'outline', args: { path: big[0]!, kinds: ['method', 'property'] } });
  for (const n of names) {
    q.push({ tool: 'search_symbol', args: { query: n } }, { tool: 'search_symbol', args: { query: n.slice(0, 3), match: 'prefix' } }, { tool: 'search_symbol', args: { query: n.slice(1, 5), match: 'substring' } });
  }
  q.push({ tool: 'search_symbol', args: { query: 'Get', match: 'prefix', kinds: ['method'] } }, { tool: 'search_symbol', args: { query: '^[A-Z]\\w*Service$', match: 'regex' } });
  q.push({ tool: 'search_symbol', args: { attribute: 'Fact' } }, { tool: 'search_symbol', args: { attribute: 'Theory', scope: 'test' } });
  q.push({ tool: 'find_file', args: { query: '.cs' } }, { tool: 'find_file', args: { query: '**/*.csproj' } }, { tool: 'find_file', args: { query: 'Test' } });
  if (projects[0]) q.push({ tool: 'find_file', args: { query: '.cs', project: projects[0].id } });
  q.push({ tool: 'projects_under', args: { prefix: '' } }, { tool: 'projects_under', args: { prefix: '', tests: 'exclude' } });
  for (const d of dirs) q.push({ tool: 'projects_under', args: { prefix: d } });
  q.push({ tool: 'namespace_layout', args: {} }, { tool: 'namespace_layout', args: { depth: 2 } });
  if (ns[0]) q.push({ tool: 'namespace_layout', args: { prefix: ns[0] } });
  for (const key of ['TargetFramework', 'Version', 'Nullable', 'Logging:LogLevel:Default', 'compilerOptions']) q.push({ tool: 'config_lookup', args: { key } });
  q.push(
    { tool: 'search_structural', args: { query: '(class_declaration name: (identifier) @name) @match', language: 'csharp', capture: 'name' } },
    { tool: 'search_structural', args: { query: '@calls', language: 'csharp', pathGlob: big[3] ?? big[0]! } },
  );
  if (memberNames[0]) q.push({ tool: 'search_structural', args: { query: `@calls:${memberNames[0]}`, language: 'csharp' } });
  // project_graph: around the projects with the most and the fewest references, both ways, a folder, packages.
  const byRefs = await Promise.all(projects.slice(0, 40).map(async (x) => ({ id: x.id, n: ((await p.call('project_graph', { project: x.id, direction: 'both', depth: 1, limit: 200, maxBytes: MAX_BYTES })).sc?.items ?? []).length })));
  byRefs.sort((a, b) => b.n - a.n || (a.id < b.id ? -1 : 1));
  for (const x of uniq([byRefs[0]?.id, byRefs[Math.floor(byRefs.length / 2)]?.id].filter((v): v is string => !!v))) {
    q.push({ tool: 'project_graph', args: { project: x, direction: 'both', depth: 1 } }, { tool: 'project_graph', args: { project: x, direction: 'dependents', depth: 2 } }, { tool: 'project_graph', args: { project: x, depth: 3, includePackages: true, allEdges: true } });
  }
  if (dirs[0]) q.push({ tool: 'project_graph', args: { prefix: dirs[0] } }, { tool: 'project_graph', args: { prefix: dirs[0], allEdges: true, direction: 'both' } });
  // Answers of at most MAX_WHOLE_ROWS rows keep one run (up to that many pages at limit 1) cheap.
  const kept: Query[] = [];
  for (const x of q) if ((await p.whole(x)).length <= MAX_WHOLE_ROWS) kept.push(x);
  return kept;
}

const MAX_WHOLE_ROWS = 150;

const workspaceFor = (): string => REAL ?? cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 }).root;

describe('paging contract: pages concatenate to the unpaged answer (fast-check, real stdio) @e2e', function () {
  this.timeout(900_000);

  describe(`index-backed tools on ${REAL ? REAL : 'the generated workspace'}`, function () {
    let indexRoot: string;
    let c: Connected;
    let p: Pager;
    let queries: Query[];
    before(async function () {
      const ws = workspaceFor();
      indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-idx-'));
      c = await connectStdio(ws, indexRoot);
      p = new Pager(c);
      await p.init();
      for (let i = 0; i < 3000; i++) {
        const s = (await p.call('repo_overview', {})).sc;
        if (s.index.status === 'fresh' && !s.index.symbolsPending && s.projects) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      queries = await indexQueries(p);
    });
    after(async function () {
      await c?.close();
      if (indexRoot) removeDir(indexRoot);
    });

    it('every paged index tool (search_text: its own test), random queries × random limit × random maxBytes: concatenation = unpaged answer, every answer schema-valid', async function () {
      const t0 = Date.now();
      const s = await checkProperty(p, queries, RUNS ?? 300, REAL ? 1_800_000 : 45_000, 30);
      const tools = uniq(queries.map((q) => q.tool));
      assert.ok(s.runs >= 30, `only ${s.runs} runs in the time bound`);
      console.log(`      ${s.runs} runs over ${queries.length} queries of ${tools.length} tools (${tools.join(', ')}): ${s.pages} pages, ${s.rows} rows, ${p.validated} answers schema-valid, ${Date.now() - t0} ms`);
      assert.equal(tools.length, 8);
    });
  });

  describe(`semantic tools with real csharp-ls on ${REAL ? REAL : 'a restored generated workspace'}`, function () {
    let dir: string;
    let indexRoot: string;
    let c: Connected;
    let p: Pager;
    const queries: Query[] = [];
    before(async function () {
      skipWithoutCsharpLs(this);
      dir = REAL ?? restoredGeneratedCopy(workspaceFor());
      indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-sem-idx-'));
      // csharp-ls is the provider this part pins (the Roslyn host joins the same contract through env.once).
      c = await connectStdio(dir, indexRoot, ['--csharp-provider', 'csharp-ls']);
      p = new Pager(c);
      await p.init();
      for (let i = 0; i < 3000; i++) {
        const s = (await p.call('repo_overview', {})).sc;
        if (s.index.status === 'fresh' && !s.index.symbolsPending && s.projects) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // Targets: the most referenced-looking types and members the index finds (interfaces, classes, methods).
      const pick = async (kinds: string[], n: number) =>
        ((await p.call('search_symbol', { query: '^[A-Z]\\w{3,}$', match: 'regex', kinds, scope: 'production', limit: 60, maxBytes: MAX_BYTES })).sc.items as { symbolId: string; path: string }[])
          .map((s) => ({ ...s, qualifiedName: symbolRowNames(s).qualifiedName }))
          .filter((s, i, a) => a.findIndex((x) => x.qualifiedName === s.qualifiedName) === i)
          .slice(0, n);
      const interfaces = await pick(['interface'], 1);
      const classes = await pick(['class'], 1);
      const methods = await pick(['method'], 2);
      const targets = (xs: { symbolId: string }[]) => xs.map((x) => ({ symbolId: x.symbolId }));
      for (const target of targets([...interfaces, ...classes])) {
        queries.push({ tool: 'references', args: { target, waitMs: 9000 } }, { tool: 'references', args: { target, group_by: 'none', waitMs: 9000 } }, { tool: 'references', args: { target, group_by: 'file', per_group: 2, waitMs: 9000 } });
        queries.push({ tool: 'type_hierarchy', args: { target, waitMs: 9000 } });
      }
      for (const target of targets(interfaces)) queries.push({ tool: 'implementations', args: { target, waitMs: 9000 } });
      for (const target of targets(methods)) {
        queries.push({ tool: 'callers', args: { target, waitMs: 9000 } }, { tool: 'callees', args: { target, waitMs: 9000 } }, { tool: 'references', args: { target, group_by: 'none', waitMs: 9000 } });
      }
      // Warm csharp-ls until every query answers precisely (the project set grows once per question kind).
      for (let round = 0; round < 2; round++) {
        let imprecise = 0;
        for (const q of queries) {
          let r: any;
          for (let i = 0; i < 8; i++) {
            r = (await p.call(q.tool, { ...q.args, limit: 1 })).sc;
            if (r?.mode === 'precise' || r?.mode === 'precise_partial') break;
          }
          if (r?.mode !== 'precise' && r?.mode !== 'precise_partial') imprecise++;
        }
        if (imprecise === 0) break;
      }
    });
    after(async function () {
      await c?.close();
      if (dir && !REAL) removeDir(dir);
      if (indexRoot) removeDir(indexRoot);
    });

    it('references, implementations, callers, callees, type_hierarchy: concatenation = unpaged answer, every answer schema-valid', async function () {
      const t0 = Date.now();
      // Precise answers only: the property compares two computations of the same question.
      const modes = new Map<string, string>();
      for (const q of queries) modes.set(q.tool + JSON.stringify(q.args), (await p.call(q.tool, { ...q.args, limit: 1 })).sc.mode);
      const precise: Query[] = [];
      for (const q of queries) if (/^precise/.test(modes.get(q.tool + JSON.stringify(q.args))!) && (await p.whole(q)).length <= MAX_WHOLE_ROWS) precise.push(q);
      assert.ok(precise.length >= queries.length * 0.8, `${precise.length} of ${queries.length} queries precise: ${[...modes.values()].join(', ')}`);
      const s = await checkProperty(p, precise, RUNS ?? 150, REAL ? 1_800_000 : 45_000, 20);
      const tools = uniq(precise.map((q) => q.tool));
      assert.ok(s.runs >= 20, `only ${s.runs} runs in the time bound`);
      console.log(`      ${s.runs} runs over ${precise.length} precise queries of ${tools.length} tools (${tools.join(', ')}): ${s.pages} pages, ${s.rows} rows, ${p.validated} answers schema-valid, ${Date.now() - t0} ms`);
      assert.equal(tools.length, 5);
    });
  });

  describe(`related_tests with the Roslyn host on ${REAL ? REAL : 'the generated workspace'}`, function () {
    let indexRoot: string;
    let c: Connected;
    let p: Pager;
    const queries: Query[] = [];
    before(async function () {
      if (!locateRoslynHost().ok) {
        if (findDotnet()) throw new Error('dotnet is installed but the Roslyn host is not built; run node scripts/build-roslyn-host.mjs');
        this.skip();
      }
      indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-rt-idx-'));
      c = await connectStdio(workspaceFor(), indexRoot);
      p = new Pager(c);
      await p.init();
      for (let i = 0; i < 3000; i++) {
        const s = (await p.call('repo_overview', {})).sc;
        if (s.index.status === 'fresh' && !s.index.symbolsPending && s.projects) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // Targets: production types (many tests each) and service methods (a few), as the index finds them.
      const pick = async (kinds: string[], n: number) =>
        ((await p.call('search_symbol', { query: kinds[0] === 'method' ? '^[A-Z]\\w{3,}Async$' : '^[A-Z]\\w+Service$', match: 'regex', kinds, scope: 'production', limit: 60, maxBytes: MAX_BYTES })).sc.items as { symbolId: string; path: string }[])
          .map((s) => ({ ...s, qualifiedName: symbolRowNames(s).qualifiedName })) // rows leave it out when the id spells it
          .filter((s, i, a) => a.findIndex((x) => x.qualifiedName === s.qualifiedName) === i)
          .slice(0, n);
      for (const x of [...(await pick(['class'], 3)), ...(await pick(['method'], 3))]) {
        queries.push({ tool: 'related_tests', args: { target: { symbolId: x.symbolId } } }, { tool: 'related_tests', args: { target: { symbolId: x.symbolId }, depth: 1 } });
      }
      // Warm the host until the answers are precise (it compiles on the first questions).
      for (const q of queries) {
        for (let i = 0; i < 30; i++) {
          if ((await p.call(q.tool, { ...q.args, limit: 1 })).sc?.mode === 'precise') break;
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    });
    after(async function () {
      await c?.close();
      if (indexRoot) removeDir(indexRoot);
    });

    it('related_tests on types and methods, with and without the caller walk: concatenation = unpaged answer, every answer schema-valid', async function () {
      const precise: Query[] = [];
      for (const q of queries) if ((await p.call(q.tool, { ...q.args, limit: 1 })).sc.mode === 'precise' && (await p.whole(q)).length <= MAX_WHOLE_ROWS) precise.push(q);
      assert.ok(precise.length >= queries.length * 0.8, `${precise.length} of ${queries.length} related_tests queries precise`);
      const rows = await Promise.all(precise.map(async (q) => (await p.whole(q)).length));
      assert.ok(Math.max(...rows) >= 5, `the largest answer has ${Math.max(...rows)} rows: too few to page (${queries.length} queries: ${queries.map((q) => JSON.stringify(q.args)).join(' ')})`);
      const s = await checkProperty(p, precise, RUNS ?? 100, REAL ? 600_000 : 45_000, 20);
      assert.ok(s.runs >= 20, `only ${s.runs} runs in the time bound`);
      console.log(`      ${s.runs} runs over ${precise.length} related_tests queries (rows ${rows.join('/')}): ${s.pages} pages, ${s.rows} rows, ${p.validated} answers schema-valid`);
    });
  });

  describe('diagnostics on the diagnostics fixture (real typescript-language-server)', function () {
    let ws: string;
    let indexRoot: string;
    let c: Connected;
    let p: Pager;
    before(async function () {
      ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-diag-'));
      fs.cpSync(path.resolve(__dirname, '../fixtures/diagnostics'), ws, { recursive: true });
      // More rows than one small page: a second file of type errors.
      fs.writeFileSync(path.join(ws, 'src/more.ts'), Array.from({ length: 30 }, (_, i) => `export const m${i}: number = 'm${i}';`).join('\n') + '\n');
      indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-diag-idx-'));
      c = await connectStdio(ws, indexRoot);
      p = new Pager(c);
      await p.init();
      for (let i = 0; i < 300; i++) {
        const s = (await p.call('repo_overview', {})).sc;
        if (s.index.status === 'fresh' && !s.index.symbolsPending) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // Until typescript-language-server has published for every file (its cold start can outlast one call).
      for (let i = 0; i < 6; i++) {
        const r = (await p.call('diagnostics', { path: 'src', limit: 1 })).sc;
        if (r.mode === 'precise' && !r.completeness.partial) break;
      }
    });
    after(async function () {
      await c?.close();
      for (const d of [ws, indexRoot]) if (d) removeDir(d);
    });

    it('diagnostics of a folder, a file, errors only: concatenation = unpaged answer, every answer schema-valid', async function () {
      const queries: Query[] = [{ tool: 'diagnostics', args: { path: 'src' } }, { tool: 'diagnostics', args: { path: 'src/more.ts' } }, { tool: 'diagnostics', args: { path: 'src', errors: true } }];
      const s = await checkProperty(p, queries, RUNS ?? 60, 30_000, 10);
      assert.ok(s.runs >= 10, `only ${s.runs} runs in the time bound`);
      assert.equal((await p.whole(queries[0]!)).length, 43, '12 in many.ts, 30 in more.ts, 1 in orders.ts');
      console.log(`      ${s.runs} runs over ${queries.length} diagnostics queries: ${s.pages} pages, ${s.rows} rows, ${p.validated} answers schema-valid`);
    });
  });

  describe('file_dependencies on the TS/JS dependencies fixture', function () {
    let ws: string;
    let indexRoot: string;
    let c: Connected;
    let p: Pager;
    before(async function () {
      ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-deps-'));
      fs.cpSync(path.resolve(__dirname, '../fixtures/dependencies/ts'), ws, { recursive: true });
      indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-deps-idx-'));
      c = await connectStdio(ws, indexRoot);
      p = new Pager(c);
      await p.init();
      for (let i = 0; i < 300; i++) {
        const s = (await p.call('repo_overview', {})).sc;
        if (s.index.status === 'fresh' && !s.index.symbolsPending) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    after(async function () {
      await c?.close();
      for (const d of [ws, indexRoot]) if (d) removeDir(d);
    });

    it('dependencies and dependents at depths 1-3, with and without type-only: concatenation = unpaged answer, every answer schema-valid', async function () {
      const queries: Query[] = [];
      for (const file of ['src/main.ts', 'src/entry.ts', 'src/util.ts', 'src/plain.js', 'libs/core/src/index.ts']) {
        for (const depth of [1, 2, 3]) {
          queries.push({ tool: 'file_dependencies', args: { path: file, depth } }, { tool: 'file_dependencies', args: { path: file, depth, direction: 'dependents' } });
        }
        queries.push({ tool: 'file_dependencies', args: { path: file, typeOnly: false } });
      }
      const s = await checkProperty(p, queries, RUNS ?? 120, 30_000, 20);
      assert.ok(s.runs >= 20, `only ${s.runs} runs in the time bound`);
      const entry2 = queries.find((q) => q.args.path === 'src/entry.ts' && q.args.depth === 2 && !q.args.direction)!;
      assert.ok((await p.whole(entry2)).length >= 25, 'entry.ts at depth 2 reaches main.ts and what it loads');
      console.log(`      ${s.runs} runs over ${queries.length} file_dependencies queries: ${s.pages} pages, ${s.rows} rows, ${p.validated} answers schema-valid`);
    });
  });

  describe('recent_changes on a git copy of the TS/JS dependencies fixture (commits made here)', function () {
    let ws: string;
    let indexRoot: string;
    let c: Connected;
    let p: Pager;
    before(async function () {
      ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-recent-'));
      fs.cpSync(path.resolve(__dirname, '../fixtures/dependencies/ts'), ws, { recursive: true });
      const g = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', '-c', 'commit.gpgsign=false', ...a], { cwd: ws });
      g('init', '-q');
      g('add', '-A');
      g('commit', '-qm', 'one');
      const sources = (fs.readdirSync(ws, { recursive: true }) as string[]).map((f) => f.split(path.sep).join('/')).filter((f) => /\.(ts|js)$/.test(f) && !f.includes('node_modules')).sort();
      for (const f of sources.slice(0, 6)) fs.appendFileSync(path.join(ws, f), '\nexport function addedInTwo() {\n  return 2;\n}\n');
      g('commit', '-qam', 'two');
      for (const f of sources.slice(3)) fs.appendFileSync(path.join(ws, f), '\nexport const dirty = 1;\n');
      for (let i = 0; i < 4; i++) fs.writeFileSync(path.join(ws, `src/new${i}.ts`), `export function fresh${i}() {}\n`);
      indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paging-recent-idx-'));
      c = await connectStdio(ws, indexRoot);
      p = new Pager(c);
      await p.init();
      for (let i = 0; i < 300; i++) {
        const s = (await p.call('repo_overview', {})).sc;
        if (s.index.status === 'fresh' && !s.index.symbolsPending) break;
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    after(async function () {
      await c?.close();
      for (const d of [ws, indexRoot]) if (d) removeDir(d);
    });

    it('working tree, since HEAD~1, since a date, scoped: concatenation = unpaged answer, every answer schema-valid', async function () {
      const queries: Query[] = [
        { tool: 'recent_changes', args: {} },
        { tool: 'recent_changes', args: { since: 'HEAD~1' } },
        { tool: 'recent_changes', args: { since: '2000-01-01' } },
        { tool: 'recent_changes', args: { scope: 'src' } },
      ];
      // Each run re-asks git (several processes): on a loaded 2-core machine ~2 runs a second.
      const s = await checkProperty(p, queries, RUNS ?? 60, 30_000, 5);
      assert.ok(s.runs >= 5, `only ${s.runs} runs in the time bound`);
      assert.ok((await p.whole(queries[1]!)).length >= 10, 'the range since HEAD~1 lists the changed and new files');
      console.log(`      ${s.runs} runs over ${queries.length} recent_changes queries: ${s.pages} pages, ${s.rows} rows, ${p.validated} answers schema-valid`);
    });
  });
});
