/**
 * A small workspace written from a file map and served over real stdio, indexed (symbols included)
 * before the tests of the calling `describe` run, and removed after them.
 */
import { call, connectStdio, waitFor, type Connected } from './mcpClient';
import { removeDir, tempDir, writeTree } from './workspace';

export function servedTree(name: string, files: Record<string, string>): { readonly c: Connected; readonly ws: string } {
  let ws = '';
  let idx = '';
  let c: Connected | undefined;
  before(async function () {
    ws = tempDir(name);
    idx = tempDir(`${name}-idx`);
    writeTree(ws, files);
    c = await connectStdio(ws, idx);
    await waitFor(async () => {
      const o = await call(c!.client, 'repo_overview', {});
      return o.index.status === 'fresh' && !o.index.symbolsPending;
    }, 30_000);
  });
  after(async function () {
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });
  return {
    get c(): Connected {
      if (!c) throw new Error('servedTree: the workspace is not served yet');
      return c;
    },
    get ws(): string {
      return ws;
    },
  };
}
