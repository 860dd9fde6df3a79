/**
 * search_text on the target's most frequent identifiers (computed now from its token index, not
 * hard-coded): the first page of each query, asked once (a fresh walk: nothing of that query is
 * cached), against `rg -F` over the same files in the same run. The yardstick of issue 17: first
 * page p50 ≤ 5 ms and ≥ 10× faster than rg for identifiers with thousands of hits.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TOOL_DEADLINE_MS } from '../../../server/src/core/limits';
import { symbolTableFor } from '../../../server/src/index/symbolTable';
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

/**
 * Identifiers by number of files, most frequent first, with their spelling in the code: indexed
 * tokens that are declared names (a type, member, parameter… of the repository, spelled as the
 * most common declaration spells it), so comment words ("should", "without") are not the set.
 */
export function frequentIdentifiers(engine: Engine, n: number): { text: string; files: number }[] {
  const table = symbolTableFor(engine.store);
  const declared = new Map<string, Map<string, number>>();
  for (const seg of table.segments()) {
    for (let k = 0; k + 1 < seg.nameStart.length; k++) {
      const rows = (seg.nameStart[k + 1] ?? 0) - (seg.nameStart[k] ?? 0);
      if (rows === 0) continue;
      const name = table.names.names[k]!;
      const low = name.toLowerCase();
      let m = declared.get(low);
      if (!m) declared.set(low, (m = new Map()));
      m.set(name, (m.get(name) ?? 0) + rows);
    }
  }
  const ids = frequentTokens(engine, n * 8, (t) => declared.has(t));
  const out: { text: string; files: number }[] = [];
  for (const q of ids) {
    let best: string | undefined;
    for (const [k, v] of declared.get(q.text)!) if (!best || v > declared.get(q.text)!.get(best)!) best = k;
    if (best) out.push({ text: best, files: q.files });
    if (out.length >= n) break;
  }
  return out;
}

/** Tokens (lower-cased) by number of files, most frequent first (not the case-signal terms, which start with a non-ASCII mark). */
function frequentTokens(engine: Engine, n: number, keep: (t: string) => boolean): { text: string; files: number }[] {
  const db = engine.store.db;
  db.run('CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_terms USING fts4aux(main, file_text)');
  const files = engine.catalog().size;
  const rows = db.exec(`SELECT term, documents FROM temp.bench_terms WHERE col = '*' AND term GLOB '[a-z0-9_]*' AND length(term) >= 4 AND documents <= ${Math.floor(files * 0.6)} ORDER BY documents DESC LIMIT ${n * 4}`)[0]?.values ?? [];
  const out: { text: string; files: number }[] = [];
  for (const [term, docs] of rows) {
    const t = String(term);
    if (KEYWORDS.has(t) || /^\d/.test(t) || !keep(t)) continue;
    out.push({ text: t, files: Number(docs) });
    if (out.length >= n) break;
  }
  return out;
}

/** Frequent tokens, declared or not (comment words included), spelled as the first files spell them. */
export function frequentTokensSpelled(engine: Engine, n: number): { text: string; files: number }[] {
  const db = engine.store.db;
  db.run('CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_terms USING fts4aux(main, file_text)');
  const files = engine.catalog().size;
  // Terms in more than 60% of the files are boilerplate (license headers), not identifiers one looks up.
  const rows = db.exec(`SELECT term, documents FROM temp.bench_terms WHERE col = '*' AND term GLOB '[a-z0-9_]*' AND length(term) >= 6 AND documents <= ${Math.floor(files * 0.6)} ORDER BY documents DESC LIMIT ${n * 4}`)[0]?.values ?? [];
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
  description: "search_text first page (limit 20, asked once per query) for the target's most frequent declared identifiers vs rg -F (same files, and *.cs only), same run",
  async run(ctx) {
    const engine = await ctx.engine();
    const ids = frequentIdentifiers(engine, ctx.options.quick ? 8 : 24);
    const csFiles = engine.catalog().all().some((r) => r.path.endsWith('.cs'));
    const rgRuns = ctx.options.quick ? 1 : 3;
    const table: string[][] = [['identifier', 'files', 'mode', 'first page', 'hits ≥', 'files read', 'rg -F p50', csFiles ? "rg -F -g '*.cs' p50" : '-', 'rg matches', 'speed-up', csFiles ? 'vs *.cs' : '-']];
    const first: Record<TextMode, number[]> = { word: [], literal: [], regex: [] };
    const rgAll: number[] = [];
    const rgCs: number[] = [];
    const ratios: Record<TextMode, number[]> = { word: [], literal: [], regex: [] };
    const ratiosCs: Record<TextMode, number[]> = { word: [], literal: [], regex: [] };
    for (const q of ids) {
      ctx.progress(`frequent identifier ${q.text}…`);
      const rg: number[] = [];
      const rgc: number[] = [];
      let rgMatches = 0;
      for (let i = 0; i < rgRuns; i++) {
        const r = await runRg(ctx.target.root, rgArgs(q.text, { fixed: true, word: false }));
        rg.push(r.ms);
        rgMatches = r.matches;
        // The yardstick of issue 17: rg -F over the C# files only (fewer files than the engine searches).
        if (csFiles) rgc.push((await runRg(ctx.target.root, ['--glob', '*.cs', ...rgArgs(q.text, { fixed: true, word: false })])).ms);
      }
      const rgMs = median(rg)!;
      const rgCsMs = csFiles ? median(rgc)! : NaN;
      rgAll.push(rgMs);
      if (csFiles) rgCs.push(rgCsMs);
      for (const mode of ['word', 'literal'] as const) {
        const t = performance.now();
        const r = await searchText(engine, { query: q.text, mode, caseMode: 'sensitive', offset: 0, limit: 20, deadlineAt: Date.now() + TOOL_DEADLINE_MS });
        const ms = performance.now() - t;
        first[mode].push(ms);
        ratios[mode].push(rgMs / ms);
        if (csFiles) ratiosCs[mode].push(rgCsMs / ms);
        table.push([q.text, String(q.files), mode, fmt(ms, 'ms'), r.total !== undefined ? `${r.total} (exact)` : String(r.totalAtLeast), String(r.verifiedFiles), fmt(rgMs, 'ms'), csFiles ? fmt(rgCsMs, 'ms') : '-', String(rgMatches), fmt(rgMs / ms, 'x'), csFiles ? fmt(rgCsMs / ms, 'x') : '-']);
      }
    }
    const metrics: Metric[] = [];
    for (const mode of ['word', 'literal'] as const) {
      metrics.push(
        { name: `${mode}: first page p50`, value: median(first[mode]), unit: 'ms', target: { op: '<=', value: 5 }, detail: `${ids.length} declared identifiers, most frequent first, each asked once` },
        { name: `${mode}: first page p95`, value: p95(first[mode]), unit: 'ms' },
        { name: `${mode}: speed-up vs rg -F (median rg / median first page)`, value: (median(rgAll) ?? 0) / (median(first[mode]) ?? 1), unit: 'x', target: { op: '>=', value: 10 } },
        { name: `${mode}: median per-query speed-up vs rg -F`, value: median(ratios[mode]), unit: 'x' },
        { name: `${mode}: smallest per-query speed-up`, value: ratios[mode].length ? Math.min(...ratios[mode]) : undefined, unit: 'x' },
      );
      if (csFiles) {
        metrics.push(
          { name: `${mode}: speed-up vs rg -F -g '*.cs' (median rg / median first page)`, value: (median(rgCs) ?? 0) / (median(first[mode]) ?? 1), unit: 'x', target: { op: '>=', value: 10 } },
          { name: `${mode}: smallest per-query speed-up vs rg -F -g '*.cs'`, value: ratiosCs[mode].length ? Math.min(...ratiosCs[mode]) : undefined, unit: 'x' },
        );
      }
    }
    metrics.push({ name: 'rg -F p50 over the same files', value: median(rgAll), unit: 'ms' });
    if (csFiles) metrics.push({ name: "rg -F -g '*.cs' p50", value: median(rgCs), unit: 'ms' });
    return { metrics, table, data: { ids, first, rgAll } };
  },
};
