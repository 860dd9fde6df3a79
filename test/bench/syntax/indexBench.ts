/**
 * Bench: index a directory with the default hooks (text index, projects, symbols through the
 * parse worker pool), then measure syntax-tool latencies on the result.
 *   npx tsx test/bench/syntax/indexBench.ts <workspace> [--index-root DIR] [--replicate N] [--repeat N]
 * Prints refresh time (wall and process CPU), symbol counts, and p50/p95 latencies of outline
 * (from the index and from a fresh parse) and search_symbol per match mode.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { fileOutline } from '../../../server/src/nav/syntaxOutline';
import { searchSymbols, type SymbolMatchMode } from '../../../server/src/nav/syntaxSymbols';

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return +(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0).toFixed(2);
}

async function main(): Promise<void> {
  const ws = path.resolve(process.argv[2] ?? '.');
  const i = process.argv.indexOf('--index-root');
  const indexRoot = i > 0 ? path.resolve(process.argv[i + 1] ?? '') : '';
  const engine = await Engine.open({ workspaceRoot: ws, indexRoot });
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  // --reuse: an index root that already holds the index (refresh finds nothing to do)
  const stats = await engine.refresh();
  const cpu = process.cpuUsage(cpu0);
  const refreshSeconds = (performance.now() - t0) / 1000;
  const symbols = Number(engine.store.rows('SELECT count(*) FROM symbols')[0]?.[0] ?? 0);
  const syntaxFiles = engine.store.rows('SELECT count(*), sum(has_errors), sum(reparsed != \'[]\') FROM syntax_files')[0] ?? [];
  console.log(JSON.stringify({ ws, files: stats.files, parsedFiles: stats.parsedFiles, MiB: +(stats.bytes / 1048576).toFixed(1), refreshSeconds: +refreshSeconds.toFixed(1), processCpuSeconds: +((cpu.user + cpu.system) / 1e6).toFixed(1), symbols, syntaxFiles: syntaxFiles[0], withErrors: syntaxFiles[1], reparsed: syntaxFiles[2] }));

  // --replicate N: copy every file row and its symbols N more times (names of half the copies get a
  // per-copy suffix) to measure search_symbol on a bigger symbol table than the workspace has.
  const rp = process.argv.indexOf('--repeat');
  const repeat = rp > 0 ? Number(process.argv[rp + 1] ?? 1) : 1;
  const ri = process.argv.indexOf('--replicate');
  const replicas = ri > 0 ? Number(process.argv[ri + 1] ?? 0) : 0;
  if (replicas > 0) {
    const maxId = Number(engine.store.rows('SELECT max(id) FROM files')[0]?.[0] ?? 0);
    engine.store.transaction(() => {
      for (let k = 1; k <= replicas; k++) {
        const off = maxId * k;
        engine.store.db.run(`INSERT INTO files(id, path, class, language, size, mtime_ms, hash, lines, binary, generation)
          SELECT id + ${off}, 'copy${k}/' || path, class, language, size, mtime_ms, hash, lines, binary, generation FROM files WHERE id <= ${maxId}`);
        // symbol_rows is the storage behind the view symbols (migration 5); ids stay distinct by the sid suffix.
        engine.store.db.run(`INSERT INTO symbol_rows SELECT file_id + ${off}, ordinal, parent, depth, sid_hash, sid || '~c${k}',
          CASE WHEN (ordinal % 2) = 0 THEN name || 'V${k}' ELSE name END, qn, kind, scope, signature,
          line, end_line, col, end_col, name_line, name_col, flags, modifiers, attributes, extended_type FROM symbol_rows WHERE file_id <= ${maxId}`);
      }
    });
    engine.files.load(engine.store);
  }
  const totalSymbols = Number(engine.store.rows('SELECT count(*) FROM symbols')[0]?.[0] ?? 0);

  // outline latency: the largest C# files, from the index, then from a fresh parse (file touched)
  // the 20 C# files closest to 5,000 lines (the outline target)
  const big = engine.catalog().all().filter((f) => f.language === 'csharp' && !f.path.startsWith('copy')).sort((a, b) => Math.abs(a.lines - 5000) - Math.abs(b.lines - 5000)).slice(0, 20).sort((a, b) => b.lines - a.lines);
  const fromIndex: number[] = [];
  const fromIndexCpu: number[] = [];
  for (const f of big) {
    let best = Infinity;
    let bestCpu = Infinity;
    for (let r = 0; r < repeat; r++) {
      const s = performance.now();
      const c = process.cpuUsage();
      await fileOutline(engine, f.path);
      const d = process.cpuUsage(c);
      bestCpu = Math.min(bestCpu, (d.user + d.system) / 1000);
      best = Math.min(best, performance.now() - s);
    }
    fromIndexCpu.push(bestCpu);
    fromIndex.push(best);
  }
  const fromParse: number[] = [];
  const fromParseCpu: number[] = [];
  for (const f of big) {
    const abs = path.join(engine.root, f.path);
    const st = fs.statSync(abs);
    fs.utimesSync(abs, st.atime, new Date(st.mtimeMs + 1000));
    let best = Infinity;
    let bestCpu = Infinity;
    for (let r = 0; r < repeat; r++) {
      const s = performance.now();
      const c = process.cpuUsage();
      await fileOutline(engine, f.path);
      const d = process.cpuUsage(c);
      bestCpu = Math.min(bestCpu, (d.user + d.system) / 1000);
      best = Math.min(best, performance.now() - s);
    }
    fromParseCpu.push(bestCpu);
    fromParse.push(best);
    fs.utimesSync(abs, st.atime, st.mtime);
  }
  console.log(JSON.stringify({ outline: { files: big.length, lines: `${big[big.length - 1]?.lines}-${big[0]?.lines}`, indexWallP50: pct(fromIndex, 50), indexWallP95: pct(fromIndex, 95), indexCpuP95: pct(fromIndexCpu, 95), parseWallP50: pct(fromParse, 50), parseWallP95: pct(fromParse, 95), parseCpuP50: pct(fromParseCpu, 50), parseCpuP95: pct(fromParseCpu, 95) } }));

  // search_symbol latency per mode over names sampled from the index
  const names = engine.store.rows('SELECT name FROM symbols WHERE length(name) > 3 ORDER BY random() LIMIT 200').map((r) => r[0] as string);
  const camel = (n: string): string => (n.match(/[A-Z]/g) ?? [n[0] ?? 'a']).join('');
  const modes: [SymbolMatchMode, (n: string) => string][] = [
    ['exact', (n) => n],
    ['prefix', (n) => n.slice(0, Math.max(3, Math.ceil(n.length / 2)))],
    ['auto', (n) => n],
    ['camelCase', camel],
    ['fuzzy', (n) => n.replace(/[aeiou]/g, '').slice(0, 8).toLowerCase()],
    ['substring', (n) => n.slice(1, 6)],
  ];
  searchSymbols(engine, { query: 'warmup', match: 'exact', offset: 0, limit: 20, deadlineAt: Date.now() + 60_000 });
  const out: Record<string, unknown> = {};
  for (const [mode, make] of modes) {
    const times: number[] = [];
    const cpuTimes: number[] = [];
    for (const n of names) {
      // min of `repeat` runs per query: on a shared machine the minimum is the best estimate of the cost
      let best = Infinity;
      let bestCpu = Infinity;
      for (let r = 0; r < repeat; r++) {
        const s = performance.now();
        const c = process.cpuUsage();
        searchSymbols(engine, { query: make(n), match: mode, offset: 0, limit: 20, deadlineAt: Date.now() + 10_000 });
        const d = process.cpuUsage(c);
        bestCpu = Math.min(bestCpu, (d.user + d.system) / 1000);
        best = Math.min(best, performance.now() - s);
      }
      cpuTimes.push(bestCpu);
      times.push(best);
    }
    out[mode] = { wallP50: pct(times, 50), wallP95: pct(times, 95), cpuP50: pct(cpuTimes, 50), cpuP95: pct(cpuTimes, 95) };
  }
  console.log(JSON.stringify({ searchSymbolMs: out, queries: names.length, symbols: totalSymbols, distinctNames: Number(engine.store.rows('SELECT count(DISTINCT name) FROM symbols')[0]?.[0] ?? 0) }));
  await engine.close();
}
void main();
