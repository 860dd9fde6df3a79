/**
 * Takes the engine lock on argv[2], prints one JSON line ({kind, pid, recoveredFrom}), holds it
 * for argv[3] ms (publishing a fake endpoint), or until the file argv[4] exists when given, then
 * releases it and exits.
 */
import * as fs from 'node:fs';
import { acquireEngineLock } from '../../../server/src/core/lock';

const [root = '', holdMs = '500', releaseFile] = process.argv.slice(2);
const r = acquireEngineLock(root);
if (r.kind === 'acquired') {
  r.lock.publish({ port: 40000 + (process.pid % 1000), token: 'x'.repeat(43), url: `http://127.0.0.1:${40000 + (process.pid % 1000)}/mcp`, startedAt: new Date().toISOString() });
  process.stdout.write(JSON.stringify({ kind: 'acquired', pid: process.pid, recoveredFrom: r.lock.recoveredFrom ?? null }) + '\n');
  const done = (): void => {
    r.lock.release();
    process.exit(0);
  };
  setTimeout(done, Number(holdMs));
  if (releaseFile) setInterval(() => fs.existsSync(releaseFile) && done(), 50);
} else {
  process.stdout.write(JSON.stringify({ kind: 'held', pid: process.pid, owner: r.owner.pid, serverPid: r.server?.pid ?? null }) + '\n');
}
