/**
 * Opaque cursors of the paging contract (docs/architecture.md, "Paging"). A cursor is base64url
 * JSON binding the next page to:
 * - the tool and a hash of the query arguments (paging fields left out) — a cursor of another
 *   tool or query is refused as STALE_CURSOR;
 * - the index version — a cursor from an older index is STALE_CURSOR;
 * - the position: the row offset where the next page starts AND a hash of the last row emitted.
 *   The next page re-reads that row and checks the hash, so a result that came back in another
 *   order (or changed) is refused instead of silently repeating or skipping rows;
 * - optionally a kept result (`e`, see resultCache.ts) the next page is served from, and a
 *   tool-defined resume position (`r`, any JSON) for tools that seek instead of counting rows.
 */
import * as crypto from 'node:crypto';
import { ToolError } from '../core/errors';

interface CursorBody {
  v: string; // index version
  t: string; // tool
  q: string; // hash of the arguments without paging fields
  o: number; // offset of the next row
  k?: string; // hash of the row at o - 1 (the last row emitted)
  e?: number; // kept result id
  r?: unknown; // tool-defined resume position after row o - 1
}

/** Where the next page starts, as decoded from a cursor. */
export interface CursorPosition {
  offset: number;
  /** Hash of the last row emitted (the row at offset - 1); absent at offset 0. */
  lastKey?: string | undefined;
  /** Id of the kept result the page is served from. */
  entry?: number | undefined;
  /** Tool-defined resume position (ToolResult.positionAfter). */
  resume?: unknown;
}

export const STALE_HINT = 're-ask without cursor';

export function argsHash(args: Record<string, unknown>): string {
  const { cursor: _c, limit: _l, maxBytes: _m, ...rest } = args;
  return crypto.createHash('sha1').update(stableJson(rest)).digest('base64url').slice(0, 12);
}

/** A short hash identifying one row (its JSON with sorted keys): the cursor's check of the last row emitted. */
export function rowKey(row: unknown): string {
  return crypto.createHash('sha1').update(stableJson(row)).digest('base64url').slice(0, 10);
}

export function encodeCursor(tool: string, version: string, args: Record<string, unknown>, pos: CursorPosition): string {
  const body: CursorBody = { v: version, t: tool, q: argsHash(args), o: pos.offset };
  if (pos.lastKey !== undefined) body.k = pos.lastKey;
  if (pos.entry !== undefined) body.e = pos.entry;
  if (pos.resume !== undefined) body.r = pos.resume;
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export function decodeCursor(cursor: string, tool: string, version: string, args: Record<string, unknown>): CursorPosition {
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorBody;
  } catch {
    throw new ToolError('INVALID_CURSOR', 'The cursor is not one this server issued', 'pass nextCursor unchanged, or drop cursor to start over');
  }
  if (
    typeof body !== 'object' ||
    body === null ||
    typeof body.t !== 'string' ||
    typeof body.v !== 'string' ||
    typeof body.o !== 'number' ||
    !Number.isInteger(body.o) ||
    body.o < 0 ||
    (body.k !== undefined && typeof body.k !== 'string') ||
    (body.e !== undefined && (typeof body.e !== 'number' || !Number.isInteger(body.e)))
  ) {
    throw new ToolError('INVALID_CURSOR', 'The cursor is not one this server issued', 'pass nextCursor unchanged, or drop cursor to start over');
  }
  if (body.t !== tool) throw new ToolError('STALE_CURSOR', `The cursor belongs to ${String(body.t).slice(0, 40)}, not ${tool}`, STALE_HINT);
  if (body.q !== argsHash(args)) throw new ToolError('STALE_CURSOR', 'The cursor belongs to a different query (the arguments besides cursor, limit and maxBytes changed)', STALE_HINT);
  if (body.v !== version) throw new ToolError('STALE_CURSOR', `The cursor is from index version ${body.v}; the index is now ${version}`, STALE_HINT);
  const pos: CursorPosition = { offset: body.o };
  if (body.k !== undefined) pos.lastKey = body.k;
  if (body.e !== undefined) pos.entry = body.e;
  if (body.r !== undefined) pos.resume = body.r;
  return pos;
}

export function stableJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableJson).join(',')}]`;
  if (v && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stableJson((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}
