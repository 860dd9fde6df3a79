/**
 * C# file_dependencies dependents read no syntax tree: the types a file declares come from the
 * symbol index and a dependent's line from its text, so a walk over big dependents does not parse
 * them on the engine thread (an 88 KB file of 3,000 members: ~150 ms per parse, seconds at load 20).
 */
import * as assert from 'node:assert/strict';
import { languageById } from '../../../server/src/syntax/languageConfig';
import { prepareLanguage, withTree } from '../../../server/src/syntax/parseFile';
import { Engine } from '../../../server/src/nav/engine';
import { fileDependencies, type DepFileRow } from '../../../server/src/nav/fileDependencies';
import { disposeSemanticService, semanticService } from '../../../server/src/nav/semanticService';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

describe('file_dependencies on C#: dependents without parsing', function () {
  this.timeout(120_000);
  let dir: string;
  let engine: Engine;
  const fleet = `namespace Harbor;\n\n// A fleet of ships.\npublic class Fleet\n{\n${Array.from({ length: 3000 }, (_, i) => `    public Ship M${i}() => new Ship();`).join('\n')}\n}\n`;

  before(async () => {
    dir = tempDir('deps-dependents');
    writeTree(dir, {
      'App.csproj': '<Project Sdk="Microsoft.NET.Sdk"><PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup></Project>\n',
      'Ship.cs': 'namespace Harbor;\n\npublic class Ship\n{\n}\n',
      'Fleet.cs': fleet,
      'Port.cs': 'using System;\n\nnamespace Harbor.Ports;\n\npublic class Port\n{\n    // Ships dock here.\n    private readonly Harbor.Ship _ship = new();\n}\n',
    });
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
    semanticService(engine, { noLsp: true });
  });

  after(async () => {
    await disposeSemanticService(engine);
    await engine.close();
    removeDir(dir);
  });

  it('dependents of a type used by a 3,000-member file cost far less engine CPU than parsing that file once', async () => {
    const config = (await prepareLanguage('csharp')) ?? languageById('csharp')!;
    withTree('class A {}', config, () => undefined);
    let c = cpuMs();
    withTree(fleet, config, (t) => t.rootNode.descendantsOfType('identifier').length);
    const parseMs = cpuMs() - c;
    await fileDependencies(engine, { path: 'Ship.cs', direction: 'dependents', depth: 1, includeTypeOnly: true, deadlineAt: Date.now() + 60_000 });
    c = cpuMs();
    const r = await fileDependencies(engine, { path: 'Ship.cs', direction: 'dependents', depth: 1, includeTypeOnly: true, deadlineAt: Date.now() + 60_000 });
    const callMs = cpuMs() - c;
    assert.equal(r.mode, 'heuristic_no_precise');
    // The line of a dependent row: its first mention of the type (past the usings).
    assert.deepEqual((r.rows as DepFileRow[]).map((x) => `${x.path}:${x.line} ${x.uses?.join(',')}`), ['Fleet.cs:6 Ship', 'Port.cs:8 Ship']);
    assert.ok(callMs < parseMs / 2, `the dependents answer took ${callMs.toFixed(1)} ms of CPU; one parse of the dependent ${parseMs.toFixed(1)} ms`);
  });
});
