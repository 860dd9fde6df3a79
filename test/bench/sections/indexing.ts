/**
 * Cold index (fresh index root), warm start (nothing changed), index size vs source bytes and the
 * peak RSS of the indexing process: `sextant index --json` run as a child process.
 *
 * The cold index has two figures: "text + files ready" (file table, token index and dictionary
 * committed and persisted: find_file and search_text answer from here) and "outlines + symbols
 * complete" (the parse phase written and persisted: the process ends). Both are measured from the
 * process start by the process itself, with its CPU time (all threads, parse workers included).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import { runMeasured, type ChildRun } from '../childProcess';
import { dirBytes, median, mib } from '../stats';
import type { BenchContext, BenchSection, Metric } from '../types';

/** The last line of `sextant index --json`. */
export interface IndexSummary {
  files: number;
  sourceFiles: number;
  bytes: number;
  durationMs: number;
  indexBytes: number;
  indexVersion: string;
  added: number;
  changed: number;
  deleted: number;
  parsedFiles: number;
  skippedTooLarge: number;
  status: string;
  /** Since process start: wall ms and process CPU ms (all threads). */
  textReady: { ms: number; cpuMs: number } | null;
  complete: { ms: number; cpuMs: number } | null;
  symbolsPending: number;
  opened?: { ms: number; cpuMs: number };
  walkMs?: number;
}

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const sec = (ms: number | undefined) => (ms === undefined ? '?' : (ms / 1000).toFixed(2));

async function runIndex(ctx: BenchContext): Promise<{ run: ChildRun; summary: IndexSummary; loadBefore: string }> {
  const loadBefore = load();
  const [exe, ...lead] = ctx.options.cli;
  const run = await runMeasured(exe as string, [...lead, 'index', '--workspace-root', ctx.target.root, '--index-root', ctx.indexRoot, '--json'], {
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const last = run.stdout.trim().split('\n').pop() ?? '';
  if (run.code !== 0 || !last.startsWith('{')) throw new Error(`sextant index exited ${run.code}: ${(run.stderr || run.stdout).slice(-800)}`);
  return { run, summary: JSON.parse(last) as IndexSummary, loadBefore };
}

export const section: BenchSection = {
  name: 'indexing',
  order: 10,
  description: 'sextant index --json as a child process (cold = fresh index root; warm = run again, nothing changed)',
  async run(ctx) {
    fs.rmSync(ctx.indexRoot, { recursive: true, force: true });
    ctx.progress('cold index…');
    const cold = await runIndex(ctx);
    ctx.shared.set('indexing.cold', cold.summary);
    const warmRuns: Array<{ run: ChildRun; summary: IndexSummary; loadBefore: string }> = [];
    for (let i = 0; i < (ctx.options.quick ? 1 : 3); i++) {
      ctx.progress(`warm start ${i + 1}…`);
      warmRuns.push(await runIndex(ctx));
    }
    // Start-up + index load alone (no discovery, no refresh): separates load cost from the refresh.
    const [exe, ...lead] = ctx.options.cli;
    const statsRun = await runMeasured(exe as string, [...lead, 'stats', '--workspace-root', ctx.target.root, '--index-root', ctx.indexRoot], { env: { ...process.env, NODE_OPTIONS: '' } });
    const warmWall = median(warmRuns.map((w) => w.run.wallMs));
    const warm = warmRuns[0] as { run: ChildRun; summary: IndexSummary; loadBefore: string };
    const s = cold.summary;
    const warmCpu = median(warmRuns.map((w) => w.summary.complete?.cpuMs ?? Number.NaN));
    const rootBytes = dirBytes(ctx.indexRoot);
    const metrics: Metric[] = [
      { name: 'files indexed', value: s.files, unit: 'files', detail: `${s.sourceFiles} source/test, ${s.skippedTooLarge} over the size cap` },
      { name: 'source bytes', value: mib(s.bytes), unit: 'MiB' },
      {
        name: 'cold: text + files ready',
        value: s.textReady ? s.textReady.ms / 1000 : undefined,
        unit: 's',
        target: { op: '<=', value: 30 },
        detail: `since process start, persisted; CPU ${sec(s.textReady?.cpuMs)} s; load before ${cold.loadBefore}`,
      },
      {
        name: 'cold: outlines + symbols complete',
        value: s.complete ? s.complete.ms / 1000 : undefined,
        unit: 's',
        detail: `since process start, persisted; CPU ${sec(s.complete?.cpuMs)} s (parse workers included); parse phase ${s.complete && s.textReady ? sec(s.complete.ms - s.textReady.ms) : '?'} s`,
      },
      { name: 'cold index (process wall)', value: cold.run.wallMs / 1000, unit: 's', detail: `engine-reported ${(s.durationMs / 1000).toFixed(2)} s; load after ${load()}` },
      { name: 'cold peak RSS', value: cold.run.peakRssBytes === undefined ? undefined : mib(cold.run.peakRssBytes), unit: 'MiB', target: { op: '<=', value: 1536 }, detail: cold.run.rssSource },
      { name: 'warm start (process wall, median)', value: warmWall === undefined ? undefined : warmWall / 1000, unit: 's', target: { op: '<=', value: 2 }, detail: `${warmRuns.length} run(s); CPU ${sec(warmCpu)} s (median); engine refresh ${(warm.summary.durationMs / 1000).toFixed(2)} s; load before ${warm.loadBefore}` },
      { name: 'start-up + index load only', value: statsRun.code === 0 ? statsRun.wallMs / 1000 : undefined, unit: 's', detail: '`sextant stats` wall time: process start and loading index.db, no refresh' },
      { name: 'warm: files re-parsed', value: Math.max(...warmRuns.map((w) => w.summary.parsedFiles)), unit: 'count', target: { op: '<=', value: 0 }, detail: `added/changed/deleted ${warm.summary.added}/${warm.summary.changed}/${warm.summary.deleted}` },
      { name: 'warm peak RSS', value: warm.run.peakRssBytes === undefined ? undefined : mib(warm.run.peakRssBytes), unit: 'MiB' },
      { name: 'index size (index.db)', value: mib(s.indexBytes), unit: 'MiB', detail: `index root total ${mib(rootBytes).toFixed(1)} MiB` },
      { name: 'index size / source bytes', value: s.bytes > 0 ? s.indexBytes / s.bytes : undefined, unit: 'ratio', target: { op: '<=', value: 0.6 } },
    ];
    const notes = [
      'CPU figures are process CPU since process start (all threads: V8 helper threads; the parse workers during outlines + symbols).',
      `warm start wall includes node start-up, loading index.db (checksum, sql.js), the walk (${warm.summary.walkMs ?? '?'} ms), git status alongside, and exit; index loaded at ${sec(warm.summary.opened?.ms)} s (CPU ${sec(warm.summary.opened?.cpuMs)} s).`,
    ];
    if (ctx.options.cliKind === 'source') notes.push('sextant ran from TypeScript sources under tsx (dist/ older than server/src): start-up includes compiling; `npm run build` or --cli dist measures what users run.');
    return { metrics, notes, data: { cold: { ...cold.summary, wallMs: cold.run.wallMs, peakRssBytes: cold.run.peakRssBytes }, warm: warmRuns.map((w) => ({ ...w.summary, wallMs: w.run.wallMs, peakRssBytes: w.run.peakRssBytes })), indexRootBytes: rootBytes } };
  },
};
