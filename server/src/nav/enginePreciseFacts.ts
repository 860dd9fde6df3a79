/**
 * The engine's recorded precise facts (semantic/precise/): the occurrence store over the persisted
 * layer and imported SCIP, what it asks of the engine (indexed hashes, mentions, texts, whether a
 * recorded document key still holds), which C# projects the facts cover whole, and the persisted
 * layer that writes what the Roslyn host resolves in quiet time.
 */
import * as crypto from 'node:crypto';
import * as path from 'node:path';
import type { ProjectGraph } from '../projects/ProjectGraph';
import { languageOfPath } from '../semantic/language';
import { CompilationInputs, compilationKey, DeclarationShapes, GeneratedKeys } from '../semantic/precise/documentKeys';
import { FactsCoverage } from '../semantic/precise/factsCoverage';
import { PersistedLayer } from '../semantic/precise/persistedLayer';
import type { PreciseEnv } from '../semantic/precise/preciseAnswers';
import { PreciseFacts } from '../semantic/precise/preciseFacts';
import type { DocumentKey } from '../semantic/precise/scipCodec';
import type { SemanticRegistry } from '../semantic/registry';
import type { RoslynProvider } from '../semantic/roslyn/roslynProvider';
import type { Engine } from './engine';
import { projectGraph } from './projects';
import { projectRefs } from './projectRefs';
import type { EngineRoslynModel } from './roslynWorkspaceModel';
import type { TextMentions } from './textMentions';

/** The producer version written into persisted SCIP files. */
const SERVER_VERSION_FOR_FACTS = '0.1.0';

export interface EnginePreciseFactsOptions {
  model: EngineRoslynModel;
  mentions: TextMentions;
  /** SCIP indexes to import (files or folders). */
  scip: string[];
  /** The persisted layer's quiet time before its background pass (ms); false turns it off. */
  persist: { idleMs?: number } | false;
  /** The Roslyn host provider (the persisted layer is written only from it). */
  roslyn: RoslynProvider | undefined;
  /** When the last question was asked (the persisted layer works in quiet time). */
  lastQuestion: () => number;
  /** Answers from the facts before the providers. */
  registry: SemanticRegistry;
}

export interface EnginePreciseFacts {
  precise: PreciseFacts;
  /** C# projects recorded facts cover whole (no background compile, no persisted pass for them). */
  factsCoverage: FactsCoverage;
  persisted: PersistedLayer | undefined;
}

export function enginePreciseFacts(engine: Engine, o: EnginePreciseFactsOptions): EnginePreciseFacts {
  const generatedKeys = new GeneratedKeys({ root: engine.root, describer: () => o.model.describer(), hashOf: (p) => (engine.pendingPaths().has(p) ? undefined : engine.catalog().byRelPath(p)?.hash), version: () => engine.version });
  const shapes = new DeclarationShapes(engine.store, (p) => generatedKeys.of(p));
  const compilationKeys = new WeakMap<ProjectGraph, Map<string, string>>();
  const inputs = new CompilationInputs({ root: engine.root, graph: () => projectGraph(engine), files: () => engine.catalog().all(), hashOf: (p) => (engine.pendingPaths().has(p) ? undefined : engine.catalog().byRelPath(p)?.hash), version: () => engine.version, filesMentioning: (w) => o.mentions.filesMentioning(w) });

  /**
   * Why a recorded document key no longer holds: its project's compilation inputs changed (as the
   * Roslyn provider would describe the project now), or a declaration document it binds to has
   * another declaration shape. Undefined when it holds. `compilationHolds`: the key's inputs
   * fingerprint is unchanged (no need to describe the project).
   */
  const keyProblem = (key: DocumentKey, compilationHolds = false): string | undefined => {
    if (key.compilation && !compilationHolds) {
      const g = projectGraph(engine);
      const d = o.model.describer();
      if (!g || !d) return 'the project model is not built yet';
      let memo = compilationKeys.get(g);
      if (!memo) compilationKeys.set(g, (memo = new Map()));
      let now = memo.get(key.project);
      if (now === undefined) {
        const k = d.node(key.project) ? d.keyOfProject(key.project) : key.project;
        const described = k ? d.describe(k) : undefined;
        now = described?.ok ? compilationKey(described.description, engine.root) : '';
        memo.set(key.project, now);
      }
      if (now !== key.compilation) return now ? `the compilation inputs of ${key.project} changed` : `${key.project} is no longer a project`;
    }
    for (const dep of key.deps) {
      // the same bytes: the same declarations (no symbol-index read)
      if (dep.hash && !engine.pendingPaths().has(dep.path) && engine.catalog().byRelPath(dep.path)?.hash === dep.hash) continue;
      if (shapes.shape(dep.path) !== dep.shape) return `declarations it uses in ${dep.path} changed`;
    }
    return undefined;
  };

  /** What the occurrence store asks of the engine: indexed hashes, mentions, texts, languages. */
  const env: PreciseEnv = {
    currentHash: (p) => {
      if (p.startsWith('generated:')) return generatedKeys.of(p);
      if (engine.pendingPaths().has(p)) return undefined;
      const indexed = engine.catalog().byRelPath(p)?.hash;
      if (indexed) return indexed;
      // generator output under obj/ is never indexed: hashed as it is now
      if (!/(^|\/)obj\//.test(p)) return undefined;
      try {
        return crypto.createHash('sha1').update(engine.policy.readFile(p).bytes).digest('hex');
      } catch {
        return undefined;
      }
    },
    keyProblem: (key, _path, compilationHolds) => keyProblem(key, compilationHolds),
    inputsNow: (project, generated) => inputs.of(project, generated),
    filesMentioning: (name) => o.mentions.filesMentioning(name),
    readText: (p) => {
      try {
        return engine.policy.readFile(p).bytes.toString('utf8');
      } catch {
        return undefined;
      }
    },
    languageOf: (p) => languageOfPath(p),
    version: () => engine.version,
    compilationsSeenBy: (k) => {
      const d = o.model.describer()?.describe(k);
      return d?.ok ? new Set([k, ...d.description.projectReferences]) : undefined;
    },
    primaryCompilation: (p) => o.model.describer()?.keysOfFile(p)[0],
  };

  const precise = new PreciseFacts({ workspaceRoot: engine.root, indexRoot: engine.indexRoot, scip: o.scip, env });
  o.registry.setPrecise(precise.answers, precise.ready, () => precise.hurry());
  engine.onClose(() => precise.dispose());
  const factsCoverage = new FactsCoverage({ answers: precise.answers, store: precise.store, graph: () => projectGraph(engine), version: () => engine.version });
  const roslyn = o.roslyn;
  if (!o.persist || !roslyn || !engine.indexRoot) return { precise, factsCoverage, persisted: undefined };
  const persisted = new PersistedLayer({
    facts: precise,
    version: SERVER_VERSION_FOR_FACTS,
    lastQuestion: o.lastQuestion,
    live: { up: () => roslyn.status().state === 'ready', occurrences: (key, signal, quietMs) => roslyn.occurrences(key, signal, quietMs) },
    covered: (p) => factsCoverage.covers(p),
    ...(o.persist.idleMs !== undefined ? { idleMs: o.persist.idleMs } : {}),
    input: () => {
      const g = projectGraph(engine);
      if (!g || engine.meta().status === 'building') return undefined;
      const catalog = engine.catalog();
      const describer = o.model.describer();
      return { root: engine.root, graph: g, files: catalog.all().map((r) => r.path), policy: engine.policy, shapes, indexedHash: (p) => catalog.byRelPath(p)?.hash, generatedKey: (p) => generatedKeys.of(p), inputs: (k, generated) => inputs.of(k, generated), ...(describer ? { describer } : {}) };
    },
    order: () => {
      const g = projectGraph(engine);
      if (!g) return [];
      const up = projectRefs(g).up;
      return g.projects
        .filter((p) => p.kind === 'csharp' && p.status !== 'failed')
        .sort((a, b) => (up.get(b.id)?.length ?? 0) - (up.get(a.id)?.length ?? 0) || (a.id < b.id ? -1 : 1))
        .map((p) => p.id);
    },
  });
  persisted.start();
  engine.onClose(() => persisted.dispose());
  return { precise, factsCoverage, persisted };
}

/** SCIP indexes to import: the option, else env SEXTANT_SCIP (path-delimited). */
export function scipSources(option: string[] | undefined): string[] {
  return option ?? (process.env.SEXTANT_SCIP ? process.env.SEXTANT_SCIP.split(path.delimiter).filter(Boolean) : []);
}
