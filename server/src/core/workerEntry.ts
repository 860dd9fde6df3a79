/**
 * How a worker thread script beside a module is started: from sources (tests, tsx) the `.ts` file
 * through tsx's require hook, from the bundle (dist/) the `.js` file; undefined when neither can run,
 * and the caller works in its own thread.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** `dir`/`file` of the calling module (its __dirname/__filename), `name` of the worker script without extension. */
export function workerEntry(dir: string, file: string, name: string): { file: string; execArgv: string[] } | undefined {
  if (file.endsWith('.ts')) {
    const script = path.join(dir, `${name}.ts`);
    let hook: string | undefined;
    try {
      hook = require.resolve('tsx/cjs');
    } catch {
      hook = undefined;
    }
    return hook && fs.existsSync(script) ? { file: script, execArgv: ['--require', hook] } : undefined;
  }
  const script = path.join(dir, `${name}.js`);
  return fs.existsSync(script) ? { file: script, execArgv: [] } : undefined;
}
