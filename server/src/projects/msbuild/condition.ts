/**
 * MSBuild `Condition` evaluation: `and` / `or` / `!`, parentheses, `==` `!=` `<` `>` `<=` `>=`,
 * `Exists()` and `HasTrailingSlash()`. Comparison follows MSBuild: numbers compare numerically,
 * `==`/`!=` otherwise compare strings ignoring case; ordering needs numbers or versions.
 * Anything else raises `Unevaluable`.
 */
import { absPath, clip, expand, relInside, TOOLSET_ROOT, Unevaluable, versionParts, type ExpansionHost, type Taint } from './expression';

/**
 * Evaluates a condition; an empty condition is true. `Exists()` resolves relative paths against the
 * folder of the file holding the condition for PropertyGroup, Import and ImportGroup conditions and
 * against the project folder everywhere else (checked against MSBuild): pass `relativeToFile`.
 */
export function evaluateCondition(cond: string | undefined, host: ExpansionHost, taint: Taint, toolsetExists: (abs: string) => boolean, relativeToFile = false): boolean {
  if (cond === undefined || cond.trim() === '') return true;
  const simple = simpleConjunction(cond);
  if (simple) {
    // '$(Name)' == 'text' [and …] (most conditions, the SDK model's included): no parse needed.
    for (const c of simple) {
      const v = host.lookup(c.name);
      if (v?.unknown && !taint.unknown) taint.unknown = v.unknown;
      const eq = (v?.value ?? '').toLowerCase() === c.value;
      if ((c.op === '==') !== eq) return false;
    }
    return true;
  }
  const p = new ConditionParser(cond, relativeToFile ? { ...host, projectDir: host.thisFileDir } : host, taint, toolsetExists);
  const v = p.parseOr();
  p.ws();
  if (!p.done()) throw new Unevaluable(`condition "${clip(cond)}" could not be parsed`);
  return asBool(v, cond);
}

type Node = { kind: 'bool'; v: boolean } | { kind: 'str'; v: string };

const SIMPLE = /^\s*'\$\(([A-Za-z_][\w-]*)\)'\s*(==|!=)\s*'([^'$%@()]*)'\s*$/;
const simpleCache = new Map<string, { name: string; op: '==' | '!='; value: string } | null>();

const conjunctionCache = new Map<string, { name: string; op: '==' | '!='; value: string }[] | null>();

/**
 * `'$(A)' == 'x' and '$(B)' != ''` … as a list of simple comparisons, or undefined. (With `and`
 * only, stopping at the first false comparison is exact: later ones cannot change the result, and
 * a taint they would add does not matter for a false answer.)
 */
function simpleConjunction(cond: string): { name: string; op: '==' | '!='; value: string }[] | undefined {
  let c = conjunctionCache.get(cond);
  if (c === undefined) {
    const parts = cond.split(/\s+and\s+/i);
    const out: { name: string; op: '==' | '!='; value: string }[] = [];
    for (const part of parts) {
      const one = simpleComparison(part);
      if (!one) {
        out.length = 0;
        break;
      }
      out.push(one);
    }
    c = out.length > 0 ? out : null;
    if (conjunctionCache.size < 10_000) conjunctionCache.set(cond, c);
  }
  return c ?? undefined;
}

/** Recognises `'$(Name)' == 'text'` / `!=` where text is not a number (numbers compare numerically). */
function simpleComparison(cond: string): { name: string; op: '==' | '!='; value: string } | undefined {
  let c = simpleCache.get(cond);
  if (c === undefined) {
    const m = SIMPLE.exec(cond);
    c = m && !/^\s*[-+]?(\d|0x)/i.test(m[3]!) ? { name: m[1]!, op: m[2] as '==' | '!=', value: m[3]!.toLowerCase() } : null;
    if (simpleCache.size < 10_000) simpleCache.set(cond, c);
  }
  return c ?? undefined;
}

class ConditionParser {
  private pos = 0;
  constructor(
    private readonly src: string,
    private readonly host: ExpansionHost,
    private readonly taint: Taint,
    private readonly toolsetExists: (abs: string) => boolean,
  ) {}

  ws(): void {
    while (this.pos < this.src.length && /\s/.test(this.src[this.pos]!)) this.pos++;
  }
  done(): boolean {
    return this.pos >= this.src.length;
  }
  private keyword(k: string): boolean {
    this.ws();
    const s = this.src.slice(this.pos, this.pos + k.length);
    if (s.toLowerCase() !== k) return false;
    const after = this.src[this.pos + k.length];
    if (after !== undefined && /[\w]/.test(after)) return false;
    this.pos += k.length;
    return true;
  }

  parseOr(): Node {
    let left = this.parseAnd();
    while (this.keyword('or')) {
      const right = this.parseAnd();
      left = { kind: 'bool', v: asBool(left, this.src) || asBool(right, this.src) };
    }
    return left;
  }

  private parseAnd(): Node {
    let left = this.parseNot();
    while (this.keyword('and')) {
      const right = this.parseNot();
      left = { kind: 'bool', v: asBool(left, this.src) && asBool(right, this.src) };
    }
    return left;
  }

  private parseNot(): Node {
    this.ws();
    if (this.src[this.pos] === '!' && this.src[this.pos + 1] !== '=') {
      this.pos++;
      return { kind: 'bool', v: !asBool(this.parseNot(), this.src) };
    }
    return this.parseRelational();
  }

  private parseRelational(): Node {
    const left = this.parseFactor();
    this.ws();
    const m = /^(==|!=|<=|>=|<|>)/.exec(this.src.slice(this.pos));
    if (!m) return left;
    this.pos += m[0].length;
    const right = this.parseFactor();
    return { kind: 'bool', v: compare(m[0], text(left), text(right), this.src) };
  }

  private parseFactor(): Node {
    this.ws();
    const c = this.src[this.pos];
    if (c === undefined) throw new Unevaluable(`condition "${clip(this.src)}" ends early`);
    if (c === '(') {
      this.pos++;
      const v = this.parseOr();
      this.ws();
      if (this.src[this.pos] !== ')') throw new Unevaluable(`condition "${clip(this.src)}" has unbalanced parentheses`);
      this.pos++;
      return v;
    }
    if (c === "'" || c === '"') {
      const end = this.src.indexOf(c, this.pos + 1);
      if (end < 0) throw new Unevaluable(`condition "${clip(this.src)}" has an unterminated string`);
      const raw = this.src.slice(this.pos + 1, end);
      this.pos = end + 1;
      return { kind: 'str', v: expand(raw, this.host, this.taint) };
    }
    const fn = /^([A-Za-z_]\w*)\s*\(/.exec(this.src.slice(this.pos));
    if (fn) {
      this.pos += fn[0].length;
      const args: string[] = [];
      for (;;) {
        this.ws();
        if (this.src[this.pos] === ')') {
          this.pos++;
          break;
        }
        args.push(text(this.parseFactor()));
        this.ws();
        if (this.src[this.pos] === ',') this.pos++;
      }
      return { kind: 'bool', v: this.callFunction(fn[1]!, args) };
    }
    // Unquoted value: property references and plain characters up to whitespace or an operator.
    let raw = '';
    while (this.pos < this.src.length) {
      const ch = this.src[this.pos]!;
      if ((ch === '$' || ch === '@' || ch === '%') && this.src[this.pos + 1] === '(') {
        let depth = 0;
        let j = this.pos + 1;
        for (; j < this.src.length; j++) {
          if (this.src[j] === '(') depth++;
          else if (this.src[j] === ')' && --depth === 0) break;
        }
        raw += this.src.slice(this.pos, j + 1);
        this.pos = j + 1;
        continue;
      }
      if (/[\s=!<>()',]/.test(ch)) break;
      raw += ch;
      this.pos++;
    }
    if (raw === '') throw new Unevaluable(`condition "${clip(this.src)}" could not be parsed`);
    return { kind: 'str', v: expand(raw, this.host, this.taint) };
  }

  private callFunction(name: string, args: string[]): boolean {
    const n = name.toLowerCase();
    if (n === 'exists') {
      const p = (args[0] ?? '').trim();
      if (p === '') return false;
      const abs = absPath(this.host, p);
      if (abs.startsWith(TOOLSET_ROOT + '/') || abs === TOOLSET_ROOT) return this.toolsetExists(abs);
      const rel = relInside(this.host, abs);
      if (rel === undefined) throw new Unevaluable(`Exists('${clip(p)}') looks outside the workspace`);
      return this.host.files.has(rel) || this.host.files.hasDir(rel);
    }
    if (n === 'hastrailingslash') {
      const p = args[0] ?? '';
      return p.endsWith('/') || p.endsWith('\\');
    }
    throw new Unevaluable(`condition function ${name}() is not evaluated`);
  }
}

function text(n: Node): string {
  return n.kind === 'str' ? n.v : n.v ? 'true' : 'false';
}

function asBool(n: Node, src: string): boolean {
  if (n.kind === 'bool') return n.v;
  const s = n.v.trim().toLowerCase();
  if (s === 'true' || s === 'on' || s === 'yes' || s === '!false' || s === '!off' || s === '!no') return true;
  if (s === 'false' || s === 'off' || s === 'no' || s === '!true' || s === '!on' || s === '!yes') return false;
  throw new Unevaluable(`condition "${clip(src)}" uses '${clip(n.v)}' as a boolean`);
}

function parseNumber(s: string): number | undefined {
  const t = s.trim();
  if (/^[-+]?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (/^0x[0-9a-f]+$/i.test(t)) return parseInt(t.slice(2), 16);
  return undefined;
}

function compare(op: string, a: string, b: string, src: string): boolean {
  const na = parseNumber(a);
  const nb = parseNumber(b);
  if (op === '==' || op === '!=') {
    const eq = na !== undefined && nb !== undefined ? na === nb : a.toLowerCase() === b.toLowerCase();
    return op === '==' ? eq : !eq;
  }
  let d: number;
  if (na !== undefined && nb !== undefined) d = na - nb;
  else {
    const va = versionParts(a);
    const vb = versionParts(b);
    if (!va || !vb || /^v/i.test(a.trim()) || /^v/i.test(b.trim())) {
      throw new Unevaluable(`condition "${clip(src)}" orders non-numeric values '${clip(a)}' and '${clip(b)}'`);
    }
    d = 0;
    for (let i = 0; i < Math.max(va.length, vb.length) && d === 0; i++) d = (va[i] ?? 0) - (vb[i] ?? 0);
  }
  if (op === '<') return d < 0;
  if (op === '>') return d > 0;
  if (op === '<=') return d <= 0;
  return d >= 0;
}
