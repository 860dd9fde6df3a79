#!/usr/bin/env node
// What ran on the event loop during each stall: joins a V8 CPU profile (--cpu-prof) with a stall
// trace (test/bench/loopStalls.cjs) of the same process, both on the monotonic clock.
//   node scripts/loop-stalls.mjs <file.cpuprofile> <stalls.txt> [top=15]
// Prints the longest stalls with the functions on the stack for most of each, and a summary of
// the functions that held the loop longest over all stalls. When the trace has the thread's CPU
// time per stall (third column), stalls are ranked by it: on a loaded machine most of a stall's
// wall time is waiting for a core, and the CPU time is what it would hold on a quiet one.
import * as fs from 'node:fs';

const [profFile, traceFile, topArg = '15'] = process.argv.slice(2);
if (!profFile || !traceFile) {
  console.error('usage: loop-stalls.mjs <file.cpuprofile> <stalls.txt> [top]');
  process.exit(2);
}
const prof = JSON.parse(fs.readFileSync(profFile, 'utf8'));
const nodes = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const times = [];
let t = prof.startTime;
for (const d of prof.timeDeltas) times.push((t += d));
const label = (id) => {
  const f = nodes.get(id).callFrame;
  return `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}:${f.lineNumber + 1}`;
};
const skip = (s) => s.startsWith('(root)') || s.includes('node:internal') || s.startsWith('(anonymous) :') || s.startsWith('processTicksAndRejections') || s.startsWith('runMicrotasks');
const stalls = fs.readFileSync(traceFile, 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ').map(Number)).map(([end, ms, cpu]) => ({ end, ms, cpu, start: end - ms * 1000 }));
const withCpu = stalls.some((s) => s.cpu !== undefined);
const weight = (s) => (withCpu ? (s.cpu ?? 0) : s.ms);
const overall = new Map();
const report = [];
for (const s of stalls) {
  if (s.end < times[0] || s.start > times[times.length - 1]) continue;
  const count = new Map();
  let n = 0;
  for (let i = 0; i < times.length; i++) {
    if (times[i] < s.start || times[i] > s.end) continue;
    n++;
    const seen = new Set();
    for (let id = prof.samples[i]; id !== undefined; id = parent.get(id)) {
      const l = label(id);
      if (seen.has(l)) continue;
      seen.add(l);
      count.set(l, (count.get(l) ?? 0) + 1);
    }
  }
  if (!n) continue;
  const frames = [...count].filter(([l]) => !skip(l)).sort((a, b) => b[1] - a[1]);
  for (const [l, c] of frames) overall.set(l, (overall.get(l) ?? 0) + (c / n) * weight(s));
  report.push({ s, n, frames });
}
const top = Number(topArg);
console.log(`${stalls.length} stalls over ${((times[times.length - 1] - times[0]) / 1e6).toFixed(0)} s of profile; ${stalls.filter((s) => s.ms > 250).length} over 250 ms, ${stalls.filter((s) => s.ms > 1000).length} over 1 s${withCpu ? `; by the thread's CPU time: ${stalls.filter((s) => s.cpu > 50).length} over 50 ms, ${stalls.filter((s) => s.cpu > 250).length} over 250 ms` : ''}`);
for (const { s, n, frames } of report.sort((a, b) => weight(b.s) - weight(a.s)).slice(0, top)) {
  console.log(`--- ${s.ms.toFixed(0)} ms${s.cpu !== undefined ? ` (${s.cpu.toFixed(0)} ms CPU)` : ''} at +${((s.start - prof.startTime) / 1e6).toFixed(1)} s (${n} samples)`);
  for (const [l, c] of frames.slice(0, 12)) console.log(`   ${String(Math.round((100 * c) / n)).padStart(3)}% ${l}`);
}
console.log(`--- stall ${withCpu ? 'CPU ' : ''}time by function (ms, weighted by share of each stall)`);
for (const [l, ms] of [...overall].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${ms.toFixed(0).padStart(7)} ${l}`);
