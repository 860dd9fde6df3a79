/**
 * Turns a handler's ToolResult into the final answer: adds index metadata, completeness and the
 * cursor, renders the markdown text, and cuts rows until BOTH the text and the structuredContent
 * JSON fit the byte budget. This is the one place an answer is shaped to its budget (the paging
 * contract, docs/architecture.md "Paging"):
 * - rows cut for budget are counted in `omittedBecauseBudget`, and the cursor continues exactly
 *   at the first row cut, so the pages concatenated are the unpaged answer;
 * - a page always makes progress: when not even one more row fits, the answer is
 *   `Error [BUDGET_TOO_SMALL]` with the bytes it needs (never an empty page with the same cursor);
 * - nothing required by the outputSchema is dropped to fit: an answer whose required fields alone
 *   do not fit is BUDGET_TOO_SMALL too;
 * - per-file facts that can be long (the projects compiling a file, its project|framework
 *   compilations; `LONG_FILE_FACTS`) are never shown whole inside a row or a file header: a list
 *   longer than FILE_FACT_SHOWN_ENTRIES shows its first entries and one "+N more: <tool>" entry
 *   naming the tool that lists them all, so a file linked into 300 projects costs a row ~200 bytes.
 */
import { ToolError } from '../core/errors';
import { FILE_FACT_SHOWN_ENTRIES, MAX_RESPONSE_BYTES } from '../core/limits';
import type { IndexMeta } from '../nav/engine';
import { encodeCursor, rowKey } from './cursor';
import type { AnyTool, ToolResult } from './tool';

export interface Answer {
  structured: Record<string, unknown>;
  text: string;
}

/** How the answer's cursor is made: the kept result it points into (see resultCache.ts). */
export interface CursorContext {
  entry?: number | undefined;
  /** Rows asked for: a paged handler that returns more is cut here (and the cursor continues after). */
  limit?: number | undefined;
}

/** Rows rendered first when looking for what fits (doubled while it fits): no answer renders all of a 20,000-row list. */
const PROBE_ROWS = 64;

/** Summaries are shortened to this many bytes before an answer is refused as BUDGET_TOO_SMALL. */
const MIN_SUMMARY_BYTES = 200;

export function bytesOf(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function buildAnswer(tool: AnyTool, result: ToolResult, meta: IndexMeta, args: Record<string, unknown>, maxBytes: number, ctx: CursorContext = {}): Answer {
  const offset = result.offset ?? 0;
  let all = result.items;
  let overLimit = false;
  if (tool.paged && ctx.limit !== undefined && all.length > ctx.limit) {
    all = all.slice(0, ctx.limit);
    overLimit = true;
  }
  const compose = (n: number, budgetCut: boolean, summary = result.summary): Answer => {
    const items = all.slice(0, n);
    const returnedEnd = offset + n;
    // Rows of this answer after this page (a cursor brings them), apart from what a cap or a
    // deadline left out of the answer itself (`truncated`, which no cursor can bring).
    const moreInHand = budgetCut || overLimit || (result.total !== undefined && returnedEnd < result.total);
    const moreExist = moreInHand || result.truncated === 'limit';
    const completeness: Record<string, unknown> = { returned: n, truncated: budgetCut || result.truncated !== undefined || moreExist };
    if (result.total !== undefined) completeness.total = result.total;
    const reason = budgetCut ? 'budget' : result.truncated ?? (moreExist ? 'limit' : undefined);
    if (reason) completeness.reason = reason;
    if (budgetCut) completeness.omittedBecauseBudget = all.length - n;
    const partial: string[] = result.partial ? [result.partial] : [];
    const shown = (tool.present ? tool.present(items as never[]) : items).map((x) => shortenFileFacts(x));
    const structured: Record<string, unknown> = { summary, items: shown };
    if (tool.paged && moreExist && (result.truncated === undefined || result.truncated === 'limit' || moreInHand)) {
      if (n > 0) {
        structured.nextCursor = encodeCursor(tool.name, meta.version, args, {
          offset: returnedEnd,
          lastKey: rowKey(items[n - 1]),
          entry: ctx.entry,
          resume: result.positionAfter?.(n - 1),
        });
      } else if (!budgetCut && result.resumeAt !== undefined) {
        // A seeking tool stopped before its first row (a per-call bound): continue where it stopped.
        structured.nextCursor = encodeCursor(tool.name, meta.version, args, { offset: returnedEnd, entry: ctx.entry, resume: result.resumeAt });
      } else if (!budgetCut) {
        // A page that says more exist but brings no row would hand back the same position forever.
        partial.push('the tool reported more rows but returned none; no cursor is given (re-ask without cursor)');
      }
    }
    structured.completeness = completeness;
    if (partial.length) completeness.partial = partial.join('; ');
    if (result.mode) structured.mode = result.mode;
    structured.index = meta;
    if (result.extra) for (const [k, v] of Object.entries(result.extra)) structured[k] = shortenFileFacts(v);
    return { structured, text: render(tool, structured, shown) };
  };
  // A wide answer (22,654 heuristic definitions) is not rendered whole to find what fits: probe
  // PROBE_ROWS, doubling while it fits, then binary search below the first count that does not.
  let lo = 0;
  let probe = Math.min(all.length, PROBE_ROWS);
  let answer = compose(probe, probe < all.length);
  while (fits(answer, maxBytes)) {
    if (probe === all.length) return answer;
    lo = probe;
    probe = Math.min(all.length, probe * 2);
    answer = compose(probe, probe < all.length);
  }
  // Binary search the largest row count that fits (lo rows did, probe rows do not).
  let hi = probe - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (fits(compose(mid, true), maxBytes)) lo = mid;
    else hi = mid - 1;
  }
  answer = compose(lo, true);
  if (lo === 0 && all.length > 0 && tool.paged) {
    // Not one row fits: an empty page with a cursor to the same row would loop forever.
    throw tooSmall(sizeOf(compose(1, all.length > 1)), maxBytes, args.cursor !== undefined);
  }
  if (!fits(answer, maxBytes)) {
    // The summary is the one free-text field; shorten it, and if the required fields still do not fit, refuse.
    const short = compose(lo, lo < all.length, truncateUtf8(result.summary, MIN_SUMMARY_BYTES));
    if (fits(short, maxBytes)) return short;
    throw tooSmall(sizeOf(short), maxBytes, args.cursor !== undefined);
  }
  return answer;
}

/**
 * Per-file facts that can be long, by the key they are given under in an object of the answer that
 * names its file (`path`: a row, a group of hits, a file header), with the tool that lists them whole. A file compiled into hundreds of projects (a shared
 * AssemblyInfo.cs, GlobalUsings.cs or constants file) must not make every answer touching it
 * exceed the default budget.
 */
const LONG_FILE_FACTS: Readonly<Record<string, string>> = { projects: 'projects_containing', compilations: 'projects_containing' };

/** `v` with every long-fact string list in it shortened to its first entries and "+N more: <tool>" (a copy; `v` is not changed). */
export function shortenFileFacts<T>(v: T, depth = 0): T {
  if (depth > 4 || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    let out: unknown[] | undefined;
    v.forEach((x, i) => {
      const y = shortenFileFacts(x, depth + 1);
      if (y !== x) (out ??= v.slice())[i] = y;
    });
    return (out ?? v) as T;
  }
  let out: Record<string, unknown> | undefined;
  // A per-file fact is a fact of an object naming its file (a row, a group, a file header).
  const ofFile = typeof (v as { path?: unknown }).path === 'string';
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    const tool = ofFile && Object.hasOwn(LONG_FILE_FACTS, k) ? LONG_FILE_FACTS[k] : undefined;
    let y: unknown;
    if (tool && Array.isArray(x) && x.length > FILE_FACT_SHOWN_ENTRIES + 1 && x.every((e) => typeof e === 'string')) {
      y = [...x.slice(0, FILE_FACT_SHOWN_ENTRIES), `+${x.length - FILE_FACT_SHOWN_ENTRIES} more: ${tool}`];
    } else y = shortenFileFacts(x, depth + 1);
    if (y !== x) (out ??= { ...(v as Record<string, unknown>) })[k] = y;
  }
  return (out ?? v) as T;
}

function tooSmall(need: number, maxBytes: number, hasCursor: boolean): ToolError {
  const hint =
    need <= MAX_RESPONSE_BYTES
      ? `re-ask with maxBytes ${need} or more${hasCursor ? ' (the cursor stays valid)' : ''}`
      : `narrow the query: this answer needs more than the largest budget (${MAX_RESPONSE_BYTES} bytes)`;
  return new ToolError('BUDGET_TOO_SMALL', `The answer needs ${need} bytes with its next row; maxBytes is ${maxBytes}`, hint, { needBytes: need });
}

function sizeOf(a: Answer): number {
  return Math.max(bytesOf(a.text), bytesOf(JSON.stringify(a.structured)));
}

function fits(a: Answer, maxBytes: number): boolean {
  return bytesOf(a.text) <= maxBytes && bytesOf(JSON.stringify(a.structured)) <= maxBytes;
}

function render(tool: AnyTool, s: Record<string, unknown>, items: unknown[]): string {
  const lines: string[] = [String(s.summary)];
  for (const it of items) lines.push(`- ${tool.row(it as never)}`);
  const c = s.completeness as { truncated: boolean; reason?: string; total?: number; partial?: string };
  const idx = s.index as IndexMeta;
  const notes: string[] = [];
  if (s.mode) notes.push(`mode: ${String(s.mode)}`);
  if (c.truncated) notes.push(`truncated (${c.reason ?? 'limit'})${s.nextCursor ? `; more with cursor ${String(s.nextCursor)}` : ''}`);
  if (c.partial) notes.push(`partial: ${c.partial}`);
  notes.push(`index ${idx.version} ${idx.status}${idx.dirty ? `, ${idx.dirty} changed since indexing` : ''}`);
  if (idx.symbolsPending) notes.push(`symbols of ${idx.symbolsPending} file(s) not indexed yet`);
  if (idx.recovered) notes.push(idx.recovered);
  if (idx.watch) notes.push(idx.watch);
  lines.push(`_${notes.join(' · ')}_`);
  return lines.join('\n');
}

export function truncateUtf8(s: string, maxBytes: number): string {
  if (bytesOf(s) <= maxBytes) return s;
  let out = s.slice(0, maxBytes);
  while (bytesOf(out) > maxBytes - 3) out = out.slice(0, -1);
  return out + '…';
}
