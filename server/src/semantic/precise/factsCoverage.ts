/**
 * Which C# projects the recorded facts (persisted or imported) cover whole: every C# file the
 * project graph says the project compiles has facts that hold now. Such a project needs no
 * compile to answer definition / references / implementations in it: the Roslyn provider's
 * background start does not compile it, and the persisted layer does not resolve it again.
 * Memoised per index version and store generation (a change anywhere may change a key).
 */
import type { ProjectGraph } from '../../projects/ProjectGraph';
import type { PreciseAnswers } from './preciseAnswers';
import type { OccurrenceStore } from './occurrenceStore';
import { filesByProject } from './documentKeys';

export class FactsCoverage {
  private memo: { stamp: string; byProject: Map<string, boolean>; files: Map<string, string[]> | undefined; graph: ProjectGraph | undefined } = { stamp: '', byProject: new Map(), files: undefined, graph: undefined };

  constructor(
    private readonly o: {
      answers: PreciseAnswers;
      store: OccurrenceStore;
      graph: () => ProjectGraph | undefined;
      version: () => string;
    },
  ) {}

  /**
   * True when every C# file of the project (graph id) has facts recorded for its content now
   * (PreciseAnswers.recordedForContent: no key check, nothing read): the Roslyn background start
   * neither describes nor loads such a project — a question whose facts turn out not to hold loads
   * it then. Cheap enough for 3,000 projects at a start.
   */
  recorded(project: string): boolean {
    if (this.o.store.listUnits().length === 0) return false;
    const g = this.o.graph();
    if (!g) return false;
    if (this.memo.graph !== g) this.memo = { stamp: '', byProject: new Map(), files: undefined, graph: g };
    const files = (this.memo.files ??= filesByProject(g, (p) => /\.cs$/i.test(p), false)).get(project) ?? [];
    return files.length > 0 && files.every((p) => this.o.answers.recordedForContent(p));
  }

  /** True when every C# file of the project (graph id) has facts that hold now; false without facts. */
  covers(project: string): boolean {
    if (this.o.store.listUnits().length === 0) return false;
    const g = this.o.graph();
    if (!g) return false;
    const stamp = `${this.o.version()}:${this.o.store.generation}:${this.o.answers.envGeneration}`;
    if (this.memo.stamp !== stamp || this.memo.graph !== g) this.memo = { stamp, byProject: new Map(), files: this.memo.graph === g ? this.memo.files : undefined, graph: g };
    const known = this.memo.byProject.get(project);
    if (known !== undefined) return known;
    const files = (this.memo.files ??= filesByProject(g, (p) => /\.cs$/i.test(p), false)).get(project) ?? [];
    const covered = files.length > 0 && files.every((p) => this.o.answers.heldNow(p));
    this.memo.byProject.set(project, covered);
    return covered;
  }
}

