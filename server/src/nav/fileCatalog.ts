/**
 * The in-memory list of indexed files (path, class, language, size, mtime, hash), reloaded from the
 * index lazily after a batch commits. find_file, ranking and freshness checks read it.
 */
import { CLASS_RANK, type FileClass } from '../workspace/fileClass';
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
