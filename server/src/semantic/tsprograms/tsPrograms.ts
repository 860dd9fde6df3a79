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
 * Invariant: nothing is written (no tsbuildinfo, no emit). Reads follow the workspace's path
 * policy (`ReadPolicy`): a file is read when it lies inside the workspace canonically (an in-root
 * link leading out is not followed), or under a `node_modules` folder (type packages, which may
 * live above the root or in a package manager's store), or in the TypeScript lib folder; anything
 * else is, to the compiler, a file that does not exist.
 */
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as TS from 'typescript';
import { toPosix } from '../../core/paths';

export type TypeScriptModule = typeof TS;

/**
 * The `typescript` package of the engine's install; else the one SEXTANT_TYPESCRIPT_MODULE names
 * (the extension passes the editor's own, since the .vsix carries no node_modules); else undefined.
 */
export function loadTypeScript(from: string = __filename, env: NodeJS.ProcessEnv = process.env): TypeScriptModule | undefined {
  const req = createRequire(from);
  // Not bundled: the compiler finds its lib.*.d.ts files next to its own module.
  for (const id of ['typescript', env['SEXTANT_TYPESCRIPT_MODULE']]) {
    if (!id) continue;
    try {
      const ts = req(id) as TypeScriptModule;
      if (typeof ts.createLanguageService === 'function') return ts;
    } catch {
      // not there: the next candidate
    }
  }
  return undefined;
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
  readonly policy: ReadPolicy;
  /** The compiler's file system, behind the read policy. */
  private readonly sys: Pick<TS.System, 'readFile' | 'fileExists' | 'directoryExists' | 'getDirectories' | 'readDirectory' | 'realpath'>;
  private readonly loaded = new Map<string, TS.LanguageService>();
  private parsed: { key: string; configs: ProgramConfig[]; byFile: Map<string, ProgramConfig[]> } | undefined;
  private epoch = 0;
  private readonly versions = new Map<string, { epoch: number; version: string }>();
  private readonly snapshots = new Map<string, { version: string; snapshot: TS.IScriptSnapshot }>();
  /** The files each program compiled when last built, and under which parse key (see knownWithout). */
  private readonly fileSets = new Map<string, { key: string; files: Set<string> }>();
  private cancel: () => boolean = () => false;
  /** How long the last build of each program took (ms; cold builds only). */
  private readonly buildMs = new Map<string, number>();
  /** Language services created so far (programs built from scratch; tests, doctor). */
  builds = 0;

  constructor(
    readonly ts: TypeScriptModule,
    /** Canonical absolute workspace root. */
    readonly root: string,
    private readonly maxLoaded: number,
  ) {
    this.registry = ts.createDocumentRegistry(ts.sys.useCaseSensitiveFileNames, root);
    this.policy = new ReadPolicy(root, path.dirname(ts.getDefaultLibFilePath({})));
    const pol = this.policy;
    const sys = ts.sys;
    this.sys = {
      readFile: (p, e) => (pol.mayRead(p) ? sys.readFile(p, e) : undefined),
      fileExists: (p) => pol.mayRead(p) && sys.fileExists(p),
      directoryExists: (d) => pol.mayList(d) && sys.directoryExists(d),
      getDirectories: (d) => (pol.mayList(d) ? sys.getDirectories(d) : []),
      readDirectory: (p, e, x, i, d) => (pol.mayList(p) ? sys.readDirectory(p, e, x, i, d).filter((f) => pol.mayRead(f)) : []),
      realpath: (p) => (sys.realpath ? sys.realpath(p) : p),
    };
  }

  /** Starts a question: file versions are re-read, and `cancelled` stops long compiler work. */
  begin(cancelled: () => boolean): void {
    this.epoch++;
    this.cancel = cancelled;
    this.policy.reset();
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
    let fresh = false;
    const t0 = Date.now();
    if (service) {
      this.loaded.delete(config.id);
      this.loaded.set(config.id, service);
    } else {
      service = this.ts.createLanguageService(this.host(config), this.registry);
      this.builds++;
      this.loaded.set(config.id, service);
      fresh = true;
      while (this.loaded.size > this.maxLoaded) {
        const [oldest, s] = this.loaded.entries().next().value as [string, TS.LanguageService];
        s.dispose();
        this.loaded.delete(oldest);
      }
    }
    const program = service.getProgram();
    if (!program) throw new Error('the compiler built no program');
    if (fresh) this.buildMs.set(config.id, Date.now() - t0);
    this.remember(config, program);
    return { config, service, program };
  }

  /**
   * Builds a program only to learn its file set (it is disposed at once, the loaded set untouched):
   * the background build uses it for programs past `maxLoaded`.
   */
  probe(config: ProgramConfig): void {
    if (config.error || this.loaded.has(config.id) || this.fileSetKnown(config)) return;
    const service = this.ts.createLanguageService(this.host(config), this.registry);
    this.builds++;
    const t0 = Date.now();
    try {
      const program = service.getProgram();
      this.buildMs.set(config.id, Date.now() - t0);
      if (program) this.remember(config, program);
    } finally {
      service.dispose();
    }
  }

  /** True when the program's language service is loaded. */
  isLoaded(id: string): boolean {
    return this.loaded.has(id);
  }

  /**
   * How long building the program is expected to take: its last build, else the median of the
   * builds so far (0 before any: the first build is always tried).
   */
  estimateMs(config: ProgramConfig): number {
    const own = this.buildMs.get(config.id);
    if (own !== undefined) return own;
    const all = [...this.buildMs.values()].sort((a, b) => a - b);
    return all.length ? all[Math.floor(all.length / 2)]! : 0;
  }

  /** True when the program's file set is known for the current parse (index version). */
  fileSetKnown(config: ProgramConfig): boolean {
    return this.fileSets.get(config.id)?.key === this.parsed?.key;
  }

  /**
   * True when the program, as last built under the current parse (same index version, so the same
   * files on disk), did not compile `fileName`: it cannot see a declaration there, and need not be
   * built again to be searched.
   */
  knownWithout(config: ProgramConfig, fileName: string): boolean {
    const f = this.fileSets.get(config.id);
    return f !== undefined && f.key === this.parsed?.key && !f.files.has(fileName);
  }

  private remember(config: ProgramConfig, program: TS.Program): void {
    const key = this.parsed?.key;
    if (key === undefined || this.fileSets.get(config.id)?.key === key) return;
    this.fileSets.set(config.id, { key, files: new Set(program.getSourceFiles().map((f) => f.fileName)) });
  }

  /** Disposes the least recently used program (memory pressure). */
  evictOldest(): void {
    const first = this.loaded.entries().next();
    if (first.done) return;
    first.value[1].dispose();
    this.loaded.delete(first.value[0]);
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
    this.fileSets.clear();
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
      readDirectory: (p, e, x, i, d) => this.sys.readDirectory(p, e, x, i, d),
      fileExists: (p) => this.sys.fileExists(p),
      readFile: (p) => this.sys.readFile(p),
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
      if (!this.policy.mayRead(fileName)) throw new Error('outside the read policy');
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
    const text = this.sys.readFile(fileName);
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
      fileExists: (f) => this.sys.fileExists(f),
      readFile: (f, e) => this.sys.readFile(f, e),
      readDirectory: (p, e, x, i, d) => this.sys.readDirectory(p, e, x, i, d),
      directoryExists: (d) => this.sys.directoryExists(d),
      getDirectories: (d) => this.sys.getDirectories(d),
      realpath: (p) => this.sys.realpath!(p),
      useCaseSensitiveFileNames: () => ts.sys.useCaseSensitiveFileNames,
      // As the TypeScript service does: a referenced project is read from its sources, not its outDir.
      useSourceOfProjectReferenceRedirect: () => true,
      getCancellationToken: () => ({ isCancellationRequested: () => this.cancel() }),
    } as TS.LanguageServiceHost;
  }
}

/**
 * What the compiler may read, as the engine's PathPolicy decides for the workspace: paths inside
 * the root canonically (after realpath of the deepest existing folder, and of the file itself),
 * paths under a `node_modules` folder (type packages: a workspace's dependencies may be links into
 * a store outside it, and module resolution walks up past the root), and the TypeScript lib
 * folder. Folder realpaths are cached (module resolution probes thousands of paths).
 */
export class ReadPolicy {
  private readonly dirs = new Map<string, string | null>();

  constructor(
    /** Canonical absolute root. */
    readonly root: string,
    private readonly libDir: string,
  ) {}

  /** Forgets the folder realpaths (a new question sees links as they are now). */
  reset(): void {
    this.dirs.clear();
  }

  /** True when a file may be read (or tested for existence). */
  mayRead(p: string): boolean {
    const abs = path.resolve(p);
    if (this.exempt(abs)) return true;
    const dir = this.canonicalDir(path.dirname(abs));
    if (dir === null) return this.inside(this.deepestCanonical(path.dirname(abs)));
    if (!this.inside(dir)) return false;
    // The file itself may be a link leading out.
    try {
      return this.inside(fs.realpathSync.native(abs));
    } catch {
      return true; // missing: nothing to read, the compiler sees it does not exist
    }
  }

  /** True when a folder may be listed or tested for existence. */
  mayList(p: string): boolean {
    const abs = path.resolve(p);
    if (this.exempt(abs)) return true;
    // Module resolution walks up to the file system root looking for node_modules: the folders
    // above the root are only probed for their node_modules (exempt above), never listed.
    return this.inside(this.deepestCanonical(abs));
  }

  private exempt(abs: string): boolean {
    return abs.split(path.sep).includes('node_modules') || abs === this.libDir || abs.startsWith(this.libDir + path.sep);
  }

  private inside(canonical: string): boolean {
    const rel = path.relative(this.root, canonical);
    return rel === '' || (!path.isAbsolute(rel) && rel !== '..' && !rel.startsWith('..' + path.sep));
  }

  /** Realpath of a folder, or null when it does not exist. */
  private canonicalDir(dir: string): string | null {
    let c = this.dirs.get(dir);
    if (c === undefined) {
      try {
        c = fs.realpathSync.native(dir);
      } catch {
        c = null;
      }
      this.dirs.set(dir, c);
    }
    return c;
  }

  /** Realpath of the deepest existing ancestor, with the rest appended. */
  private deepestCanonical(abs: string): string {
    const rest: string[] = [];
    for (let d = abs; ; d = path.dirname(d)) {
      const c = this.canonicalDir(d);
      if (c !== null) return path.join(c, ...rest.reverse());
      if (path.dirname(d) === d) return abs;
      rest.push(path.basename(d));
    }
  }
}
