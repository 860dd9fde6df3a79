/**
 * Virtual documents: text that exists only inside a compiler-backed provider, never on disk, named
 * by a scheme-prefixed path that no workspace file can have.
 * - `generated:<projectKey>/<generator assembly>/<generator type>/<hint name>` — a source
 *   generator's output, as the Roslyn host runs it (`<projectKey>` = `<project path>|<tfm>`).
 * - `decompiled:<assembly>@<version>/<top-level type>.cs` — a framework or package type as C#.
 * Tools that read files (source_context, outline) and the semantic targets accept them; the text
 * comes from the provider (nav/virtualDocuments.ts).
 */

export type VirtualKind = 'generated' | 'decompiled';

const SCHEME = /^(generated|decompiled):/;

/** The kind of a virtual path, or undefined for any other path. */
export function virtualKind(p: string): VirtualKind | undefined {
  const m = SCHEME.exec(p);
  return m ? (m[1] as VirtualKind) : undefined;
}

export function isVirtualPath(p: string): boolean {
  return SCHEME.test(p);
}

export interface GeneratedPathParts {
  /** The project key (`<project path>|<tfm>`). */
  projectKey: string;
  /** The project file (workspace-relative). */
  project: string;
  tfm: string;
  /** The generator's assembly and type (full name). */
  assembly: string;
  generator: string;
  hintName: string;
}

/** The parts of a `generated:` path (undefined when it is not one or is malformed). */
export function generatedPathParts(p: string): GeneratedPathParts | undefined {
  if (!p.startsWith('generated:')) return undefined;
  const body = p.slice('generated:'.length);
  const bar = body.indexOf('|');
  const slash = bar < 0 ? -1 : body.indexOf('/', bar);
  if (slash < 0) return undefined;
  const [assembly, generator, ...hint] = body.slice(slash + 1).split('/');
  if (!assembly || !generator || hint.length === 0) return undefined;
  return { projectKey: body.slice(0, slash), project: body.slice(0, bar), tfm: body.slice(bar + 1, slash), assembly, generator, hintName: hint.join('/') };
}

/** The assembly (`name@version`) and type of a `decompiled:` path. */
export function decompiledPathParts(p: string): { assembly: string; version: string; type: string } | undefined {
  const m = /^decompiled:([^@/]+)@([^/]+)\/(.+)\.cs$/.exec(p);
  return m ? { assembly: m[1]!, version: m[2]!, type: m[3]! } : undefined;
}
