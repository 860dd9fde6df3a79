/**
 * The C# projects csharp-ls (the fallback C# backend) loads, chosen from the project model per
 * question: csharp-ls loads one solution at start and never re-selects, and loading costs about a
 * second per project, so it gets a generated solution of what the question needs — the target's
 * projects (their references load with them) and, for questions about uses (references,
 * implementations, callers, subtypes), the projects that depend on them and whose files the text
 * index says mention the name. A later question that needs projects outside that set grows it
 * (csharp-ls restarts on the union; the question waits or is answered heuristically meanwhile). A
 * small solution containing the target is loaded whole instead. What the size bound leaves out is
 * returned, for the answer to say (`precise_partial`).
 */
import * as path from 'node:path';
import { CSHARP_GENERATED_SOLUTION_MAX_PROJECTS, CSHARP_WHOLE_SOLUTION_MAX_PROJECTS } from '../core/limits';
import type { ProjectGraph } from '../projects/ProjectGraph';
import { csharpOutputOverrides } from '../semantic/lsp/csharpReadOnly';
import type { FileCoverage, LspProvider } from '../semantic/lsp/lspProvider';
import type { SemanticOp } from '../semantic/provider';
import type { Engine } from './engine';
import { projectGraph } from './projects';
import { projectRefs, reachable } from './projectRefs';
import type { TextMentions } from './textMentions';

/** Questions about uses: their answer needs the projects that depend on the target's. */
const USE_OPS: ReadonlySet<SemanticOp> = new Set(['references', 'implementation', 'incomingCalls', 'subtypes']);

/** What a request is about, for choosing the C# projects. */
export interface RequestFocus {
  /** The identifier asked about (filters dependents to those mentioning it). */
  name?: string;
  /** The project the target's id named (project file path). */
  project?: string;
}

export class CSharpLsScope {
  /** The projects listed in csharp-ls's solution (undefined: it chose itself, or nothing chosen yet). */
  private loaded: Set<string> | undefined;
  /** Those and every project they reference (loaded with them). */
  private covered: Set<string> | undefined;
  private chosenOnce = false;
  private writeRiskOf: { graph: ProjectGraph; reason: string | undefined } | undefined;
  /** How the C# projects were chosen, for answers and doctor. */
  scope = 'csharp-ls picks (no project model yet)';

  constructor(
    private readonly engine: Engine,
    private readonly mentions: TextMentions,
  ) {}

  /** Projects csharp-ls has loaded, their references included (undefined: it chose itself). */
  coveredProjects(): ReadonlySet<string> | undefined {
    return this.covered;
  }

  /**
   * Makes csharp-ls's project set cover what this question needs; returns the needed projects
   * that are left out because of the size bound.
   */
  async choose(lsp: LspProvider, op: SemanticOp, path: string, focus: RequestFocus): Promise<string[]> {
    const g = projectGraph(this.engine);
    if (!g) return []; // no project model yet: csharp-ls picks (the solution with most projects)
    const csharp = new Set(g.projects.filter((p) => p.kind === 'csharp').map((p) => p.id));
    const own = focus.project && csharp.has(focus.project) ? [focus.project] : (g.files.get(path) ?? []).map((e) => e.project).filter((p) => csharp.has(p));
    if (own.length === 0) {
      if (!this.chosenOnce) this.scope = 'csharp-ls picks (the target file belongs to no known project)';
      return [];
    }
    const refs = projectRefs(g);
    if (!this.chosenOnce) {
      this.chosenOnce = true;
      // A small solution containing the target: load it whole (later questions rarely need more).
      const small = g.solutions
        .filter((s) => s.kind !== 'slnf' && s.projects.some((p) => own.includes(p)) && s.projects.length <= CSHARP_WHOLE_SOLUTION_MAX_PROJECTS)
        .sort((a, b) => a.projects.length - b.projects.length)[0];
      if (small) {
        this.loaded = new Set(small.projects);
        this.covered = reachable(refs.down, small.projects);
        this.scope = `solution ${small.path} (${small.projects.length} projects)`;
        await lsp.configureCSharp({ solution: small.path });
      }
    }
    const need = new Set(own);
    if (USE_OPS.has(op)) {
      const dependents = reachable(refs.up, own);
      // Only when some dependent is not loaded does the text index narrow them to those mentioning the name.
      const loaded = this.covered;
      const mention = focus.name && !(loaded && [...dependents].every((d) => loaded.has(d))) ? this.mentions.projectsMentioning(g, focus.name) : undefined;
      for (const d of dependents) if (!mention || mention.has(d)) need.add(d);
    }
    const covered = this.covered;
    const add = [...need].filter((p) => !covered?.has(p));
    if (covered && add.length === 0) return [];
    // Grow: what is loaded, then the question's projects with everything they reference (csharp-ls
    // resolves into source only for listed projects), bounded; the rest is reported missing.
    const next = [...new Set([...(this.loaded ?? []), ...reachable(refs.down, own), ...reachable(refs.down, add)])];
    const listed = next.slice(0, CSHARP_GENERATED_SOLUTION_MAX_PROJECTS);
    this.loaded = new Set(listed);
    this.covered = reachable(refs.down, listed);
    this.scope = `generated solution: ${listed.length} project(s) for ${own[0]}${covered ? ' (grown)' : ''}`;
    await lsp.configureCSharp({ projects: listed });
    return [...need].filter((p) => !this.covered!.has(p));
  }

  /** Whether csharp-ls's projects cover a file (LspProvider's coverage hook). */
  coverage(language: string, p: string): FileCoverage {
    if (language !== 'csharp') return { kind: 'unknown' };
    const g = projectGraph(this.engine);
    const entries = g?.files.get(p) ?? [];
    if (entries.length > 1) return { kind: 'multi_project', projects: entries.map((e) => e.project) };
    if (this.covered && entries.length > 0 && !entries.some((e) => this.covered!.has(e.project))) {
      return { kind: 'not_covered', reason: `csharp-ls loaded ${this.scope}; ${entries[0]!.project} is not in it` };
    }
    return entries.length ? { kind: 'covered' } : { kind: 'unknown' };
  }

  /**
   * Read-only guard for csharp-ls (semantic/lsp/csharpReadOnly.ts): its design-time builds are
   * redirected out of the tree, except where a project file or a Directory.Build file sets its own
   * output paths — then it is not started, and this says why. Checked once per project graph.
   */
  writeRisk(): string | undefined {
    const g = projectGraph(this.engine);
    if (!g) return undefined;
    if (this.writeRiskOf?.graph === g) return this.writeRiskOf.reason;
    const files = new Set<string>();
    for (const p of g.projects) {
      if (p.kind !== 'csharp') continue;
      files.add(p.path);
      // Directory.Build.props/targets from the project's folder up to the root.
      for (let dir = path.posix.dirname(p.path); ; dir = path.posix.dirname(dir)) {
        for (const f of ['Directory.Build.props', 'Directory.Build.targets']) files.add(dir === '.' ? f : `${dir}/${f}`);
        if (dir === '.' || dir === '/' || dir === '') break;
      }
    }
    const found = csharpOutputOverrides([...files], (rel) => {
      try {
        return this.engine.policy.readFile(rel).bytes.toString('utf8');
      } catch {
        return undefined; // missing (most Directory.Build candidates) or unreadable
      }
    });
    const reason = found.length
      ? `${found.slice(0, 3).join(', ')}${found.length > 3 ? ` and ${found.length - 3} more` : ''} set their own build output paths, and csharp-ls's design-time builds would write there, inside the workspace (Sextant never writes to the workspace)`
      : undefined;
    this.writeRiskOf = { graph: g, reason };
    return reason;
  }
}
