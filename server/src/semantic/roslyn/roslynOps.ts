/**
 * The provider's questions on the host: definition, the hierarchy preparations, callees,
 * documentation and supertypes in the position's project; the use questions (references,
 * implementations, callers, subtypes) ask the host for the symbol first, then search its declaring
 * project and the dependents that mention it (scopePlan.ts), each framework variant of the
 * declaring project in the projects that bind to it, with the answer's coverage gaps and notes.
 */
import { ROSLYN_DERIVED_EXPANSION_MAX_ROUNDS, ROSLYN_OVERRIDE_CHAIN_MAX_DEPTH, ROSLYN_OVERRIDE_WALK_MAX_MEMBERS } from '../../core/limits';
import type { CallContext, OpArgs, ProviderOutcome, SemanticOp } from '../provider';
import type { IncomingCall, OutgoingCall, ReferenceLocation } from '../types';
import { HostErrorCodes, type CalleeRow, type CallerRow, type DefinitionRow, type ImplementationRow, type ProjectKey, type QueryParams, type QueryResult, type ReferenceRow, type SymbolInfoRow, type SymbolRef, type TypeHierarchyRow } from './hostProtocol';
import { atHandWrittenParts, locKey, ROSLYN_PROVIDER_ID, symKey, toItem, toLocation, toReference, toSpan, TYPE_KINDS, unboundTypes, type ItemData } from './hostRows';
import type { RoslynSession } from './hostSession';
import { splitKey, type ProjectDescriber } from './projectDescriptions';
import { roslynDocumentation } from './roslynDocumentation';
import { candidates, closureYielding, coverageGaps, linkedOwners, mentioningDocuments, referenceClosure } from './scopePlan';
import { unboundGap, unboundWhy } from './bindingGaps';
import { rpcErrorCode } from '../lsp/rpcChannel';
import { metadataScopeNote } from './metadataTargets';
import { addFrameworkParts } from './frameworkParts';

/** Source generators of the question's project that threw (protocol 5): their output is missing. */
function generatorFailureNotes(r: QueryResult<unknown>): string[] {
  return (r.generatorFailures ?? []).map((f) => `source generator ${f.generator} threw in ${splitKey(f.projectKey).project} (its generated code is missing): ${f.error}`);
}

export async function answerOp(s: RoslynSession, op: SemanticOp, a: { path: string; line: number; column: number; origin?: string; data?: unknown; name?: string; docId?: string }, bindKey: ProjectKey, describer: ProjectDescriber, ctx: CallContext, generation: number): Promise<ProviderOutcome<unknown>> {
  const own = a.origin === ROSLYN_PROVIDER_ID ? (a.data as ItemData | undefined) : undefined;
  // A framework or package symbol (a documentation id asked without a position, or a metadata item
  // of an earlier answer) is bound by its id in `bindKey`, a project that sees it (metadataTargets.ts).
  const metadataId = a.docId ?? (own?.contextKey && own.docId ? own.docId : undefined);
  const position = metadataId ? undefined : { path: a.path, line: a.line, column: a.column, projectKey: bindKey };
  const target: Pick<QueryParams, 'position' | 'symbol'> = metadataId ? { symbol: { docId: metadataId, projectKey: bindKey } } : own?.docId && own.projectKey ? { symbol: { docId: own.docId, projectKey: own.projectKey } } : { position: position! };
  const at: Pick<QueryParams, 'position' | 'symbol'> = position ? { position } : target;
  switch (op) {
    case 'definition': {
      const r = await s.query<DefinitionRow>({ op: 'definition', ...at, scope: [bindKey] }, ctx, generation);
      const notes = [...s.unresolvedNotes([bindKey]), ...generatorFailureNotes(r)];
      // A namespace (protocol 9): no declaration rows, said.
      if (r.symbol?.kind === 'namespace') notes.push(`${r.symbol.display ?? r.symbol.name} is a namespace: it has no single declaration (every \`namespace ${r.symbol.display ?? r.symbol.name}\` of every project declares a part of it); ask about a type in it`);
      // A name that did not bind (protocol 6): the declarations it can mean, labelled; none: no precise answer.
      const gaps: string[] = [];
      // a partial member whose generated part is missing: the answer lacks a declaration (precise_partial)
      if (r.incomplete) gaps.push(r.incomplete);
      if (r.unbound) {
        const why = unboundWhy(s.unresolved, r.unbound, bindKey);
        const cut = r.notSearched.length ? ` (${r.notSearched.length} project(s) in reach not looked at by the deadline)` : '';
        if (r.items.length === 0) return { kind: 'unavailable', state: 'failed', reason: `${why}; no declaration of that name is in reach${cut}` };
        if (cut) gaps.push(`declarations named ${r.unbound.name}: ${r.notSearched.length} project(s) in reach not looked at by the deadline`);
        gaps.push(r.symbol ? `${why}; the declaration shown is Roslyn's candidate` : `${why}; ${r.items.length === 1 ? 'the declaration of that name it can mean is' : `the ${r.items.length} declarations of that name it can mean are`} listed with confidence "unbound"`);
      }
      // A partial declaration's generated parts in the project's other frameworks' compilations.
      if (r.symbol && !r.unbound) {
        const found = { docId: r.symbol.docId, projectKey: bindKey, locations: r.items };
        const partsGap = await addFrameworkParts(s, describer, [found], new Set([bindKey]), ctx, generation);
        if (partsGap) gaps.push(partsGap);
      }
      return { kind: 'ok', value: r.items.map(toLocation), ...(gaps.length ? { gaps } : {}), ...(notes.length ? { notes } : {}) };
    }
    case 'prepareCallHierarchy':
    case 'prepareTypeHierarchy': {
      let r = await s.query<SymbolInfoRow>({ op: 'symbolInfo', ...at, scope: [bindKey] }, ctx, generation);
      // A name that did not bind is not "nothing here" (an empty, precise preparation would answer
      // "0 callers", precise): the one declaration it can mean, said in a gap; else no precise answer.
      let gaps: string[] = [];
      if (!r.symbol && r.unbound && position) {
        const b = await bindUnbound(s, position, bindKey, r.unbound, ctx, generation);
        if ('reason' in b) return { kind: 'unavailable', state: 'failed', reason: b.reason };
        r = b.info;
        gaps = [b.gap];
      }
      if (!r.symbol) return { kind: 'ok', value: [] };
      if (op === 'prepareTypeHierarchy' && !TYPE_KINDS.has(r.symbol.kind)) return { kind: 'ok', value: [] };
      return { kind: 'ok', value: [toItem(r.symbol, position, bindKey)], ...(gaps.length ? { gaps } : {}) };
    }
    case 'outgoingCalls': {
      const r = await s.query<CalleeRow>({ op: 'callees', ...target, scope: [bindKey] }, ctx, generation);
      const value: OutgoingCall[] = r.items.map((c) => ({ to: toItem(c.to), sites: c.sites.map(toSpan) }));
      return { kind: 'ok', value };
    }
    case 'documentation':
      if (!position) return { kind: 'unavailable', state: 'unsupported', reason: 'documentation is asked at a position' };
      return { kind: 'ok', value: await roslynDocumentation(s, position, bindKey, ctx, generation) };
    case 'supertypes': {
      const r = await s.query<TypeHierarchyRow>({ op: 'typeHierarchy', ...target, scope: [bindKey], options: { direction: 'supertypes', transitive: false } }, ctx, generation);
      return { kind: 'ok', value: r.items.filter((t) => t.direction === 'supertype' && t.depth <= 1).map((t) => toItem(t, undefined, bindKey)) };
    }
    default:
      break;
  }
  // Use questions: find the symbol, then search its project and the dependents that mention it.
  // A doc id naming a type the compilation could not resolve (a package not restored) does not
  // resolve back to its symbol (SYMBOL_NOT_FOUND): the position still does.
  const notFound = (e: unknown) => rpcErrorCode(e) === HostErrorCodes.symbolNotFound;
  let info = await s.query<SymbolInfoRow>({ op: 'symbolInfo', ...target, scope: [bindKey] }, ctx, generation).catch((e: unknown) => {
    if (!notFound(e) || !target.symbol || !position) throw e;
    return s.query<SymbolInfoRow>({ op: 'symbolInfo', position, scope: [bindKey] }, ctx, generation);
  });
  /** The target is not what the position binds to (protocol 6): said in the answer. */
  let targetGap = info.unbound && info.symbol ? `${unboundWhy(s.unresolved, info.unbound, bindKey)}; the target is Roslyn's candidate` : undefined;
  if (!info.symbol && info.unbound && position) {
    const b = await bindUnbound(s, position, bindKey, info.unbound, ctx, generation);
    if ('reason' in b) return { kind: 'unavailable', state: 'failed', reason: b.reason };
    info = b.info;
    targetGap = b.gap;
  }
  const symbol = info.symbol;
  if (!symbol) return { kind: 'ok', value: [] };
  // A call through an interface or base member this one implements or overrides reaches it from
  // any project that sees that member, not only from dependents of the symbol's own project.
  const dispatchers = op === 'incomingCalls' && info.items[0] ? await dispatchersOf(s, info.items[0], ctx, generation) : [];
  // A metadata type's implementations also derive from the metadata types implementing it (protocol 8).
  const derivedNames = op === 'implementation' && !symbol.projectKey ? (info.items[0]?.metadataDerived ?? []) : [];
  const scope = candidates(s.model, describer, symbol, bindKey, dispatchers, derivedNames);
  // Describing the closure evaluates each project not described yet (hundreds for a widely used
  // type): in time slices, so other agents' questions are answered meanwhile.
  const closure = { keys: await closureYielding(describer, scope.keys, ctx.signal, async () => {}) };
  const failed = await s.ensure(describer, closure.keys, ctx, generation);
  const searchable = scope.keys.filter((k) => !failed.has(k));
  for (const k of scope.keys) if (failed.has(k)) scope.dropped.push({ key: k, reason: `could not be loaded: ${failed.get(k)}` });
  // A multi-targeting declaring project is several compilations: dependents bind to the one
  // their framework picks, whose symbol is another symbol. Each variant they reference is asked.
  const declaring = symbol.projectKey ? splitKey(symbol.projectKey).project : undefined;
  const owners = new Set([...(declaring !== undefined ? [declaring] : []), ...linkedOwners(describer, symbol)]);
  const variants = symbol.docId && symbol.projectKey ? [symbol.projectKey, ...closure.keys.filter((k) => k !== symbol.projectKey && owners.has(splitKey(k).project) && !failed.has(k))] : [];
  const sym = variants.length > 0 ? { symbol: { docId: symbol.docId!, projectKey: variants[0]! } } : target;
  const deadlineMs = Math.round(Math.max(500, ctx.deadline - Date.now() - 400));
  // Each variant is searched in the projects that bind to it (their reference closure holds it).
  // A project that binds to no variant (it sees only an interface or base member) calls through
  // that member whichever variant: it is searched with each.
  const bindsTo = (k: ProjectKey, v: ProjectKey) => k === v || referenceClosure(describer, [k]).keys.includes(v);
  const scopeOf = (v: ProjectKey): ProjectKey[] => {
    const out = searchable.filter((k) => bindsTo(k, v) || (dispatchers.length > 0 && !variants.some((w) => bindsTo(k, w))));
    return out.includes(v) ? out : [v, ...out];
  };
  const query = async <Row>(params: QueryParams, keyOf: (row: Row) => string): Promise<QueryResult<Row>> => {
    try {
      return await (variants.length > 1 ? s.queryVariants<Row>(params, symbol.docId!, variants, scopeOf, keyOf, ctx, generation) : s.query<Row>(params, ctx, generation));
    } catch (e) {
      if (!notFound(e) || !params.symbol || !position) throw e;
      // By position, in the compilation of the position's project (its other frameworks' copies are not reached).
      const { symbol: _byId, ...rest } = params;
      return s.query<Row>({ ...rest, position }, ctx, generation);
    }
  };
  let value: unknown[];
  let r: QueryResult<unknown>;
  /** Implementing members not asked for their overrides (deadline). */
  let overridesCut = 0;
  /** Derived types whose dependents were not followed (deadline or round limit). */
  let derivedOpen = false;
  /** Interface members (through an overridden member) whose calls could not be asked for. */
  const unresolvedVia: string[] = [];
  /** Mentions the host could not bind (protocol 6), with the project they are in. */
  let unbound: { projectKey?: string | undefined; blockedBy?: string | undefined }[] = [];
  /** Generated parts in other frameworks' compilations not looked at. */
  let partsGap: string | undefined;
  switch (op) {
    case 'references': {
      const q = a as unknown as OpArgs<'references'>;
      // Related rows are always asked for: a type's uses through its constructors (`new T()`)
      // come back as rows of the constructor and are the type's own references.
      // Only the files whose text mentions the name (an attribute's short form too) can reference it.
      const documents = mentioningDocuments(s.model, symbol);
      const rr = await query<ReferenceRow>({ op: 'references', ...sym, scope: searchable, options: { includeDeclaration: q.includeDeclaration, includeRelated: true, deadlineMs, ...(documents ? { documents } : {}) } }, locKey);
      const ctor = TYPE_KINDS.has(symbol.kind) && symbol.docId?.startsWith('T:') ? `M:${symbol.docId.slice(2)}.#` : undefined;
      const rows: ReferenceLocation[] = [];
      for (const row of rr.items) {
        // SymbolFinder marks a reference implicit where the symbol is not written (`new(...)`
        // target-typed, a foreach's GetEnumerator, a deconstruction): not a use of its name.
        if (row.isImplicit) continue;
        // The same declaration in another framework's compilation (same doc id) is the target too.
        const own = !row.related || row.definition === symbol.docId || (ctor !== undefined && row.definition?.startsWith(ctor) === true);
        if (!own && !q.includeRelated) continue;
        const out = toReference(row);
        if (own) delete out.related;
        rows.push(out);
      }
      value = rows;
      unbound = rr.items.filter((x) => x.confidence === 'unbound' && !x.isImplicit);
      r = rr;
      break;
    }
    case 'implementation': {
      let rr = await query<ImplementationRow>({ op: 'implementations', ...sym, scope: searchable, options: { deadlineMs } }, symKey);
      const rows = [...rr.items];
      // A type's implementations are transitive: `class C : B` where B implements the interface
      // need not mention it. Dependents that mention a type found are searched too, until none is new.
      if (TYPE_KINDS.has(symbol.kind)) {
        const inScope = new Set([...scope.keys, ...scope.dropped.map((d) => d.key)]);
        const seen = new Set(rows.map(symKey));
        derivedOpen = true;
        for (let round = 0; round < ROSLYN_DERIVED_EXPANSION_MAX_ROUNDS && Date.now() < ctx.deadline - 1_000; round++) {
          const extra: ProjectKey[] = [];
          const names = new Set(rows.map((x) => x.name.replace(/[(<`].*$/, '')).filter((n) => /^\w+$/.test(n)));
          // a metadata type has no declaring project: the dependents of the projects declaring what was found
          const roots = owners.size > 0 ? owners : new Set(rows.map((x) => x.projectKey && splitKey(x.projectKey).project).filter((p): p is string => !!p));
          for (const n of names) {
            const m = s.model.projectsMentioning(n);
            for (const owner of roots) for (const d of s.model.dependents(owner)) {
              if (m && !m.has(d)) continue;
              const k = describer.keyOfProject(d);
              if (k && !inScope.has(k)) (inScope.add(k), extra.push(k));
            }
          }
          if (extra.length === 0) {
            derivedOpen = false;
            break;
          }
          const failedMore = await s.ensure(describer, referenceClosure(describer, extra).keys, ctx, generation);
          for (const k of extra) {
            if (failedMore.has(k)) scope.dropped.push({ key: k, reason: `could not be loaded: ${failedMore.get(k)}` });
            else (scope.keys.push(k), searchable.push(k));
          }
          const again = await query<ImplementationRow>({ op: 'implementations', ...sym, scope: searchable, options: { deadlineMs: Math.round(Math.max(500, ctx.deadline - Date.now() - 400)) } }, symKey);
          for (const x of again.items) if (!seen.has(symKey(x))) (seen.add(symKey(x)), rows.push(x));
          rr = { ...again, items: rows };
        }
      }
      // An interface member's implementations that are themselves virtual have overrides below
      // them (Shape.Area implements IShape.Area; Circle.Area overrides it): asked for one by one.
      if (!TYPE_KINDS.has(symbol.kind)) {
        const seen = new Set(rows.map((x) => x.docId));
        const more = rows.filter((x) => x.relation === 'implementation' && x.docId && x.projectKey).slice(0, ROSLYN_OVERRIDE_WALK_MAX_MEMBERS);
        for (const m of more) {
          if (Date.now() > ctx.deadline - 500) {
            overridesCut = more.length - more.indexOf(m);
            break;
          }
          const o = await s.query<ImplementationRow>({ op: 'implementations', symbol: { docId: m.docId!, projectKey: m.projectKey! }, scope: searchable, options: { deadlineMs: Math.round(Math.max(300, ctx.deadline - Date.now() - 400)) } }, ctx, generation).catch((e: unknown) => {
            if (!notFound(e)) throw e;
            overridesCut++; // its doc id names an unresolved type: not searched for overrides
            return { symbol: null, items: [] as ImplementationRow[], searched: [], notSearched: [] };
          });
          for (const x of o.items) if (x.relation === 'override' && !seen.has(x.docId)) {
            seen.add(x.docId);
            rows.push(x);
          }
        }
      }
      // One row per implementing symbol at its hand-written parts; a symbol a generator writes whole
      // is also written in its project's other frameworks' compilations (each runs the generator).
      const shown = rows.map(atHandWrittenParts);
      partsGap = await addFrameworkParts(s, describer, shown, new Set(rr.searched), ctx, generation);
      value = shown.flatMap((s) => s.locations.map(toLocation));
      unbound = unboundTypes(rows);
      r = rr;
      break;
    }
    case 'incomingCalls': {
      // A call names the member (through an interface or base member too: same name), so only
      // the files the text index says mention it are read (the host still searches generated ones).
      const documents = mentioningDocuments(s.model, symbol);
      const rr = await query<CallerRow>({ op: 'callers', ...sym, scope: searchable, options: { deadlineMs, ...(documents ? { documents } : {}) } }, callerKey);
      // Through a framework member (IEnumerable<T>.GetEnumerator in every foreach, object.ToString)
      // a call reaches every implementation in the world: not a caller of this one. Only calls
      // through the source members it implements or overrides are kept.
      const sourceVia = new Set(dispatchers.map((d) => d.docId).filter((d): d is string => d !== null));
      // Calls bound to its implementations and overrides (protocol 6) are callers of it too.
      rr.items = rr.items.filter((c) => !c.via || c.via === 'implementation' || c.via === 'override' || (c.viaSymbol !== undefined && sourceVia.has(c.viaSymbol)));
      // An interface member reached through an overridden member (Circle.Area overrides
      // Shape.Area, which implements IShape.Area): its calls dispatch here too. Asked for
      // directly when the host's answer has no row through it.
      // A host that followed the member itself (its `dispatchers`, protocol 2) has its rows already.
      const answered = new Set([...rr.items.map((c) => c.viaSymbol), ...(rr.dispatchers ?? []).map((d) => d.docId)].filter((v): v is string => typeof v === 'string'));
      const keys = new Set(rr.items.map((c) => `${symKey(c.from)}|${c.via ?? ''}`));
      for (const d of dispatchers) {
        if (d.via !== 'interface' || !d.docId || !d.projectKey || answered.has(d.docId) || Date.now() > ctx.deadline - 500) continue;
        answered.add(d.docId);
        const more = await s.query<CallerRow>({ op: 'callers', symbol: { docId: d.docId, projectKey: d.projectKey }, scope: searchable, options: { deadlineMs: Math.round(Math.max(300, ctx.deadline - Date.now() - 400)), ...(documents ? { documents } : {}) } }, ctx, generation).catch((e: unknown) => {
          if (!notFound(e)) throw e;
          unresolvedVia.push(d.name);
          return { symbol: null, items: [] as CallerRow[], searched: rr.searched, notSearched: [] };
        });
        for (const c of more.items) {
          if (c.via || c.confidence || c.kind) continue; // not a call bound to the interface member itself
          const k = `${symKey(c.from)}|interface`;
          if (keys.has(k)) continue;
          keys.add(k);
          rr.items.push({ ...c, via: 'interface', viaSymbol: d.docId });
        }
        const left = new Set(more.notSearched.map((n) => n.key));
        rr.searched = rr.searched.filter((k) => !left.has(k));
        for (const n of more.notSearched) if (!rr.notSearched.some((x) => x.key === n.key)) rr.notSearched.push(n);
      }
      // One caller per calling member: a member calling both directly and through the interface
      // (or in two frameworks' compilations) is one row with every site. Calls bound to an
      // implementation or override, method-group uses and unbound mentions are rows of their own
      // that say so (via + bindsTo, kind, confidence).
      const byCaller = new Map<string, IncomingCall>();
      for (const c of rr.items) {
        const down = c.via === 'implementation' || c.via === 'override' ? c.via : undefined;
        const k = `${symKey(c.from)}|${down ? `${down}|${c.viaSymbol ?? ''}` : ''}|${c.kind ?? ''}|${c.confidence ?? ''}`;
        const row = byCaller.get(k);
        if (!row) {
          const call: IncomingCall = { from: toItem(c.from), sites: c.sites.map(toSpan) };
          if (down) {
            call.via = down;
            if (c.viaSymbol) call.bindsTo = c.viaSymbol.replace(/^[A-Z]:/, '').replace(/~[^~]*$/, '');
          }
          if (c.kind === 'reference') call.kind = 'reference';
          if (c.confidence === 'unbound') {
            call.confidence = 'unbound';
            if (c.blockedBy) call.blockedBy = c.blockedBy;
          }
          byCaller.set(k, call);
          continue;
        }
        for (const site of c.sites) if (!row.sites.some((x) => x.line === site.line && x.column === site.column)) row.sites.push(toSpan(site));
      }
      value = [...byCaller.values()];
      unbound = rr.items.filter((c) => c.confidence === 'unbound').flatMap((c) => c.sites.map(() => ({ projectKey: c.from.projectKey, blockedBy: c.blockedBy })));
      r = rr;
      break;
    }
    default: {
      const rr = await query<TypeHierarchyRow>({ op: 'typeHierarchy', ...sym, scope: searchable, options: { direction: 'subtypes', transitive: false, deadlineMs } }, symKey);
      const subtypes = rr.items.filter((t) => t.direction === 'subtype' && t.depth <= 1).map(atHandWrittenParts);
      value = subtypes.map((t) => toItem(t));
      unbound = unboundTypes(subtypes);
      r = rr;
      break;
    }
  }
  const gaps = coverageGaps(scope, r, value.length);
  if (targetGap) gaps.push(targetGap);
  const unboundNote = unboundGap(s.unresolved, unbound);
  if (unboundNote) gaps.push(unboundNote);
  if (partsGap) gaps.push(partsGap);
  if (op === 'implementation' && !symbol.projectKey && info.items[0]?.metadataDerivedCut) {
    gaps.push(`more framework/package types derive from ${symbol.name} than were looked up (${derivedNames.length}: ${derivedNames.slice(0, 3).join(', ')}, …): projects whose types derive only from others were not searched`);
  }
  if (derivedOpen) gaps.push('types deriving from the implementations found were not all followed into the projects that mention them (deadline)');
  if (unresolvedVia.length) gaps.push(`calls through ${unresolvedVia.join(', ')} were not searched (its doc id names a type the compilation could not resolve)`);
  if (overridesCut > 0) gaps.push(`${overridesCut} implementing member(s) were not searched for overrides below them (deadline, or a doc id naming an unresolved type)`);
  s.stats.lastScope = scope.keys.length + scope.dropped.length;
  s.stats.lastSearched = r.searched.length;
  const notes = [...s.unresolvedNotes(r.searched), ...generatorFailureNotes(r)];
  if (r.metadataScope) notes.push(metadataScopeNote(symbol.name, r.metadataScope, r.searched.length));
  return { kind: 'ok', value, ...(gaps.length ? { gaps } : {}), ...(notes.length ? { notes } : {}) };
}

/**
 * A name that did not bind (a package not restored): when it can mean one declaration only, that
 * one is the target (with the gap saying so); else why there is no precise answer (the heuristic
 * says what it finds).
 */
async function bindUnbound(s: RoslynSession, position: NonNullable<QueryParams['position']>, bindKey: ProjectKey, unbound: NonNullable<QueryResult<unknown>['unbound']>, ctx: CallContext, generation: number): Promise<{ info: QueryResult<SymbolInfoRow>; gap: string } | { reason: string }> {
  const why = unboundWhy(s.unresolved, unbound, bindKey);
  const d = await s.query<DefinitionRow>({ op: 'definition', position, scope: [bindKey] }, ctx, generation);
  const ids = [...new Set(d.items.map((x) => x.definition).filter((x): x is string => !!x))];
  const pk = d.items.find((x) => x.definition === ids[0])?.projectKey;
  if (ids.length !== 1 || !pk) return { reason: `${why}${ids.length > 1 ? `; it can mean ${ids.length} declarations` : ''}` };
  const info = await s.query<SymbolInfoRow>({ op: 'symbolInfo', symbol: { docId: ids[0]!, projectKey: pk }, scope: [pk] }, ctx, generation);
  return { info, gap: `${why}; the target is the one declaration of that name it can mean` };
}

/**
 * The source members a call to the symbol may go through: the interface members it implements
 * and its overridden chain (each asked for its own overridden member, a few levels up).
 */
async function dispatchersOf(s: RoslynSession, info: SymbolInfoRow, ctx: CallContext, generation: number): Promise<(SymbolRef & { via: 'interface' | 'base' })[]> {
  // A protocol-3 host lists them itself (the chain and each level's interface members, transitively).
  if (info.dispatchers) return info.dispatchers.filter((m) => m.projectKey);
  const out: (SymbolRef & { via: 'interface' | 'base' })[] = info.implements.filter((m) => m.projectKey).map((m) => ({ ...m, via: 'interface' as const }));
  let over = info.overridden;
  for (let depth = 0; over?.projectKey && over.docId && depth < ROSLYN_OVERRIDE_CHAIN_MAX_DEPTH; depth++) {
    out.push({ ...over, via: 'base' });
    const up: QueryResult<SymbolInfoRow> = await s.query<SymbolInfoRow>({ op: 'symbolInfo', symbol: { docId: over.docId, projectKey: over.projectKey }, scope: [over.projectKey] }, ctx, generation).catch(() => ({ symbol: null, items: [], searched: [], notSearched: [] }));
    const row = up.items[0];
    if (!row) break;
    for (const m of row.implements) if (m.projectKey) out.push({ ...m, via: 'interface' });
    over = row.overridden;
  }
  return out;
}

/** The key caller rows of several framework variants are merged by. */
function callerKey(c: CallerRow): string {
  return `${symKey(c.from)}|${c.via ?? ''}|${c.via === 'implementation' || c.via === 'override' ? (c.viaSymbol ?? '') : ''}|${c.kind ?? ''}|${c.confidence ?? ''}`;
}
