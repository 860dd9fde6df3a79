/**
 * Name matching for search_symbol: every matcher returns a tier (lower is better) and a score
 * within the tier, or undefined for no match. Tiers: 0 exact (same case), 1 exact (other case),
 * 2 prefix, 3 camelCase / substring / regex, 4 fuzzy.
 */

export interface NameMatch {
  tier: number;
  /** Lower is better inside a tier. */
  score: number;
}

/** Splits an identifier into words: GetRequiredService → Get|Required|Service, XMLHttpRequest → XML|Http|Request, get_x → get|x. */
export function words(name: string): string[] {
  const out: string[] = [];
  const re = /[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+/g;
  for (const part of name.split(/[_\-$@.\s]+/)) {
    if (!part) continue;
    const m = part.match(re);
    if (m) out.push(...m);
    else out.push(part);
  }
  return out;
}

function exactOrPrefix(name: string, lower: string, q: string, ql: string): NameMatch | undefined {
  if (name === q) return { tier: 0, score: 0 };
  if (lower === ql) return { tier: 1, score: 0 };
  if (lower.startsWith(ql)) return { tier: 2, score: name.length - q.length + (name.startsWith(q) ? 0 : 0.5) };
  return undefined;
}

export function matchExact(name: string, lower: string, q: string, ql: string): NameMatch | undefined {
  const m = exactOrPrefix(name, lower, q, ql);
  return m && m.tier <= 1 ? m : undefined;
}

export function matchPrefix(name: string, lower: string, q: string, ql: string): NameMatch | undefined {
  return exactOrPrefix(name, lower, q, ql);
}

export function matchSubstring(name: string, lower: string, q: string, ql: string): NameMatch | undefined {
  const m = exactOrPrefix(name, lower, q, ql);
  if (m) return m;
  const at = lower.indexOf(ql);
  return at >= 0 ? { tier: 3, score: at + (name.length - q.length) / 100 } : undefined;
}

/**
 * camelCase: the query is split into chunks, each a prefix of a word, words in order
 * (GRS, GetReqServ, reqServ → GetRequiredService). Score: words skipped before and between chunks.
 */
export function matchCamel(name: string, lower: string, q: string, ql: string): NameMatch | undefined {
  const m = exactOrPrefix(name, lower, q, ql);
  if (m) return m;
  const ws = words(name).map((w) => w.toLowerCase());
  if (ws.length === 0) return undefined;
  // Cheap reject: the query's first character must start some word.
  const c0 = ql[0];
  if (!ws.some((w) => w[0] === c0)) return undefined;
  let best = Infinity;
  let steps = 0;
  const go = (qi: number, wi: number, skipped: number): void => {
    if (skipped >= best || ++steps > 2_000) return;
    if (qi === ql.length) {
      best = skipped;
      return;
    }
    for (let w = wi; w < ws.length; w++) {
      const word = ws[w] ?? '';
      const skip = skipped + (w - wi);
      if (skip >= best) return;
      let k = 0;
      while (k < word.length && qi + k < ql.length && word[k] === ql[qi + k]) k++;
      // try the longest chunk first, then shorter ones (a chunk may end early: GReS)
      for (let len = k; len >= 1; len--) go(qi + len, w + 1, skip);
    }
  };
  go(0, 0, 0);
  return best === Infinity ? undefined : { tier: 3, score: best + name.length / 1000 };
}

/** Fuzzy: the query's characters appear in order; consecutive runs and word starts score better. */
export function matchFuzzy(name: string, lower: string, q: string, ql: string): NameMatch | undefined {
  const m = matchCamel(name, lower, q, ql);
  if (m) return m;
  let qi = 0;
  let gaps = 0;
  let last = -1;
  for (let i = 0; i < lower.length && qi < ql.length; i++) {
    if (lower[i] === ql[qi]) {
      if (last >= 0 && i > last + 1) gaps++;
      last = i;
      qi++;
    }
  }
  if (qi < ql.length) return undefined;
  return { tier: 4, score: gaps * 10 + (name.length - q.length) / 100 };
}
