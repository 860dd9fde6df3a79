/**
 * The tool definition pattern: one `defineTool` per tool, grouped by file under tools/. Input
 * schemas are strict zod objects (unknown fields rejected); output schemas are published as
 * `outputSchema` and every structured answer is an `Envelope`. Handlers return plain data; the
 * server applies the byte budget, cursors and rendering uniformly.
 */
import { z } from 'zod';
import type { Engine } from '../nav/engine';

export interface ToolEnv {
  engine: Engine;
  /** Epoch ms after which work must stop and report `deadline`. */
  deadlineAt: number;
  /** Tools registered on this server (server_capabilities lists them). */
  tools: readonly AnyTool[];
  /**
   * Computes a value once per answer and keeps it for the answer's cursor: the first page runs
   * `compute`, every later page of the same answer gets the kept value (a provider's rows, a
   * hierarchy walk, a scan cut by its deadline), so pages never disagree on what they slice.
   * A later page whose value was evicted gets STALE_CURSOR. Page from the value by offset.
   */
  once<T>(key: string, compute: () => Promise<T> | T): Promise<T>;
}

/** The slice a paged handler is asked for. */
export interface PageRequest {
  /** Row offset of the first row wanted within the whole ordered result. */
  offset: number;
  /** Rows wanted (a handler may return fewer when it says more exist: `total` or `truncated: 'limit'`). */
  limit: number;
  maxBytes: number;
  /** The position a tool gave through `positionAfter` for the last row emitted (tools that seek). */
  resume?: unknown;
}

/** What a handler returns: the envelope fields minus `index`, which the server adds. */
export interface ToolResult {
  summary: string;
  items: unknown[];
  /** Offset of `items[0]` within the full ordered result (for cursors). */
  offset?: number;
  /** Total rows when known. */
  total?: number | undefined;
  /** Why the list is shorter than the whole answer (before budget is applied). */
  truncated?: 'limit' | 'deadline' | 'cap' | undefined;
  /** Rows are missing because coverage is missing (kept apart from truncation). */
  partial?: string | undefined;
  mode?: NavigationMode;
  /** Extra top-level fields (e.g. `nodes`/`edges` for graph tools, `strategy` for search). */
  extra?: Record<string, unknown>;
  /**
   * For tools that seek instead of counting rows: a JSON position to resume after `items[i]`
   * (the cursor carries it; the next page gets it as `page.resume`). Without it the next page is
   * asked from the row offset, one row early, and that row is checked against the cursor.
   */
  positionAfter?: (i: number) => unknown;
  /**
   * For tools that seek: where a page that returned no row stopped (a bound or the deadline cut
   * it before its first row). With `truncated: 'limit'` the cursor resumes there; the tool must
   * make sure it is past the position the page started from, so paging always ends.
   */
  resumeAt?: unknown;
}

export type NavigationMode = 'precise' | 'precise_partial' | 'heuristic_no_precise' | 'unavailable_no_precise';

export interface ToolDef<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  input: z.ZodObject<S>;
  /** Schema of one row of `items`. */
  item: z.ZodType;
  /** Schema of `extra` fields, if any. */
  extra?: z.ZodRawShape;
  /** Whether answers can be paged with `cursor`. */
  paged: boolean;
  /** Whether answers say how they were produced (`mode`: provider-backed tools); the published outputSchema names `mode` only then. */
  mode?: boolean;
  /** Rows per page when the call gives no `limit` (a tool whose common answer is longer than the general default). */
  defaultLimit?: number;
  /** The byte budget a call asks for when it is not the top-level `maxBytes` (context_pack's `budget.maxBytes`). */
  maxBytesOf?(args: never): number | undefined;
  /**
   * How a page's rows are shown, when rows are not shown one by one (search_text groups its hits by
   * file). Rows stay the paging unit (limit, offset, cursor, `returned`); `items` and the text are
   * what this returns for the rows of the page, and `item` is the schema of what it returns. Pages
   * concatenated and presented = the unpaged answer presented (a group cut by a page boundary
   * continues as a group of the same key at the top of the next page).
   */
  present?(rows: never[]): unknown[];
  /** Renders one item (a row, or what `present` made) for the markdown text. */
  row(item: never): string;
  handle(env: ToolEnv, args: z.infer<z.ZodObject<S>>, page: PageRequest): Promise<ToolResult>;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDef<any>;

export function defineTool<S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef<S> {
  return def;
}
