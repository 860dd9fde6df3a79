/**
 * A condensed model of what the .NET SDK and the MSBuild toolset contribute to evaluation, written
 * as small MSBuild files that the same evaluator reads. It covers the parts that decide compile
 * items, references and target frameworks: Directory.Build.props/targets and
 * Directory.Packages.props lookup, Configuration/Platform/AssemblyName/RootNamespace defaults,
 * target framework inference, default Compile globbing and its excludes, and the implicit global
 * usings each SDK adds (`Using` items; read only when a compilation is described). Everything lives under
 * the virtual folder TOOLSET_ROOT; nothing here reads the real SDK.
 */
import { TOOLSET_ROOT } from './expression';
import { parseXml, type XmlElement } from './xmlDocument';

/** SDKs whose effect on evaluation this model covers. */
export const MODELLED_SDKS = new Set(
  [
    'Microsoft.NET.Sdk',
    'Microsoft.NET.Sdk.Web',
    'Microsoft.NET.Sdk.Razor',
    'Microsoft.NET.Sdk.Worker',
    'Microsoft.NET.Sdk.BlazorWebAssembly',
    'Microsoft.NET.Sdk.WebAssembly',
    'Microsoft.NET.Sdk.WindowsDesktop',
    'MSTest.Sdk',
    'Microsoft.Build.Traversal',
  ].map((s) => s.toLowerCase()),
);

/**
 * SDKs that ship with the .NET SDK and only add publishing targets to a Microsoft.NET.Sdk project.
 * Any other SDK (NuGet-delivered ones such as Aspire.AppHost.Sdk included) is not read: the
 * project is then `partial`.
 */
export const ADDITIVE_SDKS = new Set(['microsoft.net.sdk.publish']);

/** The lookup Microsoft.Common.props/targets and NuGet.props do, with MSBuild's own property names (projects read them). */
const lookupDirFile = (prop: string, importFlag: string, fileName: string, fileProp: string, basePathProp: string) => `
  <PropertyGroup>
    <${importFlag} Condition="'$(${importFlag})' == ''">true</${importFlag}>
  </PropertyGroup>
  <PropertyGroup Condition="'$(${importFlag})' == 'true' and '$(${prop})' == ''">
    <${fileProp} Condition="'$(${fileProp})' == ''">${fileName}</${fileProp}>
    <${basePathProp} Condition="'$(${basePathProp})' == ''">$([MSBuild]::GetDirectoryNameOfFileAbove($(MSBuildProjectDirectory), '$(${fileProp})'))</${basePathProp}>
    <${prop} Condition="'$(${basePathProp})' != '' and '$(${fileProp})' != ''">$([System.IO.Path]::Combine('$(${basePathProp})', '$(${fileProp})'))</${prop}>
  </PropertyGroup>
  <Import Project="$(${prop})" Condition="'$(${importFlag})' == 'true' and '$(${prop})' != '' and Exists('$(${prop})')" />`;

/** Microsoft.Common.props: Directory.Build.props, intermediate paths, then NuGet's Directory.Packages.props. */
const COMMON_PROPS = `<Project>
  ${lookupDirFile('DirectoryBuildPropsPath', 'ImportDirectoryBuildProps', 'Directory.Build.props', '_DirectoryBuildPropsFile', '_DirectoryBuildPropsBasePath')}
  <PropertyGroup>
    <BaseIntermediateOutputPath Condition="'$(BaseIntermediateOutputPath)' == ''">obj\\</BaseIntermediateOutputPath>
    <BaseIntermediateOutputPath Condition="!HasTrailingSlash('$(BaseIntermediateOutputPath)')">$(BaseIntermediateOutputPath)\\</BaseIntermediateOutputPath>
    <MSBuildProjectExtensionsPath Condition="'$(MSBuildProjectExtensionsPath)' == ''">$(BaseIntermediateOutputPath)</MSBuildProjectExtensionsPath>
  </PropertyGroup>
  ${lookupDirFile('DirectoryPackagesPropsPath', 'ImportDirectoryPackagesProps', 'Directory.Packages.props', '_DirectoryPackagesPropsFile', '_DirectoryPackagesPropsBasePath')}
</Project>`;

/** Sdk.props of Microsoft.NET.Sdk (and the SDKs built on it). */
const SDK_PROPS = `<Project>
  <PropertyGroup>
    <UsingMicrosoftNETSdk>true</UsingMicrosoftNETSdk>
    <UsingNETSdkDefaults>true</UsingNETSdkDefaults>
  </PropertyGroup>
  <Import Project="${TOOLSET_ROOT}/Current/Microsoft.Common.props" />
  <PropertyGroup>
    <Configurations Condition="'$(Configurations)' == ''">Debug;Release</Configurations>
    <Platforms Condition="'$(Platforms)' == ''">AnyCPU</Platforms>
    <Configuration Condition="'$(Configuration)' == ''">Debug</Configuration>
    <Platform Condition="'$(Platform)' == ''">AnyCPU</Platform>
    <OutputType Condition="'$(OutputType)' == ''">Library</OutputType>
    <AssemblyName Condition="'$(AssemblyName)' == ''">$(MSBuildProjectName)</AssemblyName>
    <RootNamespace Condition="'$(RootNamespace)' == ''">$(MSBuildProjectName.Replace(" ", "_"))</RootNamespace>
    <FileAlignment Condition="'$(FileAlignment)' == ''">512</FileAlignment>
    <ErrorReport Condition="'$(ErrorReport)' == ''">prompt</ErrorReport>
    <Deterministic Condition="'$(Deterministic)' == ''">true</Deterministic>
    <DebugType Condition="'$(DebugType)' == ''">portable</DebugType>
    <TreatWarningsAsErrors Condition="'$(TreatWarningsAsErrors)' == ''">false</TreatWarningsAsErrors>
    <Prefer32Bit Condition="'$(Prefer32Bit)' == ''">false</Prefer32Bit>
    <SignAssembly Condition="'$(SignAssembly)' == ''">false</SignAssembly>
    <DelaySign Condition="'$(DelaySign)' == ''">false</DelaySign>
    <AllowUnsafeBlocks Condition="'$(AllowUnsafeBlocks)' == ''">false</AllowUnsafeBlocks>
    <CheckForOverflowUnderflow Condition="'$(CheckForOverflowUnderflow)' == ''">false</CheckForOverflowUnderflow>
    <GeneratePackageOnBuild Condition="'$(GeneratePackageOnBuild)' == ''">false</GeneratePackageOnBuild>
    <RestoreProjectStyle Condition="'$(RestoreProjectStyle)' == ''">PackageReference</RestoreProjectStyle>
  </PropertyGroup>
  <PropertyGroup Condition="'$(Configuration)' == 'Debug'">
    <DebugSymbols Condition="'$(DebugSymbols)' == ''">true</DebugSymbols>
    <Optimize Condition="'$(Optimize)' == ''">false</Optimize>
  </PropertyGroup>
  <PropertyGroup Condition="'$(Configuration)' == 'Release'">
    <Optimize Condition="'$(Optimize)' == ''">true</Optimize>
  </PropertyGroup>
  <PropertyGroup Condition="'$(MSBuildProjectExtension)' == '.csproj'">
    <Language>C#</Language>
    <DefaultLanguageSourceExtension>.cs</DefaultLanguageSourceExtension>
    <DefineConstants Condition="'$(DefineConstants)' != ''">$(DefineConstants);</DefineConstants>
    <DefineConstants>$(DefineConstants)TRACE</DefineConstants>
  </PropertyGroup>
  <PropertyGroup Condition="'$(MSBuildProjectExtension)' == '.vbproj'">
    <Language>VB</Language>
    <DefaultLanguageSourceExtension>.vb</DefaultLanguageSourceExtension>
  </PropertyGroup>
  <PropertyGroup Condition="'$(MSBuildProjectExtension)' == '.fsproj'">
    <Language>F#</Language>
    <DefaultLanguageSourceExtension>.fs</DefaultLanguageSourceExtension>
    <EnableDefaultCompileItems Condition="'$(EnableDefaultCompileItems)' == ''">false</EnableDefaultCompileItems>
  </PropertyGroup>
  <PropertyGroup Condition="'$(_SxStaticWebAssets)' == 'true'">
    <DefaultItemExcludes>$(DefaultItemExcludes);**/node_modules/**;node_modules/**;**/jspm_packages/**;jspm_packages/**;**/bower_components/**;bower_components/**;**/packages.lock.json</DefaultItemExcludes>
  </PropertyGroup>
  <ItemGroup Condition="'$(EnableDefaultItems)' == 'true'">
    <Compile Include="**/*$(DefaultLanguageSourceExtension)" Exclude="$(DefaultItemExcludes);$(DefaultExcludesInProjectFolder)" Condition="'$(EnableDefaultCompileItems)' == 'true'" />
  </ItemGroup>
  <ItemGroup Condition="'$(Language)' == 'C#' and ('$(ImplicitUsings)' == 'true' or '$(ImplicitUsings)' == 'enable')">
    <Using Include="System" />
    <Using Include="System.Collections.Generic" />
    <Using Include="System.IO" />
    <Using Include="System.Linq" />
    <Using Include="System.Net.Http" />
    <Using Include="System.Threading" />
    <Using Include="System.Threading.Tasks" />
  </ItemGroup>
  <ItemGroup Condition="'$(Language)' == 'C#' and ('$(ImplicitUsings)' == 'true' or '$(ImplicitUsings)' == 'enable') and '$(UsingMicrosoftNETSdkWeb)' == 'true'">
    <Using Include="System.Net.Http.Json" />
    <Using Include="Microsoft.AspNetCore.Builder" />
    <Using Include="Microsoft.AspNetCore.Hosting" />
    <Using Include="Microsoft.AspNetCore.Http" />
    <Using Include="Microsoft.AspNetCore.Routing" />
    <Using Include="Microsoft.Extensions.Configuration" />
    <Using Include="Microsoft.Extensions.DependencyInjection" />
    <Using Include="Microsoft.Extensions.Hosting" />
    <Using Include="Microsoft.Extensions.Logging" />
  </ItemGroup>
  <ItemGroup Condition="'$(Language)' == 'C#' and ('$(ImplicitUsings)' == 'true' or '$(ImplicitUsings)' == 'enable') and '$(UsingMicrosoftNETSdkWorker)' == 'true'">
    <Using Include="Microsoft.Extensions.Configuration" />
    <Using Include="Microsoft.Extensions.DependencyInjection" />
    <Using Include="Microsoft.Extensions.Hosting" />
    <Using Include="Microsoft.Extensions.Logging" />
  </ItemGroup>
  <ItemGroup Condition="'$(Language)' == 'C#' and ('$(ImplicitUsings)' == 'true' or '$(ImplicitUsings)' == 'enable') and '$(UseWindowsForms)' == 'true'">
    <Using Include="System.Drawing" />
    <Using Include="System.Windows.Forms" />
  </ItemGroup>
  <ItemGroup Condition="'$(Language)' == 'C#' and ('$(ImplicitUsings)' == 'true' or '$(ImplicitUsings)' == 'enable') and '$(UseWPF)' == 'true' and '$(UseWindowsForms)' != 'true'">
    <Using Remove="System.IO" />
    <Using Remove="System.Net.Http" />
  </ItemGroup>
  <ItemGroup Condition="'$(UsingMicrosoftNETSdkWeb)' == 'true' and '$(EnableDefaultItems)' == 'true' and '$(EnableDefaultCompileItems)' == 'true' and '$(EnableDefaultContentItems)' != 'false' and '$(EnableDefaultNoneItems)' != 'false' and '$(AppDesignerFolder)' != ''">
    <Compile Remove="$(AppDesignerFolder)/launchSettings*.json;$(AppDesignerFolder)/serviceDependencies*.json;$(AppDesignerFolder)/ServiceDependencies/**;$(AppDesignerFolder)/PublishProfiles/**" />
  </ItemGroup>
</Project>`;

/** Sdk.targets: decides between the outer (cross-targeting) and the inner build. */
const SDK_TARGETS = `<Project>
  <PropertyGroup Condition="'$(TargetFrameworks)' != '' and '$(TargetFramework)' == ''">
    <IsCrossTargetingBuild>true</IsCrossTargetingBuild>
  </PropertyGroup>
  <Import Project="${TOOLSET_ROOT}/Sdk/Inner.targets" Condition="'$(IsCrossTargetingBuild)' != 'true'" />
  <Import Project="${TOOLSET_ROOT}/Sdk/Outer.targets" Condition="'$(IsCrossTargetingBuild)' == 'true'" />
</Project>`;

const DIRECTORY_BUILD_TARGETS = lookupDirFile('DirectoryBuildTargetsPath', 'ImportDirectoryBuildTargets', 'Directory.Build.targets', '_DirectoryBuildTargetsFile', '_DirectoryBuildTargetsBasePath');

const TFM_INFERENCE = `
  <PropertyGroup Condition="'$(TargetFramework)' != ''">
    <TargetFrameworkIdentifier Condition="'$(TargetFrameworkIdentifier)' == ''">$([MSBuild]::GetTargetFrameworkIdentifier('$(TargetFramework)'))</TargetFrameworkIdentifier>
    <TargetFrameworkVersion Condition="'$(TargetFrameworkVersion)' == ''">v$([MSBuild]::GetTargetFrameworkVersion('$(TargetFramework)'))</TargetFrameworkVersion>
    <TargetPlatformIdentifier Condition="'$(TargetPlatformIdentifier)' == ''">$([MSBuild]::GetTargetPlatformIdentifier('$(TargetFramework)'))</TargetPlatformIdentifier>
    <TargetFrameworkMoniker Condition="'$(TargetFrameworkMoniker)' == ''">$(TargetFrameworkIdentifier),Version=$(TargetFrameworkVersion)</TargetFrameworkMoniker>
  </PropertyGroup>`;

/** Output paths (Microsoft.NET.DefaultOutputPaths.targets): they are excluded from default globs too. */
const OUTPUT_PATHS = `
  <PropertyGroup>
    <PlatformName Condition="'$(PlatformName)' == ''">$(Platform)</PlatformName>
  </PropertyGroup>
  <PropertyGroup Condition="'$(UsingNETSdkDefaults)' == 'true'">
    <AppendTargetFrameworkToOutputPath Condition="'$(AppendTargetFrameworkToOutputPath)' == ''">true</AppendTargetFrameworkToOutputPath>
    <AppendPlatformToOutputPath Condition="'$(AppendPlatformToOutputPath)' == '' and '$(PlatformName)' == 'AnyCPU'">false</AppendPlatformToOutputPath>
    <AppendPlatformToOutputPath Condition="'$(AppendPlatformToOutputPath)' == '' and '$(PlatformName)' != 'AnyCPU'">true</AppendPlatformToOutputPath>
    <_PlatformToAppendToOutputPath Condition="'$(AppendPlatformToOutputPath)' == 'true'">$(PlatformName)\\</_PlatformToAppendToOutputPath>
  </PropertyGroup>
  <PropertyGroup Condition="'$(UseArtifactsOutput)' == 'true'">
    <DefaultItemExcludes>$([MSBuild]::SextantArtifactsOutputIsNotModelled())</DefaultItemExcludes>
  </PropertyGroup>
  <PropertyGroup Condition="'$(UseArtifactsOutput)' != 'true'">
    <BaseOutputPath Condition="'$(BaseOutputPath)' == ''">bin\\</BaseOutputPath>
    <BaseOutputPath Condition="!HasTrailingSlash('$(BaseOutputPath)')">$(BaseOutputPath)\\</BaseOutputPath>
    <OutputPath Condition="'$(OutputPath)' == ''">$(BaseOutputPath)$(_PlatformToAppendToOutputPath)$(Configuration)\\</OutputPath>
    <OutputPath Condition="!HasTrailingSlash('$(OutputPath)')">$(OutputPath)\\</OutputPath>
    <IntermediateOutputPath Condition="'$(IntermediateOutputPath)' == ''">$(BaseIntermediateOutputPath)$(_PlatformToAppendToOutputPath)$(Configuration)\\</IntermediateOutputPath>
    <IntermediateOutputPath Condition="!HasTrailingSlash('$(IntermediateOutputPath)')">$(IntermediateOutputPath)\\</IntermediateOutputPath>
    <DefaultItemExcludes>$(DefaultItemExcludes);$(OutputPath)/**;$(IntermediateOutputPath)/**</DefaultItemExcludes>
  </PropertyGroup>
  <PropertyGroup Condition="'$(UseArtifactsOutput)' != 'true' and '$(AppendTargetFrameworkToOutputPath)' == 'true' and '$(TargetFramework)' != ''">
    <OutputPath>$(OutputPath)$(TargetFramework.ToLowerInvariant())\\</OutputPath>
    <IntermediateOutputPath>$(IntermediateOutputPath)$(TargetFramework.ToLowerInvariant())\\</IntermediateOutputPath>
  </PropertyGroup>
  <PropertyGroup Condition="'$(UseArtifactsOutput)' != 'true'">
    <PublishDirName Condition="'$(PublishDirName)' == ''">publish</PublishDirName>
    <PublishDir Condition="'$(PublishDir)' == ''">$(OutputPath)$(PublishDirName)\\</PublishDir>
  </PropertyGroup>`;

/** Microsoft.Common.CurrentVersion.targets defaults that item includes use (after Directory.Build.targets). */
const COMMON_TARGET_PATHS = `
  <PropertyGroup>
    <ProjectDir Condition="'$(ProjectDir)' == ''">$([MSBuild]::EnsureTrailingSlash($(MSBuildProjectDirectory)))</ProjectDir>
    <ProjectName Condition="'$(ProjectName)' == ''">$(MSBuildProjectName)</ProjectName>
    <ProjectFileName Condition="'$(ProjectFileName)' == ''">$(MSBuildProjectFile)</ProjectFileName>
    <ProjectExt Condition="'$(ProjectExt)' == ''">$(MSBuildProjectExtension)</ProjectExt>
    <TargetName Condition="'$(TargetName)' == ''">$(AssemblyName)</TargetName>
    <OutDir Condition="'$(OutDir)' == ''">$(OutputPath)</OutDir>
    <IntDir Condition="'$(IntDir)' == ''">$(IntermediateOutputPath)</IntDir>
  </PropertyGroup>`;

/** The inner (single target framework) build: inference, output paths, Directory.Build.targets, default items. */
const INNER_TARGETS = `<Project>
  ${TFM_INFERENCE}
  <PropertyGroup>
    <AppDesignerFolder Condition="'$(AppDesignerFolder)' == ''">Properties</AppDesignerFolder>
  </PropertyGroup>
  ${OUTPUT_PATHS}
  ${DIRECTORY_BUILD_TARGETS}
  ${COMMON_TARGET_PATHS}
  <PropertyGroup Condition="'$(UsingNETSdkDefaults)' == 'true'">
    <EnableDefaultItems Condition="'$(EnableDefaultItems)' == ''">true</EnableDefaultItems>
    <EnableDefaultCompileItems Condition="'$(EnableDefaultCompileItems)' == ''">true</EnableDefaultCompileItems>
  </PropertyGroup>
  <PropertyGroup Condition="'$(MSBuildProjectExtension)' == '.csproj' and '$(DisableImplicitConfigurationDefines)' != 'true'">
    <ImplicitConfigurationDefine>$(Configuration.ToUpperInvariant().Replace('-', '_').Replace('.', '_').Replace(' ', '_'))</ImplicitConfigurationDefine>
    <DefineConstants>$(DefineConstants);$(ImplicitConfigurationDefine)</DefineConstants>
  </PropertyGroup>
  <PropertyGroup>
    <DefaultItemExcludes>$(DefaultItemExcludes);$(BaseOutputPath)/**;$(BaseIntermediateOutputPath)/**</DefaultItemExcludes>
    <DefaultItemExcludes Condition="'$(PublishDir)' != '' and '$([MSBuild]::NormalizePath($(MSBuildProjectDirectory), $(PublishDir)))' != '$([MSBuild]::NormalizePath($(MSBuildProjectDirectory)))'">$(DefaultItemExcludes);$(PublishDir)/**</DefaultItemExcludes>
    <DefaultItemExcludes>$(DefaultItemExcludes);**/*.user;**/*.*proj;**/*.sln;**/*.slnx;**/*.vssscc;**/.DS_Store</DefaultItemExcludes>
    <DefaultExcludesInProjectFolder>$(DefaultExcludesInProjectFolder);$(DefaultItemExcludesInProjectFolder);**/.*/**</DefaultExcludesInProjectFolder>
  </PropertyGroup>
</Project>`;

/** The outer build of a multi-targeting project sees Directory.Build.targets but no default items. */
const OUTER_TARGETS = `<Project>${DIRECTORY_BUILD_TARGETS}</Project>`;

/** Microsoft.Common.targets / language targets of a legacy (non-SDK) project. */
const LEGACY_TARGETS = `<Project>
  <PropertyGroup>
    <TargetFrameworkIdentifier Condition="'$(TargetFrameworkIdentifier)' == ''">.NETFramework</TargetFrameworkIdentifier>
  </PropertyGroup>
  ${DIRECTORY_BUILD_TARGETS}
  <PropertyGroup>
    <AssemblyName Condition="'$(AssemblyName)' == ''">$(MSBuildProjectName)</AssemblyName>
    <BaseIntermediateOutputPath Condition="'$(BaseIntermediateOutputPath)' == ''">obj\\</BaseIntermediateOutputPath>
    <IntermediateOutputPath Condition="'$(IntermediateOutputPath)' == '' and '$(Platform)' == 'AnyCPU'">$(BaseIntermediateOutputPath)$(Configuration)\\</IntermediateOutputPath>
    <IntermediateOutputPath Condition="'$(IntermediateOutputPath)' == '' and '$(Platform)' != 'AnyCPU'">$(BaseIntermediateOutputPath)$(Platform)\\$(Configuration)\\</IntermediateOutputPath>
  </PropertyGroup>
  ${COMMON_TARGET_PATHS}
</Project>`;

const EMPTY = '<Project />';

/** Virtual toolset files by lower-cased file name (legacy projects reach them through $(MSBuildToolsPath) etc.). */
const BY_NAME: Record<string, string> = {
  'microsoft.common.props': COMMON_PROPS,
  'microsoft.csharp.targets': LEGACY_TARGETS,
  'microsoft.visualbasic.targets': LEGACY_TARGETS,
  'microsoft.fsharp.targets': LEGACY_TARGETS,
  'microsoft.common.targets': LEGACY_TARGETS,
  'microsoft.codesharing.common.default.props': EMPTY,
  'microsoft.codesharing.common.props': EMPTY,
  'microsoft.codesharing.csharp.targets': EMPTY,
  'microsoft.codesharing.visualbasic.targets': EMPTY,
  'sdk.props': SDK_PROPS,
  'sdk.targets': SDK_TARGETS,
  'inner.targets': INNER_TARGETS,
  'outer.targets': OUTER_TARGETS,
};

const parsed = new Map<string, XmlElement>();

/** The virtual toolset file at an absolute path under TOOLSET_ROOT, or undefined when not modelled. */
export function toolsetFile(abs: string): XmlElement | undefined {
  const name = abs.slice(abs.lastIndexOf('/') + 1).toLowerCase();
  const text = BY_NAME[name];
  if (text === undefined) return undefined;
  let el = parsed.get(name);
  if (!el) {
    const r = parseXml(text);
    if (!r.ok) throw new Error(`sdk model ${name}: ${r.error}`);
    el = r.root;
    parsed.set(name, el);
  }
  return el;
}

export const SDK_PROPS_PATH = `${TOOLSET_ROOT}/Sdk/Sdk.props`;
export const SDK_TARGETS_PATH = `${TOOLSET_ROOT}/Sdk/Sdk.targets`;

/** Properties an SDK sets before its Sdk.props (flags the model's conditions look at). */
export function sdkFlags(sdk: string): Record<string, string> {
  switch (sdk.toLowerCase()) {
    case 'microsoft.net.sdk.web':
      return { UsingMicrosoftNETSdkWeb: 'true', UsingMicrosoftNETSdkRazor: 'true', _SxStaticWebAssets: 'true' };
    case 'microsoft.net.sdk.razor':
      return { UsingMicrosoftNETSdkRazor: 'true', _SxStaticWebAssets: 'true' };
    case 'microsoft.net.sdk.blazorwebassembly':
      return { UsingMicrosoftNETSdkBlazorWebAssembly: 'true', UsingMicrosoftNETSdkRazor: 'true', _SxStaticWebAssets: 'true' };
    case 'microsoft.net.sdk.worker':
      return { UsingMicrosoftNETSdkWorker: 'true' };
    case 'mstest.sdk':
      return { IsTestProject: 'true' };
    case 'microsoft.build.traversal':
      return { UsingMicrosoftTraversalSdk: 'true', EnableDefaultItems: 'false', EnableDefaultCompileItems: 'false' };
    default:
      return {};
  }
}
