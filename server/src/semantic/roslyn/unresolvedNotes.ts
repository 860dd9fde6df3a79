/**
 * What the searched projects compile without (the host dropped it): named, so an answer about a
 * symbol in source stays precise yet says where a use binding through a missing package or
 * reference could hide. Empty when everything resolved.
 */
import * as path from 'node:path';
import { ROSLYN_UNRESOLVED_NOTE_MAX_NAMES } from '../../core/limits';
import type { ProjectKey, Unresolved } from './hostProtocol';
import { splitKey } from './projectDescriptions';

export function unresolvedNotes(unresolved: ReadonlyMap<ProjectKey, readonly Unresolved[]>, keys: readonly ProjectKey[]): string[] {
  const byName = new Map<string, { kind: string; projects: Set<string> }>();
  let projects = 0;
  for (const k of new Set(keys)) {
    const list = unresolved.get(k);
    if (!list?.length) continue;
    if (list.some((u) => u.kind !== 'analyzer' && u.kind !== 'generator')) projects++;
    for (const u of list) {
      const name = u.kind === 'analyzer' || u.kind === 'reference' ? path.posix.basename(u.name.replace(/\\/g, '/')) : u.name;
      const e = byName.get(`${u.kind} ${name}`) ?? byName.set(`${u.kind} ${name}`, { kind: u.kind, projects: new Set() }).get(`${u.kind} ${name}`)!;
      e.projects.add(splitKey(k).project);
    }
  }
  if (byName.size === 0) return [];
  const binding = [...byName].filter(([, e]) => e.kind !== 'analyzer' && e.kind !== 'generator');
  const analyzers = [...byName].filter(([, e]) => e.kind === 'analyzer');
  const generators = [...byName].filter(([, e]) => e.kind === 'generator');
  const list = (xs: typeof binding) => xs.slice(0, ROSLYN_UNRESOLVED_NOTE_MAX_NAMES).map(([n, e]) => `${n} (${e.projects.size} project${e.projects.size === 1 ? '' : 's'})`).join(', ') + (xs.length > ROSLYN_UNRESOLVED_NOTE_MAX_NAMES ? `, and ${xs.length - ROSLYN_UNRESOLVED_NOTE_MAX_NAMES} more` : '');
  const notes: string[] = [];
  if (binding.length) notes.push(`${projects} of the ${new Set(keys).size} project(s) searched compile without what could not be resolved (uses that bind only through it may be missing): ${list(binding)}`);
  if (analyzers.length) notes.push(`analyzers not built, so their generated code is not seen: ${list(analyzers)}`);
  if (generators.length) notes.push(`source generators that could not be loaded, so their generated code is not seen: ${list(generators)}`);
  return notes;
}
