/**
 * Bench: index a directory with the default hooks (text index, projects, symbols through the
 * parse worker pool), then measure syntax-tool latencies on the result.
 *   npx tsx test/bench/syntax/indexBench.ts <workspace> [--index-root DIR] [--replicate N] [--repeat N]
 * Prints refresh time (wall and process CPU), symbol counts, and p50/p95 latencies of outline
 * (from the index and from a fresh parse) and search_symbol per match mode (symbolSearch.ts; the
 * `symbols` section of `npm run bench` runs the same over ≥ 1 M symbols).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { fileOutline } from '../../../server/src/nav/syntaxOutline';
import { buildQueries, replicateSymbols, runSymbolBench } from './symbolSearch';

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

  // --replicate N: copy every file row and its symbols N more times (see symbolSearch.ts) to
  // measure search_symbol on a bigger symbol table than the workspace has.
  const rp = process.argv.indexOf('--repeat');
  const repeat = rp > 0 ? Number(process.argv[rp + 1] ?? 1) : 1;
  const ri = process.argv.indexOf('--replicate');
  const replicas = ri > 0 ? Number(process.argv[ri + 1] ?? 0) : 0;
  if (replicas > 0) replicateSymbols(engine, replicas);
  const totalSymbols = Number(engine.store.rows('SELECT count(*) FROM symbols')[0]?.[0] ?? 0);

  // outline latency: the largest C# files, from the index, then from a fresh parse (file touched)
  // the 20 C# files closest to 5,000 lines (the outline target)
  const big = engine.catalog().all().filter((f) => f.language === 'csharp' && !f.path.startsWith('copy')).sort((a, b) => Math.abs(a.lines - 5000) - Math.abs(b.lines - 5000)).slice(0, 20).sort((a, b) => b.lines - a.lines);
  /** Fastest wall and CPU ms of `repeat` outline calls for one file. */
  const bestOutline = async (file: string): Promise<{ best: number; bestCpu: number }> => {
    let best = Infinity;
    let bestCpu = Infinity;
    for (let r = 0; r < repeat; r++) {
      const s = performance.now();
      const c = process.cpuUsage();
      await fileOutline(engine, file);
      const d = process.cpuUsage(c);
      bestCpu = Math.min(bestCpu, (d.user + d.system) / 1000);
      best = Math.min(best, performance.now() - s);
    }
    return { best, bestCpu };
  };
  const fromIndex: number[] = [];
  const fromIndexCpu: number[] = [];
  for (const f of big) {
    const { best, bestCpu } = await bestOutline(f.path);
    fromIndexCpu.push(bestCpu);
    fromIndex.push(best);
  }
  const fromParse: number[] = [];
  const fromParseCpu: number[] = [];
  for (const f of big) {
    const abs = path.join(engine.root, f.path);
    const st = fs.statSync(abs);
    fs.utimesSync(abs, st.atime, new Date(st.mtimeMs + 1000));
    const { best, bestCpu } = await bestOutline(f.path);
    fromParseCpu.push(bestCpu);
    fromParse.push(best);
    fs.utimesSync(abs, st.atime, st.mtime);
  }
  console.log(JSON.stringify({ outline: { files: big.length, lines: `${big[big.length - 1]?.lines}-${big[0]?.lines}`, indexWallP50: pct(fromIndex, 50), indexWallP95: pct(fromIndex, 95), indexCpuP95: pct(fromIndexCpu, 95), parseWallP50: pct(fromParse, 50), parseWallP95: pct(fromParse, 95), parseCpuP50: pct(fromParseCpu, 50), parseCpuP95: pct(fromParseCpu, 95) } }));

  // search_symbol latency and ranking quality per mode (the query set of symbolSearch.ts)
  const r = runSymbolBench(engine, buildQueries(engine), Math.max(1, repeat));
  console.log(JSON.stringify({ searchSymbol: r, totalSymbols }));
  await engine.close();
}
void main();
