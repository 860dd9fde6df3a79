/**
 * related_tests and impact (issue 12): latency p50/p95 and bytes of each tool's answer, next to the
 * primitive-call sequence an agent would otherwise make for the same question, in the same run and
 * through the same in-process tool path (callTool: validation, deadline, byte budget):
 * - related_tests ≈ search_symbol → references(scope test, group_by file) → outline of every test
 *   file it names (to find the test methods around the references) → callers(depth 2);
 * - impact ≈ search_symbol → definition → references(group_by project) → callers → implementations
 *   → project_graph(dependents, depth 2) → the related_tests sequence.
 * Targets: public methods of production `…Service` classes that a test file is named after (the
 * generated workspace's application services), spread over the workspace; the C# provider is
 * whatever the engine's semantic service picks (the Roslyn host when built), warmed first until it
 * answers precisely. The mode of every answer is reported: a heuristic run is not a precise one.
 */
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import type { Engine } from '../../../server/src/nav/engine';
import { semanticService } from '../../../server/src/nav/semanticService';
import { median, p95 } from '../stats';
import type { BenchSection, Metric } from '../types';

const TARGETS = 6;
const WARM_MS = 240_000;

interface Call {
  calls: number;
  bytes: number;
  ms: number;
  modes: string[];
  sc?: any;
}

async function tool(e: Engine, name: string, args: Record<string, unknown>, acc?: Call): Promise<any> {
  const t0 = performance.now();
  const r = await callTool(e, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, args, 10_000);
  const ms = performance.now() - t0;
  const sc = r.structuredContent as any;
  if (acc) {
    acc.calls++;
    acc.ms += ms;
    acc.bytes += r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : Buffer.byteLength((r.content as { text?: string }[])[0]?.text ?? '');
    if (sc?.mode) acc.modes.push(sc.mode);
    acc.sc = sc;
  }
  return sc;
}

const fresh = (): Call => ({ calls: 0, bytes: 0, ms: 0, modes: [] });

/** Public methods of production *Service classes with a test file named after the class. */
function pickTargets(e: Engine): { symbolId: string; name: string; qn: string }[] {
  const tests = new Set(e.catalog().all().filter((f) => f.fileClass === 'test').map((f) => f.lowerName.replace(/\.[^.]+$/, '')));
  const rows = e.store.rows(
    `SELECT s.symbol_id, s.name, s.qualified_name, s.container, f.path FROM symbols s JOIN files f ON f.id = s.file_id
     WHERE s.kind = 'method' AND f.class = 'source' AND s.container LIKE '%Service' AND (s.flags & 3) = 0 AND s.modifiers LIKE '%public%' ORDER BY f.path, s.line`,
  );
  const ok = rows.filter((r) => tests.has(`${String(r[3]).toLowerCase()}tests`) || tests.has(`${String(r[3]).toLowerCase()}.test`));
  const step = Math.max(1, Math.floor(ok.length / TARGETS));
  const out: { symbolId: string; name: string; qn: string }[] = [];
  for (let i = 0; i < ok.length && out.length < TARGETS; i += step) out.push({ symbolId: String(ok[i]![0]), name: String(ok[i]![1]), qn: String(ok[i]![2]) });
  return out;
}

/** What an agent does without related_tests. */
async function testsByPrimitives(e: Engine, name: string, target: Record<string, unknown>, acc: Call): Promise<void> {
  const refs = await tool(e, 'references', { target, scope: 'test', group_by: 'file' }, acc);
  for (const g of refs?.items ?? []) if (g.group) await tool(e, 'outline', { path: g.group }, acc);
  await tool(e, 'callers', { target, depth: 2 }, acc);
  void name;
}

export const section: BenchSection = {
  name: 'agent tools',
  order: 52,
  description: 'related_tests and impact: latency p50/p95 and answer bytes vs the primitive-call sequence an agent would make (calls, bytes), same run',
  async run(ctx) {
    const e = await ctx.engine();
    semanticService(e);
    const targets = pickTargets(e);
    if (!targets.length) return { metrics: [], notes: ['no public method of a *Service class with a test file named after it'] };
    // Warm the provider until it answers precisely (a cold Roslyn host compiles first).
    const warmEnd = Date.now() + WARM_MS;
    let warmMode = '';
    while (Date.now() < warmEnd) {
      const r = await tool(e, 'references', { target: { symbolId: targets[0]!.symbolId }, waitMs: 9_000, limit: 1 });
      warmMode = r?.mode ?? '';
      if (warmMode === 'precise') break;
    }
    ctx.progress(`agent tools: provider warm (${warmMode}); ${targets.length} targets`);
    const reps = ctx.options.quick ? 2 : 5;
    const rt = { ms: [] as number[], bytes: [] as number[], modes: new Set<string>(), rows: [] as number[] };
    const im = { ms: [] as number[], bytes: [] as number[], modes: new Set<string>() };
    const rtBase: Call[] = [];
    const imBase: Call[] = [];
    const table: string[][] = [['target', 'related_tests ms (p50)', 'bytes', 'tests', 'baseline calls', 'baseline bytes', 'baseline ms', 'impact ms (p50)', 'bytes', 'baseline calls', 'baseline bytes', 'baseline ms']];
    for (const t of targets) {
      const target = { symbolId: t.symbolId };
      const one = { rtMs: [] as number[], imMs: [] as number[], rtBytes: 0, imBytes: 0, tests: 0 };
      for (let i = 0; i < reps; i++) {
        const a = fresh();
        await tool(e, 'related_tests', { target }, a);
        one.rtMs.push(a.ms);
        one.rtBytes = a.bytes;
        one.tests = a.sc?.completeness?.total ?? 0;
        a.modes.forEach((m) => rt.modes.add(m));
        const b = fresh();
        await tool(e, 'impact', { target, change_kind: 'signature' }, b);
        one.imMs.push(b.ms);
        one.imBytes = b.bytes;
        b.modes.forEach((m) => im.modes.add(m));
      }
      rt.ms.push(...one.rtMs);
      rt.bytes.push(one.rtBytes);
      rt.rows.push(one.tests);
      im.ms.push(...one.imMs);
      im.bytes.push(one.imBytes);
      // The primitive sequences, once each (warm: after the tools asked the same questions).
      const rb = fresh();
      await tool(e, 'search_symbol', { query: t.name, kinds: ['method'] }, rb);
      await testsByPrimitives(e, t.name, target, rb);
      rtBase.push(rb);
      const ib = fresh();
      await tool(e, 'search_symbol', { query: t.name, kinds: ['method'] }, ib);
      const def = await tool(e, 'definition', { target }, ib);
      await tool(e, 'references', { target, group_by: 'project' }, ib);
      await tool(e, 'callers', { target }, ib);
      await tool(e, 'implementations', { target }, ib);
      const project = def?.items?.[0]?.project;
      if (project) await tool(e, 'project_graph', { project, direction: 'dependents', depth: 2 }, ib);
      await testsByPrimitives(e, t.name, target, ib);
      imBase.push(ib);
      table.push([t.qn.split('.').slice(-2).join('.'), String(Math.round(median(one.rtMs)!)), String(one.rtBytes), String(one.tests), String(rb.calls), String(rb.bytes), String(Math.round(rb.ms)), String(Math.round(median(one.imMs)!)), String(one.imBytes), String(ib.calls), String(ib.bytes), String(Math.round(ib.ms))]);
    }
    const sum = (xs: Call[], f: (c: Call) => number) => xs.map(f);
    const metrics: Metric[] = [
      { name: 'related_tests latency p50', value: median(rt.ms), unit: 'ms', detail: `${rt.ms.length} calls over ${targets.length} targets; modes ${[...rt.modes].join('/')}` },
      { name: 'related_tests latency p95', value: p95(rt.ms), unit: 'ms' },
      { name: 'related_tests answer bytes (median)', value: median(rt.bytes), unit: 'count', detail: `tests per answer: median ${median(rt.rows)}` },
      { name: 'baseline for related_tests: calls (median)', value: median(sum(rtBase, (c) => c.calls)), unit: 'count', detail: 'references(test, by file) + outline per test file + callers(depth 2) + search_symbol' },
      { name: 'baseline for related_tests: bytes (median)', value: median(sum(rtBase, (c) => c.bytes)), unit: 'count' },
      { name: 'baseline for related_tests: ms (median)', value: median(sum(rtBase, (c) => c.ms)), unit: 'ms' },
      { name: 'impact latency p50', value: median(im.ms), unit: 'ms', detail: `change_kind signature; modes ${[...im.modes].join('/')}` },
      { name: 'impact latency p95', value: p95(im.ms), unit: 'ms' },
      { name: 'impact answer bytes (median)', value: median(im.bytes), unit: 'count' },
      { name: 'baseline for impact: calls (median)', value: median(sum(imBase, (c) => c.calls)), unit: 'count', detail: 'search_symbol, definition, references, callers, implementations, project_graph + the related_tests sequence' },
      { name: 'baseline for impact: bytes (median)', value: median(sum(imBase, (c) => c.bytes)), unit: 'count' },
      { name: 'baseline for impact: ms (median)', value: median(sum(imBase, (c) => c.ms)), unit: 'ms' },
    ];
    return { metrics, table, notes: [`provider warm-up ended ${warmMode}`] };
  },
};
