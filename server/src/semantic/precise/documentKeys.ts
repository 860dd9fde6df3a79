/**
 * The parts of a document's key that the engine computes itself, the same way on every machine:
 * a project's compilation inputs (root-independent) and a file's declaration shape (its
 * declarations' ids, kinds and signatures from the symbol index — not their positions, so an
 * edit inside a body leaves it, and the facts of documents binding to it, unchanged).
 */
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import { generatedPathParts } from '../../core/virtualPaths';
import type { IndexStore } from '../../index/store';
import type { ProjectDescription } from '../roslyn/hostProtocol';
import type { ProjectDescriber } from '../roslyn/projectDescriptions';

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

/**
 * What a project's source generators read, as a hash: its compilation inputs, its analyzers and
 * generator triggers, and the content hash of every document it compiles (generator output left
 * out). A generated document (`generated:<projectKey>/…`, nothing on disk) is keyed by it: its text
 * can only change when one of these does. Undefined when a document's hash is not known now.
 */
export function generatorInputsHash(d: ProjectDescription, root: string, hashOf: (rel: string) => string | undefined): string | undefined {
  const h = crypto.createHash('sha1').update(compilationKey(d, root));
  const rel = (p: string) => {
    const r = path.relative(root, p).split(path.sep).join('/');
    return r.startsWith('..') || path.isAbsolute(r) ? path.basename(p) : r;
  };
  h.update(JSON.stringify([d.analyzers.map(rel).sort(), [...(d.generatorTriggers ?? ['*'])].sort()]));
  for (const doc of [...d.documents].filter((x) => !x.generated).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    const hash = hashOf(doc.path);
    if (hash === undefined) return undefined;
    h.update(`${doc.path}\u0000${hash}\n`);
  }
  return h.digest('hex');
}

/** The declaration shape of indexed files, memoised per content hash. */
export class DeclarationShapes {
  private readonly memo = new Map<string, string>();

  /**
   * `generated`: the current key of a generator's document (`generated:…` paths are not indexed;
   * what their declarations look like can only change with the generator's inputs).
   */
  constructor(
    private readonly store: IndexStore,
    private readonly generated?: (p: string) => string | undefined,
  ) {}

  /** The shape of a file as the index holds it ('' when it is not indexed). */
  shape(p: string): string {
    if (p.startsWith('generated:')) return this.generated?.(p) ?? '';
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

/**
 * The current key of generator documents (`generated:<projectKey>/…`): the generator inputs hash
 * of their project as described now, memoised per `version` (the index version: any indexed
 * change gives a new one).
 */
export class GeneratedKeys {
  private memo: { version: string; byKey: Map<string, string | undefined> } = { version: '', byKey: new Map() };

  constructor(
    private readonly o: {
      root: string;
      describer: () => ProjectDescriber | undefined;
      hashOf: (rel: string) => string | undefined;
      version: () => string;
    },
  ) {}

  /** The key of a generated document now; undefined when its project cannot be described or a document's hash is unknown. */
  of(p: string): string | undefined {
    const parts = generatedPathParts(p);
    if (!parts) return undefined;
    const v = this.o.version();
    if (this.memo.version !== v) this.memo = { version: v, byKey: new Map() };
    if (this.memo.byKey.has(parts.projectKey)) return this.memo.byKey.get(parts.projectKey);
    const d = this.o.describer()?.describe(parts.projectKey);
    const h = d?.ok ? generatorInputsHash(d.description, this.o.root, this.o.hashOf) : undefined;
    this.memo.byKey.set(parts.projectKey, h);
    return h;
  }
}
