/**
 * The path policy: the only authority on paths. Every path a tool receives or the engine opens goes
 * through here.
 *
 * - Paths in and out are workspace-relative POSIX; lines and columns are 1-based (elsewhere).
 * - A path is inside the workspace canonically (after realpath), so an in-root symlink cannot lead out.
 * - A path outside answers PATH_OUTSIDE_ROOT whether or not it exists, including through an in-root
 *   link to a missing target (the deepest existing ancestor is canonicalised): no existence oracle.
 * - Reads use one handle (open, fstat, read from the same handle, O_NOFOLLOW) and re-check the size
 *   cap on the bytes actually read.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from './errors';
import { MAX_FILE_BYTES, MAX_PATH_CHARS } from './limits';

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const DEVICE_PREFIX = /^(\\\\[?.]\\|\/\/[?.]\/)/;

export interface ResolvedPath {
  /** Canonical absolute path (realpath of the file, or of the deepest existing ancestor + rest). */
  abs: string;
  /** Workspace-relative POSIX path ('' for the root itself). */
  rel: string;
  exists: boolean;
}

export function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

/** Validates the shape of a path argument; the schema layer calls this too. */
export function pathShapeProblem(p: string): string | undefined {
  if (p.length === 0) return 'the path is empty';
  if (p.length > MAX_PATH_CHARS) return `the path is longer than ${MAX_PATH_CHARS} characters`;
  if (CONTROL_CHARS.test(p)) return 'the path contains control characters';
  if (DEVICE_PREFIX.test(p)) return 'device-namespace paths are not accepted';
  return undefined;
}

export class PathPolicy {
  readonly root: string;

  constructor(root: string) {
    this.root = fs.realpathSync(path.resolve(root));
  }

  /** True when a canonical absolute path lies inside the root (or is the root). */
  containsCanonical(abs: string): boolean {
    const rel = path.relative(this.root, abs);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  }

  private outside(input: string): ToolError {
    return new ToolError(
      'PATH_OUTSIDE_ROOT',
      `'${truncate(input)}' is outside the workspace root`,
      'pass a workspace-relative POSIX path such as src/App/Program.cs (use find_file to locate files)',
    );
  }

  /** Resolves a user path; throws ToolError for shape problems and for paths outside the root. */
  resolve(input: string): ResolvedPath {
    const problem = pathShapeProblem(input);
    if (problem) {
      throw new ToolError('INVALID_PATH', `Invalid path: ${problem}`, 'pass a workspace-relative POSIX path such as src/App/Program.cs');
    }
    const lexical = path.resolve(this.root, input.replace(/\\/g, '/'));
    let canonical: string | undefined;
    try {
      canonical = fs.realpathSync(lexical);
    } catch {
      canonical = undefined;
    }
    if (canonical !== undefined) {
      if (!this.containsCanonical(canonical)) throw this.outside(input);
      return { abs: canonical, rel: toPosix(path.relative(this.root, canonical)), exists: true };
    }
    // Missing: canonicalise the deepest existing ancestor so a link pointing out cannot be probed.
    let ancestor = path.dirname(lexical);
    const rest: string[] = [path.basename(lexical)];
    for (;;) {
      let real: string | undefined;
      try {
        real = fs.realpathSync(ancestor);
      } catch {
        real = undefined;
      }
      if (real !== undefined) {
        const abs = path.join(real, ...rest);
        if (!this.containsCanonical(real) || !this.containsCanonical(abs)) throw this.outside(input);
        return { abs, rel: toPosix(path.relative(this.root, abs)), exists: false };
      }
      const parent = path.dirname(ancestor);
      if (parent === ancestor) throw this.outside(input);
      rest.unshift(path.basename(ancestor));
      ancestor = parent;
    }
  }

  /** Resolves a path that must name an existing regular file inside the root. */
  resolveFile(input: string): ResolvedPath {
    const r = this.resolve(input);
    if (!r.exists) {
      throw new ToolError('FILE_NOT_FOUND', `No file at '${truncate(input)}'`, 'check the spelling, or use find_file to locate it');
    }
    return r;
  }

  /**
   * Reads a file inside the root with one handle: open (O_NOFOLLOW), fstat, read, re-check size.
   * Returns the bytes; callers decode. Throws ToolError for every expected failure.
   */
  readFile(input: string, maxBytes: number = MAX_FILE_BYTES): { rel: string; abs: string; bytes: Buffer; mtimeMs: number } {
    const r = this.resolveFile(input);
    return { ...readWithOneHandle(r.abs, r.rel, maxBytes), rel: r.rel, abs: r.abs };
  }
}

export function readWithOneHandle(abs: string, rel: string, maxBytes: number): { bytes: Buffer; mtimeMs: number } {
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch (e) {
    throw fsError(e, rel);
  }
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) {
      throw new ToolError('NOT_A_FILE', `'${rel}' is a directory`, 'pass a file path; use find_file or repo_overview to list files');
    }
    if (!st.isFile()) throw new ToolError('NOT_A_FILE', `'${rel}' is not a regular file`, 'pass a regular source file');
    if (st.size > maxBytes) {
      throw new ToolError('FILE_TOO_LARGE', `'${rel}' is ${st.size} bytes, over the ${maxBytes}-byte cap`, 'use outline or search_text to reach the part you need');
    }
    const chunks: Buffer[] = [];
    let total = 0;
    const buf = Buffer.allocUnsafe(Math.min(Math.max(st.size, 4096), maxBytes + 1));
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) {
        throw new ToolError('FILE_TOO_LARGE', `'${rel}' grew past the ${maxBytes}-byte cap while being read`, 'retry later, or use search_text');
      }
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return { bytes: Buffer.concat(chunks, total), mtimeMs: st.mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
}

function fsError(e: unknown, rel: string): ToolError {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return new ToolError('FILE_NOT_FOUND', `No file at '${rel}'`, 'use find_file to locate it');
  if (code === 'ELOOP') return new ToolError('INVALID_PATH', `'${rel}' changed into a symbolic link while being opened`, 'retry; links are not followed');
  if (code === 'EISDIR') return new ToolError('NOT_A_FILE', `'${rel}' is a directory`, 'pass a file path');
  return new ToolError('UNREADABLE_FILE', `'${rel}' could not be read (${code ?? 'error'})`, 'check the file permissions');
}

/** True when the bytes look binary (a NUL byte in the first 8 KiB). */
export function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 8192);
  for (let i = 0; i < n; i++) if (bytes[i] === 0) return true;
  return false;
}

function truncate(s: string): string {
  return s.length > 200 ? s.slice(0, 200) + '…' : s;
}
