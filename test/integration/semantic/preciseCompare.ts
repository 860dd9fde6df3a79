/**
 * Row-for-row comparison of the occurrence store's answers with a live provider's, shared by the
 * precise-facts tests and the bench: questions sampled from a SCIP index (a definition at every
 * use, references and implementations at every definition of a global symbol), each asked of the
 * registry (store first) and of the live provider alone; an answer differs when its location sets
 * (path, line, column, end, declaration or not) differ.
 */
import * as fs from 'node:fs';
import { deserializeSCIP } from '@c4312/scip';
import type { SemanticService } from '../../../server/src/nav/semanticService';
import { ROLE_DEFINITION } from '../../../server/src/semantic/precise/scipCodec';
import { isLocalSymbol } from '../../../server/src/semantic/precise/scipSymbol';
import type { SemanticProvider } from '../../../server/src/semantic/provider';

export type PreciseOp = 'references' | 'definition' | 'implementation';
export interface PreciseQuestion {
  op: PreciseOp;
  path: string;
  line: number;
  column: number;
}
type Row = { path: string; line: number; column: number; endLine: number; endColumn: number; isDeclaration?: boolean };

/** A row's location, and whether it is a declaration (references: what `include_definition: false` leaves out). */
export const rowKey = (r: Row) => `${r.path}:${r.line}:${r.column}-${r.endLine}:${r.endColumn}${r.isDeclaration ? ' declaration' : ''}`;
export const sortedRows = (rows: readonly Row[] | undefined) => [...new Set((rows ?? []).map(rowKey))].sort();

/** The questions an index asks about its workspace documents (generator output is asked about through its sources). */
export function questionsOf(scipFiles: readonly string[], accept: (p: string) => boolean = () => true): PreciseQuestion[] {
  const out: PreciseQuestion[] = [];
  const seen = new Set<string>();
  for (const f of scipFiles) {
    for (const d of deserializeSCIP(fs.readFileSync(f)).documents) {
      if (d.relativePath.includes('/obj/') || d.relativePath.startsWith('generated:') || !accept(d.relativePath)) continue;
      for (const o of d.occurrences) {
        if (!o.symbol || isLocalSymbol(o.symbol) || o.symbol.endsWith('/')) continue;
        const at = { path: d.relativePath, line: o.range[0]! + 1, column: o.range[1]! + 1 };
        const k = `${at.path}:${at.line}:${at.column}`;
        if (seen.has(k)) continue;
        seen.add(k);
        if (o.symbolRoles & ROLE_DEFINITION) out.push({ op: 'references', ...at }, { op: 'implementation', ...at });
        else out.push({ op: 'definition', ...at });
      }
    }
  }
  return out;
}

export interface Comparison {
  /** Questions the store answered alone (no provider asked), with some live documents, or not at all. */
  store: number;
  merged: number;
  live: number;
  /** Answers (store or merged) whose rows differ from the live provider's, each with the rows that differ. */
  differences: { question: PreciseQuestion; onlyStore: string[]; onlyLive: string[] }[];
}

/** Asks every question of the service's registry and of `live` alone; compares the rows. */
export async function compareWithLive(service: SemanticService, live: SemanticProvider, language: string, questions: readonly PreciseQuestion[], deadlineMs = 120_000): Promise<Comparison> {
  const out: Comparison = { store: 0, merged: 0, live: 0, differences: [] };
  const origins = new Set(['persisted', 'scip', 'persisted+scip']);
  for (const q of questions) {
    const args = { path: q.path, line: q.line, column: q.column, includeDeclaration: true };
    const a = await service.registry.request(q.op, language, args as never, { deadlineMs });
    const l = await live.request(q.op, language, args as never, { signal: new AbortController().signal, deadline: Date.now() + deadlineMs, waitForReadyMs: deadlineMs });
    if (l.kind !== 'ok') throw new Error(`${q.op} ${q.path}:${q.line}:${q.column}: the live provider did not answer: ${JSON.stringify(l)}`);
    const by = a.provider && origins.has(a.provider) ? 'store' : a.provider && [...origins].some((o) => a.provider!.startsWith(`${o}+`)) ? 'merged' : 'live';
    out[by]++;
    if (by === 'live') continue;
    const s = sortedRows(a.value as Row[]);
    const v = sortedRows(l.value as Row[]);
    if (JSON.stringify(s) !== JSON.stringify(v)) out.differences.push({ question: q, onlyStore: s.filter((x) => !v.includes(x)), onlyLive: v.filter((x) => !s.includes(x)) });
  }
  return out;
}
