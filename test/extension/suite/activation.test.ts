import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { COMMANDS, EXTENSION_ID } from '../../../src/ids';
import { sextant } from './helpers';

describe('activation', () => {
  it('the Sextant extension activates in a TypeScript workspace and returns its API', async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
    const api = await sextant();
    assert.equal(ext.isActive, true);
    assert.equal(typeof api.engines, 'function');
    const expected = process.env.SEXTANT_EXT_TEST_EXPECT_INSTALLED;
    if (expected) assert.ok(ext.extensionPath.startsWith(expected), `expected the installed .vsix under ${expected}, got ${ext.extensionPath}`);
  });

  it('registers every contributed command', async () => {
    const all = new Set(await vscode.commands.getCommands(true));
    for (const id of Object.values(COMMANDS)) assert.ok(all.has(id), `command ${id} is not registered`);
  });
});
