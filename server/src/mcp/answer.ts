/**
 * Turns a handler's ToolResult into the final answer: adds index metadata, completeness and the
 * cursor, renders the markdown text, and cuts rows until BOTH the text and the structuredContent
 * JSON fit the byte budget (rows cut for budget are counted in `omittedBecauseBudget` and reachable
 * through the cursor).
 */
import type { IndexMeta } from '../nav/engine';
import { encodeCursor } from './cursor';
import type { AnyTool, ToolResult } from './tool';

export interface Answer {
  structured: Record<string, unknown>;
  text: string;
}

export function bytesOf(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

export function buildAnswer(tool: AnyTool, result: ToolResult, meta: IndexMeta, args: Record<string, unknown>, maxBytes: number): Answer {
  const offset = result.offset ?? 0;
  const all = result.items;
  const compose = (n: number, budgetCut: boolean): Answer => {
    const items = all.slice(0, n);
    const returnedEnd = offset + n;
    const moreExist = budgetCut || result.truncated === 'limit' || (result.total !== undefined && returnedEnd < result.total);
    const completeness: Record<string, unknown> = { returned: n, truncated: budgetCut || result.truncated !== undefined || moreExist };
    if (result.total !== undefined) completeness.total = result.total;
    const reason = budgetCut ? 'budget' : result.truncated ?? (moreExist ? 'limit' : undefined);
    if (reason) completeness.reason = reason;
    if (budgetCut) completeness.omittedBecauseBudget = all.length - n;
    if (result.partial) completeness.partial = result.partial;
    const structured: Record<string, unknown> = { summary: result.summary, items };
    if (tool.paged && moreExist && (result.truncated === undefined || result.truncated === 'limit' || budgetCut)) {
      structured.nextCursor = encodeCursor(tool.name, meta.version, args, returnedEnd);
    }
    structured.completeness = completeness;
    if (result.mode) structured.mode = result.mode;
    structured.index = meta;
    if (result.extra) Object.assign(structured, result.extra);
    return { structured, text: render(tool, structured, items) };
  };
  let answer = compose(all.length, false);
  if (fits(answer, maxBytes)) return answer;
  // Binary search the largest row count that fits.
  let lo = 0;
  let hi = all.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (fits(compose(mid, true), maxBytes)) lo = mid;
    else hi = mid - 1;
  }
  answer = compose(lo, true);
  if (!fits(answer, maxBytes)) {
    // Even with no rows the extras are too big: shorten the summary and drop extras, never exceed.
    const minimal = compose(0, true);
    delete minimal.structured.nextCursor;
    for (const k of Object.keys(result.extra ?? {})) delete minimal.structured[k];
    minimal.structured.summary = truncateUtf8(String(minimal.structured.summary), 200);
    (minimal.structured.completeness as Record<string, unknown>).partial = 'the answer did not fit the byte budget; raise maxBytes or narrow the query';
    minimal.text = render(tool, minimal.structured, []);
    return minimal;
  }
  return answer;
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
  lines.push(`_${notes.join(' · ')}_`);
  return lines.join('\n');
}

export function truncateUtf8(s: string, maxBytes: number): string {
  if (bytesOf(s) <= maxBytes) return s;
  let out = s.slice(0, maxBytes);
  while (bytesOf(out) > maxBytes - 3) out = out.slice(0, -1);
  return out + '…';
}
