/**
 * The navigation queries behind definition, references, implementations, callers, callees and
 * type_hierarchy: resolve the target, ask the semantic registry, and return plain rows with their
 * project, production/test class, per-row confidence and a target_ref. Every answer says how it
 * was produced (`mode`, `provider`, `reason`, `gaps`) and how the target was resolved.
 */
import picomatch from 'picomatch';
import { DECORATE_DECLARATIONS_PER_STEP, DEFINITION_ROWS_MAX, PREVIEW_CHARS } from '../core/limits';
import { runSteps, runStepsSliced } from '../core/timeSlice';
import { HeuristicProvider } from '../semantic/heuristic/heuristicProvider';
import type { NavigationMode } from '../semantic/provider';
import type { SemanticAnswer } from '../semantic/registry';
import type { HierarchyItem, IncomingCall, ReferenceLocation, SemanticLocation } from '../semantic/types';
import type { Engine } from './engine';
import { projectGraph } from './projects';
import { changedSince, resolveTarget, targetRefFor, type ResolvedTarget, type TargetInput, type TargetRef, type TargetSelection } from './semanticTarget';
import { semanticService } from './semanticService';
import { symbolIds } from './symbolIds';
import { isTestFile } from './testLabels';
import { virtualRow } from './virtualDocuments';
import { isVirtualPath } from '../core/virtualPaths';

/** `unbound`: a mention of the name the compiler could not bind (a package not restored), or a declaration such a mention may mean. */
export type Confidence = 'exact' | 'partial' | 'heuristic' | 'stale' | 'unbound';

/** One location row as every navigation tool returns it. */
export interface NavRow {
  path: string;
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** Project (file path) compiling the file; the first when several. */
  project?: string;
  /** Test code (test project or test file class). */
  isTest: boolean;
  isGenerated: boolean;
  confidence: Confidence;
  /** declaration | reference | related (a related member's reference, on request). */
  role?: 'declaration' | 'reference' | 'related';
  /** Declaration facts from the syntax index, when a declaration starts here. */
  name?: string;
  kind?: string;
  signature?: string;
  container?: string;
  /** The source line, trimmed. */
  snippet?: string;
  external?: boolean;
  target_ref?: TargetRef;
  /** A generated document's generator (its `generated:` path names it; nav/virtualDocuments.ts). */
  generator?: string;
  /** A framework or package declaration (a `decompiled:` path): assembly, package, doc summary. */
  assembly?: string;
  package?: string;
  summary?: string;
  /** An unbound row: the unresolved type that kept it from binding. */
  blocked_by?: string;
}

/** What every navigation answer carries besides its rows. */
export interface NavMeta {
  /** The identifier at the target. */
  name: string;
  mode: NavigationMode;
  provider?: string;
  /** Why the answer is not precise. */
  reason?: string;
  /** Known coverage gaps of a precise answer. */
  gaps: string[];
  /** Facts about a complete answer (e.g. unresolved references of the projects searched). */
  notes?: string[];
  target_selection: TargetSelection;
  elapsedMs: number;
}

export interface NavOptions {
  deadlineAt?: number;
  waitForReadyMs?: number;
}

/** Resolution ended in candidates: the answer lists them and no rows. */
export interface AmbiguousAnswer {
  ambiguous: true;
  target_selection: TargetSelection;
}

// ─── definition ────────────────────────────────────────────────────────────────

/**
 * Definition rows: the first DEFINITION_ROWS_MAX decorated in full, `total` counting all. A very
 * common name answered by name matching (`_service`: 22,654 declarations) was decorated whole —
 * every file read, every declaration looked up — for seconds on the engine thread.
 */
export async function definitionQuery(engine: Engine, target: TargetInput, o: NavOptions = {}): Promise<(NavMeta & { rows: NavRow[]; total: number }) | AmbiguousAnswer> {
  const t = resolveTarget(engine, target);
  if ('ambiguous' in t) return { ambiguous: true, target_selection: t.selection };
  const a = await semanticService(engine).request('definition', t.language, t.position, { ...o, ...focusOf(t) });
  const all = a.value ?? [];
  const rows = await decorateSliced(engine, all.slice(0, DEFINITION_ROWS_MAX), a.mode);
  return { ...meta(a, t), rows, total: all.length };
}

// ─── references ────────────────────────────────────────────────────────────────

export interface ReferenceOptions extends NavOptions {
  includeDefinition?: boolean;
  includeRelated?: boolean;
  scope?: 'all' | 'production' | 'test';
  /** Glob over project paths (or names). */
  project?: string;
  includeGenerated?: boolean;
}

export interface ReferenceCounts {
  total: number;
  projects: number;
  productionProjects: number;
  testProjects: number;
  production: number;
  test: number;
  generated: number;
  handwritten: number;
  /** Rows the compiler could not bind (confidence unbound), only when some. */
  unbound?: number;
}

export async function referencesQuery(engine: Engine, target: TargetInput, o: ReferenceOptions = {}): Promise<(NavMeta & { rows: NavRow[]; counts: ReferenceCounts }) | AmbiguousAnswer> {
  const t = resolveTarget(engine, target);
  if ('ambiguous' in t) return { ambiguous: true, target_selection: t.selection };
  const a = await semanticService(engine).request(
    'references',
    t.language,
    { ...t.position, includeDeclaration: o.includeDefinition ?? true, ...(o.includeRelated ? { includeRelated: true } : {}) },
    { ...o, ...focusOf(t) },
  );
  // Light rows for counting and grouping (100k references stay cheap); enrichRows() fills the shown ones.
  let rows = (await decorateSliced(engine, a.value ?? [], a.mode, false, true)).sort(compareRows);
  if (o.scope === 'production') rows = rows.filter((r) => !r.isTest);
  if (o.scope === 'test') rows = rows.filter((r) => r.isTest);
  if (o.includeGenerated === false) rows = rows.filter((r) => !r.isGenerated);
  if (o.project) {
    const m = picomatch(o.project, { nocase: true });
    rows = rows.filter((r) => r.project !== undefined && (m(r.project) || m(r.project.split('/').pop()!.replace(/\.[^.]+$/, ''))));
  }
  return { ...meta(a, t), rows, counts: countReferences(rows) };
}

export function countReferences(rows: readonly NavRow[]): ReferenceCounts {
  const projects = new Map<string, boolean>();
  let test = 0;
  let generated = 0;
  let unbound = 0;
  for (const r of rows) {
    if (r.isTest) test++;
    if (r.confidence === 'unbound') unbound++;
    if (r.isGenerated) generated++;
    const key = r.project ?? '(no project)';
    projects.set(key, (projects.get(key) ?? true) && r.isTest);
  }
  const testProjects = [...projects.values()].filter(Boolean).length;
  return {
    total: rows.length,
    projects: projects.size,
    productionProjects: projects.size - testProjects,
    testProjects,
    production: rows.length - test,
    test,
    generated,
    handwritten: rows.length - generated,
    ...(unbound ? { unbound } : {}),
  };
}

// ─── implementations ───────────────────────────────────────────────────────────

export async function implementationsQuery(engine: Engine, target: TargetInput, o: NavOptions = {}): Promise<(NavMeta & { rows: NavRow[] }) | AmbiguousAnswer> {
  const t = resolveTarget(engine, target);
  if ('ambiguous' in t) return { ambiguous: true, target_selection: t.selection };
  const a = await semanticService(engine).request('implementation', t.language, t.position, { ...o, ...focusOf(t) });
  return { ...meta(a, t), rows: await decorateSliced(engine, [...(a.value ?? [])].sort(compareLocations), a.mode) };
}

// ─── call hierarchy ────────────────────────────────────────────────────────────

export type Availability = 'available' | 'partial' | 'heuristic' | 'unavailable';

export interface CallEdge {
  /** 1 for direct callers/callees of the target. */
  depth: number;
  caller: NavRow;
  callee: NavRow;
  /** Call sites (in the caller's file). */
  sites: { line: number; column: number }[];
  confidence: Confidence;
  /** The calls bind to a member implementing / overriding the target (binds_to: its qualified name). */
  via?: 'implementation' | 'override';
  binds_to?: string;
  /** The caller names the method without calling it (a method group). */
  kind?: 'reference';
  /** confidence unbound: the unresolved type in the way. */
  blocked_by?: string;
}

export interface CallAnswer extends NavMeta {
  availability: Availability;
  root?: NavRow;
  edges: CallEdge[];
  /** The walk stopped at the edge cap or the deadline. */
  truncated?: 'cap' | 'deadline';
}

export async function callsQuery(
  engine: Engine,
  target: TargetInput,
  direction: 'incoming' | 'outgoing',
  depth: number,
  maxEdges: number,
  o: NavOptions = {},
): Promise<CallAnswer | AmbiguousAnswer> {
  const t = resolveTarget(engine, target);
  if ('ambiguous' in t) return { ambiguous: true, target_selection: t.selection };
  const svc = semanticService(engine);
  const prep = await svc.request('prepareCallHierarchy', t.language, t.position, { ...o, ...focusOf(t) });
  const roots = prep.value ?? [];
  const edges: CallEdge[] = [];
  let worst: SemanticAnswer<unknown> = prep;
  const gaps = new Set(prep.gaps);
  const notes = new Set(prep.notes ?? []);
  let truncated: CallAnswer['truncated'];
  const seen = new Set<string>();
  let frontier: { item: HierarchyItem; depth: number }[] = roots.slice(0, 1).map((item) => ({ item, depth: 1 }));
  while (frontier.length && !truncated) {
    const next: typeof frontier = [];
    for (const { item, depth: d } of frontier) {
      const key = `${item.path}:${item.line}:${item.column}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (o.deadlineAt !== undefined && Date.now() > o.deadlineAt - 300) {
        truncated = 'deadline';
        break;
      }
      const a =
        direction === 'incoming'
          ? await svc.request('incomingCalls', t.language, item, o)
          : await svc.request('outgoingCalls', t.language, item, o);
      if (rank(a.mode) > rank(worst.mode)) worst = a;
      a.gaps.forEach((g) => gaps.add(g));
      a.notes?.forEach((x) => notes.add(x));
      const conf = confidenceOf(a.mode);
      const calls = [...((a.value ?? []) as { from?: HierarchyItem; to?: HierarchyItem }[])].sort((x, y) => compareLocations((direction === 'incoming' ? x.from : x.to)!, (direction === 'incoming' ? y.from : y.to)!));
      for (const call of calls as (Partial<IncomingCall> & { to?: HierarchyItem; sites: SemanticLocation[] | { line: number; column: number }[] })[]) {
        const other = (direction === 'incoming' ? call.from : call.to)!;
        const [otherRow] = decorate(engine, [other], a.mode, true);
        const [itemRow] = decorate(engine, [item], a.mode, true);
        const edge: CallEdge = {
          depth: d,
          caller: direction === 'incoming' ? otherRow! : itemRow!,
          callee: direction === 'incoming' ? itemRow! : otherRow!,
          sites: call.sites.map((s) => ({ line: s.line, column: s.column })),
          confidence: call.confidence === 'unbound' ? 'unbound' : direction === 'outgoing' && conf === 'exact' ? 'partial' : conf,
        };
        if (call.via) edge.via = call.via;
        if (call.bindsTo) edge.binds_to = call.bindsTo;
        if (call.kind) edge.kind = call.kind;
        if (call.blockedBy) edge.blocked_by = call.blockedBy;
        edges.push(edge);
        if (edges.length >= maxEdges) {
          truncated = 'cap';
          break;
        }
        if (d < depth) next.push({ item: other, depth: d + 1 });
      }
      if (truncated) break;
    }
    frontier = next;
  }
  const m = meta({ ...worst, gaps: [...gaps], ...(notes.size ? { notes: [...notes] } : {}) } as SemanticAnswer<unknown>, t);
  const availability: Availability =
    roots.length === 0 && prep.mode === 'unavailable_no_precise'
      ? 'unavailable'
      : m.mode === 'precise'
        ? 'available'
        : m.mode === 'precise_partial'
          ? 'partial'
          : m.mode === 'heuristic_no_precise'
            ? 'heuristic'
            : 'unavailable';
  const answer: CallAnswer = { ...m, availability, edges };
  if (roots[0]) answer.root = decorate(engine, [roots[0]], prep.mode, true)[0]!;
  if (truncated) answer.truncated = truncated;
  return answer;
}

// ─── type hierarchy ────────────────────────────────────────────────────────────

export interface TypeNode extends NavRow {
  relation: 'self' | 'supertype' | 'subtype';
  depth: number;
  /** Name of the node this one was reached from. */
  via?: string;
  /** Further declarations of a partial type. */
  partials?: { path: string; line: number; column: number }[];
}

export interface TypeHierarchyAnswer extends NavMeta {
  availability: Availability;
  nodes: TypeNode[];
  truncated?: 'cap' | 'deadline';
}

export async function typeHierarchyQuery(
  engine: Engine,
  target: TargetInput,
  direction: 'supertypes' | 'subtypes' | 'both',
  depth: number,
  maxNodes: number,
  o: NavOptions = {},
): Promise<TypeHierarchyAnswer | AmbiguousAnswer> {
  const t = resolveTarget(engine, target);
  if ('ambiguous' in t) return { ambiguous: true, target_selection: t.selection };
  const svc = semanticService(engine);
  const prep = await svc.request('prepareTypeHierarchy', t.language, t.position, { ...o, ...focusOf(t) });
  const root = prep.value?.[0];
  const nodes: TypeNode[] = [];
  let worst: SemanticAnswer<unknown> = prep;
  const gaps = new Set(prep.gaps);
  const notes = new Set(prep.notes ?? []);
  let truncated: TypeHierarchyAnswer['truncated'];
  if (root) {
    nodes.push(typeNode(engine, root, 'self', 0, undefined, prep.mode));
    const dirs: ('supertypes' | 'subtypes')[] = direction === 'both' ? ['supertypes', 'subtypes'] : [direction];
    for (const dir of dirs) {
      const seen = new Set<string>([`${root.path}:${root.line}`]);
      let frontier = [root];
      for (let d = 1; d <= depth && frontier.length && !truncated; d++) {
        const next: HierarchyItem[] = [];
        for (const item of frontier) {
          if (o.deadlineAt !== undefined && Date.now() > o.deadlineAt - 300) {
            truncated = 'deadline';
            break;
          }
          const a = await svc.request(dir, t.language, item, o);
          if (rank(a.mode) > rank(worst.mode)) worst = a;
          a.gaps.forEach((g) => gaps.add(g));
      a.notes?.forEach((x) => notes.add(x));
          for (const x of [...(a.value ?? [])].sort(compareLocations)) {
            const key = `${x.path}:${x.line}`;
            if (seen.has(key)) continue;
            seen.add(key);
            nodes.push(typeNode(engine, x, dir === 'supertypes' ? 'supertype' : 'subtype', d, item.name, a.mode));
            next.push(x);
            if (nodes.length >= maxNodes) {
              truncated = 'cap';
              break;
            }
          }
          if (truncated) break;
        }
        frontier = next;
      }
    }
  }
  const m = meta({ ...worst, gaps: [...gaps], ...(notes.size ? { notes: [...notes] } : {}) } as SemanticAnswer<unknown>, t);
  const availability: Availability = !root ? 'unavailable' : m.mode === 'precise' ? 'available' : m.mode === 'precise_partial' ? 'partial' : m.mode === 'heuristic_no_precise' ? 'heuristic' : 'unavailable';
  const answer: TypeHierarchyAnswer = { ...m, availability, nodes };
  if (truncated) answer.truncated = truncated;
  return answer;
}

function typeNode(engine: Engine, item: HierarchyItem, relation: TypeNode['relation'], depth: number, via: string | undefined, mode: NavigationMode): TypeNode {
  const [row] = decorate(engine, [item], mode, true);
  const node: TypeNode = { ...row!, relation, depth };
  if (via) node.via = via;
  if (item.partials?.length) node.partials = item.partials.map((p) => ({ path: p.path, line: p.line, column: p.column }));
  return node;
}

/** Declaration facts, snippet and target_ref for rows decorated light (the page that is shown). */
export function enrichRows(engine: Engine, rows: NavRow[]): NavRow[] {
  const full = decorate(engine, rows.map(({ confidence: _c, blocked_by: _b, ...r }) => r), 'precise');
  return rows.map((r, i) => {
    const f = full[i]!;
    const out: NavRow = { ...r };
    for (const k of ['name', 'kind', 'signature', 'container', 'snippet', 'target_ref'] as const) if (f[k] !== undefined) (out as unknown as Record<string, unknown>)[k] = f[k];
    return out;
  });
}

// ─── shared ────────────────────────────────────────────────────────────────────

/**
 * The total order of location rows (the paging contract: path, line, column, end, then role), so
 * two computations of one answer list the same rows in the same order whatever order the
 * provider answered in.
 */
export function compareLocations(a: { path: string; line: number; column: number; endLine?: number; endColumn?: number; name?: string }, b: typeof a): number {
  return (
    (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) ||
    a.line - b.line ||
    a.column - b.column ||
    (a.endLine ?? 0) - (b.endLine ?? 0) ||
    (a.endColumn ?? 0) - (b.endColumn ?? 0) ||
    ((a.name ?? '') < (b.name ?? '') ? -1 : (a.name ?? '') > (b.name ?? '') ? 1 : 0)
  );
}

function compareRows(a: NavRow, b: NavRow): number {
  return compareLocations(a, b) || (a.role ?? '').localeCompare(b.role ?? '');
}

/** What the C# project choice needs to know about the target. */
function focusOf(t: ResolvedTarget): { name: string; project?: string } {
  return t.project ? { name: t.name, project: t.project } : { name: t.name };
}

function rank(m: NavigationMode): number {
  return { precise: 0, precise_partial: 1, heuristic_no_precise: 2, unavailable_no_precise: 3 }[m];
}

function confidenceOf(mode: NavigationMode): Confidence {
  return mode === 'precise' ? 'exact' : mode === 'precise_partial' ? 'exact' : 'heuristic';
}

function meta(a: SemanticAnswer<unknown>, t: ResolvedTarget): NavMeta {
  const m: NavMeta = { name: t.name, mode: a.mode, gaps: a.gaps, target_selection: t.selection, elapsedMs: a.elapsedMs };
  if (a.provider) m.provider = a.provider;
  if (a.reason) m.reason = a.reason;
  if (a.notes?.length) m.notes = a.notes;
  return m;
}

type Located = SemanticLocation | ReferenceLocation | HierarchyItem;

/** Adds project, class, freshness, declaration facts, snippet and target_ref to provider locations. */
export function decorate(engine: Engine, locs: readonly Located[], mode: NavigationMode, withName = false, light = false): NavRow[] {
  return runSteps(decorateSteps(engine, locs, mode, withName, light));
}

/**
 * decorate on the engine thread in time slices (core/timeSlice.ts): a wide answer is thousands of
 * rows, each a file read and a declaration lookup (5,000 implementations held the thread 1.6 s in one piece).
 */
export function decorateSliced(engine: Engine, locs: readonly Located[], mode: NavigationMode, withName = false, light = false): Promise<NavRow[]> {
  return runStepsSliced(decorateSteps(engine, locs, mode, withName, light));
}

function* decorateSteps(engine: Engine, locs: readonly Located[], mode: NavigationMode, withName: boolean, light: boolean): Generator<void, NavRow[]> {
  const g = projectGraph(engine);
  const catalog = engine.catalog();
  const lines = new Map<string, string[] | undefined>();
  const stale = new Map<string, boolean>();
  const testByPath = new Map<string, boolean>();
  const lineOf = (p: string, n: number): string | undefined => {
    if (!lines.has(p)) {
      try {
        lines.set(p, engine.policy.readFile(p).bytes.toString('utf8').split(/\r?\n/));
      } catch {
        lines.set(p, undefined);
      }
    }
    return lines.get(p)?.[n - 1];
  };
  const ids = symbolIds(engine);
  // Declaration facts for rows that may be declarations (a provider that says a row is a use is believed).
  const mayDeclare = (l: SemanticLocation | ReferenceLocation | HierarchyItem | NavRow) =>
    !l.external && (l as ReferenceLocation).isDeclaration !== false && (l as NavRow).role !== 'reference' && (l as NavRow).role !== 'related';
  // Declaration facts are looked up a step's rows at a time.
  let decls: (ReturnType<typeof HeuristicProvider.declaredAt> | undefined)[] = [];
  let declAt = 0;
  const out: NavRow[] = [];
  for (let i = 0; i < locs.length; i++) {
    if (i % DECORATE_DECLARATIONS_PER_STEP === 0) {
      if (i > 0) yield;
      if (!light) {
        decls = HeuristicProvider.declaredAtMany(engine.store, locs.slice(i, i + DECORATE_DECLARATIONS_PER_STEP).filter(mayDeclare));
        declAt = 0;
      }
    }
    out.push(decorateOne(locs[i]!));
  }
  return out;

  function decorateOne(l: Located): NavRow {
    const row: NavRow = {
      path: l.path,
      line: l.line,
      column: l.column,
      endLine: l.endLine,
      endColumn: l.endColumn,
      isTest: false,
      isGenerated: false,
      confidence: confidenceOf(mode),
    };
    // A framework or package symbol keeps its name, kind and assembly also without a decompiled view.
    if (isVirtualPath(l.path) || l.external) return virtualRow(row, l, withName);
    const file = catalog.byRelPath(l.path);
    // The file's primary compilation, the one its symbol ids name (owning project before linking ones).
    const project = ids.primary(l.path)?.project.id ?? g?.files.get(l.path)?.[0]?.project;
    if (project) row.project = project;
    let isTest = testByPath.get(l.path);
    if (isTest === undefined) {
      isTest = isTestFile(engine, l.path, { ...(project !== undefined ? { primaryProject: project } : {}), ...(file?.fileClass ? { fileClass: file.fileClass } : {}) });
      testByPath.set(l.path, isTest);
    }
    row.isTest = isTest;
    row.isGenerated = file?.fileClass === 'generated';
    if (!stale.has(l.path)) stale.set(l.path, changedSince(engine, l.path));
    if (stale.get(l.path)) row.confidence = 'stale';
    if (l.confidence === 'unbound') {
      row.confidence = 'unbound';
      if (l.blockedBy) row.blocked_by = l.blockedBy;
    }
    const r = l as ReferenceLocation;
    if (r.related) row.role = 'related';
    else if (r.isDeclaration !== undefined) row.role = r.isDeclaration ? 'declaration' : 'reference';
    if (light) return row;
    const decl = mayDeclare(l) ? decls[declAt++] : undefined;
    if (decl) {
      row.name = decl.name;
      row.kind = decl.kind;
      row.signature = decl.signature;
      if (decl.container) row.container = decl.container;
      if (row.role === undefined && r.isDeclaration === undefined && !('name' in l)) row.role = 'declaration';
    } else if (withName && 'name' in l) {
      row.name = (l as HierarchyItem).name;
      row.kind = (l as HierarchyItem).kind;
      if ((l as HierarchyItem).detail) row.container = (l as HierarchyItem).detail!;
    }
    const text = lineOf(l.path, l.line);
    if (text !== undefined) row.snippet = text.trim().slice(0, PREVIEW_CHARS);
    const ref = targetRefFor(engine, l, { decl });
    if (ref) row.target_ref = ref;
    return row;
  }
}
