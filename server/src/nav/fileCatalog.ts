/**
 * The in-memory list of indexed files (path, class, language, size, mtime, hash), reloaded from the
 * index lazily after a batch commits. find_file, ranking and freshness checks read it.
 */
import { CLASS_RANK, type FileClass } from '../workspace/fileClass';
import type { SqlValue } from 'sql.js';
import type { IndexStore } from '../index/store';

export interface FileRow {
  id: number;
  path: string;
  lowerPath: string;
  lowerName: string;
  fileClass: FileClass;
  language: string | undefined;
  size: number;
  mtimeMs: number;
  hash: string;
  lines: number;
  binary: boolean;
}

export class FileCatalog {
  private rows: FileRow[] = [];
  private byId = new Map<number, FileRow>();
  private byPath = new Map<string, FileRow>();

  load(store: IndexStore): void {
    const rows = store.rows('SELECT id, path, class, language, size, mtime_ms, hash, lines, binary FROM files');
    this.rows = rows.map((r) => {
      const p = r[1] as string;
      const slash = p.lastIndexOf('/');
      return {
        id: r[0] as number,
        path: p,
        lowerPath: p.toLowerCase(),
        lowerName: p.slice(slash + 1).toLowerCase(),
        fileClass: r[2] as FileClass,
        language: (r[3] as string | null) ?? undefined,
        size: r[4] as number,
        mtimeMs: r[5] as number,
        hash: r[6] as string,
        lines: r[7] as number,
        binary: r[8] === 1,
      };
    });
    this.rows.sort((a, b) => CLASS_RANK[a.fileClass] - CLASS_RANK[b.fileClass] || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    this.byId = new Map(this.rows.map((r) => [r.id, r]));
    this.byPath = new Map(this.rows.map((r) => [r.path, r]));
  }

  /**
   * Re-reads the rows of these paths (files changed in place: same path set). False when the
   * patch cannot keep the ranked order (a path is new or gone, or its class changed): load instead.
   */
  patch(store: IndexStore, paths: readonly string[]): boolean {
    if (paths.length === 0) return true;
    const found = new Map<string, SqlValue[]>();
    for (let i = 0; i < paths.length; i += 500) {
      const chunk = paths.slice(i, i + 500);
      for (const r of store.rows(`SELECT id, path, class, language, size, mtime_ms, hash, lines, binary FROM files WHERE path IN (${chunk.map(() => '?').join(',')})`, chunk)) found.set(r[1] as string, r);
    }
    for (const p of paths) {
      const old = this.byPath.get(p);
      const r = found.get(p);
      if (!old || !r || r[0] !== old.id || r[2] !== old.fileClass) return false;
    }
    for (const p of paths) {
      const old = this.byPath.get(p)!;
      const r = found.get(p)!;
      // Rows are shared with the maps and the ranked array: update in place.
      Object.assign(old, { language: (r[3] as string | null) ?? undefined, size: r[4] as number, mtimeMs: r[5] as number, hash: r[6] as string, lines: r[7] as number, binary: r[8] === 1 });
    }
    return true;
  }

  /** All rows, ranked: class (source first), then path. */
  all(): readonly FileRow[] {
    return this.rows;
  }

  get(id: number): FileRow | undefined {
    return this.byId.get(id);
  }

  byRelPath(p: string): FileRow | undefined {
    return this.byPath.get(p);
  }

  get size(): number {
    return this.rows.length;
  }
}
