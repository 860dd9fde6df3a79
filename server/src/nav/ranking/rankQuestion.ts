/**
 * A question in words → files ranked by BM25F over the ranking index, each with its best
 * declaration, and the evidence margin between the first and the second (what calibration.ts
 * turns into `located` or `ambiguous`).
 *
 * The question's words are split and stemmed like the files' (words.ts); English function words
 * and question scaffolding are dropped. An identifier the question spells (`ForCtorParam`,
 * `OriginalValues.ToObject`) also counts whole: a file declaring it is lifted. The BM25F score is
 * then weighed by priors: the file's class (test and generated files are not where a change to
 * product behaviour is asked about, unless the question says tests) and its churn (files that
 * many recent commits changed are where the next change lands; git history before now only).
 */
import type { Engine } from '../engine';
import { FIELD_NAMES, type FieldParams } from './bm25f';
import { RANK_DOCS_PER_STEP, RANK_FOLDER_PRIOR_FILES, RANK_QUESTION_MAX_IDENTIFIERS, RANK_QUESTION_MAX_TERMS } from '../../core/limits';
import { runSteps } from '../../core/timeSlice';
import { fieldsOf, scoreSteps, type QueryTerm, type Ranking, type ScoredFile } from './fileRanking';
import { historyVotes } from './history';
import { QUESTION_STOP_WORDS, stem, words } from './words';

export interface RankParams extends FieldParams {
  /** Multiplier of test files' scores when the question does not ask about tests. */
  testPrior: number;
  generatedPrior: number;
  /** Score × (1 + churn · ln(1 + commits that changed the file)). */
  churn: number;
  /** Weight of a word split out of an identifier the question spells (a whole word weighs 1). */
  splitWeight: number;
  /** Score × (1 + declares) for a file declaring an identifier the question spells. */
  declares: number;
  /** Share of the file's score its best declaration's match adds (0 = declarations only explain). */
  declBonus: number;
  /** Score × (1 + vote · v), v ∈ 0..1 the file's vote from past commits like the question (history.ts). */
  vote: number;
  /** Past commits that vote. */
  voters: number;
  /** Score × (1 + folder · share of the question's word weight its folders' words hold), on the first files. */
  folder: number;
}

export const DEFAULT_PARAMS: RankParams = {
  //   dir  name type member code comment string history
  w: [0.6, 3.0, 2.0, 1.2, 1.0, 0.7, 0.9, 1.5],
  b: [0.3, 0.3, 0.5, 0.6, 0.75, 0.6, 0.6, 0.5],
  k1: 1.4,
  testPrior: 0.35,
  generatedPrior: 0.5,
  churn: 0.15,
  splitWeight: 0.6,
  declares: 0.5,
  // 0.3 → 1.2 with folder 0 → 2: chosen leave-one-repository-out (4 of 5 folds) over 0.3-2 × 0-2,
  // held-out test hit@3 68 → 74 of 130 (scripts/history-eval/README.md).
  declBonus: 1.2,
  // Off: on the dev split the votes lowered hit@3 (macro objective 0.879 → 0.811 at 0.5); kept for tuning.
  vote: 0,
  voters: 20,
  folder: 2,
};

export interface ParsedQuestion {
  terms: QueryTerm[];
  /** The words each term came from (for `why`), by term index. */
  words: string[];
  /** Identifiers spelled in the question (camelCase, PascalCase, dotted, with underscores). */
  identifiers: string[];
  wantsTests: boolean;
  /** The question says interface / contract / abstraction. */
  wantsContract: boolean;
}

const CONTRACT_WORDS = /^(interface|interfaces|contract|contracts|abstraction|abstractions|port|ports)$/;
const TEST_WORDS = /^(test|tests|testing|spec|specs|fake|fakes|mock|mocks|fixture|fixtures)$/;

export function parseQuestion(question: string, p: RankParams = DEFAULT_PARAMS): ParsedQuestion {
  const terms: QueryTerm[] = [];
  const from: string[] = [];
  const at = new Map<string, number>();
  const add = (w: string, weight: number) => {
    if (QUESTION_STOP_WORDS.has(w)) return;
    const s = stem(w);
    const k = at.get(s);
    if (k !== undefined) terms[k]!.weight = Math.min(1.5, terms[k]!.weight + weight / 2);
    else if (terms.length < RANK_QUESTION_MAX_TERMS) {
      at.set(s, terms.length);
      terms.push({ stem: s, weight });
      from.push(w);
    }
  };
  const identifiers = new Set<string>();
  for (const m of question.matchAll(/[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*/g)) {
    const run = m[0];
    const parts = words(run);
    const isIdent = parts.length > 1 && (/[a-z][A-Z]|[A-Z]{2}[a-z]|_|\./.test(run) || /^[A-Z][a-z]+[A-Z]/.test(run));
    if (isIdent) {
      for (const seg of run.split('.')) if (seg.length > 2 && identifiers.size < RANK_QUESTION_MAX_IDENTIFIERS && words(seg).length > 1) identifiers.add(seg);
      for (const w of parts) add(w, p.splitWeight);
    } else for (const w of parts) add(w, 1);
  }
  const all = words(question);
  return { terms, words: from, identifiers: [...identifiers], wantsTests: all.some((w) => TEST_WORDS.test(w)), wantsContract: all.some((w) => CONTRACT_WORDS.test(w)) };
}

export interface Declaration {
  name: string;
  kind: string;
  line: number;
  endLine: number;
  container: string;
  depth: number;
}

export interface RankedFile {
  path: string;
  fileId: number;
  score: number;
  /** The BM25F score before priors. */
  text: number;
  test: boolean;
  generated: boolean;
  /** Query words found, with the fields they were found in (for `why`). */
  found: { word: string; fields: string[] }[];
  /** Its best declaration (filled for the first few). */
  best?: Declaration;
  /** Identifiers of the question the file declares. */
  declares: string[];
  /** It declares a name given as a hint or a literal refinement (an exact name). */
  exact?: boolean;
}

export interface RankOptions {
  params?: RankParams;
  /** Keep only these paths (hints, a chosen layer). */
  filter?: ((path: string) => boolean) | undefined;
  /** Files the question's words point at (a layer it names): their scores × LAYER_PRIOR. */
  prefer?: ((path: string) => boolean) | undefined;
  /** Files declaring these names go first (symbol hints, a literal refinement). */
  exact?: string[];
  /** Files whose declarations are read (best declaration, declaration bonus). */
  declare?: number;
  limit?: number;
  /** Fill `found[].fields` of the first candidates (default true; the tuner skips it). */
  explain?: boolean;
}

const DECL_KINDS_SQL = `('class','interface','struct','record','enum','trait','type','module','delegate','method','function','constructor','property','field','event','const','variable')`;

/** What the ranking reads of the syntax layer besides its own index (an engine, or a test's fixture). */
export interface DeclarationSource {
  /** A file's declarations, in line order. */
  declarations(fileId: number): Declaration[];
  /** Files declaring any of the names (exact, case-sensitive) → the names each declares. */
  declaring(names: string[]): Map<number, string[]>;
  pathOf(fileId: number): string | undefined;
}

const sources = new WeakMap<Engine, { version: string; src: DeclarationSource }>();

/** The engine's symbol rows as a DeclarationSource (declarations cached per index version). */
export function engineDeclarations(engine: Engine): DeclarationSource {
  const had = sources.get(engine);
  if (had && had.version === engine.version) return had.src;
  const byFile = new Map<number, Declaration[]>();
  const src: DeclarationSource = {
    declarations(fileId) {
      let d = byFile.get(fileId);
      if (d) return d;
      try {
        d = engine.store
          .rows(`SELECT name, kind, line, end_line, container, depth FROM symbols WHERE file_id = ? AND kind IN ${DECL_KINDS_SQL} ORDER BY line`, [fileId])
          .map((r) => ({ name: String(r[0]), kind: String(r[1]), line: Number(r[2]), endLine: Number(r[3]), container: String(r[4] ?? ''), depth: Number(r[5]) }));
      } catch {
        d = [];
      }
      if (byFile.size >= 2_000) byFile.delete(byFile.keys().next().value!);
      byFile.set(fileId, d);
      return d;
    },
    declaring(names) {
      const out = new Map<number, string[]>();
      if (!names.length) return out;
      try {
        for (const r of engine.store.rows(`SELECT DISTINCT file_id, name FROM symbol_rows WHERE name IN (${names.map(() => '?').join(',')})`, names)) {
          const id = r[0] as number;
          const l = out.get(id) ?? [];
          l.push(String(r[1]));
          out.set(id, l);
        }
      } catch {
        /* no symbols yet */
      }
      return out;
    },
    pathOf: (fileId) => engine.catalog().get(fileId)?.path,
  };
  sources.set(engine, { version: engine.version, src });
  return src;
}

/** The plain ranking calibration.ts compares with: every content field alike (no history), no priors. */
export const PLAIN_PARAMS: FieldParams = { w: [1, 1, 1, 1, 1, 1, 1, 0], b: [0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75], k1: 1.2 };

/** The first production file (not test, not generated) of the plain ranking, if any word matched. */
export function plainFirst(r: Ranking, q: ParsedQuestion, filter?: (path: string) => boolean): string | undefined {
  return runSteps(plainFirstSteps(r, q, filter));
}

export function* plainFirstSteps(r: Ranking, q: ParsedQuestion, filter?: (path: string) => boolean): Generator<void, string | undefined> {
  let best: ScoredFile | undefined;
  const scored = yield* scoreSteps(r, q.terms, PLAIN_PARAMS);
  for (let i = 0; i < scored.length; i++) {
    if (i > 0 && i % RANK_DOCS_PER_STEP === 0) yield;
    const s = scored[i]!;
    if (s.doc.test || s.doc.generated || (filter && !filter(s.doc.path))) continue;
    if (!best || s.score > best.score || (s.score === best.score && s.doc.path < best.doc.path)) best = s;
  }
  return best?.doc.path;
}

/** Score × this for a file in a layer the question names (locateMap.ts: `entity` → domain). */
const LAYER_PRIOR = 1.3;

/** Score × this for a file whose best declaration is an interface, when the question does not ask for a contract. */
const INTERFACE_PRIOR = 0.8;

const TYPE_LEVEL = /^(class|interface|struct|record|enum|trait|type|module)$/;

/** A declaration's name and container stems, split once per declaration (a file's declarations are kept per index version). */
const declStems = new WeakMap<Declaration, { ownWords: string[]; own: Set<string>; around: Set<string> }>();

function declarationStems(d: Declaration): { ownWords: string[]; own: Set<string>; around: Set<string> } {
  let x = declStems.get(d);
  if (!x) {
    const ownWords = words(d.name).map(stem);
    declStems.set(d, (x = { ownWords, own: new Set(ownWords), around: new Set(words(d.container).map(stem)) }));
  }
  return x;
}

/**
 * How well a declaration's name (and container) says the question: the share of the question's
 * word weight in it, times how much of the name is the question's (`Journal` says "journal domain
 * entity" better than `JournalDomainExtensions`, whose `extensions` the question did not ask). 0..1.
 */
export function declarationMatch(d: Declaration, q: ParsedQuestion): number {
  const total = q.terms.reduce((s, t) => s + t.weight, 0) || 1;
  const { ownWords, own, around } = declarationStems(d);
  const asked = new Set(q.terms.map((t) => t.stem));
  let s = 0;
  for (const t of q.terms) {
    if (own.has(t.stem)) s += t.weight;
    else if (around.has(t.stem)) s += t.weight * 0.3;
  }
  const precision = ownWords.length ? ownWords.filter((w) => asked.has(w)).length / ownWords.length : 0;
  return (s / total) * (0.5 + 0.5 * precision);
}

/** The declaration a read should open: the one whose name says most of the question, else the file's main type. */
export function bestDeclaration(decls: Declaration[], q: ParsedQuestion, path: string): { decl: Declaration; match: number } | undefined {
  if (!decls.length) return undefined;
  const stemOfFile = path.slice(path.lastIndexOf('/') + 1).replace(/\.[^.]+$/, '');
  const parts = stemOfFile.split('.');
  const main = decls.find((d) => TYPE_LEVEL.test(d.kind) && d.name === parts[parts.length - 1]) ?? decls.find((d) => TYPE_LEVEL.test(d.kind) && d.name === parts[0]) ?? decls.find((d) => TYPE_LEVEL.test(d.kind)) ?? decls[0]!;
  let best = { decl: main, match: declarationMatch(main, q) };
  for (const d of decls) {
    if (d === main || d.name.length < 3) continue;
    const m = declarationMatch(d, q);
    // A member must say more than its type does to be the read.
    if (m > best.match + 1e-9 && m >= 0.2) best = { decl: d, match: m };
  }
  return best;
}

/** Share of the question's word weight that the stems of the file's folders hold (0..1). */
export function folderShare(path: string, q: ParsedQuestion): number {
  const dirs = new Set(words(path.slice(0, Math.max(0, path.lastIndexOf('/')))).map(stem));
  let total = 0;
  let held = 0;
  for (const t of q.terms) {
    total += t.weight;
    if (dirs.has(t.stem)) held += t.weight;
  }
  return total ? held / total : 0;
}

/** The question's files, best first. */
export function rankQuestion(src: DeclarationSource, r: Ranking, q: ParsedQuestion, o: RankOptions = {}): RankedFile[] {
  return runSteps(rankSteps(src, r, q, o));
}

/**
 * rankQuestion as steps (core/timeSlice.ts): the engine runs them sliced, so a question holds the
 * engine thread at most about NAV_WORK_SLICE_MS at a time (a step per word, per RANK_DOCS_PER_STEP
 * files scored, per file whose declarations are read).
 */
export function* rankSteps(src: DeclarationSource, r: Ranking, q: ParsedQuestion, o: RankOptions = {}): Generator<void, RankedFile[]> {
  const p = o.params ?? DEFAULT_PARAMS;
  const scored: ScoredFile[] = yield* scoreSteps(r, q.terms, p);
  const exactNames = [...new Set([...(o.exact ?? []), ...q.identifiers])];
  const declaring = src.declaring(exactNames);
  const forced = new Set(o.exact ?? []);
  const votes = p.vote > 0 ? historyVotes(r.history, q.terms, p.voters) : new Map<string, number>();
  // Scores first, objects only for the files that can be among the first `keep` (ties included):
  // building one per scored file was most of a question's time on a 5,700-file tree.
  const nDeclWanted = o.declare ?? 12;
  const keep = Math.max(nDeclWanted, o.limit ?? 50, p.folder > 0 ? RANK_FOLDER_PRIOR_FILES : 0);
  const scores = new Float64Array(scored.length);
  for (let i = 0; i < scored.length; i++) {
    if (i > 0 && i % RANK_DOCS_PER_STEP === 0) yield;
    const s = scored[i]!;
    if (o.filter && !o.filter(s.doc.path)) {
      scores[i] = -1;
      continue;
    }
    let score = s.score;
    // A question about tests leans the other way, less strongly (a test change often touches the code it tests).
    if (s.doc.test !== q.wantsTests) score *= s.doc.test ? p.testPrior : Math.sqrt(p.testPrior);
    if (s.doc.generated) score *= p.generatedPrior;
    const commits = r.history.churn.get(s.doc.path) ?? 0;
    score *= 1 + p.churn * Math.log1p(commits);
    score *= 1 + p.vote * (votes.get(s.doc.path) ?? 0);
    const declares = declaring.get(s.doc.fileId);
    if (declares) {
      score *= 1 + p.declares * declares.length;
      if (declares.some((d) => forced.has(d))) score += 1e6;
    }
    if (o.prefer?.(s.doc.path)) score *= LAYER_PRIOR;
    scores[i] = score;
  }
  yield;
  const sortedScores = Float64Array.from(scores).sort();
  const cut = sortedScores.length > keep ? sortedScores[sortedScores.length - keep]! : -Infinity;
  const out: RankedFile[] = [];
  for (let i = 0; i < scored.length; i++) {
    const score = scores[i]!;
    if (score < 0 || score < cut) continue;
    const s = scored[i]!;
    const declares = declaring.get(s.doc.fileId) ?? [];
    const exact = declares.some((d) => forced.has(d));
    out.push({ path: s.doc.path, fileId: s.doc.fileId, score, text: s.score, test: s.doc.test, generated: s.doc.generated, found: s.matched.map((k) => ({ word: q.words[k]!, fields: [] })), declares, ...(exact ? { exact } : {}) });
  }
  // Files declaring a forced name that no word matched still come first.
  for (const [fileId, names] of declaring) {
    if (!names.some((n) => forced.has(n)) || out.some((x) => x.fileId === fileId) || scored.some((x) => x.doc.fileId === fileId)) continue;
    const at = r.byFile.get(fileId);
    const doc = at ? r.indexes[at.ix]!.docs[at.doc]! : undefined;
    const path = doc?.path ?? src.pathOf(fileId);
    if (!path || (o.filter && !o.filter(path))) continue;
    out.push({ path, fileId, score: 1e6, text: 0, test: doc?.test ?? false, generated: doc?.generated ?? false, found: [], declares: names, exact: true });
  }
  out.sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  // Declarations of the first few: the best one is what the candidate shows; how well it says the
  // question adds to the file's score (a file whose one declaration is named for the question beats
  // a longer one that mentions the words in passing).
  const nDecl = Math.min(out.length, nDeclWanted);
  for (let i = 0; i < nDecl; i++) {
    yield;
    const f = out[i]!;
    const b = bestDeclaration(src.declarations(f.fileId), q, f.path);
    if (!b) continue;
    f.best = b.decl;
    f.score *= 1 + p.declBonus * b.match;
    // An interface is the contract, not the code that does it, unless the question asks for one.
    if (b.decl.kind === 'interface' && !q.wantsContract) f.score *= INTERFACE_PRIOR;
  }
  // The folders saying the question's words (`…/Cosmos/Query/…` for "Cosmos query"): a lift of the
  // first files, after their declarations were read (folder words are also a field of the score,
  // where a long path's many words weigh little).
  if (p.folder > 0) for (const f of out) f.score *= 1 + p.folder * folderShare(f.path, q);
  const head = out.slice(0, nDecl).sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const rest = out.slice(nDecl);
  const ranked = (p.folder > 0 ? [...head, ...rest].sort((a, b) => b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) : [...head, ...rest]).slice(0, o.limit ?? 50);
  // Fields of each found word, for the first candidates' `why`.
  for (const f of o.explain === false ? [] : ranked.slice(0, 3)) {
    const at = r.byFile.get(f.fileId);
    if (!at) continue;
    const s: ScoredFile = { doc: r.indexes[at.ix]!.docs[at.doc]!, ix: at.ix, docNo: at.doc, score: f.text, matched: [] };
    f.found = f.found.map((x) => ({ word: x.word, fields: fieldsOf(r, s, stem(x.word)).map((k) => FIELD_NAMES[k]!) }));
  }
  return ranked;
}

