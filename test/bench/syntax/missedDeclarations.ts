/**
 * Bench: parse every .cs file under a directory in this thread and compare each outline with a
 * tolerant text scan. Prints parse time, the share of files with parse errors, and the share of
 * files whose outline misses a declaration the scan found (the issue's target: < 0.5%).
 *   npx tsx test/bench/syntax/missedDeclarations.ts <dir> [--show N] [--whole]
 * --whole parses every file whole (no skeleton parse), for comparing the two.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseTextSync, prepareLanguage } from '../../../server/src/syntax/parseFile';
import { scanCSharpDeclarations } from './csharpTextScan';

function* walk(dir: string): Generator<string> {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.name.endsWith('.cs')) yield p;
  }
}

async function main(): Promise<void> {
  const dir = process.argv[2] ?? '.';
  const show = Number(process.argv[process.argv.indexOf('--show') + 1] || 20);
  const whole = process.argv.includes('--whole');
  const config = await prepareLanguage('csharp');
  if (!config) throw new Error('no csharp config');
  let files = 0, bytes = 0, lines = 0, errFiles = 0, reparsed = 0, missedFiles = 0, missedNames = 0, symbols = 0, recovered = 0, stillErr = 0;
  let parseMs = 0;
  const examples: string[] = [];
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let cpuParse = 0;
  for (const f of walk(dir)) {
    const text = fs.readFileSync(f, 'utf8');
    const rel = path.relative(dir, f);
    const c = process.cpuUsage();
    const r = parseTextSync(rel, text, config, { skeleton: !whole });
    const d = process.cpuUsage(c);
    cpuParse += (d.user + d.system) / 1e6;
    files++;
    bytes += Buffer.byteLength(text);
    lines += r.lineCount;
    parseMs += r.parseMs;
    symbols += r.symbols.length;
    recovered += r.diagnostics.recoveredDeclarations;
    if (r.diagnostics.reparsedWith.length) reparsed++;
    if (r.diagnostics.hasErrors) stillErr++;
    if (r.diagnostics.hasErrors || r.diagnostics.reparsedWith.length) errFiles++;
    const have = new Set(r.symbols.map((s) => s.name));
    const missing = scanCSharpDeclarations(text).filter((d) => !have.has(d.name));
    if (missing.length) {
      missedFiles++;
      missedNames += missing.length;
      if (examples.length < show) examples.push(`${rel}: ${missing.slice(0, 4).map((m) => `${m.kind} ${m.name}@${m.line}`).join(', ')}${r.diagnostics.hasErrors ? ' [errors at ' + r.diagnostics.errorLines.slice(0, 3).join(',') + ']' : ''}`);
    }
  }
  const wall = performance.now() - t0;
  console.log(JSON.stringify({
    dir, mode: whole ? 'whole files' : 'skeleton first', files, MiB: +(bytes / 1048576).toFixed(1), lines, symbols,
    filesWithErrorsFirstParse: errFiles, reparsed, filesStillWithErrors: stillErr, recoveredDeclarations: recovered,
    missedFiles, missedShare: +((100 * missedFiles) / files).toFixed(3) + '%', missedNames,
    parseSeconds: +(parseMs / 1000).toFixed(1), parseCpuSeconds: +cpuParse.toFixed(1), wallSeconds: +(wall / 1000).toFixed(1), processCpuSeconds: +((process.cpuUsage(cpu0).user + process.cpuUsage(cpu0).system) / 1e6).toFixed(1),
  }, null, 1));
  for (const e of examples) console.log('  ' + e);
}
void main();
