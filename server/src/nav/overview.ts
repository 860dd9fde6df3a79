/**
 * repo_overview: a compact map of the workspace from the index — file classes, languages, the
 * top-level folders by size, git state and index health. Other layers (projects, syntax) add
 * their sections through `OverviewSection` providers registered on the engine's consumer.
 */
import { FILE_CLASSES, type FileClass } from '../workspace/fileClass';
import type { Engine } from './engine';

export interface Overview {
  root: string;
  files: number;
  byClass: Partial<Record<FileClass, number>>;
  languages: { language: string; files: number; lines: number }[];
  topFolders: { path: string; files: number; sourceFiles: number }[];
  git: { available: boolean; head: string | null; branch: string | null; dirtyFiles: number; reason?: string };
  skippedTooLarge: number;
  lastRefresh: string | null;
}

export function repoOverview(engine: Engine, maxFolders: number): Overview {
  const rows = engine.catalog().all();
  const byClass: Partial<Record<FileClass, number>> = {};
  for (const c of FILE_CLASSES) byClass[c] = 0;
  const langs = new Map<string, { files: number; lines: number }>();
  const folders = new Map<string, { files: number; sourceFiles: number }>();
  for (const r of rows) {
    byClass[r.fileClass] = (byClass[r.fileClass] ?? 0) + 1;
    if (r.language && (r.fileClass === 'source' || r.fileClass === 'test')) {
      const l = langs.get(r.language) ?? { files: 0, lines: 0 };
      l.files++;
      l.lines += r.lines;
      langs.set(r.language, l);
    }
    const slash = r.path.indexOf('/');
    const top = slash < 0 ? '.' : r.path.slice(0, slash);
    const f = folders.get(top) ?? { files: 0, sourceFiles: 0 };
    f.files++;
    if (r.fileClass === 'source' || r.fileClass === 'test') f.sourceFiles++;
    folders.set(top, f);
  }
  for (const c of FILE_CLASSES) if (byClass[c] === 0) delete byClass[c];
  const git: Overview['git'] = {
    available: engine.git.available,
    head: engine.git.head ?? null,
    branch: engine.git.branch ?? null,
    dirtyFiles: engine.git.dirtyFiles.length,
  };
  if (engine.git.reason) git.reason = engine.git.reason;
  return {
    root: engine.root,
    files: rows.length,
    byClass,
    languages: [...langs.entries()].map(([language, v]) => ({ language, ...v })).sort((a, b) => b.lines - a.lines),
    topFolders: [...folders.entries()]
      .map(([p, v]) => ({ path: p, ...v }))
      .sort((a, b) => b.sourceFiles - a.sourceFiles || b.files - a.files)
      .slice(0, maxFolders),
    git,
    skippedTooLarge: Number(engine.store.getMeta('skipped_too_large') ?? '0'),
    lastRefresh: engine.store.getMeta('last_refresh') ?? null,
  };
}
