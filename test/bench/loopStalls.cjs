/**
 * Event-loop stall trace for a process under the bench (preload: node --require this-file):
 * every stall of the event loop longer than SEXTANT_STALL_MS (default 50) is appended to
 * SEXTANT_STALL_TRACE as "<end µs, monotonic> <stall ms>", the clock of V8's CPU profiles, so
 * scripts/loop-stalls.mjs can say what ran during each stall (run beside --cpu-prof).
 */
'use strict';
const fs = require('node:fs');
const file = process.env.SEXTANT_STALL_TRACE;
if (file) {
  const min = Number(process.env.SEXTANT_STALL_MS || 50);
  const every = 10;
  let last = process.hrtime.bigint();
  const lines = [];
  const flush = () => {
    if (lines.length) fs.appendFileSync(file, lines.splice(0).join(''));
  };
  const t = setInterval(() => {
    const now = process.hrtime.bigint();
    const stall = Number(now - last) / 1e6 - every;
    last = now;
    if (stall > min) lines.push(`${now / 1000n} ${stall.toFixed(1)}\n`);
    if (lines.length > 50) flush();
  }, every);
  t.unref();
  process.on('exit', flush);
  const f = setInterval(flush, 2000);
  f.unref();
}
