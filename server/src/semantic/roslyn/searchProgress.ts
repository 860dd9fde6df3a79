/**
 * What a streamed references search has found so far, per project searched (issue 14: references
 * of a type used by 400 projects, asked again and again within the tools' 10 s deadline). The host
 * searches a scope in batches and answers at its deadline with the projects it reached; without
 * this the next ask searched those again from the start, and the rows of a query the engine had
 * stopped waiting for were lost. A search is one (symbol, options) question in one host process
 * over one project model and unchanged files: its rows are kept per searched project, the next ask
 * sends only the projects not searched yet, and the background continuation searches the rest
 * between questions. Anything that could change an answer (a new host process, a new project
 * model, a changed file) drops every kept search.
 */
import * as crypto from 'node:crypto';
import { ROSLYN_CONTINUE_MAX_STALLS, ROSLYN_SEARCHES_KEPT } from '../../core/limits';
import type { ProjectKey, QueryParams, QueryResult, ReferenceRow } from './hostProtocol';

type NotSearched = QueryResult['notSearched'][number];

/** The ops whose rows belong to one project each and whose search the host streams by project. */
export function resumable(params: QueryParams): boolean {
  return params.op === 'references' && params.symbol !== undefined && params.scope !== undefined;
}

/** The identity of a search: op, symbol, options — not the scope, deadline or batch size. */
export function searchKey(params: QueryParams): string {
  const { deadlineMs: _d, ...options } = params.options ?? {};
  const docs = options.documents ? crypto.createHash('sha1').update(options.documents.join('\n')).digest('hex') : '';
  return JSON.stringify([params.op, params.symbol, { ...options, documents: docs }]);
}

export class SearchProgress {
  readonly searched = new Set<ProjectKey>();
  private readonly rows: ReferenceRow[] = [];
  private readonly seen = new Set<string>();
  /** Projects the host could not search for another reason than the deadline (kept until searched). */
  private readonly failed = new Map<ProjectKey, NotSearched>();
  truncated = false;
  /** A metadata symbol's search (protocol 5): its assembly and how many scope projects reference it (the latest answer's). */
  metadataScope: QueryResult['metadataScope'];
  /** Host requests for this search a question is (or was, past its wait) running: not continued meanwhile. */
  running = 0;
  /** Background continuation steps in a row that searched no project (it stops at ROSLYN_CONTINUE_MAX_STALLS). */
  stalls = 0;
  /** The last scope asked for and the request (without scope), for the background continuation. */
  scope: ProjectKey[] = [];
  params: QueryParams;

  constructor(
    readonly key: string,
    params: QueryParams,
  ) {
    this.params = params;
  }

  /** The projects of `scope` not searched yet, in scope order. */
  remaining(scope: readonly ProjectKey[] = this.scope): ProjectKey[] {
    return scope.filter((k) => !this.searched.has(k));
  }

  /**
   * Whether nothing of the last scope asked for is left to search in the background: every
   * project searched, or not searchable for a reason other than the deadline (a project that
   * failed to load is asked for again by the next question, not retried in the background).
   */
  complete(): boolean {
    return this.remaining().every((k) => this.failed.has(k));
  }

  /** What the background continuation searches next: not searched, not failed. */
  pending(): ProjectKey[] {
    return this.remaining().filter((k) => !this.failed.has(k));
  }

  /** Merges one host answer (of any part of the scope). */
  add(r: Pick<QueryResult<ReferenceRow>, 'items' | 'searched' | 'notSearched' | 'truncated' | 'metadataScope'>): void {
    if (r.metadataScope) this.metadataScope = r.metadataScope;
    for (const k of r.searched ?? []) {
      this.searched.add(k);
      this.failed.delete(k);
    }
    for (const n of r.notSearched ?? []) if (n.reason !== 'deadline' && !this.searched.has(n.key)) this.failed.set(n.key, n);
    if (r.truncated) this.truncated = true;
    for (const row of r.items ?? []) {
      const k = `${row.path}:${row.line}:${row.column}:${row.endLine}:${row.endColumn}|${row.definition ?? ''}|${row.isDeclaration ? 'd' : ''}`;
      if (this.seen.has(k)) continue;
      this.seen.add(k);
      this.rows.push(row);
    }
  }

  /**
   * The answer for `scope` from what is kept: rows of its searched projects (a row without a
   * project is kept whatever the scope), the projects searched, and for the others the reason the
   * last answer gave (`deadline` when none).
   */
  resultFor(scope: readonly ProjectKey[], last?: readonly NotSearched[]): QueryResult<ReferenceRow> {
    const inScope = new Set(scope);
    const reasons = new Map((last ?? []).map((n) => [n.key, n]));
    const notSearched: NotSearched[] = [];
    for (const k of scope) {
      if (this.searched.has(k)) continue;
      notSearched.push(reasons.get(k) ?? this.failed.get(k) ?? { key: k, reason: 'deadline' });
    }
    return {
      symbol: null,
      items: this.rows.filter((r) => r.projectKey === undefined || inScope.has(r.projectKey)),
      searched: scope.filter((k) => this.searched.has(k)),
      notSearched,
      ...(this.truncated ? { truncated: true } : {}),
      ...(this.metadataScope ? { metadataScope: this.metadataScope } : {}),
    };
  }
}

/** Whose searches these are: one host process (generation) over one project model (describer). */
export interface SearchOwner {
  generation: number;
  describer: object;
}

const sameOwner = (a: SearchOwner | undefined, b: SearchOwner | undefined) => a !== undefined && b !== undefined && a.generation === b.generation && a.describer === b.describer;

/** The searches of one host process and project model, least recently used dropped past the limit. */
export class SearchCache {
  private readonly entries = new Map<string, SearchProgress>();
  private owner: SearchOwner | undefined;

  /** The search for `params` (created empty), when `owner` (generation + describer) is still the one kept. */
  get(params: QueryParams, owner: SearchOwner): SearchProgress {
    if (!sameOwner(owner, this.owner)) this.clear(owner);
    const key = searchKey(params);
    let e = this.entries.get(key);
    if (e) this.entries.delete(key);
    else e = new SearchProgress(key, params);
    this.entries.set(key, e); // most recent last
    while (this.entries.size > ROSLYN_SEARCHES_KEPT) this.entries.delete(this.entries.keys().next().value!);
    return e;
  }

  /** The kept search, if it still belongs to `owner` and is kept. */
  has(e: SearchProgress, owner: SearchOwner): boolean {
    return sameOwner(owner, this.owner) && this.entries.get(e.key) === e;
  }

  /** The most recently asked search that is not complete. */
  nextIncomplete(owner: SearchOwner): SearchProgress | undefined {
    if (!sameOwner(owner, this.owner)) return undefined;
    const all = [...this.entries.values()];
    for (let i = all.length - 1; i >= 0; i--) {
      const e = all[i]!;
      if (!e.complete() && e.running === 0 && e.stalls < ROSLYN_CONTINUE_MAX_STALLS) return e;
    }
    return undefined;
  }

  /** Drops one search (it failed in the background). */
  drop(e: SearchProgress): void {
    if (this.entries.get(e.key) === e) this.entries.delete(e.key);
  }

  /** Drops every kept search (files changed, host restarted, new project model). */
  clear(owner?: SearchOwner): void {
    this.entries.clear();
    this.owner = owner;
  }

  get size(): number {
    return this.entries.size;
  }
}
