/**
 * The engine's ranking index: every code file (source, test and generated classes, languages with
 * a syntax) as a document of fields — folders and file name (path), declared type and member names
 * (the syntax layer's symbols), identifiers of the code, comments and string literals (one lexer
 * pass, fieldScan.ts), and the subjects of the commits that changed it (history.ts) — kept in
 * memory (fieldIndex.ts) and scored by BM25F (bm25f.ts).
 *
 * Built on first use, in slices that yield to the event loop (other questions keep being answered),
 * and kept current per index version: files whose content hash changed are re-scanned into a small
 * delta index (their old documents die); a delta past RANK_DELTA_MAX_SHARE of the base, or a new
 * git HEAD (the history field moved), rebuilds the whole index. Cached per engine.
 */
import { RANK_DECL_READ_FILES, RANK_DELTA_MAX_SHARE, RANK_DOCS_PER_STEP, RANK_SCAN_MAX_FILE_BYTES } from '../../core/limits';
import { runSteps, runStepsSliced, timeSlice } from '../../core/timeSlice';
import { languageById } from '../../syntax/languageConfig';
import type { Engine } from '../engine';
import type { FileRow } from '../fileCatalog';
import { F_CODE, F_COMMENT, F_DIR, F_HISTORY, F_MEMBER, F_NAME, F_STRING, F_TYPE, FIELD_COUNT, idf, saturate, type FieldParams } from './bm25f';
import { FieldIndex, FieldIndexBuilder, Vocabulary, type RankDoc } from './fieldIndex';
import { scanFields, splitCached, TextField } from './fieldScan';
import { fileHistory, type FileHistory } from './history';
import { loadRanking, saveRanking } from './rankingStore';
import { stem, words } from './words';

const TYPE_KINDS: ReadonlySet<string> = new Set(['class', 'interface', 'struct', 'record', 'enum', 'trait', 'type', 'module', 'delegate']);
const RANKED_CLASSES: ReadonlySet<string> = new Set(['source', 'test', 'generated']);
const TEXT_FIELD: Record<TextField, number> = { [TextField.Code]: F_CODE, [TextField.Comment]: F_COMMENT, [TextField.String]: F_STRING };

export interface Ranking {
  /** Index version the ranking matches. */
  version: string;
  head: string;
  vocab: Vocabulary;
  /** The base, then at most one delta. */
  indexes: FieldIndex[];
  /** fileId → where its live document is. */
  byFile: Map<number, { ix: number; doc: number }>;
  history: FileHistory;
  /** Files of the catalog the ranking covers (live documents). */
  files: number;
  /** Symbols were still being indexed when it was built (declaration fields incomplete). */
  partial: boolean;
  buildMs: number;
}

const cache = new WeakMap<Engine, { ranking?: Ranking; building?: Promise<Ranking> | undefined }>();

/** The engine's ranking for its current index version (built or brought up to date as needed). */
export function ranking(engine: Engine): Promise<Ranking> {
  let c = cache.get(engine);
  if (!c) cache.set(engine, (c = {}));
  const have = c.ranking;
  const partialNow = engine.symbolsPending() > 0;
  // A history that timed out is read again once its retry time has come (and the index rebuilt with it).
  const historyDue = have?.history.retryAt !== undefined && Date.now() >= have.history.retryAt;
  if (have && have.version === engine.version && !(have.partial && !partialNow) && !historyDue) return Promise.resolve(have);
  if (c.building) return c.building;
  const entry = c;
  const p = (async () => {
    try {
      const r = await update(engine, have);
      entry.ranking = r;
      return r;
    } finally {
      entry.building = undefined;
    }
  })();
  c.building = p;
  return p;
}

/** The ranking already built for this engine, whatever its version (no work). */
export function currentRanking(engine: Engine): Ranking | undefined {
  return cache.get(engine)?.ranking;
}

function rankedFiles(engine: Engine): FileRow[] {
  const known = new Map<string, boolean>();
  const hasSyntax = (id: string) => {
    let k = known.get(id);
    if (k === undefined) known.set(id, (k = languageById(id) !== undefined));
    return k;
  };
  return engine.catalog().all().filter((f) => RANKED_CLASSES.has(f.fileClass) && !f.binary && f.language !== undefined && hasSyntax(f.language));
}

async function update(engine: Engine, had: Ranking | undefined): Promise<Ranking> {
  const t0 = performance.now();
  const version = engine.version;
  const partial = engine.symbolsPending() > 0;
  const history = await fileHistory(engine);
  const head = engine.git.head ?? '';
  const files = rankedFiles(engine);
  // The history field of every document is the history's: one read without it is rebuilt with it.
  let prev = had && !(had.history.unavailable && !history.unavailable) ? had : undefined;
  if (!prev) {
    // The ranking saved by an earlier engine on this index (brought up to date below).
    const saved = loadRanking(engine.indexRoot);
    if (saved && saved.head === head) {
      // File ids are the index's: take them from the catalog by path (a rebuilt index renumbers).
      const byFile = new Map<number, { ix: number; doc: number }>();
      saved.index.docs.forEach((d, i) => {
        const row = engine.catalog().byRelPath(d.path);
        if (!row) {
          saved.index.kill(i);
          return;
        }
        d.fileId = row.id;
        byFile.set(d.fileId, { ix: 0, doc: i });
      });
      prev = { version: '', head, vocab: saved.index.vocab, indexes: [saved.index], byFile, history, files: byFile.size, partial: false, buildMs: 0 };
    }
  }
  if (prev && prev.head === head && !prev.partial) {
    // Incremental: re-scan what changed into a new delta (with the live documents of the old delta).
    const base = prev.indexes[0]!;
    const seen = new Set<number>();
    const changed: FileRow[] = [];
    for (const f of files) {
      seen.add(f.id);
      const at = prev.byFile.get(f.id);
      if (!at) changed.push(f);
      else if (prev.indexes[at.ix]!.docs[at.doc]!.hash !== f.hash || at.ix > 0) changed.push(f);
    }
    const removed = [...prev.byFile.keys()].filter((id) => !seen.has(id));
    if (changed.length + removed.length === 0) return { ...prev, version, history, buildMs: prev.buildMs || performance.now() - t0 };
    if (changed.length <= base.docs.length * RANK_DELTA_MAX_SHARE) {
      const builder = new FieldIndexBuilder(prev.vocab);
      await scanInto(engine, builder, changed, history);
      const delta = await runStepsSliced(builder.buildSteps());
      const byFile = new Map(prev.byFile);
      const changedIds = new Set(changed.map((c) => c.id));
      for (const [id, at] of prev.byFile) {
        if (at.ix === 0 && (!seen.has(id) || changedIds.has(id))) base.kill(at.doc);
        if (at.ix > 0 || !seen.has(id)) byFile.delete(id);
      }
      delta.docs.forEach((d, i) => {
        const old = byFile.get(d.fileId);
        if (old) base.kill(old.doc);
        byFile.set(d.fileId, { ix: 1, doc: i });
      });
      return { version, head, vocab: prev.vocab, indexes: [base, delta], byFile, history, files: byFile.size, partial, buildMs: performance.now() - t0 };
    }
  }
  const vocab = new Vocabulary();
  const builder = new FieldIndexBuilder(vocab);
  await scanInto(engine, builder, files, history);
  const base = await runStepsSliced(builder.buildSteps());
  const byFile = new Map<number, { ix: number; doc: number }>();
  base.docs.forEach((d, i) => byFile.set(d.fileId, { ix: 0, doc: i }));
  // A history read that timed out is retried: the next start must not take this base for the HEAD's.
  if (!partial && history.retryAt === undefined) saveRanking(engine.indexRoot, head, base);
  return { version, head, vocab, indexes: [base], byFile, history, files: byFile.size, partial, buildMs: performance.now() - t0 };
}

/** Declared names per file (types and members), from the syntax layer's rows, read RANK_DECL_READ_FILES files at a time with a turn between reads. */
async function declarations(engine: Engine, fileIds: number[], slice: () => Promise<void>): Promise<Map<number, { types: string[]; members: string[] }>> {
  const out = new Map<number, { types: string[]; members: string[] }>();
  const sql = 'SELECT r.file_id, r.name, k.value, r.signature FROM symbol_rows r JOIN symbol_strings k ON k.id = r.kind';
  for (let at = 0; at < fileIds.length; at += RANK_DECL_READ_FILES) {
    await slice();
    const chunk = fileIds.slice(at, at + RANK_DECL_READ_FILES);
    let rows;
    try {
      rows = engine.store.rows(`${sql} WHERE r.file_id IN (${chunk.map(() => '?').join(',')})`, chunk);
    } catch {
      return out; // no symbol tables yet
    }
    for (const r of rows) {
      const id = r[0] as number;
      let e = out.get(id);
      if (!e) out.set(id, (e = { types: [], members: [] }));
      if (TYPE_KINDS.has(String(r[2]))) {
        e.types.push(String(r[1]));
        // A type's base types and interfaces say what it is (`class Journal : IEntity<Guid>`).
        const sig = String(r[3] ?? '');
        const colon = sig.indexOf(':');
        if (colon >= 0) e.types.push(sig.slice(colon + 1, colon + 1 + 200));
      } else e.members.push(String(r[1]));
    }
  }
  return out;
}

/** Scans the files into the builder, a turn for the event loop every NAV_WORK_SLICE_MS of work (a file is the smallest step). */
async function scanInto(engine: Engine, builder: FieldIndexBuilder, files: FileRow[], history: FileHistory): Promise<void> {
  const slice = timeSlice();
  const decls = await declarations(engine, files.map((f) => f.id), slice);
  for (let i = 0; i < files.length; i++) {
    await slice();
    const f = files[i]!;
    let text: string | undefined;
    if (f.size <= RANK_SCAN_MAX_FILE_BYTES) {
      try {
        text = engine.policy.readFile(f.path, RANK_SCAN_MAX_FILE_BYTES).bytes.toString('utf8');
      } catch {
        text = undefined; // gone or unreadable since indexing: path and declarations only
      }
    }
    const d = decls.get(f.id);
    addDocument(builder, {
      doc: { fileId: f.id, path: f.path, hash: f.hash, test: f.fileClass === 'test', generated: f.fileClass === 'generated' },
      language: f.language,
      text,
      types: d?.types ?? [],
      members: d?.members ?? [],
      subjects: history.subjects.get(f.path),
    });
  }
}

/** What one file contributes to the ranking index. */
export interface DocumentInput {
  doc: RankDoc;
  language: string | undefined;
  /** Its content (undefined: path and declarations only). */
  text: string | undefined;
  types: readonly string[];
  members: readonly string[];
  /** Stem → times the subjects of commits that changed it used it. */
  subjects: ReadonlyMap<string, number> | undefined;
}

/** Adds one file's fields to the builder and ends its document. */
export function addDocument(builder: FieldIndexBuilder, d: DocumentInput): void {
  const p = d.doc.path;
  const slash = p.lastIndexOf('/');
  for (const w of words(p.slice(0, Math.max(0, slash)))) builder.add(stem(w), F_DIR);
  const base = p.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  for (const w of words(dot > 0 ? base.slice(0, dot) : base)) builder.add(stem(w), F_NAME);
  for (const n of d.types) for (const w of words(n)) builder.add(stem(w), F_TYPE);
  for (const n of d.members) for (const w of words(n)) builder.add(stem(w), F_MEMBER);
  if (d.subjects) for (const [s, n] of d.subjects) builder.add(s, F_HISTORY, n);
  if (d.text !== undefined) {
    // Count each spelling once per field, then split and stem the distinct ones (a file repeats
    // its identifiers: ~10× fewer splits than tokens).
    const runs: Map<string, number>[] = [new Map(), new Map(), new Map()];
    scanFields(d.text, d.language, (run, field) => {
      const m = runs[field]!;
      m.set(run, (m.get(run) ?? 0) + 1);
    });
    runs.forEach((m, field) => {
      for (const [run, n] of m) for (const w of splitCached(run)) builder.add(stem(w), TEXT_FIELD[field as TextField], n);
    });
  }
  builder.endDoc(d.doc);
}

/** A ranking over given documents (no engine: tests and tools). */
export function rankingOf(docs: readonly DocumentInput[], history: FileHistory): Ranking {
  const vocab = new Vocabulary();
  const builder = new FieldIndexBuilder(vocab);
  for (const d of docs) addDocument(builder, d);
  const base = builder.build();
  const byFile = new Map<number, { ix: number; doc: number }>();
  base.docs.forEach((d, i) => byFile.set(d.fileId, { ix: 0, doc: i }));
  return { version: 'memory', head: '', vocab, indexes: [base], byFile, history, files: byFile.size, partial: false, buildMs: 0 };
}

// ─── scoring ───────────────────────────────────────────────────────────────────

export interface QueryTerm {
  stem: string;
  /** The question's weight for the term (1 = a whole word of the question). */
  weight: number;
}

export interface ScoredFile {
  doc: RankDoc;
  ix: number;
  docNo: number;
  /** BM25F score. */
  score: number;
  /** Query terms found, by index into the query. */
  matched: number[];
}

/** BM25F scores of every live document holding at least one of the terms. */
export function scoreFiles(r: Ranking, terms: readonly QueryTerm[], p: FieldParams): ScoredFile[] {
  return runSteps(scoreSteps(r, terms, p));
}

/** scoreFiles as steps (core/timeSlice.ts): a step per term and per RANK_DOCS_PER_STEP results. */
export function* scoreSteps(r: Ranking, terms: readonly QueryTerm[], p: FieldParams): Generator<void, ScoredFile[]> {
  const out: ScoredFile[] = [];
  const docsTotal = r.indexes.reduce((s, x) => s + x.liveCount, 0);
  for (let k = 0; k < r.indexes.length; k++) {
    const ix = r.indexes[k]!;
    const n = ix.docs.length;
    const score = new Float64Array(n);
    const acc = new Float64Array(n);
    const matched: number[][] = [];
    const touchedAll: number[] = [];
    const raw = ix.raw();
    for (let qi = 0; qi < terms.length; qi++) {
      const q = terms[qi]!;
      const id = r.vocab.ids.get(q.stem);
      if (id === undefined) continue;
      yield;
      const touched: number[] = [];
      for (let f = 0; f < FIELD_COUNT; f++) {
        const w = p.w[f]!;
        if (w === 0) continue;
        const b = p.b[f]!;
        const avg = ix.avg[f] || 1;
        const len = ix.len[f]!;
        // The postings read in place (doc << 8 | tf; a callback per posting was most of a question's time).
        const off = raw.offsets[f]!;
        if (id + 1 >= off.length) continue;
        const post = raw.postings[f]!;
        for (let i = off[id]!, e = off[id + 1]!; i < e; i++) {
          const v = post[i]!;
          const doc = v >>> 8;
          if (acc[doc] === 0) touched.push(doc);
          acc[doc]! += (w * (v & 255)) / (1 - b + (b * len[doc]!) / avg);
        }
      }
      // df over the base (the delta is small; its documents share the base's statistics).
      let df = 0;
      for (let f = 0; f < FIELD_COUNT; f++) df = Math.max(df, r.indexes[0]!.count(f, id));
      const i = idf(docsTotal, Math.max(df, touched.length));
      for (const doc of touched) {
        if (!ix.dead[doc]) {
          if (score[doc] === 0) touchedAll.push(doc);
          score[doc]! += q.weight * i * saturate(p.k1, acc[doc]!);
          (matched[doc] ??= []).push(qi);
        }
        acc[doc] = 0;
      }
    }
    for (let j = 0; j < touchedAll.length; j++) {
      if (j > 0 && j % RANK_DOCS_PER_STEP === 0) yield;
      const doc = touchedAll[j]!;
      out.push({ doc: ix.docs[doc]!, ix: k, docNo: doc, score: score[doc]!, matched: matched[doc] ?? [] });
    }
  }
  return out;
}

/** A term's frequency per field in one document (for the `why` of a candidate). */
export function fieldsOf(r: Ranking, s: ScoredFile, termStem: string): number[] {
  const id = r.vocab.ids.get(termStem);
  const out: number[] = [];
  if (id === undefined) return out;
  const ix = r.indexes[s.ix]!;
  for (let f = 0; f < FIELD_COUNT; f++) if (ix.tfOf(f, id, s.docNo)) out.push(f);
  return out;
}

/** BM25F parameters that compare names only: folders, file name, declared types and members. */
const NAME_PARAMS: FieldParams = { w: [0.4, 3, 2, 0.6, 0, 0, 0, 0], b: [0.3, 0.3, 0.5, 0.6, 0, 0, 0, 0], k1: 1.2 };

/**
 * Files whose names say the given words (a type's name, its file's name): test files named like a
 * production type (`ConfigurationValidation` for `ConfigurationValidator`, `StateManagerTests` for
 * `JournaledStateManager`). Best first, each with its score over the best one's (0..1].
 */
export function similarlyNamed(r: Ranking, names: readonly string[], keep: (d: RankDoc) => boolean, k: number): { doc: RankDoc; share: number; words: string[] }[] {
  const stems = [...new Set(names.flatMap((n) => words(n)).map(stem))];
  const terms = stems.map((s) => ({ stem: s, weight: 1 }));
  const scored = scoreFiles(r, terms, NAME_PARAMS).filter((s) => keep(s.doc));
  scored.sort((a, b) => b.score - a.score || (a.doc.path < b.doc.path ? -1 : 1));
  const top = scored[0]?.score ?? 0;
  return scored.slice(0, k).map((s) => ({ doc: s.doc, share: top ? s.score / top : 0, words: s.matched.map((i) => stems[i]!) }));
}
