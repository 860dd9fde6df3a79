/**
 * Issue 13 part 1 on the generated workspace: latency p50/p95 and answer bytes of recent_changes,
 * search_symbol attribute / docs and generated_for, through the same in-process tool path as
 * MCP (callTool: validation, deadline, byte budget).
 * - recent_changes: the clean tree (git diff/ls-files cost over the whole repository; untracked
 *   files from the index's walk against git's own walk, both in-process, same run), then with
 *   20 production and 5 test files edited in place (a line appended to a method body) — the edits
 *   are undone (content and mtime) before the section returns;
 * - search_symbol attribute: [Fact], [Theory] (xunit test methods), [Fact] + a name query;
 *   baseline: search_text for "[Fact]" (lines, not declarations) in the same run;
 * - search_symbol docs: the same name query with and without docs (the doc comments' cost);
 * - generated_for: a production type (the workspace was never built: coverage says so);
 * - xml_doc: the same type and a production method, by symbolId (the syntax layer's doc comment).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import { symbolRowNames } from '../../../server/src/mcp/tools/syntax';
import type { Engine } from '../../../server/src/nav/engine';
import { recentChanges } from '../../../server/src/nav/expanded/recentChanges';
import { median, p95 } from '../stats';
import type { BenchSection, Metric } from '../types';

async function timed(e: Engine, name: string, args: Record<string, unknown>): Promise<{ ms: number; bytes: number; sc: any; error?: string }> {
  const t0 = performance.now();
  const r = await callTool(e, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, args, 10_000);
  const ms = performance.now() - t0;
  const text = (r.content as { text?: string }[])[0]?.text ?? '';
  return { ms, bytes: r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : Buffer.byteLength(text), sc: r.structuredContent, ...(r.isError ? { error: text.slice(0, 200) } : {}) };
}

export const section: BenchSection = {
  name: 'expanded tools',
  order: 54,
  description: 'recent_changes (clean and 25 edited files), search_symbol attribute/docs, generated_for, xml_doc: latency p50/p95 and answer bytes; search_text baseline for attributes',
  async run(ctx) {
    const e = await ctx.engine();
    const reps = ctx.options.quick ? 3 : 9;
    const metrics: Metric[] = [];
    const table: string[][] = [['call', 'p50 ms', 'p95 ms', 'bytes', 'rows', 'note']];
    const measure = async (label: string, name: string, args: Record<string, unknown>) => {
      const ms: number[] = [];
      let last: Awaited<ReturnType<typeof timed>> | undefined;
      for (let i = 0; i < reps; i++) {
        last = await timed(e, name, args);
        ms.push(last.ms);
      }
      const rows = last?.sc?.completeness?.total ?? last?.sc?.items?.length ?? 0;
      table.push([label, String(Math.round(median(ms)!)), String(Math.round(p95(ms)!)), String(last?.bytes ?? 0), String(rows), last?.error ?? String(last?.sc?.summary ?? '').slice(0, 80)]);
      metrics.push({ name: `${label} p50`, value: median(ms), unit: 'ms', detail: `${reps} calls; ${rows} rows` }, { name: `${label} bytes`, value: last?.bytes, unit: 'count' });
      return last;
    };
    await measure('recent_changes clean tree', 'recent_changes', {});
    // The engine part (no MCP shaping): the two-phase diffs with untracked files from the index (the
    // default on a big tree) against the earlier way, same run — every diff and git's untracked walk over the whole tree.
    const direct = async (label: string, untracked: 'git' | 'index') => {
      const ms: number[] = [];
      let n = 0;
      for (let i = 0; i < reps; i++) {
        const t0 = performance.now();
        n = (await recentChanges(e, { deadlineAt: Date.now() + 10_000, untracked, ...(untracked === 'git' ? { diffPasses: 'full' as const } : {}) })).files.length;
        ms.push(performance.now() - t0);
      }
      table.push([label, String(Math.round(median(ms)!)), String(Math.round(p95(ms)!)), '', String(n), untracked === 'git' ? '4 tree-wide diffs + ls-files --others, in parallel' : '1 tree-wide diff, the rest on differing files; untracked: index − ls-files --cached, check-ignore']);
      metrics.push({ name: `${label} p50`, value: median(ms), unit: 'ms', detail: `${reps} calls; ${n} files` });
    };
    await direct('recent_changes clean tree (engine)', 'index');
    await direct('baseline: recent_changes clean tree (engine), tree-wide diffs', 'git');
    // Edit 20 production and 5 test C# files in place, measure, then undo (content and mtime).
    const files = e.catalog().all().filter((f) => f.language === 'csharp');
    const prod = files.filter((f) => f.fileClass === 'source').filter((_, i) => i % 97 === 0).slice(0, 20);
    const tests = files.filter((f) => f.fileClass === 'test').filter((_, i) => i % 31 === 0).slice(0, 5);
    const saved: { abs: string; text: string; st: fs.Stats }[] = [];
    try {
      for (const f of [...prod, ...tests]) {
        const abs = path.join(e.root, f.path);
        const text = fs.readFileSync(abs, 'utf8');
        saved.push({ abs, text, st: fs.statSync(abs) });
        const lines = text.split('\n');
        const at = Math.max(1, Math.floor(lines.length / 2));
        lines.splice(at, 0, '        // bench edit');
        fs.writeFileSync(abs, lines.join('\n'));
      }
      await measure('recent_changes 25 edited files', 'recent_changes', {});
      await direct('recent_changes 25 edited files (engine)', 'index');
      await direct('baseline: recent_changes 25 edited files (engine), tree-wide diffs', 'git');
      await measure('recent_changes 25 edited files, limit 200', 'recent_changes', { limit: 200, maxBytes: 65536 });
    } finally {
      for (const s of saved) {
        fs.writeFileSync(s.abs, s.text);
        fs.utimesSync(s.abs, s.st.atime, s.st.mtime);
      }
    }
    const fact = await measure('search_symbol attribute Fact', 'search_symbol', { attribute: 'Fact' });
    await measure('search_symbol attribute Theory, scope test', 'search_symbol', { attribute: 'Theory', scope: 'test' });
    // Rows leave out name/qualifiedName when the symbol id spells them (symbolRowNames derives them).
    const name = fact?.sc?.items?.[0] ? symbolRowNames(fact.sc.items[0]).name : undefined;
    if (name) await measure('search_symbol attribute Fact + query', 'search_symbol', { attribute: 'Fact', query: name.slice(0, 6) });
    await measure('baseline: search_text "[Fact]"', 'search_text', { query: '[Fact]', mode: 'literal' });
    const svc = await timed(e, 'search_symbol', { query: 'Service', match: 'substring', kinds: ['class'], limit: 1 });
    const typeRow = svc.sc?.items?.[0];
    const typeName = typeRow ? symbolRowNames(typeRow).name : undefined;
    if (typeName) {
      await measure('search_symbol name', 'search_symbol', { query: typeName });
      await measure('search_symbol name + docs', 'search_symbol', { query: typeName, docs: true });
      await measure('generated_for production type (never built)', 'generated_for', { target: { qualifiedName: symbolRowNames(typeRow).qualifiedName } });
      await measure('xml_doc type', 'xml_doc', { target: { symbolId: typeRow.symbolId } });
      const member = (await timed(e, 'search_symbol', { query: 'Get', match: 'prefix', kinds: ['method'], scope: 'production', limit: 1 })).sc?.items?.[0];
      if (member) await measure('xml_doc method', 'xml_doc', { target: { symbolId: member.symbolId } });
    }
    return { metrics, table, notes: [`${saved.length} files edited for recent_changes and restored`] };
  },
};
