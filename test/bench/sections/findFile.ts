/** find_file latency (in-process against the engine API, warm): names, prefixes, path parts, globs. */
import { findFiles } from '../../../server/src/nav/findFile';
import type { Engine } from '../../../server/src/nav/engine';
import type { WorkspaceManifest } from '../../fixtures/generate/manifest';
import { fmt } from '../report';
import { median, p95, timeIt } from '../stats';
import type { BenchSection } from '../types';

function queries(engine: Engine, manifest: WorkspaceManifest | undefined): string[] {
  const rows = engine.catalog().all().filter((r) => r.fileClass === 'source').sort((a, b) => (a.path < b.path ? -1 : 1));
  const pickPath = (() => {
    const impl = manifest?.facts.find((f) => f.id === 'serviceImplementation' || f.id === 'serviceClass');
    if (impl && impl.kind === 'symbol' && impl.declarations[0]) return impl.declarations[0].path;
    return rows[Math.floor(rows.length / 2)]?.path;
  })();
  const out: string[] = [];
  if (pickPath) {
    const name = pickPath.slice(pickPath.lastIndexOf('/') + 1);
    out.push(name, name.slice(0, Math.min(8, name.length - 1)));
    const dirs = pickPath.split('/').slice(0, -1);
    if (dirs.length >= 2) out.push(`${dirs[dirs.length - 1]}/${name}`);
  }
  const ext = new Map<string, number>();
  for (const r of rows) {
    const dot = r.path.lastIndexOf('.');
    if (dot > r.path.lastIndexOf('/')) ext.set(r.path.slice(dot), (ext.get(r.path.slice(dot)) ?? 0) + 1);
  }
  const top = [...ext.entries()].sort((a, b) => b[1] - a[1])[0];
  if (manifest?.generator.kind === 'csharp') out.push('Repository', 'Controllers/', '**/*.csproj', '**/Processing/*.Scoring.cs');
  else if (top) out.push(`**/*${top[0]}`);
  out.push('zzzz_no_such_file');
  return [...new Set(out)];
}

export const section: BenchSection = {
  name: 'find_file',
  order: 30,
  description: 'find_file (engine API, warm, limit 20)',
  async run(ctx) {
    const engine = await ctx.engine();
    const n = ctx.options.quick ? 10 : 50;
    const all: number[] = [];
    const table = [['query', 'p50', 'p95', 'matches', 'first hit']];
    for (const q of queries(engine, ctx.target.manifest)) {
      let last: ReturnType<typeof findFiles> | undefined;
      const ms = await timeIt(n, 2, () => findFiles(engine, { query: q, offset: 0, limit: 20 }), (r) => (last = r));
      all.push(...ms);
      table.push([q, fmt(median(ms), 'ms'), fmt(p95(ms), 'ms'), String(last?.total ?? 0), last?.hits[0]?.path ?? '—']);
    }
    return {
      metrics: [{ name: 'find_file p95 (all queries)', value: p95(all), unit: 'ms', target: { op: '<=', value: 20 }, detail: `${table.length - 1} queries × ${n} runs; ${engine.catalog().size} files` }],
      table,
    };
  },
};
