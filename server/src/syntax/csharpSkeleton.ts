/**
 * C# skeleton: the parts of a file the outline needs, as ranges to leave out of the parse (the
 * insides of member bodies). tree-sitter parses the rest with `includedRanges`, so node offsets,
 * lines and columns stay those of the original file, and skipped text costs nothing to lex.
 *
 * Parsing is most of the cost of an outline and method bodies are most of a C# file. Declarations
 * never live inside bodies except local functions, so inside a body only its braces (each left
 * over `{ … }` is an empty block, initialiser or pattern: valid where it stands) and local
 * function declarations are kept: from the statement start through the `{` of their body (treated
 * the same way, for nested ones) or through the `;` of an expression body. A local function is a
 * statement `Type Name(…)` or `Type Name<…>(…)` followed by `{`, `=>` or `where`, found by a token
 * check at each `(` in a body.
 *
 * The scan knows C#'s lexical syntax (comments, char literals, regular, verbatim, interpolated and
 * raw strings with nested holes, preprocessor lines). A `{` at declaration level opens a container
 * when the header before it names `class`, `struct`, `interface`, `enum`, `record`, `namespace`
 * or `extension` ahead of any parenthesis; every other `{` there opens a body (method, accessor
 * list, initialiser). Taking a body for a container only costs time; well-formed headers cannot
 * be taken the other way.
 *
 * There is no skeleton — the caller parses the whole file — when the scan cannot be sure: braces
 * that do not balance, an `#if` group whose branches do not each balance their braces, an
 * unterminated comment, string or body; or when there is no body to leave out.
 */

import { SKELETON_MIN_RANGE_CHARS } from '../core/limits';

const NL = 10;
const CR = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;
const SLASH = 47;
const STAR = 42;
const QUOTE = 34;
const APOS = 39;
const BACKSLASH = 92;
const AT = 64;
const DOLLAR = 36;
const LBRACE = 123;
const RBRACE = 125;
const LPAREN = 40;
const RPAREN = 41;
const LBRACKET = 91;
const RBRACKET = 93;
const SEMI = 59;
const COLON = 58;
const LT = 60;
const GT = 62;
const EQ = 61;
const QMARK = 63;

const CONTAINER_KEYWORDS = new Set(['class', 'struct', 'interface', 'enum', 'record', 'namespace', 'extension']);

/**
 * Words that, right before `Name(`, show a call or an expression rather than a declaration
 * (`return Foo(…)`, `new Foo(…) { … }`), and names that are statements (`if (…) {`).
 */
const NOT_A_RETURN_TYPE = new Set([
  'return', 'new', 'await', 'else', 'throw', 'in', 'is', 'as', 'case', 'yield', 'not', 'and', 'or', 'when', 'select', 'where',
  'from', 'orderby', 'on', 'equals', 'by', 'group', 'into', 'let', 'join', 'goto', 'out', 'ref', 'params', 'this', 'base',
  'typeof', 'sizeof', 'nameof', 'default', 'checked', 'unchecked', 'stackalloc', 'do', 'with', 'switch', 'using', 'lock',
]);
const STATEMENT_NAMES = new Set([
  'if', 'while', 'for', 'foreach', 'switch', 'using', 'lock', 'fixed', 'catch', 'when', 'return', 'typeof', 'sizeof', 'nameof',
  'default', 'checked', 'unchecked', 'new', 'base', 'this', 'throw', 'await', 'stackalloc', 'not', 'and', 'or', 'is', 'as',
]);

export interface Skeleton {
  /** The ranges to leave out, as [start, end) offset pairs in order: the insides of bodies. */
  ranges: number[];
  /** Characters in those ranges. */
  blanked: number;
  /** Local function declarations kept inside blanked bodies. */
  localFunctions: number;
  /** Offsets of their names, in order. */
  localFunctionNames: number[];
  /**
   * True when the parse may hold local functions other than those at `localFunctionNames`
   * (top-level statements, extension blocks, a lambda inside a kept expression-bodied local
   * function); false lets callers look only at those names instead of searching the tree.
   */
  localFunctionsElsewhere: boolean;
}

/** Why there is no skeleton when `#if` branches differ in braces (alternative headers sharing a body). */
export const BRANCHES_CHANGE_DEPTH = '#if branch changes brace depth';

class Unsure extends Error {}

function unsure(why: string): never {
  throw new Unsure(why);
}

function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || (c >= 128 && !isUnicodeBlank(c));
}

function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

function isBlank(c: number): boolean {
  return c === SPACE || c === TAB || c === NL || c === CR || c === 12 || c === 11 || (c >= 128 && isUnicodeBlank(c));
}

/** Non-ASCII characters C# reads as white space (or, for a byte-order mark, ignores). */
function isUnicodeBlank(c: number): boolean {
  return c === 0xfeff || c === 0xa0 || c === 0x85 || c === 0x1680 || (c >= 0x2000 && c <= 0x200b) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** A type declaration's header; inside a body it means the scan took a container for a body. */
const TYPE_HEADER = /\b(?:class|struct|interface|enum|record|namespace)\s+@?[\p{L}_]/u;

/** The skeleton of a C# file, or undefined when it cannot be made safely (or would blank nothing). */
export function csharpSkeleton(text: string): Skeleton | undefined {
  const s = csharpSkeletonOrReason(text);
  return typeof s === 'string' ? undefined : s;
}

/** The skeleton, or why there is none (for benches and tests). */
export function csharpSkeletonOrReason(text: string): Skeleton | string {
  try {
    return new Scanner(text).run() ?? 'no body to blank';
  } catch (e) {
    if (e instanceof Unsure) return e.message;
    throw e;
  }
}

interface DeclFrame {
  /** The current header names a container keyword (`class Name`, `extension(`) ahead of any parenthesis. */
  container: boolean;
  /** Last character of the header's last token (a string counts as its quote). */
  last: number;
  /** The current header has a top-level `(`. */
  paren: boolean;
  parens: number;
  brackets: number;
  /** Open parentheses and brackets when the current header began. */
  headerParens: number;
  headerBrackets: number;
}

class Scanner {
  private i = 0;
  /** Brace depth over the whole file (declaration and body braces). */
  private depth = 0;
  /** Brace depth at each open `#if`. */
  private readonly conditions: number[] = [];
  private atLineStart = true;
  private readonly ranges: number[] = [];
  private readonly localFunctionNames: number[] = [];
  /** Index in `ranges` of the end of the last comment range (to join the next comment line to it). */
  private lastCommentRange = -1;
  /** Top-level statements or extension blocks: local functions may sit outside the bodies scanned. */
  private localFunctionsPossible = false;

  constructor(private readonly text: string) {}

  /** Steps over the newline or blank `c` at `i` (a newline starts a line); false for anything else. */
  private stepBlank(c: number): boolean {
    if (c === NL) this.atLineStart = true;
    else if (!isBlank(c)) return false;
    this.i++;
    return true;
  }

  run(): Skeleton | undefined {
    const t = this.text;
    const n = t.length;
    const frames: DeclFrame[] = [newFrame()];
    while (this.i < n) {
      const c = t.charCodeAt(this.i);
      if (this.stepBlank(c)) continue;
      if (c === HASH && this.atLineStart) {
        this.directive();
        continue;
      }
      this.atLineStart = false;
      if (c === SLASH && t.charCodeAt(this.i + 1) === SLASH) {
        this.lineComment();
        continue;
      }
      const frame = frames[frames.length - 1] as DeclFrame;
      if (isIdentStart(c) || (c === AT && isIdentStart(t.charCodeAt(this.i + 1)))) {
        const start = c === AT ? this.i + 1 : this.i;
        let j = start + 1;
        while (j < n && isIdentPart(t.charCodeAt(j))) j++;
        frame.last = 97; /* a */
        // ahead of any parenthesis: `where T : class` after a method's parameters is no container
        // (counts of open parentheses or brackets left over by odd #if alternatives do not hide a
        // keyword; a container opened with them is refused below)
        if (c !== AT && !frame.paren && j - start <= 10) {
          const word = t.slice(start, j);
          if (CONTAINER_KEYWORDS.has(word)) {
            // `class Name`, `record struct`, `namespace A.B`; `extension(T x)` / `extension<T>(…)`
            let k = j;
            while (k < n && isBlank(t.charCodeAt(k))) k++;
            const next = t.charCodeAt(k);
            if (word === 'extension') {
              if (next === LPAREN || next === LT) {
                frame.container = true;
                this.localFunctionsPossible = true; // the walk reads extension blocks like bodies
              }
            } else if (isIdentStart(next) || next === AT) frame.container = true;
          }
        }
        this.i = j;
        continue;
      }
      const before = frame.last;
      if (c !== SLASH) frame.last = c;
      if (this.skipLexeme(c)) continue;
      switch (c) {
        case LPAREN:
          if (frame.brackets === 0) frame.paren = true;
          if (frames.length === 1 && frame.brackets === 0) this.localFunctionsPossible = true; // top-level statements
          frame.parens++;
          break;
        case RPAREN:
          if (frame.parens > 0) frame.parens--;
          break;
        case LBRACKET:
          frame.brackets++;
          break;
        case RBRACKET:
          if (frame.brackets > 0) frame.brackets--;
          break;
        case SEMI:
          if (frame.parens === 0 && frame.brackets === 0) resetHeader(frame);
          break;
        case EQ:
          if (t.charCodeAt(this.i + 1) === GT && frame.parens === 0 && frame.brackets === 0) {
            this.i = this.expressionBody(this.i + 2);
            continue;
          }
          break;
        case LBRACE:
          if (frame.container && (frame.parens > frame.headerParens || frame.brackets > frame.headerBrackets)) {
            // a brace inside the header's own parentheses: `class C() : Base(x => new X { … });`
            this.body(false);
            continue;
          }
          if (frame.container) {
            // parentheses or brackets left open before the header began (odd #if alternatives):
            // too odd to tell
            if (frame.parens !== 0 || frame.brackets !== 0) unsure('container header with open parentheses');
            // `record R(int X) {`, `class C(int x) {`: were it a method after all, its local
            // functions would not be found by the body scan; the outline then searches the tree
            if (before === RPAREN) this.localFunctionsPossible = true;
            resetHeader(frame);
            this.open();
            this.i++;
            frames.push(newFrame());
            continue;
          }
          this.body(before === RPAREN);
          resetHeader(frame);
          continue;
        case RBRACE:
          if (frames.length === 1) unsure('stray closing brace');
          frames.pop();
          this.close();
          resetHeader(frames[frames.length - 1] as DeclFrame);
          break;
        default:
          break;
      }
      this.i++;
    }
    if (frames.length !== 1 || this.depth !== 0 || this.conditions.length > 0) unsure('unbalanced braces or #if at end of file');
    if (this.ranges.length === 0) return undefined;
    return this.build();
  }

  /**
   * A `//` comment at declaration level (documentation comments, mostly): left out of the parse,
   * joined with the comment lines right before it. The line break after it stays, so it still
   * separates tokens.
   */
  private lineComment(): void {
    const t = this.text;
    const start = this.i;
    const eol = t.indexOf('\n', start);
    let end = eol < 0 ? t.length : eol;
    if (t.charCodeAt(end - 1) === CR) end--;
    this.i = end;
    const r = this.ranges;
    const last = r.length - 1;
    if (this.lastCommentRange === last && last > 0 && onlyBlanks(t, r[last] as number, start)) {
      r[last] = end;
      return;
    }
    if (end - start < SKELETON_MIN_RANGE_CHARS) return;
    r.push(start, end);
    this.lastCommentRange = r.length - 1;
  }

  private open(): void {
    this.depth++;
  }

  private close(): void {
    this.depth--;
    const top = this.conditions[this.conditions.length - 1];
    if (this.depth < 0 || (top !== undefined && this.depth < top)) unsure('closing brace below an #if group start');
  }

  /** A preprocessor line (the `#` at `this.i` starts the line): checks `#if` groups balance braces. */
  private directive(): void {
    const t = this.text;
    let j = this.i + 1;
    while (j < t.length && (t.charCodeAt(j) === SPACE || t.charCodeAt(j) === TAB)) j++;
    let k = j;
    while (k < t.length && isIdentPart(t.charCodeAt(k))) k++;
    const word = t.slice(j, k);
    if (word === 'if') this.conditions.push(this.depth);
    else if (word === 'elif' || word === 'else' || word === 'endif') {
      const top = this.conditions[this.conditions.length - 1];
      if (top !== undefined) {
        if (this.depth !== top) unsure(BRANCHES_CHANGE_DEPTH);
        if (word === 'endif') this.conditions.pop();
      }
    }
    const eol = t.indexOf('\n', k);
    this.i = eol < 0 ? t.length : eol;
  }

  /**
   * Skips a comment, string or char literal starting at `this.i` (first char `c`); false when
   * none starts there.
   */
  private skipLexeme(c: number): boolean {
    const t = this.text;
    if (c === SLASH) {
      const d = t.charCodeAt(this.i + 1);
      if (d === SLASH) {
        const eol = t.indexOf('\n', this.i);
        this.i = eol < 0 ? t.length : eol;
        return true;
      }
      if (d === STAR) {
        const end = t.indexOf('*/', this.i + 2);
        if (end < 0) unsure('unterminated block comment');
        this.i = end + 2;
        return true;
      }
      return false;
    }
    if (c === APOS) {
      let j = this.i + 1;
      while (j < t.length) {
        const d = t.charCodeAt(j);
        if (d === BACKSLASH) j += 2;
        else if (d === APOS) {
          j++;
          break;
        } else if (d === NL) break;
        else j++;
      }
      this.i = j;
      return true;
    }
    if (c === QUOTE || ((c === AT || c === DOLLAR) && this.stringPrefix() >= 0)) {
      this.i = this.skipString(this.i);
      return true;
    }
    return false;
  }

  /** Length of a string prefix (`@`, `$`, `$@`, `@$`, `$$…`) at `this.i` followed by `"`; -1 otherwise. */
  private stringPrefix(): number {
    const t = this.text;
    let j = this.i;
    while (j < t.length && (t.charCodeAt(j) === DOLLAR || t.charCodeAt(j) === AT)) j++;
    return t.charCodeAt(j) === QUOTE ? j - this.i : -1;
  }

  /** Skips the string literal starting at `at` (prefix included); returns the index after it. */
  private skipString(at: number): number {
    const t = this.text;
    let j = at;
    let dollars = 0;
    let verbatim = false;
    for (;;) {
      const d = t.charCodeAt(j);
      if (d === DOLLAR) dollars++;
      else if (d === AT) verbatim = true;
      else break;
      j++;
    }
    // j is at the first quote
    let quotes = 0;
    while (t.charCodeAt(j + quotes) === QUOTE) quotes++;
    if (quotes >= 3 && !verbatim) return this.skipRawString(j, quotes, dollars);
    if (quotes === 2) return j + 2; // empty string ""
    j++;
    for (;;) {
      if (j >= t.length) unsure('unterminated string');
      const d = t.charCodeAt(j);
      if (d === QUOTE) {
        if (verbatim && t.charCodeAt(j + 1) === QUOTE) {
          j += 2;
          continue;
        }
        return j + 1;
      }
      if (d === BACKSLASH && !verbatim) {
        j += 2;
        continue;
      }
      if (d === NL && !verbatim) return j; // unterminated: let the parser report it
      if (dollars > 0 && d === LBRACE) {
        if (t.charCodeAt(j + 1) === LBRACE) {
          j += 2;
          continue;
        }
        j = this.skipHole(j + 1, 1);
        continue;
      }
      if (dollars > 0 && d === RBRACE && t.charCodeAt(j + 1) === RBRACE) {
        j += 2;
        continue;
      }
      j++;
    }
  }

  /** A raw string of `quotes` quotes starting at `at`; `dollars` braces open a hole. */
  private skipRawString(at: number, quotes: number, dollars: number): number {
    const t = this.text;
    let j = at + quotes;
    for (;;) {
      if (j >= t.length) unsure('unterminated raw string');
      const d = t.charCodeAt(j);
      if (d === QUOTE) {
        let run = 0;
        while (t.charCodeAt(j + run) === QUOTE) run++;
        if (run >= quotes) return j + run;
        j += run;
        continue;
      }
      if (dollars > 0 && d === LBRACE) {
        let run = 0;
        while (t.charCodeAt(j + run) === LBRACE) run++;
        if (run >= dollars) {
          j = this.skipHole(j + run, dollars);
          continue;
        }
        j += run;
        continue;
      }
      j++;
    }
  }

  /**
   * Skips the code of an interpolation hole starting at `at` up to its closing braces (`closers`
   * of them); returns the index after them. A `:` at the hole's top level starts a format
   * specifier, which runs to the closing brace.
   */
  private skipHole(at: number, closers: number): number {
    const t = this.text;
    const saved = this.i;
    let j = at;
    let nest = 0;
    for (;;) {
      if (j >= t.length) unsure('unterminated interpolation hole');
      const d = t.charCodeAt(j);
      if (d === LPAREN || d === LBRACKET || d === LBRACE) {
        nest++;
        j++;
        continue;
      }
      if (d === RPAREN || d === RBRACKET) {
        if (nest > 0) nest--;
        j++;
        continue;
      }
      if (d === RBRACE) {
        if (nest > 0) {
          nest--;
          j++;
          continue;
        }
        let run = 0;
        while (run < closers && t.charCodeAt(j + run) === RBRACE) run++;
        if (run < closers) unsure('interpolation hole closes early');
        return j + closers;
      }
      if (d === COLON && nest === 0 && t.charCodeAt(j + 1) !== COLON && t.charCodeAt(j - 1) !== COLON) {
        // format specifier: up to the closing brace(s)
        const end = t.indexOf('}'.repeat(closers), j);
        if (end < 0) unsure('unterminated format specifier');
        return end + closers;
      }
      if (d === QUOTE || d === APOS || d === SLASH || d === AT || d === DOLLAR) {
        this.i = j;
        if (this.skipLexeme(d)) {
          j = this.i;
          this.i = saved;
          continue;
        }
        this.i = saved;
      }
      j++;
    }
  }

  /**
   * An expression body (or initialiser lambda) at declaration level, from `at` (after `=>`): when
   * it starts with an identifier or a number and runs to its `;` without braces, and every `#if`
   * group in it closes before that `;`, all of it but that first character is left out (`=> x;`
   * still parses). Returns where the scan continues: the `;`, or `at` when the expression is kept.
   */
  private expressionBody(at: number): number {
    const t = this.text;
    let j = at;
    while (j < t.length && isBlank(t.charCodeAt(j))) j++;
    const first = t.charCodeAt(j);
    if (!isIdentStart(first) && !(first >= 48 && first <= 57)) return at;
    const from = j + 1;
    let parens = 0;
    /** `#if` groups open inside the expression. */
    let groups = 0;
    const saved = this.i;
    try {
      while (j < t.length) {
        const d = t.charCodeAt(j);
        if (d === LBRACE) {
          // A lambda block, initialiser or pattern inside the expression (`=> Assert(x => new {…})`,
          // most of a test file's kept text otherwise): left out with the rest of the expression,
          // unless it holds a local function, which the body scan finds and keeps (then the
          // expression is kept as before).
          const ranges = this.ranges.length;
          const locals = this.localFunctionNames.length;
          const possible = this.localFunctionsPossible;
          const depth = this.depth;
          this.i = j;
          this.body(true);
          if (this.localFunctionNames.length !== locals || this.localFunctionsPossible !== possible || this.depth !== depth) {
            this.ranges.length = ranges;
            this.localFunctionNames.length = locals;
            this.localFunctionsPossible = possible;
            return at;
          }
          this.ranges.length = ranges;
          j = this.i;
          continue;
        }
        if (d === RBRACE) return at;
        if (d === NL) {
          let k = j + 1;
          while (k < t.length && (t.charCodeAt(k) === SPACE || t.charCodeAt(k) === TAB)) k++;
          if (t.charCodeAt(k) === HASH) {
            // a directive line: left out with the expression when its #if group closes inside it
            k++;
            while (k < t.length && (t.charCodeAt(k) === SPACE || t.charCodeAt(k) === TAB)) k++;
            let w = k;
            while (w < t.length && isIdentPart(t.charCodeAt(w))) w++;
            const word = t.slice(k, w);
            if (word === 'if') groups++;
            else if (word === 'endif') groups--;
            else if ((word === 'else' || word === 'elif') && groups === 0) return at;
            if (groups < 0) return at;
            const eol = t.indexOf('\n', w);
            j = eol < 0 ? t.length : eol;
            continue;
          }
          j++;
          continue;
        }
        if (d === LPAREN || d === LBRACKET) parens++;
        else if (d === RPAREN || d === RBRACKET) parens--;
        else if (d === SEMI && parens <= 0) {
          if (groups !== 0) return at;
          if (j - from >= SKELETON_MIN_RANGE_CHARS) this.ranges.push(from, j);
          return j;
        } else if (d === QUOTE || d === APOS || d === SLASH || d === AT || d === DOLLAR) {
          this.i = j;
          if (this.skipLexeme(d)) {
            j = this.i;
            continue;
          }
        }
        j++;
      }
      return at;
    } finally {
      this.i = saved;
    }
  }

  /**
   * The `{` at `this.i` opens a body: blanks its inside up to the closing brace, except the braces
   * themselves (a blanked body keeps its block structure: every `{ … }` left is an empty block,
   * initialiser or pattern, all valid where they stand) and local function declarations: from the
   * statement start through the `{` of their body (whose inside is treated the same way), or
   * through the `;` of an expression body. Leaves `this.i` after the closing brace.
   */
  private body(afterParenthesis: boolean): void {
    const t = this.text;
    const base = this.depth;
    const open = this.i;
    const firstRange = this.ranges.length;
    const localsBefore = this.localFunctionNames.length;
    /** Start of the text not yet blanked or kept. */
    let cursor = this.i + 1;
    /** Per brace level inside the body: where the current statement starts, and open parentheses. */
    const stmt: number[] = [this.i + 1];
    const parens: number[] = [0];
    /** A `Type Name(` seen: where its statement starts and the parenthesis level of its `(`. */
    let pending: { start: number; name: number; level: number; state: 'params' | 'after' | 'where' } | undefined;
    /** Keeping an expression-bodied local function up to the `;` at this level. */
    let keepToSemicolon = -1;
    /** Directive lines since the current statement started, as [start, end) pairs. */
    const directives: number[] = [];
    this.open();
    this.i++;
    while (this.i < t.length) {
      const c = t.charCodeAt(this.i);
      if (this.stepBlank(c)) continue;
      if (c === HASH && this.atLineStart) {
        // directive lines inside a kept declaration are left out (their group is not kept)
        const lineStart = t.lastIndexOf('\n', this.i - 1) + 1;
        this.directive();
        if (keepToSemicolon >= 0) {
          this.ranges.push(lineStart, this.i);
          cursor = this.i;
        } else directives.push(lineStart, this.i);
        continue;
      }
      this.atLineStart = false;
      if (c === SLASH && (t.charCodeAt(this.i + 1) === SLASH || t.charCodeAt(this.i + 1) === STAR)) {
        this.skipLexeme(c); // a comment decides nothing
        continue;
      }
      const level = stmt.length - 1;
      if (pending && pending.state !== 'params') {
        // the token after a candidate's parameter list decides
        if (c === LBRACE) {
          this.keepFrom(cursor, pending.start, directives);
          cursor = this.i; // the brace is kept below
          this.localFunctionNames.push(pending.name);
          pending = undefined;
        } else if (c === EQ && t.charCodeAt(this.i + 1) === GT) {
          this.keepFrom(cursor, pending.start, directives);
          cursor = pending.start;
          keepToSemicolon = level;
          this.localFunctionNames.push(pending.name);
          pending = undefined;
        } else if (pending.state === 'after' && t.startsWith('where', this.i) && !isIdentPart(t.charCodeAt(this.i + 5))) {
          pending.state = 'where';
        } else if (pending.state === 'after' || c === SEMI || c === RBRACE) {
          pending = undefined;
        }
      } else if (pending && (c === SEMI || c === LBRACE || c === RBRACE)) {
        pending = undefined; // not a parameter list after all
      }
      if (isIdentStart(c) || (c === AT && isIdentStart(t.charCodeAt(this.i + 1)))) {
        let j = this.i + 1;
        while (j < t.length && isIdentPart(t.charCodeAt(j))) j++;
        this.i = j;
        continue;
      }
      if (this.skipLexeme(c)) continue;
      switch (c) {
        case LPAREN:
          if (!pending && keepToSemicolon < 0 && parens[level] === 0) {
            const name = declarationBefore(t, stmt[level] as number, this.i);
            if (name >= 0) pending = { start: stmt[level] as number, name, level, state: 'params' };
          }
          parens[level] = (parens[level] as number) + 1;
          break;
        case RPAREN:
          if ((parens[level] as number) > 0) parens[level] = (parens[level] as number) - 1;
          if (pending?.state === 'params' && pending.level === level && parens[level] === 0) pending.state = 'after';
          break;
        case SEMI:
          if (parens[level] === 0) {
            stmt[level] = this.i + 1;
            directives.length = 0;
            if (keepToSemicolon === level) {
              keepToSemicolon = -1;
              cursor = this.i + 1;
            }
          }
          break;
        case LBRACE:
          if (keepToSemicolon < 0) {
            if (this.i > cursor) this.ranges.push(cursor, this.i);
            cursor = this.i + 1;
          } else this.localFunctionsPossible = true; // a lambda in a kept expression body: not scanned for local functions
          this.open();
          stmt.push(this.i + 1);
          parens.push(0);
          directives.length = 0;
          break;
        case RBRACE: {
          if (keepToSemicolon < 0 || stmt.length - 1 <= keepToSemicolon) {
            if (this.i > cursor) this.ranges.push(cursor, this.i);
            cursor = this.i + 1;
            if (stmt.length - 1 <= keepToSemicolon) keepToSemicolon = -1;
          }
          this.close();
          if (this.depth === base) {
            // Method bodies follow `)`; after anything else (accessors, initialisers) a type
            // header inside means this was a container the header scan did not recognise.
            if (!afterParenthesis && TYPE_HEADER.test(t.slice(open + 1, this.i))) unsure('type declaration inside a body');
            if (this.localFunctionNames.length === localsBefore) {
              // no local function: the whole inside is one range (or none when tiny)
              this.ranges.length = firstRange;
              if (this.i - open - 1 >= SKELETON_MIN_RANGE_CHARS) this.ranges.push(open + 1, this.i);
            }
            this.i++;
            return;
          }
          stmt.pop();
          parens.pop();
          stmt[stmt.length - 1] = this.i + 1;
          directives.length = 0;
          break;
        }
        default:
          break;
      }
      this.i++;
    }
    unsure('unterminated body');
  }

  /**
   * A local function declaration is kept from `start`: the text from `cursor` up to it is left
   * out, and so are the directive lines inside the declaration's header.
   */
  private keepFrom(cursor: number, start: number, directives: number[]): void {
    if (start > cursor) this.ranges.push(cursor, start);
    for (let k = 0; k < directives.length; k += 2) {
      if ((directives[k] as number) >= start) this.ranges.push(directives[k] as number, directives[k + 1] as number);
    }
    directives.length = 0;
  }

  private build(): Skeleton {
    const r = this.ranges;
    let blanked = 0;
    for (let k = 0; k < r.length; k += 2) {
      const a = r[k] as number;
      const b = r[k + 1] as number;
      if (b < a || (k > 0 && a < (r[k - 1] as number))) unsure('ranges out of order');
      blanked += b - a;
    }
    const names = this.localFunctionNames;
    return { ranges: r, blanked, localFunctions: names.length, localFunctionNames: names, localFunctionsElsewhere: this.localFunctionsPossible };
  }
}

function onlyBlanks(t: string, a: number, b: number): boolean {
  for (let k = a; k < b; k++) if (!isBlank(t.charCodeAt(k))) return false;
  return true;
}

function newFrame(): DeclFrame {
  return { container: false, last: 0, paren: false, parens: 0, brackets: 0, headerParens: 0, headerBrackets: 0 };
}

function resetHeader(f: DeclFrame): void {
  f.container = false;
  f.paren = false;
  f.headerParens = f.parens;
  f.headerBrackets = f.brackets;
}

/** The skeleton as text: the ranges blanked (every character but line breaks replaced by a space). */
export function skeletonText(t: string, skeleton: Pick<Skeleton, 'ranges'>): string {
  const parts: string[] = [];
  let last = 0;
  const r = skeleton.ranges;
  for (let k = 0; k < r.length; k += 2) {
    const a = r[k] as number;
    const b = r[k + 1] as number;
    parts.push(t.slice(last, a), blank(t, a, b));
    last = b;
  }
  parts.push(t.slice(last));
  return parts.join('');
}

/** `t[a, b)` with everything but line breaks replaced by spaces. */
function blank(t: string, a: number, b: number): string {
  let out = '';
  let run = 0;
  for (let k = a; k < b; k++) {
    const c = t.charCodeAt(k);
    if (c === NL || c === CR) {
      if (run) out += ' '.repeat(run);
      run = 0;
      out += c === NL ? '\n' : '\r';
    } else run++;
  }
  if (run) out += ' '.repeat(run);
  return out;
}

/** Before the `(` at `p`: a name (optionally with type arguments) preceded by a return type; the name's offset or -1. */
function declarationBefore(t: string, a: number, p: number): number {
  let j = p - 1;
  while (j >= a && isBlank(t.charCodeAt(j))) j--;
  if (j >= a && t.charCodeAt(j) === GT) {
    // type parameters: skip back to the matching '<'
    let nest = 0;
    for (; j >= a; j--) {
      const d = t.charCodeAt(j);
      if (d === GT) nest++;
      else if (d === LT) {
        nest--;
        if (nest === 0) break;
      } else if (d === SEMI || d === LBRACE || d === RBRACE || d === LPAREN || d === RPAREN || d === EQ) return -1;
    }
    if (j < a) return -1;
    j--;
    while (j >= a && isBlank(t.charCodeAt(j))) j--;
  }
  const nameEnd = j + 1;
  while (j >= a && isIdentPart(t.charCodeAt(j))) j--;
  const nameStart = j + 1;
  if (nameStart >= nameEnd || !isIdentStart(t.charCodeAt(nameStart))) return -1;
  if (nameEnd - nameStart <= 10 && STATEMENT_NAMES.has(t.slice(nameStart, nameEnd))) return -1;
  if (j >= a && t.charCodeAt(j) === AT) j--;
  const wsEnd = j;
  while (j >= a && isBlank(t.charCodeAt(j))) j--;
  if (j < a) return -1;
  const d = t.charCodeAt(j);
  if (d === GT || d === RBRACKET || d === QMARK || d === STAR || d === RPAREN) {
    // `=>` is an arrow, not the end of a type argument list
    return d === GT && t.charCodeAt(j - 1) === EQ ? -1 : nameStart;
  }
  if (!isIdentPart(d) || wsEnd === j) return -1;
  const wordEnd = j + 1;
  while (j >= a && isIdentPart(t.charCodeAt(j))) j--;
  if (j >= a && t.charCodeAt(j) === 46 /* . */) return nameStart; // qualified type `A.B Name(`
  const word = t.slice(j + 1, wordEnd);
  return word.length <= 10 && NOT_A_RETURN_TYPE.has(word) ? -1 : nameStart;
}
