/**
 * Workspace discovery: a deterministic walk that honours .gitignore files and the default
 * exclusions, never follows symbolic links out of the root (linked folders are not entered at all),
 * and skips files over the size cap (counted, not silent).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { MAX_FILE_BYTES, MAX_WALK_DEPTH, MAX_WORKSPACE_FILES } from '../core/limits';
import { classify, languageOf, type FileClass } from './fileClass';
import { IgnoreRules, type IgnoreOptions } from './ignoreRules';

export interface DiscoveredFile {
  /** Workspace-relative POSIX path. */
  path: string;
  size: number;
  mtimeMs: number;
  /** Class from the path; the indexer refines `generated` from the file's first bytes. */
  fileClass: FileClass;
  language: string | undefined;
  /** For an in-root symbolic link: the canonical path of its target (reads use it). */
  linkTarget?: string;
}

export interface DiscoveryResult {
  /** Canonical absolute root. */
  root: string;
  files: DiscoveredFile[];
  skippedTooLarge: string[];
  skippedLinks: number;
  skippedUnreadable: number;
  /** True when MAX_WORKSPACE_FILES or MAX_WALK_DEPTH stopped the walk. */
  truncated: boolean;
  durationMs: number;
}

export interface DiscoveryOptions extends IgnoreOptions {
  maxFileBytes?: number;
  maxFiles?: number;
}

export function discoverWorkspace(root: string, opts: DiscoveryOptions = {}): DiscoveryResult {
  const started = Date.now();
  const realRoot = fs.realpathSync(root);
  const rules = new IgnoreRules(realRoot, opts);
  const maxBytes = opts.maxFileBytes ?? MAX_FILE_BYTES;
  const maxFiles = opts.maxFiles ?? MAX_WORKSPACE_FILES;
  const out: DiscoveryResult = { root: realRoot, files: [], skippedTooLarge: [], skippedLinks: 0, skippedUnreadable: 0, truncated: false, durationMs: 0 };

  const stack: { rel: string; depth: number }[] = [{ rel: '', depth: 0 }];
  while (stack.length > 0) {
    const { rel, depth } = stack.pop()!;
    if (depth > MAX_WALK_DEPTH) {
      out.truncated = true;
      continue;
    }
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(path.join(realRoot, rel), { withFileTypes: true });
      // Read a .gitignore only where the listing shows one (a failed open per folder is costly).
      if (entries.some((e) => e.name === '.gitignore')) rules.enter(rel);
    } catch {
      out.skippedUnreadable++;
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)); // reversed: stack pops in order
    const dirs: string[] = [];
    for (const e of entries) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (!rules.ignores(childRel, true)) dirs.push(childRel);
        continue;
      }
      let isFile = e.isFile();
      const abs = path.join(realRoot, childRel);
      let linkTarget: string | undefined;
      if (e.isSymbolicLink()) {
        // A linked file is admitted only when its target is a regular file inside the root.
        // Linked folders are never entered (no cycles, no escape).
        let target: string;
        try {
          target = fs.realpathSync(abs);
        } catch {
          out.skippedLinks++;
          continue;
        }
        const back = path.relative(realRoot, target);
        if (back.startsWith('..') || path.isAbsolute(back)) {
          out.skippedLinks++;
          continue;
        }
        try {
          isFile = fs.statSync(target).isFile();
        } catch {
          isFile = false;
        }
        if (!isFile) {
          out.skippedLinks++;
          continue;
        }
        linkTarget = target;
      }
      if (!isFile) continue;
      if (rules.ignores(childRel, false)) continue;
      let st: fs.Stats;
      try {
        st = fs.statSync(abs);
      } catch {
        out.skippedUnreadable++;
        continue;
      }
      if (st.size > maxBytes) {
        out.skippedTooLarge.push(childRel);
        continue;
      }
      if (out.files.length >= maxFiles) {
        out.truncated = true;
        break;
      }
      const file: DiscoveredFile = { path: childRel, size: st.size, mtimeMs: Math.floor(st.mtimeMs), fileClass: classify(childRel), language: languageOf(childRel) };
      if (linkTarget) file.linkTarget = linkTarget;
      out.files.push(file);
    }
    if (out.truncated && out.files.length >= maxFiles) break;
    for (let i = dirs.length - 1; i >= 0; i--) stack.push({ rel: dirs[i]!, depth: depth + 1 });
  }
  out.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  out.durationMs = Date.now() - started;
  return out;
}
