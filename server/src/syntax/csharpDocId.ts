/**
 * C# documentation-comment ids (`T:Ns.Type`, `M:Ns.Type.Method(System.Int32)`, `P:`, `F:`, `E:`,
 * `N:`) computed from syntax alone.
 *
 * What syntax cannot know, and how it is approximated (the same way every time, so ids are stable):
 * - type names are kept as written (`List{System.String}`, not `System.Collections.Generic.List`1`);
 *   only the C# keyword types map to their System names (`int` → `System.Int32`);
 * - `T?` becomes `System.Nullable{T}` only for keyword value types; on other types `?` is dropped
 *   (a nullable reference annotation is not part of the id, a nullable struct would be);
 * - type parameters of the enclosing types are `` `n ``, of the method ``` ``n ```.
 */

const KEYWORD_TYPES: Record<string, string> = {
  bool: 'System.Boolean',
  byte: 'System.Byte',
  sbyte: 'System.SByte',
  char: 'System.Char',
  decimal: 'System.Decimal',
  double: 'System.Double',
  float: 'System.Single',
  int: 'System.Int32',
  uint: 'System.UInt32',
  nint: 'System.IntPtr',
  nuint: 'System.UIntPtr',
  long: 'System.Int64',
  ulong: 'System.UInt64',
  short: 'System.Int16',
  ushort: 'System.UInt16',
  object: 'System.Object',
  string: 'System.String',
  void: 'System.Void',
  dynamic: 'System.Object',
};
const VALUE_KEYWORDS = new Set(['bool', 'byte', 'sbyte', 'char', 'decimal', 'double', 'float', 'int', 'uint', 'nint', 'nuint', 'long', 'ulong', 'short', 'ushort']);

const OPERATOR_NAMES: Record<string, [unary: string, binary: string]> = {
  '+': ['op_UnaryPlus', 'op_Addition'],
  '-': ['op_UnaryNegation', 'op_Subtraction'],
  '*': ['op_Multiply', 'op_Multiply'],
  '/': ['op_Division', 'op_Division'],
  '%': ['op_Modulus', 'op_Modulus'],
  '&': ['op_BitwiseAnd', 'op_BitwiseAnd'],
  '|': ['op_BitwiseOr', 'op_BitwiseOr'],
  '^': ['op_ExclusiveOr', 'op_ExclusiveOr'],
  '<<': ['op_LeftShift', 'op_LeftShift'],
  '>>': ['op_RightShift', 'op_RightShift'],
  '>>>': ['op_UnsignedRightShift', 'op_UnsignedRightShift'],
  '==': ['op_Equality', 'op_Equality'],
  '!=': ['op_Inequality', 'op_Inequality'],
  '<': ['op_LessThan', 'op_LessThan'],
  '>': ['op_GreaterThan', 'op_GreaterThan'],
  '<=': ['op_LessThanOrEqual', 'op_LessThanOrEqual'],
  '>=': ['op_GreaterThanOrEqual', 'op_GreaterThanOrEqual'],
  '!': ['op_LogicalNot', 'op_LogicalNot'],
  '~': ['op_OnesComplement', 'op_OnesComplement'],
  '++': ['op_Increment', 'op_Increment'],
  '--': ['op_Decrement', 'op_Decrement'],
  true: ['op_True', 'op_True'],
  false: ['op_False', 'op_False'],
};

/** A parameter as the outline sees it: type text as written and its modifiers (`ref`, `this`, ...). */
export interface CsParam {
  type: string;
  modifiers: string[];
}

/** Type-parameter scope: names of the enclosing types' and the method's type parameters. */
export interface TypeParamScope {
  typeParams: string[];
  methodParams: string[];
}

/** The id segment of a type name with its generic arity: Order`1. */
export function typeSegment(name: string, arity: number): string {
  return arity > 0 ? `${stripAt(name)}\`${arity}` : stripAt(name);
}

/** `(System.Int32,System.String@)` or '' for no parameters. */
export function paramList(params: CsParam[], scope: TypeParamScope): string {
  if (params.length === 0) return '';
  const parts = params.map((p) => {
    const byRef = p.modifiers.some((m) => m === 'ref' || m === 'out' || m === 'in' || m === 'ref readonly');
    return idType(p.type, scope) + (byRef ? '@' : '');
  });
  return `(${parts.join(',')})`;
}

/** The doc-id name of an operator from its token and parameter count. */
export function operatorName(token: string, paramCount: number): string {
  const names = OPERATOR_NAMES[token.replace(/^checked\s+/, '')];
  if (!names) return `op_${token}`;
  return paramCount <= 1 ? names[0] : names[1];
}

/** Converts a C# type as written to its id form under the given type-parameter scope. */
export function idType(text: string, scope: TypeParamScope): string {
  const t = text.replace(/\s+/g, ' ').trim();
  const p = new TypeParser(t.replace(/^global::/, ''), scope);
  try {
    const out = p.type();
    return p.rest() ? out + p.rest().replace(/\s+/g, '') : out;
  } catch {
    return t.replace(/\s+/g, '');
  }
}

function stripAt(name: string): string {
  return name.startsWith('@') ? name.slice(1) : name;
}

/** A tiny recursive-descent reader for C# type syntax (names, generics, arrays, pointers, tuples, nullable). */
class TypeParser {
  private i = 0;
  constructor(
    private readonly s: string,
    private readonly scope: TypeParamScope,
  ) {}

  rest(): string {
    return this.s.slice(this.i).trim();
  }

  private ws(): void {
    while (this.s[this.i] === ' ') this.i++;
  }

  private peek(): string {
    this.ws();
    return this.s[this.i] ?? '';
  }

  type(): string {
    this.ws();
    let base: string;
    let keyword: string | undefined;
    if (this.peek() === '(') {
      this.i++;
      const elems: string[] = [];
      for (;;) {
        elems.push(this.type());
        this.ws();
        // skip an element name
        const m = /^@?[A-Za-z_]\w*/.exec(this.s.slice(this.i));
        if (m) this.i += m[0].length;
        if (this.peek() === ',') {
          this.i++;
          continue;
        }
        if (this.peek() === ')') {
          this.i++;
          break;
        }
        throw new Error('tuple');
      }
      base = `System.ValueTuple{${elems.join(',')}}`;
    } else {
      const segs: string[] = [];
      for (;;) {
        this.ws();
        const m = /^@?[A-Za-z_]\w*/.exec(this.s.slice(this.i));
        if (!m) throw new Error('name');
        this.i += m[0].length;
        let seg = stripAt(m[0]);
        if (this.peek() === '<') {
          this.i++;
          const args: string[] = [];
          for (;;) {
            if (this.peek() === ',' || this.peek() === '>') args.push('');
            else args.push(this.type());
            if (this.peek() === ',') {
              this.i++;
              continue;
            }
            if (this.peek() === '>') {
              this.i++;
              break;
            }
            throw new Error('generic');
          }
          seg += `{${args.join(',')}}`;
        }
        segs.push(seg);
        if (this.s.startsWith('::', this.i)) {
          this.i += 2;
          segs.length = 0;
          continue;
        }
        if (this.peek() === '.' ) {
          this.i++;
          continue;
        }
        break;
      }
      if (segs.length === 1) {
        const only = segs[0] ?? '';
        const mi = this.scope.methodParams.indexOf(only);
        const ti = this.scope.typeParams.lastIndexOf(only);
        if (mi >= 0) base = `\`\`${mi}`;
        else if (ti >= 0) base = `\`${ti}`;
        else if (KEYWORD_TYPES[only]) {
          keyword = only;
          base = KEYWORD_TYPES[only] ?? only;
        } else base = only;
      } else base = segs.join('.');
    }
    // suffixes: ?, [], [,], *
    for (;;) {
      const c = this.peek();
      if (c === '?') {
        this.i++;
        if (keyword && VALUE_KEYWORDS.has(keyword)) base = `System.Nullable{${base}}`;
        keyword = undefined;
      } else if (c === '[') {
        let j = this.i + 1;
        let commas = 0;
        while (this.s[j] === ',' || this.s[j] === ' ') {
          if (this.s[j] === ',') commas++;
          j++;
        }
        if (this.s[j] !== ']') break;
        this.i = j + 1;
        base += commas === 0 ? '[]' : `[${Array.from({ length: commas + 1 }, () => '0:').join(',')}]`;
        keyword = undefined;
      } else if (c === '*') {
        this.i++;
        base += '*';
        keyword = undefined;
      } else break;
    }
    return base;
  }
}
