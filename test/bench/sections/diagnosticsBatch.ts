/**
 * diagnostics and the batch forms (issue 13): latency p50/p95 and answer bytes, in-process through
 * the tool path (callTool: validation, deadline, byte budget), on the generated workspace.
 * - diagnostics of one file, of one project, of the changed files (none: a clean tree) and of the
 *   workspace (capped per call), from the C# provider the engine picks (the Roslyn host when built),
 *   warmed first until it answers precisely; the mode and source of every answer are reported.
 * - definition with `targets` (N declarations spread over the workspace) vs the same N single
 *   definition calls, references with `targets` vs N singles, outline with `paths` vs N singles:
 *   latency of the one batch call vs the sum of the singles, and bytes of each.
 */
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import type { Engine } from '../../../server/src/nav/engine';
import { semanticService } from '../../../server/src/nav/semanticService';
import { median, p95 } from '../stats';
import type { BenchSection, Metric } from '../types';

const WARM_MS = 180_000;

async function tool(e: Engine, name: string, args: Record<string, unknown>): Promise<{ ms: number; bytes: number; sc: any }> {
  const t0 = performance.now();
  const r = await callTool(e, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, args, 10_000);
  const ms = performance.now() - t0;
  const sc = r.structuredContent as any;
  return { ms, bytes: sc ? Buffer.byteLength(JSON.stringify(sc)) : Buffer.byteLength((r.content as { text?: string }[])[0]?.text ?? ''), sc };
}

/** Declarations (class names) of production files spread over the workspace, as positions. */
function pickDeclarations(e: Engine, n: number): { path: string; line: number; column: number }[] {
  const rows = e.store.rows(
    `SELECT f.path, s.name_line, s.name_col FROM symbols s JOIN files f ON f.id = s.file_id
     WHERE s.kind = 'class' AND f.class = 'source' AND (s.flags & 3) = 0 ORDER BY f.path, s.line`,
  );
  const step = Math.max(1, Math.floor(rows.length / n));
  const out: { path: string; line: number; column: number }[] = [];
  for (let i = 0; i < rows.length && out.length < n; i += step) out.push({ path: String(rows[i]![0]), line: Number(rows[i]![1]), column: Number(rows[i]![2]) });
  return out;
}

export const section: BenchSection = {
  name: 'diagnostics and batch',
  order: 54,
  description: 'diagnostics (file, project, changed, workspace) latency and bytes; definition/references/outline batch calls vs the same N single calls (latency, bytes)',
  async run(ctx) {
    const e = await ctx.engine();
    semanticService(e);
    const reps = ctx.options.quick ? 3 : 7;
    const n = 10;
    const decls = pickDeclarations(e, n);
    if (decls.length < 2) return { metrics: [], notes: ['no class declarations in production files'] };
    const files = [...new Set(decls.map((d) => d.path))];
    const project = e.catalog().all().length ? (await tool(e, 'find_file', { query: files[0]! })).sc?.items?.[0]?.projects?.[0] : undefined;
    // Warm the C# provider on diagnostics of one file until it answers precisely.
    const warmEnd = Date.now() + WARM_MS;
    let warm: any;
    while (Date.now() < warmEnd) {
      warm = (await tool(e, 'diagnostics', { path: files[0]! })).sc;
      if (warm?.mode === 'precise' && !warm.completeness?.partial) break;
    }
    ctx.progress(`diagnostics: provider warm (${warm?.mode}, from ${warm?.sources?.map((s: any) => s.from).join('/')})`);
    const metrics: Metric[] = [];
    const table: string[][] = [['call', 'p50 ms', 'p95 ms', 'bytes (median)', 'rows / entries', 'mode', 'from']];
    const measure = async (label: string, name: string, args: Record<string, unknown>, times = reps) => {
      const ms: number[] = [];
      const bytes: number[] = [];
      let last: any;
      for (let i = 0; i < times; i++) {
        const r = await tool(e, name, args);
        ms.push(r.ms);
        bytes.push(r.bytes);
        last = r.sc;
      }
      table.push([label, String(Math.round(median(ms)!)), String(Math.round(p95(ms)!)), String(median(bytes)), String(last?.completeness?.total ?? last?.items?.length ?? 0), String(last?.mode ?? '-'), String((last?.sources ?? []).map((s: any) => s.from).join('/') || '-')]);
      return { ms, bytes, last };
    };
    // diagnostics: a file each (several files), a project, the changed files, the workspace (first page).
    const perFile: number[] = [];
    const perFileBytes: number[] = [];
    for (const f of files.slice(0, 5)) {
      const r = await measure(`diagnostics path ${f.split('/').slice(-1)[0]}`, 'diagnostics', { path: f }, Math.max(2, reps - 2));
      perFile.push(...r.ms);
      perFileBytes.push(...r.bytes);
    }
    metrics.push({ name: 'diagnostics (one file) latency p50', value: median(perFile), unit: 'ms', detail: `${perFile.length} calls over ${Math.min(5, files.length)} files, warm; mode ${warm?.mode}` });
    metrics.push({ name: 'diagnostics (one file) latency p95', value: p95(perFile), unit: 'ms' });
    metrics.push({ name: 'diagnostics (one file) answer bytes (median)', value: median(perFileBytes), unit: 'count' });
    if (project) {
      const r = await measure(`diagnostics project ${project}`, 'diagnostics', { project });
      metrics.push({ name: 'diagnostics (one project) latency p50', value: median(r.ms), unit: 'ms', detail: `${project}: ${r.last?.completeness?.total ?? 0} rows, mode ${r.last?.mode}` });
      metrics.push({ name: 'diagnostics (one project) answer bytes (median)', value: median(r.bytes), unit: 'count' });
    }
    const ch = await measure('diagnostics changed', 'diagnostics', { changed: true });
    metrics.push({ name: 'diagnostics (changed files) latency p50', value: median(ch.ms), unit: 'ms', detail: `${ch.last?.summary ?? ''}` });
    const ws = await measure('diagnostics workspace (first page)', 'diagnostics', {}, 2);
    metrics.push({ name: 'diagnostics (workspace, capped per call) latency p50', value: median(ws.ms), unit: 'ms', detail: `${String(ws.last?.summary ?? '').slice(0, 160)}; partial: ${String(ws.last?.completeness?.partial ?? 'none').slice(0, 160)}` });
    // Batch vs singles.
    const targets = decls;
    const pair = async (label: string, name: string, batchArgs: Record<string, unknown>, singles: Record<string, unknown>[]) => {
      // Both forms warm: each question asked once before either is measured.
      for (const a of singles) await tool(e, name, a);
      await tool(e, name, batchArgs);
      const b = await measure(`${label} batch of ${singles.length}`, name, batchArgs);
      const sMs: number[] = [];
      const sBytes: number[] = [];
      for (let i = 0; i < reps; i++) {
        let ms = 0;
        let bytes = 0;
        for (const a of singles) {
          const r = await tool(e, name, a);
          ms += r.ms;
          bytes += r.bytes;
        }
        sMs.push(ms);
        sBytes.push(bytes);
      }
      table.push([`${label} ${singles.length} single calls`, String(Math.round(median(sMs)!)), String(Math.round(p95(sMs)!)), String(median(sBytes)), String(singles.length), '-', '-']);
      const failed = (b.last?.items ?? []).filter((x: any) => x.error).length;
      metrics.push({ name: `${label} batch of ${singles.length}: latency p50`, value: median(b.ms), unit: 'ms', detail: `vs ${singles.length} single calls p50 ${Math.round(median(sMs)!)} ms; ${failed} entries failed` });
      metrics.push({ name: `${label} batch of ${singles.length}: bytes (median)`, value: median(b.bytes), unit: 'count', detail: `vs ${singles.length} single calls ${median(sBytes)} B in all` });
      metrics.push({ name: `${label} ${singles.length} single calls: latency p50 (sum)`, value: median(sMs), unit: 'ms' });
    };
    await pair('definition', 'definition', { targets }, targets.map((t) => ({ target: t })));
    await pair('references', 'references', { targets: targets.slice(0, 5) }, targets.slice(0, 5).map((t) => ({ target: t })));
    await pair('outline', 'outline', { paths: files }, files.map((p) => ({ path: p })));
    return { metrics, table, notes: [`warm-up: ${warm?.mode} from ${warm?.sources?.map((s: any) => `${s.language}:${s.from}`).join(', ')}`] };
  },
};
