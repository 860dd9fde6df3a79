/**
 * The syntax layer's index hook: changed files are parsed (in the parse worker pool for larger
 * batches, in this thread for a handful) and their declarations replace the file's old rows in
 * `symbols` and `syntax_files`, inside the batch's transaction. Unchanged files are not re-parsed.
 * The worker pool lives for one refresh and is disposed in `finish`.
 */
import { PARSE_WORKER_MIN_FILES } from '../core/limits';
import { languageById } from '../syntax/languageConfig';
import { parseBatch } from '../syntax/parseBatch';
import { ParsePool } from '../syntax/parsePool';
import type { FileSyntax, ParseRequest } from '../syntax/types';
import type { ChangedFile, IndexHook } from './indexer';
import type { IndexStore } from './store';
import { noteSymbolNames } from './symbolNames';
import { ensureSymbolTables, SYMBOL_FLAG_GENERATED, SYMBOL_FLAG_RECOVERED, SYMBOL_FLAG_TEST } from './symbolTables';

export interface SymbolsHookOptions {
  /** Parse worker threads (default: available cores); 0 parses in the indexing thread. */
  workers?: number;
}

export function symbolsHook(options: SymbolsHookOptions = {}): IndexHook {
  let pool: ParsePool | undefined;
  return {
    name: 'symbols',
    async prepare(batch: ChangedFile[]) {
      const reqs: ParseRequest[] = [];
      const ids: number[] = [];
      for (const f of batch) {
        if (!f.language || !languageById(f.language)) continue;
        reqs.push({ path: f.path, language: f.language, text: f.text });
        ids.push(f.id);
      }
      const replaced = batch.filter((f) => f.replaced).map((f) => f.id);
      if (reqs.length === 0 && replaced.length === 0) return undefined;
      let results: FileSyntax[] = [];
      if (reqs.length >= PARSE_WORKER_MIN_FILES && options.workers !== 0) {
        pool ??= new ParsePool(options.workers === undefined ? {} : { workers: options.workers });
        results = await pool.parseFiles(reqs);
      } else if (reqs.length > 0) {
        results = await parseBatch(reqs);
      }
      return (store) => writeSymbols(store, replaced, ids, results);
    },
    deleteFiles(store, fileIds) {
      ensureSymbolTables(store);
      deleteRows(store, fileIds);
    },
    async finish() {
      const p = pool;
      pool = undefined;
      await p?.dispose();
    },
  };
}

function deleteRows(store: IndexStore, fileIds: number[]): void {
  if (fileIds.length === 0) return;
  const delSymbols = store.db.prepare('DELETE FROM symbols WHERE file_id = ?');
  const delFiles = store.db.prepare('DELETE FROM syntax_files WHERE file_id = ?');
  try {
    for (const id of fileIds) {
      delSymbols.run([id]);
      delFiles.run([id]);
    }
  } finally {
    delSymbols.free();
    delFiles.free();
  }
}

/** Replaces the rows of the parsed files (and clears those of replaced files no longer parsed). */
export function writeSymbols(store: IndexStore, replaced: number[], ids: number[], results: FileSyntax[]): void {
  ensureSymbolTables(store);
  deleteRows(store, replaced);
  const insSym = store.db.prepare(
    `INSERT OR REPLACE INTO symbols(file_id, ordinal, parent, depth, symbol_id, name, qualified_name, kind, container, namespace, signature,
       line, end_line, col, end_col, name_line, name_col, flags, modifiers, attributes, extended_type)
     VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`,
  );
  const insFile = store.db.prepare(
    `INSERT OR REPLACE INTO syntax_files(file_id, language, has_errors, error_lines, reparsed, recovered, truncated, generated, symbols, error)
     VALUES (?,?,?,?,?,?,?,?,?,?)`,
  );
  const names = new Set<string>();
  try {
    results.forEach((r, i) => {
      const fileId = ids[i];
      if (fileId === undefined) return;
      const d = r.diagnostics;
      insFile.run([
        fileId, r.language, d.hasErrors ? 1 : 0, d.errorLines.join(','), JSON.stringify(d.reparsedWith), d.recoveredDeclarations,
        (d.depthTruncated ? 1 : 0) | (d.symbolsTruncated ? 2 : 0), r.isGenerated ? 1 : 0, r.symbols.length, r.error ? `${r.error.code}: ${r.error.message}` : null,
      ]);
      r.symbols.forEach((s, ordinal) => {
        const flags = (s.isTest ? SYMBOL_FLAG_TEST : 0) | (s.isGenerated ? SYMBOL_FLAG_GENERATED : 0) | (s.recovered ? SYMBOL_FLAG_RECOVERED : 0);
        insSym.run([
          fileId, ordinal, s.parent, s.depth, s.id, s.name, s.qualifiedName, s.kind, s.container, s.namespace, s.signature,
          s.line, s.endLine, s.column, s.endColumn, s.nameLine, s.nameColumn, flags, s.modifiers.join(' '), s.attributes.join(' '), s.extendedType ?? null,
        ]);
        names.add(s.name);
      });
    });
  } finally {
    insSym.free();
    insFile.free();
  }
  noteSymbolNames(store, names);
}
