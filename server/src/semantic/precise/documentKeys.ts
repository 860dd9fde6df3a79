/**
 * The parts of a document's key that the engine computes itself, the same way on every machine:
 * a project's compilation inputs (root-independent) and a file's declaration shape (its
 * declarations' ids, kinds and signatures from the symbol index — not their positions, so an
 * edit inside a body leaves it, and the facts of documents binding to it, unchanged).
 */
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import type { IndexStore } from '../../index/store';
import type { ProjectDescription } from '../roslyn/hostProtocol';

/** A hash of what a C# compilation depends on besides its documents' text. */
export function compilationKey(d: ProjectDescription, root: string): string {
  const rel = (p: string) => {
    const r = path.relative(root, p).split(path.sep).join('/');
    return r.startsWith('..') || path.isAbsolute(r) ? path.basename(p) : r;
  };
  const inputs = {
    tfm: d.targetFramework,
    out: d.outputKind ?? '',
    lang: d.langVersion ?? '',
    nullable: d.nullable ?? '',
    unsafe: d.allowUnsafe ?? false,
    checked: d.checkForOverflow ?? false,
    defines: [...d.defines].sort(),
    usings: d.globalUsings.map((u) => JSON.stringify(u)).sort(),
    projects: [...d.projectReferences].sort(),
    packages: d.packageReferences.map((p) => `${p.id}@${p.version ?? ''}`).sort(),
    frameworks: [...d.frameworkReferences].sort(),
    references: d.references.map(rel).sort(),
    documents: d.documents.map((x) => x.path).sort(),
  };
  return crypto.createHash('sha1').update(JSON.stringify(inputs)).digest('hex');
}

/** The declaration shape of indexed files, memoised per content hash. */
export class DeclarationShapes {
  private readonly memo = new Map<string, string>();

  constructor(private readonly store: IndexStore) {}

  /** The shape of a file as the index holds it ('' when it is not indexed). */
  shape(p: string): string {
    const row = this.store.rows('SELECT id, hash FROM files WHERE path = ?', [p])[0];
    if (!row) return '';
    const key = `${p}\u0000${row[1] as string}`;
    const hit = this.memo.get(key);
    if (hit !== undefined) return hit;
    const h = crypto.createHash('sha1');
    for (const r of this.store.rows('SELECT symbol_id, kind, signature, modifiers, extended_type FROM symbols WHERE file_id = ? ORDER BY ordinal', [row[0] as number])) h.update(r.map((x) => String(x ?? '')).join('\u0001') + '\n');
    const s = h.digest('hex').slice(0, 16);
    if (this.memo.size > 200_000) this.memo.clear();
    this.memo.set(key, s);
    return s;
  }
}
