/**
 * search_text on the target's most frequent identifiers (computed now from its token index, not
 * hard-coded): the first page of each query, asked once (a fresh walk: nothing of that query is
 * cached), against `rg -F` over the same files in the same run. The yardstick of issue 17: first
 * page p50 ≤ 5 ms and ≥ 10× faster than rg for identifiers with thousands of hits.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TOOL_DEADLINE_MS } from '../../../server/src/core/limits';
import type { Engine } from '../../../server/src/nav/engine';
import { searchText, type TextMode } from '../../../server/src/nav/textSearch';
import { fmt } from '../report';
import { rgArgs, runRg } from '../ripgrep';
import { median, p95 } from '../stats';
import type { BenchSection, Metric } from '../types';

/** Keywords of the indexed languages: frequent, but nobody searches for them. */
const KEYWORDS = new Set(
  'abstract async await base boolean break case catch class const continue default delegate delete do double else enum event explicit export extends extern false finally fixed float for foreach function get if implements implicit import in int interface internal is let lock long namespace new null object operator out override params private protected public readonly ref return sealed set short sizeof static string struct switch this throw true try typeof uint ulong unchecked unsafe ushort using var virtual void volatile while yield summary param returns remarks value inheritdoc'.split(' '),
);

/** Identifiers by number of files, most frequent first, with their spelling in the code. */
export function frequentIdentifiers(engine: Engine, n: number): { text: string; files: number }[] {
  const db = engine.store.db;
  db.run('CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_terms USING fts4aux(main, file_text)');
  const files = engine.catalog().size;
  // Terms in more than 60% of the files are boilerplate (license headers), not identifiers one looks up.
  const rows = db.exec(`SELECT term, documents FROM temp.bench_terms WHERE col = '*' AND length(term) >= 6 AND documents <= ${Math.floor(files * 0.6)} ORDER BY documents DESC LIMIT ${n * 4}`)[0]?.values ?? [];
  const out: { text: string; files: number }[] = [];
  for (const [term, docs] of rows) {
    const t = String(term);
    if (KEYWORDS.has(t) || /^\d/.test(t)) continue;
    const spelled = spelling(engine, t);
    if (spelled) out.push({ text: spelled, files: Number(docs) });
    if (out.length >= n) break;
  }
  return out;
}

/** The most common spelling of a lower-cased token in the first files that contain it. */
function spelling(engine: Engine, token: string): string | undefined {
  const counts = new Map<string, number>();
  const re = new RegExp(`(?<![A-Za-z0-9_])${token}(?![A-Za-z0-9_])`, 'gi');
  let seen = 0;
  for (const row of engine.catalog().all()) {
    if (row.binary || row.size > 512 * 1024) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(engine.root, row.path), 'utf8');
    } catch {
      continue;
    }
    const m = text.match(re);
    if (!m) continue;
    for (const x of m) counts.set(x, (counts.get(x) ?? 0) + 1);
    if (++seen >= 5) break;
  }
  let best: string | undefined;
  for (const [k, v] of counts) if (!best || v > counts.get(best)!) best = k;
  return best;
}

export const section: BenchSection = {
  name: 'search_text frequent',
  order: 21,
  description: "search_text first page (limit 20, asked once per query) for the target's most frequent identifiers vs rg -F, same run",
  async run(ctx) {
    const engine = await ctx.engine();
    const ids = frequentIdentifiers(engine, ctx.options.quick ? 8 : 24);
    const rgRuns = ctx.options.quick ? 1 : 3;
    const table: string[][] = [['identifier', 'files', 'mode', 'first page', 'hits ≥', 'files read', 'rg -F p50', 'rg matches', 'speed-up']];
    const first: Record<TextMode, number[]> = { word: [], literal: [], regex: [] };
    const rgAll: number[] = [];
    const ratios: Record<TextMode, number[]> = { word: [], literal: [], regex: [] };
    for (const q of ids) {
      ctx.progress(`frequent identifier ${q.text}…`);
      const rg: number[] = [];
      let rgMatches = 0;
      for (let i = 0; i < rgRuns; i++) {
        const r = await runRg(ctx.target.root, rgArgs(q.text, { fixed: true, word: false }));
        rg.push(r.ms);
        rgMatches = r.matches;
      }
      const rgMs = median(rg)!;
      rgAll.push(rgMs);
      for (const mode of ['word', 'literal'] as const) {
        const t = performance.now();
        const r = await searchText(engine, { query: q.text, mode, caseMode: 'sensitive', offset: 0, limit: 20, deadlineAt: Date.now() + TOOL_DEADLINE_MS });
        const ms = performance.now() - t;
        first[mode].push(ms);
        ratios[mode].push(rgMs / ms);
        table.push([q.text, String(q.files), mode, fmt(ms, 'ms'), r.total !== undefined ? `${r.total} (exact)` : String(r.totalAtLeast), String(r.verifiedFiles), fmt(rgMs, 'ms'), String(rgMatches), fmt(rgMs / ms, 'x')]);
      }
    }
    const metrics: Metric[] = [];
    for (const mode of ['word', 'literal'] as const) {
      metrics.push(
        { name: `${mode}: first page p50`, value: median(first[mode]), unit: 'ms', target: { op: '<=', value: 5 }, detail: `${ids.length} identifiers, each asked once` },
        { name: `${mode}: first page p95`, value: p95(first[mode]), unit: 'ms' },
        { name: `${mode}: speed-up vs rg -F (median rg / median first page)`, value: (median(rgAll) ?? 0) / (median(first[mode]) ?? 1), unit: 'x', target: { op: '>=', value: 10 } },
        { name: `${mode}: smallest per-query speed-up`, value: ratios[mode].length ? Math.min(...ratios[mode]) : undefined, unit: 'x' },
      );
    }
    metrics.push({ name: 'rg -F p50 over the same files', value: median(rgAll), unit: 'ms' });
    return { metrics, table, data: { ids, first, rgAll } };
  },
};
