/**
 * diagnostics (issue 13): the compiler's and analyzers' current diagnostics for a scope (a file or
 * folder, a project, the changed files, or the workspace). Per language the semantic registry asks
 * its precise providers in order — the editor inside VS Code (what `vscode.languages.getDiagnostics`
 * holds), the Roslyn host for C# (compiler diagnostics of the asked documents / projects), the
 * language servers (csharp-ls pulled, typescript-language-server published) — and where none
 * answers, the syntax layer's parse errors. Every row says its provider through its group, every
 * provider its freshness; rows are ordered by project, severity, path and line, so pages slice
 * one order. `symbol` (symbol_at) is added only to the rows shown.
 */
import { ToolError } from '../core/errors';
import { DIAGNOSTICS_MAX_ROWS, DIAGNOSTICS_SYNTAX_MAX_FILES } from '../core/limits';
import type { SemanticDiagnostic } from '../semantic/types';
import { languageOfPath } from '../semantic/language';
import { languageForPath } from '../syntax/languageConfig';
import { symbolAt } from '../syntax/symbolAt';
import { SCOPE_KINDS } from '../syntax/types';
import type { Engine } from './engine';
import { filesOfProject, projectsOfFile } from './projects';
import { semanticService } from './semanticService';
import { fileOutline } from './syntaxOutline';

export type DiagnosticSeverity = SemanticDiagnostic['severity'];
export const SEVERITY_RANK: Record<DiagnosticSeverity, number> = { error: 0, warning: 1, info: 2, hint: 3 };

export interface DiagnosticsScope {
  /** A workspace file or folder. */
  path?: string;
  /** A project (name, path or glob, as project_graph takes). */
  project?: string;
  /** The changed files: git's modified/untracked files and the files changed since indexing. */
  changed?: boolean;
  /** Least severe kept (default info: hints such as "unused" suggestions are left out). */
  min?: DiagnosticSeverity;
}

/** One diagnostic row (the paging unit). */
export interface DiagnosticRow extends SemanticDiagnostic {
  project: string;
  /** Who answered: `editor`, `roslyn`, `lsp`, `syntax`. */
  from: string;
  /** The declaration enclosing the diagnostic (symbol_at), added to shown rows only. */
  symbol?: string;
}

/** How one language's files were answered. */
export interface DiagnosticsSource {
  language: string;
  from: string;
  files: number;
  mode: 'precise' | 'precise_partial' | 'heuristic_no_precise' | 'unavailable_no_precise';
  /** `editor`: the editor's latest analysis (unsaved buffers included); `now`: computed from the files on disk for this call; `index`/`parse`: the parse stored with the index / parsed now. */
  freshness: 'editor' | 'now' | 'index' | 'parse';
  gaps?: string[];
  reason?: string;
}

export interface DiagnosticsAnswer {
  scope: string;
  files: number;
  rows: DiagnosticRow[];
  sources: DiagnosticsSource[];
  counts: Record<DiagnosticSeverity, number>;
  /** Files nothing answered for (no provider, no syntax support, over the syntax cap). */
  unchecked: number;
  truncated: boolean;
}

/** The workspace-relative files of a scope, and how to name it. Throws ToolError for bad scopes. */
export function scopeFiles(engine: Engine, s: DiagnosticsScope): { files: string[]; label: string } {
  const given = [s.path !== undefined, s.project !== undefined, s.changed === true].filter(Boolean).length;
  if (given > 1) throw new ToolError('INVALID_ARGUMENT', 'diagnostics takes one scope: path, project or changed', 'pass one of them, or none for the whole workspace');
  const indexed = engine.catalog().all().filter((r) => !r.binary);
  let files: string[];
  let label: string;
  if (s.path !== undefined) {
    const r = engine.policy.resolveFile(s.path);
    const dir = r.rel === '' ? '' : `${r.rel}/`;
    const exact = indexed.filter((f) => f.path === r.rel);
    files = exact.length ? [r.rel] : indexed.filter((f) => f.path.startsWith(dir)).map((f) => f.path);
    if (files.length === 0) throw new ToolError('FILE_NOT_FOUND', `No indexed file at or under '${r.rel}'`, 'check the path with find_file (ignored and binary files are not indexed)');
    label = r.rel || '.';
  } else if (s.project !== undefined) {
    const p = filesOfProject(engine, s.project);
    files = [...p.paths];
    label = `project ${p.project.name}`;
  } else if (s.changed) {
    const known = new Set(indexed.map((f) => f.path));
    const set = new Set([...engine.git.dirtyFiles, ...engine.pendingPaths()]);
    files = [...set].filter((f) => known.has(f));
    label = engine.git.available ? 'changed files (git and since indexing)' : 'files changed since indexing (git unavailable)';
  } else {
    files = indexed.map((f) => f.path);
    label = 'workspace';
  }
  files = files.filter((f) => languageOfPath(f) !== undefined || languageForPath(f) !== undefined).sort();
  return { files, label };
}

/** Freshness of a provider's diagnostics. */
function freshnessOf(provider: string): DiagnosticsSource['freshness'] {
  return provider === 'editor' ? 'editor' : 'now';
}

export async function diagnosticsQuery(engine: Engine, s: DiagnosticsScope, o: { deadlineAt: number; waitForReadyMs?: number }): Promise<DiagnosticsAnswer> {
  const { files, label } = scopeFiles(engine, s);
  const min = SEVERITY_RANK[s.min ?? 'info'];
  const byLanguage = new Map<string, string[]>();
  const syntaxOnly: string[] = [];
  for (const f of files) {
    const lang = languageOfPath(f);
    if (lang === undefined) syntaxOnly.push(f);
    else (byLanguage.get(lang) ?? byLanguage.set(lang, []).get(lang)!).push(f);
  }
  const svc = semanticService(engine);
  const sources: DiagnosticsSource[] = [];
  const raw: (SemanticDiagnostic & { from: string })[] = [];
  // Languages one after another: each gets the time left (a C# compile must not starve TS's wait).
  const languages = [...byLanguage.keys()].sort();
  for (let i = 0; i < languages.length; i++) {
    const lang = languages[i]!;
    const paths = byLanguage.get(lang)!;
    const left = o.deadlineAt - Date.now();
    const share = Math.max(200, left / (languages.length - i));
    const until = Date.now() + share;
    const a = await svc.request('diagnostics', lang, { paths }, { deadlineAt: until, preciseOnly: true, waitForReadyMs: o.waitForReadyMs ?? share });
    if (a.value !== undefined && a.provider) {
      let rest = a.value.unchecked ?? [];
      sources.push({ language: lang, from: a.provider, files: paths.length - rest.length, mode: a.mode, freshness: freshnessOf(a.provider), ...(a.gaps.length ? { gaps: a.gaps } : {}) });
      for (const d of a.value.rows) raw.push({ ...d, from: a.provider });
      // Files the editor never analysed (not open): the headless providers are asked for them.
      if (rest.length && a.provider === 'editor') {
        const b = await svc.registry.request('diagnostics', lang, { paths: rest }, { deadlineMs: Math.max(200, until - Date.now()), preciseOnly: true, waitForReadyMs: Math.max(0, until - Date.now()), holdBack: [{ provider: 'editor', reason: 'asked already (these files are not analysed by the editor)' }] });
        if (b.value !== undefined && b.provider) {
          const left = b.value.unchecked ?? [];
          sources.push({ language: lang, from: b.provider, files: rest.length - left.length, mode: b.mode, freshness: freshnessOf(b.provider), ...(b.gaps.length ? { gaps: b.gaps } : {}) });
          for (const d of b.value.rows) raw.push({ ...d, from: b.provider });
          rest = left;
        }
      }
      if (rest.length) {
        syntaxOnly.push(...rest);
        sources.push({ language: lang, from: 'syntax', files: rest.length, mode: 'heuristic_no_precise', freshness: 'index', reason: `${rest.length} file(s) not checked by ${a.provider}${a.provider === 'editor' ? ' (not open) nor a headless provider' : ''}` });
      }
    } else {
      syntaxOnly.push(...paths);
      sources.push({ language: lang, from: 'syntax', files: paths.length, mode: 'heuristic_no_precise', freshness: 'index', reason: a.reason ?? `no precise provider for ${lang}` });
    }
  }
  // The syntax layer where nothing better answered: parse errors of the stored (or live) parse.
  let unchecked = 0;
  const syntaxFiles = syntaxOnly.filter((f) => languageForPath(f) !== undefined);
  unchecked += syntaxOnly.length - syntaxFiles.length;
  const parsed = syntaxFiles.slice(0, DIAGNOSTICS_SYNTAX_MAX_FILES);
  unchecked += syntaxFiles.length - parsed.length;
  let live = 0;
  for (const f of parsed) {
    if (Date.now() > o.deadlineAt) {
      unchecked++;
      continue;
    }
    const out = await fileOutline(engine, f).catch(() => undefined);
    if (!out) {
      unchecked++;
      continue;
    }
    if (out.source === 'parse') live++;
    for (const line of out.errorLines) raw.push({ path: f, line, column: 1, endLine: line, endColumn: 1, severity: 'error', message: 'syntax error (tree-sitter parse; no compiler answered)', source: 'syntax', from: 'syntax' });
  }
  // Syntax-only languages (no semantic language id) get one source entry of their own.
  const syntaxNoLang = parsed.filter((f) => languageOfPath(f) === undefined).length;
  if (syntaxNoLang > 0) sources.push({ language: '(syntax only)', from: 'syntax', files: syntaxNoLang, mode: 'heuristic_no_precise', freshness: live > 0 ? 'parse' : 'index', reason: 'no semantic provider for these languages' });
  for (const src of sources) if (src.from === 'syntax' && live > 0) src.freshness = 'parse';

  const counts: Record<DiagnosticSeverity, number> = { error: 0, warning: 0, info: 0, hint: 0 };
  const seen = new Set<string>();
  const rows: DiagnosticRow[] = [];
  for (const d of raw) {
    if (SEVERITY_RANK[d.severity] > min) continue;
    const key = `${d.path}:${d.line}:${d.column}:${d.code ?? ''}:${d.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    counts[d.severity]++;
    rows.push({ ...d, project: projectsOfFile(engine, d.path)[0] ?? '(no project)' });
  }
  rows.sort((a, b) => (a.project < b.project ? -1 : a.project > b.project ? 1 : 0) || SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0) || a.line - b.line || a.column - b.column || (a.message < b.message ? -1 : 1));
  const truncated = rows.length > DIAGNOSTICS_MAX_ROWS;
  return { scope: label, files: files.length, rows: truncated ? rows.slice(0, DIAGNOSTICS_MAX_ROWS) : rows, sources, counts, unchecked, truncated };
}

/** symbol_at for rows about to be shown: the enclosing declaration's container chain (`Class.Method`). */
export async function withSymbols(engine: Engine, rows: readonly DiagnosticRow[]): Promise<DiagnosticRow[]> {
  const outlines = new Map<string, Awaited<ReturnType<typeof fileOutline>> | undefined>();
  const out: DiagnosticRow[] = [];
  for (const r of rows) {
    if (!outlines.has(r.path)) outlines.set(r.path, languageForPath(r.path) ? await fileOutline(engine, r.path).catch(() => undefined) : undefined);
    const o = outlines.get(r.path);
    const at = o ? symbolAt(o.symbols, r.line, r.column) : undefined;
    const chain = at?.symbol ? [...at.containers.filter((c) => !SCOPE_KINDS.has(c.kind)), at.symbol].map((c) => c.name).join('.') : undefined;
    out.push(chain ? { ...r, symbol: chain } : r);
  }
  return out;
}
