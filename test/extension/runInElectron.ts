/**
 * Runs the extension test suite with @vscode/test-electron, which downloads a VS Code build.
 * Not used on machines without that download (CI here uses runInCodeServer.ts); kept so the suite
 * stays in the standard shape and runs on a developer's desktop:
 *
 *   npm run build && node scripts/build-extension-tests.mjs && npx tsx test/extension/runInElectron.ts
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runTests } from '@vscode/test-electron';

async function main(): Promise<void> {
  const root = path.resolve(__dirname, '../..');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-electron-'));
  const workspace = path.join(tmp, 'ts-app');
  fs.cpSync(path.join(root, 'test/extension/fixtures/ts-app'), workspace, { recursive: true });
  try {
    await runTests({
      extensionDevelopmentPath: root,
      extensionTestsPath: path.join(root, 'out/extension-tests/suite/index.js'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', `--user-data-dir=${path.join(tmp, 'user-data')}`],
      extensionTestsEnv: { SEXTANT_EXT_TEST_LOG: path.join(tmp, 'suite.log') },
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
