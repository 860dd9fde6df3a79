/**
 * Which projects a question searches: the declaring project and its dependents whose files the
 * text index says mention the name (linked-file owners and the declaring projects of the members a
 * call dispatches through too), in project-reference closure order for projects/ensure; the files
 * the host reads; and the coverage gaps of an answer over that scope.
 */
import { ROSLYN_MAX_CANDIDATE_PROJECTS, ROSLYN_PREWARM_DESCRIBE_SLICE_MS } from '../../core/limits';
import type { ProjectKey, SymbolRef } from './hostProtocol';
import { splitKey, type ProjectDescriber } from './projectDescriptions';

/** What the provider needs from the engine: the project model of the current index version. */
export interface RoslynWorkspaceModel {
  /** The describer of the current project graph (undefined while there is none yet). */
  describer(): ProjectDescriber | undefined;
  /** Project ids that depend on `project`, transitively (the project itself excluded). */
  dependents(project: string): ReadonlySet<string>;
  /** Project ids with a file the text index says mentions `name`; undefined when it cannot tell. */
  projectsMentioning(name: string): ReadonlySet<string> | undefined;
  /** Files the text index says mention `name` as a token; undefined when it cannot tell. */
  filesMentioning?(name: string): ReadonlySet<string> | undefined;
  /** Paths changed on disk since they were indexed (watcher), to push before a question. */
  pendingPaths?(): Iterable<string>;
}

/** Coverage of one answer. */
export interface Scope {
  keys: ProjectKey[];
  /** Candidates that could not even be described or were cut at the cap. */
  dropped: { key: string; reason: string }[];
}

/**
 * What the text index says mentions the symbol's name — for an attribute class also its short
 * form (`[Audited]` names `AuditedAttribute`) — through `lookup` (projects or files), unioned;
 * undefined when the index cannot tell (a name that is no token: `.ctor`, an operator).
 */
function mentioning(symbol: SymbolRef, lookup: (name: string) => ReadonlySet<string> | undefined): ReadonlySet<string> | undefined {
  const name = symbol.name.replace(/[(<`].*$/, '');
  if (!/^\w+$/.test(name)) return undefined;
  const names = [name];
  if (symbol.kind === 'class' && /.Attribute$/.test(name)) names.push(name.slice(0, -'Attribute'.length));
  const out = new Set<string>();
  for (const n of names) {
    const m = lookup(n);
    if (!m) return undefined;
    for (const x of m) out.add(x);
  }
  return out;
}

/** The C# files that can name the symbol (the host reads only these of the scope; generated ones always). */
export function mentioningDocuments(model: RoslynWorkspaceModel, symbol: SymbolRef): string[] | undefined {
  const files = model.filesMentioning;
  const m = files ? mentioning(symbol, (n) => files(n)) : undefined;
  return m ? [...m].filter((f) => /\.cs$/i.test(f)) : undefined;
}

/**
 * The declaring project and its dependents that mention the name (the text index), as keys.
 * `alsoNames`: other names whose mention makes a project a candidate (a metadata type's
 * implementations: the metadata types deriving from it, protocol 8).
 */
export function candidates(model: RoslynWorkspaceModel, describer: ProjectDescriber, symbol: SymbolRef, bindKey: ProjectKey, dispatchers: readonly SymbolRef[] = [], alsoNames: readonly string[] = []): Scope {
  let mention = mentioning(symbol, (n) => model.projectsMentioning(n));
  for (const n of alsoNames) {
    if (!mention) break;
    const m = model.projectsMentioning(n);
    mention = m ? new Set([...mention, ...m]) : undefined;
  }
  const declaring = symbol.projectKey;
  const ids = new Set<string>();
  if (declaring) {
    // A linked file is compiled by several projects, each with its own copy of the symbol.
    const owners = new Set([splitKey(declaring).project, ...linkedOwners(describer, symbol)]);
    for (const p of owners) {
      ids.add(p);
      for (const d of model.dependents(p)) if (!mention || mention.has(d)) ids.add(d);
    }
    // Calls through an interface or base member it implements or overrides.
    for (const m of dispatchers) {
      const p = splitKey(m.projectKey!).project;
      ids.add(p);
      for (const d of model.dependents(p)) if (!mention || mention.has(d)) ids.add(d);
    }
  } else if (mention) {
    // A metadata symbol: every project that mentions it may use it.
    for (const m of mention) ids.add(m);
  } else ids.add(splitKey(bindKey).project);
  const keys: ProjectKey[] = [];
  const dropped: Scope['dropped'] = [];
  if (declaring) keys.push(declaring);
  for (const id of ids) {
    const k = declaring && splitKey(declaring).project === id ? undefined : describer.keyOfProject(id);
    if (!k) continue;
    if (keys.length >= ROSLYN_MAX_CANDIDATE_PROJECTS) {
      dropped.push({ key: k, reason: `over the ${ROSLYN_MAX_CANDIDATE_PROJECTS}-project cap of one question` });
      continue;
    }
    keys.push(k);
  }
  return { keys, dropped };
}

/** Other projects compiling a declaration file of the symbol (linked files), by project id. */
export function linkedOwners(describer: ProjectDescriber, symbol: SymbolRef): string[] {
  const out = new Set<string>();
  for (const l of symbol.locations) if (!l.external) for (const k of describer.keysOfFile(l.path)) out.add(splitKey(k).project);
  return [...out];
}

/**
 * The reference-closure walk both closures share: depth-first, references before the projects
 * that reference them, each project described once; it yields after every step so a caller can
 * pause between them. The keys are pushed to `out` as they complete.
 */
function* closureSteps(describer: ProjectDescriber, start: readonly ProjectKey[], out: ProjectKey[]): Generator<void, void> {
  const state = new Map<ProjectKey, 1 | 2>();
  for (const root of start) {
    if (state.has(root)) continue;
    const stack: { key: ProjectKey; i: number; refs: ProjectKey[] }[] = [];
    const push = (k: ProjectKey) => {
      state.set(k, 1);
      const d = describer.describe(k);
      stack.push({ key: k, i: 0, refs: d.ok ? d.description.projectReferences : [] });
    };
    push(root);
    while (stack.length) {
      yield;
      const top = stack[stack.length - 1]!;
      if (top.i < top.refs.length) {
        const r = top.refs[top.i++]!;
        if (!state.has(r)) push(r);
        continue;
      }
      stack.pop();
      state.set(top.key, 2);
      out.push(top.key);
    }
  }
}

/**
 * The closure of many keys (the background start: every project), references first, describing
 * each project on the way (an evaluation each) in slices with a yield to the event loop between
 * (`idle` waits while questions go first).
 */
export async function closureYielding(describer: ProjectDescriber, start: readonly ProjectKey[], signal: AbortSignal, idle: (signal: AbortSignal) => Promise<void>): Promise<ProjectKey[]> {
  const out: ProjectKey[] = [];
  let slice = Date.now();
  for (const _ of closureSteps(describer, start, out)) {
    // A question waits at most one slice of describing (time-bounded: an evaluation that takes
    // 3 ms on an idle machine takes 100 ms and more at load 20).
    if (Date.now() - slice < ROSLYN_PREWARM_DESCRIBE_SLICE_MS) continue;
    await new Promise((r) => setImmediate(r));
    await idle(signal);
    if (signal.aborted) return out;
    slice = Date.now();
  }
  return out;
}

/** Keys plus their project-reference closure, references first (the order ensure needs). */
export function referenceClosure(describer: ProjectDescriber, start: readonly ProjectKey[]): { keys: ProjectKey[] } {
  const out: ProjectKey[] = [];
  for (const _ of closureSteps(describer, start, out));
  return { keys: out };
}

/**
 * Coverage gaps of a use question: candidates the host did not search, candidates that could not
 * be loaded or were cut. Empty ⇔ every candidate project was searched.
 */
export function coverageGaps(scope: Scope, r: { searched: readonly string[]; notSearched: readonly { key: string; reason: string; detail?: string }[]; truncated?: boolean }, found: number): string[] {
  const needed = scope.keys.length + scope.dropped.length;
  const searchedSet = new Set(r.searched);
  const searched = scope.keys.filter((k) => searchedSet.has(k)).length;
  const missing = needed - searched;
  const gaps: string[] = [];
  if (missing > 0) {
    const examples = [
      ...r.notSearched.map((n) => `${splitKey(n.key).project} (${n.reason}${n.detail ? `: ${n.detail}` : ''})`),
      ...scope.dropped.map((d) => `${splitKey(d.key).project} (${d.reason})`),
    ].slice(0, 3);
    const lead = found === 0 ? `none found in the ${searched} project(s) searched (${missing} not searched)` : `searched ${searched} of ${needed} candidate project(s) (${missing} not searched)`;
    gaps.push(`${lead}${examples.length ? `: ${examples.join(', ')}${missing > examples.length ? ', …' : ''}` : ''}`);
  }
  if (r.truncated) gaps.push('the host cut the list at its item cap');
  return gaps;
}
