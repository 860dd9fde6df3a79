/**
 * Opaque cursors: base64url JSON naming the tool, a hash of the query arguments and the offset,
 * bound to the index version. A cursor from another version, tool or query is rejected.
 */
import * as crypto from 'node:crypto';
import { ToolError } from '../core/errors';

interface CursorBody {
  v: string; // index version
  t: string; // tool
  q: string; // hash of the arguments without paging fields
  o: number; // offset
}

export function argsHash(args: Record<string, unknown>): string {
  const { cursor: _c, limit: _l, maxBytes: _m, ...rest } = args;
  return crypto.createHash('sha1').update(stableJson(rest)).digest('base64url').slice(0, 12);
}

export function encodeCursor(tool: string, version: string, args: Record<string, unknown>, offset: number): string {
  const body: CursorBody = { v: version, t: tool, q: argsHash(args), o: offset };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export function decodeCursor(cursor: string, tool: string, version: string, args: Record<string, unknown>): number {
  let body: CursorBody;
  try {
    body = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as CursorBody;
  } catch {
    throw new ToolError('INVALID_CURSOR', 'The cursor is not one this server issued', 'pass nextCursor unchanged, or drop cursor to start over');
  }
  if (typeof body !== 'object' || body === null || typeof body.o !== 'number' || !Number.isInteger(body.o) || body.o < 0 || body.t !== tool) {
    throw new ToolError('INVALID_CURSOR', 'The cursor is not one this server issued for this tool', 'pass nextCursor unchanged to the same tool');
  }
  if (body.q !== argsHash(args)) {
    throw new ToolError('INVALID_CURSOR', 'The cursor belongs to a different query', 'repeat the same arguments with the cursor, or drop cursor');
  }
  if (body.v !== version) {
    throw new ToolError('STALE_CURSOR', `The cursor is from index version ${body.v}; the index is now ${version}`, 'repeat the query without cursor');
  }
  return body.o;
}

function stableJson(v: unknown): string {
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
