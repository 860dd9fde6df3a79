/**
 * source_context: bounded live source around one or many spans, with line numbers, truncation and
 * freshness flags. Reads go through the path policy (one handle, size cap); a span that cannot be
 * served gets its own error row, the others are still answered. A virtual document (generated:…,
 * decompiled:…) is read from the provider that made it (nav/virtualDocuments.ts): never indexed,
 * never changed since indexing.
 */
import { isToolError, ToolError } from '../core/errors';
import { LARGE_FILE_BYTES, LARGE_FILE_LINES } from '../core/limits';
import { looksBinary } from '../core/paths';
import { isVirtualPath } from '../core/virtualPaths';
import type { Engine } from './engine';
import { readVirtualDocument } from './virtualDocuments';

export interface SpanRequest {
  path: string;
  line: number;
  endLine?: number | undefined;
}

export interface SourceSlice {
  path: string;
  startLine: number;
  endLine: number;
  /** Lines of the file. */
  totalLines: number;
  /** Numbered source: `  42| code`. */
  text: string;
  truncated: boolean;
  /** The file changed since it was indexed (the text is live; other answers may be older). */
  changedSinceIndex: boolean;
  notIndexed: boolean;
  isLarge: boolean;
}

export interface SpanError {
  path: string;
  line: number;
  error: string;
}

export async function readSpans(engine: Engine, spans: readonly SpanRequest[], contextLines: number, maxBytes: number, deadlineAt?: number): Promise<{ slices: (SourceSlice | SpanError)[]; bytesUsed: number; truncated: boolean }> {
  const out: (SourceSlice | SpanError)[] = [];
  let used = 0;
  let truncated = false;
  const cache = new Map<string, { lines: string[]; changed: boolean; notIndexed: boolean; size: number }>();
  for (const span of spans) {
    try {
      let file = cache.get(span.path);
      if (!file && isVirtualPath(span.path)) {
        const doc = await readVirtualDocument(engine, span.path, deadlineAt);
        const lines = doc.text.split(/\r?\n/);
        if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
        file = { lines, changed: false, notIndexed: true, size: Buffer.byteLength(doc.text, 'utf8') };
        cache.set(span.path, file);
      }
      if (!file) {
        const { rel, bytes, mtimeMs } = engine.policy.readFile(span.path);
        if (looksBinary(bytes)) throw new ToolError('BINARY_FILE', `'${rel}' is a binary file`, 'source_context reads text files only');
        const row = engine.catalog().byRelPath(rel);
        let text = bytes.toString('utf8');
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
        const lines = text.split(/\r?\n/);
        if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
        file = { lines, changed: !row || row.mtimeMs !== Math.floor(mtimeMs) || row.size !== bytes.length, notIndexed: !row, size: bytes.length };
        cache.set(span.path, file);
      }
      const total = file.lines.length;
      const endReq = span.endLine ?? span.line;
      if (span.line < 1 || span.line > Math.max(total, 1)) {
        throw new ToolError('LINE_OUT_OF_RANGE', `Line ${span.line} is past the end of '${span.path}' (${total} lines)`, `pass a line between 1 and ${total}`);
      }
      if (endReq < span.line) throw new ToolError('INVALID_ARGUMENT', `endLine ${endReq} is before line ${span.line}`, 'pass endLine >= line');
      const start = Math.max(1, span.line - contextLines);
      const end = Math.min(total, endReq + contextLines);
      const width = String(end).length;
      const parts: string[] = [];
      let sliceTruncated = false;
      let last = start - 1;
      for (let n = start; n <= end; n++) {
        const line = `${String(n).padStart(width)}| ${file.lines[n - 1] ?? ''}`;
        const cost = Buffer.byteLength(line, 'utf8') + 1;
        if (used + cost > maxBytes) {
          sliceTruncated = true;
          break;
        }
        used += cost;
        parts.push(line);
        last = n;
      }
      if (sliceTruncated) truncated = true;
      if (parts.length === 0 && sliceTruncated) break;
      out.push({
        path: span.path, startLine: start, endLine: last, totalLines: total, text: parts.join('\n'), truncated: sliceTruncated,
        changedSinceIndex: file.changed, notIndexed: file.notIndexed, isLarge: total > LARGE_FILE_LINES || file.size > LARGE_FILE_BYTES,
      });
      if (sliceTruncated) break;
    } catch (e) {
      if (!isToolError(e)) throw e;
      if (spans.length === 1) throw e;
      out.push({ path: span.path, line: span.line, error: e.render() });
    }
  }
  return { slices: out, bytesUsed: used, truncated: truncated || out.length < spans.length };
}
