/**
 * locate_code: a deterministic gateway for "where is the code that does X" (seed 002), no LLM.
 * The question's words rank the workspace's files by BM25F over their paths, declarations, code,
 * comments, string literals and past commit subjects (nav/ranking/); a candidate is a file with its
 * best declaration. The answer says `located` only when the evidence margin between the first and
 * the second file clears the calibrated threshold (ranking/calibration.ts), else `ambiguous` with
 * what tells the candidates apart. The question's words are also classified against the
 * architecture map (locateMap.ts): the layers it names are offered as refinements and label the
 * candidates. The best candidate is verified one hop (its declaration is live, and another file
 * uses it); the answer is a location packet: status, ≤ 3 candidates, ≤ 2 recommended reads (path +
 * line range, never source) and a locator. A refinement is the same tool with `locator` + `choice` (a
 * candidate number, a layer id, or a literal clue: one exact search), at most two per locator; a
 * refinement whose candidates are the ones it had answers `progress: unchanged`.
 *
 * A locator is signed with a key of this engine process and carries the index version and when it
 * was issued: another server's, a tampered one, one older than LOCATE_LOCATOR_TTL_MS, or one whose
 * candidate files changed since its index version is `Error [STALE_LOCATOR]`.
 */
import * as crypto from 'node:crypto';
import * as zlib from 'node:zlib';
import picomatch from 'picomatch';
import { ToolError } from '../../core/errors';
import { runStepsSliced } from '../../core/timeSlice';
import {
  LOCATE_LOCATOR_TTL_MS,
  LOCATE_MAX_ANSWER_BYTES,
  LOCATE_ENVELOPE_RESERVE_BYTES,
  LOCATE_MAX_CANDIDATES,
  LOCATE_MAX_REFINEMENTS,
  LOCATE_MAX_SCOPES,
  LOCATE_READ_MAX_LINES,
  RANK_ANSWER_RESERVE_MS,
  RANK_QUESTION_MAX_TERMS,
} from '../../core/limits';
import type { Engine } from '../engine';
import { evidenceOf, isLocated, type Evidence } from '../ranking/calibration';
import { ranking } from '../ranking/fileRanking';
import { engineDeclarations, parseQuestion, plainFirstSteps, rankSteps, type RankedFile } from '../ranking/rankQuestion';
import { changedSince } from '../semanticTarget';
import { searchText } from '../textSearch';
import { architectureMap, splitWords, type ArchitectureMap, type Layer } from './locateMap';

export type LocateStatus = 'located' | 'ambiguous' | 'insufficient_coverage' | 'needs_user_input' | 'not_indexed' | 'stale_index';

export interface LocateCandidate {
  name: string;
  kind: string;
  path: string;
  line: number;
  endLine: number;
  layer?: string;
  why: string;
}

export interface LocateRead {
  path: string;
  startLine: number;
  endLine: number;
}

export interface LocateAnswer {
  status: LocateStatus;
  candidates: LocateCandidate[];
  reads: LocateRead[];
  /** Layers searched, best first, with the words that chose them. */
  scopes: { layer: string; matched: string[] }[];
  /** For `ambiguous`: what `choice` can be (candidate numbers and layer ids). */
  choices?: string[];
  progress?: 'new' | 'unchanged';
  locator?: string;
  refinementsLeft?: number;
  /** What the caller does next. */
  next: string;
  /** One-hop verification of the first candidate. */
  verified?: string;
  note?: string;
  /** The ranking's evidence for the status (not part of the tool's answer: the evaluation reads it). */
  evidence?: Evidence;
}

export interface LocateRequest {
  question?: string | undefined;
  hints?: string[] | undefined;
  locator?: string | undefined;
  choice?: string | undefined;
  deadlineAt: number;
}

/** The locator's body (signed). */
export interface LocatorState {
  /** Index version. */
  v: string;
  /** Issued at (epoch ms). */
  t: number;
  q: string;
  h: string[];
  /** Refinements used. */
  r: number;
  /** Layer chosen by a refinement. */
  l?: string;
  /** Candidate signature (what a refinement compares). */
  s: string;
  /** Candidates as [name, kind, path, line, endLine, layer]. */
  c: [string, string, string, number, number, string][];
}

const KEY = crypto.randomBytes(32);
const STOP = new Set(
  ('a an the is are was were be been of in on at to for from by with without into onto and or not no where which what who whom whose how why when ' +
    'does do did done doing code file files find locate show me my our we i you it its this that these those there here handled handle handles ' +
    'implemented implement implements lives live defined define logic part parts thing things stuff happen happens get gets got can could should would ' +
    'will shall may might must any all some each every one two used use uses using called call calls please tell look looking want need our')
    .split(/\s+/),
);

export async function locateCode(engine: Engine, req: LocateRequest): Promise<LocateAnswer> {
  let state: LocatorState | undefined;
  if (req.locator !== undefined) state = openLocator(engine, req.locator);
  if (state && state.r >= LOCATE_MAX_REFINEMENTS) {
    return {
      status: 'needs_user_input',
      candidates: [],
      reads: [],
      scopes: [],
      next: `ask the user for an exact symbol, error message or path, then call locate_code with a new question (this locator had its ${LOCATE_MAX_REFINEMENTS} refinements)`,
      refinementsLeft: 0,
    };
  }
  const question = state ? state.q : (req.question ?? '').trim();
  const hints = state ? state.h : (req.hints ?? []).map((h) => h.trim()).filter(Boolean);

  const catalog = engine.catalog().all();
  if (catalog.length === 0) return bare('not_indexed', 'the workspace is not indexed yet: wait for indexing (repo_overview shows it) and ask again');

  const map = architectureMap(engine);
  const words = splitWords(question);
  const terms = [...new Set(words.filter((w) => !STOP.has(w) && w.length > 1))].slice(0, RANK_QUESTION_MAX_TERMS);
  // Refinement choices: a candidate number, a layer id, else a literal clue.
  let layerChoice = state?.l;
  let picked: LocatorState['c'][number] | undefined;
  let literal: string | undefined;
  if (state && req.choice !== undefined) {
    const ch = req.choice.trim();
    const num = /^[1-9]$/.test(ch) ? Number(ch) : undefined;
    if (num !== undefined) {
      picked = state.c[num - 1];
      if (!picked) throw new ToolError('INVALID_ARGUMENT', `choice ${num} is not one of the ${state.c.length} candidates of this locator`, state.c.length ? `pass a number from 1 to ${state.c.length}, a layer id, or a symbol/path clue` : 'pass a layer id or a symbol/path clue');
    } else if (map.layers.some((l) => l.id === ch.toLowerCase())) layerChoice = ch.toLowerCase();
    else literal = ch;
  }

  const scored = classify(map, terms, layerChoice);
  // The best layers, and the whole workspace as the last scope (a question whose words point at the
  // wrong layer still finds its symbol, ranked below in-layer ones); a chosen layer alone.
  const scopes = scored.slice(0, layerChoice ? 1 : LOCATE_MAX_SCOPES - 1);
  const pathHints = hints.filter((h) => h.includes('/') || /\.[a-z]{1,5}$/i.test(h));
  const symbolHints = [...hints.filter((h) => !pathHints.includes(h)), ...(literal ? [literal] : [])];
  const parsed = parseQuestion([question, ...symbolHints].join(' '));

  let candidates: LocateCandidate[];
  let evidence: Evidence | undefined;
  if (picked) {
    candidates = [{ name: picked[0], kind: picked[1], path: picked[2], line: picked[3], endLine: picked[4], ...(picked[5] ? { layer: picked[5] } : {}), why: 'chosen by refinement' }];
  } else {
    if (parsed.terms.length === 0 && symbolHints.length === 0) {
      return {
        ...bare('needs_user_input', 'ask the user for a symbol, error message or path clue, then call locate_code again with it as a hint'),
        scopes: scopes.map((s) => ({ layer: s.layer.id, matched: s.matched })),
        note: terms.length ? `the question names only layers (${terms.join(', ')}), nothing to search for inside them` : 'the question has no searchable words',
      };
    }
    const r = await Promise.race([ranking(engine), new Promise<undefined>((res) => setTimeout(() => res(undefined), Math.max(0, req.deadlineAt - Date.now() - RANK_ANSWER_RESERVE_MS)).unref())]);
    if (!r) {
      return {
        ...bare('not_indexed', 'the ranking index is being built (first question after start): ask the same question again in a few seconds'),
        note: `ranking ${engine.catalog().size} files`,
      };
    }
    const named = !layerChoice && scopes[0] ? picomatch(scopes[0].layer.globs, { dot: true, nocase: true }) : undefined;
    const filter = filterOf(map, layerChoice, pathHints);
    // Sliced: a long question ranks in pieces while other agents' calls are answered.
    const ranked = await runStepsSliced(rankSteps(engineDeclarations(engine), r, parsed, { filter, prefer: named, exact: symbolHints, limit: LOCATE_MAX_CANDIDATES + 1 }));
    evidence = evidenceOf(ranked, parsed, ranked.length ? await runStepsSliced(plainFirstSteps(r, parsed, filter)) : undefined);
    candidates = ranked.slice(0, LOCATE_MAX_CANDIDATES).map((f) => candidateOf(engine, map, f, ranked));
    if (r.partial && !ranked.length) candidates = [];
  }

  const signature = crypto.createHash('sha256').update(candidates.map((c) => `${c.path}:${c.line}:${c.name}`).join('|')).digest('base64url').slice(0, 16);
  // A chosen candidate is new evidence (its status is the user's choice), even when it was the first.
  const unchanged = state !== undefined && !picked && signature === state.s;

  let status: LocateStatus;
  const symbolsPending = engine.symbolsPending() > 0;
  if (candidates.length === 0) status = 'insufficient_coverage';
  else if (candidates.some((c) => changedSince(engine, c.path))) status = 'stale_index';
  else if (picked || (evidence !== undefined && isLocated(evidence))) status = 'located';
  else status = 'ambiguous';

  const top = candidates[0];
  const reads: LocateRead[] = [];
  let verified: string | undefined;
  if (top && (status === 'located' || status === 'ambiguous')) {
    reads.push(readOf(top));
    const other = await oneHop(engine, top, req.deadlineAt);
    // The candidate's path is in the candidate row already: said once.
    if (other) verified = `candidate 1 (${top.name}) is declared there and used in ${other.path}:${other.line}`;
    else verified = `candidate 1 (${top.name}) is declared there; no other file mentions it`;
    if (status === 'ambiguous' && candidates[1]) reads.push(readOf(candidates[1]));
    else if (other) reads.push({ path: other.path, startLine: Math.max(1, other.line - 5), endLine: other.line + 15 });
  }

  const refinementsLeft = LOCATE_MAX_REFINEMENTS - (state ? state.r + 1 : 0);
  const next: Record<LocateStatus, string> = {
    located: 'read only the recommended reads (source_context)',
    ambiguous: 'call locate_code with this locator and a choice: a candidate number, a layer id, or a symbol/path clue',
    insufficient_coverage: 'add one narrow hint (a symbol, error text or path) with the locator as choice, or report the gap',
    needs_user_input: 'ask the user for a symbol, error message or path clue',
    not_indexed: 'wait for indexing (repo_overview) and ask again',
    stale_index: 'files changed since indexing: ask again once the index is fresh (repo_overview)',
  };
  const out: LocateAnswer = {
    status,
    candidates: unchanged ? [] : candidates.map((c) => ({ ...c, why: clip(c.why, 160) })),
    reads: unchanged ? [] : reads,
    scopes: [...scopes.map((s) => ({ layer: s.layer.id, matched: s.matched })), ...(layerChoice ? [] : [{ layer: '*', matched: [] }])],
    next: unchanged ? `the refinement changed nothing: ${status === 'located' ? next.located : 'give an exact symbol or path, or report the gap'}` : next[status],
  };
  if (state) out.progress = unchanged ? 'unchanged' : 'new';
  if (status === 'ambiguous' && !unchanged) out.choices = [...candidates.map((_, i) => String(i + 1)), ...scored.slice(0, LOCATE_MAX_SCOPES).map((s) => s.layer.id)];
  if (verified && !unchanged) out.verified = verified;
  if (status === 'insufficient_coverage' && symbolsPending) out.note = `symbols of ${engine.symbolsPending()} file(s) are not indexed yet`;
  else if (map.fileProblem) out.note = `${map.fileProblem}; the inferred map was used`;
  else if (map.source === 'empty') out.note = 'no architecture map (no projects or source folders): one workspace-wide search';
  if (evidence) out.evidence = evidence;
  if (refinementsLeft > 0) {
    const body: LocatorState = {
      v: engine.version,
      t: state?.t ?? Date.now(),
      q: question,
      h: hints,
      r: state ? state.r + 1 : 0,
      s: signature,
      c: (unchanged ? state!.c : candidates.map((c): LocatorState['c'][number] => [c.name, c.kind, c.path, c.line, c.endLine, c.layer ?? ''])),
    };
    if (layerChoice) body.l = layerChoice;
    out.locator = sealLocator(body);
    out.refinementsLeft = refinementsLeft;
  }
  return fitAnswer(out);
}

/**
 * The answer within LOCATE_MAX_ANSWER_BYTES (with LOCATE_ENVELOPE_RESERVE_BYTES left for the
 * envelope the tool adds: summary, index, completeness): the candidates' `why` is shortened first
 * (the reasons after the first are the least telling), then the last candidate goes (its read too).
 */
export function fitAnswer(out: LocateAnswer, max = LOCATE_MAX_ANSWER_BYTES - LOCATE_ENVELOPE_RESERVE_BYTES): LocateAnswer {
  const size = () => Buffer.byteLength(JSON.stringify({ ...out, evidence: undefined }));
  for (const n of [120, 80, 48]) {
    if (size() <= max) return out;
    out.candidates = out.candidates.map((c) => ({ ...c, why: clip(c.why, n) }));
  }
  while (size() > max && out.candidates.length > 1) {
    const gone = out.candidates.pop()!;
    out.reads = out.reads.filter((r) => r.path !== gone.path || out.candidates.some((c) => c.path === r.path));
    if (out.choices) out.choices = out.choices.filter((c) => c !== String(out.candidates.length + 1));
  }
  return out;
}

function bare(status: LocateStatus, next: string): LocateAnswer {
  return { status, candidates: [], reads: [], scopes: [], next };
}

/** Layers by how many question words name them (ties: map order); a chosen layer alone. */
function classify(map: ArchitectureMap, terms: string[], chosen: string | undefined): { layer: Layer; matched: string[]; score: number }[] {
  if (chosen) {
    const l = map.layers.find((x) => x.id === chosen);
    return l ? [{ layer: l, matched: ['(chosen)'], score: 99 }] : [];
  }
  const out = map.layers.map((layer) => {
    const matched: string[] = [];
    let s = 0;
    for (const t of terms) {
      const stem = t.replace(/(ies|es|s)$/, '');
      if (layer.id === t || layer.id === stem) {
        s += 3;
        matched.push(t);
      } else if (layer.keywords.some((k) => k === t || k === stem || (t.length >= 5 && k.length >= 5 && (k.startsWith(stem) || t.startsWith(k))))) {
        s += 1;
        matched.push(t);
      }
    }
    return { layer, matched, score: s };
  });
  return out.filter((x) => x.score > 0).sort((a, b) => b.score - a.score);
}

/** Paths a chosen layer or path hints leave in (undefined: the whole workspace). */
function filterOf(map: ArchitectureMap, layer: string | undefined, pathHints: string[]): ((p: string) => boolean) | undefined {
  const l = layer ? map.layers.find((x) => x.id === layer) : undefined;
  const inLayer = l ? picomatch(l.globs, { dot: true, nocase: true }) : undefined;
  const inPath = pathHints.length ? picomatch(pathHints.map((h) => (/[*?[{]/.test(h) ? h : `${h.replace(/\/+$/, '')}{,/**}`)), { dot: true, nocase: true }) : undefined;
  if (!inLayer && !inPath) return undefined;
  return (p) => (!inLayer || inLayer(p)) && (!inPath || inPath(p));
}

const layerMatchers = new WeakMap<ArchitectureMap, { id: string; m: (p: string) => boolean }[]>();

function layerOf(map: ArchitectureMap, p: string): string | undefined {
  let ms = layerMatchers.get(map);
  if (!ms) layerMatchers.set(map, (ms = map.layers.map((l) => ({ id: l.id, m: picomatch(l.globs, { dot: true, nocase: true }) }))));
  return ms.find((x) => x.m(p))?.id;
}

const FIELD_ORDER = ['name', 'type', 'member', 'dir', 'string', 'comment', 'code', 'history'];

/** A ranked file as a candidate: its best declaration, its layer, and why (the words found, by field; first what only it has). */
function candidateOf(engine: Engine, map: ArchitectureMap, f: RankedFile, all: RankedFile[]): LocateCandidate {
  const layer = layerOf(map, f.path);
  const byField = new Map<string, string[]>();
  for (const x of f.found) {
    const field = FIELD_ORDER.find((k) => x.fields.includes(k)) ?? 'code';
    byField.set(field, [...(byField.get(field) ?? []), x.word]);
  }
  const others = all.slice(0, LOCATE_MAX_CANDIDATES).filter((o) => o !== f);
  const only = f.found.map((x) => x.word).filter((w) => others.every((o) => !o.found.some((y) => y.word === w)));
  const why: string[] = [];
  if (f.declares.length) why.push(`${f.exact ? 'exact name' : 'declares'} ${f.declares.join(', ')}`);
  if (only.length && others.length) why.push(`only here: ${only.join(', ')}`);
  for (const k of FIELD_ORDER) if (byField.has(k)) why.push(`${k}: ${byField.get(k)!.join(', ')}`);
  if (f.test) why.push('test file');
  if (f.generated) why.push('generated');
  const b = f.best;
  const lines = engine.catalog().byRelPath(f.path)?.lines ?? 1;
  return {
    name: b?.name ?? f.path.slice(f.path.lastIndexOf('/') + 1),
    kind: b?.kind ?? 'file',
    path: f.path,
    line: b?.line ?? 1,
    endLine: b?.endLine ?? Math.max(1, lines),
    ...(layer ? { layer } : {}),
    why: why.join('; ') || 'path',
  };
}

function readOf(c: LocateCandidate): LocateRead {
  return { path: c.path, startLine: c.line, endLine: Math.min(c.endLine, c.line + LOCATE_READ_MAX_LINES - 1) };
}

/** One hop: the first other (production first) file that mentions the candidate's name. */
async function oneHop(engine: Engine, c: LocateCandidate, deadlineAt: number): Promise<{ path: string; line: number } | undefined> {
  const r = await searchText(engine, { query: c.name, mode: 'word', caseMode: 'sensitive', offset: 0, limit: 12, deadlineAt }).catch(() => undefined);
  return r?.hits.find((h) => h.path !== c.path);
}

/** The state, deflated (candidate paths share long prefixes) and base64url, then its MAC. */
export function sealLocator(s: LocatorState): string {
  const body = zlib.deflateRawSync(Buffer.from(JSON.stringify(s)), { level: 9 }).toString('base64url');
  return `${body}.${mac(body)}`;
}

function mac(body: string): string {
  return crypto.createHmac('sha256', KEY).update(body).digest('base64url').slice(0, 22);
}

export function openLocator(engine: Engine, locator: string): LocatorState {
  const dot = locator.lastIndexOf('.');
  const hint = 'call locate_code with the question again (without locator) and refine the new locator';
  if (dot <= 0 || !crypto.timingSafeEqual(Buffer.from(mac(locator.slice(0, dot))), Buffer.from(locator.slice(dot + 1).padEnd(22).slice(0, 22)))) {
    throw new ToolError('STALE_LOCATOR', 'The locator was not issued by this server (another session, or altered)', hint);
  }
  let s: LocatorState;
  try {
    s = JSON.parse(zlib.inflateRawSync(Buffer.from(locator.slice(0, dot), 'base64url'), { maxOutputLength: 64 * 1024 }).toString('utf8')) as LocatorState;
  } catch {
    throw new ToolError('STALE_LOCATOR', 'The locator cannot be read', hint);
  }
  const age = Date.now() - s.t;
  if (age > LOCATE_LOCATOR_TTL_MS) throw new ToolError('STALE_LOCATOR', `The locator expired ${Math.round((age - LOCATE_LOCATOR_TTL_MS) / 1000)} s ago (valid ${LOCATE_LOCATOR_TTL_MS / 60000} minutes)`, hint);
  // Another index version is fine while the files the locator points at are unchanged (like a result_match target_ref).
  const moved = s.v !== engine.version ? s.c.find((c) => changedSince(engine, c[2])) : undefined;
  if (moved) throw new ToolError('STALE_LOCATOR', `The locator is from index version ${s.v}; ${moved[2]} changed since`, hint);
  return s;
}

function clip(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}
