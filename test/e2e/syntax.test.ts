/**
 * The syntax tools over real stdio (dist/cli.js mcp) on a small workspace with known declarations:
 * outline, search_symbol, symbol_at, inspect_syntax_tree, search_structural, and their bad inputs.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { call, callError, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, tempDir, writeTree } from '../helpers/workspace';
import { symbolRowNames } from '../../server/src/mcp/tools/syntax';

const FIXTURES = path.resolve(__dirname, '../fixtures/syntax');

function workspace(): Record<string, string | Buffer> {
  const files: Record<string, string | Buffer> = {};
  for (const f of fs.readdirSync(FIXTURES)) files[`src/${f}`] = fs.readFileSync(path.join(FIXTURES, f));
  files['src/Orders/OrderPart2.cs'] = 'namespace Acme.Orders;\npublic partial class Order<TLine>\n{\n    public void Extra() { }\n}\n';
  files['src/Services/ServiceProvider.cs'] = [
    'namespace Acme.Services;',
    'public static class ServiceProviderExtensions',
    '{',
    '    public static T GetRequiredService<T>(this IServiceProvider p) => (T)p.GetService(typeof(T))!;',
    '    public static object GetRequiredServiceCore(IServiceProvider p) => p;',
    '}',
    'public class Consumer',
    '{',
    '    public void Run(IServiceProvider sp)',
    '    {',
    '        var a = sp.GetRequiredService<string>();',
    '        var b = sp.GetService(typeof(int));',
    '    }',
    '}',
    '',
  ].join('\n');
  files['tests/ConsumerTests.cs'] = 'public class ConsumerTests\n{\n    [Fact]\n    public void GetRequiredService_works() { }\n}\n';
  files['src/Big.cs'] = `namespace Big;\npublic class Huge\n{\n${Array.from({ length: 5000 }, (_, i) => `    public int M${i}(int x) => x + ${i};`).join('\n')}\n}\n`;
  files['src/Overloads.cs'] = [
    'namespace Ov;',
    'public class Svc',
    '{',
    ...Array.from({ length: 200 }, (_, i) => `    private int _privateFieldNumber${i};`),
    '    public Svc() { }',
    '    public void Run(int x) { }',
    '    public void Run(string s) { }',
    ...Array.from({ length: 150 }, (_, i) => `    public int PublicPropertyNumber${i} { get; }`),
    '}',
    '',
  ].join('\n');
  files['docs/readme.txt'] = 'not code\n';
  files['assets/blob.cs'] = Buffer.from([0x63, 0, 1, 2, 3]);
  return files;
}

describe('MCP over stdio: syntax tools', function () {
  let ws: string;
  let idx: string;
  let c: Connected;

  before(async function () {
    ws = tempDir('ws-syntax');
    idx = tempDir('idx-syntax');
    writeTree(ws, workspace());
    c = await connectStdio(ws, idx);
    // fresh text and every outline/symbol written (symbols come in the second indexing phase)
    await waitFor(async () => {
      const index = (await call(c.client, 'repo_overview', {})).index;
      return index.status === 'fresh' && !index.symbolsPending && !/t$/.test(index.version);
    }, 60_000);
  });

  after(async function () {
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });

  it('lists the syntax tools, and server_capabilities reports the syntax layer and the large-file threshold', async function () {
    const { tools } = await c.client.listTools();
    for (const n of ['outline', 'search_symbol', 'symbol_at', 'inspect_syntax_tree', 'search_structural']) assert.ok(tools.some((t) => t.name === n), `missing ${n}`);
    const caps = await call(c.client, 'server_capabilities', {});
    assert.equal(caps.largeFileThreshold.lines, 400);
    const syntax = caps.layers.find((l: { layer: string }) => l.layer === 'syntax');
    assert.equal(syntax.status, 'available');
    assert.ok(syntax.languages.includes('csharp') && syntax.languages.includes('rust'));
  });

  it('outline lists namespaces, types and members with spans and signatures, from the index', async function () {
    const r = await call(c.client, 'outline', { path: 'src/csharp.cs', limit: 100, ids: true });
    assert.equal(r.file.source, 'index');
    assert.equal(r.file.language, 'csharp');
    assert.equal(r.form, 'signatures');
    const convert = r.items.find((i: { sig: string }) => i.sig.includes(' Convert<'));
    assert.equal(convert.kind, 'method');
    assert.equal(convert.line, 28);
    assert.equal(convert.end, 33);
    assert.equal(convert.sig, 'public T Convert<T>(Func<TLine, T> map, ref int count, out bool done, params object[] rest)');
    assert.equal(convert.id, 'M:Acme.Orders.Order`1.Convert``1(Func{`0,``0},System.Int32@,System.Boolean@,System.Object[])');
    const ext = r.items.find((i: { sig: string }) => i.sig.includes('IsEmpty'));
    assert.equal(ext.ext, 'string?');
    const plain = await call(c.client, 'outline', { path: 'src/csharp.cs', limit: 100 });
    assert.ok(plain.items.every((i: { id?: string }) => i.id === undefined), 'ids only on request');
    assert.ok(plain.items.every((i: { depth?: number }) => i.depth !== 0), 'depth 0 is left out');
    const text = ((await c.client.callTool({ name: 'outline', arguments: { path: 'src/csharp.cs' } })).content as { text: string }[])[0]!.text;
    assert.ok(!/\b(namespace|class|interface|struct|record|enum) \1\b/.test(text), `a kind word is doubled:\n${text}`);
    const shallow = await call(c.client, 'outline', { path: 'src/csharp.cs', depth: 1 });
    assert.ok(shallow.items.every((i: { depth?: number }) => (i.depth ?? 0) <= 1));
    assert.ok(shallow.deeper > 0);
  });

  /** Declarations on names-form rows: containers (not continuations), one per span of a named member, and the "+N more" counts. */
  const declarationsOn = (rows: { more?: true; members?: Record<string, string> }[]) =>
    rows.reduce(
      (n, row) =>
        n +
        (row.more ? 0 : 1) +
        Object.values(row.members ?? {}).reduce((k, v) => k + v.split(', ').reduce((j, entry) => j + (/^\+(\d+) more$/.test(entry) ? Number(entry.slice(1, -5)) : entry.split(' ')[1]!.split(',').length), 0), 0),
      0,
    );

  /** A container's members by kind over its row and the rows that continue it (`more: true`, naming only the container's line). */
  const membersOf = (rows: { line: number; sig?: string; more?: true; members?: Record<string, string> }[], sig: string) => {
    const out: Record<string, string> = {};
    const lines = new Set(rows.filter((x) => !x.more && x.sig === sig).map((x) => x.line));
    for (const row of rows.filter((x) => lines.has(x.line))) {
      if (row.more) assert.equal(row.sig, undefined, 'a continuation row does not repeat the signature');
      for (const [k, v] of Object.entries(row.members ?? {})) out[k] = Object.hasOwn(out, k) ? `${out[k]}, ${v}` : v;
    }
    return out;
  };

  it('outline of a 5,000-declaration file is one summarised names answer within 8 KiB that counts what it does not name; form names pages every name', async function () {
    const r = await call(c.client, 'outline', { path: 'src/Big.cs' });
    assert.equal(r.file.isLarge, true);
    assert.equal(r.form, 'names');
    assert.match(r.summary, /5002 declarations/);
    assert.match(r.summary, /counted as "\+N more"/);
    assert.ok(Buffer.byteLength(JSON.stringify(r)) <= 8 * 1024);
    assert.equal(r.nextCursor, undefined, 'the whole map is one answer');
    assert.ok(r.unlisted > 4000 && r.unlisted < 5000, `unlisted ${r.unlisted}`);
    assert.match(membersOf(r.items, 'public class Huge').method!, /^M0 4, M1 5, .*, \+\d+ more$/);
    assert.equal(declarationsOn(r.items), 5002);
    // form: "names" names every member, over pages.
    const rows = [];
    for (let cur: string | undefined, first = true; first || cur; first = false) {
      const next = await call(c.client, 'outline', { path: 'src/Big.cs', form: 'names', ...(cur ? { cursor: cur } : {}) });
      assert.ok(Buffer.byteLength(JSON.stringify(next)) <= 8 * 1024);
      assert.equal(next.unlisted, undefined);
      rows.push(...next.items);
      cur = next.nextCursor;
    }
    assert.ok(rows.length > 2);
    assert.ok(rows.every((x) => !Object.values(x.members ?? {}).some((v) => /more$/.test(String(v)))));
    assert.equal(declarationsOn(rows), 5002);
  });

  it('outline names form: overloads share an entry, a constructor is named, private fields are the first left unnamed', async function () {
    const r = await call(c.client, 'outline', { path: 'src/Overloads.cs' });
    assert.equal(r.form, 'names');
    assert.equal(r.nextCursor, undefined);
    const svc = { members: membersOf(r.items, 'public class Svc') };
    assert.equal(svc.members.constructor, 'Svc 204');
    assert.equal(svc.members.method, 'Run 205,206');
    assert.match(svc.members.property ?? "", /^PublicPropertyNumber0 207, .*PublicPropertyNumber149 356$/);
    assert.match(svc.members.field ?? "", /^_privateFieldNumber0 4, .*, \+\d+ more$/);
    assert.ok(r.unlisted > 0);
    assert.equal(declarationsOn(r.items), 355);
  });

  it('outline answers live for a file changed since indexing, and reports #if re-parses', async function () {
    const r = await call(c.client, 'outline', { path: 'src/csharp_filescoped.cs' });
    assert.ok(r.file.reparsedWith.some((w: string) => w.includes('#if')));
    assert.match(r.summary, /re-parsed/);
    const p = path.join(ws, 'src/typescript.ts');
    fs.appendFileSync(p, '\nexport function addedLater(): void {}\n');
    const live = await call(c.client, 'outline', { path: 'src/typescript.ts', limit: 100 });
    assert.equal(live.file.source, 'parse');
    assert.ok(live.items.some((i: { sig: string }) => i.sig.includes('addedLater')));
  });

  it('search_symbol: exact, camelCase, partial types with several spans, and ranking of production before tests', async function () {
    const exact = await call(c.client, 'search_symbol', { query: 'Order', match: 'exact', kinds: ['class'] });
    assert.equal(exact.items.length, 1);
    assert.equal(exact.items[0].symbolId, 'T:Acme.Orders.Order`1');
    assert.equal(exact.items[0].otherSpans.length, 2, JSON.stringify(exact.items[0]));
    const camel = await call(c.client, 'search_symbol', { query: 'GRS', match: 'camelCase' });
    assert.equal(symbolRowNames(camel.items[0]).name, 'GetRequiredService');
    // A generic method's id (``1) does not spell its qualified name: the row says it, and not the name (its last part).
    assert.equal(camel.items[0].qualifiedName, 'Acme.Services.ServiceProviderExtensions.GetRequiredService');
    assert.equal(camel.items[0].name, undefined);
    assert.equal(camel.items[0].match, 'camelCase');
    const auto = await call(c.client, 'search_symbol', { query: 'GetRequiredService' });
    assert.deepEqual(auto.items.slice(0, 2).map((i: any) => symbolRowNames(i).name), ['GetRequiredService', 'GetRequiredServiceCore']);
    const prod = await call(c.client, 'search_symbol', { query: 'GetRequiredService', match: 'prefix', scope: 'production' });
    assert.ok(prod.items.every((i: { isTest?: boolean; fileClass?: string }) => !i.isTest && i.fileClass !== 'test'));
    const tests = await call(c.client, 'search_symbol', { query: 'GetRequiredService_works', scope: 'test' });
    // In a test file the class says it: isTest is not repeated.
    assert.equal(tests.items[0].fileClass, 'test');
    assert.equal(tests.items[0].isTest, undefined);
    const q = await call(c.client, 'search_symbol', { query: 'Order.Convert', match: 'qualified' });
    assert.equal(symbolRowNames(q.items[0]).qualifiedName, 'Acme.Orders.Order.Convert');
    const fuzzy = await call(c.client, 'search_symbol', { query: 'gtreqsvccore', match: 'fuzzy' });
    assert.equal(symbolRowNames(fuzzy.items[0]).name, 'GetRequiredServiceCore');
    // Said once: the id spells the qualified name, so neither the name nor the qualified name is repeated.
    assert.match(fuzzy.items[0].symbolId, /^M:Acme\.Services\.ServiceProviderExtensions\.GetRequiredServiceCore\(/);
    assert.equal(fuzzy.items[0].qualifiedName, undefined);
    assert.equal(fuzzy.items[0].name, undefined);
    const rx = await call(c.client, 'search_symbol', { query: '^Is[A-Z]', match: 'regex' });
    assert.ok(rx.items.some((i: any) => symbolRowNames(i).name === 'IsEmpty'));
    const ts = await call(c.client, 'search_symbol', { query: 'distance', pathGlob: 'src/*.ts' });
    assert.equal(ts.items[0].path, 'src/typescript.ts');
    // a typo, lower-case initials, and an exact total
    const typo = await call(c.client, 'search_symbol', { query: 'GetRequiredSrevice', match: 'fuzzy' });
    assert.equal(symbolRowNames(typo.items[0]).name, 'GetRequiredService');
    const lowerInitials = await call(c.client, 'search_symbol', { query: 'grs', match: 'camelCase' });
    assert.equal(symbolRowNames(lowerInitials.items[0]).name, 'GetRequiredService');
    const all = await call(c.client, 'search_symbol', { query: 'GetRequiredService', match: 'prefix' });
    assert.equal(all.completeness.total, 3);
    assert.match(all.summary, /^3 symbols match/);
  });

  it('symbol_at maps a line inside a method body to the method and its containers', async function () {
    const r = await call(c.client, 'symbol_at', { path: 'src/Services/ServiceProvider.cs', line: 11 });
    assert.equal(r.items[0].name, 'Run');
    assert.deepEqual(r.containers.map((x: { name: string }) => x.name), ['Acme.Services', 'Consumer']);
    const none = await call(c.client, 'symbol_at', { path: 'src/csharp.cs', line: 2 });
    assert.equal(none.items.length, 0);
    assert.match(await callError(c.client, 'symbol_at', { path: 'src/csharp.cs', line: 9999 }), /Error \[LINE_OUT_OF_RANGE\]/);
  });

  it('inspect_syntax_tree shows the node at a position with field names and a query skeleton', async function () {
    const r = await call(c.client, 'inspect_syntax_tree', { path: 'src/Services/ServiceProvider.cs', line: 11, column: 20, maxAncestors: 4 });
    assert.equal(r.node.type, 'identifier');
    assert.equal(r.node.text, 'GetRequiredService');
    assert.ok(r.ancestors.some((a: { type: string }) => a.type === 'invocation_expression'));
    assert.match(r.queryHint, /^\(identifier/);
  });

  it('search_structural returns rows grouped by the primary capture; a bad query gets the parser message', async function () {
    const query = '(invocation_expression function: (member_access_expression name: (_) @name) (#match? @name "^GetRequiredService")) @match';
    const r = await call(c.client, 'search_structural', { query, language: 'csharp' });
    assert.equal(r.items.length, 1);
    assert.equal(r.items[0].path, 'src/Services/ServiceProvider.cs');
    assert.equal(r.items[0].line, 11);
    assert.equal(r.items[0].captures[0].name, 'name');
    const many = await call(c.client, 'search_structural', { query: '(method_declaration name: (identifier) @name) @match', language: 'csharp', limit: 5 });
    assert.equal(many.items.length, 5);
    assert.equal(many.completeness.truncated, true);
    assert.ok(many.nextCursor);
    const calls = await call(c.client, 'search_structural', { query: '@calls:GetRequiredService', language: 'csharp' });
    assert.deepEqual(calls.items.map((i: { path: string; line: number }) => `${i.path}:${i.line}`), ['src/Services/ServiceProvider.cs:11']);
    assert.ok(calls.filesSearched < calls.candidateFiles, 'files without the name are skipped unparsed');
    assert.match(await callError(c.client, 'search_structural', { query: '(method_declaration nme: (identifier) @n)', language: 'csharp' }), /Error \[INVALID_QUERY\]/);
    assert.match(await callError(c.client, 'search_structural', { query: '(x) @x', language: 'cobol' }), /Error \[UNSUPPORTED_LANGUAGE\].*csharp/);
  });

  it('bad input: unsupported language, binary file, directory, path outside the workspace', async function () {
    assert.match(await callError(c.client, 'outline', { path: 'docs/readme.txt' }), /Error \[UNSUPPORTED_LANGUAGE\].*csharp.*typescript/);
    assert.match(await callError(c.client, 'outline', { path: 'assets/blob.cs' }), /Error \[BINARY_FILE\]/);
    assert.match(await callError(c.client, 'outline', { path: 'src' }), /Error \[NOT_A_FILE\]/);
    assert.match(await callError(c.client, 'outline', { path: '../outside.cs' }), /Error \[PATH_OUTSIDE_ROOT\]/);
  });
});
