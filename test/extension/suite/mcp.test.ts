import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import { COMMANDS } from '../../../src/ids';
import { at, callTool, readyEngine, screenshot, sextant, toolNamed, waitFor } from './helpers';

interface Row {
  path: string;
  line: number;
  column: number;
  name?: string;
}
const where = (r: Row): string => `${r.path}:${r.line}:${r.column}`;

describe('MCP for agent mode', () => {
  it('the provider gives VS Code an HTTP server definition for the engine endpoint, with the bearer token', async () => {
    const api = await sextant();
    const engine = await readyEngine();
    const defs = await waitFor('an MCP server definition', () => {
      const d = api.mcpDefinitions();
      return d.length > 0 ? d : undefined;
    });
    assert.equal(defs.length, 1);
    const def = defs[0]!;
    assert.equal(def.label, 'Sextant');
    assert.match(def.uri.toString(), /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    assert.equal(def.uri.toString(), engine.endpoint?.url);
    assert.match(def.headers.Authorization ?? '', /^Bearer [A-Za-z0-9_-]{43,}$/);
    // The endpoint refuses a request without the token.
    const res = await fetch(def.uri.toString(), { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
    assert.equal(res.status, 401);
  });

  it("VS Code's own MCP client starts the server and lists Sextant's tools", async () => {
    await readyEngine();
    await vscode.commands.executeCommand('workbench.mcp.startServer', '*', { promptType: 'never', autoTrustChanges: true, waitForLiveTools: true });
    const names = ['repo_overview', 'find_file', 'search_text', 'source_context'];
    await waitFor(`tools ${names.join(', ')} in vscode.lm.tools`, () => names.every((n) => toolNamed(n)), 30_000);
    const t = toolNamed('search_text')!;
    assert.ok(t.description.length > 20, t.description);
  });

  it('a tool call from the editor appears in Agent activity with the locations it returned', async () => {
    const api = await sextant();
    await readyEngine();
    const tool = await waitFor('the search_text tool', () => toolNamed('search_text'), 30_000);
    const result = await vscode.lm.invokeTool(tool.name, { input: { query: 'totalArea' }, toolInvocationToken: undefined });
    const text = result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
    assert.match(text, /totalArea/);
    const row = await waitFor('the call in the Agent activity view', () => api.activity.calls().find((c) => c.tool === 'search_text' && c.args.query === 'totalArea'));
    assert.match(row.client, /^http/);
    assert.ok(row.bytes > 0 && row.durationMs >= 0);
    const places = row.locations.map((l) => `${l.path}:${l.line}`);
    assert.ok(places.includes('src/shapes.ts:12'), places.join(', '));
    assert.ok(places.includes('src/main.ts:5'), places.join(', '));
  });

  it('definition from agent mode is answered by the editor bridge: precise, the exact declaration', async () => {
    await readyEngine();
    const a = await callTool('definition', { target: at('src/main.ts', 'totalArea(shapes)') });
    assert.equal(a.mode, 'precise', String(a.summary));
    assert.equal(a.provider, 'editor');
    assert.deepEqual((a.items as Row[]).map(where), [where(at('src/shapes.ts', 'totalArea'))]);
  });

  it('references from agent mode: precise, the declaration, the import and both constructor calls', async () => {
    await readyEngine();
    const a = await callTool('references', { target: at('src/shapes.ts', 'Square'), group_by: 'none' });
    assert.equal(a.mode, 'precise', String(a.summary));
    assert.equal(a.provider, 'editor');
    const expected = [at('src/shapes.ts', 'Square'), at('src/main.ts', 'Square'), at('src/main.ts', 'Square', 1), at('src/main.ts', 'Square', 2)].map(where).sort();
    assert.deepEqual((a.items as Row[]).map(where).sort(), expected);
  });

  it('callers from agent mode: precise, report calls totalArea at its exact call site', async () => {
    await readyEngine();
    const a = await callTool('callers', { target: at('src/shapes.ts', 'totalArea') });
    assert.equal(a.mode, 'precise', String(a.summary));
    assert.equal(a.provider, 'editor');
    assert.equal(a.availability, 'available');
    const edges = a.items as { caller: Row; callee: Row; sites: { line: number; column: number }[] }[];
    assert.deepEqual(
      edges.map((e) => ({ caller: `${e.caller.name}@${where(e.caller)}`, callee: e.callee.name, sites: e.sites.map((x) => `${x.line}:${x.column}`) })),
      [{ caller: `report@${where(at('src/main.ts', 'report'))}`, callee: 'totalArea', sites: [`${at('src/main.ts', 'totalArea(shapes)').line}:${at('src/main.ts', 'totalArea(shapes)').column}`] }],
    );
  });

  it('the Sextant views show projects, index status and the agent calls (screenshot)', async () => {
    const api = await sextant();
    await readyEngine();
    await vscode.commands.executeCommand('workbench.view.extension.sextant');
    for (const view of ['sextant.projects', 'sextant.index', 'sextant.activity']) await vscode.commands.executeCommand(`${view}.focus`);
    assert.ok(api.activity.calls().length >= 4, `${api.activity.calls().length} calls in the view`);
    assert.ok(api.projects.projectCount() >= 2);
    await new Promise((r) => setTimeout(r, 800));
    const shot = await screenshot('sextant-views');
    if (shot) assert.ok(shot.distinctColors > 20, `the screenshot looks blank: ${shot.distinctColors} colours`);
  });

  it('Copy MCP Config gives an external agent a working attach command for the same engine', async () => {
    const engine = await readyEngine();
    const r = (await vscode.commands.executeCommand(COMMANDS.copyMcpConfig, 'claude-code')) as { kind: string; text: string };
    const m = /^claude mcp add --transport http sextant (\S+) --header 'Authorization: Bearer ([\w-]+)'$/.exec(r.text);
    assert.ok(m, r.text);
    assert.equal(m[1], engine.endpoint?.url);
    // What the agent would do with it: initialize an MCP session on the shared endpoint.
    const res = await fetch(m[1]!, {
      method: 'POST',
      headers: { authorization: `Bearer ${m[2]}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'external-agent', version: '1' } } }),
    });
    assert.equal(res.status, 200);
    assert.match(await res.text(), /"serverInfo":\{"name":"sextant"/);
  });

  it('a terminal agent running sextant mcp over stdio attaches to the same engine (one index, one warm service)', async function () {
    this.timeout(60_000);
    const api = await sextant();
    await readyEngine();
    const r = (await vscode.commands.executeCommand(COMMANDS.copyMcpConfig, 'stdio')) as { text: string };
    const argv = r.text.split(' -- ')[1]!.split(' ');
    assert.deepEqual(argv.slice(2, 4), ['mcp', '--workspace-root']);
    const child = spawn(process.execPath, argv.slice(1), { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
    try {
      const lines = readline.createInterface({ input: child.stdout! });
      const answers = new Map<number, { result?: { structuredContent?: { items?: { path: string }[] } }; error?: unknown }>();
      lines.on('line', (l) => {
        const m = JSON.parse(l) as { id?: number };
        if (typeof m.id === 'number') answers.set(m.id, m as never);
      });
      const send = (m: object): void => void child.stdin!.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
      send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'terminal-agent', version: '1' } } });
      await waitFor('the initialize answer', () => answers.get(1), 30_000);
      send({ method: 'notifications/initialized' });
      send({ id: 2, method: 'tools/call', params: { name: 'search_text', arguments: { query: 'reportTwice' } } });
      const a = await waitFor('the tools/call answer', () => answers.get(2), 30_000);
      assert.equal(a.error, undefined, JSON.stringify(a.error));
      assert.deepEqual(a.result?.structuredContent?.items?.map((i) => i.path), ['src/main.ts']);
      const row = await waitFor('the terminal call in Agent activity', () => api.activity.calls().find((c) => c.client === 'http:terminal-agent' && c.tool === 'search_text'));
      assert.deepEqual(row.args, { query: 'reportTwice' });
    } finally {
      child.stdin?.end();
      child.kill();
    }
  });
});
