/**
 * The TypeScript programs of a workspace, as the TypeScript compiler sees them: one program per
 * tsconfig/jsconfig (parsed by TypeScript itself: extends, include/exclude/files, paths,
 * references), each served by its own `LanguageService`, built on first use and kept in a
 * least-recently-used set (`TS_PROGRAMS_MAX_LOADED`). Source files are shared between programs
 * through one document registry. Files that no config includes get an inferred program (allowJs,
 * bundler resolution), keyed by its root list.
 *
 * Every question starts a new epoch: a file's version (mtime + size) is read at most once per
 * epoch, so each program sees the disk as it is when the question is asked, and the answer does
 * not depend on which programs earlier questions loaded.
 *
 * Invariant: nothing is written (no tsbuildinfo, no emit); the compiler reads the workspace and
 * its node_modules like the TypeScript service does.
 */
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as TS from 'typescript';
import { toPosix } from '../../core/paths';

export type TypeScriptModule = typeof TS;

/** The `typescript` package of the engine's install, or undefined when it is not there. */
export function loadTypeScript(): TypeScriptModule | undefined {
  try {
    // Not bundled: the compiler finds its lib.*.d.ts files next to its own module.
    return createRequire(__filename)('typescript') as TypeScriptModule;
  } catch {
    return undefined;
  }
}

/** One program: a config file (workspace-relative id) or the inferred program of loose files. */
export interface ProgramConfig {
  /** Workspace-relative config path, or `(inferred: a.ts, …)`. */
  id: string;
  /** Absolute POSIX root file names as TypeScript parsed them. */
  fileNames: string[];
  /** Workspace-relative root files. */
  roots: Set<string>;
  options: TS.CompilerOptions;
  projectReferences?: readonly TS.ProjectReference[];
  /** Directory the program resolves relative paths from. */
  dir: string;
  /** Set when the config could not be parsed; the program cannot be loaded. */
  error?: string;
}

/** A loaded program. */
export interface LoadedProgram {
  config: ProgramConfig;
  service: TS.LanguageService;
  program: TS.Program;
}

/** Raised by the host's cancellation token; the question stops searching programs. */
export class ProgramsCancelled extends Error {}

export class TsPrograms {
  private readonly registry: TS.DocumentRegistry;
  private readonly loaded = new Map<string, TS.LanguageService>();
  private parsed: { key: string; configs: ProgramConfig[]; byFile: Map<string, ProgramConfig[]> } | undefined;
  private epoch = 0;
  private readonly versions = new Map<string, { epoch: number; version: string }>();
  private readonly snapshots = new Map<string, { version: string; snapshot: TS.IScriptSnapshot }>();
  private cancel: () => boolean = () => false;

  constructor(
    readonly ts: TypeScriptModule,
    /** Canonical absolute workspace root. */
    readonly root: string,
    private readonly maxLoaded: number,
  ) {
    this.registry = ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames, root);
  }

  /** Starts a question: file versions are re-read, and `cancelled` stops long compiler work. */
  begin(cancelled: () => boolean): void {
    this.epoch++;
    this.cancel = cancelled;
  }

  /**
   * Parses the given configs (workspace-relative) unless the same list was parsed under the same
   * `key` (the index version: a new file or a changed config gives a new key).
   */
  configs(configPaths: readonly string[], key: string): { configs: ProgramConfig[]; byFile: Map<string, ProgramConfig[]> } {
    const fullKey = `${key}\n${configPaths.join('\n')}`;
    if (this.parsed?.key === fullKey) return this.parsed;
    const configs = configPaths.map((rel) => this.parseConfig(rel));
    const byFile = new Map<string, ProgramConfig[]>();
    for (const c of configs) for (const f of c.roots) (byFile.get(f) ?? byFile.set(f, []).get(f)!).push(c);
    // A changed config list means changed programs: drop the loaded services whose config changed.
    const keep = new Map(configs.map((c) => [c.id, JSON.stringify([c.fileNames, c.options, c.projectReferences])]));
    for (const [id, service] of this.loaded) {
      const old = this.parsed?.configs.find((c) => c.id === id);
      if (old && keep.get(id) === JSON.stringify([old.fileNames, old.options, old.projectReferences])) continue;
      if (!old && id.startsWith('(inferred')) continue;
      service.dispose();
      this.loaded.delete(id);
    }
    this.parsed = { key: fullKey, configs, byFile };
    return this.parsed;
  }

  /** The inferred program for files no config includes (bundler resolution, JS allowed). */
  inferred(files: readonly string[]): ProgramConfig {
    const sorted = [...new Set(files)].sort();
    const shown = sorted.slice(0, 3).join(', ') + (sorted.length > 3 ? `, … (${sorted.length} files)` : '');
    const ts = this.ts;
    return {
      id: `(inferred: ${shown})`,
      fileNames: sorted.map((f) => toPosix(path.join(this.root, f))),
      roots: new Set(sorted),
      options: {
        allowJs: true,
        checkJs: false,
        allowNonTsExtensions: true,
        target: ts.ScriptTarget.ESNext,
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        jsx: ts.JsxEmit.Preserve,
        esModuleInterop: true,
        resolveJsonModule: true,
        skipLibCheck: true,
        noEmit: true,
      },
      dir: this.root,
    };
  }

  /** Loads (or reuses) the program's language service; throws the compiler's error as text. */
  load(config: ProgramConfig): LoadedProgram {
    if (config.error) throw new Error(config.error);
    let service = this.loaded.get(config.id);
    if (service) {
      this.loaded.delete(config.id);
      this.loaded.set(config.id, service);
    } else {
      service = this.ts.createLanguageService(this.host(config), this.registry);
      this.loaded.set(config.id, service);
      while (this.loaded.size > this.maxLoaded) {
        const [oldest, s] = this.loaded.entries().next().value as [string, TS.LanguageService];
        s.dispose();
        this.loaded.delete(oldest);
      }
    }
    const program = service.getProgram();
    if (!program) throw new Error('the compiler built no program');
    return { config, service, program };
  }

  /** Ids of the programs currently loaded, least recently used first. */
  loadedIds(): string[] {
    return [...this.loaded.keys()];
  }

  dispose(): void {
    for (const s of this.loaded.values()) s.dispose();
    this.loaded.clear();
    this.snapshots.clear();
    this.versions.clear();
  }

  /** Absolute POSIX file name of a workspace-relative path. */
  abs(rel: string): string {
    return toPosix(path.join(this.root, rel));
  }

  /** Workspace-relative path of a compiler file name, or undefined outside the workspace. */
  rel(fileName: string): string | undefined {
    const r = path.relative(this.root, fileName);
    if (r === '' || r.startsWith('..') || path.isAbsolute(r)) return undefined;
    return toPosix(r);
  }

  private parseConfig(rel: string): ProgramConfig {
    const ts = this.ts;
    const abs = this.abs(rel);
    const dir = path.posix.dirname(abs);
    let fatal: string | undefined;
    const host: TS.ParseConfigFileHost = {
      useCaseSensitiveFileNames: ts.sys.useCaseSensitiveFileNames,
      readDirectory: (p, e, x, i, d) => ts.sys.readDirectory(p, e, x, i, d),
      fileExists: (p) => ts.sys.fileExists(p),
      readFile: (p) => ts.sys.readFile(p),
      getCurrentDirectory: () => dir,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        fatal = ts.flattenDiagnosticMessageText(d.messageText, ' ');
      },
    };
    let parsed: TS.ParsedCommandLine | undefined;
    try {
      parsed = ts.getParsedCommandLineOfConfigFile(abs, { noEmit: true }, host);
    } catch (e) {
      fatal = e instanceof Error ? e.message : String(e);
    }
    if (!parsed || fatal) return { id: rel, fileNames: [], roots: new Set(), options: {}, dir, error: `the compiler could not read ${rel}: ${fatal ?? 'unreadable'}` };
    const fileNames = parsed.fileNames.map(toPosix);
    const roots = new Set<string>();
    for (const f of fileNames) {
      const r = this.rel(f);
      if (r !== undefined) roots.add(r);
    }
    const out: ProgramConfig = { id: rel, fileNames, roots, options: { ...parsed.options, noEmit: true }, dir };
    if (parsed.projectReferences?.length) out.projectReferences = parsed.projectReferences;
    return out;
  }

  private version(fileName: string): string {
    const v = this.versions.get(fileName);
    if (v && v.epoch === this.epoch) return v.version;
    let version: string;
    try {
      const st = fs.statSync(fileName);
      version = `${st.mtimeMs}:${st.size}`;
    } catch {
      version = 'missing';
    }
    this.versions.set(fileName, { epoch: this.epoch, version });
    return version;
  }

  private snapshot(fileName: string): TS.IScriptSnapshot | undefined {
    const version = this.version(fileName);
    const s = this.snapshots.get(fileName);
    if (s && s.version === version) return s.snapshot;
    const text = this.ts.sys.readFile(fileName);
    if (text === undefined) {
      this.snapshots.delete(fileName);
      return undefined;
    }
    const snapshot = this.ts.ScriptSnapshot.fromString(text);
    this.snapshots.set(fileName, { version, snapshot });
    return snapshot;
  }

  private host(config: ProgramConfig): TS.LanguageServiceHost {
    const ts = this.ts;
    return {
      getCompilationSettings: () => config.options,
      getScriptFileNames: () => config.fileNames,
      getProjectReferences: () => config.projectReferences,
      getScriptVersion: (f) => this.version(f),
      getScriptSnapshot: (f) => this.snapshot(f),
      getCurrentDirectory: () => config.dir,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: (f) => ts.sys.fileExists(f),
      readFile: (f, e) => ts.sys.readFile(f, e),
      readDirectory: (p, e, x, i, d) => ts.sys.readDirectory(p, e, x, i, d),
      directoryExists: (d) => ts.sys.directoryExists(d),
      getDirectories: (d) => ts.sys.getDirectories(d),
      realpath: (p) => (ts.sys.realpath ? ts.sys.realpath(p) : p),
      useCaseSensitiveFileNames: () => ts.sys.useCaseSensitiveFileNames,
      // As the TypeScript service does: a referenced project is read from its sources, not its outDir.
      useSourceOfProjectReferenceRedirect: () => true,
      getCancellationToken: () => ({ isCancellationRequested: () => this.cancel() }),
    } as TS.LanguageServiceHost;
  }
}
