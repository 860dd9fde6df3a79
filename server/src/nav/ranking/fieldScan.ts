/**
 * One pass over a source file that sorts its words into the fields the ranking weighs apart:
 * identifiers of the code, words of comments (doc comments included) and words of string literals
 * (log and exception messages, configuration keys). The lexer is the C family's (`//`, `/* *\/`,
 * `"…"`, `'…'`, `` `…` ``, C# `@"…"` and `"""…"""`), with `#` comments for the languages that use
 * them; it never fails — an unterminated literal or comment runs to the end of the file.
 */
import { splitIdentifier } from './words';

export const enum TextField {
  Code = 0,
  Comment = 1,
  String = 2,
}

const HASH_COMMENT_LANGUAGES: ReadonlySet<string> = new Set(['python', 'shellscript', 'bash', 'ruby', 'yaml', 'powershell', 'perl', 'r', 'toml', 'makefile', 'dockerfile']);

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** Identifier → its split words (identifiers repeat across a code base: split each once). */
const splitCache = new Map<string, string[]>();

export function splitCached(run: string): string[] {
  let ws = splitCache.get(run);
  if (ws === undefined) {
    ws = [];
    const out = ws;
    splitIdentifier(run, (w) => out.push(w));
    if (splitCache.size > 500_000) splitCache.clear();
    splitCache.set(run, ws);
  }
  return ws;
}

/**
 * Calls `emit(run, field)` for every identifier-like run of the text (letters and digits, as
 * spelled; split it with `splitCached`). Runs of one character are skipped.
 */
export function scanFields(text: string, language: string | undefined, emit: (run: string, field: TextField) => void): void {
  const hash = language !== undefined && HASH_COMMENT_LANGUAGES.has(language);
  const n = text.length;
  let i = 0;
  const wordsIn = (from: number, to: number, field: TextField) => {
    let k = from;
    while (k < to) {
      if (!isWordChar(text.charCodeAt(k))) {
        k++;
        continue;
      }
      const s = k;
      while (k < to && isWordChar(text.charCodeAt(k))) k++;
      if (k - s >= 2) emit(text.slice(s, k), field);
    }
  };
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isWordChar(c) || c === 95) {
      const s = i;
      while (i < n && (isWordChar(text.charCodeAt(i)) || text.charCodeAt(i) === 95)) i++;
      // A C# verbatim/interpolated prefix is not a word: `@"`, `$"` are handled below.
      wordsIn(s, i, TextField.Code);
      continue;
    }
    const d = i + 1 < n ? text.charCodeAt(i + 1) : 0;
    if ((c === 47 && d === 47) || (hash && c === 35)) {
      // Line comment.
      let e = text.indexOf('\n', i);
      if (e < 0) e = n;
      wordsIn(i, e, TextField.Comment);
      i = e;
      continue;
    }
    if (c === 47 && d === 42) {
      let e = text.indexOf('*/', i + 2);
      e = e < 0 ? n : e + 2;
      wordsIn(i, e, TextField.Comment);
      i = e;
      continue;
    }
    if (c === 34 && text.startsWith('"""', i)) {
      let e = text.indexOf('"""', i + 3);
      e = e < 0 ? n : e + 3;
      wordsIn(i, e, TextField.String);
      i = e;
      continue;
    }
    if (c === 34 || c === 39 || c === 96) {
      // A string (or char) literal; `@"…"` doubles quotes instead of escaping.
      const verbatim = i > 0 && (text.charCodeAt(i - 1) === 64 || (text.charCodeAt(i - 1) === 36 && i > 1 && text.charCodeAt(i - 2) === 64));
      let e = i + 1;
      while (e < n) {
        const x = text.charCodeAt(e);
        if (x === 92 && !verbatim) {
          e += 2;
          continue;
        }
        if (x === c) {
          if (verbatim && e + 1 < n && text.charCodeAt(e + 1) === c) {
            e += 2;
            continue;
          }
          break;
        }
        // A plain string ends at the line's end (a stray quote must not swallow the file).
        if (x === 10 && c !== 96 && !verbatim) break;
        e++;
      }
      e = Math.min(n, e + 1);
      wordsIn(i + 1, e - 1, TextField.String);
      i = e;
      continue;
    }
    i++;
  }
}
