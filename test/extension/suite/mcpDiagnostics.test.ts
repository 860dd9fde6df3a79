import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { EditorAnswer, EditorDiagnostics, EditorDocumentation } from '../../../server/src/protocol/protocol';
import { callTool, folder, note, readyEngine, startMcp, waitFor } from './helpers';

/**
 * (Named mcpDiagnostics so it runs after mcp.test.ts: started before the engine tests, VS Code's MCP
 * client stayed connected across their engine restart and the Agent activity test then timed out.)
 * diagnostics through the editor (issue 13): an unsaved edit makes a type error in src/main.ts; VS
 * Code's TypeScript service reports it (vscode.languages.getDiagnostics), the bridge hands it to
 * the engine, and the MCP tool answers it from the editor — from the buffer, not the file on disk.
 * The edit is reverted (nothing is written to the workspace).
 */
describe('diagnostics from the editor (TypeScript fixture, unsaved buffer)', () => {
  it('a type error typed into an unsaved buffer: the bridge and the MCP tool answer it from the editor', async () => {
    const engine = await readyEngine();
    const uri = vscode.Uri.file(path.join(folder().uri.fsPath, 'src/main.ts'));
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const edit = new vscode.WorkspaceEdit();
    // Line 4 of `report`, before `const shapes`: `const broken: number = 'oops';` (TS2322 at 4:9).
    edit.insert(uri, new vscode.Position(3, 2), "const broken: number = 'oops';\n  ");
    assert.ok(await vscode.workspace.applyEdit(edit));
    try {
      const seen = await waitFor('the TypeScript service to report TS2322', () => vscode.languages.getDiagnostics(uri).find((d) => String(typeof d.code === 'object' ? d.code.value : d.code) === '2322'), 60_000);
      assert.equal(seen.range.start.line, 3);
      const a = (await engine.bridge.answer({ op: 'diagnostics', language: 'typescript', args: { paths: ['src/main.ts', 'src/shapes.ts'] }, timeoutMs: 10_000 })) as EditorAnswer<EditorDiagnostics>;
      assert.equal(a.kind, 'ok', JSON.stringify(a));
      const rows = a.kind === 'ok' ? a.value.rows : [];
      // shapes.ts is unchecked unless an earlier test left it open (the editor analyses open files only).
      const open = vscode.workspace.textDocuments.some((d) => d.uri.fsPath.endsWith(path.join('src', 'shapes.ts')));
      assert.deepEqual(a.kind === 'ok' ? (a.value.unchecked ?? []) : [], open ? [] : ['src/shapes.ts']);
      // The editor also holds the "declared but never read" hint (TS6133); the tool leaves hints out by default.
      assert.deepEqual(rows.map((d) => `${d.severity} ${d.code} ${d.path}:${d.line}:${d.column} ${d.source}`), ['error 2322 src/main.ts:4:9 ts', 'hint 6133 src/main.ts:4:9 ts']);
      await startMcp();
      const r = await callTool('diagnostics', { path: 'src' });
      const items = r.items as { severity: string; code: string; path: string; line: number; column: number; from: string; symbol?: string }[];
      note(`diagnostics from the editor: ${String(r.summary)} ${JSON.stringify(r.sources)}`);
      assert.deepEqual(items.map((d) => `${d.severity} ${d.code} ${d.path}:${d.line}:${d.column} ${d.from} ${d.symbol}`), ['error 2322 src/main.ts:4:9 editor report']);
      // main.ts from the editor (its buffer); shapes.ts, when the editor never analysed it, from a headless provider.
      const sources = r.sources as { language: string; from: string; freshness: string; files: number }[];
      assert.equal(`${sources[0]!.language} ${sources[0]!.from} ${sources[0]!.freshness}`, 'typescript editor editor');
      assert.equal(sources.reduce((n, x) => n + x.files, 0), 2);
      for (const x of sources.slice(1)) assert.ok(['lsp', 'syntax'].includes(x.from), JSON.stringify(x));
    } finally {
      await vscode.window.showTextDocument(doc);
      await vscode.commands.executeCommand('workbench.action.files.revert');
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
    assert.equal(doc.isDirty, false, 'the edit was reverted, nothing saved');
  });
});

/**
 * xml_doc's editor path (issue 13): the bridge's documentation op is VS Code's hover providers
 * (vscode.executeHoverProvider); for a declaration with no doc comment the MCP tool asks the editor
 * first and says the editor had nothing beyond the signature.
 */
describe('xml_doc through the editor (TypeScript fixture)', () => {
  it("the bridge's documentation op is the hover's markdown; xml_doc of an undocumented function says the editor was asked", async () => {
    const engine = await readyEngine();
    const a = (await engine.bridge.answer({ op: 'documentation', language: 'typescript', args: { path: 'src/shapes.ts', line: 12, column: 17 }, timeoutMs: 30_000 })) as EditorAnswer<EditorDocumentation | null>;
    note(`documentation from the editor: ${JSON.stringify(a)}`);
    assert.equal(a.kind, 'ok', JSON.stringify(a));
    const v = a.kind === 'ok' ? a.value : null;
    assert.equal(v?.format, 'markdown');
    assert.match(v?.text ?? '', /```typescript\s*function totalArea\(shapes: Shape\[\]\): number\s*```/);
    await startMcp();
    const r = await callTool('xml_doc', { target: { path: 'src/shapes.ts', line: 12, column: 17 } });
    note(`xml_doc through the editor: ${String(r.summary)} mode=${String(r.mode)} provider=${String(r.provider)}`);
    assert.deepEqual(r.items, []);
    assert.equal(r.provider, 'editor');
    assert.equal(r.mode, 'precise');
    assert.match(String(r.summary), /^function totalArea has no doc comment; editor has no documentation for it either\.$/);
  });
});
