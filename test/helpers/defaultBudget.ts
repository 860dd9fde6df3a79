/**
 * The default-budget property (issue 25): a file, a line in it and one of the per-file questions an
 * agent asks with default arguments never answers BUDGET_TOO_SMALL and always fits the default
 * budget, as text and as JSON. Shared by test/e2e/defaultBudget.test.ts (fixtures, offline) and the
 * bench section default_budget (a real repository's files).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { DEFAULT_RESPONSE_BYTES } from '../../server/src/core/limits';
import { callSettled, waitFor, type Connected } from './mcpClient';

export interface Answer {
  sc?: any;
  error?: string;
  text: string;
}

export async function ask(c: Connected, tool: string, args: Record<string, unknown>): Promise<Answer> {
  const r = await callSettled(c.client, tool, args);
  const text = (r.content as { text: string }[])[0]?.text ?? '';
  return r.isError ? { error: text, text } : { sc: r.structuredContent, text };
}

/** Why an answer asked at the default budget does not fit it (undefined: it fits). */
export function sizeProblem(a: Answer): string | undefined {
  if (/BUDGET_TOO_SMALL/.test(a.error ?? '')) return a.error!.slice(0, 200);
  const text = Buffer.byteLength(a.text);
  if (text > DEFAULT_RESPONSE_BYTES) return `text of ${text} bytes`;
  const json = a.sc ? Buffer.byteLength(JSON.stringify(a.sc)) : 0;
  if (json > DEFAULT_RESPONSE_BYTES) return `JSON of ${json} bytes`;
  return undefined;
}

/** The per-file questions an agent asks with default arguments, at a line (and the identifier on it) of a file. */
export function perFileCalls(file: string, line: number, word: { text: string; column: number } | undefined): [string, Record<string, unknown>][] {
  const target = { path: file, line, ...(word ? { column: word.column } : {}) };
  return [
    ['outline', { path: file }],
    ['symbol_at', { path: file, line }],
    ['inspect_syntax_tree', { path: file, line }],
    ['source_context', { spans: [{ path: file, line }] }],
    ['projects_containing', { path: file }],
    ['file_dependencies', { path: file }],
    ['find_file', { query: path.posix.basename(file) }],
    ['generated_for', { path: file }],
    ['diagnostics', { path: file }],
    ['definition', { target }],
    ['references', { target }],
    ['implementations', { target }],
    ['callers', { target }],
    ['type_hierarchy', { target }],
    ['xml_doc', { target }],
    ['related_tests', { target }],
    ['context_pack', { target }],
    ['impact', { target, change_kind: 'signature' }],
    ...(word ? ([['search_text', { query: word.text }], ['search_symbol', { query: word.text }]] as [string, Record<string, unknown>][]) : []),
  ];
}

export interface PropertyRun {
  /** Calls asked, by tool. */
  asked: Map<string, number>;
  /** Calls that did not fit (tool, arguments, why). */
  failures: string[];
  /** The slowest call (ms) and what it was. */
  slowest: { ms: number; call: string };
}

/**
 * The property over one workspace's `files` (relative to `root`). `minRuns` runs whatever they
 * take, then more while `timeMs` lasts. `stopAtFirst` (tests): the first call that does not fit
 * fails the property (fast-check shrinks and reports it); otherwise every failure is collected.
 */
export async function noCallFailsForSize(c: Connected, root: string, files: string[], minRuns: number, timeMs: number, stopAtFirst = true): Promise<PropertyRun> {
  const texts = new Map<string, string[]>();
  const linesOf = (f: string) => texts.get(f) ?? texts.set(f, fs.readFileSync(path.join(root, f), 'utf8').split(/\r?\n/)).get(f)!;
  const run: PropertyRun = { asked: new Map(), failures: [], slowest: { ms: 0, call: '' } };
  const property = fc.asyncProperty(fc.constantFrom(...files), fc.nat(), fc.nat(), async (file, lineSeed, toolSeed) => {
    const lines = linesOf(file);
    const line = 1 + (lineSeed % Math.max(1, lines.length));
    const m = /[A-Za-z_][A-Za-z0-9_]{3,}/.exec(lines[line - 1] ?? '');
    const word = m ? { text: m[0], column: m.index + 1 } : undefined;
    const calls = perFileCalls(file, line, word);
    const [tool, args] = calls[toolSeed % calls.length]!;
    run.asked.set(tool, (run.asked.get(tool) ?? 0) + 1);
    const t = performance.now();
    const problem = sizeProblem(await ask(c, tool, args));
    const ms = performance.now() - t;
    if (ms > run.slowest.ms) run.slowest = { ms, call: `${tool} ${JSON.stringify(args)}` };
    if (problem) {
      run.failures.push(`${tool} ${JSON.stringify(args)}: ${problem}`);
      if (stopAtFirst) throw new Error(run.failures.at(-1));
    }
  });
  const t0 = Date.now();
  await fc.assert(property, { numRuns: minRuns });
  const left = timeMs - (Date.now() - t0);
  if (left > 0) await fc.assert(property, { numRuns: minRuns * 10, interruptAfterTimeLimit: left, markInterruptAsFailure: false });
  return run;
}

/** Settled: index fresh, symbols written, the project graph answering for `anyFile`. */
export async function settled(c: Connected, anyFile: string, timeoutMs = 300_000): Promise<void> {
  await waitFor(async () => {
    const i = (await ask(c, 'repo_overview', {})).sc?.index;
    return i?.status === 'fresh' && !i.symbolsPending && !(await ask(c, 'projects_containing', { path: anyFile })).error;
  }, timeoutMs, 250);
}
