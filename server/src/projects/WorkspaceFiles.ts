/**
 * The walked file list (workspace-relative POSIX paths from discovery), indexed for the lookups that
 * project evaluation needs: existence, directories, "files under a folder" and glob matching.
 * Globs are answered from this list, never by walking the disk again.
 */
import picomatch from 'picomatch';

export class WorkspaceFiles {
  private readonly sorted: string[];
  private readonly set: Set<string>;
  private dirs: Set<string> | undefined;
  private readonly matchers = new Map<string, (p: string) => boolean>();

  constructor(files: Iterable<string>) {
    this.sorted = [...new Set(files)].sort();
    this.set = new Set(this.sorted);
  }

  get size(): number {
    return this.sorted.length;
  }

  all(): readonly string[] {
    return this.sorted;
  }

  has(rel: string): boolean {
    return this.set.has(rel);
  }

  /** True for a folder that holds at least one listed file ('' is the root). */
  hasDir(rel: string): boolean {
    if (rel === '') return true;
    if (!this.dirs) {
      this.dirs = new Set();
      for (const f of this.sorted) {
        let i = f.lastIndexOf('/');
        while (i > 0) {
          const d = f.slice(0, i);
          if (this.dirs.has(d)) break;
          this.dirs.add(d);
          i = d.lastIndexOf('/');
        }
      }
    }
    return this.dirs.has(rel);
  }

  /** Files under a folder ('' for all), as a slice of the sorted list. */
  under(dirRel: string): readonly string[] {
    if (dirRel === '') return this.sorted;
    const prefix = dirRel.endsWith('/') ? dirRel : dirRel + '/';
    const lo = lowerBound(this.sorted, prefix);
    let hi = lo;
    while (hi < this.sorted.length && this.sorted[hi]!.startsWith(prefix)) hi++;
    return this.sorted.slice(lo, hi);
  }

  /**
   * Files matching an MSBuild-style pattern relative to the workspace root: `*` and `?` within a
   * segment, `**` across segments; no braces, brackets or negation (MSBuild has none).
   */
  glob(patternRel: string): string[] {
    const segs = patternRel.split('/');
    let i = 0;
    while (i < segs.length - 1 && !hasWildcard(segs[i]!)) i++;
    if (!hasWildcard(segs[i]!)) return this.has(patternRel) ? [patternRel] : [];
    const base = segs.slice(0, i).join('/');
    const rest = segs.slice(i).join('/');
    const match = this.matcher(rest);
    const off = base === '' ? 0 : base.length + 1;
    const out: string[] = [];
    for (const f of this.under(base)) if (match(f.slice(off))) out.push(f);
    return out;
  }

  /** A compiled matcher for a workspace-relative or project-relative pattern (cached). */
  matcher(pattern: string): (p: string) => boolean {
    let m = this.matchers.get(pattern);
    if (!m) {
      m = fastMatcher(pattern) ?? picomatch(pattern, { dot: true, nobrace: true, nobracket: true, noextglob: true, nonegate: true });
      this.matchers.set(pattern, m);
    }
    return m;
  }
}

/**
 * String tests for the pattern shapes default globbing uses on every file ("dir/**", "dir/**\/*.ext",
 * "dir/**\/.*\/**", literal paths); undefined for anything else (picomatch handles those).
 */
function fastMatcher(pattern: string): ((p: string) => boolean) | undefined {
  if (!hasWildcard(pattern)) return (p) => p === pattern;
  const i = pattern.indexOf('/**');
  const prefix = pattern.startsWith('**/') ? '' : i > 0 && !hasWildcard(pattern.slice(0, i)) ? pattern.slice(0, i) + '/' : undefined;
  if (prefix === undefined) return undefined;
  const rest = prefix === '' ? pattern : pattern.slice(prefix.length);
  if (rest === '**') return (p) => p.startsWith(prefix);
  if (rest === '**/.*/**') {
    return (p) => p.startsWith(prefix) && p.slice(prefix.length).split('/').slice(0, -1).some((seg) => seg.startsWith('.'));
  }
  const last = /^\*\*\/([^/]+)$/.exec(rest);
  if (last) {
    // "**/<name glob>": any depth under the prefix, the file name matched by a small regex.
    const name = last[1]!;
    const re = new RegExp('^' + name.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]') + '$');
    return (p) => p.startsWith(prefix) && re.test(p.slice(p.lastIndexOf('/') + 1));
  }
  return undefined;
}

export function hasWildcard(s: string): boolean {
  return s.includes('*') || s.includes('?');
}

function lowerBound(a: readonly string[], key: string): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
