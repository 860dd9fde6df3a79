import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { sextant, waitFor } from './helpers';

describe('restricted mode (untrusted workspace)', () => {
  it('starts no engine, publishes no MCP server, and says why in the status bar', async () => {
    assert.equal(vscode.workspace.isTrusted, false, 'the runner should open the folder untrusted');
    const api = await sextant();
    await waitFor('the restricted status', () => api.statusBar.text === '$(shield) Sextant: restricted', 15_000);
    // Give a wrongly started engine time to show up before checking that none did.
    await new Promise((r) => setTimeout(r, 2_000));
    assert.deepEqual(api.engines(), []);
    assert.deepEqual(api.mcpDefinitions(), []);
    assert.ok(api.index.describe().some((l) => l.startsWith('No engine')), api.index.describe().join('\n'));
  });
});
