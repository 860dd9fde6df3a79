/**
 * The queries the bench times: taken from a generated workspace's manifest facts, or sampled from
 * the indexed files of any other workspace (deterministically: every k-th source file by path).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Engine } from '../../server/src/nav/engine';
import type { WorkspaceManifest } from '../fixtures/generate/manifest';

export type QueryKind = 'identifier' | 'literal' | 'regex';

export interface BenchQuery {
  kind: QueryKind;
  /** The text searched for (a regex for kind 'regex'). */
  text: string;
  /** Why this query (e.g. "hot identifier, 24103 files"). */
  label: string;
}

/** search_text mode for a query kind: identifiers as whole words, literals verbatim. */
export function searchMode(kind: QueryKind): 'word' | 'literal' | 'regex' {
  return kind === 'identifier' ? 'word' : kind;
}

export function queriesFromManifest(m: WorkspaceManifest): BenchQuery[] {
  const out: BenchQuery[] = [];
  const sym = (id: string, why: string) => {
    const f = m.facts.find((x) => x.id === id && x.kind === 'symbol');
    if (f && f.kind === 'symbol') out.push({ kind: 'identifier', text: f.name, label: `${why} (${f.mentionFiles} files)` });
  };
  const lit = (id: string, why: string) => {
    const f = m.facts.find((x) => x.id === id && x.kind === 'literal');
    if (f && f.kind === 'literal') out.push({ kind: 'literal', text: f.text, label: `${why} (${f.mentionFiles} files)` });
  };
  if (m.generator.kind === 'csharp') {
    sym('hotInterface', 'hot identifier');
    sym('popularInterface', 'popular interface');
    sym('serviceInterface', 'service interface');
    sym('entity', 'class name');
    sym('ifSplitMethod', 'rare method');
    sym('hugeClass', 'single-file class');
    lit('hotLiteral', 'log message');
    lit('configKey', 'config key');
    lit('midTokenLiteral', 'mid-token substring');
    lit('jsonKey', 'JSON key with quotes');
    out.push({ kind: 'regex', text: String.raw`I\w+Repository\b`, label: 'interface names' });
    out.push({ kind: 'regex', text: String.raw`Compute\w+ScoreAsync\(`, label: 'method calls' });
    out.push({ kind: 'regex', text: String.raw`"[A-Za-z]+:[A-Za-z]+:RetryCount"`, label: 'config key pattern' });
  } else {
    sym('genericClass', 'hot identifier');
    sym('serviceClass', 'class name');
    sym('jsFunction', 'JS function');
    lit('hotLiteral', 'log message');
    lit('describeTitle', 'describe title');
    out.push({ kind: 'regex', text: String.raw`export (class|interface) \w+`, label: 'exported types' });
  }
  return out;
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]{5,40}/g;
const STRING = /"([^"\\\n]{12,60})"/g;

/** Queries for any workspace: identifiers of high/medium/low spread, literals and generic regexes. */
export function queriesFromSample(engine: Engine, sampleFiles = 400): BenchQuery[] {
  const rows = engine
    .catalog()
    .all()
    .filter((r) => (r.fileClass === 'source' || r.fileClass === 'test') && !r.binary && r.size > 0)
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const step = Math.max(1, Math.floor(rows.length / sampleFiles));
  const df = new Map<string, number>();
  const strings = new Map<string, number>();
  let sampled = 0;
  for (let i = 0; i < rows.length; i += step) {
    const r = rows[i];
    if (!r) continue;
    let text: string;
    try {
      text = fs.readFileSync(path.join(engine.root, r.path), 'utf8');
    } catch {
      continue;
    }
    sampled++;
    for (const w of new Set(text.match(IDENT) ?? [])) df.set(w, (df.get(w) ?? 0) + 1);
    for (const m of text.matchAll(STRING)) {
      const s = m[1] as string;
      if (s.includes(' ')) strings.set(s, (strings.get(s) ?? 0) + 1);
    }
  }
  const out: BenchQuery[] = [];
  const byDf = [...df.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const hot = byDf.find(([w]) => /[A-Z]/.test(w) && /[a-z]/.test(w));
  if (hot) out.push({ kind: 'identifier', text: hot[0], label: `hot identifier (${hot[1]}/${sampled} sampled files)` });
  const mids = byDf.filter(([w, n]) => n >= 3 && n <= Math.max(3, sampled / 20) && /[A-Z]/.test(w));
  const mid = mids[Math.floor(mids.length / 2)];
  if (mid) out.push({ kind: 'identifier', text: mid[0], label: `medium identifier (${mid[1]}/${sampled} sampled files)` });
  const rare = byDf.filter(([w, n]) => n === 1 && w.length >= 12 && /[A-Z]/.test(w)).sort((a, b) => b[0].length - a[0].length || (a[0] < b[0] ? -1 : 1))[0];
  if (rare) {
    out.push({ kind: 'identifier', text: rare[0], label: 'rare identifier (1 sampled file)' });
    out.push({ kind: 'literal', text: rare[0].slice(2, 10), label: 'mid-token substring' });
  }
  const lits = [...strings.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  if (lits[0]) out.push({ kind: 'literal', text: lits[0][0], label: `common string literal (${lits[0][1]} sampled files)` });
  const rareLit = lits.filter(([, n]) => n === 1)[0];
  if (rareLit) out.push({ kind: 'literal', text: rareLit[0], label: 'rare string literal' });
  out.push({ kind: 'regex', text: String.raw`\w+Exception\b`, label: 'exception names' });
  out.push({ kind: 'regex', text: String.raw`(TODO|FIXME)`, label: 'TODO markers' });
  out.push({ kind: 'regex', text: String.raw`\bclass\s+[A-Z]\w+`, label: 'class declarations' });
  return out;
}
