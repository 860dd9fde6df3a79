/**
 * search_text on the target's most frequent identifiers (computed now from its token index, not
 * hard-coded), asked as an agent asks: a `sextant mcp` engine over stdio (a real MCP client, the
 * whole tool layer: validation, search, answer shaping to the default budget), started on the
 * indexed workspace and warm (its start-up refresh and the watcher's sweep done, one unrelated question answered), then
 * each query asked once with default arguments but the mode — nothing of that query is cached
 * anywhere, so it is every agent's first ask of it. Timed at the client, request to response.
 * `rg -F` runs over the same files in the same run (spawn included, as an agent's shell call).
 * With `--base DIR` the base build's engine answers the same questions, alternating with this one.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { symbolTableFor } from '../../../server/src/index/symbolTable';
import type { Engine } from '../../../server/src/nav/engine';
import { fmt } from '../report';
import { rgArgs, runRg } from '../ripgrep';
import { median, p95 } from '../stats';
import type { BenchContext, BenchSection, Metric } from '../types';

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

/** One engine answering over stdio: `sextant mcp` on a copy of an index root. */
interface McpEngine {
  who: 'base' | 'current';
  client: Client;
  close(): Promise<void>;
}

/** Copies index.db (+ its checksum) so the engine started here is the only writer of its copy. */
function copyIndex(from: string, to: string): void {
  fs.rmSync(to, { recursive: true, force: true });
  fs.mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const f of ['index.db', 'index.db.sum']) if (fs.existsSync(path.join(from, f))) fs.copyFileSync(path.join(from, f), path.join(to, f));
}

async function startEngine(ctx: BenchContext, who: McpEngine['who'], cli: string[], indexRoot: string): Promise<McpEngine> {
  const transport = new StdioClientTransport({
    command: cli[0]!,
    args: [...cli.slice(1), 'mcp', '--workspace-root', ctx.target.root, '--index-root', indexRoot],
    // No background semantic work while the text layer is timed (no prewarm, no persisted-facts pass).
    env: { ...getDefaultEnvironment(), SEXTANT_ROSLYN_NO_PREWARM: '1', SEXTANT_TS_NO_PREWARM: '1', SEXTANT_PRECISE_PERSIST: '0' },
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => undefined);
  const client = new Client({ name: `sextant-bench-search-${who}`, version: '0.0.0' });
  await client.connect(transport);
  // Warm: the start-up refresh done (status fresh), the watcher's start-up walk and catch-up sweep
  // over (no `index.watch` note: they read the whole tree beside the first questions), and the
  // tool path run once on an unrelated question.
  const t0 = Date.now();
  for (;;) {
    const r = await ask(client, { query: 'zq_bench_warmup_zq', mode: 'word' });
    if ((r.status === 'fresh' && !r.watchCovering) || Date.now() - t0 > 120_000) break;
    await new Promise((res) => setTimeout(res, 250));
  }
  return { who, client, close: () => client.close() };
}

interface Asked {
  ms: number;
  status: string | undefined;
  /** The watcher is still covering the tree (its start-up walk and sweep read it). */
  watchCovering: boolean;
  totalAtLeast: number;
  exact: boolean;
  files: number;
  error?: string;
}

async function ask(client: Client, args: Record<string, unknown>): Promise<Asked> {
  const t = performance.now();
  const r = await client.callTool({ name: 'search_text', arguments: args });
  const ms = performance.now() - t;
  const sc = (r.structuredContent ?? {}) as { index?: { status?: string; watch?: string }; total?: number; totalAtLeast?: number; items?: { hits?: unknown[] }[] };
  const shown = (sc.items ?? []).reduce((n, g) => n + (g.hits?.length ?? 0), 0);
  const out: Asked = { ms, status: sc.index?.status, watchCovering: sc.index?.watch?.startsWith('the watcher is still') ?? false, totalAtLeast: sc.total ?? sc.totalAtLeast ?? shown, exact: sc.total !== undefined, files: sc.items?.length ?? 0 };
  if (r.isError) out.error = JSON.stringify(r.content).slice(0, 200);
  return out;
}

type Mode = 'literal' | 'word';

export const section: BenchSection = {
  name: 'search_text frequent',
  order: 21,
  description: "search_text first ask (each query once, default arguments, over stdio MCP to a warm engine) for the target's most frequent declared identifiers vs rg -F (same files, and *.cs only), same run; with --base, the base build beside it",
  async run(ctx) {
    const engine = await ctx.engine();
    const ids = frequentIdentifiers(engine, ctx.options.quick ? 8 : 24);
    const csFiles = engine.catalog().all().some((r) => r.path.endsWith('.cs'));
    const rgRuns = ctx.options.quick ? 1 : 3;
    const base = ctx.options.base;
    const engines: McpEngine[] = [];
    try {
      ctx.progress('starting the engine(s)…');
      const cur = path.join(ctx.scratch, 'search-current');
      copyIndex(ctx.indexRoot, cur);
      engines.push(await startEngine(ctx, 'current', ctx.options.cli, cur));
      if (base) {
        const baseIndex = path.join(ctx.scratch, 'search-base');
        const built = ctx.shared.get('indexing.baseIndexRoot') as string | undefined;
        if (built && fs.existsSync(path.join(built, 'index.db'))) copyIndex(built, baseIndex);
        else {
          ctx.progress('indexing with the base build…');
          const [exe, ...lead] = base.cli;
          const ix = spawnSync(exe!, [...lead, 'index', '--workspace-root', ctx.target.root, '--index-root', baseIndex], { encoding: 'utf8', timeout: 3_600_000 });
          if (ix.status !== 0) throw new Error(`base index failed: ${ix.stderr.slice(-400)}`);
        }
        engines.push(await startEngine(ctx, 'base', base.cli, baseIndex));
      }
      const header = ['identifier', 'files', 'mode', ...engines.flatMap((e) => [`${e.who} first ask`, `${e.who} hits`]), 'rg -F p50', csFiles ? "rg -F -g '*.cs' p50" : '-', 'rg matches', 'speed-up (current)', ...(base ? ['current / base'] : [])];
      const table: string[][] = [header];
      const first: Record<McpEngine['who'], Record<Mode, number[]>> = { current: { literal: [], word: [] }, base: { literal: [], word: [] } };
      const ratios: Record<McpEngine['who'], Record<Mode, number[]>> = { current: { literal: [], word: [] }, base: { literal: [], word: [] } };
      const ratiosCs: Record<Mode, number[]> = { literal: [], word: [] };
      const rgAll: number[] = [];
      const rgCs: number[] = [];
      const errors: string[] = [];
      let turn = 0;
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
        for (const mode of ['literal', 'word'] as const) {
          const got = new Map<McpEngine['who'], Asked>();
          // Alternate which engine asks first, so neither always runs right after rg.
          const order = turn++ % 2 === 0 ? engines : [...engines].reverse();
          for (const e of order) {
            const a = await ask(e.client, mode === 'literal' ? { query: q.text } : { query: q.text, mode });
            if (a.error) errors.push(`${e.who} ${q.text}/${mode}: ${a.error}`);
            got.set(e.who, a);
            first[e.who][mode].push(a.ms);
            ratios[e.who][mode].push(rgMs / a.ms);
            if (e.who === 'current' && csFiles) ratiosCs[mode].push(rgCsMs / a.ms);
          }
          const c = got.get('current')!;
          const b = got.get('base');
          table.push([
            q.text, String(q.files), mode,
            ...engines.flatMap((e) => {
              const a = got.get(e.who)!;
              return [fmt(a.ms, 'ms'), `${a.exact ? '' : '≥'}${a.totalAtLeast}`];
            }),
            fmt(rgMs, 'ms'), csFiles ? fmt(rgCsMs, 'ms') : '-', String(rgMatches), fmt(rgMs / c.ms, 'x'), ...(b ? [(c.ms / b.ms).toFixed(2)] : []),
          ]);
        }
      }
      const metrics: Metric[] = [];
      for (const mode of ['literal', 'word'] as const) {
        const f = first.current[mode];
        const r = ratios.current[mode];
        const vsBase = base ? `; base p50 ${fmt(median(first.base[mode]), 'ms')}, median per-query speed-up ${fmt(median(ratios.base[mode]), 'x')}` : '';
        metrics.push(
          { name: `${mode}: first ask p50`, value: median(f), unit: 'ms', detail: `${ids.length} declared identifiers, most frequent first, each asked once${vsBase}` },
          { name: `${mode}: first ask max`, value: f.length ? Math.max(...f) : undefined, unit: 'ms', detail: base ? `base ${fmt(Math.max(...first.base[mode]), 'ms')}` : '' },
          { name: `${mode}: median per-query speed-up vs rg -F`, value: median(r), unit: 'x', target: { op: '>=', value: 10 }, detail: 'rg -F median of its runs / the first ask, per query' },
          { name: `${mode}: smallest per-query speed-up vs rg -F`, value: r.length ? Math.min(...r) : undefined, unit: 'x', detail: base ? `base ${fmt(Math.min(...ratios.base[mode]), 'x')}` : '' },
          { name: `${mode}: speed-up vs rg -F (median rg / median first ask)`, value: (median(rgAll) ?? 0) / (median(f) ?? 1), unit: 'x', target: { op: '>=', value: 10 } },
        );
        if (csFiles) metrics.push({ name: `${mode}: median per-query speed-up vs rg -F -g '*.cs'`, value: median(ratiosCs[mode]), unit: 'x' });
      }
      metrics.push({ name: 'rg -F p50 over the same files', value: median(rgAll), unit: 'ms' });
      if (csFiles) metrics.push({ name: "rg -F -g '*.cs' p50", value: median(rgCs), unit: 'ms' });
      const notes = [
        'first ask: a warm engine (`sextant mcp`, start-up refresh and watcher sweep done, one unrelated question answered) asked each query once over stdio; timed at the client (JSON-RPC round trip included). No query repeats, so no result or walk cache applies.',
        `load ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} at the end`,
        ...errors.slice(0, 5),
      ];
      if (base) notes.push(`base: ${base.label}; engines alternate which asks first.`);
      return { metrics, table, notes, data: { ids, first, ratios, rgAll, rgCs } };
    } finally {
      for (const e of engines) await e.close().catch(() => undefined);
    }
  },
};
