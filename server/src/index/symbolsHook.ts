/**
 * The syntax layer's index hook: files are parsed (in the parse worker pool for larger batches, in
 * this thread for a handful) and their declarations replace the file's rows in `symbols` and
 * `syntax_files`. Unchanged files are not re-parsed.
 *
 * The indexer stores text + files first (phase 1) and hands files to this hook afterwards (phase 2,
 * several batches in flight so the workers always have one queued). In phase 1 a changed file's
 * old rows are dropped (`invalidate`), so until phase 2 writes its new ones it has no outline row:
 * `pending` (a parseable file with no `syntax_files` row) is then exactly the work still owed,
 * also after a run was stopped between the phases.
 * The worker pool lives for one refresh and is disposed in `finish`.
 */
import { PARSE_WORKER_MIN_FILES, SYMBOLS_BULK_MIN_FILES } from '../core/limits';
import { languageById } from '../syntax/languageConfig';
import { parseBatch } from '../syntax/parseBatch';
import { ParsePool } from '../syntax/parsePool';
import type { FileSyntax, ParseRequest } from '../syntax/types';
import type { Statement } from 'sql.js';
import { encodeModuleRefs } from './moduleRefsStore';
import type { ChangedFile, IndexHook } from './indexer';
import type { IndexStore } from './store';
import { SYMBOL_ROW_INDEXES_SQL } from './schema';
import {
  ensureSymbolTables, SID_FORM_PATH, SIGNATURE_PACKED, SID_FORM_PREFIX, SID_FORM_QN, SYMBOL_FLAG_GENERATED, SYMBOL_FLAG_RECOVERED, SYMBOL_FLAG_TEST, symbolIdHash,
} from './symbolTables';

/**
 * The `attributes` column: names space-joined; when some attribute has arguments, U+0001 and the
 * argument lists (aligned with the names, '' for none) joined by U+0002 (schema 7).
 */
export function encodeAttributes(names: readonly string[], args: readonly string[] | undefined): string {
  const joined = names.join(' ');
  return args && args.length === names.length ? `${joined}\u0001${args.join('\u0002')}` : joined;
}

export function decodeAttributes(col: string | null | undefined): { names: string[]; args?: string[] } {
  if (!col) return { names: [] };
  const cut = col.indexOf('\u0001');
  if (cut < 0) return { names: col.split(' ') };
  return { names: col.slice(0, cut).split(' '), args: col.slice(cut + 1).split('\u0002') };
}

export interface SymbolsHookOptions {
  /** Parse worker threads (default: available cores); 0 parses in the indexing thread. */
  workers?: number;
  /** Owed files from which a (nearly) cold parse phase builds the name and id indexes at its end (default SYMBOLS_BULK_MIN_FILES). */
  bulkMinFiles?: number;
}

/** The parse requests of a batch (files of a language with syntax support) and the files replaced. */
function requestsOf(batch: ChangedFile[]): { reqs: ParseRequest[]; ids: number[]; replaced: number[] } {
  const reqs: ParseRequest[] = [];
  const ids: number[] = [];
  for (const f of batch) {
    if (!f.language || !languageById(f.language)) continue;
    reqs.push({ path: f.path, language: f.language, text: f.text });
    ids.push(f.id);
  }
  return { reqs, ids, replaced: batch.filter((f) => f.replaced).map((f) => f.id) };
}

export function symbolsHook(options: SymbolsHookOptions = {}): IndexHook {
  let pool: ParsePool | undefined;
  return {
    name: 'symbols',
    begin(store, files) {
      ensureSymbolTables(store);
      // A (nearly) cold index: the name and id indexes are built once at the end (see finish).
      if (files < (options.bulkMinFiles ?? SYMBOLS_BULK_MIN_FILES)) return;
      const parsed = Number(store.rows('SELECT count(*) FROM syntax_files')[0]?.[0] ?? 0);
      if (files > parsed) store.db.exec(SYMBOL_ROW_INDEXES_SQL.map((i) => `DROP INDEX IF EXISTS ${i.name};`).join(''));
    },
    async prepare(batch: ChangedFile[]) {
      const { reqs, ids, replaced } = requestsOf(batch);
      if (reqs.length === 0 && replaced.length === 0) return undefined;
      const useWorkers = reqs.length >= PARSE_WORKER_MIN_FILES && options.workers !== 0;
      const parsing = useWorkers ? (pool ??= new ParsePool(options.workers === undefined ? {} : { workers: options.workers })).parseFiles(reqs) : parseBatch(reqs);
      // A failed parse rejects: the indexer then counts these files as still owed (their old rows
      // were dropped in phase 1), and the next refresh parses them again.
      const results = await parsing;
      return (store) => writeSymbols(store, replaced, ids, results);
    },

    deleteFiles(store, fileIds) {
      ensureSymbolTables(store);
      deleteRows(store, fileIds);
    },
    invalidate(store, fileIds) {
      ensureSymbolTables(store);
      deleteRows(store, fileIds);
    },
    pending(store) {
      ensureSymbolTables(store);
      const languages = store.rows('SELECT DISTINCT language FROM files WHERE language IS NOT NULL').map((r) => r[0] as string).filter((l) => languageById(l));
      if (languages.length === 0) return [];
      return store
        .rows(
          `SELECT f.id FROM files f WHERE f.binary = 0 AND f.language IN (${languages.map(() => '?').join(',')})
             AND NOT EXISTS (SELECT 1 FROM syntax_files s WHERE s.file_id = f.id)`,
          languages,
        )
        .map((r) => r[0] as number);
    },
    async finish(store) {
      const p = pool;
      pool = undefined;
      await p?.dispose();
      // After a bulk write (or a run stopped in one): the indexes begin() dropped, built in one
      // pass each — one transaction per index, the event loop gets a turn between them.
      for (const i of missingSymbolRowIndexes(store)) {
        store.transaction(() => store.db.exec(i.sql));
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    },
  };
}

/** The symbol_rows indexes that are missing (each is built by one sort over the rows). */
function missingSymbolRowIndexes(store: IndexStore): (typeof SYMBOL_ROW_INDEXES_SQL)[number][] {
  const present = new Set(store.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'symbol_rows'").map((r) => r[0] as string));
  return SYMBOL_ROW_INDEXES_SQL.filter((i) => !present.has(i.name));
}

function deleteRows(store: IndexStore, fileIds: number[]): void {
  if (fileIds.length === 0) return;
  const delSymbols = store.db.prepare('DELETE FROM symbol_rows WHERE file_id = ?');
  const delFiles = store.db.prepare('DELETE FROM syntax_files WHERE file_id = ?');
  const delModules = store.db.prepare('DELETE FROM module_refs WHERE file_id = ?');
  try {
    for (const id of fileIds) {
      delSymbols.run([id]);
      delFiles.run([id]);
      delModules.run([id]);
    }
  } finally {
    delSymbols.free();
    delFiles.free();
    delModules.free();
  }
}

/** Replaces the rows of the parsed files (and clears those of replaced files no longer parsed). */
export function writeSymbols(store: IndexStore, replaced: number[], ids: number[], results: FileSyntax[]): void {
  ensureSymbolTables(store);
  deleteRows(store, replaced);
  const insSym = store.db.prepare(
    `INSERT OR REPLACE INTO symbol_rows(file_id, ordinal, parent, depth, sid_hash, sid, name, qn, kind, scope, signature,
       line, end_line, col, end_col, name_line, name_col, flags, modifiers, attributes, extended_type)
     VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  const scopes = internerOf(store);
  const insFile = store.db.prepare(
    `INSERT OR REPLACE INTO syntax_files(file_id, language, has_errors, error_lines, reparsed, recovered, truncated, generated, symbols, error)
     VALUES (?,?,?,?,?,?,?,?,?,?)`,
  );
  const insModules = store.db.prepare('INSERT OR REPLACE INTO module_refs(file_id, refs) VALUES (?,?)');
  try {
    results.forEach((r, i) => {
      const fileId = ids[i];
      if (fileId === undefined) return;
      const d = r.diagnostics;
      insFile.run([
        fileId, r.language, d.hasErrors ? 1 : 0, d.errorLines.join(','), JSON.stringify(d.reparsedWith), d.recoveredDeclarations,
        (d.depthTruncated ? 1 : 0) | (d.symbolsTruncated ? 2 : 0), r.isGenerated ? 1 : 0, r.symbols.length, r.error ? `${r.error.code}: ${r.error.message}` : null,
      ]);
      if (r.modules) insModules.run([fileId, encodeModuleRefs(r.modules)]);
      r.symbols.forEach((s, ordinal) => {
        const flags = (s.isTest ? SYMBOL_FLAG_TEST : 0) | (s.isGenerated ? SYMBOL_FLAG_GENERATED : 0) | (s.recovered ? SYMBOL_FLAG_RECOVERED : 0);
        const prefix = (s.namespace ? s.namespace + '.' : '') + (s.container ? s.container + '.' : '');
        const qn = s.qualifiedName === prefix + s.name ? null : s.qualifiedName;
        const id = s.id;
        let sid = id;
        let form = 0;
        if (id.charCodeAt(1) === 58 /* : */ && id.startsWith(s.qualifiedName, 2)) {
          form = SID_FORM_QN;
          sid = id.slice(0, 2) + id.slice(2 + s.qualifiedName.length);
        } else if (id.startsWith(r.path + '#' + s.qualifiedName)) {
          form = SID_FORM_PATH;
          sid = id.slice(r.path.length + 1 + s.qualifiedName.length);
        } else if (prefix && id.charCodeAt(1) === 58 && id.startsWith(prefix, 2)) {
          form = SID_FORM_PREFIX;
          sid = id.slice(0, 2) + id.slice(2 + prefix.length);
        }
        const modifiers = s.modifiers.join(' ');
        const sig = packSignature(s.signature, s.name, modifiers);
        insSym.run([
          fileId, ordinal, s.parent, s.depth, symbolIdHash(id), sid, s.name, qn, scopes.string(s.kind), scopes.scope(s.namespace, s.container), sig ?? s.signature,
          s.line, s.endLine, s.column, s.endColumn, s.nameLine, s.nameColumn, flags | form | (sig === undefined ? 0 : SIGNATURE_PACKED), scopes.string(modifiers), encodeAttributes(s.attributes, s.attributeArgs), s.extendedType ?? null,
        ]);
      });
    });
  } finally {
    insSym.free();
    insFile.free();
    insModules.free();
    scopes.release();
  }
}

/** Interned strings (`symbol_strings`) and (namespace, container) pairs (`symbol_scopes`), loaded once per store. */
interface Interner {
  string(value: string): number;
  scope(namespace: string, container: string): number;
  stamp(): string;
  /** Frees the insert statements prepared since the last call (end of a batch). */
  release(): void;
}

const internerCache = new WeakMap<IndexStore, Interner>();

function internerOf(store: IndexStore): Interner {
  // A rolled-back transaction can drop ids this cache handed out: the highest ids tell.
  const stamp = String(store.rows('SELECT (SELECT max(id) FROM symbol_strings), (SELECT max(id) FROM symbol_scopes)')[0]?.join(','));
  const cached = internerCache.get(store);
  if (cached && cached.stamp() === stamp) return cached;
  const strings = new Map<string, number>();
  const scopes = new Map<string, number>();
  let nextString = 1;
  let nextScope = 1;
  for (const r of store.rows('SELECT id, value FROM symbol_strings')) {
    const id = r[0] as number;
    strings.set(r[1] as string, id);
    if (id >= nextString) nextString = id + 1;
  }
  for (const r of store.rows('SELECT id, namespace, container FROM symbol_scopes')) {
    const id = r[0] as number;
    scopes.set(`${r[1] as number}:${r[2] as string}`, id);
    if (id >= nextScope) nextScope = id + 1;
  }
  // Prepared once per batch, not per new value (a cold index adds ~10^5 scopes).
  let insString: Statement | undefined;
  let insScope: Statement | undefined;
  const interner: Interner = {
    string(value) {
      let id = strings.get(value);
      if (id === undefined) {
        id = nextString++;
        (insString ??= store.db.prepare('INSERT INTO symbol_strings(id, value) VALUES (?,?)')).run([id, value]);
        strings.set(value, id);
      }
      return id;
    },
    scope(namespace, container) {
      const ns = interner.string(namespace);
      const key = `${ns}:${container}`;
      let id = scopes.get(key);
      if (id === undefined) {
        id = nextScope++;
        (insScope ??= store.db.prepare('INSERT INTO symbol_scopes(id, namespace, container) VALUES (?,?,?)')).run([id, ns, container]);
        scopes.set(key, id);
      }
      return id;
    },
    stamp: () => `${nextString > 1 ? nextString - 1 : ''},${nextScope > 1 ? nextScope - 1 : ''}`,
    release() {
      insString?.free();
      insScope?.free();
      insString = insScope = undefined;
    },
  };
  internerCache.set(store, interner);
  return interner;
}

/**
 * The signature with a leading modifiers list as U+0002 and the first later occurrence of the name
 * as U+0001 (the view substitutes them back), or undefined when that saves nothing or is ambiguous.
 */
export function packSignature(signature: string, name: string, modifiers: string): string | undefined {
  if (/[\u0001\u0002]/.test(signature + name + modifiers)) return undefined;
  let head = '';
  let rest = signature;
  if (modifiers && signature.startsWith(modifiers) && modifiers.length > 1) {
    head = '\u0002';
    rest = signature.slice(modifiers.length);
  }
  const at = name.length > 1 ? rest.indexOf(name) : -1;
  if (at >= 0) rest = rest.slice(0, at) + '\u0001' + rest.slice(at + name.length);
  else if (!head) return undefined;
  return head + rest;
}
