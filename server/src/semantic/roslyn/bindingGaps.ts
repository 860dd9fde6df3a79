/**
 * The gap an answer with unbound rows carries (issue 23): "N mentions could not be bound (package
 * X not restored; blocked by T)". The packages are the unresolved entries of the projects the
 * mentions are in (the host's per-project report); the types are what the host found in the way.
 */
import { ROSLYN_UNBOUND_GAP_MAX_NAMES } from '../../core/limits';
import type { ProjectKey, UnboundInfo, Unresolved } from './hostProtocol';

/** Why the name at a position did not bind, for a reason or a gap: the type in the way and the project's unresolved packages. */
export function unboundWhy(unresolved: ReadonlyMap<ProjectKey, readonly Unresolved[]>, u: UnboundInfo, projectKey: ProjectKey): string {
  const missing = (unresolved.get(projectKey) ?? []).filter((x) => x.kind !== 'analyzer' && x.kind !== 'generator').map((x) => (x.kind === 'package' ? `package ${x.name} not restored` : `${x.kind} ${x.name} not resolved`));
  const parts = [...(u.blockedBy ? [`${u.blockedBy} is unresolved`] : u.candidateReason ? [`Roslyn's candidates failed: ${u.candidateReason}`] : []), ...missing.slice(0, ROSLYN_UNBOUND_GAP_MAX_NAMES)];
  return `\`${u.name}\` at the position could not be bound${parts.length ? ` (${parts.join('; ')})` : ''}`;
}

export function unboundGap(unresolved: ReadonlyMap<ProjectKey, readonly Unresolved[]>, rows: readonly { projectKey?: string | undefined; blockedBy?: string | undefined }[]): string | undefined {
  if (rows.length === 0) return undefined;
  const missing = new Map<string, string>();
  const types = new Set<string>();
  for (const r of rows) {
    if (r.blockedBy) types.add(r.blockedBy);
    for (const u of (r.projectKey ? unresolved.get(r.projectKey) : undefined) ?? []) {
      if (u.kind === 'analyzer' || u.kind === 'generator') continue;
      const what = u.kind === 'package' ? `package ${u.name} not restored` : `${u.kind} ${u.name} not resolved`;
      missing.set(what, what);
    }
  }
  const list = (xs: string[]) => xs.slice(0, ROSLYN_UNBOUND_GAP_MAX_NAMES).join(', ') + (xs.length > ROSLYN_UNBOUND_GAP_MAX_NAMES ? `, and ${xs.length - ROSLYN_UNBOUND_GAP_MAX_NAMES} more` : '');
  const why = [...(missing.size ? [list([...missing.values()])] : []), ...(types.size ? [`blocked by ${list([...types])}`] : [])].join('; ');
  return `${rows.length} mention${rows.length === 1 ? '' : 's'} could not be bound${why ? ` (${why})` : ''}: rows with confidence "unbound"`;
}
