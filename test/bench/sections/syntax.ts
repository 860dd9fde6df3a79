/**
 * The syntax layer on its own (in-process, no index): parse + outline throughput of every C# file
 * through the parse worker pool with two workers, and `outline` latency of large C# files from a
 * fresh parse (the live path, not the index): the files closest to 5,000 lines and the most
 * `#if`-heavy ones. CPU time is reported beside wall time with the load average: on a shared
 * 2-core machine the wall figures are only meaningful when the machine is quiet.
 */
import * as os from 'node:os';
import { measureLiveOutline, pickOutlineFiles } from '../syntax/liveOutline';
import { measureParseThroughput } from '../syntax/parseThroughput';
import type { BenchSection, Metric } from '../types';

const WORKERS = 2;

export const section: BenchSection = {
  name: 'syntax',
  order: 40,
  description: `parse + outline of every C# file (${WORKERS} parse workers, files read by the workers) and live outline latency of large C# files`,
  async run(ctx) {
    const root = ctx.target.root;
    ctx.progress('outline: picking large C# files…');
    const picked = pickOutlineFiles(root, ctx.options.quick ? 5 : 20);
    const repeat = ctx.options.quick ? 1 : 3;
    ctx.progress(`live outline of ${picked.near5000.length} + ${picked.conditional.length} files…`);
    const near = await measureLiveOutline(picked.near5000, repeat);
    const nearWhole = await measureLiveOutline(picked.near5000, repeat, { skeleton: false });
    const cond = await measureLiveOutline(picked.conditional, repeat);
    ctx.progress(`parse + outline of every C# file with ${WORKERS} workers…`);
    const t = await measureParseThroughput(root, WORKERS);
    const metrics: Metric[] = [];
    if (t.files > 0) {
      metrics.push(
        { name: 'C# files parsed + outlined', value: t.files, unit: 'files', detail: `${t.MiB} MiB, ${t.lines.toLocaleString('en-US')} lines, ${t.symbols.toLocaleString('en-US')} declarations` },
        { name: `parse + outline wall (${t.workers} workers)`, value: t.wallSeconds, unit: 's', target: { op: '<=', value: 30 }, detail: `load average ${t.loadAverage.before.join('/')} → ${t.loadAverage.after.join('/')}` },
        { name: 'parse + outline CPU (all threads)', value: t.cpuSeconds, unit: 's', detail: `${t.MiBPerCpuSecond} MiB per CPU second` },
        { name: 'files with syntax errors after re-parse', value: t.filesWithSyntaxErrors, unit: 'count', detail: `${t.reparsedFiles} re-parsed (#if variants / repairs), ${t.fileErrors} unreadable` },
      );
    }
    if (near.files > 0) {
      metrics.push(
        { name: 'live outline ~5,000-line files p95', value: near.wallP95, unit: 'ms', target: { op: '<=', value: 50 }, detail: `${near.files} files, ${near.lines} lines; p50 ${near.wallP50} ms; CPU p50/p95 ${near.cpuP50}/${near.cpuP95} ms` },
        { name: 'live outline ~5,000-line files p50', value: near.wallP50, unit: 'ms', detail: `whole-file parse for comparison: p50/p95 ${nearWhole.wallP50}/${nearWhole.wallP95} ms, CPU p95 ${nearWhole.cpuP95} ms` },
      );
    }
    if (cond.files > 0) {
      metrics.push({ name: 'live outline #if-heavy files p95', value: cond.wallP95, unit: 'ms', target: { op: '<=', value: 50 }, detail: `${cond.files} files, ${cond.lines} lines, ${cond.reparsed} re-parsed; p50 ${cond.wallP50} ms; CPU p50/p95 ${cond.cpuP50}/${cond.cpuP95} ms` });
    }
    return {
      metrics,
      notes: [
        `slowest live outline: ${near.slowest || '—'}; #if-heavy: ${cond.slowest || '—'}`,
        `load average now ${os.loadavg().map((x) => x.toFixed(2)).join(' / ')} on ${os.cpus().length} cores (wall figures assume a quiet machine; CPU figures much less)`,
      ],
      data: { throughput: t, liveOutline: { near5000: near, near5000WholeFile: nearWhole, conditional: cond } },
    };
  },
};
