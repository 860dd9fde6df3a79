/**
 * search_text: candidate files from the token index (a guaranteed superset for literals with
 * identifier characters), verified against the live bytes; regexes and literals the index cannot
 * narrow go to a bounded ripgrep scan. Every hit is verified now, on disk, so a stale index can
 * miss a file but never invent a match; files changed since indexing are added as candidates.
 */
import * as path from 'node:path';
import picomatch from 'picomatch';
import { ToolError } from '../core/errors';
import { COUNT_AFTER_PAGE_MS, COUNT_ALL_MAX_CANDIDATES, MAX_MATCHES_PER_FILE, MAX_REGEX_CHARS, MAX_SCAN_MATCHES, MAX_TOKEN_EXPANSION, MAX_VERIFIED_FILES_PER_QUERY, PREVIEW_CHARS, TEXT_SCAN_DEADLINE_MS } from '../core/limits';
import { looksBinary } from '../core/paths';
import { matchFiles } from '../index/textIndex';
import { literalConstraints } from '../index/tokens';
import { CLASS_RANK, classify, type FileClass } from '../workspace/fileClass';
import type { Engine } from './engine';
import type { FileRow } from './fileCatalog';
import { runRipgrep } from './ripgrep';

/** Terms in one FTS4 MATCH expression (longer OR lists are split and unioned). */
const FTS_TERMS_PER_MATCH = 200;

export type TextMode = 'literal' | 'word' | 'regex';
export type CaseMode = 'smart' | 'sensitive' | 'insensitive';

export interface TextQuery {
  query: string;
  mode: TextMode;
  caseMode: CaseMode;
  pathGlob?: string | undefined;
  classes?: readonly FileClass[] | undefined;
  /** Only these paths (e.g. the files of a project). */
  paths?: ReadonlySet<string> | undefined;
  offset: number;
  limit: number;
  deadlineAt: number;
}

export interface TextHit {
  path: string;
  line: number;
  column: number;
  endColumn: number;
  preview: string;
  fileClass: FileClass;
  /** The file changed since it was indexed (the hit itself is from the live bytes). */
  changedSinceIndex: boolean;
}

export interface TextSearchResult {
  hits: TextHit[];
  /** Exact total when every candidate was verified; undefined when counting stopped early. */
  total: number | undefined;
  totalAtLeast: number;
  filesWithHits: number;
  strategy: 'index' | 'scan';
  strategyReason: string;
  candidates: number;
  verifiedFiles: number;
  truncated: 'limit' | 'deadline' | 'cap' | undefined;
  changedSinceIndex: number;
}

export async function searchText(engine: Engine, q: TextQuery): Promise<TextSearchResult> {
  if (q.query.length === 0) throw new ToolError('INVALID_ARGUMENT', 'The query is empty', 'pass the text to search for');
  const insensitive = q.caseMode === 'insensitive' || (q.caseMode === 'smart' && q.query === q.query.toLowerCase());
  const globMatch = q.pathGlob ? picomatch(q.pathGlob, { dot: true, nocase: false }) : undefined;
  const classSet = q.classes && q.classes.length > 0 ? new Set(q.classes) : undefined;
  const admit = (p: string, cls: FileClass) => (!globMatch || globMatch(p)) && (!classSet || classSet.has(cls)) && (!q.paths || q.paths.has(p));

  if (q.mode === 'regex') {
    if (q.query.length > MAX_REGEX_CHARS) {
      throw new ToolError('INVALID_REGEX', `The regular expression is longer than ${MAX_REGEX_CHARS} characters`, 'use a shorter pattern or a literal search');
    }
    return scan(engine, q, insensitive, admit, 'regex mode scans files with ripgrep (linear-time regex engine)');
  }

  const { constraints, unindexable } = literalConstraints(q.query, q.mode === 'word');
  if (unindexable) return scan(engine, q, insensitive, admit, 'the query contains an identifier run longer than the indexed token length');
  // Resolve each constraint to a set of terms; drop constraints that expand too far.
  const groups: string[][] = [];
  for (const c of constraints) {
    const terms = engine.dict.expand(c, MAX_TOKEN_EXPANSION);
    if (terms === undefined) continue;
    groups.push(terms);
  }
  if (groups.length === 0) {
    return scan(engine, q, insensitive, admit, constraints.length === 0 ? 'the query has no identifier of 2+ characters to look up' : 'the query fragments match too many indexed tokens');
  }
  const catalog = engine.catalog();
  let candidateIds: Set<number> | undefined;
  groups.sort((a, b) => a.length - b.length);
  if (groups.some((g) => g.length === 0)) {
    candidateIds = new Set(); // a required fragment matches no indexed token
  } else if (groups.reduce((n, g) => n + g.length, 0) <= FTS_TERMS_PER_MATCH) {
    // One MATCH: FTS4 intersects the groups itself (AND of parenthesised ORs), so only the final
    // candidates cross into JavaScript.
    const expr = groups.map((g) => `(${g.map((t) => `"${t}"`).join(' OR ')})`).join(' ');
    candidateIds = new Set(matchFiles(engine.store, expr));
  }
  for (const terms of candidateIds ? [] : groups) {
    const ids = new Set<number>();
    if (terms.length > 0) {
      for (let i = 0; i < terms.length; i += FTS_TERMS_PER_MATCH) {
        const expr = terms.slice(i, i + FTS_TERMS_PER_MATCH).map((t) => `"${t}"`).join(' OR ');
        for (const id of matchFiles(engine.store, expr)) {
          if (!candidateIds || candidateIds.has(id)) ids.add(id);
        }
      }
    }
    candidateIds = ids;
    if (ids.size === 0) break;
  }
  // Ranked order (class, then path): the catalog is kept in that order, so a large candidate set
  // is collected by walking it instead of sorting; a small one is sorted below.
  const ids = candidateIds ?? new Set<number>();
  const candidates: FileRow[] = [];
  const walkCatalog = ids.size > catalog.size / 8;
  if (walkCatalog) {
    for (const row of catalog.all()) if (ids.has(row.id) && admit(row.path, row.fileClass)) candidates.push(row);
  } else {
    for (const id of ids) {
      const row = catalog.get(id);
      if (row && admit(row.path, row.fileClass)) candidates.push(row);
    }
  }
  // Files changed since indexing may now contain the text: verify them too.
  const pending = engine.pendingPaths();
  const extra: { path: string; fileClass: FileClass }[] = [];
  for (const p of pending) {
    const row = catalog.byRelPath(p);
    if (row && candidateIds?.has(row.id)) continue;
    const cls = row?.fileClass ?? classify(p);
    if (admit(p, cls)) extra.push({ path: p, fileClass: cls });
  }
  if (!walkCatalog) candidates.sort((a, b) => CLASS_RANK[a.fileClass] - CLASS_RANK[b.fileClass] || (a.path < b.path ? -1 : 1));

  const matcher = new LiteralMatcher(q.query, q.mode === 'word', insensitive);
  const result: TextSearchResult = {
    hits: [], total: 0, totalAtLeast: 0, filesWithHits: 0, strategy: 'index',
    strategyReason: 'candidate files from the token index, every hit verified against the file on disk now',
    candidates: candidates.length + extra.length, verifiedFiles: 0, truncated: undefined, changedSinceIndex: 0,
  };
  const want = q.offset + q.limit;
  let pageFullAt = 0;
  let count = 0;
  const all = [...candidates.map((c) => ({ path: c.path, fileClass: c.fileClass, row: c as FileRow | undefined })), ...extra.map((e) => ({ ...e, row: undefined }))];
  for (const c of all) {
    const now = Date.now();
    if (now > q.deadlineAt) {
      result.truncated = 'deadline';
      break;
    }
    if (pageFullAt && (all.length > COUNT_ALL_MAX_CANDIDATES || now - pageFullAt > COUNT_AFTER_PAGE_MS)) {
      result.truncated = 'limit';
      break;
    }
    if (result.verifiedFiles >= MAX_VERIFIED_FILES_PER_QUERY) {
      result.truncated = 'cap';
      break;
    }
    let bytes: Buffer;
    let mtimeMs: number;
    try {
      ({ bytes, mtimeMs } = engine.live.read(path.join(engine.root, c.path), c.path));
    } catch {
      continue; // deleted or unreadable since indexing: nothing to verify
    }
    result.verifiedFiles++;
    const changed = !c.row || Math.floor(mtimeMs) !== c.row.mtimeMs || bytes.length !== c.row.size;
    const found = matcher.find(bytes, count < want ? want - count : 0);
    if (found.count === 0) continue;
    result.filesWithHits++;
    if (changed) result.changedSinceIndex++;
    for (const h of found.hits) {
      if (count >= q.offset && result.hits.length < q.limit) {
        result.hits.push({ path: c.path, line: h.line, column: h.column, endColumn: h.column + h.length, preview: preview(h.lineText, h.column, h.length), fileClass: c.fileClass, changedSinceIndex: changed });
      }
      count++;
    }
    count += found.count - found.hits.length;
    if (!pageFullAt && count > want) pageFullAt = Date.now();
  }
  result.totalAtLeast = count;
  result.total = result.truncated ? undefined : count;
  return result;
}

async function scan(engine: Engine, q: TextQuery, insensitive: boolean, admit: (p: string, c: FileClass) => boolean, reason: string): Promise<TextSearchResult> {
  const catalog = engine.catalog();
  const globs = q.pathGlob ? [q.pathGlob] : [];
  const rg = await runRipgrep({
    cwd: engine.root,
    pattern: q.query,
    fixedStrings: q.mode !== 'regex',
    caseInsensitive: insensitive,
    wordRegexp: q.mode === 'word',
    globs,
    include: engine.opts.include ?? [],
    maxMatches: MAX_SCAN_MATCHES,
    deadlineMs: Math.max(100, Math.min(TEXT_SCAN_DEADLINE_MS, q.deadlineAt - Date.now())),
  });
  const rows = rg.matches
    .map((m) => {
      const row = catalog.byRelPath(m.path);
      return { m, cls: row?.fileClass ?? classify(m.path), row };
    })
    .filter((x) => admit(x.m.path, x.cls));
  rows.sort((a, b) => CLASS_RANK[a.cls] - CLASS_RANK[b.cls] || (a.m.path < b.m.path ? -1 : a.m.path > b.m.path ? 1 : a.m.line - b.m.line || a.m.column - b.m.column));
  const files = new Set(rows.map((r) => r.m.path));
  const pending = engine.pendingPaths();
  return {
    hits: rows.slice(q.offset, q.offset + q.limit).map(({ m, cls, row }) => ({
      path: m.path, line: m.line, column: m.column, endColumn: m.column + m.length, preview: preview(m.lineText, m.column, m.length), fileClass: cls,
      changedSinceIndex: !row || pending.has(m.path),
    })),
    total: rg.stopped ? undefined : rows.length,
    totalAtLeast: rows.length,
    filesWithHits: files.size,
    strategy: 'scan',
    strategyReason: reason,
    candidates: catalog.size,
    verifiedFiles: catalog.size,
    truncated: rg.stopped === 'deadline' ? 'deadline' : rg.stopped === 'cap' ? 'cap' : undefined,
    changedSinceIndex: 0,
  };
}

/**
 * Finds a literal in raw bytes without decoding the whole file: Buffer.indexOf on the UTF-8 bytes
 * (ASCII-lowered copies for case-insensitive search of an ASCII query; a regex over the decoded
 * text otherwise). Line, column (1-based, UTF-16 units) and the line text are computed only for
 * the hits that are kept.
 */
export class LiteralMatcher {
  private readonly needle: Buffer;
  private readonly asciiFold: boolean;
  private readonly fallback: RegExp | undefined;

  constructor(private readonly literal: string, private readonly word: boolean, insensitive: boolean) {
    const ascii = /^[\x00-\x7f]*$/.test(literal);
    this.asciiFold = insensitive && ascii;
    this.fallback = insensitive && !ascii ? buildRegExp(literal, word, true) : undefined;
    this.needle = Buffer.from(this.asciiFold ? literal.toLowerCase() : literal, 'utf8');
  }

  find(bytes: Buffer, keep: number): { hits: RawHit[]; count: number } {
    if (looksBinary(bytes)) return { hits: [], count: 0 };
    if (this.fallback) return findAll(bytes.toString('utf8'), this.fallback, keep);
    const hay = this.asciiFold ? asciiLower(bytes) : bytes;
    const hits: RawHit[] = [];
    let count = 0;
    let line = 1;
    let lineStart = 0;
    let scanned = 0;
    let lastLine = -1;
    let perLine = 0;
    const n = this.needle.length;
    for (let i = hay.indexOf(this.needle); i >= 0; i = hay.indexOf(this.needle, i + n)) {
      if (this.word && (isWordByte(hay[i - 1]) || isWordByte(hay[i + n]))) continue;
      count++;
      if (hits.length >= keep || count > MAX_MATCHES_PER_FILE) continue;
      for (let j = bytes.indexOf(10, scanned); j >= 0 && j < i; j = bytes.indexOf(10, j + 1)) {
        line++;
        lineStart = j + 1;
      }
      scanned = i;
      perLine = line === lastLine ? perLine + 1 : 0;
      lastLine = line;
      if (perLine >= 5) continue;
      let end = bytes.indexOf(10, i);
      if (end < 0) end = bytes.length;
      const lineText = bytes.subarray(lineStart, end).toString('utf8').replace(/\r$/, '');
      const column = bytes.subarray(lineStart, i).toString('utf8').length + 1;
      hits.push({ line, column, length: Math.min(this.literal.length, Math.max(0, lineText.length - column + 1)), lineText });
    }
    return { hits, count };
  }
}

function isWordByte(b: number | undefined): boolean {
  return b !== undefined && ((b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b === 95);
}

function asciiLower(b: Buffer): Buffer {
  const out = Buffer.allocUnsafe(b.length);
  for (let i = 0; i < b.length; i++) {
    const c = b[i]!;
    out[i] = c >= 65 && c <= 90 ? c + 32 : c;
  }
  return out;
}

export function buildRegExp(literal: string, word: boolean, insensitive: boolean): RegExp {
  const esc = literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const src = word ? `(?<![A-Za-z0-9_])${esc}(?![A-Za-z0-9_])` : esc;
  return new RegExp(src, insensitive ? 'gi' : 'g');
}

interface RawHit {
  line: number;
  column: number;
  length: number;
  lineText: string;
}

/** All matches of `re` in `text`; line/column computed for the first `keep` (the rest only counted). */
export function findAll(text: string, re: RegExp, keep: number): { hits: RawHit[]; count: number } {
  const hits: RawHit[] = [];
  let count = 0;
  let line = 1;
  let lineStart = 0;
  let scanned = 0;
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  let perLine = 0;
  let lastLine = -1;
  while ((m = re.exec(text))) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    count++;
    if (hits.length < keep && count <= MAX_MATCHES_PER_FILE) {
      for (let i = text.indexOf('\n', scanned); i >= 0 && i < m.index; i = text.indexOf('\n', i + 1)) {
        line++;
        lineStart = i + 1;
      }
      scanned = m.index;
      if (line === lastLine) perLine++;
      else perLine = 0;
      lastLine = line;
      let end = text.indexOf('\n', m.index);
      if (end < 0) end = text.length;
      const lineText = text.slice(lineStart, end).replace(/\r$/, '');
      if (perLine < 5) hits.push({ line, column: m.index - lineStart + 1, length: Math.min(m[0].length, lineText.length - (m.index - lineStart)), lineText });
    }
  }
  return { hits, count };
}

/** The hit's line, trimmed; long lines are cut to PREVIEW_CHARS around the match. */
export function preview(lineText: string, column: number, length: number): string {
  if (lineText.length <= PREVIEW_CHARS) return lineText.trim();
  const start = Math.max(0, column - 1 - Math.floor((PREVIEW_CHARS - length) / 2));
  const s = lineText.slice(start, start + PREVIEW_CHARS);
  return (start > 0 ? '…' : '') + s.trim() + (start + PREVIEW_CHARS < lineText.length ? '…' : '');
}
