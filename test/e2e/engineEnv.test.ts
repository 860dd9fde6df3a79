/**
 * The engine an e2e test starts over stdio (test/helpers/mcpClient.ts) gets the `SEXTANT_*`
 * settings the test set: the MCP SDK alone hands a child only HOME, PATH and a few more.
 */
import * as assert from 'node:assert/strict';
import { connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, smallWorkspace, tempDir, writeTree } from '../helpers/workspace';

describe('MCP over stdio: the engine sees the SEXTANT_* settings a test sets', function () {
  this.timeout(60_000);
  let ws: string;
  let idx: string;
  let c: Connected | undefined;
  const saved = process.env.SEXTANT_CSHARP_PROVIDER;

  before(() => {
    ws = tempDir('ws');
    idx = tempDir('idx');
    writeTree(ws, smallWorkspace());
  });

  after(async () => {
    if (saved === undefined) delete process.env.SEXTANT_CSHARP_PROVIDER;
    else process.env.SEXTANT_CSHARP_PROVIDER = saved;
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });

  it('an engine started after process.env.SEXTANT_CSHARP_PROVIDER=csharp-ls serves C# with csharp-ls', async () => {
    process.env.SEXTANT_CSHARP_PROVIDER = 'csharp-ls';
    c = await connectStdio(ws, idx);
    await waitFor(async () => /semantic providers: C#: csharp-ls \(csharp-ls selected/.test(c!.stderr()), 30_000).catch(() => {
      assert.fail(`the engine did not select csharp-ls; its stderr:\n${c!.stderr().slice(0, 2000)}`);
    });
  });
});
