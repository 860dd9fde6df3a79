/**
 * C#-style conditional compilation, handled syntactically: a text with one branch of every
 * `#if` / `#elif` / `#else` group kept and the others blanked (every character but line breaks
 * replaced by a space), so offsets, lines and columns stay those of the original file.
 *
 * tree-sitter parses all branches of an `#if` at once; that fails when branches only make sense
 * one at a time (two alternative class headers, an argument under `#if DEBUG`). Keeping one branch
 * per group gives a parseable file; the caller parses two variants (first and last branches) and
 * unions their declarations, so a declaration that exists only under `#else` is not lost.
 */

/** Which branch of each group survives: the `#if` branch, or the last (`#else` / last `#elif`). */
export type BranchChoice = 'first' | 'last';

const DIRECTIVE = /^[ \t]*#[ \t]*(if|elif|else|endif)\b/;

interface Group {
  /** Line index where each branch starts (the directive line). */
  branches: number[];
  end: number;
  parent: Group | undefined;
  parentBranch: number;
}

/** True when the text has at least one conditional-compilation directive. */
export function hasConditionalDirectives(text: string): boolean {
  return /^[ \t]*#[ \t]*if\b/m.test(text);
}

/**
 * The text with every directive line of `#if` groups blanked and, per group, only the chosen
 * branch kept. Returns undefined when the text has no `#if` group.
 */
export function blankInactiveBranches(text: string, choice: BranchChoice): string | undefined {
  const lines = text.split('\n');
  const groups: Group[] = [];
  const stack: Group[] = [];
  const directiveLine = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!line.includes('#')) continue;
    const m = DIRECTIVE.exec(line);
    if (!m) continue;
    const kind = m[1];
    const top = stack[stack.length - 1];
    if (kind === 'if') {
      const g: Group = { branches: [i], end: lines.length, parent: top, parentBranch: top ? top.branches.length - 1 : 0 };
      groups.push(g);
      stack.push(g);
      directiveLine[i] = 1;
    } else if (!top) {
      directiveLine[i] = 1; // stray #else / #endif: blank it, nothing to choose
    } else if (kind === 'elif' || kind === 'else') {
      top.branches.push(i);
      directiveLine[i] = 1;
    } else {
      top.end = i;
      stack.pop();
      directiveLine[i] = 1;
    }
  }
  if (groups.length === 0) return undefined;

  const keptBranch = (g: Group): number => (choice === 'first' ? 0 : g.branches.length - 1);
  // A line is inactive when, in some enclosing group, it lies in a branch that is not kept.
  const inactive = new Uint8Array(lines.length);
  for (const g of groups) {
    const keep = keptBranch(g);
    for (let b = 0; b < g.branches.length; b++) {
      if (b === keep) continue;
      const from = g.branches[b] ?? 0;
      const to = b + 1 < g.branches.length ? (g.branches[b + 1] ?? g.end) : g.end;
      for (let i = from; i < to; i++) inactive[i] = 1;
    }
  }
  let changed = false;
  for (let i = 0; i < lines.length; i++) {
    if (inactive[i] || directiveLine[i]) {
      const line = lines[i] ?? '';
      const blanked = line.replace(/[^\r]/g, ' ');
      if (blanked !== line) changed = true;
      lines[i] = blanked;
    }
  }
  return changed ? lines.join('\n') : undefined;
}

/**
 * True when every `#if` group has at most two branches and none sits inside another: then the
 * 'first' and 'last' variants between them keep every branch.
 */
export function conditionalsAreSimple(text: string): boolean {
  let depth = 0;
  let branches = 0;
  for (const m of text.matchAll(/^[ \t]*#[ \t]*(if|elif|else|endif)\b/gm)) {
    const kind = m[1];
    if (kind === 'if') {
      if (depth > 0) return false;
      depth = 1;
      branches = 1;
    } else if (kind === 'endif') {
      if (depth === 0) return false;
      depth = 0;
    } else {
      if (depth === 0 || ++branches > 2) return false;
    }
  }
  return depth === 0;
}
