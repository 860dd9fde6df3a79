/**
 * search_text latency (in-process against the engine API, warm) next to ripgrep over the same
 * files in the same run. Identifiers are searched as whole words; the speed-up is measured
 * against plain `rg -F` (the yardstick), `rg -F -w` is shown for the same answer set.
 */
import { TOOL_DEADLINE_MS } from '../../../server/src/core/limits';
import { searchText, type TextSearchResult } from '../../../server/src/nav/textSearch';
import { queriesFromManifest, queriesFromSample, searchMode, type BenchQuery } from '../queries';
import { fmt } from '../report';
import { rgArgs, runRg, type RgRun } from '../ripgrep';
import { median, p95, timeIt } from '../stats';
import type { BenchSection, Metric } from '../types';

interface Row {
  query: BenchQuery;
  searchMs: number[];
  result: TextSearchResult | undefined;
  rgMs: number[];
  rg: RgRun | undefined;
  /** Identifiers only: `rg -F -w`, the same answer set as a word search. */
  rgWordMs: number[];
  rgWord: RgRun | undefined;
}

export const section: BenchSection = {
  name: 'search_text',
  order: 20,
  description: 'search_text (engine API, warm, limit 20) vs rg over the same files, same run',
  async run(ctx) {
    const engine = await ctx.engine();
    const queries = ctx.target.manifest ? queriesFromManifest(ctx.target.manifest) : queriesFromSample(engine);
    const n = ctx.options.quick ? 5 : 20;
    const rgN = ctx.options.quick ? 2 : 5;
    /** Per query and side: slow queries (seconds each) stop after this much timed work. */
    const budgetMs = ctx.options.quick ? 2_000 : 8_000;
    const rows: Row[] = [];
    for (const q of queries) {
      ctx.progress(`search_text ${q.kind} ${JSON.stringify(q.text)}…`);
      const row: Row = { query: q, searchMs: [], result: undefined, rgMs: [], rg: undefined, rgWordMs: [], rgWord: undefined };
      row.searchMs = await timeIt(n, 1, () =>
        searchText(engine, { query: q.text, mode: searchMode(q.kind), caseMode: 'sensitive', offset: 0, limit: 20, deadlineAt: Date.now() + TOOL_DEADLINE_MS }),
      (r) => (row.result = r), budgetMs);
      row.rgMs = await timeIt(rgN, 1, () => runRg(ctx.target.root, rgArgs(q.text, { fixed: q.kind !== 'regex', word: false })), (r) => (row.rg = r), budgetMs);
      if (q.kind === 'identifier') row.rgWordMs = await timeIt(rgN, 0, () => runRg(ctx.target.root, rgArgs(q.text, { fixed: true, word: true })), (r) => (row.rgWord = r), budgetMs / 2, 2);
      rows.push(row);
    }

    const speedup = (r: Row) => {
      const a = median(r.rgMs);
      const b = median(r.searchMs);
      return a !== undefined && b !== undefined && b > 0 ? a / b : undefined;
    };
    const table: string[][] = [['kind', 'query', 'search p50', 'p95', 'hits (engine)', 'strategy', 'rg -F p50', 'rg matches', 'rg -F -w p50', 'rg -w matches', 'speed-up']];
    for (const r of rows) {
      const res = r.result;
      const total = res ? (res.total !== undefined ? String(res.total) : `≥${res.totalAtLeast} (${res.truncated})`) : '—';
      table.push([
        r.query.kind,
        `${JSON.stringify(r.query.text).slice(0, 40)} ${r.query.label}`,
        fmt(median(r.searchMs), 'ms'),
        fmt(p95(r.searchMs), 'ms'),
        total,
        res ? `${res.strategy}, ${res.verifiedFiles} verified` : '—',
        fmt(median(r.rgMs), 'ms'),
        r.rg ? String(r.rg.matches) : '—',
        r.query.kind === 'identifier' ? fmt(median(r.rgWordMs), 'ms') : '',
        r.query.kind === 'identifier' && r.rgWord ? String(r.rgWord.matches) : '',
        fmt(speedup(r), 'x'),
      ]);
    }
    const ofKind = (k: BenchQuery['kind']) => rows.filter((r) => r.query.kind === k);
    const worst = (rs: Row[], f: (r: Row) => number | undefined, pick: 'max' | 'min') => {
      const v = rs.map(f).filter((x): x is number => x !== undefined);
      return v.length === 0 ? undefined : pick === 'max' ? Math.max(...v) : Math.min(...v);
    };
    const ids = ofKind('identifier');
    const metrics: Metric[] = [
      { name: 'identifier: worst p95', value: worst(ids, (r) => p95(r.searchMs), 'max'), unit: 'ms', target: { op: '<=', value: 50 }, detail: `${ids.length} queries, up to ${n} runs each` },
      { name: 'identifier: smallest speed-up vs rg -F', value: worst(ids, speedup, 'min'), unit: 'x', target: { op: '>=', value: 10 }, detail: 'median rg -F / median search_text' },
      { name: 'literal: worst p95', value: worst(ofKind('literal'), (r) => p95(r.searchMs), 'max'), unit: 'ms' },
      { name: 'literal: smallest speed-up vs rg -F', value: worst(ofKind('literal'), speedup, 'min'), unit: 'x' },
      { name: 'regex: worst p95', value: worst(ofKind('regex'), (r) => p95(r.searchMs), 'max'), unit: 'ms' },
      { name: 'regex: smallest speed-up vs rg', value: worst(ofKind('regex'), speedup, 'min'), unit: 'x' },
    ];
    const notes: string[] = [];
    for (const r of rows) {
      const res = r.result;
      const reference = r.query.kind === 'identifier' ? r.rgWord : r.rg;
      if (res && res.total !== undefined && reference && res.total !== reference.matches) {
        notes.push(`${JSON.stringify(r.query.text)}: search_text counted ${res.total} hits, rg ${reference.matches} (check exclusions / per-file caps)`);
      }
    }
    return {
      metrics,
      table,
      notes,
      data: rows.map((r) => ({ query: r.query, searchMs: r.searchMs, rgMs: r.rgMs, rgWordMs: r.rgWordMs, total: r.result?.total, totalAtLeast: r.result?.totalAtLeast, truncated: r.result?.truncated, strategy: r.result?.strategy, verifiedFiles: r.result?.verifiedFiles, rgMatches: r.rg?.matches, rgWordMatches: r.rgWord?.matches })),
    };
  },
};
