/**
 * Agent cost: what a model receives to answer a fixed set of questions — through Sextant
 * (structuredContent JSON and the text form, calls including every cursor followed) against a
 * scripted `rg` + file-read baseline in the same run. The questions are derived from the target
 * now (any path works): definition of a frequently used type by name, outline of the three largest
 * source files, references of that type, direct dependencies and dependents of its project, a
 * stack frame (path:line of a method) → symbol, a config key. Semantic answers come from the
 * engine without language servers (mode shown), as an agent gets them before csharp-ls is ready.
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
import type { BenchSection, Metric } from '../types';
import { frequentIdentifiers } from './searchFrequent';

interface Cost {
  calls: number;
  json: number;
  text: number;
  mode?: string;
}

async function sextant(e: Engine, name: string, args: Record<string, unknown>, follow = true): Promise<{ cost: Cost; first: any }> {
  const cost: Cost = { calls: 0, json: 0, text: 0 };
  let first: any;
  let cursor: string | undefined;
  for (;;) {
    const r = await callTool(e, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, cursor ? { ...args, cursor } : args, 10_000);
    cost.calls++;
    const text = (r.content as { text?: string }[])[0]?.text ?? '';
    cost.text += Buffer.byteLength(text);
    cost.json += r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : Buffer.byteLength(text);
    const sc = r.structuredContent as any;
    first ??= sc;
    if (sc?.mode) cost.mode = sc.mode;
    cursor = sc?.nextCursor;
    if (!follow || !cursor || cost.calls >= 50) return { cost, first };
  }
}

/** The baseline's commands: stdout bytes of rg, bytes of files read. */
class Baseline {
  calls = 0;
  bytes = 0;
  constructor(private readonly root: string) {}
  rg(args: string[]): string {
    this.calls++;
    const r = spawnSync(ripgrepPath(), ['--no-config', '-n', ...args, '--', '.'], { cwd: this.root, maxBuffer: 1 << 28, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    this.bytes += Buffer.byteLength(r.stdout ?? '');
    return r.stdout ?? '';
  }
  read(rel: string, lines?: [number, number]): string {
    this.calls++;
    let text = fs.readFileSync(path.join(this.root, rel), 'utf8');
    if (lines) text = text.split('\n').slice(lines[0] - 1, lines[1]).join('\n');
    this.bytes += Buffer.byteLength(text);
    return text;
  }
}

export const section: BenchSection = {
  name: 'agent cost',
  order: 50,
  description: 'bytes the model receives and calls per question: Sextant (JSON / text, cursors followed) vs scripted rg + file reads',
  async run(ctx) {
    const e = await ctx.engine();
    semanticService(e, { noLsp: true });
    const root = ctx.target.root;
    const rows: { q: string; s: Cost; b: { calls: number; bytes: number }; note: string }[] = [];
    const add = (q: string, s: Cost, b: Baseline, note = '') => rows.push({ q, s, b: { calls: b.calls, bytes: b.bytes }, note });

    // A frequently used type: the first frequent identifier search_symbol declares as a type.
    let type: { name: string; path: string; line: number; symbolId?: string } | undefined;
    for (const id of frequentIdentifiers(e, 40)) {
      const r = await sextant(e, 'search_symbol', { query: id.text, limit: 5 }, false);
      const it = r.first?.items?.find((x: any) => x.name === id.text && /class|interface|record|struct/.test(String(x.kind)));
      if (it) {
        type = { name: id.text, path: it.path, line: it.line ?? it.span?.start?.line ?? 1, symbolId: it.symbolId };
        break;
      }
    }
    if (type) {
      const s = await sextant(e, 'search_symbol', { query: type.name, limit: 5 }, false);
      const b = new Baseline(root);
      const out = b.rg(['-w', '-e', `(class|interface|record|struct) ${type.name}\\b`]);
      const file = out.split('\n')[0]?.split(':')[0];
      if (file) b.read(file);
      add(`definition of ${type.name}`, s.cost, b);
      const ref = await sextant(e, 'references', { target: type.symbolId ? { symbolId: type.symbolId } : { path: type.path, line: type.line } }, false);
      const rb = new Baseline(root);
      rb.rg(['-w', '-F', '-e', type.name]);
      add(`references of ${type.name} (first page)`, ref.cost, rb, ref.cost.mode ?? '');
    }

    // Outline of the three largest source files.
    const largest = e.catalog().all().filter((r) => r.fileClass === 'source' && (r.language === 'csharp' || r.language === 'typescript') && !r.binary).sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1)).slice(0, 3);
    for (const f of largest) {
      const s = await sextant(e, 'outline', { path: f.path });
      const b = new Baseline(root);
      b.read(f.path);
      add(`outline of ${f.path} (${f.lines} lines)`, s.cost, b);
    }

    // Direct dependencies and dependents of the type's project (else the first project).
    const pc = type ? await sextant(e, 'projects_containing', { path: type.path }, false) : undefined;
    const project: string | undefined = pc?.first?.items?.[0]?.path ?? pc?.first?.items?.[0]?.project ?? pc?.first?.items?.[0]?.id;
    if (project && /proj$/.test(project)) {
      const s = await sextant(e, 'project_graph', { project, direction: 'both', depth: 1 });
      const b = new Baseline(root);
      b.read(project);
      b.rg(['-F', '-e', path.posix.basename(project), '-g', '*.*proj']);
      add(`dependencies + dependents of ${path.posix.basename(project)}`, s.cost, b);
    }

    // Stack frame → symbol: a method line of the largest file.
    const big = largest[0];
    if (big) {
      const o = await sextant(e, 'outline', { path: big.path, maxBytes: 65536 }, false);
      const m = (o.first?.items ?? []).find((x: any) => /method|function/.test(String(x.kind)));
      const line = m ? Number(m.line ?? m.span?.start?.line ?? 1) + 1 : Math.max(1, Math.floor(big.lines / 2));
      const s = await sextant(e, 'symbol_at', { path: big.path, line }, false);
      const b = new Baseline(root);
      b.read(big.path, [Math.max(1, line - 20), line + 20]);
      add(`stack frame ${path.posix.basename(big.path)}:${line} → symbol`, s.cost, b);
    }

    // A config key.
    {
      const s = await sextant(e, 'config_lookup', { key: 'TargetFramework' }, false);
      const b = new Baseline(root);
      b.rg(['-F', '-e', 'TargetFramework', '-g', '*.*proj', '-g', '*.props', '-g', '*.targets', '-g', '*.json']);
      add('config key TargetFramework', s.cost, b);
    }

    const table: string[][] = [['question', 'sextant calls', 'JSON bytes', 'text bytes', 'rg+read calls', 'rg+read bytes', 'bytes saved (baseline / JSON)', 'note']];
    for (const r of rows) table.push([r.q, String(r.s.calls), String(r.s.json), String(r.s.text), String(r.b.calls), String(r.b.bytes), fmt(r.b.bytes / Math.max(1, r.s.json), 'x'), r.note]);
    const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + f(r), 0);
    const metrics: Metric[] = [
      { name: 'Sextant: JSON bytes, all questions', value: sum((r) => r.s.json), unit: 'count', detail: `${rows.length} questions` },
      { name: 'Sextant: text bytes, all questions', value: sum((r) => r.s.text), unit: 'count' },
      { name: 'baseline rg + reads: bytes, all questions', value: sum((r) => r.b.bytes), unit: 'count' },
      { name: 'Sextant calls / baseline calls', value: sum((r) => r.s.calls) / Math.max(1, sum((r) => r.b.calls)), unit: 'ratio' },
      { name: 'bytes: baseline / Sextant JSON', value: sum((r) => r.b.bytes) / Math.max(1, sum((r) => r.s.json)), unit: 'x' },
    ];
    return { metrics, table, data: rows };
  },
};
