/**
 * file_dependencies through the MCP layer (in-process callTool, warm engine): latency and the
 * bytes the model receives (structuredContent JSON, text) for the dependencies and the dependents
 * of sampled TS/JS files (every `step`-th source file by path, so any target works), beside the
 * baseline an agent has without it in the same run: reading the file for its imports
 * (dependencies) and `rg` for the file's module name (dependents, still unresolved). The first
 * dependents call of an index version builds the reverse graph (reported apart). C# files, when
 * the target has no TS/JS, are measured with the engine's heuristic (no language servers).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import type { Engine } from '../../../server/src/nav/engine';
import { ripgrepPath } from '../../../server/src/nav/ripgrep';
import { semanticService } from '../../../server/src/nav/semanticService';
import { fmt } from '../report';
import { median, p95 } from '../stats';
import type { BenchSection, Metric } from '../types';

const TOOL = ALL_TOOLS.find((t) => t.name === 'file_dependencies')!;
const TS = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

async function ask(e: Engine, args: Record<string, unknown>): Promise<{ ms: number; json: number; text: number; rows: number; mode?: string }> {
  const t0 = performance.now();
  const r = await callTool(e, ALL_TOOLS, TOOL, TOOL.name, args, 30_000);
  const ms = performance.now() - t0;
  const text = (r.content as { text?: string }[])[0]?.text ?? '';
  const sc = r.structuredContent as { items?: unknown[]; mode?: string } | undefined;
  return { ms, json: sc ? Buffer.byteLength(JSON.stringify(sc)) : 0, text: Buffer.byteLength(text), rows: sc?.items?.length ?? 0, ...(sc?.mode ? { mode: sc.mode } : {}) };
}

export const section: BenchSection = {
  name: 'file_dependencies',
  order: 75,
  description: 'file_dependencies (MCP layer in process, warm): dependencies / dependents of sampled files vs reading the file / rg for its name',
  async run(ctx) {
    const e = await ctx.engine();
    semanticService(e, { noLsp: true });
    const all = e.catalog().all().filter((r) => r.fileClass === 'source' || r.fileClass === 'test');
    let files = all.filter((r) => TS.test(r.path) && !r.path.endsWith('.d.ts')).map((r) => r.path).sort();
    const csharp = files.length === 0;
    if (csharp) files = all.filter((r) => r.path.endsWith('.cs')).map((r) => r.path).sort();
    if (files.length === 0) return { metrics: [{ name: 'file_dependencies', value: undefined, unit: 'ms', detail: 'no TS/JS or C# source files' }] };
    const n = Math.min(files.length, ctx.options.quick ? 10 : csharp ? 20 : 60);
    const step = Math.max(1, Math.floor(files.length / n));
    const sample = files.filter((_, i) => i % step === 0).slice(0, n);
    // The first dependents call of this index version builds the reverse graph.
    const cold = await ask(e, { path: sample[0]!, direction: 'dependents' });
    const deps = [] as Awaited<ReturnType<typeof ask>>[];
    const dents = [] as Awaited<ReturnType<typeof ask>>[];
    let readBytes = 0;
    let rgBytes = 0;
    const rgMs: number[] = [];
    for (const f of sample) {
      deps.push(await ask(e, { path: f }));
      dents.push(await ask(e, { path: f, direction: 'dependents' }));
      readBytes += fs.statSync(path.join(ctx.target.root, f)).size;
      const base = path.posix.basename(f).replace(/\.[^.]+$/, '');
      const t0 = performance.now();
      const pattern = csharp ? `\\b${base.split('.')[0]}\\b` : `['"/]${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\.[cm]?[jt]sx?)?['"]`;
      const r = spawnSync(ripgrepPath(), ['--no-config', '-n', '-e', pattern, '--', '.'], { cwd: ctx.target.root, maxBuffer: 1 << 28, encoding: 'utf8' });
      rgMs.push(performance.now() - t0);
      rgBytes += Buffer.byteLength(r.stdout ?? '');
    }
    const sum = (xs: { json: number }[]) => xs.reduce((s, x) => s + x.json, 0);
    const modes = [...new Set([...deps, ...dents].map((x) => x.mode).filter(Boolean))].join(', ');
    const metrics: Metric[] = [
      { name: 'dependencies p50', value: median(deps.map((x) => x.ms)), unit: 'ms', detail: `${sample.length} ${csharp ? 'C#' : 'TS/JS'} files of ${files.length}; p95 ${fmt(p95(deps.map((x) => x.ms)), 'ms')}${modes ? `; mode ${modes}` : ''}` },
      { name: 'dependents p50 (warm)', value: median(dents.map((x) => x.ms)), unit: 'ms', detail: `p95 ${fmt(p95(dents.map((x) => x.ms)), 'ms')}; first call of the version (builds the reverse graph) ${fmt(cold.ms, 'ms')}` },
      { name: 'dependencies bytes / file (JSON)', value: Math.round(sum(deps) / sample.length), unit: 'count', detail: `rows ${median(deps.map((x) => x.rows))} median; baseline: reading the file ${Math.round(readBytes / sample.length)} B / file` },
      { name: 'dependents bytes / file (JSON)', value: Math.round(sum(dents) / sample.length), unit: 'count', detail: `rows ${median(dents.map((x) => x.rows))} median; baseline: rg for the module name ${Math.round(rgBytes / sample.length)} B / file, p50 ${fmt(median(rgMs), 'ms')}` },
    ];
    return { metrics };
  },
};
