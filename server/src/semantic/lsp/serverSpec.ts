/**
 * How to start a language server: the built-in specs (C#: csharp-ls, TS/JS:
 * typescript-language-server) and user-configured ones given on the command line as
 *
 *   <language>[,<language>…][:<.ext>,<.ext>…]=<command> [args…]
 *
 * e.g. `python:.py,.pyi=pyright-langserver --stdio` or `csharp=/opt/csharp-ls --features metadata-uris`.
 * A configured spec for a built-in language replaces the built-in one.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { packageRoot } from '../../core/assets';

export interface LanguageServerSpec {
  /** Server id, unique per workspace: 'csharp', 'typescript', or the first configured language. */
  id: string;
  /** Display name ('csharp-ls'). */
  name: string;
  /** Language ids served (LSP language identifiers). */
  languages: string[];
  /** File extensions (with dot) mapped to those languages, for servers the built-in table lacks. */
  extensions?: Record<string, string>;
  /** Executable: absolute path, or a name looked up in `searchDirs`, then on PATH, then in ~/.dotnet/tools. */
  command: string;
  /** Folders searched before PATH (the checkout's own tool folder, where `npm install` puts csharp-ls). */
  searchDirs?: string[];
  args: string[];
  /** Arguments that make the executable print its version (doctor). */
  versionArgs?: string[];
  env?: Record<string, string>;
  /**
   * `progress`: not ready until the server's first work-done progress ends (csharp-ls loading the
   * solution). `initialize`: ready once the handshake is done.
   */
  readiness: 'progress' | 'initialize';
  /**
   * A request sent right after initialize that makes a lazy server load its workspace; the server
   * is ready when it answers (csharp-ls starts loading the solution on the first request that
   * needs it, and blocks that request until the load is done).
   */
  warmup?: { method: string; params: unknown };
  initializationOptions?: unknown;
  /** Answers to `workspace/configuration`, by section. */
  settings?: Record<string, unknown>;
  /** Known gaps of this server, shown by doctor. */
  notes?: string[];
}

/** Options of the C# server: which solution to load. */
export interface CSharpServerOptions {
  /** Absolute path of the .sln/.slnx/.slnf to load (`--solution`). */
  solution?: string;
  /** Extra command-line flags (e.g. ['--features', 'metadata-uris']). */
  extraArgs?: string[];
}

export function csharpLsSpec(o: CSharpServerOptions = {}): LanguageServerSpec {
  const args: string[] = [];
  if (o.solution) args.push('--solution', o.solution);
  args.push(...(o.extraArgs ?? []));
  return {
    id: 'csharp',
    name: 'csharp-ls',
    languages: ['csharp'],
    command: 'csharp-ls',
    searchDirs: [csharpLsToolDir()],
    args,
    versionArgs: ['--version'],
    env: { DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' },
    readiness: 'progress',
    warmup: { method: 'workspace/symbol', params: { query: 'SextantWarmupProbe' } },
    settings: { csharp: {} },
    notes: [
      'implementation of virtual/abstract members misses overrides (derived from the type hierarchy)',
      'references cascade to related members (filtered to the target by definition)',
      'incoming calls miss calls through interface or base members',
      'files compiled into several projects (linked files) answer nothing',
    ],
  };
}

export function typescriptLanguageServerSpec(): LanguageServerSpec {
  return {
    id: 'typescript',
    name: 'typescript-language-server',
    languages: ['typescript', 'typescriptreact', 'javascript', 'javascriptreact'],
    command: resolveTypescriptLanguageServer() ?? 'typescript-language-server',
    args: ['--stdio'],
    versionArgs: ['--version'],
    readiness: 'initialize',
    // Never answer from the syntax-only server while the project loads: its definitions stop at
    // imports. Requests then wait for the project (bounded by the caller's deadline).
    initializationOptions: { tsserver: { useSyntaxServer: 'never' }, preferences: { includeCompletionsForModuleExports: false } },
    notes: ['no type hierarchy (tsserver has none)'],
  };
}

/** Parses `<lang>[,<lang>][:<.ext>,…]=<command> [args…]`; throws a message for the user on bad input. */
export function parseServerOverride(text: string): LanguageServerSpec {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`expected <language>[:<.ext>,…]=<command> [args…], got '${text}'`);
  const head = text.slice(0, eq).trim();
  const commandLine = splitCommandLine(text.slice(eq + 1).trim());
  if (commandLine.length === 0) throw new Error(`no command after '=' in '${text}'`);
  const [langPart, extPart] = head.split(':', 2) as [string, string | undefined];
  const languages = langPart.split(',').map((s) => s.trim()).filter(Boolean);
  if (languages.length === 0 || languages.some((l) => !/^[A-Za-z][\w.+-]*$/.test(l))) throw new Error(`bad language list '${langPart}'`);
  const extensions: Record<string, string> = {};
  for (const e of (extPart ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
    if (!/^\.[\w.+-]+$/.test(e)) throw new Error(`bad extension '${e}' (write it with a leading dot)`);
    extensions[e.toLowerCase()] = languages[0]!;
  }
  const [command, ...args] = commandLine as [string, ...string[]];
  const spec: LanguageServerSpec = {
    id: languages[0]!,
    name: path.basename(command),
    languages,
    command,
    args,
    readiness: languages.includes('csharp') ? 'progress' : 'initialize',
  };
  if (Object.keys(extensions).length > 0) spec.extensions = extensions;
  return spec;
}

/** Splits a command line on whitespace, honouring single and double quotes. */
export function splitCommandLine(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quote: string | undefined;
  let any = false;
  for (const ch of s) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      any = true;
    } else if (/\s/.test(ch)) {
      if (cur || any) out.push(cur);
      cur = '';
      any = false;
    } else cur += ch;
  }
  if (quote) throw new Error('unterminated quote in command line');
  if (cur || any) out.push(cur);
  return out;
}

/**
 * Where `npm install` (scripts/postinstall.mjs) installs csharp-ls, at the version pinned in
 * .config/dotnet-tools.json: `<checkout>/.tools/csharp-ls/`. Found without any PATH change.
 */
export function csharpLsToolDir(): string {
  return path.join(packageRoot(), '.tools', 'csharp-ls');
}

/** The folders findExecutable searches for a spec, in order (for messages). */
export function searchedPlaces(spec: Pick<LanguageServerSpec, 'searchDirs'>, env: NodeJS.ProcessEnv = process.env): string {
  return [...(spec.searchDirs ?? []), 'PATH', dotnetToolsDir(env)].join(', ');
}

function dotnetToolsDir(env: NodeJS.ProcessEnv): string {
  return env.DOTNET_TOOLS_DIR ?? path.join(os.homedir(), '.dotnet', 'tools');
}

/** Resolves a command to an executable file: absolute as is, else `firstDirs`, PATH, then ~/.dotnet/tools. */
export function findExecutable(command: string, env: NodeJS.ProcessEnv = process.env, firstDirs: readonly string[] = []): string | undefined {
  if (path.isAbsolute(command)) return isExecutable(command) ? command : undefined;
  if (command.includes('/')) {
    const abs = path.resolve(command);
    return isExecutable(abs) ? abs : undefined;
  }
  const dirs = [...firstDirs, ...(env.PATH ?? '').split(path.delimiter).filter(Boolean)];
  dirs.push(dotnetToolsDir(env));
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  for (const d of dirs) {
    for (const e of exts) {
      const p = path.join(d, command + e);
      if (isExecutable(p)) return p;
    }
  }
  return undefined;
}

function isExecutable(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The typescript-language-server launcher shipped as an npm dependency, if installed. */
function resolveTypescriptLanguageServer(): string | undefined {
  try {
    const pkgJson = require.resolve('typescript-language-server/package.json');
    const pkg = JSON.parse(fs.readFileSync(pkgJson, 'utf8')) as { bin?: string | Record<string, string> };
    const bin = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.['typescript-language-server'];
    if (!bin) return undefined;
    const p = path.resolve(path.dirname(pkgJson), bin);
    return fs.existsSync(p) ? p : undefined;
  } catch {
    return undefined;
  }
}
