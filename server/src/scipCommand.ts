/**
 * `sextant scip export [--projects GLOB] [--shard K/N] --out FILE`: precise facts of the
 * workspace's C# projects (the Roslyn host) written as a standard SCIP index, for a CI matrix of N
 * machines each building one shard. Shards are contiguous runs of the projects in dependency order
 * (dependencies first), balanced by projects (a project's files weigh a quarter, at the mean: `shardWeights`), so a shard compiles what it references once;
 * symbols follow SCIP's grammar, so the shards' indexes merge (`.sextant/scip/` holds them all).
 */
import * as path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from './core/errors';
import { Engine } from './nav/engine';
import { projectGraph } from './nav/projects';
import { SERVER_VERSION } from './mcp/server';
import type { ProjectGraph } from './projects/ProjectGraph';
import { csharpDocuments } from './semantic/precise/csharpExport';
import { CompilationInputs, DeclarationShapes, GeneratedKeys } from './semantic/precise/documentKeys';
import { ProjectDescriber } from './semantic/roslyn/projectDescriptions';
import { writeScipIndex } from './semantic/precise/scipCatalog';
import type { ScipDocument } from './semantic/precise/scipCodec';
import { matchFiles } from './index/textIndex';

export interface ScipExportOptions {
  engine: Parameters<typeof Engine.open>[0];
  projects?: string;
  shard?: string;
  out: string;
  argv: string[];
  log: (line: string) => void;
}

export interface ScipExportResult {
  projects: number;
  documents: number;
  bytes: number;
  ms: number;
}

/** `K/N` → [K, N] (1 ≤ K ≤ N). */
export function parseShard(s: string): [number, number] {
  const m = /^(\d+)\/(\d+)$/.exec(s);
  const k = m ? Number(m[1]) : NaN;
  const n = m ? Number(m[2]) : NaN;
  if (!m || n < 1 || k < 1 || k > n) throw new ToolError('INVALID_ARGUMENT', `--shard '${s}' is not K/N with 1 ≤ K ≤ N`, 'pass e.g. --shard 2/4 for the second of four shards');
  return [k, n];
}

/**
 * The C# projects of shard K of N (1-based): the projects in dependency order, cut into N runs of
 * about equal weight (`shardWeights`: per project, its files a little). Every project is in exactly one shard.
 */
export function shardProjects(g: ProjectGraph, ids: readonly string[], k: number, n: number): string[] {
  const wanted = new Set(ids);
  const refs = new Map<string, string[]>();
  for (const e of g.edges) if (e.kind === 'projectReference') (refs.get(e.from) ?? refs.set(e.from, []).get(e.from)!).push(e.to);
  const order: string[] = [];
  const state = new Map<string, 1 | 2>();
  const visit = (id: string) => {
    if (state.get(id)) return;
    state.set(id, 1);
    for (const r of [...(refs.get(id) ?? [])].sort()) visit(r);
    state.set(id, 2);
    if (wanted.has(id)) order.push(id);
  };
  for (const id of [...wanted].sort()) visit(id);
  const files = new Map<string, number>();
  for (const [, entries] of g.files) for (const e of entries) if (wanted.has(e.project)) files.set(e.project, (files.get(e.project) ?? 0) + 1);
  const weight = shardWeights(order, files);
  const total = order.reduce((s, id) => s + weight.get(id)!, 0);
  const out: string[] = [];
  let acc = 0;
  for (const id of order) {
    const w = weight.get(id)!;
    // the shard of a project: where the middle of its weight falls
    const shard = Math.min(n, Math.floor(((acc + w / 2) / total) * n) + 1);
    acc += w;
    if (shard === k) out.push(id);
  }
  return out;
}

/**
 * What a project costs a shard's export: mostly the project itself — its compilation and its
 * references' metadata; its files a quarter as much at the mean file count. Balanced by files,
 * the 3,000-project workspace's last shard (its many small top-level projects) got 1,006 projects
 * to the others' ~665 and peaked at 1,624 MiB to their 900-971 MiB (time 711 s vs 610-661 s).
 */
export function shardWeights(ids: readonly string[], files: ReadonlyMap<string, number>): Map<string, number> {
  const mean = ids.length ? ids.reduce((s, id) => s + (files.get(id) ?? 0), 0) / ids.length : 0;
  return new Map(ids.map((id) => [id, 1 + (mean > 0 ? (files.get(id) ?? 0) / (4 * mean) : 0)]));
}

export async function runScipExport(o: ScipExportOptions): Promise<ScipExportResult> {
  const t0 = Date.now();
  const engine = await Engine.open(o.engine);
  const controller = new AbortController();
  const stop = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  try {
    await engine.refresh();
    const g = projectGraph(engine);
    if (!g) throw new ToolError('PROJECT_NOT_FOUND', 'the project model was not built', 'check that the workspace has project files (sextant index prints them)');
    const match = o.projects ? picomatch(o.projects, { nocase: true }) : undefined;
    let ids = g.projects.filter((p) => p.kind === 'csharp' && p.status !== 'failed' && (!match || match(p.id) || match(p.name))).map((p) => p.id);
    if (o.shard) {
      const [k, n] = parseShard(o.shard);
      ids = shardProjects(g, ids, k, n);
    }
    o.log(`scip export: ${ids.length} C# project(s)${o.shard ? ` (shard ${o.shard})` : ''} → ${o.out}`);
    const catalog = engine.catalog();
    const files = catalog.all().map((r) => r.path);
    const indexedHash = (p: string) => catalog.byRelPath(p)?.hash;
    const describer = new ProjectDescriber({ root: engine.root, graph: g, files, policy: engine.policy });
    const generated = new GeneratedKeys({ root: engine.root, describer: () => describer, hashOf: indexedHash, version: () => '' });
    const shapes = new DeclarationShapes(engine.store, (p) => generated.of(p));
    const inputs = new CompilationInputs({
      root: engine.root,
      graph: () => g,
      files: () => catalog.all(),
      hashOf: indexedHash,
      version: () => '',
      filesMentioning: (w) => {
        try {
          return new Set(matchFiles(engine.store, `"${w.toLowerCase()}"`).flatMap((id) => catalog.get(id)?.path ?? []));
        } catch {
          return undefined;
        }
      },
    });
    let documents = 0;
    const docs = async function* (): AsyncGenerator<ScipDocument> {
      if (ids.length === 0) return;
      for await (const d of csharpDocuments(
        { root: engine.root, graph: g, files, policy: engine.policy, shapes, indexedHash, generatedKey: (p) => generated.of(p), inputs: (k, gen) => inputs.of(k, gen), describer, log: o.log },
        ids,
        controller.signal,
      )) {
        documents++;
        yield d;
      }
    };
    const metadata = { version: 0, toolInfo: { name: 'sextant', version: SERVER_VERSION, arguments: o.argv }, projectRoot: `file://${engine.root}`, textDocumentEncoding: 1 };
    const bytes = await writeScipIndex(path.resolve(o.out), metadata, docs());
    return { projects: ids.length, documents, bytes, ms: Date.now() - t0 };
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await engine.close();
  }
}
