/**
 * Every tool against hostile arguments on a hostile workspace: the deadline on every tool, regexes
 * that cannot hang the engine, nothing from outside the root, and a fast-check fuzz over every
 * tool's input schema (10,000 inputs: zero crashes, zero answers over budget, none over the
 * deadline). The calls run in a child process (test/unit/hardening/toolsHarness.ts) so that a
 * tool blocking the event loop fails this test on a timeout, naming the call, instead of hanging.
 * Language servers are off there (heuristic provider): the run measures the engine.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { ALL_TOOLS } from '../../server/src/mcp/tools';
import type { ToolsReport } from '../unit/hardening/toolsHarness';

const REPO = path.resolve(__dirname, '..', '..');
const HARNESS = path.join(REPO, 'test', 'unit', 'hardening', 'toolsHarness.ts');
/** Deadline used by the harness plus scheduling slack on a loaded 2-core machine. */
const MAX_CALL_MS = 3_000 + 2_500;

function runHarness(args: string[], timeoutMs: number): Promise<ToolsReport> {
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['--import', 'tsx', HARNESS, ...args], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let lastCall = '';
    let errTail = '';
    c.stdout.on('data', (d: Buffer) => (out += d));
    c.stderr.on('data', (d: Buffer) => {
      const s = d.toString();
      const calls = s.split('\n').filter((l) => l.startsWith('CALL '));
      if (calls.length) lastCall = calls[calls.length - 1] ?? lastCall;
      errTail = (errTail + s).slice(-2000);
    });
    const timer = setTimeout(() => {
      c.kill('SIGKILL');
      reject(new Error(`the engine did not come back within ${timeoutMs} ms; last call: ${lastCall}`));
    }, timeoutMs);
    c.on('exit', (code) => {
      clearTimeout(timer);
      try {
        resolve(JSON.parse(out.trim()) as ToolsReport);
      } catch {
        reject(new Error(`harness exited ${code}; stderr: ${errTail}`));
      }
    });
  });
}

describe('every tool under hostile input @e2e', function () {
  this.timeout(1_800_000);

  it('answers hostile paths, regexes and queries on every tool within the deadline, never from outside the root', async () => {
    const r = await runHarness(['hostile'], 180_000);
    console.log(`      ${r.calls} hostile calls; slowest ${r.maxMs} ms`);
    assert.deepEqual(r.internal, []);
    assert.deepEqual(r.leaks, [], 'nothing outside the root is ever returned');
    assert.deepEqual(r.overBudget, []);
    assert.ok(r.maxMs <= MAX_CALL_MS, `slowest call ${r.maxMs} ms: ${JSON.stringify(r.slow)}`);
  });

  it('fuzz: 10,000 random inputs over every tool schema — zero crashes, zero answers over budget, all within the deadline', async () => {
    const r = await runHarness(['fuzz', '10000', process.env.SEXTANT_FUZZ_SEED ?? '20261130'], 1_500_000);
    const rows = Object.entries(r.perTool).map(([n, s]) => `${n} ${s.calls}/${s.errors}/${s.maxMs}ms`).join(', ');
    console.log(`      ${r.calls} calls over ${r.tools} tools (calls/errors/slowest): ${rows}`);
    assert.equal(r.calls, 10_000);
    assert.equal(r.tools, ALL_TOOLS.length, 'every tool was fuzzed');
    assert.deepEqual(r.internal.slice(0, 5), []);
    assert.deepEqual(r.overBudget.slice(0, 5), []);
    assert.deepEqual(r.leaks, []);
    assert.ok(r.maxMs <= MAX_CALL_MS, `slowest call ${r.maxMs} ms: ${JSON.stringify(r.slow.slice(0, 3))}`);
  });
});
