/**
 * SCIP's symbol grammar (scip.proto): `<scheme> ' ' <manager> ' ' <package> ' ' <version> ' '
 * <descriptor>+` or `local <id>`. Descriptors end in their suffix: `/` namespace, `#` type,
 * `.` term, `(<disambiguator>).` method, `[name]` type parameter, `(name)` parameter, `:` meta,
 * `!` macro; a name that is not a simple identifier is escaped in backticks (a backtick doubled).
 * Two producers that spell a symbol the same way mean the same symbol: that is what makes shards
 * built on separate machines merge.
 */

const SIMPLE = /^[A-Za-z0-9_+\-$]+$/;

/** A descriptor name as the grammar writes it (backticks when not a simple identifier). */
export function escapeName(name: string): string {
  return SIMPLE.test(name) ? name : '`' + name.replace(/`/g, '``') + '`';
}

/** A package part (`.` when empty; a space doubled). */
function packagePart(s: string): string {
  return s === '' ? '.' : s.replace(/ /g, '  ');
}

export function globalSymbol(scheme: string, manager: string, pkg: string, version: string, descriptors: string): string {
  return `${packagePart(scheme)} ${packagePart(manager)} ${packagePart(pkg)} ${packagePart(version)} ${descriptors}`;
}

export function isLocalSymbol(symbol: string): boolean {
  return symbol.startsWith('local ');
}

/** The descriptors part of a global symbol (after scheme and package; spaces there are doubled). */
export function descriptorsOf(symbol: string): string {
  let i = 0;
  for (let part = 0; part < 4; part++) {
    for (;;) {
      const sp = symbol.indexOf(' ', i);
      if (sp < 0) return '';
      if (symbol[sp + 1] === ' ') {
        i = sp + 2;
        continue;
      }
      i = sp + 1;
      break;
    }
  }
  return symbol.slice(i);
}

export interface Descriptor {
  name: string;
  /** namespace | type | term | method | typeParameter | parameter | meta | macro */
  suffix: 'namespace' | 'type' | 'term' | 'method' | 'typeParameter' | 'parameter' | 'meta' | 'macro';
  disambiguator?: string;
}

/** Parses the descriptors of a global symbol (undefined when they do not follow the grammar). */
export function parseDescriptors(descriptors: string): Descriptor[] | undefined {
  const out: Descriptor[] = [];
  let i = 0;
  const name = (): string | undefined => {
    if (descriptors[i] === '`') {
      let s = '';
      i++;
      for (;;) {
        if (i >= descriptors.length) return undefined;
        if (descriptors[i] === '`') {
          if (descriptors[i + 1] === '`') {
            s += '`';
            i += 2;
            continue;
          }
          i++;
          return s;
        }
        s += descriptors[i++];
      }
    }
    const start = i;
    while (i < descriptors.length && /[A-Za-z0-9_+\-$]/.test(descriptors[i]!)) i++;
    return i > start ? descriptors.slice(start, i) : undefined;
  };
  while (i < descriptors.length) {
    if (descriptors[i] === '[' || (descriptors[i] === '(' && out.length > 0)) {
      const open = descriptors[i]!;
      i++;
      const n = name();
      if (n === undefined || descriptors[i] !== (open === '[' ? ']' : ')')) return undefined;
      i++;
      out.push({ name: n, suffix: open === '[' ? 'typeParameter' : 'parameter' });
      continue;
    }
    const n = name();
    if (n === undefined) return undefined;
    const c = descriptors[i];
    if (c === '/') out.push({ name: n, suffix: 'namespace' });
    else if (c === '#') out.push({ name: n, suffix: 'type' });
    else if (c === '.') out.push({ name: n, suffix: 'term' });
    else if (c === ':') out.push({ name: n, suffix: 'meta' });
    else if (c === '!') out.push({ name: n, suffix: 'macro' });
    else if (c === '(') {
      const close = descriptors.indexOf(').', i);
      if (close < 0) return undefined;
      out.push({ name: n, suffix: 'method', disambiguator: descriptors.slice(i + 1, close) });
      i = close + 1;
    } else return undefined;
    i++;
  }
  return out;
}

/**
 * The name a use of the symbol spells in source (the last descriptor that is not a parameter or
 * type parameter of a method), or undefined for a local symbol or a symbol that does not parse.
 */
export function symbolName(symbol: string): string | undefined {
  if (isLocalSymbol(symbol)) return undefined;
  const ds = parseDescriptors(descriptorsOf(symbol));
  const last = ds?.[ds.length - 1];
  return last?.name;
}
