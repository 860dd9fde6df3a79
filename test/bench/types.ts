/**
 * The bench's section contract. A section is a file in test/bench/sections/ exporting `section`
 * (a BenchSection); run.ts discovers them, sorts by `order` and runs each against every target.
 * Sections never fail the run: a thrown error is printed as that section's result.
 */
import type { WorkspaceManifest } from '../fixtures/generate/manifest';
import type { Engine } from '../../server/src/nav/engine';

export interface BenchTarget {
  /** Short label for the table ("generated C# 3000 projects", or the path given). */
  label: string;
  /** Absolute workspace root. */
  root: string;
  /** Present for generated workspaces: known facts to build queries from. */
  manifest?: WorkspaceManifest;
}

export interface BenchOptions {
  /** Fewer iterations (for a smoke run). */
  quick: boolean;
  /** How `sextant` is run as a child process: [executable, ...leading args]. */
  cli: string[];
  /** 'dist' (bundled dist/cli.js) or 'source' (server/src/cli.ts under tsx). */
  cliKind: 'dist' | 'source';
  /** `--base DIR`: the earlier build the comparing sections run beside this one (alternating). */
  base?: { cli: string[]; label: string };
}

export interface BenchContext {
  target: BenchTarget;
  options: BenchOptions;
  /** Index root for this target; the indexing section creates it fresh (cold). */
  indexRoot: string;
  /** A scratch folder for this target (removed at the end). */
  scratch: string;
  /**
   * The warm in-process engine over `indexRoot` (opened on first call, refreshed once, shared by
   * every section of this target, closed by run.ts).
   */
  engine(): Promise<Engine>;
  /** Values sections pass on to later sections of the same target (e.g. 'indexing.cold'). */
  shared: Map<string, unknown>;
  /** Print a progress line (stderr). */
  progress(message: string): void;
}

export type Unit = 'ms' | 's' | 'MiB' | 'x' | 'ratio' | 'count' | 'files' | 'lines';

/** One line of a section's summary table; `target` makes it print a verdict. */
export interface Metric {
  name: string;
  value: number | undefined;
  unit: Unit;
  target?: { op: '<=' | '>='; value: number };
  detail?: string;
}

export interface SectionResult {
  metrics: Metric[];
  /** An optional detail table: header row first. */
  table?: string[][];
  /** Anything else worth keeping in the JSON output. */
  data?: unknown;
  notes?: string[];
}

export interface BenchSection {
  name: string;
  /** Run order: indexing 10, search 20, find_file 30; later layers use 40 and up. */
  order: number;
  description: string;
  /** Defaults to every target. */
  appliesTo?(target: BenchTarget): boolean;
  run(ctx: BenchContext): Promise<SectionResult>;
}
