/**
 * Times untrusted patterns on adversarial subjects and prints one JSON line. A child process: under
 * a regression (a backtracking engine) these subjects take longer than the universe, and the test
 * must fail on its timeout rather than hang.
 *   node --import tsx regexHarness.ts compiled   — through compileBoundedRegex
 *   node --import tsx regexHarness.ts global     — plain RegExp after enableBoundedRegex()
 */
import { compileBoundedRegex, enableBoundedRegex } from '../../../server/src/core/regex';

export const CATASTROPHIC: Array<[string, string]> = [
  ['(a+)+$', 'a'.repeat(50_000) + '!'],
  ['(a|aa)+$', 'a'.repeat(50_000) + '!'],
  ['^(\\w+\\s?)*$', 'word '.repeat(10_000) + '!'],
  ['(x+x+)+y', 'x'.repeat(50_000)],
  ['(.*a){12}', 'a'.repeat(20) + 'b'.repeat(20_000)],
];

const mode = process.argv[2] ?? 'compiled';
const out: Array<{ src: string; accepted: boolean; ms: number }> = [];
if (mode === 'global') enableBoundedRegex();
for (const [src, subject] of CATASTROPHIC) {
  process.stderr.write(`RUN ${src}\n`);
  let re: RegExp | undefined;
  if (mode === 'global') re = new RegExp(src);
  else {
    const c = compileBoundedRegex(src);
    re = c.ok ? c.re : undefined;
  }
  const t0 = Date.now();
  re?.test(subject);
  out.push({ src, accepted: re !== undefined, ms: Date.now() - t0 });
}
process.stdout.write(JSON.stringify(out) + '\n');
