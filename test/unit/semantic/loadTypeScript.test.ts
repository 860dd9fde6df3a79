/**
 * Where the engine's TypeScript host finds the compiler: its own install's `typescript`, else the
 * package SEXTANT_TYPESCRIPT_MODULE names (the extension passes VS Code's own, as the .vsix has no
 * node_modules), else none — then the host is off and editor answers say what was not searched.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadTypeScript } from '../../../server/src/semantic/tsprograms/tsPrograms';

describe('loadTypeScript', () => {
  const repoTs = path.resolve(__dirname, '../../../node_modules/typescript');
  let dir: string;
  let from: string;

  before(() => {
    // A module outside any node_modules tree, as the bundled engine is inside a .vsix install.
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-loadts-'));
    from = path.join(dir, 'cli.js');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads the install\'s own typescript first', () => {
    const own = loadTypeScript(__filename, { SEXTANT_TYPESCRIPT_MODULE: path.join(dir, 'nothing-here') });
    assert.equal(own?.version, JSON.parse(fs.readFileSync(path.join(repoTs, 'package.json'), 'utf8')).version);
  });

  it('without one, loads the package SEXTANT_TYPESCRIPT_MODULE names', () => {
    assert.equal(loadTypeScript(from, {}), undefined, 'no typescript resolvable from the temp folder');
    const ts = loadTypeScript(from, { SEXTANT_TYPESCRIPT_MODULE: repoTs });
    assert.equal(typeof ts?.createLanguageService, 'function');
    assert.match(ts!.getDefaultLibFilePath({}), /typescript[\\/]lib[\\/]lib\.d\.ts$/);
  });

  it('a SEXTANT_TYPESCRIPT_MODULE that is not the compiler is refused', () => {
    fs.mkdirSync(path.join(dir, 'fake'));
    fs.writeFileSync(path.join(dir, 'fake', 'package.json'), '{"name":"fake","main":"index.js"}');
    fs.writeFileSync(path.join(dir, 'fake', 'index.js'), 'module.exports = { version: "0" };');
    assert.equal(loadTypeScript(from, { SEXTANT_TYPESCRIPT_MODULE: path.join(dir, 'fake') }), undefined);
    assert.equal(loadTypeScript(from, { SEXTANT_TYPESCRIPT_MODULE: path.join(dir, 'missing') }), undefined);
  });
});
