/** What the text index says mentions a name: the files, and the projects owning them (cached per index version). */
import { matchFiles } from '../index/textIndex';
import type { ProjectGraph } from '../projects/ProjectGraph';
import type { Engine } from './engine';

export class TextMentions {
  private cache: { version: string; byName: Map<string, Set<string> | undefined> } = { version: '', byName: new Map() };

  constructor(private readonly engine: Engine) {}

  /** Files whose text the index says mentions `name` as a token (undefined: cannot tell). */
  filesMentioning(name: string): ReadonlySet<string> | undefined {
    const token = name.toLowerCase();
    if (!/^\w+$/.test(token)) return undefined;
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
    return out;
  }

  /** Projects with a file the text index says mentions `name` (whole token); cached per index version. */
  projectsMentioning(g: ProjectGraph, name: string): Set<string> | undefined {
    const version = this.engine.version;
    if (this.cache.version !== version) this.cache = { version, byName: new Map() };
    if (!this.cache.byName.has(name)) this.cache.byName.set(name, this.readProjectsMentioning(g, name));
    return this.cache.byName.get(name);
  }

  private readProjectsMentioning(g: ProjectGraph, name: string): Set<string> | undefined {
    const files = this.filesMentioning(name.replace(/"/g, ''));
    if (!files) return undefined;
    const out = new Set<string>();
    for (const p of files) for (const e of g.files.get(p) ?? []) out.add(e.project);
    return out;
  }
}
