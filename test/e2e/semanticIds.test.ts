/**
 * C# symbol ids with their compilation over real stdio, on a restored copy of a generated
 * workspace (multi-targeted Acme.Common: net8.0;net10.0; shared/AcmeBuildInfo.cs linked into
 * several projects) with the REAL csharp-ls behind the semantic tools: the ids every tool shows,
 * the ids it accepts (full and bare), candidates, STALE_TARGET, and a precise answer reached
 * through a full id.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cachedWorkspace } from '../fixtures/generate';
import { skipWithoutCsharpLs, skipWithoutDotnet } from '../helpers/csharpLs';
import { call, callError, connectStdio, type Connected } from '../helpers/mcpClient';
import { removeDir, restoredGeneratedCopy } from '../integration/semantic/fixture';

describe('MCP over stdio: C# symbol ids on a generated workspace (real csharp-ls) @e2e', function () {
  this.timeout(600_000);
  let dir: string;
  let indexRoot: string;
  let c: Connected;
  let linkedProjects: string[];

  before(async function () {
    skipWithoutDotnet(this);
    const w = cachedWorkspace('csharp', { projects: 24, sizeFactor: 0.05 });
    dir = restoredGeneratedCopy(w.root);
    linkedProjects = w.manifest.projects.filter((p) => p.linkedFiles.some((f) => f.endsWith('AcmeBuildInfo.cs'))).map((p) => p.name).sort();
    indexRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-ids-e2e-idx-'));
    // csharp-ls behaviour is what these tests pin (the Roslyn host has its own: test/integration/semantic/roslynProvider.test.ts).
    c = await connectStdio(dir, indexRoot, ['--csharp-provider', 'csharp-ls']);
    // The syntax index and the project graph first (ids come from both).
    for (let i = 0; i < 600; i++) {
      const s = await call(c.client, 'search_symbol', { query: 'Guard', kinds: ['class'] });
      if (s.index.status === 'fresh' && s.items[0]?.symbolId.includes('@')) break;
      await new Promise((res) => setTimeout(res, 200));
    }
  });

  after(async function () {
    await c?.close();
    if (dir) removeDir(dir);
    if (indexRoot) removeDir(indexRoot);
  });

  const GUARD_NET8 = 'T:Acme.Common.Guard@Acme.Common|net8.0';
  const GUARD_NET10 = 'T:Acme.Common.Guard@Acme.Common|net10.0';

  it('search_symbol, outline and symbol_at show the doc-id with project and framework', async () => {
    const s = await call(c.client, 'search_symbol', { query: 'Guard', kinds: ['class'] });
    assert.equal(s.items[0].symbolId, GUARD_NET8);
    assert.equal(s.items[0].path, 'src/Common/Acme.Common/Guard.cs');
    const o = await call(c.client, 'outline', { path: 'src/Common/Acme.Common/Guard.cs', kinds: ['class'], ids: true });
    assert.deepEqual(o.file.compilations, ['Acme.Common|net8.0', 'Acme.Common|net10.0']);
    assert.deepEqual(o.items.map((i: any) => `${i.line} ${i.id}`), [`11 ${GUARD_NET8}`]);
    const at = await call(c.client, 'symbol_at', { path: 'src/Common/Acme.Common/Guard.cs', line: 13 });
    assert.match(at.items[0].symbolId, /^M:Acme\.Common\.Guard\.NotNull``1\(``0,System\.String\)@Acme\.Common\|net8\.0$/);
    assert.equal(at.containers[1].symbolId, GUARD_NET8);
  });

  it('a linked file has one id per project that compiles it; each resolves to the same declaration', async () => {
    const o = await call(c.client, 'outline', { path: 'shared/AcmeBuildInfo.cs', kinds: ['class'], ids: true });
    const projects = (o.file.compilations as string[]).map((x) => x.split('|')[0]!);
    assert.deepEqual([...new Set(projects)].sort(), linkedProjects);
    assert.ok(linkedProjects.length >= 2, linkedProjects.join(', '));
    const [first] = o.file.compilations as string[];
    assert.equal(o.items[0].id, `T:Acme.Shared.AcmeBuildInfo@${first}`);
    const other = (o.file.compilations as string[]).find((x) => !x.startsWith(projects[0]! + '|'))!;
    const d = await call(c.client, 'definition', { target: { symbolId: `T:Acme.Shared.AcmeBuildInfo@${other}` }, waitMs: 0 });
    assert.equal(d.target_selection.status, 'resolved');
    assert.equal(d.target_selection.symbol.symbolId, `T:Acme.Shared.AcmeBuildInfo@${other}`);
    const bare = await call(c.client, 'definition', { target: { symbolId: 'T:Acme.Shared.AcmeBuildInfo' }, waitMs: 0 });
    assert.equal(bare.target_selection.status, 'ambiguous');
    assert.deepEqual(bare.target_selection.candidates.map((x: any) => x.symbolId), (o.file.compilations as string[]).map((x) => `T:Acme.Shared.AcmeBuildInfo@${x}`));
  });

  it('a bare doc-id of a multi-targeted type returns one candidate per framework', async () => {
    const r = await call(c.client, 'references', { target: { symbolId: 'T:Acme.Common.Guard' }, waitMs: 0 });
    assert.equal(r.target_selection.status, 'ambiguous');
    assert.deepEqual(r.target_selection.candidates.map((x: any) => x.symbolId), [GUARD_NET8, GUARD_NET10]);
    // A candidate is targeted by its symbolId (no ref repeating it).
    assert.equal(r.target_selection.candidates[1].target_ref, undefined);
    assert.match(r.summary, /Pass one candidate's \{symbolId\}/);
  });

  it('a full id reaches a precise answer; declaration rows carry full ids', async function () {
    skipWithoutCsharpLs(this);
    let d: any;
    for (let i = 0; i < 60 && d?.mode !== 'precise'; i++) d = await call(c.client, 'definition', { target: { symbolId: GUARD_NET10 }, waitMs: 9_000 });
    assert.equal(d.mode, 'precise', `${d.mode}: ${d.reason ?? ''}`);
    assert.equal(d.target_selection.symbol.symbolId, GUARD_NET10);
    assert.deepEqual(d.items.map((i: any) => `${i.path}:${i.line}:${i.column}`), ['src/Common/Acme.Common/Guard.cs:11:25']);
    assert.equal(d.items[0].project, 'src/Common/Acme.Common/Acme.Common.csproj');
    // The row names the primary compilation; its target_ref resolves again.
    assert.deepEqual(d.items[0].target_ref, { symbolId: GUARD_NET8 });
    // The first references request compiles every loaded project: it may take longer than one call.
    let refs: any;
    for (let i = 0; i < 10 && refs?.mode !== 'precise'; i++) refs = await call(c.client, 'references', { target: d.items[0].target_ref, group_by: 'none', limit: 5, waitMs: 9_000 });
    assert.equal(refs.mode, 'precise', `${refs.mode}: ${refs.reason ?? ''}`);
    assert.equal(refs.target_selection.symbol.symbolId, GUARD_NET8);
    assert.ok(refs.counts.total > 10, `${refs.counts.total} references`);
  });

  it('an id no longer in its compilation is STALE_TARGET with the replacement', async () => {
    const e = await callError(c.client, 'definition', { target: { symbolId: 'T:Acme.Common.Guard@Acme.Common|net6.0' } });
    assert.match(e, /^Error \[STALE_TARGET\]: Symbol id T:Acme\.Common\.Guard@Acme\.Common\|net6\.0 does not resolve/);
    assert.match(e, /pass \{symbolId: "T:Acme\.Common\.Guard@Acme\.Common\|net8\.0"\}/);
    const gone = await callError(c.client, 'definition', { target: { symbolId: 'M:Acme.Common.Guard.NotNull``1(``0)@Acme.Common|net10.0' } });
    assert.match(gone, /^Error \[STALE_TARGET\]/);
    assert.match(gone, /M:Acme\.Common\.Guard\.NotNull``1\(``0,System\.String\)@Acme\.Common\|net10\.0/);
  });
});
