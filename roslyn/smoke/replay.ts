/**
 * Smoke helper (not a test): replays a request trace written by a host run with
 * SEXTANT_ROSLYN_TRACE=<file> on a fresh host, request by request in order, and prints each one's
 * wall time, the host's CPU time and its coverage — a cold session of the engine reproduced without
 * the engine (the same ensures, scopes, documents and deadlines).
 *   npx tsx roslyn/smoke/replay.ts <trace> [maxRequests]
 * Env: HOST_DLL (another build of the host), HOST_LOG=1 (its stderr), ONLY_OPS=callers,references,
 * NO_DEADLINE=1 (drop options.deadlineMs).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
const [traceFile, max0] = process.argv.slice(2);
const rows = fs.readFileSync(traceFile!, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const max = Number(max0 ?? rows.length);
const dll = process.env.HOST_DLL ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'out', 'host', 'Sextant.RoslynHost.dll');
const t0 = Date.now();
const child = spawn('dotnet', [dll, '--parent-pid', String(process.pid)], { stdio: ['pipe', 'pipe', process.env.HOST_LOG ? 'inherit' : 'ignore'], env: { ...process.env, SEXTANT_ROSLYN_TRACE: '' } });
const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
conn.listen();
const only = process.env.ONLY_OPS?.split(',');
async function main() {
  let i = 0;
  for (const r of rows.slice(0, max)) {
    i++;
    const p = r.params;
    if (r.method === 'initialize') p.parentPid = process.pid;
    if (r.method === 'query' && only && !only.includes(p.op)) continue;
    if (r.method === 'query' && process.env.NO_DEADLINE && p.options) delete p.options.deadlineMs;
    const t = Date.now();
    try {
      const res: any = await conn.sendRequest(r.method, p);
      const ms = Date.now() - t;
      if (r.method === 'query') {
        const what = p.position ? `${p.position.path.split('/').pop()}:${p.position.line}` : p.symbol?.docId?.slice(0, 60);
        console.log(`${String(Date.now() - t0).padStart(7)} #${i} ${p.op} ${what} scope ${p.scope?.length ?? '-'} dl ${p.options?.deadlineMs ?? '-'} → ${ms} ms cpu ${res.stats?.cpuMs} items ${res.items?.length} searched ${res.searched?.length} notSearched ${res.notSearched?.length}${res.symbol ? '' : ' NOSYM ' + res.reason}`);
      } else console.log(`${String(Date.now() - t0).padStart(7)} #${i} ${r.method} ${p.projects?.length ?? ''} → ${ms} ms`);
    } catch (e: any) {
      console.log(`${String(Date.now() - t0).padStart(7)} #${i} ${r.method} ${p.op ?? ''} ERROR ${e.code} ${String(e.message).slice(0, 160)}`);
    }
  }
  child.kill();
}
main().then(() => process.exit(0), (e) => (console.error(e), process.exit(1)));
