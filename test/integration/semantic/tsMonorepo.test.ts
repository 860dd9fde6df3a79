/**
 * TS/JS monorepo questions against the TypeScript language service over every program
 * (tsOracle.ts): the ts-monorepo fixture has six tsconfig programs and no project references
 * (packages/core, packages/util, test/e2e, test/integration, examples/basic, examples/server) and a
 * loose script. Every exported symbol is asked about through the engine's nav queries on a fresh
 * engine (first pass), then again (second pass). Set SEXTANT_TS_ORACLE_REPO=<dir> to run the same
 * comparison on a checkout of a real monorepo (by hand: it is not part of CI).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { callsQuery, referencesQuery } from '../../../server/src/nav/semanticQueries';
import { disposeSemanticService, semanticService } from '../../../server/src/nav/semanticService';
import type { OpResult, ProviderOutcome, SemanticOp, SemanticProvider } from '../../../server/src/semantic/provider';
import { TsProgramsProvider } from '../../../server/src/semantic/tsprograms/tsProgramsProvider';
import { FIXTURES, removeDir } from './fixture';
import { compareWithOracle, formatReport, questions, TsOracle, type OracleReport } from './tsOracle';

function assertScores(r: OracleReport): void {
  const { references, implementations, callers, definition } = r.ops;
  assert.ok(references.precision >= 0.995, `references precision ${references.precision}\n${r.misses.join('\n')}`);
  assert.ok(references.recall >= 0.99, `references recall ${references.recall}\n${r.misses.join('\n')}`);
  assert.ok(callers.recall >= 0.98, `callers recall ${callers.recall}\n${r.misses.join('\n')}`);
  assert.ok(implementations.recall >= 0.98, `implementations recall ${implementations.recall}\n${r.misses.join('\n')}`);
  assert.ok(definition.recall >= 0.99, `definition recall ${definition.recall}\n${r.misses.join('\n')}`);
  for (const s of Object.values(r.ops)) assert.deepEqual(s.missedButPrecise, [], 'an incomplete answer said precise');
}

/** The editor's TypeScript service, as it answers references with only packages/core open: `rows` from its own program. */
function testEditor(rows: unknown[]): SemanticProvider {
  return {
    id: 'editor',
    precision: 'precise',
    supports: (l) => l === 'typescript',
    availability: () => ({ state: 'ready', detail: 'test editor', started: true }),
    async request<K extends SemanticOp>(op: K): Promise<ProviderOutcome<OpResult<K>>> {
      if (op !== 'references') return { kind: 'unavailable', state: 'unsupported', reason: 'references only' };
      return { kind: 'ok', value: rows as OpResult<K> };
    },
    dispose: async () => undefined,
  };
}

describe('TypeScript monorepo: every program is searched (oracle: the TypeScript service over every tsconfig)', function () {
  this.timeout(600_000);
  let dir: string;
  let engine: Engine;
  let oracle: TsOracle;

  before(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-ts-mono-')));
    fs.cpSync(path.join(FIXTURES, 'ts-monorepo'), dir, { recursive: true });
    // No --include: the fixture's pnpm-workspace.yaml declares packages/* (workspace/ignoreRules.ts).
    engine = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    await engine.refresh();
    // As the engine host does at start: the semantic service exists before the first question, so
    // the programs are built in the background (prewarm) while the oracle builds its own.
    semanticService(engine);
    oracle = new TsOracle(dir);
  });

  after(async () => {
    oracle?.dispose();
    if (engine) {
      await disposeSemanticService(engine);
      await engine.close();
    }
    if (dir) removeDir(dir);
  });

  it('first-pass answers agree with the oracle, and none that misses says precise', async () => {
    const targets = oracle.targets((p) => p.startsWith('packages/') && !p.includes('__tests__') && !p.includes('/test/'));
    assert.ok(targets.length >= 15, `${targets.length} targets`);
    const qs = questions(oracle, targets);
    const r = await compareWithOracle(engine, qs);
    for (const l of formatReport(r)) console.log(`      ${l}`);
    assertScores(r);
    assert.ok(r.ops.references.expected > 60 && r.ops.callers.expected > 10 && r.ops.implementations.expected > 5, JSON.stringify(r.ops));
  });

  it('references reach test/e2e, examples and the loose script, labelled test where they are tests', async () => {
    const a = await referencesQuery(engine, { path: 'packages/core/src/client.ts', line: 16, column: 9 }, { deadlineAt: Date.now() + 20_000 });
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise', a.gaps.join('; '));
    const at = (r: { path: string; line: number; column: number; isTest: boolean }) => `${r.path}:${r.line}:${r.column}${r.isTest ? ' test' : ''}`;
    assert.deepEqual(a.rows.map(at).sort(), [
      'examples/basic/main.ts:5:27',
      'examples/server/src/legacy.js:4:49',
      'examples/server/src/server.ts:20:15',
      'packages/core/src/__tests__/client.spec.ts:7:13 test',
      'packages/core/src/client.ts:16:9',
      'packages/util/src/fetchAll.ts:5:48',
      'scripts/seed.ts:6:11',
      'test/e2e/client.e2e.ts:10:12 test',
      'test/e2e/client.e2e.ts:15:14 test',
      'test/e2e/client.e2e.ts:7:16 test',
      'test/e2e/client.e2e.ts:8:16 test',
      'test/integration/flow.ts:8:23 test',
    ]);
    assert.equal(a.counts.test, 6);
    assert.equal(a.counts.production, 6);
  });

  it('top-level module code is a caller', async () => {
    const a = await callsQuery(engine, { path: 'packages/core/src/client.ts', line: 25, column: 17 }, 'incoming', 1, 100, { deadlineAt: Date.now() + 20_000 });
    assert.ok(!('ambiguous' in a));
    assert.equal(a.mode, 'precise');
    const callers = a.edges.map((e) => `${e.caller.kind} ${e.caller.name}`).sort();
    assert.ok(callers.includes('module examples/basic/main.ts'), callers.join(', '));
    assert.ok(callers.includes('module test/e2e/client.e2e.ts'), callers.join(', '));
    assert.ok(callers.includes('function legacyPing'), callers.join(', '));
  });

  it('inside VS Code, the editor answer (its open programs only) is merged with the other programs', async () => {
    const decl = { path: 'packages/core/src/client.ts', line: 16, column: 9, endLine: 16, endColumn: 16 };
    const editor = testEditor([{ ...decl, isDeclaration: true }, { path: 'packages/core/src/__tests__/client.spec.ts', line: 7, column: 13, endLine: 7, endColumn: 20 }]);
    const remove = semanticService(engine).registerEditor(editor);
    try {
      const a = await referencesQuery(engine, decl, { deadlineAt: Date.now() + 20_000 });
      assert.ok(!('ambiguous' in a));
      assert.equal(a.provider, 'editor');
      assert.equal(a.mode, 'precise', a.gaps.join('; '));
      assert.equal(a.rows.length, 12, a.rows.map((r) => r.path).join(', '));
      assert.ok(a.rows.some((r) => r.path === 'test/e2e/client.e2e.ts'));
      // No time left for the other programs: partial, saying what was not searched.
      const late = await referencesQuery(engine, decl, { deadlineAt: Date.now() + 150 });
      assert.ok(!('ambiguous' in late));
      if (late.provider === 'editor') {
        assert.equal(late.mode, 'precise_partial');
        assert.match(late.gaps.join('; '), /not searched/);
      }
    } finally {
      remove();
    }
  });

  it('inside VS Code without the engine\'s TypeScript host, the editor answer says the other programs were not searched', async () => {
    // As in a packaged extension where the typescript module is not beside the engine: only the
    // editor's service answers, from the programs of its open files.
    const bare = await Engine.open({ workspaceRoot: dir, indexRoot: '' });
    try {
      await bare.refresh();
      semanticService(bare, { noTsPrograms: true });
      const decl = { path: 'packages/core/src/client.ts', line: 16, column: 9, endLine: 16, endColumn: 16 };
      semanticService(bare).registerEditor(testEditor([{ ...decl, isDeclaration: true }]));
      const a = await referencesQuery(bare, decl, { deadlineAt: Date.now() + 20_000 });
      assert.ok(!('ambiguous' in a));
      assert.equal(a.provider, 'editor');
      assert.equal(a.mode, 'precise_partial');
      assert.match(a.gaps.join('; '), /6 tsconfig programs and the others were not searched \(the engine's TypeScript host: it is turned off\)/);
    } finally {
      await disposeSemanticService(bare);
      await bare.close();
    }
  });

  it('questions run in the worker thread: the engine thread keeps turning while programs build', async () => {
    assert.equal(semanticService(engine).tsPrograms!.usesWorker, true, 'the engine uses the worker thread');
    const configs = ['examples/basic/tsconfig.json', 'examples/server/tsconfig.json', 'packages/core/tsconfig.json', 'packages/util/tsconfig.json', 'test/e2e/tsconfig.json', 'test/integration/tsconfig.json'];
    const mentions = (name: string) => new Set(sourceFiles(dir).filter((f) => new RegExp(`\\b${name}\\b`).test(fs.readFileSync(path.join(dir, f), 'utf8'))));
    const provider = new TsProgramsProvider({ root: dir, configs: () => ({ paths: configs, key: 'k' }), mentions });
    try {
      // A cold question builds all six programs. Inline, the engine thread would run the compiler
      // and turn only between programs (a handful of turns); with the worker it turns freely.
      let turns = 0;
      let spinning = true;
      const spin = () => {
        turns++;
        if (spinning) setImmediate(spin);
      };
      setImmediate(spin);
      const out = await provider.request('references', 'typescript', { path: 'packages/core/src/client.ts', line: 16, column: 9, includeDeclaration: true }, { signal: new AbortController().signal, deadline: Date.now() + 60_000, waitForReadyMs: 0 });
      spinning = false;
      assert.equal(out.kind, 'ok', JSON.stringify(out));
      assert.equal(out.kind === 'ok' && out.value.length, 12);
      assert.deepEqual(provider.lastCoverage?.skipped, []);
      assert.equal(provider.lastCoverage?.searched.length, 7, 'six tsconfig programs and the loose script');
      assert.ok(turns > 200, `the engine thread turned ${turns} times while six programs were built`);
      assert.ok(provider.loadedPrograms().length >= 6, provider.loadedPrograms().join(', '));
    } finally {
      await provider.dispose();
    }
  });

  it('a program built before without the target file is searched without building it again (same index version)', async () => {
    const configs = ['examples/basic/tsconfig.json', 'examples/server/tsconfig.json', 'packages/core/tsconfig.json', 'packages/util/tsconfig.json', 'test/e2e/tsconfig.json', 'test/integration/tsconfig.json'];
    // Inline and one program loaded at a time: every program is evicted by the next.
    const provider = new TsProgramsProvider({ root: dir, configs: () => ({ paths: configs, key: 'k' }), mentions: () => undefined, thread: 'inline', maxLoaded: 1 });
    const ctx = () => ({ signal: new AbortController().signal, deadline: Date.now() + 60_000, waitForReadyMs: 0 });
    const programs = () => (provider as unknown as { inline: { builds: number } }).inline;
    try {
      const first = await provider.request('references', 'typescript', { path: 'packages/core/src/client.ts', line: 16, column: 9, includeDeclaration: true }, ctx());
      assert.equal(first.kind, 'ok');
      const built = programs().builds;
      assert.equal(built, provider.lastCoverage!.searched.length, 'each program searched was built once');
      // examples/basic compiles packages/core/src/client.ts but not test/e2e/client.e2e.ts.
      const again = await provider.request('references', 'typescript', { path: 'test/e2e/client.e2e.ts', line: 7, column: 16, includeDeclaration: true }, ctx());
      assert.equal(again.kind, 'ok', JSON.stringify(again));
      assert.deepEqual(provider.lastCoverage?.skipped, []);
      const rebuilt = programs().builds - built;
      assert.ok(rebuilt < provider.lastCoverage!.searched.length, `${rebuilt} programs rebuilt for ${provider.lastCoverage!.searched.length} searched`);
    } finally {
      await provider.dispose();
    }
  });

  it('a worker thread that runs out of memory fails its question, and the next question starts another', async () => {
    const configs = ['packages/core/tsconfig.json'];
    const provider = new TsProgramsProvider({ root: dir, configs: () => ({ paths: configs, key: 'k' }), mentions: () => undefined, workerHeapMb: 4 });
    const ask = () => provider.request('definition', 'typescript', { path: 'packages/core/src/client.ts', line: 16, column: 9 }, { signal: new AbortController().signal, deadline: Date.now() + 60_000, waitForReadyMs: 0 });
    try {
      const dead = await ask();
      assert.equal(dead.kind, 'unavailable', JSON.stringify(dead));
      assert.match(dead.kind === 'unavailable' ? dead.reason : '', /TypeScript programs thread stopped: out of memory \(heap limit 4 MiB\)/);
      delete (provider as unknown as { options: { workerHeapMb?: number } }).options.workerHeapMb;
      const ok = await ask();
      assert.equal(ok.kind, 'ok', JSON.stringify(ok));
      assert.equal(ok.kind === 'ok' && ok.value.length, 1);
    } finally {
      await provider.dispose();
    }
  });

  it('when the engine host does not answer in time, typescript-language-server\'s one-program answer is precise_partial', async () => {
    const host = semanticService(engine).tsPrograms!;
    const request = host.request.bind(host);
    // The host's answer at a deadline it could not meet (the worker still building programs).
    host.request = async () => ({ kind: 'unavailable', state: 'loading', reason: 'the TypeScript programs were still being built at the deadline (they go on loading: ask again)' });
    try {
      const a = await referencesQuery(engine, { path: 'packages/core/src/client.ts', line: 16, column: 9 }, { deadlineAt: Date.now() + 20_000 });
      assert.ok(!('ambiguous' in a));
      assert.equal(a.provider, 'lsp', 'typescript-language-server answered');
      assert.equal(a.mode, 'precise_partial');
      assert.match(a.gaps.join('; '), /searched only the TypeScript program of the target's file; the other tsconfig programs that may see it were not searched \(the engine's TypeScript host: the TypeScript programs were still being built/);
      assert.ok(a.rows.length < 12, `${a.rows.length} rows: fewer than the 12 of every program`);
    } finally {
      host.request = request;
    }
  });

  it('a program left out by the cap makes the answer precise_partial, naming it', async () => {
    const options = (semanticService(engine).tsPrograms! as unknown as { options: { maxPerQuestion: number | undefined } }).options;
    const old = options.maxPerQuestion;
    options.maxPerQuestion = 2;
    try {
      const a = await referencesQuery(engine, { path: 'packages/core/src/client.ts', line: 16, column: 9 }, { deadlineAt: Date.now() + 20_000 });
      assert.ok(!('ambiguous' in a));
      assert.equal(a.mode, 'precise_partial');
      assert.match(a.gaps.join('; '), /TypeScript program\(s\) that may see it were not searched: .*tsconfig\.json \(cap: more than 2 programs\)/);
    } finally {
      options.maxPerQuestion = old;
    }
  });
});

describe('TypeScript definitions: the next program including the file answers when the nearest resolves nothing', function () {
  this.timeout(120_000);
  it('an example whose own tsconfig has no paths is resolved through the root tsconfig that maps the package', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-ts-def-')));
    const files: Record<string, string> = {
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, baseUrl: '.', paths: { '@x/core': ['./packages/core/src'] } }, include: ['packages', 'examples'] }),
      'packages/core/tsconfig.json': JSON.stringify({ include: ['src'] }),
      'packages/core/src/index.ts': 'export const api = { hello(): number { return 1; } };\n',
      'examples/app/tsconfig.json': JSON.stringify({ compilerOptions: { strict: true }, include: ['src'] }),
      'examples/app/src/main.ts': "import { api } from '@x/core';\napi.hello();\n",
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    const provider = new TsProgramsProvider({ root, configs: () => ({ paths: ['examples/app/tsconfig.json', 'packages/core/tsconfig.json', 'tsconfig.json'], key: 'k' }), mentions: () => undefined, thread: 'inline' });
    try {
      const d = await provider.request('definition', 'typescript', { path: 'examples/app/src/main.ts', line: 2, column: 5 }, { signal: new AbortController().signal, deadline: Date.now() + 60_000, waitForReadyMs: 0 });
      assert.equal(d.kind, 'ok', JSON.stringify(d));
      assert.deepEqual(d.kind === 'ok' && d.value.map((r) => `${r.path}:${r.line}:${r.column}`), ['packages/core/src/index.ts:1:22']);
      assert.deepEqual(provider.lastCoverage?.searched, ['examples/app/tsconfig.json', 'tsconfig.json'], 'the nearest config first, then the root');
    } finally {
      await provider.dispose();
      removeDir(root);
    }
  });
});

function sourceFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory() && e.name !== 'node_modules') out.push(...sourceFiles(root, r));
    else if (e.isFile() && /\.[cm]?[jt]sx?$/.test(e.name)) out.push(r);
  }
  return out;
}

const REAL = process.env.SEXTANT_TS_ORACLE_REPO;
(REAL ? describe : describe.skip)(`TypeScript monorepo oracle on ${REAL ?? '$SEXTANT_TS_ORACLE_REPO'} (by hand)`, function () {
  this.timeout(3_600_000);
  it('first-pass answers agree with the oracle', async () => {
    const root = fs.realpathSync(REAL!);
    const include = (process.env.SEXTANT_TS_ORACLE_INCLUDE ?? 'packages').split(',').filter(Boolean);
    const engine = await Engine.open({ workspaceRoot: root, indexRoot: '', include });
    await engine.refresh();
    // SEXTANT_TS_NO_PREWARM=1: nothing is built before the first question (a cold first pass).
    semanticService(engine);
    const oracle = new TsOracle(root);
    try {
      const all = oracle.targets((p) => p.startsWith('packages/') && !/(^|\/)(test|tests|__tests__)\/|\.(test|spec)\./.test(p));
      const n = Number(process.env.SEXTANT_TS_ORACLE_TARGETS ?? 40);
      const step = Math.max(1, Math.floor(all.length / n));
      const targets = all.filter((_, i) => i % step === 0).slice(0, n);
      const qs = questions(oracle, targets);
      console.log(`      ${oracle.programs.length} programs, ${all.length} candidate targets, ${targets.length} asked, ${qs.length} questions`);
      const r = await compareWithOracle(engine, qs);
      for (const l of formatReport(r)) console.log(`      ${l}`);
      for (const m of r.misses.slice(0, 40)) console.log(`        ${m}`);
      console.log(`      ${semanticService(engine).tsPrograms!.availability('typescript').detail}; engine process rss ${Math.round(process.memoryUsage().rss / 1048576)} MiB`);
      assertScores(r);
    } finally {
      oracle.dispose();
      await disposeSemanticService(engine);
      await engine.close();
    }
  });
});
