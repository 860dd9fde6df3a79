// Smoke test of the host over its real stdio protocol (vscode-jsonrpc, as the engine uses it).
//   node roslyn/smoke/stdio.mjs <selftest-input.json>
// Checks: initialize, ensure, a definition + references query, an error response that leaves the
// host up, $/cancelRequest, status, and that the host exits when stdin closes.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, CancellationTokenSource } from 'vscode-jsonrpc/node';

const here = path.dirname(fileURLToPath(import.meta.url));
const dll = path.join(here, '..', 'out', 'host', 'Sextant.RoslynHost.dll');
const input = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const child = spawn('dotnet', [dll, '--parent-pid', String(process.pid)], { stdio: ['pipe', 'pipe', 'inherit'] });
const conn = createMessageConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
conn.listen();
const t0 = Date.now();
const log = (what, v) => console.log(`${String(Date.now() - t0).padStart(6)} ms  ${what}: ${typeof v === 'string' ? v : JSON.stringify(v).slice(0, 400)}`);
let failed = 0;
const check = (ok, what) => { if (!ok) failed++; console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}`); };

try {
  try { await conn.sendRequest('query', { op: 'definition' }); check(false, 'query before initialize fails'); }
  catch (e) { check(e.code === -32002, `query before initialize answers NOT_INITIALIZED (${e.code})`); }
  const init = await conn.sendRequest('initialize', { workspaceRoot: input.workspaceRoot, memoryCapMb: 2048, parentPid: process.pid });
  log('initialize', init);
  const ens = await conn.sendRequest('projects/ensure', { projects: input.projects });
  log('ensure', { n: ens.results.length, stats: ens.stats });
  check(ens.results.every((r) => r.status === 'loaded'), 'every project loaded');
  const again = await conn.sendRequest('projects/ensure', { projects: input.projects.slice(0, 3) });
  check(again.results.every((r) => r.status === 'unchanged'), 'an unchanged description is unchanged');
  for (const q of input.queries.slice(0, 3)) {
    const r = await conn.sendRequest('query', q);
    log(`${q.op}`, { symbol: r.symbol?.display, items: r.items.length, searched: r.searched.length, notSearched: r.notSearched.length, stats: r.stats });
    check(r.symbol != null && r.searched.length > 0, `${q.op} answers with a symbol and searched projects`);
  }
  try { await conn.sendRequest('query', { op: 'definition', position: { path: 'nowhere/Missing.cs', line: 1, column: 1 } }); check(false, 'bad position errors'); }
  catch (e) { check(e.code === -32010 && /DOCUMENT_NOT_IN_WORKSPACE/.test(e.message), `a file in no project answers DOCUMENT_NOT_IN_WORKSPACE (${e.code})`); }
  try { await conn.sendRequest('query', { op: 'bogus', position: input.queries[0].position }); check(false, 'bad op errors'); }
  catch (e) { check(e.code === -32602, `an unknown op answers -32602 (${e.code})`); }
  const src = new CancellationTokenSource();
  const p = conn.sendRequest('query', { op: 'references', position: input.queries[1].position, options: { includeDeclaration: true } }, src.token);
  setTimeout(() => src.cancel(), 5);
  try { await p; check(true, 'cancelled request finished before the cancel arrived (allowed)'); }
  catch (e) { check(e.code === -32800, `cancelled request answers -32800 (${e.code})`); }
  // documents/changed: a saved edit shows in the next answer (only when SMOKE_EDIT names a file of the
  // fixture copy that may be edited, e.g. one in the same project as the references query's target)
  const editRel = process.env.SMOKE_EDIT;
  if (editRel) {
    const abs = path.join(input.workspaceRoot, editRel);
    const before = fs.readFileSync(abs, 'utf8');
    const q = input.queries[1];
    const r0 = await conn.sendRequest('query', q);
    try {
      fs.writeFileSync(abs, before + `\nnamespace SmokeEdit { class SmokeUse { ${r0.symbol.display}? a; ${r0.symbol.display}? b; } }\n`);
      await conn.sendRequest('documents/changed', { changes: [{ path: editRel, kind: 'changed' }] });
      const r1 = await conn.sendRequest('query', q);
      check(r1.items.length === r0.items.length + 2, `an edited file shows in the next references answer (${r0.items.length} -> ${r1.items.length})`);
    } finally {
      fs.writeFileSync(abs, before);
    }
    await conn.sendRequest('documents/changed', { changes: [{ path: editRel, kind: 'changed' }] });
    const r2 = await conn.sendRequest('query', q);
    check(r2.items.length === r0.items.length, `restored file: back to ${r0.items.length} (${r2.items.length})`);
  }
  const st = await conn.sendRequest('status', {});
  log('status', st);
  check(st.knownProjects === input.projects.length, 'status counts the known projects');
} catch (e) {
  failed++;
  console.log('FAIL unexpected', e);
}
const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
child.stdin.end();
const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 5000))]);
check(code === 0, `host exits when stdin closes (exit ${code})`);
if (code === 'timeout') child.kill();
console.log(failed === 0 ? 'stdio smoke: all checks passed' : `stdio smoke: ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
