/**
 * Agent cost: what a model receives to answer a fixed set of questions — through Sextant
 * (structuredContent JSON and the text form, calls including every cursor followed) against a
 * scripted `rg` + file-read baseline in the same run. The questions are derived from the target
 * now (any path works): definition of the declared type whose name is in the most files, outline of the three largest
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
import { symbolRowNames } from '../../../server/src/mcp/tools/syntax';
import { fmt } from '../report';
import type { BenchSection, Metric } from '../types';

const TYPE_KINDS = ['class', 'interface', 'record', 'struct', 'enum'];

/**
 * The declared production type whose name is in the most files (the token index counts files per
 * lower-cased token), skipping names shorter than 4 characters. A real answer is known for it.
 */
function widelyUsedType(e: Engine): { name: string; path: string; line: number; files: number } | undefined {
  const db = e.store.db;
  db.run('CREATE VIRTUAL TABLE IF NOT EXISTS temp.bench_terms USING fts4aux(main, file_text)');
  const docs = new Map<string, number>();
  for (const [term, n] of db.exec("SELECT term, documents FROM temp.bench_terms WHERE col = '*' AND length(term) >= 4")[0]?.values ?? []) docs.set(String(term), Number(n));
  const kinds = TYPE_KINDS.map((k) => `'${k}'`).join(',');
  let best: { name: string; path: string; line: number; files: number } | undefined;
  const rows = db.exec(`SELECT s.name, f.path, s.line FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.kind IN (${kinds}) AND f.class = 'source' AND (s.flags & 3) = 0`)[0]?.values ?? [];
  for (const [name, p, line] of rows) {
    const n = docs.get(String(name).toLowerCase()) ?? 0;
    if (!best || n > best.files || (n === best.files && String(name) < best.name)) best = { name: String(name), path: String(p), line: Number(line), files: n };
  }
  return best;
}

async function projectOf(e: Engine, file: string): Promise<string | undefined> {
  const pc = await sextant(e, 'projects_containing', { path: file }, false);
  const p = pc.first?.items?.[0]?.project;
  return typeof p === 'string' && /proj$/.test(p) ? p : undefined;
}

/** The project file with the most ProjectReference items (when the type's file is in no project). */
function busiestProject(e: Engine): string | undefined {
  let best: { path: string; n: number } | undefined;
  for (const r of e.catalog().all()) {
    if (!/\.(cs|fs|vb)proj$/.test(r.path)) continue;
    let n = 0;
    try {
      n = (fs.readFileSync(path.join(e.root, r.path), 'utf8').match(/<ProjectReference\b/g) ?? []).length;
    } catch {
      continue;
    }
    if (!best || n > best.n) best = { path: r.path, n };
  }
  return best?.path;
}

interface Cost {
  calls: number;
  json: number;
  text: number;
  mode?: string;
}

async function sextant(e: Engine, name: string, args: Record<string, unknown>, follow = true): Promise<{ cost: Cost; first: any; items: any[] }> {
  const cost: Cost = { calls: 0, json: 0, text: 0 };
  let first: any;
  const items: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const r = await callTool(e, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === name), name, cursor ? { ...args, cursor } : args, 10_000);
    cost.calls++;
    const text = (r.content as { text?: string }[])[0]?.text ?? '';
    cost.text += Buffer.byteLength(text);
    cost.json += r.structuredContent ? Buffer.byteLength(JSON.stringify(r.structuredContent)) : Buffer.byteLength(text);
    const sc = r.structuredContent as any;
    first ??= sc;
    items.push(...(sc?.items ?? []));
    if (sc?.mode) cost.mode = sc.mode;
    cursor = sc?.nextCursor;
    if (!follow || !cursor || cost.calls >= 50) return { cost, first, items };
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
    const rows: { q: string; s: Cost; b: { calls: number; bytes: number }; note: string; ok: boolean }[] = [];
    const add = (q: string, s: Cost, b: Baseline, note: string, ok: boolean) => rows.push({ q, s, b: { calls: b.calls, bytes: b.bytes }, note, ok });

    // A widely used type: of the types the target declares (production code), the one whose name
    // appears in the most files (token index). Its answer is checked against the declaration rows.
    const type = widelyUsedType(e);
    if (type) {
      const s = await sextant(e, 'search_symbol', { query: type.name, limit: 5 }, false);
      const hit = (s.first?.items ?? []).find((x: any) => symbolRowNames(x).name === type.name && TYPE_KINDS.includes(String(x.kind)));
      const b = new Baseline(root);
      const out = b.rg(['-w', '-e', `(class|interface|record|struct|enum) ${type.name}\\b`, '-g', '*.cs', '-g', '*.ts', '-g', '*.tsx']);
      const file = out.split('\n')[0]?.split(':')[0];
      if (file) b.read(file);
      add(`definition of ${type.name} (in ${type.files} files)`, s.cost, b, hit ? `found ${hit.path}:${hit.line}` : 'NOT FOUND', !!hit);
      const target = hit?.symbolId ? { symbolId: hit.symbolId } : { path: type.path, line: type.line };
      // Every group with its count (all pages); locations beyond a group's sample are one narrower call away.
      const ref = await sextant(e, 'references', { target });
      const rb = new Baseline(root);
      rb.rg(['-w', '-F', '-e', type.name]);
      const groups = ref.items.filter((x: any) => x.group !== undefined);
      const total = ref.first?.completeness?.total;
      const uses = groups.reduce((n: number, g: any) => n + (Number(g.count) || 0), 0);
      add(`references of ${type.name} (every group)`, ref.cost, rb, `${ref.cost.mode ?? ''}; ${groups.length} groups${total !== undefined ? ` (total ${total})` : ''}, ${uses} uses`, groups.length > 0 && (total === undefined || groups.length === total));
    } else rows.push({ q: 'definition / references of a widely used type', s: { calls: 0, json: 0, text: 0 }, b: { calls: 0, bytes: 0 }, note: 'no declared type found in the token index', ok: false });

    // Outline of the three largest source files: the whole declaration map, every cursor followed.
    const largest = e.catalog().all().filter((r) => r.fileClass === 'source' && (r.language === 'csharp' || r.language === 'typescript') && !r.binary).sort((a, b) => b.size - a.size || (a.path < b.path ? -1 : 1)).slice(0, 3);
    for (const f of largest) {
      const s = await sextant(e, 'outline', { path: f.path });
      const b = new Baseline(root);
      b.read(f.path);
      const decls = /: (\d+) declarations?/.exec(String(s.first?.summary ?? ''))?.[1];
      add(`outline of ${f.path} (${f.lines} lines)`, s.cost, b, `${decls ?? '?'} declarations, ${s.first?.form ?? '?'}`, s.first !== undefined);
    }

    // Direct dependencies and dependents of the type's project (else the project with the most references).
    const project = (type ? await projectOf(e, type.path) : undefined) ?? busiestProject(e);
    if (project) {
      const s = await sextant(e, 'project_graph', { project, direction: 'both', depth: 1 });
      const b = new Baseline(root);
      const text = b.read(project);
      const out = b.rg(['-F', '-e', path.posix.basename(project), '-g', '*.*proj']);
      const refs = [...text.matchAll(/<ProjectReference\s+Include="([^"]+)"/g)].length;
      const dependents = new Set(out.split('\n').filter((l) => /ProjectReference/.test(l)).map((l) => l.split(':')[0]));
      const neighbours = s.items.filter((x: any) => x.d === 1).length;
      add(`dependencies + dependents of ${path.posix.basename(project)}`, s.cost, b, `${neighbours} direct neighbours (rg: ${refs} ProjectReference + ${dependents.size} referencing files)`, neighbours >= Math.max(refs, dependents.size));
    } else rows.push({ q: 'dependencies + dependents of a project', s: { calls: 0, json: 0, text: 0 }, b: { calls: 0, bytes: 0 }, note: 'no project in the target', ok: true });

    // Stack frame → symbol: the line after the start of a method of the largest file.
    const big = largest[0];
    if (big) {
      const o = await sextant(e, 'outline', { path: big.path, kinds: ['method', 'function'], form: 'signatures', limit: 1 }, false);
      const m = o.first?.items?.[0];
      const line = m ? Number(m.line) + 1 : Math.max(1, Math.floor(big.lines / 2));
      const s = await sextant(e, 'symbol_at', { path: big.path, line }, false);
      const b = new Baseline(root);
      b.read(big.path, [Math.max(1, line - 20), line + 20]);
      const at = s.first?.items?.[0];
      add(`stack frame ${path.posix.basename(big.path)}:${line} → symbol`, s.cost, b, at ? `${at.kind} ${at.name}` : 'NOT FOUND', !!at);
    }

    // A config key.
    {
      const s = await sextant(e, 'config_lookup', { key: 'TargetFramework' }, false);
      const b = new Baseline(root);
      b.rg(['-F', '-e', 'TargetFramework', '-g', '*.*proj', '-g', '*.props', '-g', '*.targets', '-g', '*.json']);
      const n = s.first?.completeness?.total ?? s.first?.items?.length ?? 0;
      add('config key TargetFramework', s.cost, b, `${n} places`, n > 0);
    }

    const table: string[][] = [['question', 'sextant calls', 'JSON bytes', 'text bytes', 'rg+read calls', 'rg+read bytes', 'baseline / JSON', 'answered', 'note']];
    for (const r of rows) table.push([r.q, String(r.s.calls), String(r.s.json), String(r.s.text), String(r.b.calls), String(r.b.bytes), fmt(r.b.bytes / Math.max(1, r.s.json), 'x'), r.ok ? 'yes' : 'NO', r.note]);
    const sum = (f: (r: (typeof rows)[number]) => number) => rows.reduce((n, r) => n + f(r), 0);
    const metrics: Metric[] = [
      { name: 'questions answered', value: rows.filter((r) => r.ok).length, unit: 'count', target: { op: '>=', value: rows.length }, detail: `of ${rows.length}` },
      { name: 'Sextant: JSON bytes, all questions', value: sum((r) => r.s.json), unit: 'count', detail: `${rows.length} questions` },
      { name: 'Sextant: calls, all questions', value: sum((r) => r.s.calls), unit: 'count' },
      { name: 'baseline rg + reads: calls, all questions', value: sum((r) => r.b.calls), unit: 'count' },
      { name: 'Sextant: text bytes, all questions', value: sum((r) => r.s.text), unit: 'count' },
      { name: 'baseline rg + reads: bytes, all questions', value: sum((r) => r.b.bytes), unit: 'count' },
      { name: 'Sextant calls / baseline calls', value: sum((r) => r.s.calls) / Math.max(1, sum((r) => r.b.calls)), unit: 'ratio' },
      { name: 'bytes: baseline / Sextant JSON', value: sum((r) => r.b.bytes) / Math.max(1, sum((r) => r.s.json)), unit: 'x' },
    ];
    return { metrics, table, data: rows };
  },
};
