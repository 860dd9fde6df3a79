import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { csharpOutputOverrides, csharpReadOnlyEnv } from '../../../server/src/semantic/lsp/csharpReadOnly';

describe('csharp-ls read-only guard', () => {
  it('finds project and Directory.Build files that set their own output paths (comments do not count)', () => {
    const files: Record<string, string> = {
      'Directory.Build.props': '<Project><!-- <OutputPath>x</OutputPath> --><PropertyGroup><Nullable>enable</Nullable></PropertyGroup></Project>',
      'src/A/A.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><OutputPath>../../out/</OutputPath></PropertyGroup></Project>',
      'src/B/B.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net10.0</TargetFramework></PropertyGroup></Project>',
      'src/Directory.Build.props': '<Project><PropertyGroup><UseArtifactsOutput>true</UseArtifactsOutput></PropertyGroup></Project>',
      'src/C/notes.txt': '<OutputPath>',
    };
    const found = csharpOutputOverrides([...Object.keys(files), 'missing/Directory.Build.targets'], (rel) => files[rel]);
    assert.deepEqual(found, ['src/A/A.csproj', 'src/Directory.Build.props']);
  });

  it('writes the redirect props into the temp folder and names it in the environment', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-ro-unit-'));
    try {
      const env = csharpReadOnlyEnv(dir);
      assert.equal(env['CustomAfterDirectoryBuildProps'], path.join(dir, 'Sextant.ReadOnly.props'));
      assert.equal(env['SextantRedirectRoot'], path.join(dir, 'msbuild-out'));
      const props = fs.readFileSync(env['CustomAfterDirectoryBuildProps']!, 'utf8');
      assert.match(props, /<BaseIntermediateOutputPath>\$\(SextantRedirectRoot\)\//);
      assert.match(props, /<MSBuildProjectExtensionsPath Condition="'\$\(MSBuildProjectExtensionsPath\)' == ''">/);
      assert.ok(fs.statSync(env['SextantRedirectRoot']!).isDirectory());
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
