/**
 * C# file_dependencies dependents read no syntax tree: the types a file declares come from the
 * symbol index and a dependent's line from its text, so a walk over big dependents does not parse
 * them on the engine thread (an 88 KB file of 3,000 members: ~150 ms per parse, seconds at load 20).
 */
import * as assert from 'node:assert/strict';
import { languageById } from '../../../server/src/syntax/languageConfig';
import { prepareLanguage, withTree } from '../../../server/src/syntax/parseFile';
import { fileDependencies, type DepFileRow } from '../../../server/src/nav/fileDependencies';
import { tempDir, writeTree } from '../../helpers/workspace';
import { heuristicEngine } from '../../helpers/heuristicEngine';

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

describe('file_dependencies on C#: dependents without parsing', function () {
  this.timeout(120_000);
  const fleet = `namespace Harbor;\n\n// A fleet of ships.\npublic class Fleet\n{\n${Array.from({ length: 3000 }, (_, i) => `    public Ship M${i}() => new Ship();`).join('\n')}\n}\n`;

  const opened = heuristicEngine(() => {
    const d = tempDir('deps-dependents');
    writeTree(d, {
      'App.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>\n',
      'Ship.cs': 'namespace Harbor;\n\npublic class Ship\n{\n}\n',
      'Fleet.cs': fleet,
      'Port.cs': 'using System;\n\nnamespace Harbor.Ports;\n\npublic class Port\n{\n    // Ships dock here.\n    private readonly Harbor.Ship _ship = new();\n}\n',
    });
    return d;
  });

  it('dependents of a type used by a 3,000-member file cost far less engine CPU than parsing that file once', async () => {
    const config = (await prepareLanguage('csharp')) ?? languageById('csharp')!;
    withTree('class A {}', config, () => undefined);
    let c = cpuMs();
    withTree(fleet, config, (t) => t.rootNode.descendantsOfType('identifier').length);
    const parseMs = cpuMs() - c;
    await fileDependencies(opened(), { path: 'Ship.cs', direction: 'dependents', depth: 1, includeTypeOnly: true, deadlineAt: Date.now() + 60_000 });
    c = cpuMs();
    const r = await fileDependencies(opened(), { path: 'Ship.cs', direction: 'dependents', depth: 1, includeTypeOnly: true, deadlineAt: Date.now() + 60_000 });
    const callMs = cpuMs() - c;
    assert.equal(r.mode, 'heuristic_no_precise');
    // The line of a dependent row: its first mention of the type (past the usings).
    assert.deepEqual((r.rows as DepFileRow[]).map((x) => `${x.path}:${x.line} ${x.uses?.join(',')}`), ['Fleet.cs:6 Ship', 'Port.cs:8 Ship']);
    assert.ok(callMs < parseMs / 2, `the dependents answer took ${callMs.toFixed(1)} ms of CPU; one parse of the dependent ${parseMs.toFixed(1)} ms`);
  });
});
