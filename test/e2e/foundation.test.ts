/**
 * The foundation tools over real stdio with the MCP SDK client, against `dist/cli.js mcp` on a
 * small hand-written workspace with known facts.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, callError, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, smallWorkspace, tempDir, writeTree } from '../helpers/workspace';
import { textHits } from '../helpers/textHits';

const BUDGET = 8 * 1024;

describe('MCP over stdio: foundation tools', function () {
  let ws: string;
  let idx: string;
  let c: Connected;

  before(async function () {
    ws = tempDir('ws');
    idx = tempDir('idx');
    writeTree(ws, smallWorkspace());
    c = await connectStdio(ws, idx);
    await waitFor(async () => (await call(c.client, 'repo_overview', {})).index.status === 'fresh');
  });

  after(async function () {
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });

  it('initializes and lists every tool with strict input and published output schemas', async function () {
    const { tools } = await c.client.listTools();
    const names = tools.map((t) => t.name);
    for (const n of ['server_capabilities', 'repo_overview', 'find_file', 'search_text', 'source_context']) assert.ok(names.includes(n), `missing ${n}`);
    for (const t of tools) {
      assert.equal((t.inputSchema as { additionalProperties?: unknown }).additionalProperties, false, `${t.name} input is not strict`);
      assert.ok(t.outputSchema, `${t.name} has no outputSchema`);
      assert.equal(t.annotations?.readOnlyHint, true);
      assert.equal(t.annotations?.openWorldHint, false);
    }
    const info = c.client.getServerVersion();
    assert.equal(info?.name, 'sextant');
  });

  it('server_capabilities reports budgets and the large-file threshold', async function () {
    const r = await call(c.client, 'server_capabilities', {});
    assert.equal(r.budgets.defaultResponseBytes, BUDGET);
    assert.equal(r.largeFileThreshold.lines, 400);
    assert.ok(r.items.some((i: { tool: string }) => i.tool === 'search_text'));
    assert.equal(r.index.status, 'fresh');
  });

  it('repo_overview counts files by class, honours .gitignore and default exclusions', async function () {
    const r = await call(c.client, 'repo_overview', {});
    const paths = (await call(c.client, 'find_file', { query: '**/*', limit: 200 })).items.map((i: { path: string }) => i.path);
    assert.ok(!paths.some((p: string) => p.startsWith('ignored-dir/')), 'gitignored folder indexed');
    assert.ok(!paths.includes('debug.log'), 'gitignored file indexed');
    assert.ok(!paths.some((p: string) => p.startsWith('node_modules/')), 'node_modules indexed');
    assert.ok(!paths.some((p: string) => p.includes('/obj/')), 'obj/ indexed');
    assert.equal(r.files, paths.length);
    assert.equal(r.byClass.test, 1);
    assert.equal(r.byClass.generated, 1); // Model.Designer.cs
    assert.ok(r.languages.some((l: { language: string }) => l.language === 'csharp'));
    assert.equal(r.git.available, false);
  });

  it('find_file ranks exact name before prefix and source before generated', async function () {
    const r = await call(c.client, 'find_file', { query: 'InvoiceService.cs' });
    assert.equal(r.items[0].path, 'src/Billing/Application/InvoiceService.cs');
    assert.equal(r.items[0].match, 'exact_name');
    const p = await call(c.client, 'find_file', { query: 'invoice' });
    assert.deepEqual(
      p.items.map((i: { path: string }) => i.path),
      ['src/Billing/Api/InvoicesController.cs', 'src/Billing/Application/InvoiceService.cs', 'tests/Billing.Tests/InvoiceServiceTests.cs'],
    );
    const g = await call(c.client, 'find_file', { query: '**/*.csproj' });
    assert.deepEqual(g.items.map((i: { path: string }) => i.path), ['src/Billing/Application/Billing.Application.csproj']);
  });

  it('search_text finds a literal with 1-based line/column and ranks source before tests and generated, whole-token files first', async function () {
    const r = await call(c.client, 'search_text', { query: 'InvoiceService' });
    const hits = textHits(r);
    assert.equal(r.strategy, 'index');
    // Within the source class, the file holding the whole token comes before the one where it is
    // only part of a longer identifier (IInvoiceService), though its path sorts later.
    const paths = hits.map((i: { path: string }) => i.path);
    assert.ok(paths.indexOf('src/Billing/Application/InvoiceService.cs') < paths.indexOf('src/Billing/Api/InvoicesController.cs'), paths.join(', '));
    const inner = hits.find((i: { path: string }) => i.path === 'src/Billing/Api/InvoicesController.cs');
    assert.equal(inner!.line, 4);
    assert.equal(inner!.column, 23); // "    private readonly IInvoiceService _svc;" — inside IInvoiceService
    const classes = hits.map((i: { fileClass: string }) => i.fileClass);
    assert.ok(classes.indexOf('test') > classes.lastIndexOf('source'), 'tests after source');
    assert.equal(classes[classes.length - 1], 'generated');
    assert.equal(r.completeness.total, hits.length);
    assert.equal(r.completeness.returned, hits.length);
    assert.equal(new Set(r.items.map((g: { path: string }) => g.path)).size, r.items.length, 'one group per file');
    assert.ok(r.items.every((g: { fileClass?: string }) => g.fileClass !== 'source'), 'the default class is omitted');
  });

  it('search_text word mode excludes longer identifiers; substring mode finds mid-token hits', async function () {
    const word = await call(c.client, 'search_text', { query: 'getRequiredService', mode: 'word', case: 'sensitive' });
    assert.equal(textHits(word).length, 1);
    assert.equal(textHits(word)[0]!.line, 2);
    const sub = await call(c.client, 'search_text', { query: 'RequiredService', case: 'insensitive' });
    assert.equal(textHits(sub).length, 2, 'getRequiredService and tryGetRequiredServiceX');
    const key = await call(c.client, 'search_text', { query: 'Billing:InvoicePrefix' });
    assert.equal(textHits(key).length, 1);
    assert.equal(textHits(key)[0]!.path, 'src/Billing/Application/InvoiceService.cs');
    assert.equal(textHits(key)[0]!.line, 10);
  });

  it('search_text regex runs a bounded scan; punctuation-only literals fall back to the scan', async function () {
    const r = await call(c.client, 'search_text', { query: 'Create\\w+Async\\(', mode: 'regex' });
    assert.equal(r.strategy, 'scan');
    assert.ok(textHits(r).length >= 3);
    const p = await call(c.client, 'search_text', { query: '=>' });
    assert.equal(p.strategy, 'scan');
    assert.ok(p.items.some((i: { path: string }) => i.path.endsWith('InvoicesController.cs')));
  });

  it('pages with a cursor and rejects a cursor for another query', async function () {
    const p1 = await call(c.client, 'search_text', { query: 'Field', limit: 5 });
    assert.equal(textHits(p1).length, 5);
    assert.ok(p1.nextCursor);
    const p2 = await call(c.client, 'search_text', { query: 'Field', limit: 5, cursor: p1.nextCursor });
    assert.equal(textHits(p2)[0]!.line, textHits(p1)[4]!.line + 1);
    const bad = await callError(c.client, 'search_text', { query: 'Other', cursor: p1.nextCursor });
    assert.match(bad, /^Error \[STALE_CURSOR\]: .* Hint: /);
  });

  it('keeps every answer within the byte budget and says what was cut', async function () {
    const r = await c.client.callTool({ name: 'search_text', arguments: { query: 'filler', limit: 200 } });
    const text = (r.content as { text: string }[])[0]!.text;
    assert.ok(Buffer.byteLength(text) <= BUDGET, `text ${Buffer.byteLength(text)} bytes`);
    assert.ok(Buffer.byteLength(JSON.stringify(r.structuredContent)) <= BUDGET);
    const sc = r.structuredContent as { completeness: { reason: string; omittedBecauseBudget: number }; nextCursor: string };
    assert.equal(sc.completeness.reason, 'budget');
    assert.ok(sc.completeness.omittedBecauseBudget > 0);
    assert.ok(sc.nextCursor);
  });

  it('source_context reads numbered spans, bounded, and flags large files', async function () {
    const r = await call(c.client, 'source_context', { spans: [{ path: 'src/Billing/Application/InvoiceService.cs', line: 11, endLine: 15 }], contextLines: 0 });
    const s = r.items[0];
    assert.equal(s.startLine, 11);
    assert.equal(s.endLine, 15);
    assert.match(s.text.split('\n')[0], /^11\| {5}public async Task<Invoice> CreateInvoiceAsync/);
    // False flags are left out (changedSinceIndex, notIndexed, isLarge, truncated).
    assert.deepEqual(Object.keys(s).sort(), ['endLine', 'path', 'startLine', 'text', 'totalLines']);
    const big = await call(c.client, 'source_context', { spans: [{ path: 'src/Billing/Api/Big.cs', line: 1, endLine: 600 }], maxBytes: 2048 });
    assert.equal(big.items[0].isLarge, true);
    assert.equal(big.items[0].truncated, true);
    assert.ok(Buffer.byteLength(JSON.stringify(big)) <= 2048);
  });

  it('bad input gets Error [CODE] … Hint and the server keeps serving', async function () {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['search_text', { query: 'x', nope: 1 }, /INVALID_ARGUMENT/],
      ['search_text', { query: 42 }, /INVALID_ARGUMENT/],
      ['search_text', { query: 'a(', mode: 'regex' }, /INVALID_REGEX/],
      ['search_text', { query: 'x', limit: 1e9 }, /INVALID_ARGUMENT/],
      ['source_context', { spans: [{ path: '../../etc/passwd', line: 1 }] }, /PATH_OUTSIDE_ROOT/],
      ['source_context', { spans: [{ path: '/etc/does-not-exist', line: 1 }] }, /PATH_OUTSIDE_ROOT/],
      ['source_context', { spans: [{ path: 'src/missing.cs', line: 1 }] }, /FILE_NOT_FOUND/],
      ['source_context', { spans: [{ path: 'src', line: 1 }] }, /NOT_A_FILE/],
      ['source_context', { spans: [{ path: 'assets/logo.bin', line: 1 }] }, /BINARY_FILE/],
      ['source_context', { spans: [{ path: 'appsettings.json', line: 99 }] }, /LINE_OUT_OF_RANGE/],
      ['source_context', { spans: [{ path: 'a\u0000b', line: 1 }] }, /INVALID_ARGUMENT/],
      ['find_file', { query: 'x', cursor: 'garbage!!' }, /INVALID_CURSOR/],
      ['no_such_tool', {}, /INVALID_ARGUMENT/],
    ];
    for (const [tool, args, re] of cases) {
      const text = await callError(c.client, tool, args);
      assert.match(text, re, `${tool} ${JSON.stringify(args)} → ${text}`);
      assert.match(text, /^Error \[[A-Z_]+\]: .+ Hint: .+/);
    }
    const ok = await call(c.client, 'find_file', { query: 'InvoiceService.cs' });
    assert.equal(ok.items.length, 1);
  });

  it('re-indexes a changed file, moves the index version, and rejects the old cursor as stale', async function () {
    const before = await call(c.client, 'search_text', { query: 'Field', limit: 2 });
    const v0 = before.index.version;
    fs.writeFileSync(path.join(ws, 'src/Billing/Api/NewThing.cs'), 'public class BrandNewWidget { }\n');
    await waitFor(async () => (await call(c.client, 'repo_overview', {})).index.version !== v0);
    await waitFor(async () => textHits(await call(c.client, 'search_text', { query: 'BrandNewWidget' })).length === 1);
    const stale = await callError(c.client, 'search_text', { query: 'Field', limit: 2, cursor: before.nextCursor });
    assert.match(stale, /^Error \[STALE_CURSOR\]/);
  });
});

describe('sextant CLI launcher', function () {
  it('bin/sextant.js runs `index --json`: text + files ready before outlines + symbols complete, both with CPU time', function () {
    const ws = tempDir('binws');
    const idx = tempDir('binidx');
    try {
      writeTree(ws, smallWorkspace());
      const bin = path.resolve(__dirname, '../../bin/sextant.js');
      const r = spawnSync(process.execPath, [bin, 'index', '--workspace-root', ws, '--index-root', idx, '--json'], { encoding: 'utf8', timeout: 120_000 });
      assert.equal(r.status, 0, r.stderr);
      const j = JSON.parse(r.stdout.trim().split('\n').pop() ?? '{}') as { files: number; textReady: { ms: number; cpuMs: number }; complete: { ms: number; cpuMs: number }; symbolsPending: number; status: string };
      assert.ok(j.files > 5, `files: ${j.files}`);
      assert.ok(j.textReady.ms > 0 && j.textReady.ms <= j.complete.ms, JSON.stringify(j));
      assert.ok(j.textReady.cpuMs > 0 && j.textReady.cpuMs <= j.complete.cpuMs, JSON.stringify(j));
      assert.deepEqual([j.symbolsPending, j.status], [0, 'fresh']);
      const again = spawnSync(process.execPath, [bin, 'nope'], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(again.status, 2);
      assert.match(again.stderr, /^Error \[INVALID_ARGUMENT\]/);
    } finally {
      removeDir(ws);
      removeDir(idx);
    }
  });
});
