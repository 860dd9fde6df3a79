/**
 * Generator-written parts of a declaration in its project's other target frameworks. Each framework
 * of a multi-targeting project is its own compilation and runs the source generators itself, with
 * that framework's generator version (LoggerMessage 8.0 and 10.0 write different files), so a
 * partial type found in one compilation has generated parts in the others that no search of the
 * first lists. They are asked by doc id in each other framework, within a short wait; the parts not
 * looked at are a gap of the answer.
 */
import { ROSLYN_FRAMEWORK_PARTS_MAX_DECLARATIONS, ROSLYN_FRAMEWORK_PARTS_WAIT_MS } from '../../core/limits';
import type { CallContext } from '../provider';
import { HostErrorCodes, type DefinitionRow, type HostLocation, type ProjectKey } from './hostProtocol';
import type { RoslynSession } from './hostSession';
import { projectKey, splitKey, type ProjectDescriber } from './projectDescriptions';
import { referenceClosure } from './scopePlan';
import { rpcErrorCode } from '../lsp/rpcChannel';

/** A declaration as an answer found it: its doc id, the compilation it came from, its locations. */
export interface FoundDeclaration {
  docId: string | null;
  projectKey?: string | undefined;
  locations: HostLocation[];
}

const isGenerated = (l: HostLocation) => l.path.startsWith('generated:');

/**
 * Adds to each declaration (in place) its generated locations in the other frameworks of its
 * project that `searched` does not hold; returns the gap for what was not looked at, if any.
 */
export async function addFrameworkParts(s: RoslynSession, describer: ProjectDescriber, found: readonly FoundDeclaration[], searched: ReadonlySet<ProjectKey>, ctx: CallContext, generation: number): Promise<string | undefined> {
  const work: { decl: FoundDeclaration; key: ProjectKey }[] = [];
  for (const decl of found) {
    if (!decl.docId || !decl.projectKey || !decl.locations.some(isGenerated)) continue;
    const { project, tfm } = splitKey(decl.projectKey);
    for (const other of describer.node(project)?.targetFrameworks ?? []) {
      const key = projectKey(project, other);
      if (other !== tfm && !searched.has(key)) work.push({ decl, key });
    }
  }
  if (work.length === 0) return undefined;
  const until = Math.min(ctx.deadline - 300, Date.now() + ROSLYN_FRAMEWORK_PARTS_WAIT_MS);
  const missed = new Set<string>();
  const ensured = new Map<ProjectKey, boolean>();
  for (const [i, { decl, key }] of work.entries()) {
    const left = until - Date.now();
    if (i >= ROSLYN_FRAMEWORK_PARTS_MAX_DECLARATIONS || left < 200) {
      missed.add(splitKey(key).tfm);
      continue;
    }
    if (!ensured.has(key)) {
      const failed = await s.ensure(describer, referenceClosure(describer, [key]).keys, ctx, generation).catch(() => new Map([[key, 'ensure failed']]));
      ensured.set(key, !failed.has(key));
    }
    if (!ensured.get(key)) {
      missed.add(splitKey(key).tfm);
      continue;
    }
    try {
      const r = await s.query<DefinitionRow>({ op: 'definition', symbol: { docId: decl.docId!, projectKey: key }, scope: [key], options: { deadlineMs: Math.max(200, Math.round(until - Date.now())) } }, ctx, generation);
      if (r.notSearched.length > 0) {
        missed.add(splitKey(key).tfm);
        continue;
      }
      for (const l of r.items) if (isGenerated(l) && !decl.locations.some((x) => x.path === l.path && x.line === l.line && x.column === l.column)) decl.locations.push(l);
    } catch (e) {
      // Not declared in that framework's compilation (#if): nothing to add.
      if (rpcErrorCode(e) !== HostErrorCodes.symbolNotFound) throw e;
    }
  }
  if (missed.size === 0) return undefined;
  return `generator-written parts in the ${[...missed].sort().join(', ')} compilation(s) of the same project(s) were not looked at (not compiled within ${ROSLYN_FRAMEWORK_PARTS_WAIT_MS / 1000} s, or over ${ROSLYN_FRAMEWORK_PARTS_MAX_DECLARATIONS} declarations; asked again, the compiled ones are)`;
}
