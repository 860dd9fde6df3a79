/**
 * The LSP backend against the REAL typescript-language-server (npm dependency) on a copy of the
 * TS fixture (src/shapes.ts, src/math.ts, src/main.ts, test/math.test.ts). Expected locations
 * checked by hand against the fixture.
 */
import * as assert from 'node:assert/strict';
import { LspProvider } from '../../../server/src/semantic/lsp/lspProvider';
import { SemanticRegistry } from '../../../server/src/semantic/registry';
import type { OpArgs, OpResult, SemanticOp } from '../../../server/src/semantic/provider';
import { alive, at, ats, copyFixture, percentile, pos, removeDir, waitFor } from './fixture';

describe('semantic: typescript-language-server (real server)', function () {
  this.timeout(120_000);
  let dir: string;
  let provider: LspProvider;
  let registry: SemanticRegistry;

  const ask = <K extends SemanticOp>(op: K, args: OpArgs<K>, deadlineMs = 30_000) =>
    registry.request(op, 'typescript', args, { deadlineMs, waitForReadyMs: deadlineMs });
  const value = async <K extends SemanticOp>(op: K, args: OpArgs<K>): Promise<OpResult<K>> => {
    const a = await ask(op, args);
    assert.equal(a.mode, 'precise', `${op}: ${a.reason}`);
    return a.value!;
  };

  before(() => {
    dir = copyFixture('typescript');
    provider = new LspProvider({ root: dir, idleStopMs: 0 });
    registry = new SemanticRegistry();
    registry.register(provider, 'lsp');
  });

  after(async () => {
    const pid = provider.serverForLanguage('typescript')?.status().pid;
    await registry.dispose();
    if (pid !== undefined) assert.ok(await waitFor(() => !alive(pid), 5_000), 'typescript-language-server still running after dispose');
    removeDir(dir);
  });

  it('definition across files (generic function)', async () => {
    const t0 = Date.now();
    const defs = await value('definition', pos('src/main.ts:6:15'));
    console.log(`      typescript-language-server: first precise answer ${Date.now() - t0} ms after start`);
    assert.deepEqual(ats(defs), ['src/math.ts:3:17']);
    assert.equal(defs[0]!.fullSpan?.line, 3, 'the LocationLink target range is kept as fullSpan');
    assert.equal(defs[0]!.fullSpan?.endLine, 9);
  });

  it('references across source and test files', async () => {
    const refs = await value('references', { ...pos('src/math.ts:11:17'), includeDeclaration: false });
    assert.deepEqual(ats(refs), ['src/main.ts:2:19', 'src/main.ts:7:43', 'test/math.test.ts:2:10', 'test/math.test.ts:5:19']);
    const withDecl = await value('references', { ...pos('src/math.ts:11:17'), includeDeclaration: true });
    assert.ok(ats(withDecl).includes('src/math.ts:11:17'));
  });

  it('implementations of an interface and of an interface method', async () => {
    const types = await value('implementation', pos('src/shapes.ts:2:18'));
    // tsserver also counts the array literal contextually typed as Shape[] (main.ts line 5).
    assert.deepEqual(ats(types), ['src/main.ts:5:27', 'src/shapes.ts:15:14', 'src/shapes.ts:25:14', 'src/shapes.ts:7:23']);
    const methods = await value('implementation', pos('src/shapes.ts:3:3'));
    // The abstract BaseShape.area is not an implementation for tsserver.
    assert.deepEqual(ats(methods), ['src/shapes.ts:20:3', 'src/shapes.ts:30:3']);
  });

  it('callers from source and test files', async () => {
    const [item] = await value('prepareCallHierarchy', pos('src/math.ts:11:17'));
    assert.equal(item?.name, 'totalArea');
    const calls = await value('incomingCalls', item!);
    assert.deepEqual(calls.map((c) => `${c.from.name} ${c.from.path} @${c.sites.map((s) => `${s.line}:${s.column}`).join(',')}`).sort(), [
      'report src/main.ts @7:43',
      'totalOfOneUnitCircleIsPi test/math.test.ts @5:19',
    ]);
    const out = await value('outgoingCalls', (await value('prepareCallHierarchy', pos('src/main.ts:4:17')))[0]!);
    assert.deepEqual(out.map((c) => c.to.name).sort(), ['Circle', 'Rect', 'largest', 'toFixed', 'totalArea']);
  });

  it('type hierarchy is reported unavailable, not empty', async () => {
    const a = await ask('prepareTypeHierarchy', pos('src/shapes.ts:15:14'));
    assert.equal(a.mode, 'unavailable_no_precise');
    assert.equal(a.value, undefined);
    assert.equal(a.attempts[0]?.outcome, 'unsupported');
  });

  it('document symbols and workspace symbols', async () => {
    const outline = await value('documentSymbols', { path: 'src/shapes.ts' });
    assert.deepEqual(outline.map((s) => `${s.kind}:${s.name}`), ['interface:Shape', 'class:BaseShape', 'class:Circle', 'class:Rect']);
    const circle = outline.find((s) => s.name === 'Circle')!;
    assert.deepEqual(circle.selection, { line: 15, column: 14, endLine: 15, endColumn: 20 });
    const syms = await value('workspaceSymbols', { query: 'totalArea' });
    // tsserver gives the whole declaration as the symbol's range.
    assert.deepEqual(syms.map((s) => `${s.kind} ${s.name} ${s.location.path}:${s.location.line}-${s.location.endLine}`), ['function totalArea src/math.ts:11-13']);
  });

  it('latency: definition and references (warm)', async () => {
    const def: number[] = [];
    const ref: number[] = [];
    for (let i = 0; i < 20; i++) {
      def.push((await ask('definition', pos('src/main.ts:6:15'))).elapsedMs);
      ref.push((await ask('references', { ...pos('src/math.ts:11:17'), includeDeclaration: false })).elapsedMs);
    }
    console.log(
      `      typescript-language-server warm latency (n=20): definition p50 ${percentile(def, 50)} ms p95 ${percentile(def, 95)} ms; ` +
        `references p50 ${percentile(ref, 50)} ms p95 ${percentile(ref, 95)} ms`,
    );
    assert.ok(percentile(def, 95) < 1_000);
  });

  it('a crashed server restarts on the next request', async () => {
    const server = provider.serverForLanguage('typescript')!;
    const pid = server.status().pid!;
    process.kill(pid, 'SIGKILL');
    assert.ok(await waitFor(() => server.status().state === 'crashed', 5_000));
    assert.equal(provider.availability('typescript').state, 'failed');
    const a = await ask('definition', pos('src/main.ts:6:15'));
    assert.equal(a.mode, 'precise');
    assert.deepEqual(ats(a.value!), ['src/math.ts:3:17']);
    assert.notEqual(server.status().pid, pid);
  });
});
