/**
 * Target resolution for the navigation tools. A target is exactly one of `{symbolId}`,
 * `{path, line, column?}`, `{qualifiedName}` or a row's `target_ref` (`{symbolId}` of the
 * declaration at the row; a row without one is its own `{path, line, column}`). Equal-rank ambiguity returns candidates instead of choosing; an id or ref that no
 * longer resolves is STALE_TARGET with the replacement candidate when there is one.
 * A C# documentation id that no workspace declaration has (`M:System.Net.Http.HttpClient.SendAsync(…)`,
 * a bare id without `@project`) names a framework or package symbol: the target is that metadata
 * symbol, answered by a provider that binds documentation ids (the Roslyn host).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from '../core/errors';
import { HeuristicProvider, type SymbolRow } from '../semantic/heuristic/heuristicProvider';
import { identifierAt } from '../semantic/heuristic/identifiers';
import { languageOfPath } from '../semantic/language';
import { docIdName } from '../semantic/roslyn/metadataTargets';
import type { SourcePosition } from '../semantic/types';
import type { Engine } from './engine';
import { formatSymbolId, isCSharpDocId, symbolIds, type Compilation, type SymbolIdSpace } from './symbolIds';

/** What a row carries to target the declaration at it: a target form itself, so it is passed unchanged. */
export type TargetRef = { symbolId: string };

export type TargetInput = { symbolId: string } | { path: string; line: number; column?: number } | { qualifiedName: string };

/** A declaration offered when the target is ambiguous or stale. */
export interface TargetCandidate {
  symbolId: string;
  name: string;
  kind: string;
  qualifiedName: string;
  signature: string;
  path: string;
  line: number;
  column: number;
}

/** How the target was resolved (every navigation answer carries it). */
export interface TargetSelection {
  status: 'resolved' | 'ambiguous';
  via: 'direct_symbol' | 'direct_location' | 'qualified_name';
  /** What was done to the input (snapped to an identifier, a newer index version…). */
  note?: string;
  /** The syntax-layer declaration at the target, when there is one. */
  symbol?: { symbolId: string; name: string; kind: string; qualifiedName: string; signature: string };
  candidates?: TargetCandidate[];
}

export interface ResolvedTarget {
  /** Where to ask the provider: the name token; for a metadata symbol no place (path '') and its `docId`. */
  position: SourcePosition & { docId?: string };
  /** The project the target's id named (project file path), when it named one. */
  project?: string;
  language: string;
  /** The identifier at the position. */
  name: string;
  selection: TargetSelection;
}

/** Resolution that ended in candidates instead of one target. */
export interface AmbiguousTarget {
  ambiguous: true;
  selection: TargetSelection;
}

export function resolveTarget(engine: Engine, input: TargetInput): ResolvedTarget | AmbiguousTarget {
  if ('symbolId' in input) return fromSymbolId(engine, input.symbolId, 'direct_symbol');
  if ('qualifiedName' in input) return fromQualifiedName(engine, input.qualifiedName);
  return fromLocation(engine, input.path, input.line, input.column, 'direct_location');
}

/**
 * The ref a row carries: `{symbolId}` of the declaration at the row (in its file's primary
 * compilation), or none — a row that is not a declaration is targeted by its own path/line/column,
 * which it already says.
 */
export function targetRefFor(engine: Engine, loc: { path: string; line: number; column: number }, known?: { decl: SymbolRow | undefined }): TargetRef | undefined {
  const decl = known ? known.decl : HeuristicProvider.declaredAt(engine.store, loc.path, loc.line, loc.column);
  return decl ? { symbolId: symbolIds(engine).idFor(decl.symbolId, decl.path) } : undefined;
}

function fromSymbolId(engine: Engine, id: string, via: TargetSelection['via']): ResolvedTarget | AmbiguousTarget {
  const ids = symbolIds(engine);
  const parsed = ids.parse(id);
  const rows = HeuristicProvider.rowsById(engine.store, parsed.docId);
  if (rows.length === 0 && parsed.projectKey === undefined && isCSharpDocId(parsed.docId)) {
    // A workspace symbol whose signature changed is stale, not a framework symbol: the same
    // qualified name, or the member's containing type, is still declared in the workspace.
    const replacement = replacementFor(engine, parsed.docId);
    if (replacement || declaresContainer(engine, parsed.docId)) throw staleId(engine, id, replacement);
    return metadataTarget(parsed.docId, via);
  }
  if (!isCSharpDocId(parsed.docId)) {
    if (rows.length === 0) throw staleId(engine, id, replacementFor(engine, parsed.docId));
    return fromRow(rows[0]!, via, rows[0]!.symbolId);
  }
  // Every compilation each declaration belongs to (a file outside every project has none).
  const options = rows.flatMap((row) => {
    const cs = ids.compilations(row.path);
    return cs.length ? cs.map((c) => ({ row, c: c as Compilation | undefined, id: formatSymbolId(row.symbolId, c) })) : [{ row, c: undefined, id: row.symbolId }];
  });
  if (options.length === 0) throw staleId(engine, id, replacementFor(engine, parsed.docId, parsed.project?.id, parsed.tfm));
  let chosen = options;
  if (parsed.projectKey !== undefined) {
    chosen = options.filter((o) => o.c && parsed.project && o.c.project.id === parsed.project.id && (parsed.tfm === undefined || o.c.tfm === parsed.tfm));
    if (chosen.length === 0) {
      // The declaration is there, but not in the compilation the id names (moved, re-targeted).
      const pick = options.find((o) => o.c && parsed.project && o.c.project.id === parsed.project.id) ?? options[0]!;
      const where = parsed.project ? `${parsed.project.name}${parsed.tfm ? ` for ${parsed.tfm}` : ''}` : `a project named '${parsed.projectKey}'`;
      throw new ToolError(
        'STALE_TARGET',
        `Symbol id ${id} does not resolve in index ${engine.version}: ${parsed.docId} is not compiled in ${where}; it is in ${[...new Set(options.map((o) => o.id))].slice(0, 4).join(', ')}`,
        `pass {symbolId: "${pick.id}"}`,
        { replacement: candidate(engine, pick.row, pick.id) },
      );
    }
  }
  const distinct = [...new Map(chosen.map((o) => [o.id, o])).values()];
  if (distinct.length > 1) {
    const projects = new Set(distinct.map((o) => o.c?.project.id)).size;
    return {
      ambiguous: true,
      selection: {
        status: 'ambiguous',
        via,
        note: `${parsed.docId} is compiled in ${distinct.length} compilations (${projects} project${projects === 1 ? '' : 's'}, target frameworks); pass one full id`,
        candidates: distinct.map((o) => candidate(engine, o.row, o.id)),
      },
    };
  }
  const one = distinct[0]!;
  const r = fromRow(one.row, via, one.id);
  if (one.c) r.project = one.c.project.id;
  if (parsed.projectKey === undefined && one.c) r.selection.note = `bare documentation id: resolved to ${one.id}, its only compilation`;
  return r;
}

/**
 * A framework or package symbol by its documentation id: no workspace position; the provider binds
 * the id in a project that references its assembly.
 */
function metadataTarget(docId: string, via: TargetSelection['via']): ResolvedTarget {
  return {
    position: { path: '', line: 1, column: 1, docId },
    language: 'csharp',
    name: docIdName(docId),
    selection: { status: 'resolved', via, note: `${docId} is declared in no workspace file: answered for the framework or package symbol` },
  };
}

function staleId(engine: Engine, id: string, replacement: { row: SymbolRow; id: string } | undefined): ToolError {
  const hint = replacement
    ? `the closest declaration now is ${replacement.id} at ${replacement.row.path}:${replacement.row.nameLine}; pass {symbolId: "${replacement.id}"}`
    : 'search for the symbol again (search_symbol) and use the new id';
  return new ToolError('STALE_TARGET', `Symbol id ${id} does not resolve in index ${engine.version}`, hint, replacement ? { replacement: candidate(engine, replacement.row, replacement.id) } : undefined);
}

function fromQualifiedName(engine: Engine, qn: string): ResolvedTarget | AmbiguousTarget {
  const rows = HeuristicProvider.rowsByQualifiedName(engine.store, qn.trim());
  const ids = [...new Set(rows.map((r) => r.symbolId))];
  if (ids.length === 0) {
    throw new ToolError('TARGET_NOT_FOUND', `No declaration is named ${qn}`, 'check the spelling (Namespace.Type.Member), or use search_symbol to find it');
  }
  if (ids.length > 1) {
    const firsts = ids.map((id) => rows.find((r) => r.symbolId === id)!);
    return { ambiguous: true, selection: { status: 'ambiguous', via: 'qualified_name', note: `${ids.length} declarations are named ${qn} (overloads or same name in several files)`, candidates: firsts.map((r) => candidate(engine, r)) } };
  }
  return fromRow(rows[0]!, 'qualified_name', symbolIds(engine).idFor(rows[0]!.symbolId, rows[0]!.path));
}

function fromLocation(engine: Engine, p: string, line: number, column: number | undefined, via: TargetSelection['via']): ResolvedTarget {
  const r = engine.policy.resolveFile(p);
  const language = languageOfPath(r.rel);
  if (!language) {
    throw new ToolError('UNSUPPORTED_LANGUAGE', `No semantic support for '${r.rel}'`, 'definition/references work on C#, TypeScript and JavaScript files (and configured language servers); use search_text for others');
  }
  const lines = engine.policy.readFile(r.rel).bytes.toString('utf8').split(/\r?\n/);
  if (line < 1 || line > lines.length) {
    throw new ToolError('LINE_OUT_OF_RANGE', `Line ${line} is outside '${r.rel}' (${lines.length} lines)`, 'pass a line within the file');
  }
  const text = lines[line - 1]!;
  let col = column;
  let note: string | undefined;
  if (col === undefined) {
    // No column: the declaration on that line, else the first identifier.
    const decl = HeuristicProvider.enclosing(engine.store, r.rel, line, (s) => s.nameLine === line);
    col = decl?.nameColumn ?? 1;
    note = decl ? `no column: used the declaration of ${decl.name} on line ${line}` : undefined;
  }
  const id = identifierAt(text, col);
  if (!id) throw new ToolError('TARGET_NOT_FOUND', `Line ${line} of '${r.rel}' has no identifier`, 'point at a symbol name (line and column of the identifier)');
  if (id.snapped) note = `column ${col} is not on an identifier; snapped to '${id.name}' at column ${id.column}`;
  else if (column === undefined && !note) note = `no column: used '${id.name}', the first identifier on line ${line}`;
  const selection: TargetSelection = { status: 'resolved', via };
  if (note) selection.note = note;
  const decl = HeuristicProvider.declaredAt(engine.store, r.rel, line, id.column);
  if (decl) selection.symbol = symbolOf(decl, symbolIds(engine).idFor(decl.symbolId, decl.path));
  return { position: { path: r.rel, line, column: id.column }, language, name: id.name, selection };
}

function fromRow(row: SymbolRow, via: TargetSelection['via'], id: string): ResolvedTarget {
  const language = languageOfPath(row.path) ?? 'plaintext';
  return {
    position: { path: row.path, line: row.nameLine, column: row.nameColumn },
    language,
    name: row.name,
    selection: { status: 'resolved', via, symbol: symbolOf(row, id) },
  };
}

function symbolOf(r: SymbolRow, id: string): NonNullable<TargetSelection['symbol']> {
  return { symbolId: id, name: r.name, kind: r.kind, qualifiedName: r.qualifiedName, signature: r.signature };
}

/** A candidate row; `id` defaults to the row's id in its file's primary compilation. */
function candidate(engine: Engine, r: SymbolRow, id: string = symbolIds(engine).idFor(r.symbolId, r.path)): TargetCandidate {
  return {
    symbolId: id,
    name: r.name,
    kind: r.kind,
    qualifiedName: r.qualifiedName,
    signature: r.signature,
    path: r.path,
    line: r.nameLine,
    column: r.nameColumn,
  };
}

/**
 * For a vanished id: the declaration with the same qualified name (a changed signature), if any,
 * preferring one compiled by the project the id named; with its id in its primary compilation
 * (or in the named project's).
 */
/** Is the containing type of a member's documentation id declared in the workspace. */
function declaresContainer(engine: Engine, docId: string): boolean {
  if (!/^[MPFE]:/.test(docId)) return false;
  const body = docId.slice(2).replace(/\(.*$/, '');
  const dot = body.lastIndexOf('.');
  if (dot <= 0) return false;
  const container = body.slice(0, dot).replace(/`\d+/g, '');
  return HeuristicProvider.rowsByQualifiedName(engine.store, container).length > 0;
}

function replacementFor(engine: Engine, docId: string, project?: string, tfm?: string): { row: SymbolRow; id: string } | undefined {
  const body = docId.replace(/^[A-Z]:/, '').replace(/\(.*$/, '').replace(/``\d+$/, '');
  const qn = body.includes('#') ? body.slice(body.indexOf('#') + 1) : body.replace(/\.#ctor$/, '');
  const rows = HeuristicProvider.rowsByQualifiedName(engine.store, qn);
  if (rows.length === 0) return undefined;
  const ids: SymbolIdSpace = symbolIds(engine);
  for (const row of rows) {
    const cs = project ? ids.compilations(row.path).filter((x) => x.project.id === project) : [];
    const c = cs.find((x) => x.tfm === tfm) ?? cs[0];
    if (c) return { row, id: ids.idFor(row.symbolId, row.path, c) };
  }
  return { row: rows[0]!, id: ids.idFor(rows[0]!.symbolId, rows[0]!.path) };
}

function changedSince(engine: Engine, rel: string): boolean {
  if (engine.pendingPaths().has(rel)) return true;
  const row = engine.catalog().byRelPath(rel);
  if (!row) return true;
  try {
    // Only size and mtime are read (no content), from a path the index or a provider produced:
    // no sandbox canonicalisation (an lstat per path segment) is needed for that.
    const st = fs.statSync(path.join(engine.root, rel));
    return st.size !== row.size || Math.floor(st.mtimeMs) !== row.mtimeMs;
  } catch {
    return true;
  }
}

/** Exposed for the nav queries: is a path changed since it was indexed. */
export { changedSince };
