/**
 * MSBuild property expansion: `$(Name)`, `$(Name.Method(...))`, `$([Type]::Method(...))` and, in item
 * context, `@(Type)`. Only what this file implements is evaluated; anything else raises
 * `Unevaluable`, which the evaluator catches at the element it came from and turns into a `partial`
 * reason. Values that come from something unknown carry a taint (`unknown`) instead of a guess.
 */
import * as path from 'node:path';
import type { WorkspaceFiles } from '../WorkspaceFiles';
import { compileBoundedRegex } from '../../core/regex';

/** Raised for expressions this evaluator does not model; caught at the element boundary. */
export class Unevaluable extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'Unevaluable';
  }
}

export interface PropertyValue {
  value: string;
  /** Set when the value depends on something not evaluated (the reason). */
  unknown?: string;
}

/** What expansion needs from the evaluator. */
export interface ExpansionHost {
  /** Canonical POSIX absolute workspace root. */
  readonly root: string;
  readonly files: WorkspaceFiles;
  /** Directory of the project (the evaluation's current directory), POSIX absolute. */
  readonly projectDir: string;
  /** Directory of the file holding the expression being expanded (for GetPathOfFileAbove). */
  readonly thisFileDir: string;
  lookup(name: string): PropertyValue | undefined;
  /** Items by type, only in the item pass (property values keep `@(...)` literally). */
  items?(type: string): ItemView[] | undefined;
}

/** What an item reference sees of an item. */
export interface ItemView {
  spec: string;
  /** Normalised absolute path of the spec (relative to the project folder). */
  abs: string;
  metadata: Map<string, string>;
}

/** A mutable record of taint collected while expanding one string. */
export interface Taint {
  unknown?: string;
}

/** A root every toolset path (MSBuildExtensionsPath, MSBuildToolsPath, ...) is placed under. */
export const TOOLSET_ROOT = '/@msbuild-toolset';

type Value = string | boolean | number | string[];

/** Nesting of expansions in progress (property functions inside arguments inside …). */
let nesting = 0;
/** Deeper nesting than this is refused: real projects nest a few levels; hostile ones would cost quadratic time. */
const MAX_EXPANSION_NESTING = 32;

/** Expands every `$(...)` (and `@(...)` when the host has items) in `s`. */
export function expand(s: string, host: ExpansionHost, taint: Taint): string {
  if (!s.includes('$(') && !s.includes('@(') && !s.includes('%(')) return s;
  if (nesting >= MAX_EXPANSION_NESTING) throw new Unevaluable(`property functions nest deeper than ${MAX_EXPANSION_NESTING} levels`);
  nesting++;
  try {
    return expandOnce(s, host, taint);
  } finally {
    nesting--;
  }
}

function expandOnce(s: string, host: ExpansionHost, taint: Taint): string {
  let out = '';
  let i = 0;
  while (i < s.length) {
    const c = s[i];
    const next = s[i + 1];
    if ((c === '$' || c === '@' || c === '%') && next === '(') {
      const end = matchParen(s, i + 1);
      if (end < 0) throw new Unevaluable(`unbalanced parentheses in '${clip(s)}'`);
      const inner = s.slice(i + 2, end);
      if (c === '$') out += toText(evalProperty(inner, host, taint));
      else if (c === '@') {
        if (!host.items) out += s.slice(i, end + 1);
        else out += expandItemRef(inner, host, taint);
      } else {
        if (host.items) throw new Unevaluable(`item metadata %(${clip(inner)}) (batching) is not evaluated`);
        out += s.slice(i, end + 1);
      }
      i = end + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Renders a value the way MSBuild does (booleans as True/False, arrays joined with ';'). */
export function toText(v: Value): string {
  if (typeof v === 'boolean') return v ? 'True' : 'False';
  if (typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.join(';');
  return v;
}

/** Index of the ')' matching the '(' at `open`, skipping quoted strings; -1 when unbalanced. */
export function matchParen(s: string, open: number): number {
  let depth = 0;
  let quote: string | undefined;
  for (let i = open; i < s.length; i++) {
    const c = s[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      continue;
    }
    if ((c === "'" || c === '"' || c === '`') && depth >= 2) {
      // Quotes delimit strings only inside a function's argument list.
      quote = c;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/**
 * `@(Type)`, `@(Type, 'sep')`, item functions `->Exists()` / `->Distinct()` / `->DistinctWithCase()` /
 * `->Reverse()`, and transforms `->'template'` using well-known or custom metadata.
 */
function expandItemRef(inner: string, host: ExpansionHost, taint: Taint): string {
  const m = /^\s*([A-Za-z_](?:\w|-(?!>))*)\s*((?:->\s*(?:[A-Za-z]+\(\s*\)|'[^']*')\s*)*)(?:,\s*'([^']*)'\s*)?$/.exec(inner);
  if (!m) throw new Unevaluable(`item expression @(${clip(inner)}) is not evaluated`);
  let items = host.items!(m[1]!) ?? [];
  let values: string[] | undefined;
  for (const step of m[2]!.matchAll(/->\s*(?:([A-Za-z]+)\(\s*\)|'([^']*)')/g)) {
    if (values) throw new Unevaluable(`chained item transform @(${clip(inner)}) is not evaluated`);
    const fn = step[1]?.toLowerCase();
    if (fn === 'exists') {
      items = items.filter((i) => {
        const rel = relInside(host, i.abs);
        return rel !== undefined && (host.files.has(rel) || host.files.hasDir(rel));
      });
    } else if (fn === 'distinct' || fn === 'distinctwithcase') {
      const seen = new Set<string>();
      items = items.filter((i) => {
        const k = fn === 'distinct' ? i.spec.toLowerCase() : i.spec;
        if (seen.has(k)) return false;
        seen.add(k);
        return true;
      });
    } else if (fn === 'reverse') items = [...items].reverse();
    else if (fn !== undefined) throw new Unevaluable(`item function ->${step[1]}() is not evaluated`);
    else {
      // Properties in the template expand now; %(metadata) is filled per item.
      const { items: _items, ...propertiesOnly } = host;
      void _items;
      const template = expand(step[2]!, propertiesOnly, taint);
      values = items.map((i) => transformItem(template, i, inner));
    }
  }
  const sep = m[3] !== undefined ? expand(m[3], host, taint) : ';';
  return (values ?? items.map((i) => i.spec)).join(sep);
}

function transformItem(template: string, item: ItemView, inner: string): string {
  return template.replace(/%\(\s*([\w.-]+)\s*\)/g, (_m, name: string) => {
    const base = path.posix.basename(item.abs);
    const ext = path.posix.extname(base);
    switch (name.toLowerCase()) {
      case 'identity':
        return item.spec;
      case 'filename':
        return base.slice(0, base.length - ext.length);
      case 'extension':
        return ext;
      case 'fullpath':
        return item.abs;
      case 'directory':
        return path.posix.dirname(item.abs).replace(/^\//, '') + '/';
      case 'rootdir':
        return '/';
      case 'recursivedir':
        return item.metadata.get('recursivedir') ?? '';
      default: {
        const v = item.metadata.get(name.toLowerCase());
        if (v === undefined && /^(relativedir|modifiedtime|createdtime|accessedtime|definingproject\w*)$/i.test(name)) {
          throw new Unevaluable(`metadata %(${name}) in @(${clip(inner)}) is not evaluated`);
        }
        return v ?? '';
      }
    }
  });
}

// ---- property expressions -------------------------------------------------------------------

class Cursor {
  pos = 0;
  constructor(readonly src: string) {}
  ws(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
  }
  peek(): string | undefined {
    return this.src[this.pos];
  }
  ident(): string {
    const m = /^[A-Za-z_][\w-]*/.exec(this.src.slice(this.pos));
    if (!m) throw new Unevaluable(`unsupported property expression $(${clip(this.src)})`);
    this.pos += m[0].length;
    return m[0];
  }
  done(): boolean {
    return this.pos >= this.src.length;
  }
}

function evalProperty(inner: string, host: ExpansionHost, taint: Taint): Value {
  const simple = /^\s*([A-Za-z_][\w-]*)\s*$/.exec(inner);
  if (simple) return lookupProperty(simple[1]!, host, taint);
  const cur = new Cursor(inner);
  cur.ws();
  let value: Value;
  if (cur.peek() === '[') {
    const close = inner.indexOf(']', cur.pos);
    if (close < 0) throw new Unevaluable(`unsupported property expression $(${clip(inner)})`);
    const type = inner.slice(cur.pos + 1, close).trim();
    cur.pos = close + 1;
    if (inner.slice(cur.pos, cur.pos + 2) !== '::') throw new Unevaluable(`unsupported property expression $(${clip(inner)})`);
    cur.pos += 2;
    const member = cur.ident();
    const args = cur.peek() === '(' ? parseArgs(cur, host, taint) : undefined;
    value = callStatic(type, member, args, host, taint);
  } else {
    const name = cur.ident();
    if (cur.peek() === ':') throw new Unevaluable(`registry or special property $(${clip(inner)}) is not evaluated`);
    value = lookupProperty(name, host, taint);
  }
  for (;;) {
    cur.ws();
    if (cur.done()) return value;
    if (cur.peek() !== '.') throw new Unevaluable(`unsupported property expression $(${clip(inner)})`);
    cur.pos++;
    const member = cur.ident();
    const args = cur.peek() === '(' ? parseArgs(cur, host, taint) : undefined;
    value = callInstance(value, member, args);
  }
}

function lookupProperty(name: string, host: ExpansionHost, taint: Taint): string {
  const v = host.lookup(name);
  if (!v) return '';
  if (v.unknown && !taint.unknown) taint.unknown = v.unknown;
  return v.value;
}

function parseArgs(cur: Cursor, host: ExpansionHost, taint: Taint): string[] {
  const src = cur.src;
  cur.pos++; // '('
  const args: string[] = [];
  cur.ws();
  if (cur.peek() === ')') {
    cur.pos++;
    return args;
  }
  for (;;) {
    cur.ws();
    const c = cur.peek();
    let raw: string;
    if (c === "'" || c === '"' || c === '`') {
      const end = src.indexOf(c, cur.pos + 1);
      if (end < 0) throw new Unevaluable(`unterminated string in $(${clip(src)})`);
      raw = src.slice(cur.pos + 1, end);
      cur.pos = end + 1;
      cur.ws();
    } else {
      let depth = 0;
      const start = cur.pos;
      while (cur.pos < src.length) {
        const ch = src[cur.pos]!;
        if (ch === '(') depth++;
        else if (ch === ')') {
          if (depth === 0) break;
          depth--;
        } else if (ch === ',' && depth === 0) break;
        cur.pos++;
      }
      raw = src.slice(start, cur.pos).trim();
    }
    args.push(expand(raw, host, taint));
    const sep = cur.peek();
    if (sep === ',') {
      cur.pos++;
      continue;
    }
    if (sep === ')') {
      cur.pos++;
      return args;
    }
    throw new Unevaluable(`unsupported property function arguments in $(${clip(src)})`);
  }
}

function arg(args: string[] | undefined, i: number, what: string): string {
  const a = args?.[i];
  if (a === undefined) throw new Unevaluable(`${what} needs ${i + 1} argument(s)`);
  return a;
}

function callInstance(v: Value, member: string, args: string[] | undefined): Value {
  const m = member.toLowerCase();
  if (Array.isArray(v)) {
    if (m === 'length' && !args) return v.length;
    throw new Unevaluable(`array member .${member} is not evaluated`);
  }
  const s = toText(v);
  const a0 = () => arg(args, 0, `.${member}()`);
  switch (m) {
    case 'length':
      return s.length;
    case 'startswith':
      return s.startsWith(a0());
    case 'endswith':
      return s.endsWith(a0());
    case 'contains':
      return s.includes(a0());
    case 'equals':
      return s === a0();
    case 'replace':
      return s.split(a0()).join(arg(args, 1, '.Replace()'));
    case 'tolower':
    case 'tolowerinvariant':
      return s.toLowerCase();
    case 'toupper':
    case 'toupperinvariant':
      return s.toUpperCase();
    case 'trim':
      return args && args.length > 0 ? trimChars(s, args.join(''), true, true) : s.trim();
    case 'trimstart':
      return args && args.length > 0 ? trimChars(s, args.join(''), true, false) : s.trimStart();
    case 'trimend':
      return args && args.length > 0 ? trimChars(s, args.join(''), false, true) : s.trimEnd();
    case 'substring': {
      const start = toInt(a0());
      const len = args && args.length > 1 ? toInt(args[1]!) : undefined;
      if (start > s.length || (len !== undefined && start + len > s.length)) throw new Unevaluable(`.Substring out of range`);
      return len === undefined ? s.slice(start) : s.slice(start, start + len);
    }
    case 'indexof':
      return s.indexOf(a0());
    case 'lastindexof':
      return s.lastIndexOf(a0());
    case 'split':
      return s.split(args && args.length > 0 ? args[0]!.slice(0, 1) || ';' : ' ');
    case 'tostring':
      return s;
    default:
      throw new Unevaluable(`string method .${member}() is not evaluated`);
  }
}

function trimChars(s: string, chars: string, start: boolean, end: boolean): string {
  let a = 0;
  let b = s.length;
  if (start) while (a < b && chars.includes(s[a]!)) a++;
  if (end) while (b > a && chars.includes(s[b - 1]!)) b--;
  return s.slice(a, b);
}

function toInt(s: string): number {
  const n = Number(s.trim());
  if (!Number.isInteger(n)) throw new Unevaluable(`'${clip(s)}' is not an integer`);
  return n;
}

function callStatic(type: string, member: string, args: string[] | undefined, host: ExpansionHost, taint: Taint): Value {
  const t = type.toLowerCase().replace(/^system\./, '');
  const m = member.toLowerCase();
  const a = (i: number) => arg(args, i, `[${type}]::${member}()`);
  const all = () => args ?? [];
  if (t === 'msbuild') {
    switch (m) {
      case 'getdirectorynameoffileabove': {
        const found = fileAbove(host, absPath(host, a(0)), a(1));
        return found === undefined ? '' : path.posix.dirname(found);
      }
      case 'getpathoffileabove': {
        const start = args && args.length > 1 && args[1] !== '' ? absPath(host, args[1]!) : host.thisFileDir;
        return fileAbove(host, start, a(0)) ?? '';
      }
      case 'normalizepath':
        return absPath(host, combine(all()));
      case 'normalizedirectory':
        return withSlash(absPath(host, combine(all())));
      case 'ensuretrailingslash': {
        const s = a(0);
        return s === '' || s.endsWith('/') || s.endsWith('\\') ? s : s + '/';
      }
      case 'makerelative': {
        const base = absPath(host, a(0));
        const target = absPath(host, a(1));
        const rel = path.posix.relative(base.endsWith('/') ? base : path.posix.dirname(base + '/x'), target);
        return a(1).endsWith('/') || a(1).endsWith('\\') ? withSlash(rel) : rel;
      }
      case 'valueordefault':
        return a(0) !== '' ? a(0) : (args?.[1] ?? '');
      case 'gettargetframeworkidentifier':
        return parseTfmOrThrow(a(0)).identifier;
      case 'gettargetframeworkversion': {
        const v = parseTfmOrThrow(a(0)).version;
        return padVersion(v, args && args.length > 1 ? toInt(args[1]!) : Math.max(2, v.split('.').length)).slice(1);
      }
      case 'gettargetplatformidentifier':
        return parseTfmOrThrow(a(0)).platform ?? '';
      case 'gettargetplatformversion': {
        const p = parseTfmOrThrow(a(0));
        return p.platformVersion ? padVersion(p.platformVersion, args && args.length > 1 ? toInt(args[1]!) : 2).slice(1) : '';
      }
      case 'istargetframeworkcompatible':
        return tfmCompatible(a(0), a(1));
      case 'versionequals':
        return compareVersions(a(0), a(1)) === 0;
      case 'versionnotequals':
        return compareVersions(a(0), a(1)) !== 0;
      case 'versiongreaterthan':
        return compareVersions(a(0), a(1)) > 0;
      case 'versiongreaterthanorequals':
        return compareVersions(a(0), a(1)) >= 0;
      case 'versionlessthan':
        return compareVersions(a(0), a(1)) < 0;
      case 'versionlessthanorequals':
        return compareVersions(a(0), a(1)) <= 0;
      case 'add':
        return num(a(0)) + num(a(1));
      case 'subtract':
        return num(a(0)) - num(a(1));
      case 'multiply':
        return num(a(0)) * num(a(1));
      case 'escape':
      case 'unescape':
        return a(0);
      case 'isosplatform':
        return hostOsIs(a(0));
      case 'isosunixlike':
        return process.platform !== 'win32';
      default:
        throw new Unevaluable(`property function [MSBuild]::${member} is not evaluated`);
    }
  }
  if (t === 'io.path') {
    switch (m) {
      case 'combine':
        return combine(all());
      case 'getfullpath':
        return absPath(host, a(0));
      case 'getdirectoryname': {
        const s = slashes(a(0));
        const d = path.posix.dirname(s);
        return d === '.' && !s.includes('/') ? '' : d;
      }
      case 'getfilename':
        return path.posix.basename(slashes(a(0)));
      case 'getfilenamewithoutextension': {
        const b = path.posix.basename(slashes(a(0)));
        return b.slice(0, b.length - path.posix.extname(b).length);
      }
      case 'getextension':
        return path.posix.extname(slashes(a(0)));
      case 'ispathrooted':
        return slashes(a(0)).startsWith('/');
      case 'directoryseparatorchar':
        return '/';
      default:
        throw new Unevaluable(`property function [System.IO.Path]::${member} is not evaluated`);
    }
  }
  if (t === 'string') {
    switch (m) {
      case 'isnullorempty':
        return a(0) === '';
      case 'isnullorwhitespace':
        return a(0).trim() === '';
      case 'copy':
        return a(0);
      case 'concat':
        return all().join('');
      case 'join':
        return all().slice(1).join(a(0));
      case 'equals':
        return a(0) === a(1);
      default:
        throw new Unevaluable(`property function [System.String]::${member} is not evaluated`);
    }
  }
  if ((t === 'io.file' || t === 'io.directory') && m === 'exists') {
    const r = relInside(host, absPath(host, a(0)));
    if (r === undefined) throw new Unevaluable(`[${type}]::Exists on a path outside the workspace`);
    return t === 'io.file' ? host.files.has(r) : host.files.hasDir(r);
  }
  if (t === 'text.regularexpressions.regex' && (m === 'ismatch' || m === 'replace')) {
    const re = boundedRegex(a(1), m === 'replace' ? 'g' : '');
    if (!re || a(0).length > 10_000) throw new Unevaluable(`regular expression '${clip(a(1))}' is not evaluated`);
    return m === 'ismatch' ? re.test(a(0)) : a(0).replace(re, a(2));
  }
  void taint;
  throw new Unevaluable(`property function [${type}]::${member} is not evaluated`);
}

/** A project file's regex, compiled through the engine's bounded-regex policy (core/regex.ts). */
function boundedRegex(source: string, flags: string): RegExp | undefined {
  const r = compileBoundedRegex(source, flags);
  return r.ok ? r.re : undefined;
}

function num(s: string): number {
  const n = Number(s);
  if (!Number.isFinite(n)) throw new Unevaluable(`'${clip(s)}' is not a number`);
  return n;
}

function hostOsIs(name: string): boolean {
  const n = name.toLowerCase();
  if (n === 'windows') return process.platform === 'win32';
  if (n === 'linux') return process.platform === 'linux';
  if (n === 'osx' || n === 'macos') return process.platform === 'darwin';
  if (n === 'freebsd') return process.platform === 'freebsd';
  return false;
}

/** Backslashes to slashes (MSBuild treats both as separators in paths on every OS). */
export function slashes(s: string): string {
  return s.replace(/\\/g, '/');
}

function withSlash(s: string): string {
  return s.endsWith('/') ? s : s + '/';
}

function combine(parts: string[]): string {
  let out = '';
  for (const p0 of parts) {
    const p = slashes(p0);
    if (p === '') continue;
    if (p.startsWith('/') || out === '') out = p;
    else out = out.endsWith('/') ? out + p : out + '/' + p;
  }
  return out;
}

/** An absolute, normalised POSIX path for `p` (relative paths are relative to the project). */
export function absPath(host: ExpansionHost, p: string): string {
  const s = slashes(p);
  const abs = s.startsWith('/') ? path.posix.normalize(s) : path.posix.join(host.projectDir, s);
  return abs.length > 1 && abs.endsWith('/') && !s.endsWith('/') ? abs.slice(0, -1) : abs;
}

/** Workspace-relative path of an absolute path, or undefined when outside the root. */
export function relInside(host: { root: string }, abs: string): string | undefined {
  const a = abs.length > 1 && abs.endsWith('/') ? abs.slice(0, -1) : abs;
  if (a === host.root) return '';
  if (!a.startsWith(host.root + '/')) return undefined;
  return a.slice(host.root.length + 1);
}

/** Searches `startDir` and its parents (inside the workspace) for `fileName`; absolute path or undefined. */
function fileAbove(host: ExpansionHost, startDir: string, fileName: string): string | undefined {
  let dir = startDir.length > 1 && startDir.endsWith('/') ? startDir.slice(0, -1) : startDir;
  let rel = relInside(host, dir);
  if (rel === undefined) throw new Unevaluable(`a file search starts outside the workspace (${clip(startDir)})`);
  for (;;) {
    const candidate = rel === '' ? fileName : `${rel}/${fileName}`;
    if (host.files.has(candidate)) return `${host.root}/${candidate}`;
    if (rel === '') return undefined;
    const i = rel.lastIndexOf('/');
    rel = i < 0 ? '' : rel.slice(0, i);
    dir = path.posix.dirname(dir);
  }
}

// ---- target frameworks ------------------------------------------------------------------------

export interface ParsedTfm {
  identifier: string;
  version: string;
  platform?: string;
  platformVersion?: string;
}

/** Parses a short target framework moniker (net8.0, netstandard2.0, net472, net8.0-windows10.0.19041). */
export function parseTfm(tfm: string): ParsedTfm | undefined {
  const t = tfm.trim().toLowerCase();
  const [main, plat] = splitOnce(t, '-');
  let m: RegExpExecArray | null;
  let r: ParsedTfm | undefined;
  if ((m = /^netcoreapp(\d+)\.(\d+)$/.exec(main))) r = { identifier: '.NETCoreApp', version: `${m[1]}.${m[2]}` };
  else if ((m = /^netstandard(\d+)\.(\d+)$/.exec(main))) r = { identifier: '.NETStandard', version: `${m[1]}.${m[2]}` };
  else if ((m = /^net(\d+)\.(\d+)$/.exec(main)) && Number(m[1]) >= 5) r = { identifier: '.NETCoreApp', version: `${m[1]}.${m[2]}` };
  else if ((m = /^net(\d)(\d)(\d?)$/.exec(main))) r = { identifier: '.NETFramework', version: m[3] ? `${m[1]}.${m[2]}.${m[3]}` : `${m[1]}.${m[2]}` };
  if (!r) return undefined;
  if (plat !== undefined) {
    const pm = /^([a-z]+)([\d.]*)$/.exec(plat);
    if (!pm) return undefined;
    r.platform = platformName(pm[1]!);
    if (pm[2]) r.platformVersion = pm[2];
  }
  return r;
}

function platformName(p: string): string {
  const known: Record<string, string> = { windows: 'Windows', android: 'Android', ios: 'iOS', maccatalyst: 'MacCatalyst', macos: 'macOS', tvos: 'tvOS', browser: 'browser', tizen: 'Tizen' };
  return known[p] ?? p;
}

function parseTfmOrThrow(tfm: string): ParsedTfm {
  const p = parseTfm(tfm);
  if (!p) throw new Unevaluable(`target framework '${clip(tfm)}' is not recognised`);
  return p;
}

function splitOnce(s: string, sep: string): [string, string | undefined] {
  const i = s.indexOf(sep);
  return i < 0 ? [s, undefined] : [s.slice(0, i), s.slice(i + 1)];
}

/** 'v'-prefixed version padded to `digits` components (8.0 → v8.0). */
export function padVersion(v: string, digits: number): string {
  const parts = v.split('.');
  while (parts.length < digits) parts.push('0');
  return 'v' + parts.slice(0, Math.max(digits, 1)).join('.');
}

function tfmCompatible(target: string, candidate: string): boolean {
  const a = parseTfmOrThrow(target);
  const b = parseTfmOrThrow(candidate);
  if (a.identifier === b.identifier) return compareVersions(a.version, b.version) >= 0;
  if (b.identifier === '.NETStandard') {
    // netstandard compatibility: .NETCoreApp 2.0+ runs netstandard ≤ 2.1; .NETFramework 4.6.1+ runs ≤ 2.0.
    if (a.identifier === '.NETCoreApp') return compareVersions(a.version, '2.0') >= 0 || compareVersions(b.version, '1.6') <= 0;
    if (a.identifier === '.NETFramework') return compareVersions(b.version, '2.0') <= 0 && compareVersions(a.version, '4.6.1') >= 0;
  }
  return false;
}

/** Compares dotted versions numerically (a leading 'v' is ignored); throws when not versions. */
export function compareVersions(a: string, b: string): number {
  const pa = versionParts(a);
  const pb = versionParts(b);
  if (!pa || !pb) throw new Unevaluable(`'${clip(a)}' / '${clip(b)}' are not versions`);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

export function versionParts(s: string): number[] | undefined {
  const m = /^\s*v?(\d+(?:\.\d+){0,3})\s*$/i.exec(s);
  return m ? m[1]!.split('.').map(Number) : undefined;
}

export function clip(s: string): string {
  return s.length > 80 ? s.slice(0, 80) + '…' : s;
}
