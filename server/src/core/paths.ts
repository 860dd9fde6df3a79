/**
 * The path policy: the only authority on paths. Every path a tool receives or the engine opens goes
 * through here.
 *
 * - Paths in and out are workspace-relative POSIX; lines and columns are 1-based (elsewhere).
 * - A path is inside the workspace canonically (after realpath), so an in-root symlink cannot lead out.
 * - A path outside answers PATH_OUTSIDE_ROOT whether or not it exists, including through an in-root
 *   link to a missing target: a path that does not resolve is canonicalised component by component,
 *   following dangling links with lstat/readlink, so the answer depends only on where the path
 *   leads, never on whether something exists outside the root. No existence oracle.
 * - Reads use one handle (open with O_NOFOLLOW | O_NONBLOCK, fstat, read from the same handle) and
 *   re-check the size cap on the bytes actually read. O_NONBLOCK keeps a FIFO planted in the
 *   workspace from blocking the engine; fstat then refuses it as not a regular file.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ToolError } from './errors';
import { MAX_FILE_BYTES, MAX_PATH_CHARS, MAX_SYMLINK_HOPS } from './limits';
import { isVirtualPath } from './virtualPaths';

/** C0 controls (incl. NUL), DEL and C1 controls. */
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
/**
 * Win32 device and NT namespace prefixes (`\\?\`, `\\.\`, `\??\`), with either slash: they bypass
 * Win32 path normalisation, so they are refused outright on every platform.
 */
const DEVICE_PREFIX = /^[\\/]{2}[?.](?:[\\/]|$)|^[\\/]\?\?[\\/]/;
/** Win32 reserved device names as a path component (`NUL`, `con.txt`, `COM1`, `CONIN$` …). */
const WIN_RESERVED = /^(?:con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)(?:\..*)?$/i;

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

/**
 * Validates the shape of a path argument; the schema layer calls this too. Traversal is not decided
 * here (the shape cannot know the root): that is `PathPolicy.resolve`'s job.
 */
export function pathShapeProblem(p: string, platform: NodeJS.Platform = process.platform): string | undefined {
  if (p.length === 0) return 'the path is empty';
  if (p.length > MAX_PATH_CHARS) return `the path is longer than ${MAX_PATH_CHARS} characters`;
  if (CONTROL_CHARS.test(p)) return 'the path contains control characters';
  if (DEVICE_PREFIX.test(p)) return 'device-namespace paths are not accepted';
  // A provider's virtual document (generated:…, decompiled:…) is no file: its colon names the scheme.
  if (isVirtualPath(p)) return undefined;
  if (platform === 'win32') {
    const parts = p.split(/[\\/]+/);
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i] ?? '';
      if (WIN_RESERVED.test(part.replace(/[. ]+$/, ''))) return 'Windows device names are not accepted as path components';
      // A colon is only legal as the drive separator (`C:`): elsewhere it names an NTFS stream.
      if (part.includes(':') && !(i === 0 && /^[A-Za-z]:$/.test(part))) return 'NTFS alternate data streams are not accepted';
    }
  }
  return undefined;
}

export class PathPolicy {
  /** Canonical absolute root. */
  readonly root: string;
  /** The root as given (resolved but not canonicalised): paths spelled through it are accepted. */
  private readonly lexicalRoot: string;

  constructor(root: string) {
    this.lexicalRoot = path.resolve(root);
    this.root = fs.realpathSync(this.lexicalRoot);
  }

  /** True when a canonical absolute path lies inside the root (or is the root). */
  containsCanonical(abs: string): boolean {
    const rel = path.relative(this.root, abs);
    if (rel === '') return true;
    if (path.isAbsolute(rel)) return false; // another drive on Windows
    return rel !== '..' && !rel.startsWith('..' + path.sep);
  }

  /**
   * The canonical absolute path of an engine-side absolute path when it lies inside the root, else
   * undefined. For walkers and resolvers: a link that leads out is simply not there.
   */
  canonicalInside(abs: string): string | undefined {
    const c = this.canonicalize(path.resolve(abs));
    return c.kind === 'path' && this.containsCanonical(c.abs) ? c.abs : undefined;
  }

  /** Resolves a user path; throws ToolError for shape problems and for paths outside the root. */
  resolve(input: string): ResolvedPath {
    const problem = pathShapeProblem(input);
    if (problem) {
      throw new ToolError('INVALID_PATH', `Invalid path: ${problem}`, 'pass a workspace-relative POSIX path such as src/App/Program.cs');
    }
    // Resolve against the lexical root: the canonical root is reached by canonicalisation anyway,
    // and an absolute path spelled through a linked root (/tmp → /private/tmp) keeps working.
    const lexical = path.resolve(this.lexicalRoot, path.sep === '\\' ? input : input.replace(/\\/g, '/'));
    const c = this.canonicalize(lexical);
    if (c.kind === 'loop') {
      // A link loop reveals nothing only if it never left the root; otherwise it is just "outside".
      if (c.leftRoot) throw this.outside(input);
      throw new ToolError('FILE_NOT_FOUND', `No file at '${truncate(input)}' (symbolic link loop)`, 'use find_file to locate it');
    }
    if (!this.containsCanonical(c.abs)) throw this.outside(input);
    return { abs: c.abs, rel: toPosix(path.relative(this.root, c.abs)), exists: c.exists };
  }

  /** Resolves a path that must name an existing file or directory inside the root. */
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

  private outside(input: string): ToolError {
    return new ToolError(
      'PATH_OUTSIDE_ROOT',
      `'${truncate(input)}' is outside the workspace root`,
      'pass a workspace-relative POSIX path such as src/App/Program.cs (use find_file to locate files)',
    );
  }

  /**
   * Canonicalises an absolute path. When realpath succeeds the path exists. When it fails, the path
   * is walked component by component from the filesystem root with lstat; a link (dangling or not)
   * is expanded with readlink, so the result is where the path *would* lead, existing or not.
   */
  private canonicalize(lexical: string): Canonical {
    try {
      return { kind: 'path', abs: fs.realpathSync(lexical), exists: true };
    } catch {
      // fall through to the component walk
    }
    let cur = path.parse(lexical).root;
    const pending = splitComponents(lexical);
    let hops = 0;
    let leftRoot = false;
    while (pending.length > 0) {
      const comp = pending.shift() as string;
      if (comp === '.' || comp === '') continue;
      if (comp === '..') {
        cur = path.dirname(cur);
        continue;
      }
      const next = path.join(cur, comp);
      let st: fs.Stats;
      try {
        st = fs.lstatSync(next);
      } catch {
        // Missing (or unreadable): the rest is appended as is. `..` in the rest cannot occur from
        // the input (path.resolve normalised it); from a link target it is collapsed lexically,
        // which is exactly what the OS would do once the missing directory exists.
        return { kind: 'path', abs: path.resolve(next, ...pending), exists: false };
      }
      if (st.isSymbolicLink()) {
        if (++hops > MAX_SYMLINK_HOPS) return { kind: 'loop', leftRoot };
        let target: string;
        try {
          target = fs.readlinkSync(next);
        } catch {
          return { kind: 'path', abs: path.resolve(next, ...pending), exists: false };
        }
        if (path.isAbsolute(target)) cur = path.parse(path.resolve(target)).root;
        pending.unshift(...splitComponents(target));
        if (!this.containsCanonical(path.resolve(cur, ...pending))) leftRoot = true;
        continue;
      }
      cur = next;
    }
    // Every component exists but realpath failed (a permission error or a race): not readable.
    return { kind: 'path', abs: cur, exists: false };
  }
}

type Canonical = { kind: 'path'; abs: string; exists: boolean } | { kind: 'loop'; leftRoot: boolean };

function splitComponents(p: string): string[] {
  const { root } = path.parse(p);
  return p.slice(root.length).split(/[\\/]+/).filter((c) => c.length > 0);
}

/** O_NONBLOCK where the platform has it: opening a FIFO must not block the engine. */
const OPEN_FLAGS = fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0);

/**
 * Reads a file with one handle: open (O_NOFOLLOW, O_NONBLOCK), fstat the handle, read from the same
 * handle, and re-check the cap on the bytes actually read (a file that grows while read is refused).
 */
export function readWithOneHandle(abs: string, rel: string, maxBytes: number): { bytes: Buffer; mtimeMs: number } {
  let fd: number;
  try {
    fd = fs.openSync(abs, OPEN_FLAGS);
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
    // One buffer of cap + 1 bytes at most: reading one byte past the cap proves the file grew.
    const buf = Buffer.allocUnsafe(Math.min(Math.max(st.size + 1, 4096), maxBytes + 1));
    let total = 0;
    const chunks: Buffer[] = [];
    for (;;) {
      const n = fs.readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      total += n;
      if (total > maxBytes) {
        throw new ToolError('FILE_TOO_LARGE', `'${rel}' grew past the ${maxBytes}-byte cap while being read`, 'retry later, or use search_text');
      }
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return { bytes: chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, total), mtimeMs: st.mtimeMs };
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
