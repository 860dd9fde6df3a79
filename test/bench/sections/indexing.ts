/**
 * Cold index (fresh index root), warm start (nothing changed), index size vs source bytes and the
 * peak RSS of the indexing process: `sextant index --json` run as a child process.
 *
 * The cold index has two figures: "text + files ready" (file table, token index and dictionary
 * committed and persisted: find_file and search_text answer from here) and "outlines + symbols
 * complete" (the parse phase written and persisted: the process ends). Both are measured from the
 * process start by the process itself, with its CPU time (all threads, parse workers included).
 *
 * With `--base DIR` the base build indexes the same target in the same run, alternating with this
 * one (base, current, then current, base, …) so that a change of load hits both; each figure is
 * printed for both with the ratio current / base, and every run's load is in the table.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runMeasured, type ChildRun } from '../childProcess';
import { fmt } from '../report';
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
  /** Nothing changed since the last complete run: answered from warm.json without loading the index. */
  unchanged?: true;
}

interface IndexRun {
  who: 'base' | 'current';
  kind: 'cold' | 'warm';
  run: ChildRun;
  summary: IndexSummary;
  loadBefore: string;
  loadAfter: string;
}

const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
const sec = (ms: number | undefined) => (ms === undefined ? '?' : (ms / 1000).toFixed(2));

async function runIndex(cli: string[], root: string, indexRoot: string, who: IndexRun['who'], kind: IndexRun['kind']): Promise<IndexRun> {
  const loadBefore = load();
  const [exe, ...lead] = cli;
  const run = await runMeasured(exe as string, [...lead, 'index', '--workspace-root', root, '--index-root', indexRoot, '--json'], {
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  const last = run.stdout.trim().split('\n').pop() ?? '';
  if (run.code !== 0 || !last.startsWith('{')) throw new Error(`sextant index (${who}) exited ${run.code}: ${(run.stderr || run.stdout).slice(-800)}`);
  return { who, kind, run, summary: JSON.parse(last) as IndexSummary, loadBefore, loadAfter: load() };
}

/** Figures of one run that the section compares. */
const FIGURES = {
  textReady: (r: IndexRun) => (r.summary.textReady ? r.summary.textReady.ms / 1000 : undefined),
  complete: (r: IndexRun) => (r.summary.complete ? r.summary.complete.ms / 1000 : undefined),
  wall: (r: IndexRun) => r.run.wallMs / 1000,
  cpu: (r: IndexRun) => (r.summary.complete ? r.summary.complete.cpuMs / 1000 : undefined),
  rss: (r: IndexRun) => (r.run.peakRssBytes === undefined ? undefined : mib(r.run.peakRssBytes)),
} as const;

function med(runs: IndexRun[], f: (r: IndexRun) => number | undefined): number | undefined {
  return median(runs.map(f).filter((x): x is number => x !== undefined));
}

export const section: BenchSection = {
  name: 'indexing',
  order: 10,
  description: 'sextant index --json as a child process (cold = fresh index root; warm = run again, nothing changed); with --base, the base build alternates with this one',
  async run(ctx) {
    const base = ctx.options.base;
    const baseRoot = path.join(ctx.scratch, 'index-base');
    const rounds = base ? (ctx.options.quick ? 1 : 2) : 1;
    const warmPerSide = ctx.options.quick ? 1 : 3;
    const runs: IndexRun[] = [];
    const sides = (i: number): IndexRun['who'][] => (!base ? ['current'] : i % 2 === 0 ? ['base', 'current'] : ['current', 'base']);
    const one = async (who: IndexRun['who'], kind: IndexRun['kind'], label: string) => {
      const cli = who === 'base' ? base!.cli : ctx.options.cli;
      const indexRoot = who === 'base' ? baseRoot : ctx.indexRoot;
      if (kind === 'cold') fs.rmSync(indexRoot, { recursive: true, force: true });
      ctx.progress(`${label} (${who})…`);
      const r = await runIndex(cli, ctx.target.root, indexRoot, who, kind);
      runs.push(r);
      return r;
    };
    for (let i = 0; i < rounds; i++) for (const who of sides(i)) await one(who, 'cold', `cold index ${i + 1}/${rounds}`);
    for (let i = 0; i < warmPerSide; i++) for (const who of sides(i)) await one(who, 'warm', `warm start ${i + 1}/${warmPerSide}`);
    // The last cold run of each side left its index: later sections open the current one (ctx.engine)
    // and the search section the base one.
    if (base) ctx.shared.set('indexing.baseIndexRoot', baseRoot);

    const of = (who: IndexRun['who'], kind: IndexRun['kind']) => runs.filter((r) => r.who === who && r.kind === kind);
    const cold = of('current', 'cold');
    const warm = of('current', 'warm');
    const lastCold = cold[cold.length - 1]!;
    ctx.shared.set('indexing.cold', lastCold.summary);
    const s = lastCold.summary;
    const ratio = (kind: IndexRun['kind'], f: (r: IndexRun) => number | undefined) => {
      const b = med(of('base', kind), f);
      const c = med(of('current', kind), f);
      return b !== undefined && c !== undefined && b > 0 ? c / b : undefined;
    };
    const vsBase = (kind: IndexRun['kind'], f: (r: IndexRun) => number | undefined, unit: Metric['unit']) => {
      if (!base) return '';
      const b = med(of('base', kind), f);
      const r = ratio(kind, f);
      return `base ${fmt(b, unit)}, ${r === undefined ? '?' : `${r.toFixed(2)}×`} of base; `;
    };
    const rootBytes = dirBytes(ctx.indexRoot);
    const medianOf = (rs: IndexRun[], f: (r: IndexRun) => number | undefined) => med(rs, f);
    const metrics: Metric[] = [
      { name: 'files indexed', value: s.files, unit: 'files', detail: `${s.sourceFiles} source/test, ${s.skippedTooLarge} over the size cap` },
      { name: 'source bytes', value: mib(s.bytes), unit: 'MiB' },
      {
        name: 'cold: text + files ready',
        value: medianOf(cold, FIGURES.textReady),
        unit: 's',
        target: { op: '<=', value: 30 },
        detail: `${vsBase('cold', FIGURES.textReady, 's')}since process start, persisted; CPU ${sec(s.textReady?.cpuMs)} s (last run)`,
      },
      {
        name: 'cold: outlines + symbols complete',
        value: medianOf(cold, FIGURES.complete),
        unit: 's',
        detail: `${vsBase('cold', FIGURES.complete, 's')}since process start, persisted; CPU ${sec(s.complete?.cpuMs)} s (parse workers included); parse phase ${s.complete && s.textReady ? sec(s.complete.ms - s.textReady.ms) : '?'} s (last run)`,
      },
      { name: 'cold index (process wall)', value: medianOf(cold, FIGURES.wall), unit: 's', detail: `${vsBase('cold', FIGURES.wall, 's')}engine-reported ${(s.durationMs / 1000).toFixed(2)} s (last run)` },
      { name: 'cold: process CPU', value: medianOf(cold, FIGURES.cpu), unit: 's', detail: `${vsBase('cold', FIGURES.cpu, 's')}all threads, to complete` },
      { name: 'cold peak RSS', value: medianOf(cold, FIGURES.rss), unit: 'MiB', target: { op: '<=', value: 1024 }, detail: `${vsBase('cold', FIGURES.rss, 'MiB')}${lastCold.run.rssSource}` },
      {
        name: 'warm start (process wall, median)',
        value: medianOf(warm, FIGURES.wall),
        unit: 's',
        target: { op: '<=', value: 0.5 },
        detail: `${vsBase('warm', FIGURES.wall, 's')}${warm.length} run(s); CPU ${sec(med(warm, (r) => r.summary.complete?.cpuMs))} s (median); engine refresh ${sec(warm[0]?.summary.durationMs)} s`,
      },
      { name: 'warm: files re-parsed', value: Math.max(...warm.map((w) => w.summary.parsedFiles)), unit: 'count', target: { op: '<=', value: 0 }, detail: `added/changed/deleted ${warm[0]?.summary.added}/${warm[0]?.summary.changed}/${warm[0]?.summary.deleted}` },
      { name: 'warm peak RSS', value: medianOf(warm, FIGURES.rss), unit: 'MiB', detail: vsBase('warm', FIGURES.rss, 'MiB').replace(/; $/, '') },
      { name: 'index size (index.db)', value: mib(s.indexBytes), unit: 'MiB', detail: `${base ? `base ${fmt(mib(of('base', 'cold').at(-1)?.summary.indexBytes ?? 0), 'MiB')}; ` : ''}index root total ${mib(rootBytes).toFixed(1)} MiB` },
      { name: 'index size / source bytes', value: s.bytes > 0 ? s.indexBytes / s.bytes : undefined, unit: 'ratio', target: { op: '<=', value: 0.6 } },
    ];
    if (base) {
      metrics.push(
        { name: 'cold text ready: current / base', value: ratio('cold', FIGURES.textReady), unit: 'ratio', target: { op: '<=', value: 0.75 }, detail: 'medians of the alternating runs' },
        { name: 'cold complete: current / base', value: ratio('cold', FIGURES.complete), unit: 'ratio', target: { op: '<=', value: 0.75 }, detail: 'medians of the alternating runs' },
        { name: 'cold CPU: current / base', value: ratio('cold', FIGURES.cpu), unit: 'ratio' },
        { name: 'warm start: current / base', value: ratio('warm', FIGURES.wall), unit: 'ratio' },
      );
    }
    const table: string[][] = [['#', 'build', 'kind', 'load before', 'text ready', 'complete', 'wall', 'CPU', 'peak RSS', 'load after']];
    runs.forEach((r, i) =>
      table.push([String(i + 1), r.who, r.kind, r.loadBefore, fmt(FIGURES.textReady(r), 's'), fmt(FIGURES.complete(r), 's'), fmt(FIGURES.wall(r), 's'), fmt(FIGURES.cpu(r), 's'), fmt(FIGURES.rss(r), 'MiB'), r.loadAfter]),
    );
    const notes = [
      'CPU figures are process CPU since process start (all threads: V8 helper threads; the parse workers during outlines + symbols).',
      warm.every((w) => w.summary.unchanged)
        ? `warm start wall includes node start-up, the check (${warm[0]?.summary.walkMs ?? '?'} ms: the launcher stats every folder and file the last walk listed; a tree it cannot check by stat is walked and index.db's bytes read) and exit: nothing changed, so every warm run answered from warm.json without loading the index into sql.js.`
        : `warm start wall includes node start-up, loading index.db (checksum, sql.js), the walk (${warm[0]?.summary.walkMs ?? '?'} ms), git status alongside, and exit; index loaded at ${sec(warm[0]?.summary.opened?.ms)} s (CPU ${sec(warm[0]?.summary.opened?.cpuMs)} s); ${warm.filter((w) => w.summary.unchanged).length} of ${warm.length} run(s) answered from warm.json.`,
    ];
    if (base) notes.push(`base: ${base.label}; runs alternate base/current so a change of machine load hits both.`);
    if (ctx.options.cliKind === 'source') notes.push('sextant ran from TypeScript sources under tsx (dist/ older than server/src): start-up includes compiling; `npm run build` or --cli dist measures what users run.');
    const data = (r: IndexRun) => ({ who: r.who, kind: r.kind, loadBefore: r.loadBefore, loadAfter: r.loadAfter, ...r.summary, wallMs: r.run.wallMs, peakRssBytes: r.run.peakRssBytes });
    return { metrics, table, notes, data: { runs: runs.map(data), indexRootBytes: rootBytes } };
  },
};
