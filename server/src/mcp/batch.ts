/**
 * Batch forms (issue 13): definition / references take `targets`, outline takes `paths` — several
 * entries in one call, one byte budget and one deadline for all. Each entry becomes one item
 * `{ entry, of, rows?, total?, mode?, note?, error? }`: an entry that fails carries its
 * `Error [CODE]: … Hint: …` and never fails the batch; an entry whose rows do not fit its share of
 * the budget keeps its first rows and says `total` (ask it alone to page the rest).
 */
import { z } from 'zod';
import { ToolError, isToolError } from '../core/errors';
import { BATCH_MAX_ENTRIES, BATCH_PARALLEL, DEFAULT_RESPONSE_BYTES } from '../core/limits';
import { pathArg } from './schemas';

/** One entry of a batch answer. */
export interface BatchEntry {
  /** Index of the entry in `targets` / `paths`. */
  entry: number;
  /** What was asked: the target's name or position, the path. */
  of: string;
  rows?: unknown[];
  /** Rows of the entry in all, when more than `rows` lists (or a count such as references). */
  total?: number;
  mode?: string;
  note?: string;
  error?: string;
}

// Published as a plain object (tools/list is within 40 KiB only so; the server validates the full shape in tests).
export const batchEntrySchema = z
  .object({
    entry: z.number(),
    of: z.string(),
    rows: z.array(z.unknown()).optional(),
    total: z.number().optional(),
    mode: z.string().optional(),
    note: z.string().optional(),
    error: z.string().optional(),
  })
  .meta({ published: { type: 'object' } });

/** `paths` of a batch (outline): published as a plain array (the path shape is checked on each). */
export const pathsArg = z.array(pathArg).min(1).max(BATCH_MAX_ENTRIES * 10).optional().meta({ published: { type: 'array' } });

/** Refuses a batch over the entry cap, and one given together with its single form. */
export function checkBatch(n: number, what: string, single: boolean): void {
  if (single) throw new ToolError('INVALID_ARGUMENT', `Both the single form and ${what} were given`, `pass either one entry or ${what}, not both`);
  if (n > BATCH_MAX_ENTRIES) {
    throw new ToolError('INVALID_ARGUMENT', `${n} ${what} in one call; a batch takes at most ${BATCH_MAX_ENTRIES}`, `split it into calls of at most ${BATCH_MAX_ENTRIES} ${what}`);
  }
}

/**
 * Runs every entry (at most BATCH_PARALLEL at once) within the call's deadline; an entry that
 * throws becomes its error, one not started before the deadline a DEADLINE_EXCEEDED error.
 */
export async function runBatch<T>(inputs: readonly T[], deadlineAt: number, label: (t: T) => string, run: (t: T, entry: number) => Promise<Omit<BatchEntry, 'entry' | 'of'>>): Promise<BatchEntry[]> {
  const out: BatchEntry[] = new Array(inputs.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < inputs.length) {
      const i = next++;
      const t = inputs[i]!;
      const of = label(t);
      if (Date.now() > deadlineAt - 200) {
        out[i] = { entry: i, of, error: new ToolError('DEADLINE_EXCEEDED', 'Not asked: the call ran out of time before this entry', 'ask the entries without an answer again (fewer per call)').render() };
        continue;
      }
      try {
        out[i] = { entry: i, of, ...(await run(t, i)) };
      } catch (e) {
        const err = isToolError(e) ? e : new ToolError('INTERNAL', e instanceof Error ? e.message : String(e), 'ask this entry alone; report the problem if it persists');
        out[i] = { entry: i, of, error: err.render() };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(BATCH_PARALLEL, inputs.length) }, worker));
  return out;
}

const bytes = (v: unknown): number => Buffer.byteLength(JSON.stringify(v));

/**
 * Fits the entries into one budget: the entry with the most row bytes gives up its last rows
 * until the JSON of all entries fits `maxBytes` less the envelope (the text form is about as
 * long, and both must fit). Rows given up are counted by `total`. Deterministic (pages agree).
 */
export function fitEntries(entries: BatchEntry[], maxBytes: number = DEFAULT_RESPONSE_BYTES): BatchEntry[] {
  const room = Math.max(256, Math.floor(maxBytes * 0.8) - 900);
  const fitted = entries.map((e) => (e.rows ? { ...e, rows: [...e.rows], total: e.total ?? e.rows.length } : { ...e }));
  let size = fitted.reduce((n, e) => n + bytes(e), 0);
  while (size > room) {
    let worst: BatchEntry | undefined;
    for (const e of fitted) if (e.rows && e.rows.length > 0 && (!worst || bytes(e.rows) > bytes(worst.rows))) worst = e;
    if (!worst) break;
    const drop = Math.max(1, Math.ceil(worst.rows!.length / 8));
    const before = bytes(worst);
    worst.rows!.splice(worst.rows!.length - drop, drop);
    size -= before - bytes(worst);
  }
  // `total` only where rows were given up (or the entry counts more than it lists).
  for (const e of fitted) if (e.rows && e.total === e.rows.length) delete e.total;
  return fitted;
}

/** The markdown line of an entry. */
export function entryText(e: BatchEntry, row: (r: never) => string): string {
  if (e.error) return `[${e.entry}] ${e.of}: ${e.error}`;
  const rows = (e.rows ?? []).map((r) => `\n  - ${row(r as never)}`).join('');
  const more = e.total !== undefined && e.rows && e.total > e.rows.length ? `\n  - … ${e.total - e.rows.length} more (ask this entry alone)` : '';
  return `[${e.entry}] ${e.of}${e.mode ? ` (${e.mode})` : ''}${e.note ? ` — ${e.note}` : ''}${rows}${more}`;
}

export const isBatchEntry = (i: unknown): i is BatchEntry => typeof i === 'object' && i !== null && 'entry' in i && 'of' in i;
