/**
 * Parses a batch of files in the current thread: the work a parse worker does per message, and
 * the in-thread fallback when no worker can be started. Every file yields a FileSyntax; problems
 * (unreadable, binary, too large, unsupported) are reported on that file, never thrown.
 */
import { isToolError } from '../core/errors';
import { MAX_FILE_BYTES } from '../core/limits';
import { looksBinary, readWithOneHandle } from '../core/paths';
import { loadGrammar } from './grammars';
import { languageById, languageForPath } from './languageConfig';
import { parseTextSync, unsupported } from './parseFile';
import type { FileSyntax, ParseRequest } from './types';

/** Decodes file bytes as UTF-8 text (BOM dropped); undefined for binary content. */
export function decodeSource(bytes: Uint8Array): string | undefined {
  if (looksBinary(bytes)) return undefined;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Parses each request in order. */
export async function parseBatch(files: ParseRequest[]): Promise<FileSyntax[]> {
  const out: FileSyntax[] = [];
  for (const req of files) out.push(await parseOne(req));
  return out;
}

async function parseOne(req: ParseRequest): Promise<FileSyntax> {
  const config = req.language ? languageById(req.language) : languageForPath(req.path);
  if (!config) return unsupported(req.path, req.language, req.text ?? '');
  let text = req.text;
  if (text === undefined) {
    if (!req.abs) return failed(req, 'INVALID_ARGUMENT', 'neither text nor abs was given');
    try {
      const { bytes } = readWithOneHandle(req.abs, req.path, MAX_FILE_BYTES);
      text = decodeSource(bytes);
      if (text === undefined) return failed(req, 'BINARY_FILE', `'${req.path}' is a binary file`);
    } catch (e) {
      if (isToolError(e)) return failed(req, e.code, e.message);
      return failed(req, 'UNREADABLE_FILE', (e as Error).message);
    }
  }
  try {
    await loadGrammar(config);
    return parseTextSync(req.path, text, config, req.skeleton === false ? { skeleton: false } : {});
  } catch (e) {
    return failed(req, 'INTERNAL', `parsing failed: ${(e as Error).message}`);
  }
}

function failed(req: ParseRequest, code: string, message: string): FileSyntax {
  return { ...unsupported(req.path, req.language, ''), error: { code, message } };
}
