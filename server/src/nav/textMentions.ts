/**
 * What the text index says mentions a name: the files, and the projects owning them. Both are kept
 * per index version (at most TEXT_MENTIONS_KEPT_FILES paths over all names): a wide question asks
 * the same name several times, and a name the whole tree mentions is tens of thousands of files.
 */
import { TEXT_MENTIONS_KEPT_FILES } from '../core/limits';
import { matchFiles } from '../index/textIndex';
import type { ProjectGraph } from '../projects/ProjectGraph';
import type { Engine } from './engine';

interface Kept {
  version: string;
  files: Map<string, Set<string> | undefined>;
  projects: Map<string, Set<string> | undefined>;
  /** Paths held by `files` and `projects` together. */
  size: number;
}

export class TextMentions {
  private kept: Kept = { version: '', files: new Map(), projects: new Map(), size: 0 };

  constructor(private readonly engine: Engine) {}

  /** Files whose text the index says mentions `name` as a token (undefined: cannot tell). */
  filesMentioning(name: string): ReadonlySet<string> | undefined {
    const token = name.toLowerCase();
    if (!/^\w+$/.test(token)) return undefined;
    const k = this.current();
    if (k.files.has(token)) return k.files.get(token);
    let ids: number[];
    try {
      ids = matchFiles(this.engine.store, `"${token}"`);
    } catch {
      return undefined;
    }
    const catalog = this.engine.catalog();
    const out = new Set<string>();
    for (const id of ids) {
      const p = catalog.get(id)?.path;
      if (p) out.add(p);
    }
    this.keep(k, k.files, token, out);
    return out;
  }

  /** Projects with a file the text index says mentions `name` (whole token). */
  projectsMentioning(g: ProjectGraph, name: string): Set<string> | undefined {
    const k = this.current();
    if (k.projects.has(name)) return k.projects.get(name);
    const files = this.filesMentioning(name.replace(/"/g, ''));
    let out: Set<string> | undefined;
    if (files) {
      out = new Set<string>();
      for (const p of files) for (const e of g.files.get(p) ?? []) out.add(e.project);
    }
    this.keep(k, k.projects, name, out);
    return out;
  }

  private current(): Kept {
    const version = this.engine.version;
    if (this.kept.version !== version) this.kept = { version, files: new Map(), projects: new Map(), size: 0 };
    return this.kept;
  }

  /** Kept while the paths of every kept name fit TEXT_MENTIONS_KEPT_FILES (the oldest names go first). */
  private keep(k: Kept, map: Map<string, Set<string> | undefined>, key: string, value: Set<string> | undefined): void {
    const n = value?.size ?? 0;
    if (n > TEXT_MENTIONS_KEPT_FILES) return;
    for (const m of [k.files, k.projects]) {
      for (const [key0, v] of m) {
        if (k.size + n <= TEXT_MENTIONS_KEPT_FILES) break;
        m.delete(key0);
        k.size -= v?.size ?? 0;
      }
    }
    map.set(key, value);
    k.size += n;
  }
}
