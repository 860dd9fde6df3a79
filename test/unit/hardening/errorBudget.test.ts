import * as assert from 'node:assert/strict';
import { ToolError } from '../../../server/src/core/errors';
import { boundedErrorText } from '../../../server/src/mcp/server';

describe('error answers obey the byte budget', () => {
  it('shortens an error that echoes a long argument, keeping the code, both ends of the message, and the hint', () => {
    const e = new ToolError('PROJECT_NOT_FOUND', `No project '${'y'.repeat(4000)}'`, 'pass a project file path (e.g. src/App/App.csproj) or a project name');
    const t = boundedErrorText(e, 512);
    assert.ok(Buffer.byteLength(t) <= 512, `${Buffer.byteLength(t)} bytes`);
    assert.match(t, /^Error \[PROJECT_NOT_FOUND\]: No project 'y+…y+'\. Hint: pass a project file path \(e\.g\. src\/App\/App\.csproj\) or a project name$/);
  });

  it('never splits a multi-byte character and leaves short errors alone', () => {
    const e = new ToolError('INVALID_PATH', `Bad '${'é💥'.repeat(2000)}'`, 'pass a workspace-relative path');
    const t = boundedErrorText(e, 600);
    assert.ok(Buffer.byteLength(t) <= 600);
    assert.ok(!t.includes('\uFFFD'), 'no replacement characters');
    const short = new ToolError('FILE_NOT_FOUND', "No file at 'a.cs'", 'use find_file');
    assert.equal(boundedErrorText(short, 512), short.render());
  });
});
