/**
 * Shared zod pieces: path arguments (shape-checked; containment is the path policy's job),
 * paging arguments, and the answer envelope every tool publishes as its outputSchema.
 */
import { z } from 'zod';
import { pathShapeProblem } from '../core/paths';
import { DEFAULT_ITEM_LIMIT, DEFAULT_RESPONSE_BYTES, MAX_ITEM_LIMIT, MAX_PATH_CHARS, MAX_RESPONSE_BYTES, MIN_RESPONSE_BYTES } from '../core/limits';

export const pathArg = z
  .string()
  .min(1)
  .max(MAX_PATH_CHARS)
  .superRefine((p, ctx) => {
    const problem = pathShapeProblem(p);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  // The instructions say paths are workspace-relative; repeated on eight tools it is noise.
  .meta({ published: { type: 'string' } });

export const pagingArgs = {
  // Described once, in the server instructions (PAGING_NOTE): repeated on every paged tool it cost ~4 KB of tools/list.
  limit: z.number().int().min(1).max(MAX_ITEM_LIMIT).optional().meta({ published: { type: 'integer' } }),
  cursor: z.string().max(2048).optional(),
  maxBytes: z.number().int().min(MIN_RESPONSE_BYTES).max(MAX_RESPONSE_BYTES).optional().meta({ published: { type: 'integer' } }),
};

/** How paging arguments work, for the server instructions (the argument schemas carry no description). */
export const PAGING_NOTE = `Lists take limit (rows, default ${DEFAULT_ITEM_LIMIT}, max ${MAX_ITEM_LIMIT}) and maxBytes (default ${DEFAULT_RESPONSE_BYTES}, ${MIN_RESPONSE_BYTES}-${MAX_RESPONSE_BYTES}).`;

export const budgetArg = {
  maxBytes: pagingArgs.maxBytes,
};

export const fileClassEnum = z.enum(['source', 'test', 'generated', 'vendor', 'build', 'config', 'other']);

export const indexMetaSchema = z.object({
  version: z.string().describe('Snapshot token; cursors and symbol ids are valid within one version'),
  status: z.enum(['fresh', 'stale', 'partial', 'building']),
  head: z.string().nullable().describe('git HEAD sha'),
  dirty: z.number().int().describe('Files changed on disk since indexing, not yet re-indexed'),
  gitDirty: z.number().int().describe('Files git reports as changed (-1: git unavailable)'),
  recovered: z.string().optional(),
  symbolsPending: z.number().int().optional().describe('Files whose outline/symbols are not indexed yet (text search is complete; symbol answers are partial)'),
  watch: z.string().optional(),
});

export const completenessSchema = z.object({
  returned: z.number().int(),
  total: z.number().int().optional().describe('Total rows when known'),
  truncated: z.boolean(),
  reason: z.enum(['limit', 'budget', 'deadline', 'cap']).optional(),
  omittedBecauseBudget: z.number().int().optional(),
  partial: z.string().optional().describe('Coverage is missing (not the same as truncation)'),
});

/** `paged: false`: no nextCursor (buildAnswer gives one only to paged tools; ~31 B of tools/list per tool). */
export function envelopeSchema(item: z.ZodType, extra: z.ZodRawShape = {}, paged = true) {
  return z.object({
    summary: z.string(),
    items: z.array(item),
    ...(paged ? { nextCursor: z.string().optional() } : {}),
    completeness: completenessSchema,
    mode: z.enum(['precise', 'precise_partial', 'heuristic_no_precise', 'unavailable_no_precise']).optional(),
    index: indexMetaSchema,
    ...extra,
  });
}

// ---- published JSON Schemas (tools/list) ----
// Tool definitions are paid in the model's context on every turn, so what tools/list publishes is
// the zod schema made compact: no `$schema`, no safe-integer sentinels, no string length bounds
// (the server validates them and answers Error [INVALID_ARGUMENT] with a hint), and in output
// schemas no descriptions, enums or `additionalProperties` (clients validate shape, not prose).
// The server still validates every argument with the full zod schema.

type Json = Record<string, unknown>;
const SAFE_INT = Number.MAX_SAFE_INTEGER;

function strip(node: unknown, output: boolean, top: boolean): unknown {
  if (Array.isArray(node)) return node.map((n) => strip(n, output, false));
  if (!node || typeof node !== 'object') return node;
  // `.meta({ published })`: this JSON is published instead (plus the description); zod still validates everything.
  const published = (node as Json).published as Json | undefined;
  if (published) {
    const d = (node as Json).description;
    return d !== undefined && !output ? { ...published, description: d } : { ...published };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$schema') continue;
    if ((k === 'maximum' && v === SAFE_INT) || (k === 'minimum' && v === -SAFE_INT)) continue;
    // A lower bound of 0 or 1 (lines, columns, depths, counts) goes without saying; the server refuses a lower value.
    if (!output && k === 'minimum' && (v === 0 || v === 1)) continue;
    if (k === 'maxLength' || k === 'minLength' || k === 'maxItems') continue;
    if (output && (k === 'description' || k === 'enum')) continue;
    if (k === 'additionalProperties' && v === false && (output || !top)) continue;
    if (k === 'properties') {
      const props: Json = {};
      for (const [pk, pv] of Object.entries(v as Json)) props[pk] = strip(pv, output, false);
      out[k] = props;
    } else out[k] = strip(v, output, false);
  }
  return out;
}

/** The JSON Schema tools/list publishes for a tool's input (strict at the top level). */
export function publishedInputSchema(input: z.ZodType): { type: 'object'; [k: string]: unknown } {
  return strip(z.toJSONSchema(input, { io: 'input' }), false, true) as { type: 'object' };
}

/**
 * An output schema spells out the envelope's own fields and the required fields of one row of
 * `items`; an object nested deeper (index, completeness, a row's target_ref, a file header…) is
 * published as just an object (an array of them as an array). Optional fields are named without a
 * type on the envelope (`{}`) and left out of a row: a row's optional fields are the facts left out
 * when they hold their default, and without `additionalProperties: false` a schema that does not
 * name them still accepts them. `nextCursor` is published only for paged tools and `mode` only for
 * tools whose answers carry one. Answers are checked against the full zod schema in tests
 * (test/e2e/paging.test.ts), and clients still validate the envelope and every row's required fields.
 */
function keysOnly(node: unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const o = node as Json;
  if (o.anyOf) return { anyOf: (o.anyOf as unknown[]).map(keysOnly) };
  if (o.type === 'array' && o.items) {
    const it = keysOnly(o.items) as Json;
    return it.type === 'object' ? { type: 'array' } : { type: 'array', items: it };
  }
  if (o.type === 'object') return { type: 'object' };
  return o;
}

/** A constant is published as just the constant (its type goes without saying). */
function scalar(node: unknown): unknown {
  const o = node as Json;
  return o && typeof o === 'object' && 'const' in o ? { const: o.const } : node;
}

function rowLevel(node: unknown): unknown {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return node;
  const o = node as Json;
  if (o.anyOf) return { ...o, anyOf: (o.anyOf as unknown[]).map(rowLevel) };
  if (o.type !== 'object' || !o.properties) return o;
  const required = new Set((o.required ?? []) as string[]);
  const props: Json = {};
  for (const [k, v] of Object.entries(o.properties as Json)) if (required.has(k)) props[k] = scalar(keysOnly(v));
  return { ...o, properties: props };
}

function collapse(root: Json, tool: { paged: boolean; mode: boolean }): Json {
  const required = new Set((root.required ?? []) as string[]);
  const props: Json = {};
  for (const [k, v] of Object.entries((root.properties ?? {}) as Json)) {
    if ((k === 'nextCursor' && !tool.paged) || (k === 'mode' && !tool.mode)) continue;
    const p = v as Json;
    props[k] = k === 'items' && p.type === 'array' ? { ...p, items: rowLevel(p.items) } : required.has(k) || k === 'nextCursor' ? scalar(keysOnly(p)) : {};
  }
  return { ...root, properties: props };
}

/** The JSON Schema tools/list publishes for a tool's structuredContent (`paged`: it has cursors; `mode`: its answers say one). */
export function publishedOutputSchema(output: z.ZodType, tool: { paged: boolean; mode?: boolean | undefined }): { type: 'object'; [k: string]: unknown } {
  return collapse(strip(z.toJSONSchema(output, { io: 'output' }), true, true) as Json, { paged: tool.paged, mode: tool.mode ?? false }) as { type: 'object' };
}
