import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withToolTable } from '../../../server/src/mcp/toolTable';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';

describe('README tool table', function () {
  it('lists exactly the tools the server registers (run npm run readme:tools after changing a tool)', function () {
    const readme = fs.readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
    assert.equal(readme, withToolTable(readme, ALL_TOOLS), 'README.md is stale: run `npm run readme:tools`');
    for (const t of ALL_TOOLS) assert.ok(readme.includes(`| \`${t.name}\` |`), t.name);
  });
});
