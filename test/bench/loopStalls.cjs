/**
 * Event-loop stall trace for a process under the bench (preload: node --require this-file):
 * every stall of the event loop longer than SEXTANT_STALL_MS (default 50) is appended to
 * SEXTANT_STALL_TRACE as "<end µs, monotonic> <stall ms> <cpu ms>", the clock of V8's CPU profiles,
 * so scripts/loop-stalls.mjs can say what ran during each stall (run beside a CPU profile). The
 * third column is the CPU time the engine thread itself ran during the stall (Linux schedstat;
 * absent elsewhere): on a loaded machine a stall is mostly waiting for a core, and only its CPU
 * time says how long it would hold the thread on a quiet one.
 *
 * SEXTANT_CPU_PROF=<file>: a V8 CPU profile of the process is taken in-process (inspector) and
 * written at exit and on SIGTERM (the MCP SDK and the benches stop engines with SIGTERM, which
 * --cpu-prof does not survive: it writes only on a normal exit).
 */
'use strict';
const fs = require('node:fs');
const file = process.env.SEXTANT_STALL_TRACE;
if (file) {
  const min = Number(process.env.SEXTANT_STALL_MS || 50);
  const every = 10;
  let last = process.hrtime.bigint();
  // The main thread's run time in ns (first field of its schedstat), or undefined off Linux.
  const statFile = `/proc/self/task/${process.pid}/schedstat`;
  const cpuNs = () => {
    try {
      return Number(fs.readFileSync(statFile, 'utf8').split(' ')[0]);
    } catch {
      return undefined;
    }
  };
  let lastCpu = cpuNs();
  const lines = [];
  const flush = () => {
    if (lines.length) fs.appendFileSync(file, lines.splice(0).join(''));
  };
  const t = setInterval(() => {
    const now = process.hrtime.bigint();
    const stall = Number(now - last) / 1e6 - every;
    last = now;
    const cpu = lastCpu === undefined ? undefined : cpuNs();
    if (stall > min) lines.push(`${now / 1000n} ${stall.toFixed(1)}${cpu === undefined ? '' : ` ${((cpu - lastCpu) / 1e6).toFixed(1)}`}\n`);
    lastCpu = cpu;
    if (lines.length > 50) flush();
  }, every);
  t.unref();
  process.on('exit', flush);
  const f = setInterval(flush, 2000);
  f.unref();
}
const profFile = process.env.SEXTANT_CPU_PROF;
if (profFile) {
  const inspector = require('node:inspector');
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: Number(process.env.SEXTANT_CPU_PROF_INTERVAL_US || 1000) });
  session.post('Profiler.start');
  let written = false;
  // An in-process session answers synchronously, so this also works inside an 'exit' handler.
  const write = () => {
    if (written) return;
    written = true;
    session.post('Profiler.stop', (err, r) => {
      if (!err && r) fs.writeFileSync(profFile, JSON.stringify(r.profile));
    });
  };
  process.on('exit', write);
  process.once('SIGTERM', () => {
    write();
    process.exit(143);
  });
}
