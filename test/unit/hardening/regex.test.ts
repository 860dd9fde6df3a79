import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { compileBoundedRegex, enableBoundedRegex } from '../../../server/src/core/regex';

/** Runs regexHarness.ts in a child; a regression that backtracks fails here on the timeout instead of hanging. */
function timed(mode: 'compiled' | 'global', timeoutMs: number): Promise<Array<{ src: string; accepted: boolean; ms: number }>> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'regexHarness.ts'), mode], { cwd: path.resolve(__dirname, '../../..'), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let last = '';
    c.stdout.on('data', (d: Buffer) => (out += d));
    c.stderr.on('data', (d: Buffer) => (last = d.toString().trim().split('\n').pop() ?? last));
    const t = setTimeout(() => {
      c.kill('SIGKILL');
      reject(new Error(`still matching after ${timeoutMs} ms (${last}): the regex engine backtracks`));
    }, timeoutMs);
    c.on('exit', () => {
      clearTimeout(t);
      try {
        resolve(JSON.parse(out));
      } catch {
        reject(new Error(`harness failed: ${last}`));
      }
    });
  });
}

describe('bounded regex: untrusted patterns cannot hang the engine', () => {
  it('runs classic catastrophic patterns in linear time (50,000-character subjects)', async function () {
    this.timeout(60_000);
    assert.equal(enableBoundedRegex(), true, 'this V8 has the linear-time engine');
    const r = await timed('compiled', 30_000);
    for (const x of r) {
      assert.ok(x.accepted, `${x.src} accepted`);
      assert.ok(x.ms < 1000, `${x.src} took ${x.ms} ms`);
    }
  });

  it('refuses what needs backtracking, with the reason, and invalid or over-long patterns', () => {
    for (const src of ['(a+)+\\1$', '(?<n>a+)+\\k<n>', '(?=a)a', '(?<!x)a', 'a{5000}']) {
      const r = compileBoundedRegex(src);
      assert.equal(r.ok, false, src);
      if (!r.ok) assert.match(r.reason, /linear time/);
    }
    const bad = compileBoundedRegex('(unclosed');
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.match(bad.reason, /Invalid regular expression/);
    assert.equal(compileBoundedRegex('x'.repeat(501)).ok, false);
  });

  it('keeps ordinary symbol and path patterns working', () => {
    const cases: Array<[string, string, boolean]> = [
      ['^Get.*Async$', 'GetInvoiceAsync', true],
      ['Controller$', 'InvoicesController', true],
      ['^src/.*\\.cs$', 'src/Billing/Api/InvoicesController.cs', true],
      ['I[A-Z]\\w+Service', 'IInvoiceService', true],
      ['^Get.*Async$', 'SetInvoice', false],
    ];
    for (const [src, subject, want] of cases) {
      const r = compileBoundedRegex(src);
      assert.ok(r.ok, src);
      if (r.ok) assert.equal(r.re.test(subject), want, `${src} on ${subject}`);
    }
  });

  it('bounds every other regex in the engine process too (fallback after excessive backtracking)', async function () {
    this.timeout(60_000);
    const r = await timed('global', 30_000);
    for (const x of r) assert.ok(x.ms < 1000, `${x.src} (no l flag, e.g. a tree-sitter #match?) took ${x.ms} ms`);
  });
});
