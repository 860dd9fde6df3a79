import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { languageOfPath } from '../../../server/src/semantic/language';
import { csharpLsSpec, findExecutable, parseServerOverride, splitCommandLine } from '../../../server/src/semantic/lsp/serverSpec';

describe('language server configuration', () => {
  it('parses a server given on the command line with its languages and extensions', () => {
    const s = parseServerOverride('python:.py,.pyi=pyright-langserver --stdio');
    assert.equal(s.id, 'python');
    assert.equal(s.name, 'pyright-langserver');
    assert.deepEqual(s.languages, ['python']);
    assert.deepEqual(s.extensions, { '.py': 'python', '.pyi': 'python' });
    assert.equal(s.command, 'pyright-langserver');
    assert.deepEqual(s.args, ['--stdio']);
    assert.equal(s.readiness, 'initialize');
  });

  it('a configured csharp server waits for load progress like csharp-ls', () => {
    const s = parseServerOverride('csharp="/opt/my tools/csharp-ls" --features metadata-uris');
    assert.equal(s.command, '/opt/my tools/csharp-ls');
    assert.deepEqual(s.args, ['--features', 'metadata-uris']);
    assert.equal(s.readiness, 'progress');
  });

  it('refuses malformed server specs with a message that shows the expected form', () => {
    assert.throws(() => parseServerOverride('gopls'), /expected <language>/);
    assert.throws(() => parseServerOverride('go='), /no command/);
    assert.throws(() => parseServerOverride('go:go=gopls'), /leading dot/);
    assert.throws(() => parseServerOverride('1go=gopls'), /bad language/);
  });

  it('splits command lines with quotes', () => {
    assert.deepEqual(splitCommandLine(`a "b c" 'd e' f""`), ['a', 'b c', 'd e', 'f']);
    assert.deepEqual(splitCommandLine(`x ""`), ['x', '']);
    assert.throws(() => splitCommandLine('a "b'), /unterminated/);
  });

  it('csharp-ls gets the chosen solution and a warm-up request that triggers its lazy load', () => {
    const s = csharpLsSpec({ solution: '/w/All.sln', extraArgs: ['--features', 'metadata-uris'] });
    assert.deepEqual(s.args, ['--solution', '/w/All.sln', '--features', 'metadata-uris']);
    assert.equal(s.warmup?.method, 'workspace/symbol');
  });

  it("csharp-ls is looked for first in the checkout's .tools/csharp-ls (npm install puts it there), then PATH", () => {
    const s = csharpLsSpec();
    assert.deepEqual(s.searchDirs, [path.resolve(__dirname, '../../../.tools/csharp-ls')]);
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-exe-'));
    try {
      for (const d of ['tools', 'bin']) {
        fs.mkdirSync(path.join(tmp, d));
        fs.writeFileSync(path.join(tmp, d, 'fake-ls'), '#!/bin/sh\n', { mode: 0o755 });
      }
      const env = { PATH: path.join(tmp, 'bin'), DOTNET_TOOLS_DIR: path.join(tmp, 'none') };
      assert.equal(findExecutable('fake-ls', env, [path.join(tmp, 'tools')]), path.join(tmp, 'tools', 'fake-ls'));
      assert.equal(findExecutable('fake-ls', env), path.join(tmp, 'bin', 'fake-ls'));
      assert.equal(findExecutable('fake-ls', { PATH: '', DOTNET_TOOLS_DIR: path.join(tmp, 'none') }), undefined);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });

  it('maps file extensions to LSP language ids, with configured extras', () => {
    assert.equal(languageOfPath('src/A.cs'), 'csharp');
    assert.equal(languageOfPath('web/app.tsx'), 'typescriptreact');
    assert.equal(languageOfPath('lib/x.mjs'), 'javascript');
    assert.equal(languageOfPath('README'), undefined);
    assert.equal(languageOfPath('a.dir/README'), undefined);
    assert.equal(languageOfPath('tool.py', { '.py': 'python' }), 'python');
  });
});
