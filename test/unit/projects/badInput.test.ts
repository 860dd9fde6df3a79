import { strict as assert } from 'node:assert';
import { MAX_PROJECT_FILE_BYTES } from '../../../server/src/core/limits';
import { graphWorkspace, sdkProject } from './graphWorkspace';

describe('projects: bad input is reported on the project, never a crash', () => {
  it('malformed XML fails that project only', () => {
    const ws = graphWorkspace({
      'Bad/Bad.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</PropertyGroup></Project>',
      'Good/Good.csproj': sdkProject(),
    });
    try {
      const bad = ws.project('Bad/Bad.csproj');
      assert.equal(bad.status, 'failed');
      assert.match(bad.reasons[0]!, /malformed XML at line 1/);
      assert.equal(ws.project('Good/Good.csproj').status, 'complete');
    } finally {
      ws.dispose();
    }
  });

  it('a project reference cycle marks each member partial and spells the cycle out', () => {
    const ws = graphWorkspace({
      'A/A.csproj': sdkProject('<ItemGroup><ProjectReference Include="../B/B.csproj" /></ItemGroup>'),
      'B/B.csproj': sdkProject('<ItemGroup><ProjectReference Include="../C/C.csproj" /></ItemGroup>'),
      'C/C.csproj': sdkProject('<ItemGroup><ProjectReference Include="../A/A.csproj" /></ItemGroup>'),
      'D/D.csproj': sdkProject('<ItemGroup><ProjectReference Include="../A/A.csproj" /></ItemGroup>'),
    });
    try {
      for (const id of ['A/A.csproj', 'B/B.csproj', 'C/C.csproj']) {
        const p = ws.project(id);
        assert.equal(p.status, 'partial');
        assert.ok(p.reasons.some((r) => /^project reference cycle: .+ → .+ → .+ → /.test(r)), p.reasons.join('; '));
      }
      assert.equal(ws.project('D/D.csproj').status, 'complete');
    } finally {
      ws.dispose();
    }
  });

  it('a reference to a missing project: partial referrer, failed placeholder, edge marked missing', () => {
    const ws = graphWorkspace({ 'A/A.csproj': sdkProject('<ItemGroup><ProjectReference Include="../Gone/Gone.csproj" /></ItemGroup>') });
    try {
      const a = ws.project('A/A.csproj');
      assert.equal(a.status, 'partial');
      assert.ok(a.reasons.includes('references missing project Gone/Gone.csproj'));
      const gone = ws.project('Gone/Gone.csproj');
      assert.equal(gone.status, 'failed');
      assert.match(gone.reasons[0]!, /does not exist \(referenced by A\/A\.csproj\)/);
      assert.equal(ws.graph.edges.find((e) => e.to === 'Gone/Gone.csproj')?.missing, true);
    } finally {
      ws.dispose();
    }
  });

  it('an Import outside the workspace is not read and is reported', () => {
    const ws = graphWorkspace({ 'A/A.csproj': sdkProject('<Import Project="../../../../etc/build.props" />') });
    try {
      const a = ws.project('A/A.csproj');
      assert.equal(a.status, 'partial');
      assert.ok(a.reasons.some((r) => /Import of '.*etc\/build\.props' is outside the workspace; not read/.test(r)), a.reasons.join('; '));
    } finally {
      ws.dispose();
    }
  });

  it('a solution listing projects that do not exist gets them as failed projects', () => {
    const sln = [
      'Microsoft Visual Studio Solution File, Format Version 12.00',
      'Project("{9A19103F-16F7-4668-BE54-9A1E7A4F7556}") = "A", "A\\A.csproj", "{11111111-1111-1111-1111-111111111111}"',
      'EndProject',
      'Project("{9A19103F-16F7-4668-BE54-9A1E7A4F7556}") = "Ghost", "Ghost\\Ghost.csproj", "{22222222-2222-2222-2222-222222222222}"',
      'EndProject',
    ].join('\r\n');
    const ws = graphWorkspace({ 'All.sln': sln, 'A/A.csproj': sdkProject() });
    try {
      const s = ws.graph.solutions[0]!;
      assert.equal(s.status, 'partial');
      assert.deepEqual(s.projects, ['A/A.csproj', 'Ghost/Ghost.csproj']);
      assert.ok(s.reasons.includes('lists missing project Ghost/Ghost.csproj'));
      assert.equal(ws.project('Ghost/Ghost.csproj').status, 'failed');
    } finally {
      ws.dispose();
    }
  });

  it('a 50 MB generated project file is reported failed, not parsed', function () {
    this.timeout(60_000);
    const item = '    <Compile Include="Generated/File00000.cs" />\n';
    const count = Math.ceil((50 * 1024 * 1024) / item.length);
    const big = Buffer.from('<Project Sdk="Microsoft.NET.Sdk">\n  <ItemGroup>\n' + item.repeat(count) + '  </ItemGroup>\n</Project>\n');
    assert.ok(big.length > MAX_PROJECT_FILE_BYTES);
    const ws = graphWorkspace({ 'Huge/Huge.csproj': big, 'Small/Small.csproj': sdkProject() });
    try {
      const huge = ws.project('Huge/Huge.csproj');
      assert.equal(huge.status, 'failed');
      assert.match(huge.reasons[0]!, /over the \d+-byte limit for project files; not parsed/);
      assert.equal(ws.project('Small/Small.csproj').status, 'complete');
    } finally {
      ws.dispose();
    }
  });

  it('what cannot be evaluated makes the project partial with the reason, not a guess', () => {
    const ws = graphWorkspace({
      'A/A.csproj': sdkProject('<ItemGroup Condition="\'$(SolutionDir)\' != \'\'"><Compile Include="Extra.cs" /></ItemGroup>'),
      'B/B.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>$([System.Environment]::GetEnvironmentVariable(\'TFM\'))</TargetFramework></PropertyGroup></Project>',
      'C/C.csproj': '<Project Sdk="My.Custom.Sdk/1.0.0"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>',
      'D/D.csproj': sdkProject('<PropertyGroup><Stamp>$([System.DateTime]::Now)</Stamp></PropertyGroup>'),
    });
    try {
      const a = ws.project('A/A.csproj');
      assert.equal(a.status, 'partial');
      assert.match(a.reasons.join('\n'), /\$\(SolutionDir\) is set only when building through a solution/);
      const b = ws.project('B/B.csproj');
      assert.equal(b.status, 'partial');
      assert.match(b.reasons.join('\n'), /\[System\.Environment\]::GetEnvironmentVariable is not evaluated/);
      const c = ws.project('C/C.csproj');
      assert.equal(c.status, 'partial');
      assert.match(c.reasons.join('\n'), /SDK 'My\.Custom\.Sdk' is not modelled/);
      assert.equal(ws.project('D/D.csproj').status, 'complete', 'an unused unevaluable property does not matter');
    } finally {
      ws.dispose();
    }
  });

  it('a project that exists but is not in the listing (ignored / excluded folder) is reported as such, not as missing', () => {
    const ws = graphWorkspace({ 'A/A.csproj': sdkProject('<ItemGroup><ProjectReference Include="../packages/Lib/Lib.csproj" /></ItemGroup>') });
    try {
      // Written to disk but left out of the listing, as discovery leaves out default-excluded folders.
      require('node:fs').mkdirSync(require('node:path').join(ws.root, 'packages/Lib'), { recursive: true });
      require('node:fs').writeFileSync(require('node:path').join(ws.root, 'packages/Lib/Lib.csproj'), sdkProject());
      const { buildProjectGraph } = require('../../../server/src/projects/buildProjectGraph') as typeof import('../../../server/src/projects/buildProjectGraph');
      const g = buildProjectGraph({ root: ws.root, files: ['A/A.csproj'] });
      const a = g.projects.find((p) => p.id === 'A/A.csproj')!;
      assert.equal(a.status, 'partial');
      assert.match(a.reasons.join('\n'), /references packages\/Lib\/Lib\.csproj, which exists but is not indexed/);
      const lib = g.projects.find((p) => p.id === 'packages/Lib/Lib.csproj')!;
      assert.match(lib.reasons[0]!, /exists but is not indexed/);
      // Marked, so the editor shows it as excluded rather than as a failure; a missing file is not.
      assert.equal(lib.notIndexed, true);
      require('node:fs').writeFileSync(require('node:path').join(ws.root, 'A/A.csproj'), sdkProject('<ItemGroup><ProjectReference Include="../Gone/Gone.csproj" /></ItemGroup>'));
      const gone = buildProjectGraph({ root: ws.root, files: ['A/A.csproj'] }).projects.find((p) => p.id === 'Gone/Gone.csproj')!;
      assert.deepEqual([gone.status, gone.notIndexed], ['failed', undefined]);
    } finally {
      ws.dispose();
    }
  });

  it('a catastrophic regular expression in a property function runs in linear time or is refused, never hangs', function () {
    // Backtracking '(a+)+$' over 40 a's and a '!' takes hours: the mocha timeout catches a run.
    this.timeout(60_000);
    const ws = graphWorkspace({
      'A/A.csproj': sdkProject(`<ItemGroup Condition="$([System.Text.RegularExpressions.Regex]::IsMatch('${'a'.repeat(40)}!', '(a+)+$'))"><Compile Remove="X.cs" /></ItemGroup>`),
      'B/B.csproj': sdkProject(`<ItemGroup Condition="$([System.Text.RegularExpressions.Regex]::IsMatch('$(TargetFramework)', '^net\\d+'))"><Compile Remove="Old.cs" /></ItemGroup>`),
      'C/C.csproj': sdkProject(`<ItemGroup Condition="$([System.Text.RegularExpressions.Regex]::IsMatch('aa', '(a)\\1'))"><Compile Include="Y.cs" /></ItemGroup>`),
      'A/X.cs': '',
      'B/Old.cs': '',
      'B/New.cs': '',
    });
    try {
      // The linear-time engine evaluates the catastrophic shape: no match, so X.cs is not removed.
      assert.equal(ws.project('A/A.csproj').status, 'complete');
      assert.deepEqual(ws.files('A/A.csproj'), ['A/X.cs']);
      // A backreference cannot run in linear time: refused and reported, never guessed.
      assert.equal(ws.project('C/C.csproj').status, 'partial');
      assert.match(ws.project('C/C.csproj').reasons.join('\n'), /regular expression '\(a\)\\1' is not evaluated/);
      assert.equal(ws.project('B/B.csproj').status, 'complete');
      assert.deepEqual(ws.files('B/B.csproj'), ['B/New.cs']);
    } finally {
      ws.dispose();
    }
  });
});
