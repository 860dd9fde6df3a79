/**
 * search_symbol bench: a realistic query set per match mode built from the index (short and long
 * queries, hits and misses, common prefixes, camelCase initials, typos), all modes measured in
 * the same run. Per mode: wall and CPU p50/p95 (each query run `repeat` times, the minimum kept:
 * on a shared machine it is the best estimate of the cost), and ranking quality — how often the
 * name the query was made from is the first hit (and in the top 10). Used by the `symbols` bench
 * section and by indexBench.ts.
 *
 * `replicateSymbols` copies every file row and its symbols N times under copyK/ (names of half the
 * copies get a per-copy suffix, ids get a per-copy suffix and hash) to measure a symbol table
 * bigger than the workspace's; `removeReplicas` takes them out again.
 */
import * as os from 'node:os';
import type { Engine } from '../../../server/src/nav/engine';
import { searchSymbols, type SymbolMatchMode, type SymbolSearchResult } from '../../../server/src/nav/syntaxSymbols';
import { symbolTableFor } from '../../../server/src/index/symbolTable';
import { splitWords } from '../../../server/src/index/symbolNames';

export interface BenchQuery {
  mode: SymbolMatchMode;
  query: string;
  /** What kind of query (for the table): hit, miss, common, short, long, typo, initials … */
  shape: string;
  /** The name the query was made from: ranking quality counts when it is the first hit. */
  expect?: string;
}

export interface ModeResult {
  queries: number;
  wallP50: number;
  wallP95: number;
  cpuP50: number;
  cpuP95: number;
  /** Share of queries with an expected name whose first hit has that name. */
  top1?: number;
  top10?: number;
  /** Queries whose total was a lower bound. */
  lowerBounds: number;
  slowest: string;
}

export interface SymbolBenchResult {
  symbols: number;
  distinctNames: number;
  loadAverage: number[];
  build: { ms: number; cpuMs: number; rows: number; readMs: number; sharedIdsMs: number; countMs: number; tableMiB: number; rssBeforeMiB: number; rssAfterMiB: number };
  modes: Record<string, ModeResult>;
  rssMiB: number;
  maxRssMiB: number;
}

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function replicateSymbols(engine: Engine, copies: number): number {
  const store = engine.store;
  const maxId = Number(store.rows('SELECT max(id) FROM files')[0]?.[0] ?? 0);
  store.transaction(() => {
    for (let k = 1; k <= copies; k++) {
      const off = maxId * k;
      store.db.run(`INSERT INTO files(id, path, class, language, size, mtime_ms, hash, lines, binary, generation)
        SELECT id + ${off}, 'copy${k}/' || path, class, language, size, mtime_ms, hash, lines, binary, generation FROM files WHERE id <= ${maxId}`);
      // symbol_rows is the storage behind the view symbols; a copy's ids differ by the sid suffix, so their hashes differ too
      store.db.run(`INSERT INTO symbol_rows SELECT file_id + ${off}, ordinal, parent, depth, (sid_hash + ${k} * 2654435761) % 4294967296, sid || '~c${k}',
        CASE WHEN (ordinal % 2) = 0 THEN name || 'V${k}' ELSE name END, qn, kind, scope, signature,
        line, end_line, col, end_col, name_line, name_col, flags, modifiers, attributes, extended_type FROM symbol_rows WHERE file_id <= ${maxId}`);
    }
  });
  engine.files.load(store);
  return maxId;
}

export function removeReplicas(engine: Engine, maxId: number): void {
  const store = engine.store;
  store.transaction(() => {
    store.db.run('DELETE FROM symbol_rows WHERE file_id > ?', [maxId]);
    store.db.run('DELETE FROM files WHERE id > ?', [maxId]);
  });
  engine.files.load(store);
}

/** The query set, made from names and qualified names sampled from the index (seeded). */
export function buildQueries(engine: Engine, seed = 7, perShape = 12): BenchQuery[] {
  const store = engine.store;
  const rand = rng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  // distinct names with their row counts; sample over names, not rows (rows are dominated by a few names)
  const counted = store.rows("SELECT name, count(*) FROM symbol_rows WHERE name NOT LIKE '%.%' GROUP BY name").map((r) => ({ name: r[0] as string, rows: r[1] as number }));
  const names = counted.map((c) => c.name);
  const common = [...counted].sort((a, b) => b.rows - a.rows).slice(0, 30).map((c) => c.name);
  const sample = (filter: (n: string) => boolean): string[] => {
    const pool = names.filter(filter);
    const out = new Set<string>();
    for (let i = 0; i < perShape * 4 && out.size < perShape && pool.length > 0; i++) out.add(pick(pool));
    return [...out];
  };
  const words = (n: string): string[] => splitWords(n);
  const multiWord = sample((n) => words(n).length >= 3 && /^[A-Z]/.test(n));
  const longNames = sample((n) => n.length >= 24);
  const shortNames = sample((n) => n.length <= 4);
  const mid = sample((n) => n.length >= 8 && n.length < 24);
  const miss = (n: string): string => n.slice(0, Math.max(3, n.length - 2)) + 'Qzx';
  const q: BenchQuery[] = [];
  const add = (mode: SymbolMatchMode, shape: string, query: string, expect?: string): void => {
    q.push(expect === undefined ? { mode, shape, query } : { mode, shape, query, expect });
  };
  for (const n of mid) add('exact', 'hit', n, n);
  for (const n of longNames) add('exact', 'long', n, n);
  for (const n of shortNames) add('exact', 'short', n, n);
  for (const n of common.slice(0, perShape)) add('exact', 'common', n, n);
  for (const n of mid.slice(0, perShape / 2)) add('exact', 'miss', miss(n));
  for (const p of ['Get', 'Add', 'Create', 'Is', 'Update', 'Validate', '_', 'I', 'Normalize', 'Dispose']) add('prefix', 'common', p);
  for (const n of mid) add('prefix', 'half', n.slice(0, Math.max(3, Math.ceil(n.length / 2))));
  for (const n of longNames) add('prefix', 'full name', n, n);
  for (const n of mid.slice(0, perShape / 2)) add('prefix', 'miss', miss(n));
  for (const n of mid) add('auto', 'name', n, n);
  for (const n of multiWord) add('auto', 'initials', words(n).map((w) => w[0]).join('').toUpperCase());
  for (const n of mid.slice(0, perShape / 2)) add('auto', 'miss', miss(n));
  for (const n of multiWord) add('camelCase', 'initials', words(n).map((w) => (w[0] ?? '').toUpperCase()).join(''));
  for (const n of multiWord) add('camelCase', 'chunks', words(n).map((w) => w.slice(0, 3)).join(''), n);
  for (const n of multiWord) add('camelCase', 'lower initials', words(n).map((w) => (w[0] ?? '').toLowerCase()).join(''));
  for (const n of multiWord.slice(0, perShape / 2)) add('camelCase', 'miss', 'Q' + words(n).map((w) => (w[0] ?? '').toUpperCase()).join('') + 'ZX');
  for (const n of [...mid, ...longNames]) {
    // one typo: swap two adjacent letters, drop one, or replace one (never the first letter)
    const at = 1 + Math.floor(rand() * (n.length - 2));
    const kind = Math.floor(rand() * 3);
    const typo = kind === 0 ? n.slice(0, at) + n[at + 1] + n[at] + n.slice(at + 2) : kind === 1 ? n.slice(0, at) + n.slice(at + 1) : n.slice(0, at) + (n[at] === 'x' ? 'q' : 'x') + n.slice(at + 1);
    add('fuzzy', 'typo', typo, n);
  }
  for (const n of multiWord) add('fuzzy', 'abbreviation', n.replace(/[aeiou]/g, '').slice(0, 8).toLowerCase());
  for (const n of shortNames.slice(0, perShape / 2)) add('fuzzy', 'short', n.toLowerCase());
  for (const n of mid.slice(0, perShape / 2)) add('fuzzy', 'miss', 'zq' + n.toLowerCase().slice(2) + 'jj');
  for (const n of mid) add('substring', 'middle', n.slice(2, 2 + Math.min(8, n.length - 3)));
  for (const n of mid.slice(0, perShape / 2)) add('substring', 'short', n.slice(1, 4));
  for (const n of mid.slice(0, perShape / 2)) add('substring', 'miss', 'qzx' + n.slice(1, 5));
  for (const r of ['^Get.*Async$', 'Service$', '^I[A-Z]', '^_[a-z]+$', 'Handler|Mapper', '^Normalize\\d?$', '^Zq.*x$']) add('regex', 'pattern', r);
  for (const n of mid.slice(0, perShape / 2)) add('regex', 'name', `^${n.slice(0, 4)}.*${n.slice(-3)}$`);
  // qualified: Type.Member and full qualified names and documentation ids of sampled rows
  const fileIds = store.rows("SELECT DISTINCT file_id FROM symbol_rows WHERE file_id IN (SELECT id FROM files WHERE path NOT LIKE 'copy%')").map((r) => r[0] as number);
  const chosen = Array.from({ length: Math.min(perShape * 2, fileIds.length) }, () => pick(fileIds));
  const rows = store.rows(`SELECT qualified_name, symbol_id, name FROM symbols WHERE kind IN ('method', 'class', 'property') AND file_id IN (${chosen.map(() => '?').join(',')})`, chosen);
  const some = Array.from({ length: Math.min(perShape, rows.length) }, () => pick(rows));
  for (const r of some) {
    const qn = String(r[0]);
    const name = String(r[2]);
    const parts = qn.split('.');
    add('qualified', 'Type.Member', parts.slice(-2).join('.'), name);
    add('qualified', 'full', qn, name);
    if (/^[NTMPFE]:/.test(String(r[1]))) add('qualified', 'doc id', String(r[1]), name);
  }
  add('qualified', 'miss', 'Acme.NoSuchType.Nothing');
  return q;
}

const MODES: SymbolMatchMode[] = ['exact', 'prefix', 'qualified', 'auto', 'camelCase', 'fuzzy', 'substring', 'regex'];

export function runSymbolBench(engine: Engine, queries: BenchQuery[], repeat = 3): SymbolBenchResult {
  const store = engine.store;
  const rss0 = process.memoryUsage().rss;
  const table = symbolTableFor(store);
  const rss1 = process.memoryUsage().rss;
  const build = table.lastBuild ?? { ms: 0, cpuMs: 0, rows: 0, readMs: 0, sharedIdsMs: 0, countMs: 0 };
  const loadAverage = os.loadavg().map((x) => +x.toFixed(2));
  const modes: Record<string, ModeResult> = {};
  for (const mode of MODES) {
    const qs = queries.filter((x) => x.mode === mode);
    if (qs.length === 0) continue;
    const wall: number[] = [];
    const cpu: number[] = [];
    let ranked = 0;
    let top1 = 0;
    let top10 = 0;
    let lowerBounds = 0;
    let slowest = '';
    let slowestMs = -1;
    for (const x of qs) {
      let best = Infinity;
      let bestCpu = Infinity;
      let last: SymbolSearchResult | undefined;
      for (let r = 0; r < repeat; r++) {
        const c = process.cpuUsage();
        const t = performance.now();
        last = searchSymbols(engine, { query: x.query, match: mode, offset: 0, limit: 20, deadlineAt: Date.now() + 10_000 });
        const ms = performance.now() - t;
        const d = process.cpuUsage(c);
        best = Math.min(best, ms);
        bestCpu = Math.min(bestCpu, (d.user + d.system) / 1000);
      }
      wall.push(best);
      cpu.push(bestCpu);
      if (best > slowestMs) {
        slowestMs = best;
        slowest = `${x.query} (${x.shape}, ${best.toFixed(1)} ms, ${last?.total ?? 0}${last?.totalIsLowerBound ? '+' : ''} hits)`;
      }
      if (last?.totalIsLowerBound) lowerBounds++;
      if (x.expect !== undefined && last) {
        ranked++;
        if (last.hits[0]?.name === x.expect) top1++;
        if (last.hits.slice(0, 10).some((h) => h.name === x.expect)) top10++;
      }
    }
    const pct = (xs: number[], p: number): number => {
      const s = [...xs].sort((a, b) => a - b);
      return +(s[Math.min(s.length - 1, Math.max(0, Math.ceil(p * s.length) - 1))] ?? 0).toFixed(2);
    };
    const m: ModeResult = { queries: qs.length, wallP50: pct(wall, 0.5), wallP95: pct(wall, 0.95), cpuP50: pct(cpu, 0.5), cpuP95: pct(cpu, 0.95), lowerBounds, slowest };
    if (ranked > 0) {
      m.top1 = +(top1 / ranked).toFixed(3);
      m.top10 = +(top10 / ranked).toFixed(3);
    }
    modes[mode] = m;
  }
  const symbols = Number(store.rows('SELECT count(*) FROM symbol_rows')[0]?.[0] ?? 0);
  return {
    symbols,
    distinctNames: table.names.size,
    loadAverage,
    build: { ms: +build.ms.toFixed(0), cpuMs: +build.cpuMs.toFixed(0), rows: build.rows, readMs: +build.readMs.toFixed(0), sharedIdsMs: +build.sharedIdsMs.toFixed(0), countMs: +build.countMs.toFixed(0), tableMiB: +(table.bytes() / 1048576).toFixed(1), rssBeforeMiB: Math.round(rss0 / 1048576), rssAfterMiB: Math.round(rss1 / 1048576) },
    modes,
    rssMiB: Math.round(process.memoryUsage().rss / 1048576),
    maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}
