import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ParsePool, workerEntry } from '../../../server/src/syntax/parsePool';
import type { ParseRequest } from '../../../server/src/syntax/types';

const FIXTURES = path.resolve(__dirname, '../../fixtures/syntax');

describe('syntax: parse worker pool', function () {
  this.timeout(60_000);
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-parsepool-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('runs TypeScript workers from source through the tsx hook', () => {
    const entry = workerEntry();
    assert.ok(entry, 'a worker entry is available from source');
    assert.ok(entry.file.endsWith('parseWorker.ts'));
    assert.ok(entry.execArgv.includes('--require'));
  });

  it('two workers give the same outlines as in-thread parsing, in request order', async () => {
    const reqs: ParseRequest[] = [];
    for (let i = 0; i < 6; i++) {
      for (const f of fs.readdirSync(FIXTURES)) reqs.push({ path: `copy${i}/${f}`, language: '', abs: path.join(FIXTURES, f) });
    }
    const pool = new ParsePool({ workers: 2, batchFiles: 5 });
    const inThread = new ParsePool({ workers: 0 });
    try {
      assert.equal(pool.workerCount, 2);
      const [a, b] = await Promise.all([pool.parseFiles(reqs), inThread.parseFiles(reqs)]);
      assert.deepEqual(a.map((r) => r.path), reqs.map((r) => r.path));
      const strip = (r: (typeof a)[number]) => ({ ...r, parseMs: 0 });
      assert.deepEqual(a.map(strip), b.map(strip));
      assert.ok(a.every((r) => !r.error && r.symbols.length > 0));
    } finally {
      await pool.dispose();
      await inThread.dispose();
    }
  });

  it('reports unreadable, binary and unsupported files per file instead of failing the batch', async () => {
    const bin = path.join(tmp, 'blob.cs');
    fs.writeFileSync(bin, Buffer.from([0x63, 0x6c, 0x00, 0x01, 0x02]));
    const pool = new ParsePool({ workers: 1 });
    try {
      const r = await pool.parseFiles([
        { path: 'missing.cs', language: '', abs: path.join(tmp, 'missing.cs') },
        { path: 'blob.cs', language: '', abs: bin },
        { path: 'a.txt', language: '', text: 'x' },
        { path: 'ok.cs', language: 'csharp', text: 'class Ok {}' },
        { path: tmp, language: 'csharp', abs: tmp },
      ]);
      assert.deepEqual(r.map((x) => x.error?.code), ['FILE_NOT_FOUND', 'BINARY_FILE', 'UNSUPPORTED_LANGUAGE', undefined, 'NOT_A_FILE']);
      assert.equal(r[3]?.symbols[0]?.name, 'Ok');
    } finally {
      await pool.dispose();
    }
  });

  it('leaves no worker running after dispose', async () => {
    const pool = new ParsePool({ workers: 2 });
    await pool.parseFiles([{ path: 'a.cs', language: 'csharp', text: 'class A {}' }]);
    await pool.dispose();
    assert.equal((pool as unknown as { slots: unknown[] }).slots.length, 0);
    await assert.rejects(pool.parseFiles([{ path: 'a.cs', language: 'csharp', text: '' }]), /disposed/);
  });
});
