/**
 * The extension test entry (`extensionTestsPath`): VS Code's extension host loads this module
 * and calls `run()`. It runs every bundled `*.test.js` beside it with mocha and resolves only when
 * all pass. The same module serves @vscode/test-electron (runInElectron.ts) and code-server
 * (runInCodeServer.ts).
 *
 * Output goes to the extension host's stdout and, when SEXTANT_EXT_TEST_LOG is set (the runners
 * set it), is appended line by line to that file so the runner can print it as it arrives.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';
import { FileReporter } from './FileReporter';

export async function run(): Promise<void> {
  const mocha = new Mocha({
    ui: 'bdd',
    timeout: 120_000,
    color: false,
    reporter: FileReporter,
    ...(process.env.SEXTANT_EXT_TEST_GREP ? { grep: process.env.SEXTANT_EXT_TEST_GREP } : {}),
  });
  // Other runs (runInCodeServer --suite untrusted|csharp) have their own files: *.<suite>-test.js.
  const suite = process.env.SEXTANT_EXT_TEST_SUITE ?? 'main';
  const suffix = suite === 'main' ? '.test.js' : `.${suite}-test.js`;
  const files = fs.readdirSync(__dirname).filter((f) => f.endsWith(suffix)).sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} extension test(s) failed`)) : resolve()));
  });
}
