/**
 * Batch forms over a real MCP client on real stdio (built dist/cli.js): definition and references
 * with `targets`, outline with `paths`, on a copy of the TS semantic fixture (answered by the
 * engine's real TypeScript host). Mixed good and bad entries, one shared byte budget, paging over
 * entries, the entry cap. Expected locations checked by hand against the fixture (as in
 * test/integration/semantic/typescriptLsp.test.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BATCH_MAX_ENTRIES } from '../../server/src/core/limits';
import { call, callError, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { copyFixture, removeDir } from '../integration/semantic/fixture';

const at = (r: { path: string; line: number; column: number }) => `${r.path}:${r.line}:${r.column}`;

describe('MCP over stdio: batch forms of definition, references, outline @e2e', function () {
  this.timeout(180_000);
  let dir: string;
  let idx: string;
  let c: Connected;

  before(async function () {
    dir = copyFixture('typescript');
    idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-batch-idx-'));
    c = await connectStdio(dir, idx);
    await waitFor(async () => {
      const s = await call(c.client, 'repo_overview', {});
      return s.index.status === 'fresh' && !s.index.symbolsPending;
    }, 60_000);
    // The TS host answers precisely once its programs are built.
    await waitFor(async () => (await call(c.client, 'definition', { target: { path: 'src/main.ts', line: 6, column: 15 }, waitMs: 9000 })).mode === 'precise', 90_000, 500);
  });
  after(async function () {
    await c?.close();
    if (dir) removeDir(dir);
    if (idx) removeDir(idx);
  });

  it('definition: mixed good and bad targets, one entry each, a bad one never fails the batch', async function () {
    const r = await call(c.client, 'definition', {
      targets: [
        { path: 'src/main.ts', line: 6, column: 15 },
        { qualifiedName: 'NoSuch.Thing' },
        { path: '../outside.ts', line: 1 },
        { path: 'src/main.ts', line: 7, column: 43 },
      ],
    });
    assert.deepEqual(r.items.map((e: any) => e.entry), [0, 1, 2, 3]);
    assert.deepEqual(r.items[0].rows.map(at), ['src/math.ts:3:17']);
    assert.equal(r.items[0].mode, 'precise');
    assert.match(r.items[1].error, /^Error \[TARGET_NOT_FOUND\]: .*Hint: /);
    assert.match(r.items[2].error, /^Error \[PATH_OUTSIDE_ROOT\]: .*Hint: /);
    assert.deepEqual(r.items[3].rows.map(at), ['src/math.ts:11:17']);
    assert.match(r.summary, /definition of 4 targets: 2 answered, 2 failed \(entries 1, 2\)/);
    // The same rows as the single calls.
    const single = await call(c.client, 'definition', { target: { path: 'src/main.ts', line: 7, column: 43 } });
    assert.deepEqual(r.items[3].rows, single.items);
  });

  it('references: per-target project groups with counts equal to the single calls', async function () {
    const targets = [{ path: 'src/math.ts', line: 11, column: 17 }, { path: 'src/math.ts', line: 3, column: 17 }];
    const r = await call(c.client, 'references', { targets });
    assert.equal(r.items.length, 2);
    for (let i = 0; i < targets.length; i++) {
      const single = await call(c.client, 'references', { target: targets[i] });
      const count = (e: any) => e.rows.reduce((n: number, g: any) => n + g.count, 0);
      assert.equal(count(r.items[i]), single.counts.total, `entry ${i}`);
      assert.deepEqual(r.items[i].rows.map((g: any) => g.group), single.items.map((g: any) => g.group));
    }
    // totalArea's uses: main.ts:2:19, main.ts:7:43, test/math.test.ts:2:10, 5:19 (hand-checked).
    // …plus its declaration (math.ts:11:17; include_definition defaults to true).
    assert.equal(r.items[0].rows.reduce((n: number, g: any) => n + g.count, 0), 5);
    assert.match(r.items[0].note, /^5 references in \d project/);
    const flat = await call(c.client, 'references', { targets, group_by: 'none', include_definition: false });
    assert.deepEqual(flat.items[0].rows.map(at).sort(), ['src/main.ts:2:19', 'src/main.ts:7:43', 'test/math.test.ts:2:10', 'test/math.test.ts:5:19']);
  });

  it('outline: paths with a missing file; rows equal the single outlines', async function () {
    const r = await call(c.client, 'outline', { paths: ['src/math.ts', 'src/missing.ts', 'src/shapes.ts'] });
    assert.deepEqual(r.items.map((e: any) => e.of), ['src/math.ts', 'src/missing.ts', 'src/shapes.ts']);
    assert.match(r.items[1].error, /^Error \[FILE_NOT_FOUND\]: .*Hint: /);
    for (const i of [0, 2]) assert.deepEqual(r.items[i].rows, (await call(c.client, 'outline', { path: r.items[i].of })).items);
    assert.equal(r.file, undefined, 'a batch has no single file header');
  });

  it('one shared budget: a tight maxBytes cuts rows per entry (total says how many), never an entry', async function () {
    const paths = ['src/math.ts', 'src/shapes.ts', 'src/main.ts', 'test/math.test.ts'];
    const whole = await call(c.client, 'outline', { paths });
    const tight = await call(c.client, 'outline', { paths, maxBytes: 1500 });
    assert.ok(Buffer.byteLength(JSON.stringify(tight)) <= 1500);
    assert.equal(tight.items.length + (tight.completeness.omittedBecauseBudget ?? 0), 4);
    const cut = tight.items.filter((e: any) => e.total !== undefined && e.total > e.rows.length);
    assert.ok(cut.length > 0, 'some entry gave up rows');
    for (const e of tight.items) assert.deepEqual(e.rows, whole.items[e.entry].rows.slice(0, e.rows.length), `entry ${e.entry} keeps its first rows`);
  });

  it('paged over entries: limit 1 pages concatenate to the whole batch', async function () {
    const targets = [{ path: 'src/math.ts', line: 11, column: 17 }, { qualifiedName: 'NoSuch.Thing' }, { path: 'src/math.ts', line: 3, column: 17 }];
    const whole = (await call(c.client, 'references', { targets })).items;
    const rows: unknown[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 10; i++) {
      const r = await call(c.client, 'references', { targets, limit: 1, ...(cursor ? { cursor } : {}) });
      rows.push(...r.items);
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    assert.deepEqual(rows, whole);
  });

  it('bad input: over the entry cap, both forms, neither form', async function () {
    const many = Array.from({ length: BATCH_MAX_ENTRIES + 1 }, (_, i) => ({ path: 'src/math.ts', line: 1 + (i % 10) }));
    assert.match(await callError(c.client, 'definition', { targets: many }), new RegExp(`^Error \\[INVALID_ARGUMENT\\]: ${BATCH_MAX_ENTRIES + 1} targets in one call; a batch takes at most ${BATCH_MAX_ENTRIES}\\. Hint: split it`));
    assert.match(await callError(c.client, 'outline', { paths: Array.from({ length: BATCH_MAX_ENTRIES + 1 }, () => 'src/math.ts') }), /^Error \[INVALID_ARGUMENT\]: 21 paths in one call.*Hint: /);
    assert.match(await callError(c.client, 'references', { target: { path: 'src/math.ts', line: 3 }, targets: [{ path: 'src/math.ts', line: 3 }] }), /^Error \[INVALID_ARGUMENT\]: Both the single form and targets were given.*Hint: /);
    assert.match(await callError(c.client, 'definition', {}), /^Error \[INVALID_ARGUMENT\]: No target given.*Hint: /);
    assert.match(await callError(c.client, 'outline', {}), /^Error \[INVALID_ARGUMENT\]: No path given.*Hint: /);
  });
});
