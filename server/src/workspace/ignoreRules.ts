/**
 * Ignore rules for the walk: default exclusions (overridable) plus every `.gitignore` on the way
 * down, each applied relative to its own folder, as git does.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';

/** Folder names skipped by default. Users override with `include` (re-admit) or `exclude` (add). */
export const DEFAULT_EXCLUDED_DIRS: readonly string[] = [
  '.git', '.hg', '.svn', '.sextant', 'bin', 'obj', 'node_modules', 'packages', 'artifacts', 'TestResults', '.vs',
  '.vscode-test', 'dist', 'out', 'coverage', '.idea', '__pycache__', '.venv', 'target', '.next', '.nuget',
];

/** Default-excluded names a workspace declaration never re-admits. */
const NEVER_READMITTED = new Set(['.git', '.hg', '.svn', '.sextant', 'node_modules']);

/**
 * Default-excluded folder names that the workspace declares as its own code: a literal path
 * segment of a package pattern in the root package.json `workspaces` (npm/yarn; array or
 * `{ packages }`) or in pnpm-workspace.yaml `packages:` (`packages/*` re-admits `packages`, the
 * usual JS monorepo folder, which is otherwise skipped as a NuGet packages folder). Negated
 * patterns are ignored; `.git`, `node_modules` and the like are never re-admitted.
 */
export function workspaceDeclaredDirs(root: string): string[] {
  const patterns: string[] = [];
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces?: unknown };
    const w = pkg.workspaces;
    const list = Array.isArray(w) ? w : w && typeof w === 'object' && Array.isArray((w as { packages?: unknown }).packages) ? (w as { packages: unknown[] }).packages : [];
    for (const x of list) if (typeof x === 'string') patterns.push(x);
  } catch {
    // no package.json, or not JSON: nothing declared
  }
  try {
    const yaml = fs.readFileSync(path.join(root, 'pnpm-workspace.yaml'), 'utf8');
    let inPackages = false;
    for (const line of yaml.split(/\r?\n/)) {
      if (/^\S/.test(line)) inPackages = /^packages\s*:/.test(line);
      else if (inPackages) {
        const m = /^\s+-\s*(['"]?)(.+?)\1\s*(#.*)?$/.exec(line);
        if (m?.[2]) patterns.push(m[2]);
      }
    }
  } catch {
    // no pnpm-workspace.yaml
  }
  const defaults = new Set(DEFAULT_EXCLUDED_DIRS.map((d) => d.toLowerCase()));
  const out = new Set<string>();
  for (const p of patterns) {
    if (p.startsWith('!')) continue;
    for (const seg of p.replace(/^\.\//, '').split('/')) {
      if (/[*?[\]{}!]/.test(seg)) break;
      const name = seg.toLowerCase();
      if (defaults.has(name) && !NEVER_READMITTED.has(name)) out.add(name);
    }
  }
  return [...out].sort();
}

export interface IgnoreOptions {
  /** Extra gitignore-style patterns to exclude. */
  exclude?: readonly string[];
  /** Default-excluded folder names to re-admit (e.g. 'packages' in a monorepo that uses it for code). */
  include?: readonly string[];
  /** Honour .gitignore files (default true). */
  useGitignore?: boolean;
}

interface Layer {
  base: string; // workspace-relative POSIX folder ('' for the root)
  rules: Ignore;
}

export class IgnoreRules {
  private readonly excludedDirs: Set<string>;
  private readonly extra: Ignore | undefined;
  private readonly layers = new Map<string, Layer>();
  /** Default-excluded names re-admitted because the workspace declares them (workspaceDeclaredDirs). */
  readonly declared: string[];

  constructor(private readonly root: string, private readonly opts: IgnoreOptions = {}) {
    this.declared = workspaceDeclaredDirs(root);
    const include = new Set([...(opts.include ?? []), ...this.declared].map((s) => s.toLowerCase()));
    this.excludedDirs = new Set(DEFAULT_EXCLUDED_DIRS.filter((d) => !include.has(d.toLowerCase())).map((d) => d.toLowerCase()));
    this.extra = opts.exclude && opts.exclude.length > 0 ? ignore().add([...opts.exclude]) : undefined;
  }

  /** Loads `<dir>/.gitignore` if present; call when entering a folder. Returns the text applied. */
  enter(relDir: string): string | undefined {
    if (this.opts.useGitignore === false) return undefined;
    const file = path.join(this.root, relDir, '.gitignore');
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      return undefined;
    }
    this.layers.set(relDir, { base: relDir, rules: ignore().add(text) });
    return text;
  }

  /** True when a folder of this name is excluded by default (not re-admitted). */
  excludesName(name: string): boolean {
    return this.excludedDirs.has(name.toLowerCase());
  }

  /** True when a path (relative POSIX; `isDir` for folders) is excluded. */
  ignores(rel: string, isDir: boolean): boolean {
    const name = rel.slice(rel.lastIndexOf('/') + 1);
    if (isDir && this.excludedDirs.has(name.toLowerCase())) return true;
    const probe = isDir ? rel + '/' : rel;
    if (this.extra?.ignores(probe)) return true;
    if (this.layers.size === 0) return false;
    // Check each .gitignore from the root down to the parent folder.
    let dir = '';
    for (;;) {
      const layer = this.layers.get(dir);
      if (layer) {
        const sub = dir === '' ? probe : probe.slice(dir.length + 1);
        if (sub && layer.rules.ignores(sub)) return true;
      }
      const next = rel.indexOf('/', dir === '' ? 0 : dir.length + 1);
      if (next < 0) break;
      dir = rel.slice(0, next);
    }
    return false;
  }
}
