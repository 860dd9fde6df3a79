/**
 * The semantic registry's ordering, isolation and labelling, with small in-process providers
 * standing in for backends (the registry is what is under test; the real backends have their own
 * integration tests).
 */
import * as assert from 'node:assert/strict';
import type { CallContext, OpArgs, OpResult, ProviderAvailability, ProviderOutcome, SemanticOp, SemanticProvider } from '../../../server/src/semantic/provider';
import { SemanticRegistry } from '../../../server/src/semantic/registry';
import type { SemanticLocation } from '../../../server/src/semantic/types';

type Behaviour = (ctx: CallContext) => Promise<ProviderOutcome<unknown>>;

function provider(id: string, precision: 'precise' | 'heuristic', behave: Behaviour, languages = ['csharp']): SemanticProvider & { calls: number } {
  return {
    id,
    precision,
    calls: 0,
    supports: (language: string) => languages.includes(language),
    availability: (): ProviderAvailability => ({ state: 'ready', detail: `${id} ready`, started: true }),
    async request<K extends SemanticOp>(_op: K, _language: string, _args: OpArgs<K>, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>> {
      this.calls++;
      return (await behave(ctx)) as ProviderOutcome<OpResult<K>>;
    },
    dispose: async () => undefined,
  };
}

const here: SemanticLocation = { path: 'src/A.cs', line: 3, column: 14, endLine: 3, endColumn: 20 };
const ok = (value: unknown[], gaps?: string[]): Behaviour => async () => ({ kind: 'ok', value, ...(gaps ? { gaps } : {}) });
const hang: Behaviour = (ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve({ kind: 'error', reason: 'aborted' })));
const args = { path: 'src/A.cs', line: 3, column: 14 };

describe('semantic registry', () => {
  it('labels a compiler-backed answer precise and names the provider', async () => {
    const r = new SemanticRegistry();
    r.register(provider('lsp', 'precise', ok([here])), 'lsp');
    r.register(provider('heuristic', 'heuristic', ok([])), 'heuristic');
    const a = await r.request('definition', 'csharp', args);
    assert.equal(a.mode, 'precise');
    assert.equal(a.provider, 'lsp');
    assert.deepEqual(a.value, [here]);
    assert.equal(a.reason, undefined);
  });

  it('labels a precise answer with coverage gaps precise_partial', async () => {
    const r = new SemanticRegistry();
    r.register(provider('lsp', 'precise', ok([here], ['calls through interfaces are not included'])), 'lsp');
    const a = await r.request('incomingCalls', 'csharp', { ...here, name: 'M', kind: 'method' });
    assert.equal(a.mode, 'precise_partial');
    assert.deepEqual(a.gaps, ['calls through interfaces are not included']);
  });

  it('asks the editor before the language server whatever the registration order', async () => {
    const r = new SemanticRegistry();
    const lsp = provider('lsp', 'precise', ok([]));
    r.register(lsp, 'lsp');
    r.register(provider('editor', 'precise', ok([here])), 'editor');
    const a = await r.request('definition', 'csharp', args);
    assert.equal(a.provider, 'editor');
    assert.equal(lsp.calls, 0);
    assert.deepEqual(r.providers().map((p) => p.id), ['editor', 'lsp']);
  });

  it('a hanging provider costs its deadline share, is told to stop, and the heuristic answers with the reason', async () => {
    const r = new SemanticRegistry();
    let aborted = false;
    r.register(
      provider('lsp', 'precise', (ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        return new Promise(() => undefined); // never settles
      }),
      'lsp',
    );
    r.register(provider('heuristic', 'heuristic', ok([here])), 'heuristic');
    const t0 = Date.now();
    const a = await r.request('definition', 'csharp', args, { deadlineMs: 400 });
    const took = Date.now() - t0;
    assert.equal(a.mode, 'heuristic_no_precise');
    assert.equal(a.provider, 'heuristic');
    assert.equal(a.attempts[0]?.outcome, 'deadline');
    assert.match(a.reason ?? '', /^lsp: no answer within \d+ ms$/);
    assert.ok(aborted, 'the slow provider was aborted');
    assert.ok(took < 450, `took ${took} ms`);
  });

  it('a held-back provider is not asked: it is reported loading with the reason, and the heuristic answers', async () => {
    const r = new SemanticRegistry();
    const lsp = provider('lsp', 'precise', ok([here]));
    r.register(lsp, 'lsp');
    r.register(provider('heuristic', 'heuristic', ok([here])), 'heuristic');
    const a = await r.request('definition', 'csharp', args, { holdBack: [{ provider: 'lsp', reason: 'waiting for the project model' }] });
    assert.equal(lsp.calls, 0);
    assert.equal(a.mode, 'heuristic_no_precise');
    assert.equal(a.reason, 'lsp: waiting for the project model');
    assert.deepEqual(a.attempts.map((x) => `${x.provider} ${x.outcome}`), ['lsp loading', 'heuristic ok']);
  });

  it('a provider that throws is isolated: the next one answers', async () => {
    const r = new SemanticRegistry();
    r.register(provider('editor', 'precise', async () => { throw new Error('boom'); }), 'editor');
    r.register(provider('lsp', 'precise', ok([here])), 'lsp');
    const a = await r.request('definition', 'csharp', args);
    assert.equal(a.mode, 'precise');
    assert.equal(a.provider, 'lsp');
    assert.deepEqual(a.attempts.map((x) => x.outcome), ['error', 'ok']);
    assert.match(a.attempts[0]?.reason ?? '', /editor failed: boom/);
  });

  it('a loading server and no fallback: unavailable_no_precise with the reason, no value', async () => {
    const r = new SemanticRegistry();
    r.register(provider('lsp', 'precise', async () => ({ kind: 'unavailable', state: 'loading', reason: 'csharp-ls loading Shapes.sln (1/3)' })), 'lsp');
    const a = await r.request('references', 'csharp', { ...args, includeDeclaration: true });
    assert.equal(a.mode, 'unavailable_no_precise');
    assert.equal(a.value, undefined);
    assert.equal(a.reason, 'lsp: csharp-ls loading Shapes.sln (1/3)');
    assert.equal(a.attempts[0]?.outcome, 'loading');
  });

  it('a language with no provider says so', async () => {
    const r = new SemanticRegistry();
    r.register(provider('lsp', 'precise', ok([here])), 'lsp');
    const a = await r.request('definition', 'go', { path: 'main.go', line: 1, column: 1 });
    assert.equal(a.mode, 'unavailable_no_precise');
    assert.equal(a.reason, 'no precise provider for go');
    assert.equal(a.attempts[0]?.outcome, 'unsupported');
  });

  it('heuristic fallback without any precise provider names the missing provider', async () => {
    const r = new SemanticRegistry();
    r.register(provider('heuristic', 'heuristic', ok([here]), ['csharp']), 'heuristic');
    const a = await r.request('definition', 'csharp', args);
    assert.equal(a.mode, 'heuristic_no_precise');
    assert.equal(a.reason, 'no precise provider for csharp');
  });

  it('preciseOnly never asks the heuristic provider', async () => {
    const r = new SemanticRegistry();
    const h = provider('heuristic', 'heuristic', ok([here]));
    r.register(provider('lsp', 'precise', async () => ({ kind: 'unavailable', state: 'failed', reason: 'crashed' })), 'lsp');
    r.register(h, 'heuristic');
    const a = await r.request('definition', 'csharp', args, { preciseOnly: true });
    assert.equal(a.mode, 'unavailable_no_precise');
    assert.equal(h.calls, 0);
  });

  it('caller cancellation stops the chain at once', async () => {
    const r = new SemanticRegistry();
    const h = provider('heuristic', 'heuristic', ok([here]));
    r.register(provider('lsp', 'precise', hang), 'lsp');
    r.register(h, 'heuristic');
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const a = await r.request('definition', 'csharp', args, { signal: ac.signal, deadlineMs: 5_000 });
    assert.equal(a.mode, 'unavailable_no_precise');
    assert.equal(a.attempts[0]?.outcome, 'cancelled');
    assert.equal(h.calls, 0);
  });

  it('keeps time for the heuristic provider after a slow precise one', async () => {
    const r = new SemanticRegistry();
    let lspBudget = 0;
    r.register(
      provider('lsp', 'precise', (ctx) => {
        lspBudget = ctx.deadline - Date.now();
        return hang(ctx);
      }),
      'lsp',
    );
    r.register(provider('heuristic', 'heuristic', ok([here])), 'heuristic');
    const a = await r.request('definition', 'csharp', args, { deadlineMs: 2_000 });
    assert.equal(a.mode, 'heuristic_no_precise');
    assert.ok(lspBudget <= 1_000 && lspBudget > 800, `lsp budget ${lspBudget}`);
  });

  it('availability lists every provider with its precision', () => {
    const r = new SemanticRegistry();
    r.register(provider('lsp', 'precise', ok([])), 'lsp');
    r.register(provider('heuristic', 'heuristic', ok([])), 'heuristic');
    assert.deepEqual(
      r.availability('csharp').map((a) => `${a.provider}/${a.precision}/${a.state}`),
      ['lsp/precise/ready', 'heuristic/heuristic/ready'],
    );
  });

  it('an unregistered provider is no longer asked', async () => {
    const r = new SemanticRegistry();
    const remove = r.register(provider('editor', 'precise', ok([here])), 'editor');
    r.register(provider('lsp', 'precise', ok([])), 'lsp');
    remove();
    assert.equal((await r.request('definition', 'csharp', args)).provider, 'lsp');
  });
});
