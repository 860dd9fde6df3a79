/** diagnostics: compiler/analyzer diagnostics of a scope, grouped by project and severity (nav/diagnostics.ts). */
import { z } from 'zod';
import { MAX_PATH_CHARS } from '../../core/limits';
import { diagnosticsQuery, withSymbols, type DiagnosticRow, type DiagnosticSeverity } from '../../nav/diagnostics';
import { pagingArgs, pathArg } from '../schemas';
import { defineTool } from '../tool';

const severity = z.enum(['error', 'warning', 'info', 'hint']);

export const diagnosticsTool = defineTool({
  name: 'diagnostics',
  title: 'Diagnostics',
  description: 'Compiler/analyzer diagnostics (code, span, enclosing symbol) of a file/folder, project, changed files or the workspace.',
  input: z.strictObject({
    path: pathArg.optional(),
    project: z.string().min(1).max(MAX_PATH_CHARS).optional(),
    changed: z.boolean().optional(),
    // Only errors (default: errors, warnings and infos; hints such as "unused" suggestions are left out).
    errors: z.boolean().optional(),
    ...pagingArgs,
  }),
  // Published as a plain object (tools/list stays within its 40 KiB); answers are checked against the full shape in tests.
  item: z.object({
    project: z.string(),
    severity,
    from: z.string(),
    path: z.string(),
    line: z.number(),
    column: z.number(),
    code: z.string().optional(),
    message: z.string(),
    source: z.string().optional(),
    symbol: z.string().optional(),
  }).meta({ published: { type: 'object' } }),
  extra: {
    groups: z.array(z.object({ project: z.string(), severity, count: z.number() })),
    sources: z.array(z.object({ language: z.string(), from: z.string(), files: z.number(), mode: z.string(), freshness: z.string(), gaps: z.array(z.string()).optional(), reason: z.string().optional() })),
  },
  paged: true,
  mode: true,
  row: (d: DiagnosticRow) => `${d.severity} ${d.code ?? ''} ${d.path}:${d.line}:${d.column} ${d.message}${d.symbol ? ` (in ${d.symbol})` : ''} [${d.from}; ${d.project}]`,
  async handle(env, args, p) {
    // Computed once per answer and kept for its cursor: later pages never ask the providers again.
    const a = await env.once('diagnostics', () =>
      diagnosticsQuery(
        env.engine,
        { ...(args.path !== undefined ? { path: args.path } : {}), ...(args.project !== undefined ? { project: args.project } : {}), ...(args.changed ? { changed: true } : {}), ...(args.errors ? { min: 'error' as const } : {}) },
        // A language server or the Roslyn host starting is waited for as long as the call may take.
        { deadlineAt: env.deadlineAt - 300 },
      ),
    );
    const groups: { project: string; severity: DiagnosticSeverity; count: number }[] = [];
    for (const r of a.rows) {
      const last = groups[groups.length - 1];
      if (last && last.project === r.project && last.severity === r.severity) last.count++;
      else groups.push({ project: r.project, severity: r.severity, count: 1 });
    }
    const c = a.counts;
    const partial = a.sources.filter((s) => s.mode !== 'precise').map((s) => `${s.language}: ${s.from === 'syntax' ? `parse errors only (${s.reason ?? 'no compiler answered'})` : (s.gaps ?? []).join('; ')}`);
    if (a.truncated) partial.push(`rows cut at ${a.rows.length}: narrow the scope`);
    const precise = a.sources.filter((s) => s.mode === 'precise' || s.mode === 'precise_partial').length;
    const mode = a.sources.length === 0 ? undefined : precise === 0 ? ('heuristic_no_precise' as const) : precise === a.sources.length && a.sources.every((s) => s.mode === 'precise') ? ('precise' as const) : ('precise_partial' as const);
    if (a.unchecked > 0) partial.push(`${a.unchecked} file(s) not checked (no provider or syntax support, or over the per-call caps)`);
    const froms = [...new Set(a.sources.map((s) => s.from))].join(', ');
    const summary = `${c.error} error(s), ${c.warning} warning(s), ${c.info} info in ${a.scope} (${a.files} file(s); from ${froms || 'nothing'}).`;
    // Rows show the start only (the end span is rarely needed and costs ~30 B a row).
    const items = (await withSymbols(env.engine, a.rows.slice(p.offset, p.offset + p.limit))).map(({ endLine: _l, endColumn: _c, ...rest }) => rest);
    return {
      summary,
      items,
      total: a.rows.length,
      offset: p.offset,
      ...(mode ? { mode } : {}),
      ...(partial.length ? { partial: partial.join('; ') } : {}),
      extra: { groups, sources: a.sources },
    };
  },
});
