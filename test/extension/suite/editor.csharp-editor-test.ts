/**
 * The C# editor path in a real editor (runInCodeServer --suite csharp-editor): a test-only
 * extension (test/extension/csharp-standin: vscode-languageclient + csharp-ls) stands in for C#
 * Dev Kit on the restored Harbor fixture (test/fixtures/roslyn, six projects). Agent-mode tool
 * calls go through VS Code's MCP client to the engine, which asks the editor bridge, which asks
 * VS Code's providers, which the stand-in serves. Answers must say `precise` from provider
 * `editor`; one asked while csharp-ls is still loading the solution must be labelled, never
 * presented as complete when it is not.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { at, callTool, folder, note, screenshot, sextant, startMcp, waitFor } from './helpers';

interface Row {
  path: string;
  line: number;
  column: number;
  name?: string;
}
const where = (r: Row): string => `${r.path}:${r.line}`;

describe('C# through the editor (stand-in for C# Dev Kit: csharp-ls via vscode-languageclient)', () => {
  before(async function () {
    this.timeout(240_000);
    await startMcp();
  });

  it('the first question, asked while the stand-in is still loading the solution, is labelled or complete', async function () {
    this.timeout(240_000);
    // Opening a C# file activates the stand-in (onLanguage:csharp), as it would C# Dev Kit.
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder().uri, 'src/Harbor.App/Program.cs'));
    await vscode.window.showTextDocument(doc);
    const standin = vscode.extensions.getExtension('sextant-test.csharp-standin');
    assert.ok(standin, 'the stand-in extension is loaded');
    await waitFor('the stand-in to activate', () => standin.isActive, 60_000);
    const expected = [where(at('src/Harbor.App/Program.cs', 'Register(local')), where(at('src/Harbor.App/Program.cs', 'Register(remote')), where(at('src/Harbor.Core/Registry.cs', 'Register<T>'))].sort();
    const a = await callTool('references', { target: at('src/Harbor.Core/Registry.cs', 'Register<T>'), group_by: 'none' });
    note(`first references while loading: mode ${String(a.mode)}, provider ${String(a.provider)}, ${(a.items as Row[] | undefined)?.length ?? 0} rows; ${String(a.summary ?? '').slice(0, 200)}`);
    if (a.mode === 'precise') assert.deepEqual((a.items as Row[]).map(where).sort(), expected, 'presented as complete: it must be complete');
    else assert.match(String(a.mode), /^(precise_partial|heuristic_no_precise)$/, JSON.stringify(a).slice(0, 500));
  });

  it('the Index view says the editor serves C#', async () => {
    const api = await sextant();
    const row = await waitFor('csharp: editor · ready', () => api.index.describe().find((l) => /^ {2}csharp: editor · ready$/.test(l)), 60_000);
    assert.ok(row);
  });

  it('definition, references, callers and implementations of C# answer precise from the editor', async function () {
    this.timeout(240_000);
    // Once csharp-ls has loaded the solution, the answers settle and are precise from the editor.
    // Until then the editor provider says it is loading and the next provider (Sextant's Roslyn
    // host) may answer: that answer is labelled with its own provider, so wait for the editor's.
    const seen: string[] = [];
    const def = await waitFor(
      'a precise definition from the editor',
      async () => {
        const d = await callTool('definition', { target: at('src/Harbor.App/Program.cs', 'Register(local') });
        const label = `${String(d.mode)}/${String(d.provider)}`;
        if (seen[seen.length - 1] !== label) seen.push(label);
        return d.mode === 'precise' && d.provider === 'editor' ? d : undefined;
      },
      180_000,
    );
    note(`definition answers until the editor's: ${seen.join(' → ')}`);
    assert.deepEqual((def.items as Row[]).map(where), [where(at('src/Harbor.Core/Registry.cs', 'Register<T>'))]);

    const refs = await callTool('references', { target: at('src/Harbor.Core/Registry.cs', 'Register<T>'), group_by: 'none' });
    assert.equal(refs.mode, 'precise', String(refs.summary));
    assert.equal(refs.provider, 'editor');
    assert.deepEqual((refs.items as Row[]).map(where).sort(), [where(at('src/Harbor.App/Program.cs', 'Register(local')), where(at('src/Harbor.App/Program.cs', 'Register(remote')), where(at('src/Harbor.Core/Registry.cs', 'Register<T>'))].sort());

    const callers = await callTool('callers', { target: at('src/Harbor.Core/Registry.cs', 'Register<T>') });
    assert.equal(callers.mode, 'precise', String(callers.summary));
    assert.equal(callers.provider, 'editor');
    const edges = callers.items as { caller: Row; sites: { line: number }[] }[];
    assert.deepEqual(edges.map((e) => /Main/.test(e.caller.name ?? '')), [true], JSON.stringify(edges));
    assert.deepEqual(edges[0]!.sites.map((s) => s.line).sort(), [at('src/Harbor.App/Program.cs', 'Register(local').line, at('src/Harbor.App/Program.cs', 'Register(remote').line]);

    const impls = await callTool('implementations', { target: at('src/Harbor.Core/IRepository.cs', 'IRepository') });
    assert.equal(impls.provider, 'editor', String(impls.summary));
    assert.match(String(impls.mode), /^precise/);
    const names = (impls.items as Row[]).map((r) => r.path).sort();
    assert.ok(names.includes('src/Harbor.Core/ShipRepository.cs') && names.includes('src/Harbor.Net/RemoteRepository.cs'), names.join(', '));
  });

  it('the status bar and the Sextant views say the editor serves C# (screenshot)', async () => {
    const api = await sextant();
    await waitFor(`the status bar to name the editor for C# (${api.statusBar.text})`, () => /C#: the editor's language service/.test(api.statusBar.text), 60_000);
    await vscode.commands.executeCommand('workbench.view.extension.sextant');
    for (const view of ['sextant.projects', 'sextant.index', 'sextant.activity']) await vscode.commands.executeCommand(`${view}.focus`);
    assert.ok(api.activity.calls().some((c) => c.tool === 'references' && c.mode === 'precise'), 'the precise references call is in Agent Activity');
    await new Promise((r) => setTimeout(r, 800));
    const shot = await screenshot('csharp-editor-views');
    if (shot) assert.ok(shot.distinctColors > 20, `the screenshot looks blank: ${shot.distinctColors} colours`);
  });
});
