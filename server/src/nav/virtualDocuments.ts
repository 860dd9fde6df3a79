/**
 * Reading a virtual document (core/virtualPaths.ts) for the tools that read files: source_context,
 * outline, and the semantic targets at a position in one. The text comes from the provider that made
 * it (the Roslyn host: a source generator's output, a decompiled framework or package type); it is
 * kept per path and index version for a short while, so the outline and the source_context that
 * follow a definition do not ask again.
 */
import { ToolError } from '../core/errors';
import { VIRTUAL_DOCUMENT_DEADLINE_MS, VIRTUAL_DOCUMENTS_KEPT } from '../core/limits';
import { generatedPathParts, virtualKind, type VirtualKind } from '../core/virtualPaths';
import type { MetadataOrigin } from '../semantic/roslyn/hostProtocol';
import { readVirtualSource } from '../semantic/roslyn/virtualDocuments';
import type { HierarchyItem, SemanticLocation } from '../semantic/types';
import type { Engine } from './engine';
import type { NavRow } from './semanticQueries';
import { semanticService } from './semanticService';

export interface VirtualDocument {
  path: string;
  kind: VirtualKind;
  text: string;
  /** generated: the project (file path) whose generator made it, and the generator type. */
  project?: string;
  generator?: string;
  /** decompiled: the assembly and its package. */
  origin?: MetadataOrigin;
}

const kept = new WeakMap<Engine, Map<string, VirtualDocument>>();

/** The document at a virtual path; throws ToolError when no provider can produce it now. */
export async function readVirtualDocument(engine: Engine, p: string, deadlineAt = Date.now() + VIRTUAL_DOCUMENT_DEADLINE_MS): Promise<VirtualDocument> {
  const kind = virtualKind(p);
  if (!kind) throw new ToolError('INVALID_ARGUMENT', `'${p}' is not a virtual document path`, 'pass a workspace path, or a generated:/decompiled: path from an answer');
  const cache = kept.get(engine) ?? kept.set(engine, new Map()).get(engine)!;
  const key = `${engine.version}|${p}`;
  const hit = cache.get(key);
  if (hit) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const gen = kind === 'generated' ? generatedPathParts(p) : undefined;
  if (kind === 'generated' && !gen) throw new ToolError('INVALID_ARGUMENT', `'${p}' is not a well-formed generated: path`, 'use the path exactly as an answer gave it: generated:<project>|<tfm>/<assembly>/<generator>/<hint name>');
  const roslyn = semanticService(engine).roslyn;
  if (!roslyn) throw new ToolError('PROVIDER_UNAVAILABLE', `'${p}' is a virtual document of the Roslyn host, which is not running in this engine`, 'C# generated and decompiled documents need the Roslyn host (built by npm install with the .NET SDK)');
  const r = await readVirtualSource(roslyn, p, deadlineAt);
  if (!r.ok) throw new ToolError('DOCUMENT_UNAVAILABLE', `'${p}' could not be read: ${r.reason}`, kind === 'generated' ? 'ask definition again for a current path (the generator output may have changed)' : 'ask definition of the symbol again');
  const doc: VirtualDocument = { path: p, kind, text: r.result.text };
  if (gen) {
    doc.project = gen.project;
    doc.generator = r.result.generator ?? gen.generator;
  }
  if (r.result.origin) doc.origin = r.result.origin;
  cache.set(key, doc);
  while (cache.size > VIRTUAL_DOCUMENTS_KEPT) cache.delete(cache.keys().next().value!);
  return doc;
}

/**
 * A navigation row at a virtual path: a generated document's row names its project and generator
 * (isGenerated); a decompiled one is outside the workspace (external) and says what it is —
 * assembly, package, signature, doc summary — since no index row describes it.
 */
export function virtualRow(row: NavRow, l: SemanticLocation | HierarchyItem, withName = false): NavRow {
  if (withName && 'name' in l) {
    row.name = l.name;
    row.kind = l.kind;
    if (l.detail) row.container = l.detail;
  }
  const gen = generatedPathParts(l.path);
  if (gen) {
    row.project = gen.project;
    row.isGenerated = true;
    row.generator = gen.generator;
    return row;
  }
  row.external = true;
  const m = l.metadata;
  if (m) {
    row.assembly = m.assembly;
    if (m.package) row.package = m.package;
    if (m.signature) row.signature = m.signature;
    if (m.summary) row.summary = m.summary;
  }
  return row;
}
