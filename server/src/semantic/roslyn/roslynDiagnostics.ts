/**
 * diagnostics on the Roslyn host (issue 13): a project with one asked file is asked for that
 * document's semantic diagnostics, one with more for its whole compilation (then filtered to the
 * asked files); projects past DIAGNOSTICS_ROSLYN_MAX_PROJECTS are gaps. The host runs no
 * analyzers: these are the compiler's diagnostics only.
 */
import { DIAGNOSTICS_MAX_ROWS, DIAGNOSTICS_ROSLYN_DEADLINE_MARGIN_MS, DIAGNOSTICS_ROSLYN_MAX_PROJECTS, DIAGNOSTICS_ROSLYN_MIN_QUERY_MS } from '../../core/limits';
import type { CallContext, OpResult, ProviderOutcome } from '../provider';
import type { HostLocation, ProjectKey } from './hostProtocol';
import type { RoslynSession } from './hostSession';
import { splitKey, type ProjectDescriber } from './projectDescriptions';
import { HostDeadlineError } from './roslynHost';
import { referenceClosure } from './scopePlan';

/** A `diagnostics` row of the host (PROTOCOL.md). */
type HostDiagnostic = HostLocation & { id: string; severity: 'error' | 'warning' | 'info' | 'hidden'; message: string; projectKey?: string };
type DiagnosticRow = OpResult<'diagnostics'>['rows'][number];

export async function roslynDiagnostics(s: RoslynSession, paths: readonly string[], describer: ProjectDescriber, ctx: CallContext): Promise<ProviderOutcome<OpResult<'diagnostics'>>> {
  const byKey = new Map<ProjectKey, string[]>();
  const unmapped: string[] = [];
  for (const p of paths) {
    const k = describer.keysOfFile(p)[0];
    if (k === undefined) unmapped.push(p);
    else (byKey.get(k) ?? byKey.set(k, []).get(k)!).push(p);
  }
  if (byKey.size === 0) return { kind: 'unavailable', state: 'failed', reason: `${paths.length === 1 ? paths[0] : `the ${paths.length} files`} compiled by no C# project of the project model` };
  s.goFirst(); // a question goes first (see RoslynProvider.request)
  try {
    const acquired = await s.host.acquire(ctx.waitForReadyMs, ctx.signal);
    if (!acquired.ok) return { kind: 'unavailable', state: acquired.state, reason: acquired.reason };
    if (!s.syncGeneration(acquired.generation)) await s.flushChanges(ctx);
    const keys = [...byKey.keys()];
    const asked = keys.slice(0, DIAGNOSTICS_ROSLYN_MAX_PROJECTS);
    const gaps: string[] = [];
    if (keys.length > asked.length) gaps.push(`${keys.length - asked.length} of ${keys.length} C# projects not compiled (at most ${DIAGNOSTICS_ROSLYN_MAX_PROJECTS} per call): ${keys.slice(asked.length, asked.length + 3).map((k) => splitKey(k).project).join(', ')}`);
    if (unmapped.length) gaps.push(`${unmapped.length} file(s) compiled by no C# project: ${unmapped.slice(0, 3).join(', ')}`);
    const all = referenceClosure(describer, asked).keys;
    let failed: Map<ProjectKey, string>;
    try {
      failed = await s.ensure(describer, all, ctx, acquired.generation);
    } catch (e) {
      // A cold host still loading the projects at the deadline: said so (it is asked again next time).
      if (!(e instanceof HostDeadlineError)) throw e;
      return { kind: 'unavailable', state: 'loading', reason: `the Roslyn host was still loading the ${all.length} C# project(s) when the deadline came; ask again` };
    }
    const rows: DiagnosticRow[] = [];
    const unchecked = [...unmapped, ...keys.slice(asked.length).flatMap((k) => byKey.get(k)!)];
    /** Projects not compiled by the deadline (not started, or cut by the host). */
    const late: ProjectKey[] = [];
    for (const k of asked) {
      if (failed.has(k)) {
        gaps.push(`${splitKey(k).project} could not be loaded: ${failed.get(k)}`);
        unchecked.push(...byKey.get(k)!);
        continue;
      }
      // The host stops at `deadlineMs` (protocol 4), the margin before ours kept for its reply, and
      // names the projects it did not finish; none is asked with less than that left.
      const hostMs = ctx.deadline - Date.now() - DIAGNOSTICS_ROSLYN_DEADLINE_MARGIN_MS;
      if (ctx.signal.aborted || hostMs < DIAGNOSTICS_ROSLYN_MIN_QUERY_MS) {
        late.push(k);
        unchecked.push(...byKey.get(k)!);
        continue;
      }
      const files = byKey.get(k)!;
      const want = new Set(files);
      const options = { maxItems: DIAGNOSTICS_MAX_ROWS, deadlineMs: Math.round(hostMs) };
      const r = await s.query<HostDiagnostic>(
        files.length === 1 ? { op: 'diagnostics', position: { path: files[0]!, line: 1, column: 1, projectKey: k }, scope: [k], options } : { op: 'diagnostics', scope: [k], options },
        ctx,
        acquired.generation,
      );
      const syntaxOnly = (r as { syntaxOnly?: boolean }).syntaxOnly === true;
      if (!syntaxOnly && r.notSearched.some((n) => n.key === k && n.reason === 'deadline')) {
        // Cut before its compilation was done: nothing of it is in the answer (the host keeps compiling).
        late.push(k);
        unchecked.push(...files);
        continue;
      }
      if (syntaxOnly) gaps.push(`${files[0]}: parse diagnostics only (${splitKey(k).project} was not compiled by the deadline: ask again)`);
      if (r.truncated) gaps.push(`${splitKey(k).project}: the host cut its diagnostics at ${DIAGNOSTICS_MAX_ROWS}`);
      for (const d of r.items) {
        if (!d.path || !want.has(d.path) || d.severity === 'hidden') continue;
        rows.push({ path: d.path, line: d.line, column: d.column, endLine: d.endLine, endColumn: d.endColumn, severity: d.severity, message: d.message, code: d.id, source: 'compiler' });
      }
    }
    if (late.length) gaps.push(`${late.length} of ${asked.length} C# project(s) not compiled by the deadline (compiled ones are kept: ask again): ${late.slice(0, 5).map((k) => splitKey(k).project).join(', ')}${late.length > 5 ? ', …' : ''}`);
    return { kind: 'ok', value: { rows, ...(unchecked.length ? { unchecked } : {}) }, ...(gaps.length ? { gaps } : {}) };
  } catch (e) {
    return s.failure(e, 'diagnostics', ctx);
  } finally {
    s.inFlight--;
  }
}
