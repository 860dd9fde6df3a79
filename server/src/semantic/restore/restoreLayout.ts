/**
 * Where a restore into Sextant's state writes, and how MSBuild is told so. `dotnet restore` writes
 * project.assets.json, the NuGet props/targets, the dgspec and the cache under each project's
 * MSBuildProjectExtensionsPath (default: `obj/` beside the project). MSBuild reads environment
 * variables as properties, and the SDK's Microsoft.Common.props imports
 * `$(CustomAfterDirectoryBuildProps)` right after the repository's Directory.Build.props and
 * before it defaults BaseIntermediateOutputPath / MSBuildProjectExtensionsPath, so a props file
 * given by environment moves all of it to `<state>/out/<project folder, workspace-relative>/obj/`
 * (the user-level NuGet cache is the only other place written). The same layout is mirrored here
 * (`stateAssetsFile`) so that the Roslyn host's descriptions can find what was restored.
 *
 * A project file or a Directory.Build.targets that sets those paths itself comes after the props
 * and would win: such a tree is not restored (`restoreOverrides`), with the reason in answers.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const PROPS = `<Project>
  <!-- Written by Sextant (outside the workspace): restore writes here, never into the workspace. -->
  <PropertyGroup Condition="'$(SextantRestoreRoot)' != ''">
    <_SextantRel>$([MSBuild]::MakeRelative('$(SextantWorkspaceRoot)', '$(MSBuildProjectDirectory)'))</_SextantRel>
    <_SextantRel>$(_SextantRel.Replace('..', '_up_'))</_SextantRel>
    <_SextantDir>$([MSBuild]::EnsureTrailingSlash('$([System.IO.Path]::Combine('$(SextantRestoreRoot)', '$(_SextantRel)'))'))</_SextantDir>
    <MSBuildProjectExtensionsPath>$(_SextantDir)obj/</MSBuildProjectExtensionsPath>
    <BaseIntermediateOutputPath>$(_SextantDir)obj/</BaseIntermediateOutputPath>
    <BaseOutputPath>$(_SextantDir)bin/</BaseOutputPath>
    <RestoreOutputPath>$(_SextantDir)obj/</RestoreOutputPath>
    <NuGetLockFilePath Condition="!Exists('$(MSBuildProjectDirectory)/packages.lock.json')">$(_SextantDir)packages.lock.json</NuGetLockFilePath>
  </PropertyGroup>
</Project>
`;

export interface RestoreLayout {
  /** The state folder (under the index root). */
  dir: string;
  /** The props file given to MSBuild by environment. */
  props: string;
  /** Root of the redirected per-project folders. */
  out: string;
}

export function restoreLayout(stateDir: string): RestoreLayout {
  return { dir: stateDir, props: path.join(stateDir, 'Sextant.Restore.props'), out: path.join(stateDir, 'out') };
}

/** Writes the props file (owner-only) and returns the environment for `dotnet restore`. */
export function restoreEnv(layout: RestoreLayout, root: string): Record<string, string> {
  fs.mkdirSync(layout.out, { recursive: true, mode: 0o700 });
  if (!fs.existsSync(layout.props) || fs.readFileSync(layout.props, 'utf8') !== PROPS) fs.writeFileSync(layout.props, PROPS, { mode: 0o600 });
  return { CustomAfterDirectoryBuildProps: layout.props, SextantRestoreRoot: layout.out, SextantWorkspaceRoot: root };
}

/** Where restore into state writes a project's assets file (`project` workspace-relative, POSIX). */
export function stateAssetsFile(layout: RestoreLayout, project: string): string {
  const dir = path.posix.dirname(project);
  const rel = (dir === '.' ? '' : dir).replace(/\.\./g, '_up_');
  return path.join(layout.out, rel, 'obj', 'project.assets.json');
}

/** Properties that, set after the props (in a project file or a .targets file), would move restore output back into the tree. */
const OVERRIDES = /<\s*(MSBuildProjectExtensionsPath|RestoreOutputPath|ProjectAssetsFile|BaseIntermediateOutputPath|NuGetLockFilePath|CustomAfterDirectoryBuildProps)\b/;

/**
 * Project files and .targets files (workspace-relative) that set restore's output paths
 * themselves. `read` returns a file's text through the engine's path policy, or undefined.
 * Directory.Build.props is imported before the redirect, so what it sets is overridden.
 */
export function restoreOverrides(files: readonly string[], read: (rel: string) => string | undefined): string[] {
  const out: string[] = [];
  for (const rel of files) {
    if (!/\.(csproj|targets)$/i.test(rel)) continue;
    const text = read(rel);
    if (text !== undefined && OVERRIDES.test(text.replace(/<!--[\s\S]*?-->/g, ''))) out.push(rel);
  }
  return out;
}
