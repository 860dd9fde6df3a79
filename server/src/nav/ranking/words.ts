/**
 * The words the ranking compares: identifiers split where their case or letters/digits change
 * (`SqlServerMigrationsSqlGenerator` → sql server migrations sql generator, `JSONReader` → json
 * reader, `utf8` → utf 8), lower-cased, and stemmed by a light suffix stripper (`indexes`/`index`,
 * `altering`/`alter`, `caching`/`cache`, `validation`/`validate`, `entities`/`entity` meet;
 * `mapper` and `map` stay apart: an agent noun names another thing in code). Questions and files go through the same
 * functions, so a word of a title meets the same word inside an identifier, a comment or a log
 * message.
 */

/** Words shorter than this are not ranked (single letters are type parameters and loop variables). */
export const MIN_WORD_CHARS = 2;
/** Longer runs (hashes, base64, long numbers) are not words. */
export const MAX_WORD_CHARS = 40;

/** Words of a question that carry no meaning for where code is (English function words, question scaffolding). */
export const QUESTION_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an the and or nor not no of to in on at by for from with without into onto as is are was were be been being it its this that these those ' +
    'when where which while if then else than so such can could should would will shall may might must do does did done doing have has had having ' +
    'only also all any each every some more most other same too very just over under after before about against between through during above below ' +
    'up down out off again further once here there why how what who whom whose i me my we our you your he she they them their us ' +
    'code file files find locate show tell look looking want need please thing things stuff lives live defined happen happens get gets got ' +
    'fix fixed fixes fixing feat chore perf refactor docs ci build style bug issue issues'
  ).split(' '),
);

const cache = new Map<string, string>();

/** The stem of a lower-case word (cached: code repeats its words). */
export function stem(word: string): string {
  let s = cache.get(word);
  if (s === undefined) {
    s = strip(word);
    if (cache.size > 200_000) cache.clear();
    cache.set(word, s);
  }
  return s;
}

const VOWEL = /[aeiouy]/;

/**
 * Inflections off (plural, -ing, -ed, -ly, -ation/-ion), a doubled final consonant undoubled
 * (`mapped` → map), then a final `e` dropped, so the bare verb and its inflections agree
 * (`cache`, `cached`, `caching` → cach). A stem keeps at least three letters and a vowel.
 */
function strip(w: string): string {
  const n = w.length;
  if (n <= 3 || w.charCodeAt(n - 1) < 97) return w;
  let s = w;
  const keep = (cut: number) => n - cut >= 3 && VOWEL.test(w.slice(0, n - cut));
  if (s.endsWith('ies') && keep(3)) s = `${s.slice(0, -3)}y`;
  else if (s.endsWith('sses')) s = s.slice(0, -2);
  else if (/(x|ch|sh|z)es$/.test(s) && keep(2)) s = s.slice(0, -2);
  else if (s.endsWith('s') && !/(ss|us|is|os)$/.test(s) && keep(1)) s = s.slice(0, -1);
  let verb = false;
  if (s.endsWith('ing') && keep(n - s.length + 3)) {
    s = s.slice(0, -3);
    verb = true;
  } else if (s.endsWith('ed') && !s.endsWith('eed') && keep(n - s.length + 2)) {
    s = s.slice(0, -2);
    verb = true;
  } else if (s.endsWith('ly') && keep(n - s.length + 2)) s = s.slice(0, -2);
  else if (/[ts]ion$/.test(s) && keep(n - s.length + 3)) {
    s = s.slice(0, -3);
    if (s.endsWith('at') && s.length > 5) s = s.slice(0, -2).concat('at');
  }
  if (verb && s.length >= 4 && /([b-df-hj-np-tv-z])\1$/.test(s) && !/(ll|ss|zz)$/.test(s)) s = s.slice(0, -1);
  if (s.endsWith('e') && s.length > 3) s = s.slice(0, -1);
  return s;
}

/**
 * Calls `emit` with each lower-case word of an identifier-like run (letters and digits only).
 * Boundaries: lower→upper (`sqlServer`), upper→upper+lower (`JSONReader` → json reader),
 * letter↔digit (`utf8`, `v2`).
 */
export function splitIdentifier(run: string, emit: (word: string) => void): void {
  const n = run.length;
  let start = 0;
  for (let i = 1; i <= n; i++) {
    let cut = i === n;
    if (!cut) {
      const p = run.charCodeAt(i - 1);
      const c = run.charCodeAt(i);
      const pUpper = p >= 65 && p <= 90;
      const pLower = p >= 97 && p <= 122;
      const pDigit = p >= 48 && p <= 57;
      const cUpper = c >= 65 && c <= 90;
      const cLower = c >= 97 && c <= 122;
      const cDigit = c >= 48 && c <= 57;
      if ((pLower && cUpper) || (pDigit !== cDigit && (pUpper || pLower || cUpper || cLower))) cut = true;
      else if (pUpper && cUpper && i + 1 < n) {
        const nx = run.charCodeAt(i + 1);
        if (nx >= 97 && nx <= 122) cut = true;
      }
    }
    if (cut) {
      const len = i - start;
      if (len >= MIN_WORD_CHARS && len <= MAX_WORD_CHARS) emit(run.slice(start, i).toLowerCase());
      start = i;
    }
  }
}

/** Lower-case split words of any text (identifiers, paths, prose), in order, repeats kept. */
export function words(text: string): string[] {
  const out: string[] = [];
  const re = /[A-Za-z0-9]+/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) splitIdentifier(m[0], (w) => out.push(w));
  return out;
}

/** Stemmed words of a text, repeats kept. */
export function stems(text: string): string[] {
  return words(text).map(stem);
}
