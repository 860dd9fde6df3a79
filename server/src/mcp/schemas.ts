/**
 * Shared zod pieces: path arguments (shape-checked; containment is the path policy's job),
 * paging arguments, and the answer envelope every tool publishes as its outputSchema.
 */
import { z } from 'zod';
import { pathShapeProblem } from '../core/paths';
import { DEFAULT_ITEM_LIMIT, DEFAULT_RESPONSE_BYTES, MAX_ITEM_LIMIT, MAX_PATH_CHARS, MAX_RESPONSE_BYTES } from '../core/limits';

export const pathArg = z
  .string()
  .min(1)
  .max(MAX_PATH_CHARS)
  .superRefine((p, ctx) => {
    const problem = pathShapeProblem(p);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('Workspace-relative POSIX path, e.g. src/App/Program.cs');

export const pagingArgs = {
  limit: z.number().int().min(1).max(MAX_ITEM_LIMIT).optional().describe(`Rows per page (default ${DEFAULT_ITEM_LIMIT}, max ${MAX_ITEM_LIMIT})`),
  cursor: z.string().max(2048).optional().describe('Opaque nextCursor from a previous answer of the same query'),
  maxBytes: z.number().int().min(512).max(MAX_RESPONSE_BYTES).optional().describe(`Byte budget for the answer (default ${DEFAULT_RESPONSE_BYTES})`),
};

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
});

export const completenessSchema = z.object({
  returned: z.number().int(),
  total: z.number().int().optional().describe('Total rows when known'),
  truncated: z.boolean(),
  reason: z.enum(['limit', 'budget', 'deadline', 'cap']).optional(),
  omittedBecauseBudget: z.number().int().optional(),
  partial: z.string().optional().describe('Coverage is missing (not the same as truncation)'),
});

export function envelopeSchema(item: z.ZodType, extra: z.ZodRawShape = {}) {
  return z.object({
    summary: z.string(),
    items: z.array(item),
    nextCursor: z.string().optional(),
    completeness: completenessSchema,
    mode: z.enum(['precise', 'precise_partial', 'heuristic_no_precise', 'unavailable_no_precise']).optional(),
    index: indexMetaSchema,
    ...extra,
  });
}
