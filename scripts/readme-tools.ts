// Regenerates the README tool table from the tool definitions: npm run readme:tools
import * as fs from 'node:fs';
import * as path from 'node:path';
import { withToolTable } from '../server/src/mcp/toolTable';
import { ALL_TOOLS } from '../server/src/mcp/tools';

const file = path.resolve(__dirname, '..', 'README.md');
fs.writeFileSync(file, withToolTable(fs.readFileSync(file, 'utf8'), ALL_TOOLS));
console.log(`README.md: ${ALL_TOOLS.length} tools`);
