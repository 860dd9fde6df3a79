/**
 * C# precise facts from the Roslyn host, as SCIP documents with Sextant's key: the projects are
 * described (as the Roslyn provider describes them), ensured in one live workspace, and asked for
 * their documents' occurrences (host op `occurrences`, Occurrences.cs) one project at a time.
 * Used by `sextant scip export` and by the persisted layer.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import type { PathPolicy } from '../../core/paths';
import type { ProjectGraph } from '../../projects/ProjectGraph';
import { ProjectDescriber, projectKey } from '../roslyn/projectDescriptions';
import type { HostDocumentOccurrences, OccurrencesResult, ProjectDescription, ProjectKey } from '../roslyn/hostProtocol';
import { RoslynHost } from '../roslyn/roslynHost';
import { compilationKey, type DeclarationShapes } from './documentKeys';
import type { ScipDocument, ScipSymbolInformation } from './scipCodec';

/** The host's answer (roslyn/PROTOCOL.md `occurrences`). */
export type { HostDocumentOccurrences, OccurrencesResult as HostOccurrencesResult } from '../roslyn/hostProtocol';

/** SymbolInformation.Kind of the host's kind names. */
const KIND: Record<string, number> = { class: 7, interface: 21, struct: 49, enum: 11, enumMember: 12, method: 26, constructor: 9, property: 41, field: 15, event: 13, operator: 34, namespace: 30, typeParameter: 58, constant: 8 };

export interface CSharpExportInput {
  root: string;
  graph: ProjectGraph;
  files: Iterable<string>;
  policy: PathPolicy;
  shapes: DeclarationShapes;
  /** The indexed sha1 of a file (a document whose bytes differ from it is left out). */
  indexedHash: (rel: string) => string | undefined;
  /** The current key of a generator's document (`generated:…`; see documentKeys.ts GeneratedKeys). */
  generatedKey: (p: string) => string | undefined;
  /** The inputs fingerprint of a compilation now (documentKeys.ts CompilationInputs), recorded with each key. */
  inputs?: (projectKey: string, generated: boolean) => string | undefined;
  /** The describer to use (one evaluation per project shared with the caller); default: a new one. */
  describer?: ProjectDescriber;
  log?: (line: string) => void;
  /** The host's memory cap (MB) and nice value (background pass). */
  memoryCapMb?: number;
  nice?: number;
}

/** Converts one document of the host's answer to SCIP with its key. */
export function toScipDocument(d: HostDocumentOccurrences, project: string, compilation: string, shapes: DeclarationShapes, contentHash: string, extra: { inputs?: string | undefined; hashOf?: (rel: string) => string | undefined } = {}): ScipDocument {
  const occurrences: ScipDocument['occurrences'] = [];
  for (let i = 0; i + 9 < d.occ.length; i += 10) {
    const [sl, sc, el, ec, sym, roles, esl, esc, eel, eec] = d.occ.slice(i, i + 10) as [number, number, number, number, number, number, number, number, number, number];
    const range = sl === el ? [sl, sc, ec] : [sl, sc, el, ec];
    const o: ScipDocument['occurrences'][number] = { range, symbol: d.symbols[sym] ?? '', symbolRoles: roles };
    if (esl >= 0) o.enclosingRange = esl === eel ? [esl, esc, eec] : [esl, esc, eel, eec];
    occurrences.push(o);
  }
  const symbols: ScipSymbolInformation[] = d.infos.map((x) => ({
    symbol: d.symbols[x.symbol] ?? '',
    documentation: [],
    relationships: x.relations.map((r) => ({ symbol: d.symbols[r.symbol] ?? '', isImplementation: r.kind === 'implementation', isReference: false, isTypeDefinition: false, isDefinition: false })),
    kind: KIND[x.kind] ?? 0,
    displayName: x.display,
    enclosingSymbol: '',
  }));
  return {
    relativePath: d.path,
    language: 'csharp',
    positionEncoding: 2,
    occurrences,
    symbols,
    key: {
      contentHash,
      project,
      compilation,
      deps: d.deps.map((p) => {
        const hash = p.startsWith('generated:') ? undefined : extra.hashOf?.(p);
        return { path: p, shape: shapes.shape(p), ...(hash ? { hash } : {}) };
      }),
      ...(extra.inputs ? { inputs: extra.inputs } : {}),
    },
  };
}

/** What keys a project's documents: the workspace as the index holds it now. */
export type KeyInputs = Pick<CSharpExportInput, 'root' | 'shapes' | 'indexedHash' | 'generatedKey' | 'inputs'>;

/**
 * The host's answer for one compilation as SCIP documents with their keys. Facts are recorded only
 * for the bytes the index holds (the host hashes the file only when its bytes are what it
 * compiled); generator output under obj/ is never indexed (keyed by the bytes the host read); a
 * generator's in-memory document by what the generator read — and not at all when one of the
 * project's documents was stale in the host (the generator then read another text).
 */
export function keyedDocuments(r: OccurrencesResult, key: ProjectKey, description: ProjectDescription, input: KeyInputs): ScipDocument[] {
  const compilation = compilationKey(description, input.root);
  const out: ScipDocument[] = [];
  // The fingerprint only when it describes the compilation key just computed (same index version).
  const plain = { inputs: input.inputs?.(key, false), hashOf: input.indexedHash };
  const withContents = { inputs: input.inputs?.(key, true), hashOf: input.indexedHash };
  let stale = false;
  for (const d of r.documents) {
    if (d.generated) continue;
    const indexed = input.indexedHash(d.path) ?? (/(^|\/)obj\//.test(d.path) ? d.sha1 : undefined);
    // stale in the host, or changed on disk since it was indexed
    if (d.stale || (indexed && d.sha1 && d.sha1 !== indexed)) stale = true;
    if (!indexed || d.sha1 !== indexed) continue;
    out.push(toScipDocument(d, key, compilation, input.shapes, indexed, plain));
  }
  if (!stale && r.notDone.length === 0) {
    for (const d of r.documents) {
      if (!d.generated) continue;
      const k = input.generatedKey(d.path);
      if (k) out.push(toScipDocument(d, key, compilation, input.shapes, k, withContents));
    }
  }
  return out;
}

/**
 * Resolves the given C# projects (graph ids) and yields their documents. The host process is
 * started for this run and stopped at the end.
 */
export async function* csharpDocuments(input: CSharpExportInput, projects: readonly string[], signal: AbortSignal): AsyncGenerator<ScipDocument> {
  const describer = input.describer ?? new ProjectDescriber({ root: input.root, graph: input.graph, files: input.files, policy: input.policy });
  const host = new RoslynHost({ root: input.root, ...(input.memoryCapMb ? { memoryCapMb: input.memoryCapMb } : {}) });
  const say = input.log ?? (() => undefined);
  try {
    const ready = await host.acquire(120_000, signal);
    if (!ready.ok) throw new Error(`the Roslyn host did not start: ${ready.reason}`);
    const generation = ready.generation;
    const pid = host.status().pid;
    if (input.nice !== undefined && pid !== undefined) {
      try {
        os.setPriority(pid, input.nice);
      } catch {
        /* not permitted: runs at normal priority */
      }
    }
    const wanted = new Map<ProjectKey, { project: string; description: ProjectDescription }>();
    const all = new Map<ProjectKey, ProjectDescription>();
    // Every framework of a multi-targeting project is its own compilation (`#if` branches differ).
    const variants = projects.flatMap((id) => {
      const n = describer.node(id);
      return n && n.kind === 'csharp' ? (n.targetFrameworks.length ? n.targetFrameworks : [undefined]).map((t) => ({ id, key: projectKey(id, t) })) : [];
    });
    for (const { id, key } of variants) {
      const d = describer.describe(key);
      if (!d.ok) {
        say(`${id}: not described (${d.reason})`);
        continue;
      }
      wanted.set(key, { project: id, description: d.description });
      all.set(key, d.description);
      for (const r of d.description.projectReferences) {
        if (all.has(r)) continue;
        const rd = describer.describe(r);
        if (rd.ok) all.set(r, rd.description);
      }
    }
    await host.request('projects/ensure', { projects: [...all.values()] }, { signal, deadline: Date.now() + 600_000, generation });
    let n = 0;
    for (const [key, { description }] of wanted) {
      if (signal.aborted) return;
      const t0 = Date.now();
      const r = await host.request<OccurrencesResult>('occurrences', { projectKey: key }, { signal, deadline: Date.now() + 600_000, generation });
      const docs = keyedDocuments(r, key, description, input);
      yield* docs;
      say(`${++n}/${wanted.size} ${key}: ${docs.length} documents in ${Date.now() - t0} ms${r.notDone.length ? `, ${r.notDone.length} not done` : ''}`);
    }
  } finally {
    await host.stop('export done');
  }
}

/** sha1 of a file's bytes (as the index hashes them). */
export function fileSha1(abs: string): string {
  return crypto.createHash('sha1').update(fs.readFileSync(abs)).digest('hex');
}
