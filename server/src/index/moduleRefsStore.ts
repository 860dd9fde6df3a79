/**
 * Module references in the index (`module_refs`, migration 6): written by the symbols hook with
 * the file's outline (same parse, same transaction), dropped with it. Stored as written, resolved
 * by the reader against the file set of the same snapshot (nav/fileDependencies.ts).
 * Encoding: `{"r":[[spec, kind, line, 1?]...],"c":computed,"t":1?}`, kinds as one letter.
 */
import type { ModuleRef, ModuleRefKind, ModuleRefs } from '../syntax/types';
import type { IndexStore } from './store';

const CODE: Record<ModuleRefKind, string> = { import: 'i', export: 'e', require: 'r', import_equals: 'q', dynamic: 'd' };
const KIND: Record<string, ModuleRefKind> = { i: 'import', e: 'export', r: 'require', q: 'import_equals', d: 'dynamic' };

export function encodeModuleRefs(m: ModuleRefs): string {
  const o: { r: unknown[]; c: number; t?: 1 } = { r: m.refs.map((x) => (x.typeOnly ? [x.spec, CODE[x.kind], x.line, 1] : [x.spec, CODE[x.kind], x.line])), c: m.computed };
  if (m.truncated) o.t = 1;
  return JSON.stringify(o);
}

export function decodeModuleRefs(text: string): ModuleRefs {
  const o = JSON.parse(text) as { r: [string, string, number, 1?][]; c: number; t?: 1 };
  const refs: ModuleRef[] = o.r.map(([spec, k, line, t]) => (t ? { spec, kind: KIND[k] ?? 'import', line, typeOnly: true } : { spec, kind: KIND[k] ?? 'import', line }));
  return o.t ? { refs, computed: o.c, truncated: true } : { refs, computed: o.c };
}

/** The stored references of one file (undefined: none stored, e.g. not parsed yet). */
export function readModuleRefs(store: IndexStore, fileId: number): ModuleRefs | undefined {
  const row = store.rows('SELECT refs FROM module_refs WHERE file_id = ?', [fileId])[0];
  return row ? decodeModuleRefs(row[0] as string) : undefined;
}

/** Every stored row: file id → references (for the reverse graph). */
export function readAllModuleRefs(store: IndexStore): Map<number, ModuleRefs> {
  const out = new Map<number, ModuleRefs>();
  for (const r of store.rows('SELECT file_id, refs FROM module_refs')) out.set(r[0] as number, decodeModuleRefs(r[1] as string));
  return out;
}
