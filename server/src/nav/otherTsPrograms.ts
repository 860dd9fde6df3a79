/**
 * TS/JS answers of VS Code's TypeScript service cover the programs of the files it has open: the
 * engine's own TypeScript host (semantic/tsprograms/) adds every other tsconfig program that can
 * see the symbol, or the answer says which programs were not searched (`precise_partial`).
 */
import { SEMANTIC_DEADLINE_MS } from '../core/limits';
import type { OpArgs, OpResult, SemanticOp } from '../semantic/provider';
import type { SemanticAnswer } from '../semantic/registry';
import { MERGED_OPS, mergeAnswers } from '../semantic/tsprograms/mergeAnswers';
import type { TsProgramsProvider } from '../semantic/tsprograms/tsProgramsProvider';

/** Languages the editor's TypeScript service answers one program at a time. */
const TS_LANGUAGES: ReadonlySet<string> = new Set(['typescript', 'typescriptreact', 'javascript', 'javascriptreact']);

export interface TsProgramsContext {
  /** The engine's TypeScript host (undefined: turned off). */
  tsPrograms: TsProgramsProvider | undefined;
  /** How many tsconfig programs the project model has. */
  programs: () => number;
  deadlineAt: number | undefined;
}

/** The answer with the other programs' rows merged in, or with a gap naming the programs not searched; unchanged when neither applies. */
export async function withOtherTsPrograms<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, answer: SemanticAnswer<OpResult<K>>, c: TsProgramsContext): Promise<SemanticAnswer<OpResult<K>>> {
  const tsPrograms = c.tsPrograms;
  if (answer.provider === 'editor' && answer.value !== undefined && tsPrograms?.supports(language, op) && MERGED_OPS.has(op)) {
    return mergeOtherPrograms(tsPrograms, op, language, args, answer, c.deadlineAt ?? Date.now() + SEMANTIC_DEADLINE_MS);
  }
  // The editor's TypeScript service answered from the programs of open files, and the engine has
  // no TypeScript host to search the others (turned off, or the typescript module is not where the
  // engine runs, as in a packaged extension): with several tsconfig programs that is partial.
  if (answer.provider === 'editor' && answer.value !== undefined && TS_LANGUAGES.has(language) && MERGED_OPS.has(op) && answer.mode === 'precise') {
    const programs = c.programs();
    if (programs > 1) {
      const why = tsPrograms ? 'the typescript module could not be loaded' : 'it is turned off';
      const gap = `the editor's TypeScript service searched only the programs of open files; the workspace has ${programs} tsconfig programs and the others were not searched (the engine's TypeScript host: ${why})`;
      return { ...answer, mode: 'precise_partial', gaps: [...answer.gaps, gap] };
    }
  }
  // The engine's TS host did not answer (deadline, failure): typescript-language-server answered
  // a use question from the target file's program only, which is not every program that may see it.
  const host = answer.provider !== 'editor' && answer.provider !== tsPrograms?.id && MERGED_OPS.has(op) && tsPrograms?.supports(language, op) ? answer.attempts.find((a) => a.provider === tsPrograms.id) : undefined;
  if (host && host.outcome !== 'ok' && (answer.mode === 'precise' || answer.mode === 'precise_partial')) {
    const gap = `${answer.provider} searched only the TypeScript program of the target's file; the other tsconfig programs that may see it were not searched (the engine's TypeScript host: ${host.reason ?? host.outcome})`;
    return { ...answer, mode: 'precise_partial', gaps: [...answer.gaps, gap] };
  }
  return answer;
}

/** The editor's answer merged with the engine's TypeScript host's answer from every other program that can see the symbol. */
async function mergeOtherPrograms<K extends SemanticOp>(tsPrograms: TsProgramsProvider, op: K, language: string, args: OpArgs<K>, answer: SemanticAnswer<OpResult<K>>, deadlineAt: number): Promise<SemanticAnswer<OpResult<K>>> {
  const deadline = Math.max(Date.now() + 200, deadlineAt - 300);
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new Error('deadline')), deadline - Date.now());
  let reason: string;
  try {
    const r = await tsPrograms.requestOtherPrograms(op, language, args, { signal: controller.signal, deadline, waitForReadyMs: 0 });
    if (r.others === 0) return answer;
    if (r.outcome.kind === 'ok') {
      const gaps = [...answer.gaps, ...(r.outcome.gaps ?? [])];
      return { ...answer, value: mergeAnswers(op, answer.value!, r.outcome.value), gaps, mode: gaps.length ? 'precise_partial' : answer.mode, elapsedMs: answer.elapsedMs + r.elapsedMs };
    }
    reason = r.outcome.reason;
  } catch (e) {
    reason = e instanceof Error ? e.message : String(e);
  } finally {
    clearTimeout(timer);
  }
  const gap = `the editor's TypeScript service searched only the programs of open files; the other tsconfig programs that may see it were not searched (${reason})`;
  return { ...answer, mode: 'precise_partial', gaps: [...answer.gaps, gap] };
}
