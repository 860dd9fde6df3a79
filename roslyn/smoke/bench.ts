/**
 * Host-level timing of references / callers / implementations on a big workspace (a bench helper,
 * not a test): the descriptions of roslyn/smoke/describe.ts, every project ensured, then for the
 * types named on the command line (or the most used types of the bottom layer) a references query
 * whose scope is the projects whose files mention the name (as the engine passes it), cold then warm.
 *   node --import tsx roslyn/smoke/bench.ts <descriptions.json> [TypeName ...]
 * Env: BENCH_CAP_MB (memory cap), BENCH_OPS (references,callers,implementations).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';

interface Desc { key: string; projectPath: string; name: string; documents: { path: string }[]; projectReferences: string[] }
const here = path.dirname(fileURLToPath(import.meta.url));
const dll = path.join(here, '..', 'out', 'host', 'Sextant.RoslynHost.dll');
const [descFile, ...names0] = process.argv.slice(2);
if (!descFile) throw new Error('usage: bench.ts <descriptions.json> [TypeName ...]');
const input = JSON.parse(fs.readFileSync(descFile, 'utf8')) as { workspaceRoot: string; projects: Desc[] };
const root = input.workspaceRoot;
const ops = (process.env.BENCH_OPS ?? 'references').split(',');

// name -> projects whose documents mention it (token scan, cached beside the descriptions)
const tokCache = descFile.replace(/\.json$/, '.tokens.json');
const declared = new Map<string, { key: string; path: string; line: number; column: number }>();
let mentions: Record<string, string[]>;
const bottom = input.projects.filter((p) => p.projectReferences.length === 0);
for (const p of bottom)
  for (const d of p.documents) {
    const lines = fs.readFileSync(path.join(root, d.path), 'utf8').split('\n');
    lines.forEach((l, i) => {
      const m = /\b(?:class|interface|record|struct|enum)\s+([A-Z]\w+)/.exec(l);
      if (m && !declared.has(m[1]!)) declared.set(m[1]!, { key: p.key, path: d.path, line: i + 1, column: m.index + m[0].length - m[1]!.length + 1 });
    });
  }
if (fs.existsSync(tokCache)) mentions = JSON.parse(fs.readFileSync(tokCache, 'utf8'));
else {
  mentions = {};
  const want = new Set(declared.keys());
  const t = Date.now();
  for (const p of input.projects) {
    const hit = new Set<string>();
    for (const d of p.documents) {
      let text: string;
      try { text = fs.readFileSync(path.join(root, d.path), 'utf8'); } catch { continue; }
      for (const m of text.matchAll(/[A-Za-z_]\w*/g)) if (want.has(m[0])) hit.add(m[0]);
    }
    for (const n of hit) (mentions[n] ??= []).push(p.key);
  }
  fs.writeFileSync(tokCache, JSON.stringify(mentions));
  console.log(`token scan ${Date.now() - t} ms`);
}
const names = names0.length ? names0 : [...declared.keys()].filter((n) => mentions[n]).sort((a, b) => mentions[b]!.length - mentions[a]!.length).slice(0, 6);

const child = spawn('dotnet', [dll, '--parent-pid', String(process.pid)], { stdio: ['pipe', 'pipe', process.env.BENCH_LOG ? 'inherit' : 'ignore'] });
const conn = createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
conn.listen();
const t0 = Date.now();
const log = (s: string) => console.log(`${String(Date.now() - t0).padStart(7)} ms  ${s}`);
(async () => {
try {
  await conn.sendRequest('initialize', { workspaceRoot: root, memoryCapMb: Number(process.env.BENCH_CAP_MB ?? 8192), parentPid: process.pid });
  let t = Date.now();
  // BENCH_ENSURE=need: each question ensures its scope's closure in batches of 64 (as the engine does)
  const byNeed = process.env.BENCH_ENSURE === 'need';
  const byKey = new Map(input.projects.map((p) => [p.key, p]));
  const ensured = new Set<string>();
  const ensureNeed = async (keys: string[]) => {
    const order: Desc[] = [];
    const visit = (k: string) => {
      if (ensured.has(k) || !byKey.has(k)) return;
      ensured.add(k);
      for (const r of byKey.get(k)!.projectReferences) visit(r);
      order.push(byKey.get(k)!);
    };
    keys.forEach(visit);
    const t1 = Date.now();
    for (let i = 0; i < order.length; i += 64) await conn.sendRequest('projects/ensure', { projects: order.slice(i, i + 64) });
    if (order.length) log(`ensure ${order.length} more projects in ${Math.ceil(order.length / 64)} calls: ${Date.now() - t1} ms`);
  };
  if (!byNeed) {
    const ens: any = await conn.sendRequest('projects/ensure', { projects: input.projects });
    log(`ensure ${input.projects.length} projects: ${Date.now() - t} ms (${ens.results.filter((r: any) => r.status === 'failed').length} failed)`);
  }
  for (const n of names) {
    const d = declared.get(n);
    if (!d) { log(`${n}: not declared in a bottom-layer project`); continue; }
    const scope = [...new Set([d.key, ...(mentions[n] ?? [])])];
    if (byNeed) await ensureNeed(scope);
    for (const op of ops)
      for (const round of ['cold', 'warm']) {
        t = Date.now();
        const r: any = await conn.sendRequest('query', { op, position: { path: d.path, line: d.line, column: d.column }, scope });
        const st: any = await conn.sendRequest('status', {});
        log(`${n} ${op} ${round}: ${Date.now() - t} ms, scope ${scope.length}, items ${r.items.length}, searched ${r.searched.length}, notSearched ${r.notSearched.length}, load ${r.stats.loadMs} search ${r.stats.searchMs} cpu ${r.stats.cpuMs} evicted ${r.stats.projectsEvicted}, heap ${st.gcHeapMb} MB ws ${st.workingSetMb} MB loaded ${st.loadedProjects}`);
      }
  }
} finally {
  child.stdin!.end();
  setTimeout(() => process.exit(0), 500);
}
})();
