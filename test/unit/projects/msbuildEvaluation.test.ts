import { strict as assert } from 'node:assert';
import { graphWorkspace, sdkProject } from './graphWorkspace';

describe('projects: MSBuild evaluation', () => {
  it('SDK default globbing compiles **/*.cs minus bin/, obj/ and dot-folders', () => {
    const ws = graphWorkspace({
      'App/App.csproj': sdkProject(),
      'App/Program.cs': 'class P {}',
      'App/Deep/Nested/Thing.cs': 'class T {}',
      'App/bin/Debug/Gen.cs': 'class G {}',
      'App/obj/Debug/AssemblyInfo.cs': 'class A {}',
      'App/.vs/Junk.cs': 'class J {}',
      'App/readme.md': '#',
    });
    try {
      assert.deepEqual(ws.files('App/App.csproj'), ['App/Deep/Nested/Thing.cs', 'App/Program.cs']);
      assert.equal(ws.project('App/App.csproj').status, 'complete');
    } finally {
      ws.dispose();
    }
  });

  it('Compile Remove, EnableDefaultCompileItems=false and explicit includes with Exclude', () => {
    const ws = graphWorkspace({
      'A/A.csproj': sdkProject('<ItemGroup><Compile Remove="Generated/**" /></ItemGroup>'),
      'A/Keep.cs': '',
      'A/Generated/Drop.cs': '',
      'B/B.csproj': sdkProject(
        '<PropertyGroup><EnableDefaultCompileItems>false</EnableDefaultCompileItems></PropertyGroup><ItemGroup><Compile Include="One.cs;Sub/*.cs" Exclude="Sub/Skip*.cs" /></ItemGroup>',
      ),
      'B/One.cs': '',
      'B/Two.cs': '',
      'B/Sub/In.cs': '',
      'B/Sub/SkipMe.cs': '',
    });
    try {
      assert.deepEqual(ws.files('A/A.csproj'), ['A/Keep.cs']);
      assert.deepEqual(ws.files('B/B.csproj'), ['B/One.cs', 'B/Sub/In.cs']);
    } finally {
      ws.dispose();
    }
  });

  it('a linked file belongs to every project that links it, with its Link', () => {
    const ws = graphWorkspace({
      'shared/Common.cs': '',
      'A/A.csproj': sdkProject('<ItemGroup><Compile Include="..\\shared\\Common.cs" Link="Shared\\Common.cs" /></ItemGroup>'),
      'B/B.csproj': sdkProject('<ItemGroup><Compile Include="$(MSBuildThisFileDirectory)../shared/Common.cs" /></ItemGroup>'),
    });
    try {
      const entries = ws.graph.files.get('shared/Common.cs') ?? [];
      assert.deepEqual(entries.map((e) => e.project).sort(), ['A/A.csproj', 'B/B.csproj']);
      assert.equal(entries.find((e) => e.project === 'A/A.csproj')?.link, 'Shared/Common.cs');
    } finally {
      ws.dispose();
    }
  });

  it('multi-targeting evaluates each framework: conditional items carry their frameworks', () => {
    const ws = graphWorkspace({
      'Lib/Lib.csproj': `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFrameworks>net8.0;netstandard2.0;net472</TargetFrameworks></PropertyGroup>
  <ItemGroup Condition="'$(TargetFrameworkIdentifier)' != '.NETCoreApp'"><Compile Remove="Modern/**" /></ItemGroup>
  <ItemGroup Condition="'$(TargetFramework)' == 'net472'"><ProjectReference Include="../Old/Old.csproj" /></ItemGroup>
</Project>`,
      'Lib/Common.cs': '',
      'Lib/Modern/Span.cs': '',
      'Old/Old.csproj': sdkProject('', 'net472'),
    });
    try {
      const lib = ws.project('Lib/Lib.csproj');
      assert.deepEqual(lib.targetFrameworks, ['net8.0', 'netstandard2.0', 'net472']);
      const span = ws.graph.files.get('Lib/Modern/Span.cs')![0]!;
      assert.deepEqual(span.targetFrameworks, ['net8.0']);
      assert.equal(ws.graph.files.get('Lib/Common.cs')![0]!.targetFrameworks, undefined, 'compiled under every framework');
      const ref = ws.graph.edges.find((e) => e.kind === 'projectReference' && e.from === 'Lib/Lib.csproj');
      assert.deepEqual(ref?.targetFrameworks, ['net472']);
      assert.equal(ref?.to, 'Old/Old.csproj');
    } finally {
      ws.dispose();
    }
  });

  it('nested Directory.Build.props imports the parent; properties flow into names and conditions', () => {
    const ws = graphWorkspace({
      'Directory.Build.props': '<Project><PropertyGroup><Org>Acme</Org><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>',
      'src/Directory.Build.props': `<Project>
  <Import Project="$([MSBuild]::GetPathOfFileAbove('Directory.Build.props', '$(MSBuildThisFileDirectory)../'))" />
  <PropertyGroup><RootNamespace>$(Org).$(MSBuildProjectName)</RootNamespace></PropertyGroup>
</Project>`,
      'src/Orders/Orders.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup Condition="\'$(Org)\' == \'Acme\'"><AssemblyName>Acme.Orders</AssemblyName></PropertyGroup></Project>',
      'src/Orders/Order.cs': '',
    });
    try {
      const p = ws.project('src/Orders/Orders.csproj');
      assert.equal(p.status, 'complete', p.reasons.join('; '));
      assert.deepEqual(p.targetFrameworks, ['net8.0']);
      assert.equal(p.rootNamespace, 'Acme.Orders');
      assert.equal(p.assemblyName, 'Acme.Orders');
    } finally {
      ws.dispose();
    }
  });

  it('central package management supplies versions; test packages make a test project', () => {
    const ws = graphWorkspace({
      'Directory.Packages.props': `<Project>
  <PropertyGroup><ManagePackageVersionsCentrally>true</ManagePackageVersionsCentrally></PropertyGroup>
  <ItemGroup><PackageVersion Include="Serilog" Version="3.1.1" /><PackageVersion Include="xunit" Version="2.9.0" /></ItemGroup>
</Project>`,
      'App/App.csproj': sdkProject('<ItemGroup><PackageReference Include="Serilog" /></ItemGroup>'),
      'App.Tests/App.Tests.csproj': sdkProject('<ItemGroup><PackageReference Include="xunit" /><ProjectReference Include="../App/App.csproj" /></ItemGroup>'),
      'Plain/Plain.csproj': sdkProject('<PropertyGroup><IsTestProject>true</IsTestProject></PropertyGroup>'),
    });
    try {
      const pkg = ws.graph.edges.find((e) => e.kind === 'packageReference' && e.from === 'App/App.csproj');
      assert.deepEqual([pkg?.to, pkg?.version], ['package:Serilog', '3.1.1']);
      assert.equal(ws.project('App.Tests/App.Tests.csproj').isTest, true);
      assert.equal(ws.project('Plain/Plain.csproj').isTest, true);
      assert.equal(ws.project('App/App.csproj').isTest, false);
    } finally {
      ws.dispose();
    }
  });

  it('shared projects: the .projitems files count for the .shproj and every importer', () => {
    const ws = graphWorkspace({
      'Shared/Shared.shproj': `<Project xmlns="http://schemas.microsoft.com/developer/msbuild/2003">
  <Import Project="$(MSBuildExtensionsPath32)\\Microsoft\\VisualStudio\\v$(VisualStudioVersion)\\CodeSharing\\Microsoft.CodeSharing.Common.props" />
  <Import Project="Shared.projitems" Label="Shared" />
</Project>`,
      'Shared/Shared.projitems': '<Project><ItemGroup><Compile Include="$(MSBuildThisFileDirectory)Util.cs" /></ItemGroup></Project>',
      'Shared/Util.cs': '',
      'App/App.csproj': sdkProject('<Import Project="../Shared/Shared.projitems" Label="Shared" />'),
    });
    try {
      assert.equal(ws.project('Shared/Shared.shproj').kind, 'shared');
      assert.deepEqual((ws.graph.files.get('Shared/Util.cs') ?? []).map((e) => e.project).sort(), ['App/App.csproj', 'Shared/Shared.shproj']);
      assert.ok(ws.graph.edges.some((e) => e.kind === 'projectReference' && e.from === 'App/App.csproj' && e.to === 'Shared/Shared.shproj' && e.shared));
    } finally {
      ws.dispose();
    }
  });

  it('legacy projects: explicit items, TargetFrameworkVersion as a framework, F# and VB kinds', () => {
    const ws = graphWorkspace({
      'Old/Old.csproj': `<?xml version="1.0" encoding="utf-8"?>
<Project ToolsVersion="15.0" xmlns="http://schemas.microsoft.com/developer/msbuild/2003">
  <Import Project="$(MSBuildExtensionsPath)\\$(MSBuildToolsVersion)\\Microsoft.Common.props" Condition="Exists('$(MSBuildExtensionsPath)\\$(MSBuildToolsVersion)\\Microsoft.Common.props')" />
  <PropertyGroup><TargetFrameworkVersion>v4.7.2</TargetFrameworkVersion><AssemblyName>Old.Lib</AssemblyName></PropertyGroup>
  <ItemGroup><Compile Include="A.cs" /></ItemGroup>
  <Import Project="$(MSBuildToolsPath)\\Microsoft.CSharp.targets" />
</Project>`,
      'Old/A.cs': '',
      'Old/NotListed.cs': '',
      'F/F.fsproj': sdkProject('<ItemGroup><Compile Include="B.fs" /><Compile Include="A.fs" /></ItemGroup>'),
      'F/A.fs': '',
      'F/B.fs': '',
      'V/V.vbproj': sdkProject(),
      'V/M.vb': '',
      'V/NotVb.cs': '',
    });
    try {
      const old = ws.project('Old/Old.csproj');
      assert.equal(old.status, 'complete', old.reasons.join('; '));
      assert.deepEqual([old.sdk, old.targetFrameworks, old.assemblyName], ['legacy', ['net472'], 'Old.Lib']);
      assert.deepEqual(ws.files('Old/Old.csproj'), ['Old/A.cs']);
      assert.equal(ws.project('F/F.fsproj').kind, 'fsharp');
      assert.deepEqual(ws.files('F/F.fsproj'), ['F/A.fs', 'F/B.fs']);
      assert.equal(ws.project('V/V.vbproj').kind, 'vb');
      assert.deepEqual(ws.files('V/V.vbproj'), ['V/M.vb']);
    } finally {
      ws.dispose();
    }
  });

  it('Exists() in PropertyGroup/Import conditions is relative to the file, elsewhere to the project (as MSBuild)', () => {
    const ws = graphWorkspace({
      'marker.props': '<Project><PropertyGroup><FromMarker>yes</FromMarker></PropertyGroup></Project>',
      'a/imp.props': `<Project>
  <PropertyGroup Condition="Exists('../marker.props')"><GroupSawFile>true</GroupSawFile></PropertyGroup>
  <PropertyGroup><PropSawProject Condition="Exists('../../marker.props')">true</PropSawProject></PropertyGroup>
  <Import Project="../marker.props" Condition="Exists('../marker.props')" />
</Project>`,
      'a/b/P.csproj': sdkProject(`<Import Project="../imp.props" />
  <PropertyGroup Condition="'$(GroupSawFile)$(PropSawProject)$(FromMarker)' == 'truetrueyes'"><AssemblyName>AllThree</AssemblyName></PropertyGroup>`),
    });
    try {
      assert.equal(ws.project('a/b/P.csproj').assemblyName, 'AllThree');
    } finally {
      ws.dispose();
    }
  });

  it('an environment-dependent group condition taints only what it sets: unused, the project stays complete', () => {
    const ws = graphWorkspace({
      'Directory.Build.props': `<Project>
  <PropertyGroup Condition="'$(TF_BUILD)' == 'true'"><ContinuousIntegrationBuild>true</ContinuousIntegrationBuild></PropertyGroup>
  <PropertyGroup Condition="'$(CI)' == 'true'"><ExtraDir>ci/</ExtraDir></PropertyGroup>
</Project>`,
      'A/A.csproj': sdkProject(),
      'B/B.csproj': sdkProject('<ItemGroup><Compile Include="$(ExtraDir)Gen.cs" /></ItemGroup>'),
    });
    try {
      assert.equal(ws.project('A/A.csproj').status, 'complete');
      const b = ws.project('B/B.csproj');
      assert.equal(b.status, 'partial');
      assert.match(b.reasons.join('\n'), /Compile Include "\$\(ExtraDir\)Gen\.cs" depends on PropertyGroup condition "'\$\(CI\)' == 'true'" depends on \$\(CI\) is an environment variable/);
    } finally {
      ws.dispose();
    }
  });

  it('item transforms and item functions: @(X -> template), ->Exists(), ->Distinct()', () => {
    const ws = graphWorkspace({
      'App/App.csproj': sdkProject(`<ItemGroup>
    <Component Include="Alpha;Beta;Alpha;Missing" />
    <_Candidate Include="@(Component->Distinct()->'../%(Identity)/%(Identity).csproj')" />
    <ProjectReference Include="@(_Candidate->Exists())" />
  </ItemGroup>`),
      'Alpha/Alpha.csproj': sdkProject(),
      'Beta/Beta.csproj': sdkProject(),
    });
    try {
      const app = ws.project('App/App.csproj');
      assert.equal(app.status, 'complete', app.reasons.join('; '));
      const refs = ws.graph.edges.filter((e) => e.from === 'App/App.csproj' && e.kind === 'projectReference').map((e) => e.to).sort();
      assert.deepEqual(refs, ['Alpha/Alpha.csproj', 'Beta/Beta.csproj']);
    } finally {
      ws.dispose();
    }
  });

  it('after an SDK that is not read, undefined properties are unknown rather than empty', () => {
    const ws = graphWorkspace({
      'Directory.Build.props': '<Project><Import Project="Sdk.props" Sdk="Acme.Build.Sdk" /></Project>',
      'App/App.csproj': sdkProject('<Import Project="$(RepoEngDir)Common.targets" />'),
    });
    try {
      const app = ws.project('App/App.csproj');
      assert.equal(app.status, 'partial');
      assert.deepEqual(app.reasons.slice(0, 2), [
        "SDK 'Acme.Build.Sdk' is not modelled (its props and targets are not read)",
        'Import "$(RepoEngDir)Common.targets" depends on $(RepoEngDir) may be set by SDK \'Acme.Build.Sdk\', which is not read; not read',
      ]);
    } finally {
      ws.dispose();
    }
  });
});
