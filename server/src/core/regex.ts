/**
 * Regular expressions from untrusted sources (tool arguments, tree-sitter query predicates) run
 * in bounded time.
 *
 * - `enableBoundedRegex()` turns on V8's linear-time regex engine (the `l` flag) and makes every
 *   regex in the process fall back to it after REGEX_BACKTRACKS_BEFORE_FALLBACK backtracking steps.
 *   The fallback covers only patterns the linear engine supports.
 * - `compileBoundedRegex()` therefore compiles a user pattern with the `l` flag: it is accepted
 *   only when it can run in linear time (no backreferences, lookaround, large counted repetition).
 *   A refused pattern gets INVALID_REGEX with the reason, never a hung engine.
 * - Where the linear engine is missing (a V8 without it), patterns with the known catastrophic
 *   shapes (nested quantifiers, quantified alternation of overlapping branches is not detectable,
 *   backreferences, lookaround) are refused instead; this is a heuristic, and is reported as such.
 */
import * as v8 from 'node:v8';
import { MAX_REGEX_CHARS, REGEX_BACKTRACKS_BEFORE_FALLBACK } from './limits';

let linear: boolean | undefined;

/** Enables the linear-time engine and the excessive-backtracking fallback (idempotent). */
export function enableBoundedRegex(): boolean {
  if (linear !== undefined) return linear;
  try {
    v8.setFlagsFromString('--enable-experimental-regexp-engine');
    v8.setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
    v8.setFlagsFromString(`--regexp-backtracks-before-fallback=${REGEX_BACKTRACKS_BEFORE_FALLBACK}`);
    new RegExp('a', 'l');
    linear = true;
  } catch {
    linear = false;
  }
  return linear;
}

export type BoundedRegex = { ok: true; re: RegExp; linear: boolean } | { ok: false; reason: string };

/** Compiles an untrusted pattern so that matching it takes time linear in the subject, or says why not. */
export function compileBoundedRegex(source: string, flags = ''): BoundedRegex {
  if (source.length > MAX_REGEX_CHARS) return { ok: false, reason: `the pattern is longer than ${MAX_REGEX_CHARS} characters` };
  try {
    new RegExp(source, flags);
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
  if (enableBoundedRegex()) {
    try {
      return { ok: true, re: new RegExp(source, flags + 'l'), linear: true };
    } catch {
      return {
        ok: false,
        reason: 'the pattern cannot run in linear time (backreferences, lookaround, case-insensitive or Unicode flags, or large counted repetition are not accepted)',
      };
    }
  }
  const risky = catastrophicShape(source);
  if (risky) return { ok: false, reason: risky };
  return { ok: true, re: new RegExp(source, flags), linear: false };
}

/** Heuristic for engines without the linear mode: the shapes that backtrack exponentially (the reason, or undefined). */
export function catastrophicShape(src: string): string | undefined {
  if (/\\[1-9]|\\k</.test(src)) return 'backreferences are not accepted';
  if (/\(\?<?[=!]/.test(src)) return 'lookaround is not accepted';
  // A quantified group that itself contains a quantifier: (a+)+, (\w*x)*, (a|b+){2,}.
  if (/\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)\s*[+*{]/.test(src)) return 'nested quantifiers are not accepted';
  return undefined;
}
