/**
 * Resolves TS/JS module specifiers the way TypeScript and Node.js would, against the index's file
 * set only (never an existence probe on disk; nothing outside the workspace is looked at):
 *   1. the exact file, and the TypeScript source behind a JS specifier (`./a.js` → `a.ts`,
 *      `.mjs` → `.mts`, `.cjs` → `.cts`, `.jsx` → `.tsx`; a TS importer prefers the source, a JS
 *      importer what Node.js would load);
 *   2. extension probing, then the directory (`package.json` main/types, then `index.*`);
 *   3. tsconfig `paths` (relative to `baseUrl`, else to the config that declares them) and
 *      `baseUrl`, from the nearest tsconfig.json/jsconfig.json (with `extends` inside the workspace);
 *   4. package.json `imports` (`#x`), and workspace packages by name with `exports` (conditions
 *      types, import/require, node, default, in the order the object lists them), else
 *      types/main/module, else index.
 * Bundler query suffixes (`./icon.svg?raw`) and `file:` URLs are handled. A specifier that is a
 * built-in or an outside package is only counted. `outside_workspace` never says where it points:
 * the answer is the same whether or not anything exists there (the path policy decides from the
 * path alone, following in-workspace links).
 */
import * as path from 'node:path';
import { builtinModules } from 'node:module';
import { parse as parseJsonc } from 'jsonc-parser/lib/esm/main';

export type Resolution =
  | { kind: 'file'; path: string }
  | { kind: 'package' }
  | { kind: 'builtin' }
  | { kind: 'unresolved'; reason: 'not_found' | 'invalid' | 'outside_workspace' };

export interface ResolverHost {
  /** True when the index lists this workspace-relative file. */
  has(rel: string): boolean;
  /** Text of an indexed workspace file (package.json, tsconfig), undefined when unreadable. */
  read(rel: string): string | undefined;
  /** True when a workspace-relative path (normalised, possibly not existing) stays inside the workspace canonically. */
  inside(rel: string): boolean;
  /** Absolute canonical workspace root (for `file:` URLs and absolute specifiers). */
  root: string;
}

const BUILTINS = new Set(builtinModules);
const TS_EXT = /\.(ts|tsx|mts|cts)$/;
const JS_TO_TS: Record<string, string[]> = { '.js': ['.ts', '.tsx', '.d.ts'], '.jsx': ['.tsx', '.d.ts'], '.mjs': ['.mts', '.d.mts'], '.cjs': ['.cts', '.d.cts'] };
const PROBE_TS = ['.ts', '.tsx', '.d.ts', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];
const PROBE_JS = ['.js', '.jsx', '.mjs', '.cjs', '.ts', '.tsx', '.d.ts', '.mts', '.cts', '.json'];
const CONDITIONS = new Set(['types', 'import', 'require', 'node', 'default', 'module']);

interface TsConfig {
  paths?: [string, string[]][];
  /** The folder of the config declaring `paths` (their base when no baseUrl is set, own or inherited). */
  pathsDir?: string;
  baseUrl?: string;
}

interface Pkg {
  dir: string;
  json: Record<string, unknown>;
}

export class ModuleResolver {
  private readonly configs = new Map<string, TsConfig | null>();
  private readonly pkgByDir = new Map<string, Pkg | null>();
  private packagesByName: Map<string, Pkg> | undefined;

  constructor(private readonly host: ResolverHost, private readonly allPaths: () => Iterable<string>) {}

  /** Resolves `spec` as written in the file `from` (workspace-relative). */
  resolve(spec: string, from: string): Resolution {
    const s = spec.trim();
    if (s === '' || s.includes('\0')) return { kind: 'unresolved', reason: 'invalid' };
    const ts = TS_EXT.test(from);
    const dir = path.posix.dirname(from) === '.' ? '' : path.posix.dirname(from);
    if (s.startsWith('node:')) return { kind: 'builtin' };
    if (s.startsWith('file:')) {
      let abs: string;
      try {
        abs = decodeURIComponent(new URL(s).pathname);
      } catch {
        return { kind: 'unresolved', reason: 'invalid' };
      }
      return this.absolute(abs, ts);
    }
    if (/^[a-z][a-z0-9+.-]*:/i.test(s)) return /^(npm|jsr):/i.test(s) ? { kind: 'package' } : { kind: 'unresolved', reason: 'invalid' };
    if (s.startsWith('/')) return this.absolute(s, ts);
    if (s === '.' || s === '..' || s.startsWith('./') || s.startsWith('../')) return this.relative(dir, s, ts);
    // tsconfig paths come first for every non-relative name (`#x` too), then package.json imports.
    const viaConfig = this.viaTsconfig(dir, s, ts);
    if (viaConfig) return viaConfig;
    if (s.startsWith('#')) return this.subpathImport(dir, s, ts);
    const [name, sub] = splitPackage(s);
    if (!name) return { kind: 'unresolved', reason: 'invalid' };
    const pkg = this.packages().get(name);
    if (pkg) return this.inPackage(pkg, sub, ts);
    if (BUILTINS.has(s) || BUILTINS.has(name)) return { kind: 'builtin' };
    return { kind: 'package' };
  }

  private absolute(abs: string, ts: boolean): Resolution {
    const rel = path.posix.relative(this.host.root.split(path.sep).join('/'), abs);
    if (rel === '..' || rel.startsWith('../') || path.posix.isAbsolute(rel)) return { kind: 'unresolved', reason: 'outside_workspace' };
    return this.relative('', './' + rel, ts);
  }

  private relative(dir: string, s: string, ts: boolean): Resolution {
    const joined = path.posix.normalize(path.posix.join(dir, s));
    const target = joined === '.' ? '' : joined.replace(/\/$/, '');
    if (target === '..' || target.startsWith('../')) return { kind: 'unresolved', reason: 'outside_workspace' };
    const hit = this.probe(target, ts, s.endsWith('/'));
    if (hit) return { kind: 'file', path: hit };
    // A bundler query or hash suffix (`./icon.svg?raw`) on a specifier that does not resolve as written.
    const q = target.search(/[?#]/);
    if (q > 0) {
      const bare = this.probe(target.slice(0, q), ts, false);
      if (bare) return { kind: 'file', path: bare };
    }
    return { kind: 'unresolved', reason: target === '' || this.host.inside(target) ? 'not_found' : 'outside_workspace' };
  }

  /**
   * A path through `node_modules/<name>/` where `<name>` is a workspace package is that package's
   * folder (what a workspace install links there); node_modules itself is never indexed.
   */
  private throughLink(p: string): string {
    const at = p.lastIndexOf('node_modules/');
    if (at < 0 || (at > 0 && p[at - 1] !== '/')) return p;
    const rest = p.slice(at + 'node_modules/'.length);
    const [name, sub] = splitPackage(rest);
    const pkg = name ? this.packages().get(name) : undefined;
    if (!pkg) return p;
    return sub ? (pkg.dir === '' ? sub : `${pkg.dir}/${sub}`) : pkg.dir;
  }

  /** The file a path names: exact / TS source behind JS / probed extensions / the folder's entry. */
  probe(p: string, ts: boolean, dirOnly: boolean): string | undefined {
    p = this.throughLink(p);
    if (!dirOnly && p !== '') {
      const ext = path.posix.extname(p);
      const swaps = JS_TO_TS[ext];
      const base = swaps ? p.slice(0, -ext.length) : p;
      if (swaps && ts) for (const e of swaps) if (this.host.has(base + e)) return base + e;
      if (this.host.has(p)) return p;
      if (swaps && !ts) for (const e of swaps) if (this.host.has(base + e)) return base + e;
      for (const e of ts ? PROBE_TS : PROBE_JS) if (this.host.has(p + e)) return p + e;
    }
    const prefix = p === '' ? '' : p + '/';
    const pkg = this.host.has(prefix + 'package.json') ? this.pkgAt(p) : undefined;
    if (pkg) {
      const entry = this.entryOf(pkg, ts);
      if (entry) return entry;
    }
    for (const e of ts ? PROBE_TS : PROBE_JS) if (this.host.has(prefix + 'index' + e)) return prefix + 'index' + e;
    return undefined;
  }

  private entryOf(pkg: Pkg, ts: boolean): string | undefined {
    const fields = ts ? ['types', 'typings', 'main', 'module'] : ['main', 'module', 'types'];
    for (const f of fields) {
      const v = pkg.json[f];
      if (typeof v !== 'string' || v === '') continue;
      const t = path.posix.normalize(path.posix.join(pkg.dir, v));
      if (t.startsWith('..')) continue;
      const hit = this.probeFile(t, ts);
      if (hit) return hit;
    }
    return undefined;
  }

  private probeFile(p: string, ts: boolean): string | undefined {
    p = this.throughLink(p);
    const ext = path.posix.extname(p);
    const swaps = JS_TO_TS[ext];
    const base = swaps ? p.slice(0, -ext.length) : p;
    if (swaps && ts) for (const e of swaps) if (this.host.has(base + e)) return base + e;
    if (this.host.has(p)) return p;
    if (swaps && !ts) for (const e of swaps) if (this.host.has(base + e)) return base + e;
    if (!ext || !swaps) return this.probe(p, ts, false);
    return undefined;
  }

  private viaTsconfig(dir: string, s: string, ts: boolean): Resolution | undefined {
    const cfg = this.configFor(dir);
    if (!cfg) return undefined;
    for (const [pattern, targets] of cfg.paths ?? []) {
      const star = matchPattern(pattern, s);
      if (star === undefined) continue;
      for (const t of targets) {
        const rel = path.posix.normalize(path.posix.join(cfg.baseUrl ?? cfg.pathsDir ?? '', t.replace('*', star)));
        if (rel === '..' || rel.startsWith('../')) return { kind: 'unresolved', reason: 'outside_workspace' };
        const hit = this.probeFile(rel === '.' ? '' : rel, ts);
        if (hit) return { kind: 'file', path: hit };
      }
      break; // the longest matching pattern decides; an unmatched target falls through to packages
    }
    if (cfg.baseUrl !== undefined) {
      const rel = path.posix.normalize(path.posix.join(cfg.baseUrl, s));
      if (!rel.startsWith('..')) {
        const hit = this.probeFile(rel, ts);
        if (hit) return { kind: 'file', path: hit };
      }
    }
    return undefined;
  }

  private subpathImport(dir: string, s: string, ts: boolean): Resolution {
    for (let d: string | undefined = dir; d !== undefined; d = parentOf(d)) {
      const pkg = this.host.has(d === '' ? 'package.json' : d + '/package.json') ? this.pkgAt(d) : undefined;
      if (!pkg) continue;
      const imports = pkg.json.imports;
      if (!imports || typeof imports !== 'object') return { kind: 'unresolved', reason: 'not_found' };
      const targets = mapSubpath(imports as Record<string, unknown>, s);
      const first = targets[0];
      if (first === undefined) return { kind: 'unresolved', reason: 'not_found' };
      if (!first.startsWith('./')) return this.resolve(first, pkg.dir === '' ? 'package.json' : pkg.dir + '/package.json');
      return this.packageTargets(pkg, targets, ts);
    }
    return { kind: 'unresolved', reason: 'not_found' };
  }

  private inPackage(pkg: Pkg, sub: string, ts: boolean): Resolution {
    const exp = pkg.json.exports;
    if (exp !== undefined && exp !== null) {
      const map = typeof exp === 'string' || Array.isArray(exp) || !Object.keys(exp as object).some((k) => k.startsWith('.')) ? { '.': exp } : (exp as Record<string, unknown>);
      const targets = mapSubpath(map, sub === '' ? '.' : './' + sub);
      if (targets.length === 0) return { kind: 'unresolved', reason: 'not_found' };
      return this.packageTargets(pkg, targets, ts);
    }
    if (sub === '') {
      const entry = this.probe(pkg.dir, ts, true);
      return entry ? { kind: 'file', path: entry } : { kind: 'unresolved', reason: 'not_found' };
    }
    const hit = this.probeFile(path.posix.join(pkg.dir, sub), ts);
    return hit ? { kind: 'file', path: hit } : { kind: 'unresolved', reason: 'not_found' };
  }

  /** The first target (of the conditions as listed) that is a workspace file. */
  private packageTargets(pkg: Pkg, targets: string[], ts: boolean): Resolution {
    let outside = false;
    for (const target of targets) {
      if (!target.startsWith('./')) continue; // exports targets are package-relative
      const rel = path.posix.normalize(path.posix.join(pkg.dir, target));
      if (rel === '..' || rel.startsWith('../') || !this.host.inside(rel)) {
        outside = true;
        continue;
      }
      const hit = this.probeFile(rel, ts);
      if (hit) return { kind: 'file', path: hit };
    }
    return { kind: 'unresolved', reason: outside ? 'outside_workspace' : 'not_found' };
  }

  /** Workspace packages by name (every package.json outside node_modules with a name). */
  private packages(): Map<string, Pkg> {
    if (!this.packagesByName) {
      this.packagesByName = new Map();
      for (const p of this.allPaths()) {
        if (!(p === 'package.json' || p.endsWith('/package.json')) || p.split('/').includes('node_modules')) continue;
        const pkg = this.pkgAt(p === 'package.json' ? '' : p.slice(0, -'/package.json'.length));
        const name = pkg?.json.name;
        if (pkg && typeof name === 'string' && !this.packagesByName.has(name)) this.packagesByName.set(name, pkg);
      }
    }
    return this.packagesByName;
  }

  private pkgAt(dir: string): Pkg | undefined {
    let p = this.pkgByDir.get(dir);
    if (p === undefined) {
      const json = readJson(this.host, dir === '' ? 'package.json' : dir + '/package.json');
      p = json ? { dir, json } : null;
      this.pkgByDir.set(dir, p);
    }
    return p ?? undefined;
  }

  /** The nearest tsconfig.json / jsconfig.json at or above `dir` (compilerOptions after `extends`). */
  private configFor(dir: string): TsConfig | undefined {
    const cached = this.configs.get(dir);
    if (cached !== undefined) return cached ?? undefined;
    let found: TsConfig | null = null;
    const prefix = dir === '' ? '' : dir + '/';
    const file = ['tsconfig.json', 'jsconfig.json'].map((n) => prefix + n).find((f) => this.host.has(f));
    if (file) found = this.readConfig(file, 0) ?? {};
    else if (dir !== '') found = this.configFor(parentOf(dir) ?? '') ?? null;
    this.configs.set(dir, found);
    return found ?? undefined;
  }

  /** `extends: "<package>[/sub]"` of a workspace package: the sub path, its `tsconfig` field, else tsconfig.json. */
  private packageConfig(spec: string): string | undefined {
    const [name, sub] = splitPackage(spec);
    const pkg = name ? this.packages().get(name) : undefined;
    if (!pkg) return undefined;
    const at = (f: string) => (pkg.dir === '' ? f : `${pkg.dir}/${f}`);
    if (sub) return at(sub.endsWith('.json') ? sub : sub + '.json');
    const field = pkg.json.tsconfig;
    return at(typeof field === 'string' ? path.posix.normalize(field) : 'tsconfig.json');
  }

  private readConfig(file: string, hops: number): TsConfig | undefined {
    const json = readJson(this.host, file);
    if (!json || hops > 8) return undefined;
    const dir = path.posix.dirname(file) === '.' ? '' : path.posix.dirname(file);
    let base: TsConfig = {};
    const ext = json.extends;
    for (const e of (Array.isArray(ext) ? ext : ext === undefined ? [] : [ext]).filter((x): x is string => typeof x === 'string')) {
      let rel: string | undefined;
      if (e.startsWith('.') || e.startsWith('/')) {
        rel = path.posix.normalize(path.posix.join(dir, e));
        if (!rel.endsWith('.json')) rel += '.json';
      } else rel = this.packageConfig(e); // a workspace package's config; an outside package's is not indexed
      if (!rel || rel.startsWith('..') || !this.host.has(rel)) continue;
      base = { ...base, ...this.readConfig(rel, hops + 1) };
    }
    const co = (json.compilerOptions ?? {}) as Record<string, unknown>;
    const out: TsConfig = { ...base };
    if (typeof co.baseUrl === 'string') {
      out.baseUrl = path.posix.normalize(path.posix.join(dir, co.baseUrl));
      if (out.baseUrl === '.') out.baseUrl = '';
    }
    if (co.paths && typeof co.paths === 'object') {
      const entries = Object.entries(co.paths as Record<string, unknown>)
        .filter((e): e is [string, string[]] => Array.isArray(e[1]))
        .map(([k, v]) => [k, v.filter((t) => typeof t === 'string')] as [string, string[]]);
      // Longest prefix before the star first (TypeScript's pattern choice).
      entries.sort((a, b) => prefixLen(b[0]) - prefixLen(a[0]));
      out.paths = entries;
      out.pathsDir = dir;
    }
    return out;
  }
}

function prefixLen(pattern: string): number {
  const i = pattern.indexOf('*');
  return i < 0 ? pattern.length + 1 : i;
}

/** The star's text when `pattern` (one `*` at most) matches `s`. */
function matchPattern(pattern: string, s: string): string | undefined {
  const i = pattern.indexOf('*');
  if (i < 0) return pattern === s ? '' : undefined;
  const pre = pattern.slice(0, i);
  const post = pattern.slice(i + 1);
  if (s.length < pre.length + post.length || !s.startsWith(pre) || !s.endsWith(post)) return undefined;
  return s.slice(pre.length, s.length - post.length);
}

/** The targets of an exports / imports map entry for `key`: exact key, else the longest `*` pattern or folder key. */
function mapSubpath(map: Record<string, unknown>, key: string): string[] {
  if (key in map) return targetsOf(map[key], '');
  let best: { star: string; value: unknown; len: number } | undefined;
  for (const [k, v] of Object.entries(map)) {
    const at = k.indexOf('*');
    if (at >= 0) {
      const star = matchPattern(k, key);
      if (star !== undefined && (!best || at > best.len)) best = { star, value: v, len: at };
    } else if (k.endsWith('/') && key.startsWith(k) && (!best || k.length > best.len)) {
      best = { star: key.slice(k.length), value: v, len: k.length };
    }
  }
  if (!best) return [];
  const b = best;
  return targetsOf(b.value, b.star.includes('*') ? '' : b.star).map((t) => (t.endsWith('/') ? t + b.star : t));
}

/** The targets in order: a string, each usable entry of an array, each accepted condition as listed. */
function targetsOf(v: unknown, star: string): string[] {
  if (typeof v === 'string') return [v.split('*').join(star)];
  if (Array.isArray(v)) return v.flatMap((x) => targetsOf(x, star));
  if (v && typeof v === 'object') return Object.entries(v as Record<string, unknown>).flatMap(([k, x]) => (CONDITIONS.has(k) ? targetsOf(x, star) : []));
  return [];
}

function splitPackage(s: string): [string, string] {
  const parts = s.split('/');
  if (s.startsWith('@')) {
    if (parts.length < 2 || !parts[1]) return ['', ''];
    return [`${parts[0]}/${parts[1]}`, parts.slice(2).join('/')];
  }
  return [parts[0] ?? '', parts.slice(1).join('/')];
}

function parentOf(dir: string): string | undefined {
  if (dir === '') return undefined;
  const d = path.posix.dirname(dir);
  return d === '.' ? '' : d;
}

function readJson(host: ResolverHost, rel: string): Record<string, unknown> | undefined {
  const text = host.read(rel);
  if (text === undefined) return undefined;
  try {
    const v = parseJsonc(text.replace(/^\uFEFF/, ''), [], { allowTrailingComma: true }) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
