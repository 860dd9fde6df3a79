/**
 * find_file: a name, a partial path or a glob → ranked files.
 * Ranking: exact name > name prefix > name substring > path substring (glob matches rank as
 * exact), then handwritten source > tests > config/build > generated/vendor, then shorter path.
 */
import picomatch from 'picomatch';
import { ToolError } from '../core/errors';
import { CLASS_RANK, type FileClass } from '../workspace/fileClass';
import type { Engine } from './engine';
import type { FileRow } from './fileCatalog';

export interface FileQuery {
  query: string;
  classes?: readonly FileClass[] | undefined;
  languages?: readonly string[] | undefined;
  /** Only these paths (e.g. the files of a project). */
  paths?: ReadonlySet<string> | undefined;
  offset: number;
  limit: number;
}

export type FileMatchKind = 'exact_name' | 'name_prefix' | 'name_contains' | 'path_contains' | 'glob';

export interface FileHit {
  path: string;
  fileClass: FileClass;
  language: string | undefined;
  lines: number;
  size: number;
  match: FileMatchKind;
}

const MATCH_RANK: Record<FileMatchKind, number> = { exact_name: 0, glob: 0, name_prefix: 1, name_contains: 2, path_contains: 3 };

export function findFiles(engine: Engine, q: FileQuery): { hits: FileHit[]; total: number } {
  const query = q.query.trim().replace(/\\/g, '/');
  if (!query) throw new ToolError('INVALID_ARGUMENT', 'The query is empty', 'pass a file name, part of a path, or a glob such as **/*Controller.cs');
  const isGlob = /[*?[\]{}]/.test(query);
  const classSet = q.classes?.length ? new Set(q.classes) : undefined;
  const langSet = q.languages?.length ? new Set(q.languages) : undefined;
  let globMatch: ((p: string) => boolean) | undefined;
  if (isGlob) {
    try {
      const pattern = query.includes('/') ? query : `**/${query}`;
      globMatch = picomatch(pattern, { dot: true, nocase: true });
    } catch (e) {
      throw new ToolError('INVALID_QUERY', `The glob does not compile: ${(e as Error).message}`, 'use a simpler glob such as **/*.csproj');
    }
  }
  const lower = query.toLowerCase();
  const hasSlash = lower.includes('/');
  const scored: { row: FileRow; kind: FileMatchKind }[] = [];
  for (const row of engine.catalog().all()) {
    if (classSet && !classSet.has(row.fileClass)) continue;
    if (langSet && !langSet.has(row.language ?? '')) continue;
    if (q.paths && !q.paths.has(row.path)) continue;
    let kind: FileMatchKind | undefined;
    if (globMatch) {
      if (globMatch(row.path)) kind = 'glob';
    } else if (!hasSlash) {
      if (row.lowerName === lower) kind = 'exact_name';
      else if (row.lowerName.startsWith(lower)) kind = 'name_prefix';
      else if (row.lowerName.includes(lower)) kind = 'name_contains';
      else if (row.lowerPath.includes(lower)) kind = 'path_contains';
    } else if (row.lowerPath === lower || row.lowerPath.endsWith('/' + lower)) kind = 'exact_name';
    else if (row.lowerPath.includes(lower)) kind = 'path_contains';
    if (kind) scored.push({ row, kind });
  }
  scored.sort(
    (a, b) =>
      MATCH_RANK[a.kind] - MATCH_RANK[b.kind] ||
      CLASS_RANK[a.row.fileClass] - CLASS_RANK[b.row.fileClass] ||
      a.row.path.length - b.row.path.length ||
      (a.row.path < b.row.path ? -1 : 1),
  );
  return {
    total: scored.length,
    hits: scored.slice(q.offset, q.offset + q.limit).map(({ row, kind }) => ({ path: row.path, fileClass: row.fileClass, language: row.language, lines: row.lines, size: row.size, match: kind })),
  };
}
