import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseText } from '../../../server/src/syntax/parseFile';
import { matchSnapshot, renderOutline } from './snapshot';

const FIXTURES = path.resolve(__dirname, '../../fixtures/syntax');
const SNAPSHOTS = path.resolve(__dirname, 'snapshots');

describe('syntax: outline snapshots', () => {
  const fixtures = fs.readdirSync(FIXTURES).filter((f) => !f.startsWith('.')).sort();

  it('has a fixture for every first-class and shipped language', () => {
    const exts = new Set(fixtures.map((f) => path.extname(f)));
    for (const e of ['.cs', '.ts', '.tsx', '.js', '.py', '.go', '.java', '.rs']) {
      if (!exts.has(e)) throw new Error(`no fixture with extension ${e}`);
    }
  });

  for (const f of fixtures) {
    it(`outline of ${f} matches its snapshot`, async () => {
      const text = fs.readFileSync(path.join(FIXTURES, f), 'utf8');
      const result = await parseText(f, text);
      if (result.error) throw new Error(result.error.message);
      matchSnapshot(path.join(SNAPSHOTS, `${f}.outline.txt`), renderOutline(text, result), 'test/unit/syntax/outline.test.ts');
    });
  }
});
