import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { z } from 'zod';
import { TOOL_DEADLINE_GRACE_MS } from '../../../server/src/core/limits';
import { buildServer } from '../../../server/src/mcp/server';
import { defineTool } from '../../../server/src/mcp/tool';
import { Engine } from '../../../server/src/nav/engine';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

const never = defineTool({
  name: 'never_returns',
  title: 'Never returns',
  description: 'a handler that waits forever (a hung provider)',
  input: z.strictObject({}),
  item: z.object({}),
  paged: false,
  row: () => '',
  handle: () => new Promise(() => undefined),
});
const quick = defineTool({
  name: 'quick',
  title: 'Quick',
  description: 'answers at once',
  input: z.strictObject({}),
  item: z.object({ n: z.number() }),
  paged: false,
  row: (i: { n: number }) => String(i.n),
  handle: async () => ({ summary: 'one row', items: [{ n: 1 }] }),
});

/** Has its rows at the deadline and needs a moment more to hand them over (decorating, rendering). */
const late = defineTool({
  name: 'late',
  title: 'Late',
  description: 'answers 600 ms after its deadline',
  input: z.strictObject({}),
  item: z.object({ n: z.number() }),
  paged: false,
  row: (i: { n: number }) => String(i.n),
  handle: async (env) => {
    await new Promise((r) => setTimeout(r, env.deadlineAt + 600 - Date.now()));
    return { summary: 'two rows', items: [{ n: 1 }, { n: 2 }] };
  },
});

describe('the deadline on every tool', function () {
  this.timeout(30_000);
  let ws: string;
  let engine: Engine;
  before(async () => {
    ws = tempDir('deadline');
    writeTree(ws, { 'a.cs': 'class A {}' });
    engine = await Engine.open({ workspaceRoot: ws, indexRoot: '' });
    await engine.refresh();
  });
  after(async () => {
    await engine.close();
    removeDir(ws);
  });

  it('a handler that never finishes is answered DEADLINE_EXCEEDED on time, and the server keeps serving', async () => {
    // Waited for past the deadline and its grace (not answered STILL_WORKING first).
    const server = buildServer(engine, { tools: [never, quick], deadlineMs: 400, answerWithinMs: 400 + TOOL_DEADLINE_GRACE_MS + 5_000 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 't', version: '0' });
    await client.connect(b);
    const t0 = Date.now();
    const results = await Promise.all([1, 2, 3].map(() => client.callTool({ name: 'never_returns', arguments: {} })));
    const ms = Date.now() - t0;
    for (const r of results) {
      assert.equal(r.isError, true);
      assert.match((r.content as Array<{ text: string }>)[0]?.text ?? '', /^Error \[DEADLINE_EXCEEDED\]: never_returns did not finish within 400 ms\. Hint: /);
    }
    assert.ok(ms >= 400 && ms < 400 + TOOL_DEADLINE_GRACE_MS + 2000, `answered after ${ms} ms`);
    const ok = await client.callTool({ name: 'quick', arguments: {} });
    assert.equal(ok.isError, undefined);
    assert.equal((ok.structuredContent as { items: unknown[] }).items.length, 1);
    await client.close();
  });

  it('a handler that has its answer shortly after the deadline hands it over instead of DEADLINE_EXCEEDED', async () => {
    const server = buildServer(engine, { tools: [late], deadlineMs: 400 });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await server.connect(a);
    const client = new Client({ name: 't', version: '0' });
    await client.connect(b);
    const r = await client.callTool({ name: 'late', arguments: {} });
    assert.equal(r.isError, undefined, JSON.stringify(r.content));
    assert.deepEqual((r.structuredContent as { items: unknown[] }).items, [{ n: 1 }, { n: 2 }]);
    await client.close();
  });
});
