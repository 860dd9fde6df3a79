/**
 * Framework and package symbols (metadata) as targets of the Roslyn provider: a documentation id
 * asked without a workspace position (`M:System.Net.Http.HttpClient.SendAsync(…)`), or a metadata
 * item of an earlier answer (a System.Object supertype), is bound in a project that can see it —
 * one whose files mention its name, as the text index says — and the answers say which projects
 * could use it (those referencing its assembly) and how many were searched.
 */
import type { ProjectKey } from './hostProtocol';
import type { ProjectDescriber } from './projectDescriptions';

/** What the host reports about the scope of a metadata symbol's search (protocol 5). */
export interface MetadataScope {
  assembly: string;
  /** Known projects that reference the assembly. */
  referencing: number;
  /** Known projects. */
  known: number;
}

/**
 * The projects a metadata documentation id may be bound in, in the order to try them: the given
 * context (the project an earlier answer came from), then the projects whose files mention the
 * name, shallowest path first (mainline code before samples and docs snippets), at most `max`. A
 * project that cannot resolve the id (its package is not restored) answers SYMBOL_NOT_FOUND and
 * the next is tried. Empty: no C# project mentions it (no use can exist to search).
 */
export function metadataBindKeys(describer: ProjectDescriber, mentioning: ReadonlySet<string> | undefined, context: ProjectKey | undefined, max: number): ProjectKey[] {
  const out: ProjectKey[] = [];
  if (context && describer.describe(context).ok) out.push(context);
  const depth = (id: string) => id.split('/').length;
  for (const id of [...(mentioning ?? [])].sort((a, b) => depth(a) - depth(b) || (a < b ? -1 : a > b ? 1 : 0))) {
    if (out.length >= max) break;
    const k = describer.keyOfProject(id);
    if (k && !out.includes(k)) out.push(k);
  }
  return out;
}

/**
 * The note of a metadata symbol's use search: of the candidate projects (those whose files mention
 * the name), how many compile against its assembly — those were searched, the others cannot use it.
 */
export function metadataScopeNote(name: string, scope: MetadataScope, searched: number): string {
  return `${name} is declared in ${scope.assembly} (metadata): searched the ${scope.referencing} of ${scope.known} candidate C# project(s) that reference it (candidates: files mentioning ${name}; ${searched} counted searched)`;
}

/** The simple name of a documentation id (`M:Ns.T.M(System.Int32)` → `M`; a constructor → its type). */
export function docIdName(docId: string): string {
  const body = docId.replace(/^[A-Z]:/, '').replace(/\(.*$/, '').replace(/``?\d+$/, '');
  const parts = body.split('.');
  const last = parts[parts.length - 1] ?? body;
  return (last === '#ctor' || last === '#cctor' ? parts[parts.length - 2] : last)?.replace(/`\d+$/, '') ?? body;
}
