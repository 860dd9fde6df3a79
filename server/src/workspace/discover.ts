/**
 * Workspace discovery: a deterministic walk that honours .gitignore files and the default
 * exclusions, never follows symbolic links out of the root (linked folders are not entered at all),
 * and skips files over the size cap (counted, not silent).
 *
 * A warm start walks the same tree again: `known` (the paths the last walk admitted, and the
 * stamp of the ignore rules it used) lets a path seen before skip the ignore-rule test. The stamp
 * covers the options and every .gitignore read on the way; if it differs at the end of the walk
 * (a .gitignore changed), the walk is done again without the shortcut. Every file is still
 * listed and stat'ed: a changed file is always seen.
 */
import * as crypto from 'node:crypto';
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
  readonly fileClass: FileClass;
  readonly language: string | undefined;
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
  /** Stamp of the ignore rules this walk applied (options and .gitignore contents); see `known`. */
  rulesStamp: string;
}

export interface DiscoveryOptions extends IgnoreOptions {
  maxFileBytes?: number;
  maxFiles?: number;
}

/** Paths an earlier walk admitted under the ignore rules with stamp `rulesStamp`. */
export interface KnownPaths {
  paths: ReadonlySet<string> | ReadonlyMap<string, unknown>;
  rulesStamp: string;
}

/** A listed file; class and language are worked out from the path when asked (most never are). */
class Found implements DiscoveredFile {
  linkTarget?: string;
  constructor(
    readonly path: string,
    readonly size: number,
    readonly mtimeMs: number,
  ) {}
  get fileClass(): FileClass {
    return classify(this.path);
  }
  get language(): string | undefined {
    return languageOf(this.path);
  }
}

export function discoverWorkspace(root: string, opts: DiscoveryOptions = {}, known?: KnownPaths): DiscoveryResult {
  const started = Date.now();
  const first = walk(root, opts, known);
  if (!known || first.rulesStamp === known.rulesStamp) return { ...first, durationMs: Date.now() - started };
  // A .gitignore (or the options) changed: the shortcut may have admitted a path now ignored.
  return { ...walk(root, opts, undefined), durationMs: Date.now() - started };
}

function walk(root: string, opts: DiscoveryOptions, known: KnownPaths | undefined): DiscoveryResult {
  const started = Date.now();
  const realRoot = fs.realpathSync(root);
  const rules = new IgnoreRules(realRoot, opts);
  const stamp = crypto.createHash('sha1').update(JSON.stringify([opts.exclude ?? [], opts.include ?? [], opts.useGitignore ?? true, rules.declared]));
  const knownPaths = known?.paths;
  const knownDirs = knownPaths ? dirsOf(knownPaths.keys()) : undefined;
  const maxBytes = opts.maxFileBytes ?? MAX_FILE_BYTES;
  const maxFiles = opts.maxFiles ?? MAX_WORKSPACE_FILES;
  const out: DiscoveryResult = { root: realRoot, files: [], skippedTooLarge: [], skippedLinks: 0, skippedUnreadable: 0, truncated: false, durationMs: 0, rulesStamp: '' };

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
      if (entries.some((e) => e.name === '.gitignore')) {
        const text = rules.enter(rel);
        if (text !== undefined) stamp.update(`\0${rel}\0${text}`);
      }
    } catch {
      out.skippedUnreadable++;
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? 1 : a.name > b.name ? -1 : 0)); // reversed: stack pops in order
    const dirs: string[] = [];
    const dirAbs = path.join(realRoot, rel);
    for (const e of entries) {
      const childRel = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) {
        if (knownDirs?.has(childRel) ? !rules.excludesName(e.name) : !rules.ignores(childRel, true)) dirs.push(childRel);
        continue;
      }
      let isFile = e.isFile();
      const abs = dirAbs + path.sep + e.name;
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
      if (!knownPaths?.has(childRel) && rules.ignores(childRel, false)) continue;
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
      const file = new Found(childRel, st.size, Math.floor(st.mtimeMs));
      if (linkTarget) file.linkTarget = linkTarget;
      out.files.push(file);
    }
    if (out.truncated && out.files.length >= maxFiles) break;
    for (let i = dirs.length - 1; i >= 0; i--) stack.push({ rel: dirs[i]!, depth: depth + 1 });
  }
  out.files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  out.durationMs = Date.now() - started;
  out.rulesStamp = stamp.digest('hex');
  return out;
}

/** Every folder that holds one of these paths (at any depth). */
function dirsOf(paths: Iterable<string>): Set<string> {
  const dirs = new Set<string>();
  for (const p of paths) {
    for (let i = p.lastIndexOf('/'); i > 0; i = p.lastIndexOf('/', i - 1)) {
      const d = p.slice(0, i);
      if (dirs.has(d)) break;
      dirs.add(d);
    }
  }
  return dirs;
}
