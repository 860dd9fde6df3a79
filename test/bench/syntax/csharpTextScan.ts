/**
 * A tolerant text scan of C# declarations, independent of tree-sitter: the reference the outline
 * is compared with when measuring missed declarations on a real repository. It strips comments and
 * string literals, then matches type declarations and modifier-led method headers line by line.
 */

/** Replaces comments and string/char literals by spaces (line breaks kept). */
export function stripCommentsAndStrings(text: string): string {
  const out = text.split('');
  const n = text.length;
  const blank = (from: number, to: number): void => {
    for (let k = from; k < to && k < n; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  let i = 0;
  while (i < n) {
    const c = text[i];
    const d = text[i + 1];
    if (c === '/' && d === '/') {
      const e = text.indexOf('\n', i);
      const end = e < 0 ? n : e;
      blank(i, end);
      i = end;
    } else if (c === '/' && d === '*') {
      const e = text.indexOf('*/', i + 2);
      const end = e < 0 ? n : e + 2;
      blank(i, end);
      i = end;
    } else if (c === '"' && text.startsWith('"""', i)) {
      let q = 3;
      while (text[i + q] === '"') q++;
      const close = '"'.repeat(q);
      const e = text.indexOf(close, i + q);
      const end = e < 0 ? n : e + q;
      blank(i, end);
      i = end;
    } else if (c === '"') {
      const verbatim = text[i - 1] === '@' || (text[i - 1] === '$' && text[i - 2] === '@') || (text[i - 1] === '@' && text[i - 2] === '$');
      let j = i + 1;
      while (j < n) {
        if (verbatim) {
          if (text[j] === '"' && text[j + 1] === '"') j += 2;
          else if (text[j] === '"') break;
          else j++;
        } else {
          if (text[j] === '\\') j += 2;
          else if (text[j] === '"' || text[j] === '\n') break;
          else j++;
        }
      }
      blank(i, j + 1);
      i = j + 1;
    } else if (c === "'") {
      let j = i + 1;
      if (text[j] === '\\') j += 2;
      else j++;
      while (j < n && j < i + 10 && text[j] !== "'") j++;
      if (text[j] === "'") {
        blank(i, j + 1);
        i = j + 1;
      } else i++;
    } else i++;
  }
  return out.join('');
}

const TYPE = /\b(class|struct|interface|enum|record)\s+(@?[A-Za-z_][A-Za-z0-9_]*)\s*(?=[:<({;\n]|where\b|$)/g;
const MODS = '(?:public|private|protected|internal|static|virtual|override|abstract|async|sealed|extern|unsafe|new|partial|readonly)';
const METHOD = new RegExp(`^[ \\t]*(?:\\[[^\\]\\n]*\\][ \\t]*)*(?:${MODS}[ \\t]+)+(?:[A-Za-z_][\\w.]*(?:<[^;=(){}\\n]*>)?(?:\\[[, ]*\\])*\\??[ \\t]+)([A-Za-z_][A-Za-z0-9_]*)[ \\t]*(?:<[^>()\\n]*>)?[ \\t]*\\(`, 'gm');

/** Declared names a tolerant scan finds: types and modifier-led methods, with their line. */
export function scanCSharpDeclarations(text: string): { name: string; line: number; kind: 'type' | 'method' }[] {
  // Preprocessor lines (#region titles, #if conditions) are not code.
  const clean = stripCommentsAndStrings(text).replace(/^[ \t]*#.*$/gm, (m) => ' '.repeat(m.length));
  const out: { name: string; line: number; kind: 'type' | 'method' }[] = [];
  const lineOf = (idx: number): number => {
    let l = 1;
    for (let k = clean.indexOf('\n'); k >= 0 && k < idx; k = clean.indexOf('\n', k + 1)) l++;
    return l;
  };
  for (const m of clean.matchAll(TYPE)) {
    const before = clean.slice(Math.max(0, (m.index ?? 0) - 12), m.index);
    if (/\b(where\s+\w+\s*:|new)\s*$/.test(before) || /[:,]\s*$/.test(before)) continue; // constraints
    out.push({ name: (m[2] ?? '').replace(/^@/, ''), line: lineOf(m.index ?? 0), kind: 'type' });
  }
  for (const m of clean.matchAll(METHOD)) {
    const name = m[1] ?? '';
    if (/^(?:public|private|protected|internal|static|virtual|override|abstract|async|sealed|extern|unsafe|new|partial|readonly)$/.test(name)) continue;
    if (['if', 'while', 'for', 'foreach', 'switch', 'return', 'using', 'lock', 'catch', 'operator', 'this', 'nameof', 'typeof', 'sizeof', 'default'].includes(name)) continue;
    out.push({ name, line: lineOf(m.index ?? 0), kind: 'method' });
  }
  return out;
}
