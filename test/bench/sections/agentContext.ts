/**
 * Agent context (issue 12 part 2): context_pack and locate_code — latency p50/p95 and bytes per
 * answer — next to the primitive-call sequence an agent makes for the same picture in the same run
 * (calls, JSON bytes, cursors followed):
 * - context_pack(type) — the first ask (it gathers; every other target before its primitives run) and
 *   re-asks with other budgets (the gather is kept) — vs search_symbol → definition → source_context of the span → callers →
 *   references (test scope) → implementations → references (all);
 * - locate_code(question) vs search_symbol for each question word → outline of the best hit's file.
 * Questions come from the generated workspace's manifest (a fact's name split into words), else from
 * the declared types of the target. The semantic answers are the engine's as the session has them
 * (the mode is shown): both sides ask the same providers.
 */
import * as path from 'node:path';
import { callTool } from '../../../server/src/mcp/server';
import { ALL_TOOLS } from '../../../server/src/mcp/tools';
import type { Engine } from '../../../server/src/nav/engine';
import { splitWords } from '../../../server/src/nav/agent/locateMap';
import { semanticService } from '../../../server/src/nav/semanticService';
import { fmt } from '../report';
import { median, p95 } from '../stats';
import type { BenchSection, Metric } from '../types';

interface Cost {
  calls: number;
  json: number;
  ms: number;
}

async function tool(e: Engine, name: string, args: Record<string, unknown>, follow = true): Promise<{ cost: Cost; first: any; error?: string }> {
  const cost: Cost = { calls: 0, json: 0, ms: 0 };
  let first: any;
  let cursor: string | undefined;
  for (;;) {
    const t = performance.now();
    const r = await callTool(e, ALL_TOOLS, ALL_TOOLS.find((x) => x.name === name), name, cursor ? { ...args, cursor } : args, 20_000);
    cost.ms += performance.now() - t;
    cost.calls++;
    const text = (r.content as { text?: string }[])[0]?.text ?? '';
    cost.json += r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : Buffer.byteLength(text);
    if (r.isError) return { cost, first, error: text };
    const sc = r.structuredContent as any;
    first ??= sc;
    cursor = sc?.nextCursor;
    if (!follow || !cursor || cost.calls >= 20) return { cost, first };
  }
}

const add = (a: Cost, b: Cost): Cost => ({ calls: a.calls + b.calls, json: a.json + b.json, ms: a.ms + b.ms });
const ZERO: Cost = { calls: 0, json: 0, ms: 0 };

/** Types to pack: the manifest's service implementation, repository and controller, else the first declared classes. */
function packTargets(e: Engine, manifest: any): string[] {
  if (manifest) {
    const out: string[] = [];
    for (const id of ['serviceImplementation', 'serviceInterface', 'controller', 'hotType', 'repositoryInterface', 'entity', 'partialClass', 'popularInterface']) {
      const f = manifest.facts.find((x: any) => x.id === id);
      if (f?.kind === 'symbol') out.push(`${f.container}.${f.name}`);
    }
    if (out.length) return out;
  }
  const rows = e.store.db.exec("SELECT s.qualified_name FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('class','interface') AND f.class = 'source' ORDER BY f.path LIMIT 3")[0]?.values ?? [];
  return rows.map((r) => String(r[0]));
}

function questions(e: Engine, manifest: any): { q: string; expect?: string }[] {
  if (manifest) {
    return manifest.facts
      .filter((f: any) => f.kind === 'symbol' && f.declarations?.length && !/Attribute$/.test(f.name))
      .slice(0, 16)
      .map((f: any) => ({ q: splitWords(f.name).filter((w: string) => w.length > 1).join(' '), expect: f.declarations[0].path }));
  }
  const rows = e.store.db.exec("SELECT s.name, f.path FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN ('class','interface') AND f.class = 'source' ORDER BY f.path LIMIT 16")[0]?.values ?? [];
  return rows.map((r) => ({ q: splitWords(String(r[0])).join(' '), expect: String(r[1]) }));
}

export const section: BenchSection = {
  name: 'agent context',
  order: 65,
  description: 'context_pack and locate_code (p50/p95, bytes) vs the primitive-call sequence an agent makes instead (calls, bytes), same run',
  async run(ctx) {
    const e = await ctx.engine();
    const svc = semanticService(e);
    const manifest = ctx.target.manifest;
    const table: string[][] = [['question', 'tool calls', 'tool JSON B', 'tool ms', 'primitive calls', 'primitive JSON B', 'primitive ms', 'note']];
    const packMs: number[] = [];
    const keptMs: number[] = [];
    const packBytes: number[] = [];
    let packBase = ZERO;
    let packCost = ZERO;
    const modes = new Set<string>();
    const reps = ctx.options.quick ? 3 : 7;
    const targets = packTargets(e, manifest);
    for (const [ti, qn] of targets.entries()) {
      const target = { qualifiedName: qn };
      // Every other target is packed before its primitive sequence runs (neither side gets warmed providers only).
      const packFirst = ti % 2 === 0;
      let firstPack: { ms: number; bytes: number; r: any } | undefined;
      const packOnce = async () => {
        const r = await tool(e, 'context_pack', { target }, false);
        return { ms: r.cost.ms, bytes: r.cost.json, r: r.first ?? { error: r.error } };
      };
      if (packFirst) firstPack = await packOnce();
      ctx.progress(`agent context: primitives for ${qn}`);
      let base = ZERO;
      const ss = await tool(e, 'search_symbol', { query: qn.split('.').pop()!, limit: 5 }, false);
      base = add(base, ss.cost);
      const def = await tool(e, 'definition', { target }, false);
      base = add(base, def.cost);
      const d = def.first?.items?.[0];
      if (d) base = add(base, (await tool(e, 'source_context', { spans: [{ path: d.path, line: d.line, endLine: Math.min(d.endLine ?? d.line, d.line + 59) }] }, false)).cost);
      base = add(base, (await tool(e, 'callers', { target })).cost);
      base = add(base, (await tool(e, 'references', { target, scope: 'test' })).cost);
      base = add(base, (await tool(e, 'implementations', { target })).cost);
      base = add(base, (await tool(e, 'references', { target })).cost);
      firstPack ??= await packOnce();
      // Re-asks (another budget after an omission): the gather is kept per index version when precise.
      for (let i = 0; i < reps; i++) keptMs.push((await tool(e, 'context_pack', { target, budget: { maxBytes: 4096 + 512 * i } }, false)).cost.ms);
      const last = firstPack.r;
      const bytes = firstPack.bytes;
      packMs.push(firstPack.ms);
      packBytes.push(bytes);
      packBase = add(packBase, base);
      packCost = add(packCost, { calls: 1, json: bytes, ms: firstPack.ms });
      const times = [firstPack.ms];
      if (last?.mode) modes.add(last.mode);
      const rows = (last?.items ?? []).length;
      table.push([`context_pack ${qn}`, '1', String(bytes), fmt(median(times), 'ms'), String(base.calls), String(base.json), fmt(base.ms, 'ms'), last?.error ? `ERROR ${String(last.error).slice(0, 80)}` : `${rows} rows, mode ${last?.mode ?? '?'}`]);
    }

    const locMs: number[] = [];
    const locBytes: number[] = [];
    let locBase = ZERO;
    let locCost = ZERO;
    let locRight = 0;
    let baseRight = 0;
    const qs = questions(e, manifest);
    for (const { q, expect } of qs) {
      const times: number[] = [];
      let first: any;
      let bytes = 0;
      for (let i = 0; i < reps; i++) {
        const r = await tool(e, 'locate_code', { question: q }, false);
        times.push(r.cost.ms);
        bytes = r.cost.json;
        first = r.first;
      }
      locMs.push(...times);
      locBytes.push(bytes);
      locCost = add(locCost, { calls: 1, json: bytes, ms: median(times) ?? 0 });
      const found = (first?.items ?? []).findIndex((c: any) => c.path === expect);
      if (found >= 0) locRight++;
      // Primitive: search_symbol per word, then the outline of the best hit's file.
      let base = ZERO;
      let best: any;
      for (const w of q.split(' ').filter((x) => x.length >= 3)) {
        const s = await tool(e, 'search_symbol', { query: w, limit: 20 }, false);
        base = add(base, s.cost);
        best ??= s.first?.items?.[0];
      }
      if (best) base = add(base, (await tool(e, 'outline', { path: best.path }, false)).cost);
      if (best?.path === expect) baseRight++;
      locBase = add(locBase, base);
      table.push([`locate_code "${q}"`, '1', String(bytes), fmt(median(times), 'ms'), String(base.calls), String(base.json), fmt(base.ms, 'ms'), `${first?.status ?? '?'}${found >= 0 ? `, right file #${found + 1}` : expect ? `, NOT ${path.posix.basename(expect)}` : ''}`]);
    }

    const metrics: Metric[] = [
      { name: 'context_pack latency p50 (first ask, gathers)', value: median(packMs), unit: 'ms', detail: `${packMs.length} targets, modes ${[...modes].join('/') || '?'}` },
      { name: 'context_pack latency p95 (first ask, gathers)', value: p95(packMs), unit: 'ms' },
      { name: 'context_pack latency p50 (re-ask, kept gather)', value: median(keptMs), unit: 'ms', detail: `${keptMs.length} calls, other budgets` },
      { name: 'context_pack bytes (median)', value: median(packBytes), unit: 'count' },
      { name: 'context_pack primitive sequence: calls per pack', value: packBase.calls / Math.max(1, packBytes.length), unit: 'count' },
      { name: 'context_pack primitive sequence: bytes per pack', value: packBase.json / Math.max(1, packBytes.length), unit: 'count' },
      { name: 'context_pack primitive sequence: ms per pack', value: packBase.ms / Math.max(1, packBytes.length), unit: 'ms' },
      { name: 'context_pack: calls per pack', value: 1, unit: 'count' },
      { name: 'locate_code latency p50', value: median(locMs), unit: 'ms', detail: `${qs.length} questions × ${reps}` },
      { name: 'locate_code latency p95', value: p95(locMs), unit: 'ms' },
      { name: 'locate_code bytes (median)', value: median(locBytes), unit: 'count', target: { op: '<=', value: 8192 } },
      { name: 'locate_code: right file among candidates', value: locRight, unit: 'count', detail: `of ${qs.length}` },
      { name: 'locate_code primitive sequence: calls per question', value: locBase.calls / Math.max(1, qs.length), unit: 'count' },
      { name: 'locate_code primitive sequence: bytes per question', value: locBase.json / Math.max(1, qs.length), unit: 'count' },
      { name: 'locate_code primitive sequence: right file (top search hit)', value: baseRight, unit: 'count', detail: `of ${qs.length}` },
    ];
    void svc;
    return { metrics, table, data: { packCost, packBase, locCost, locBase } };
  },
};
