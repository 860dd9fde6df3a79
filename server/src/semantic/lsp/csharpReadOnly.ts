/**
 * csharp-ls without writes into the workspace. Its MSBuildWorkspace runs design-time builds that
 * create `bin/` and `obj/` (AssemblyInfo.cs, GlobalUsings.g.cs, editorconfig, ref/ folders) in
 * every project of a tree that was never built — 89 paths for a six-project fixture. csharp-ls
 * takes no MSBuild properties, but MSBuild reads environment variables as properties, and the
 * SDK's Microsoft.Common.props imports `$(CustomAfterDirectoryBuildProps)` right after the
 * repository's Directory.Build.props and before it defaults BaseIntermediateOutputPath. So the
 * server (and its BuildHost children, which inherit the environment) get a props file in the temp
 * folder that:
 *   - keeps MSBuildProjectExtensionsPath where restore wrote it (project.assets.json and the NuGet
 *     props are only read: csharp-ls never restores);
 *   - moves BaseIntermediateOutputPath and BaseOutputPath to a per-project folder under the temp
 *     folder, so intermediate and output files are written there;
 *   - keeps the tree's own obj/ and bin/ out of the default Compile globs (they no longer match the
 *     moved paths).
 * A project that sets its output paths itself (OutputPath, IntermediateOutputPath, OutDir,
 * artifacts output) would still write where it says: such a tree is detected and csharp-ls is not
 * started on it (csharpOutputOverrides), with the reason in the answer.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const PROPS = `<Project>
  <!-- Written by Sextant (outside the workspace): csharp-ls's design-time builds write here, never into the workspace. -->
  <PropertyGroup Condition="'$(SextantRedirectRoot)' != ''">
    <_SextantObj>$(BaseIntermediateOutputPath)</_SextantObj>
    <_SextantObj Condition="'$(_SextantObj)' == ''">obj\\</_SextantObj>
    <_SextantBin>$(BaseOutputPath)</_SextantBin>
    <_SextantBin Condition="'$(_SextantBin)' == ''">bin\\</_SextantBin>
    <MSBuildProjectExtensionsPath Condition="'$(MSBuildProjectExtensionsPath)' == ''">$([System.IO.Path]::Combine('$(MSBuildProjectDirectory)', '$(_SextantObj)'))</MSBuildProjectExtensionsPath>
    <_SextantKey>$(MSBuildProjectName)-$([MSBuild]::StableStringHash('$(MSBuildProjectFullPath)'))</_SextantKey>
    <BaseIntermediateOutputPath>$(SextantRedirectRoot)/$(_SextantKey)/obj/</BaseIntermediateOutputPath>
    <BaseOutputPath>$(SextantRedirectRoot)/$(_SextantKey)/bin/</BaseOutputPath>
    <DefaultItemExcludes>$(DefaultItemExcludes);$(_SextantObj)**;$(_SextantBin)**</DefaultItemExcludes>
  </PropertyGroup>
</Project>
`;

/** Writes the props file into `tempDir` (outside the workspace) and returns the environment for csharp-ls. */
export function csharpReadOnlyEnv(tempDir: string): Record<string, string> {
  const file = path.join(tempDir, 'Sextant.ReadOnly.props');
  const out = path.join(tempDir, 'msbuild-out');
  fs.mkdirSync(out, { recursive: true, mode: 0o700 });
  if (!fs.existsSync(file) || fs.readFileSync(file, 'utf8') !== PROPS) fs.writeFileSync(file, PROPS, { mode: 0o600 });
  return { CustomAfterDirectoryBuildProps: file, SextantRedirectRoot: out };
}

/** Properties that put build output somewhere the redirect does not cover. */
const OVERRIDES = /<\s*(OutputPath|OutDir|IntermediateOutputPath|BaseOutputPath|BaseIntermediateOutputPath|UseArtifactsOutput|ArtifactsPath|CustomAfterDirectoryBuildProps)\b/;

/**
 * Project and Directory.Build files (workspace-relative) that set their own output paths; csharp-ls
 * would write where they say, so it is not started on such a tree. `read` returns a file's text
 * (through the engine's path policy), or undefined when it is missing or unreadable.
 */
export function csharpOutputOverrides(files: readonly string[], read: (rel: string) => string | undefined): string[] {
  const out: string[] = [];
  for (const rel of files) {
    if (!/\.(csproj|props|targets)$/i.test(rel)) continue;
    const text = read(rel);
    // Comments do not count.
    if (text !== undefined && OVERRIDES.test(text.replace(/<!--[\s\S]*?-->/g, ''))) out.push(rel);
  }
  return out;
}
