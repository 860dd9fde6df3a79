/**
 * A real producer's SCIP against the engine's TypeScript host: imports an index built by
 * scip-typescript for a TS/JS workspace, asks the same questions (references, definition,
 * implementations) of the occurrence store and of the TypeScript host, and prints per-question
 * agreement (location sets: path, line, column, end).
 *
 *   tsx test/bench/precise/compareScipTs.ts <workspace> <index.scip> [questions=120] [seed=1] [live-cache.json]
 *
 * With a live cache file the host's answers are written there, and read from it when it exists
 * (a paired run of two engine versions over the same host answers: the host is the slow part).
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { semanticService } from '../../../server/src/nav/semanticService';
import { readScipIndex, decodeDocument, ROLE_DEFINITION } from '../../../server/src/semantic/precise/scipCodec';
import { isLocalSymbol } from '../../../server/src/semantic/precise/scipSymbol';
import type { StoreOp } from '../../../server/src/semantic/precise/preciseAnswers';

export interface Question {
  op: StoreOp;
  path: string;
  line: number;
  column: number;
}

export interface Comparison {
  question: Question;
  /** `store`: every candidate answered from the index; `merged`: some resolved live (changed, or not in the index); `live`: the index has nothing at the position, or says it cannot hold the answer (another producer's implementations). */
  answeredBy: 'store' | 'merged' | 'live';
  /** The registry's answer (store rows + live rows of the other documents) equals the host's. */
  equal: boolean;
  liveWhy: string[];
  store: number;
  live: number;
  onlyStore: string[];
  onlyLive: string[];
  storeMs: number;
  liveMs: number;
  liveMode: string;
}

function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

/** Questions sampled from the index itself: uses and definitions of workspace symbols. */
export async function sampleQuestions(scip: string, root: string, n: number, seed: number): Promise<Question[]> {
  const refs: Question[] = [];
  const defs: Question[] = [];
  const impls: Question[] = [];
  for await (const part of readScipIndex(scip)) {
    if (part.kind !== 'document') continue;
    const d = decodeDocument(part.bytes);
    if (!(d.language === 'csharp' || (/^packages\/[^/]+\/src\//.test(d.relativePath) && /\.tsx?$/.test(d.relativePath)))) continue;
    if (!fs.existsSync(path.join(root, d.relativePath))) continue;
    const implemented = new Set(d.symbols.flatMap((s) => s.relationships.filter((r) => r.isImplementation).map((r) => r.symbol)));
    for (const o of d.occurrences) {
      if (!o.symbol || isLocalSymbol(o.symbol) || o.symbol.endsWith('/') || o.range.length !== 3) continue;
      const q = { path: d.relativePath, line: o.range[0]! + 1, column: o.range[1]! + 1 };
      if (o.symbolRoles & ROLE_DEFINITION) {
        refs.push({ op: 'references', ...q });
        if (implemented.has(o.symbol) || /#$/.test(o.symbol) || d.language === 'csharp') impls.push({ op: 'implementation', ...q });
      } else defs.push({ op: 'definition', ...q });
    }
  }
  const r = rng(seed);
  const pick = <T>(xs: T[], k: number) => {
    const out: T[] = [];
    const taken = new Set<number>();
    while (out.length < Math.min(k, xs.length)) {
      const i = Math.floor(r() * xs.length);
      if (!taken.has(i)) (taken.add(i), out.push(xs[i]!));
    }
    return out;
  };
  const third = Math.ceil(n / 3);
  if (n >= refs.length + defs.length + impls.length) return [...refs, ...defs, ...impls];
  return [...pick(refs, third), ...pick(defs, third), ...pick(impls, n - 2 * third)];
}

const key = (l: { path: string; line: number; column: number; endLine: number; endColumn: number }) => `${l.path}:${l.line}:${l.column}-${l.endLine}:${l.endColumn}`;

type LiveRow = { path: string; line: number; column: number; endLine: number; endColumn: number; external?: boolean };
type LiveAnswer = { kind: string; value?: LiveRow[]; gaps?: unknown[] };

export async function compare(root: string, scip: string, questions: number, seed: number, log: (s: string) => void = console.log, liveCache?: string): Promise<Comparison[]> {
  const cached: Record<string, LiveAnswer & { ms: number }> = liveCache && fs.existsSync(liveCache) ? JSON.parse(fs.readFileSync(liveCache, 'utf8')) : {};
  const indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-scip-compare-'));
  const engine = await Engine.open({ workspaceRoot: root, indexRoot, gitAtOpen: false });
  try {
    await engine.refresh();
    const service = semanticService(engine, { scip: [scip], tsPrewarm: false, roslynPrewarm: false });
    await service.precise.ready;
    if (service.precise.refused().length) throw new Error(`refused: ${JSON.stringify(service.precise.refused())}`);
    const qs = await sampleQuestions(scip, root, questions, seed);
    const out: Comparison[] = [];
    for (const q of qs) {
      const language = q.path.endsWith('.cs') ? 'csharp' : /\.tsx$/.test(q.path) ? 'typescriptreact' : 'typescript';
      const provider = language === 'csharp' ? service.roslyn! : service.tsPrograms!;
      const args = { path: q.path, line: q.line, column: q.column, includeDeclaration: true };
      const t0 = Date.now();
      const s = service.precise.answers.answer(q.op, language, args);
      const storeMs = Date.now() - t0;
      const controller = new AbortController();
      const t1 = Date.now();
      const qk = `${q.op} ${q.path}:${q.line}:${q.column}`;
      const live: LiveAnswer = cached[qk] ?? ((await provider.request(q.op, language, args as never, { signal: controller.signal, deadline: Date.now() + 120_000, waitForReadyMs: 120_000 })) as LiveAnswer);
      const liveMs = cached[qk]?.ms ?? Date.now() - t1;
      if (liveCache && !cached[qk] && live.kind === 'ok' && !live.gaps?.length) {
        cached[qk] = { kind: live.kind, ...(live.value ? { value: live.value } : {}), ...(live.gaps ? { gaps: live.gaps } : {}), ms: liveMs };
        fs.writeFileSync(liveCache, JSON.stringify(cached));
      }
      const liveRows = live.kind === 'ok' ? (live.value ?? []).filter((x) => !x.external && !x.path.startsWith('/')) : [];
      // What the registry answers: the store's rows, plus the host's rows in the documents it could not answer.
      const livePaths = new Set(s?.coverage.live.map((l) => l.path) ?? []);
      // (An answer the facts decline, `incomplete`, is the host's alone.)
      const merged = s && !s.incomplete ? [...s.value, ...liveRows.filter((r) => livePaths.has(r.path) || !service.precise.answers.heldNow(r.path))] : liveRows;
      const a = new Set(merged.map(key));
      const b = new Set(liveRows.map(key));
      const onlyStore = [...a].filter((x) => !b.has(x));
      const onlyLive = [...b].filter((x) => !a.has(x));
      // An answer the facts say they cannot hold (another producer's implementations) is the live host's in the registry.
      const answeredBy = !s || s.incomplete ? 'live' : s.coverage.live.length ? 'merged' : 'store';
      const liveWhy = [...new Set([...(s?.incomplete ? [s.incomplete] : []), ...(s?.coverage.live.map((l) => l.why) ?? [])])];
      const c: Comparison = { question: q, answeredBy, liveWhy, equal: onlyStore.length === 0 && onlyLive.length === 0, store: a.size, live: b.size, onlyStore, onlyLive, storeMs, liveMs, liveMode: live.kind === 'ok' ? (live.gaps?.length ? 'partial' : 'ok') : live.kind };
      out.push(c);
      log(`${c.equal ? 'EQUAL' : 'DIFF '} ${answeredBy.padEnd(6)} ${q.op} ${q.path}:${q.line}:${q.column} store ${a.size} (${storeMs} ms${s ? `, ${s.coverage.live.length} live docs${liveWhy.length ? ` (${liveWhy.join('; ')})` : ''}` : ', no answer'}) live ${b.size} (${liveMs} ms ${c.liveMode})${c.equal ? '' : ` only-store ${onlyStore.slice(0, 3).join(' ')} only-live ${onlyLive.slice(0, 3).join(' ')}`}`);
    }
    return out;
  } finally {
    await engine.close();
    fs.rmSync(indexRoot, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const [root, scip, n, seed, cache] = process.argv.slice(2);
  void compare(path.resolve(root!), path.resolve(scip!), Number(n ?? 120), Number(seed ?? 1), console.log, cache ? path.resolve(cache) : undefined).then((rows) => {
    for (const by of ['store', 'merged', 'live'] as const) {
      const part = rows.filter((r) => r.answeredBy === by);
      const byOp = new Map<string, [number, number]>();
      for (const r of part) {
        const v = byOp.get(r.question.op) ?? [0, 0];
        v[0] += r.equal ? 1 : 0;
        v[1]++;
        byOp.set(r.question.op, v);
      }
      console.log(`answered by ${by}: ${part.length}, equal ${part.filter((r) => r.equal).length}; ${[...byOp].map(([k, [e, t]]) => `${k} ${e}/${t}`).join(', ')}`);
    }
    // Per op, the questions the host answered whole (a host that timed out or left programs out is no truth): the registry's answer (store, merged or live) against the host's.
    for (const op of ['references', 'definition', 'implementation'] as const) {
      const all = rows.filter((r) => r.question.op === op);
      const part = all.filter((r) => r.liveMode === 'ok');
      const by = (b: string) => part.filter((r) => r.answeredBy === b).length;
      console.log(`${op}: equal ${part.filter((r) => r.equal).length}/${part.length} of the ${all.length} questions the host answered whole (store ${by('store')}, merged ${by('merged')}, live ${by('live')})`);
    }
    const storeMs = rows.filter((r) => r.answeredBy === 'store').map((r) => r.storeMs).sort((x, y) => x - y);
    const liveMs = rows.filter((r) => r.answeredBy === 'store').map((r) => r.liveMs).sort((x, y) => x - y);
    console.log(`store-answered: store median ${storeMs[storeMs.length >> 1]} ms, max ${storeMs[storeMs.length - 1]} ms; host median ${liveMs[liveMs.length >> 1]} ms, max ${liveMs[liveMs.length - 1]} ms`);
    process.exit(0);
  });
}
