/**
 * search_structural: a tree-sitter query run over the indexed files of one language, in the
 * catalog's order (handwritten source first). Bounded three ways: rows (limit + cursor offset),
 * files parsed per call, and the tool deadline; the answer says which bound cut it. Files are
 * read live. When the query pins a capture to literal text with #eq?, files that do not contain
 * any such literal are skipped without parsing.
 */
import * as path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '../core/errors';
import { MAX_FILE_BYTES, MAX_REGEX_CHARS, MAX_STRUCTURAL_FILES } from '../core/limits';
import { readWithOneHandle } from '../core/paths';
import { compileBoundedRegex } from '../core/regex';
import { languageById, supportedLanguageIds } from '../syntax/languageConfig';
import { decodeSource } from '../syntax/parseBatch';
import { compileStructuralQuery, expandNamedQuery, splitTopLevelPatterns, type StructuralMatch } from '../syntax/structuralQuery';
import type { FileClass } from '../workspace/fileClass';
import type { Engine } from './engine';

export interface StructuralArgs {
  query: string;
  language: string;
  pathRegex?: string | undefined;
  pathGlob?: string | undefined;
  capture?: string | undefined;
  classes?: FileClass[] | undefined;
  offset: number;
  limit: number;
  deadlineAt: number;
  /** Resume position (from `positions` of an earlier page): start at this file, skipping its first `s` matches; `offset` is then not used. */
  start?: StructuralPosition | undefined;
}

/** A place in the search: file `f` of the candidate list (catalog order), after its first `s` matches. */
export interface StructuralPosition {
  f: number;
  s: number;
}

export interface StructuralResult {
  matches: StructuralMatch[];
  filesSearched: number;
  filesSkippedByLiteral: number;
  filesWithMatches: number;
  /** Files of the language that passed the path filters. */
  candidateFiles: number;
  /** More rows exist ('limit'), or the search stopped early ('deadline' | 'cap': file bound). */
  truncated?: 'limit' | 'deadline' | 'cap' | undefined;
  exceededMatchLimit: boolean;
  primaryCapture: string;
  /** The position just after each returned match (a cursor resumes there, past the per-call file bound). */
  positions: StructuralPosition[];
  /** Where the search stopped (the next file not searched): the resume point when no match was returned. */
  frontier: StructuralPosition;
}

export async function searchStructural(engine: Engine, a: StructuralArgs): Promise<StructuralResult> {
  const config = languageById(a.language);
  if (!config) {
    throw new ToolError('UNSUPPORTED_LANGUAGE', `No syntax support for language '${a.language}'`, `use one of: ${supportedLanguageIds().join(', ')}`);
  }
  let re: RegExp | undefined;
  if (a.pathRegex) {
    if (a.pathRegex.length > MAX_REGEX_CHARS) throw new ToolError('INVALID_REGEX', `pathRegex is longer than ${MAX_REGEX_CHARS} characters`, 'shorten it');
    const c = compileBoundedRegex(a.pathRegex);
    if (!c.ok) throw new ToolError('INVALID_REGEX', `Invalid pathRegex: ${c.reason}`, 'use JavaScript regex syntax, e.g. ^src/.*Controller\\.cs$');
    re = c.re;
  }
  const glob = a.pathGlob ? picomatch(a.pathGlob, { dot: true, nocase: true }) : undefined;
  const source = expandNamedQuery(config, a.query);
  // #match? predicates run in this process on every candidate node: they must be linear-time too.
  for (const m of source.matchAll(/#(?:any-)?(?:not-)?match\?\s+@[\w.-]+\s+"((?:[^"\\]|\\.)*)"/g)) {
    const c = compileBoundedRegex((m[1] ?? '').replace(/\\(.)/g, (_x, ch: string) => (ch === 'n' ? '\n' : ch === 't' ? '\t' : ch === '\\' || ch === '"' ? ch : `\\${ch}`)));
    if (!c.ok) throw new ToolError('INVALID_QUERY', `A #match? pattern is refused: ${c.reason}`, 'simplify the pattern, or use #eq? for literal text');
  }
  const q = await compileStructuralQuery(config.id, source, a.capture);
  try {
    const literals = eqLiterals(source);
    const files = engine
      .catalog()
      .all()
      .filter((f) => !f.binary && f.language === config.id && (!re || re.test(f.path)) && (!glob || glob(f.path)) && (!a.classes || a.classes.includes(f.fileClass)));
    const seek = a.start !== undefined;
    const startFile = a.start?.f ?? 0;
    const want = seek ? a.limit : a.offset + a.limit;
    const rows: StructuralMatch[] = [];
    const at: StructuralPosition[] = [];
    let next = startFile;
    let searched = 0;
    let skipped = 0;
    let withMatches = 0;
    let exceeded = false;
    let stop: StructuralResult['truncated'];
    for (let fi = startFile; fi < files.length; fi++, next = fi) {
      const f = files[fi]!;
      if (rows.length > want) {
        stop = 'limit';
        break;
      }
      if (Date.now() > a.deadlineAt) {
        stop = 'deadline';
        break;
      }
      if (searched >= MAX_STRUCTURAL_FILES) {
        stop = 'cap';
        break;
      }
      let text: string | undefined;
      try {
        text = decodeSource(readWithOneHandle(path.join(engine.root, f.path), f.path, MAX_FILE_BYTES).bytes);
      } catch {
        text = undefined;
      }
      if (text === undefined) continue;
      if (literals.length > 0 && !literals.some((l) => text.includes(l))) {
        skipped++;
        continue;
      }
      searched++;
      const skip = seek && fi === startFile ? a.start!.s : 0;
      const r = q.run(f.path, text, want + 1 - rows.length + skip);
      if (r.exceededMatchLimit) exceeded = true;
      if (r.matches.length > skip) withMatches++;
      for (let k = skip; k < r.matches.length; k++) {
        rows.push(r.matches[k]!);
        at.push({ f: fi, s: k + 1 });
      }
    }
    if (!stop && rows.length > want) stop = 'limit';
    const from = seek ? 0 : a.offset;
    return {
      matches: rows.slice(from, from + a.limit),
      positions: at.slice(from, from + a.limit),
      frontier: { f: next, s: 0 },
      filesSearched: searched,
      filesSkippedByLiteral: skipped,
      filesWithMatches: withMatches,
      candidateFiles: files.length,
      truncated: stop,
      exceededMatchLimit: exceeded,
      primaryCapture: q.primary,
    };
  } finally {
    q.dispose();
  }
}

/** Literal strings a capture must equal (`(#eq? @name "Foo")`): a file lacking all of them cannot match. */
export function eqLiterals(query: string): string[] {
  const out: string[] = [];
  for (const m of query.matchAll(/\(\s*#eq\?\s+@[\w.-]+\s+"((?:[^"\\]|\\.)*)"\s*\)/g)) {
    const lit = (m[1] ?? '').replace(/\\(.)/g, '$1');
    if (lit) out.push(lit);
  }
  // A query with several patterns may pin only some of them: then no literal is required.
  const patterns = splitTopLevelPatterns(query);
  const pinned = patterns.filter((p) => /\(\s*#eq\?\s+@[\w.-]+\s+"/.test(p)).length;
  return pinned < patterns.length ? [] : out;
}
