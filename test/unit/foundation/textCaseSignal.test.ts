/**
 * The text index's case signal (tokens.ts LOWER_ONLY_MARK): a case-sensitive whole-token search
 * for a capitalised token leaves out the files that spell it only in lower case, without reading
 * them, and answers exactly what a scan of every file answers. Real engine and index.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LOWER_ONLY_PROBE_FILES } from '../../../server/src/core/limits';
import { LOWER_ONLY_MARK, TokenInterner } from '../../../server/src/index/tokens';
import { Engine } from '../../../server/src/nav/engine';
import { forgetSearches, searchText, type TextMode } from '../../../server/src/nav/textSearch';
import { removeDir, tempDir, writeTree } from '../../helpers/workspace';

describe('text index: case signal for capitalised whole-token searches', function () {
  this.timeout(120_000);
  let ws: string;
  let idx: string;
  let e: Engine;
  const files: Record<string, string> = {};
  // 200 files spell `bool` only in lower case; three spell `Bool` (one of them also `bool`); one has `Boolean` only.
  for (let i = 0; i < 200; i++) files[`src/Lower${String(i).padStart(3, '0')}.cs`] = `class Lower${i} { bool flag; // a bool\n}\n`;
  files['src/Upper1.cs'] = 'class Upper1 { Bool flag; }\n';
  files['src/Upper2.cs'] = 'class Upper2 { bool a; Bool b; Bool c; }\n';
  files['tests/Upper3.cs'] = 'class Upper3 { void M(Bool x) { } }\n';
  files['src/Longer.cs'] = 'class Longer { Boolean flag; IsBool(); }\n';
  files['src/LowerVoid.cs'] = 'class LowerVoid { void M(bool x) { } }\n';
  files['src/AMixed.cs'] = 'class AMixed { bool a; Boolean b; }\n'; // `bool` only in lower case, `Boolean` capitalised
  files['src/Mixed.cs'] = 'class Mixed { bool a; Boolean b; }\n';

  before(async () => {
    ws = tempDir('ws');
    idx = tempDir('idx');
    writeTree(ws, files);
    e = await Engine.open({ workspaceRoot: ws, indexRoot: idx });
    await e.refresh();
  });
  after(async () => {
    await e?.close();
    removeDir(ws);
    removeDir(idx);
  });

  const run = async (query: string, mode: TextMode, caseMode: 'sensitive' | 'insensitive' | 'smart') => {
    forgetSearches(e);
    return searchText(e, { query, mode, caseMode, offset: 0, limit: 1000, deadlineAt: Date.now() + 60_000 });
  };
  /** What a scan of every file answers: path:line:column of each match. */
  const scan = (re: RegExp) =>
    Object.entries(files)
      .flatMap(([p, text]) => text.split('\n').flatMap((l, i) => [...l.matchAll(re)].map((m) => `${p}:${i + 1}:${m.index! + 1}`)))
      .sort();
  const keys = (r: Awaited<ReturnType<typeof run>>) => r.hits.map((h) => `${h.path}:${h.line}:${h.column}`).sort();

  it('a document carries the lower-only mark for the tokens a file never capitalises', function () {
    const doc = Buffer.from(new TokenInterner().fileDocument(Buffer.from('bool Bool flag Flag x1 value'))!).toString('utf8').split(' ');
    assert.deepEqual(doc, ['bool', 'flag', 'x1', 'value', `${LOWER_ONLY_MARK}x1`, `${LOWER_ONLY_MARK}value`]);
  });

  it('word "Bool", case-sensitive: reads only the files that capitalise it, and answers what a scan answers', async function () {
    const r = await run('Bool', 'word', 'sensitive');
    assert.deepEqual(keys(r), scan(/(?<![A-Za-z0-9_])Bool(?![A-Za-z0-9_])/g));
    assert.equal(r.total, 4);
    // Upper1, Upper2, Upper3: the 40 lower-case-only files and Longer.cs (no token `bool`) are not read.
    assert.equal(r.verifiedFiles, 3, `read ${r.verifiedFiles} files`);
    assert.equal(r.candidates, 3);
  });

  it('case-insensitive and lower-case queries are not narrowed; literal mode keeps its order and finds substrings', async function () {
    const ins = await run('Bool', 'word', 'insensitive');
    assert.deepEqual(keys(ins), scan(/(?<![A-Za-z0-9_])bool(?![A-Za-z0-9_])/gi));
    const lower = await run('bool', 'word', 'sensitive');
    assert.deepEqual(keys(lower), scan(/(?<![A-Za-z0-9_])bool(?![A-Za-z0-9_])/g));
    const lit = await run('Bool', 'literal', 'sensitive');
    assert.deepEqual(keys(lit), scan(/Bool/g));
  });

  it('literal mode: files that capitalise the fragment are read first, lower-case-only ones are probed, then left to longer tokens; an exact inner fragment never reads them', async function () {
    forgetSearches(e);
    const first = await searchText(e, { query: 'Bool', mode: 'literal', caseMode: 'sensitive', offset: 0, limit: 2, deadlineAt: Date.now() + 60_000 });
    assert.equal(first.hits.length, 2);
    // Upper1/Upper2 hold the whole token capitalised: read before the 200 files that spell it only `bool`.
    assert.deepEqual(first.hits.map((h) => h.path), ['src/Upper1.cs', 'src/Upper2.cs']);
    assert.equal(first.verifiedFiles, 2);
    const whole = await run('Bool', 'literal', 'sensitive');
    assert.deepEqual(keys(whole), scan(/Bool/g));
    // Source: Upper1, Upper2 (capitalised whole token), AMixed (first lower-case-only file, a hit inside
    // Boolean), the probe of LOWER_ONLY_PROBE_FILES misses, then only the files with a longer token
    // (Longer, Mixed); the test class: Upper3.
    assert.deepEqual([...new Set(whole.hits.map((h) => h.path))], ['src/Upper1.cs', 'src/Upper2.cs', 'src/AMixed.cs', 'src/Longer.cs', 'src/Mixed.cs', 'tests/Upper3.cs']);
    assert.equal(whole.verifiedFiles, 3 + 1 + LOWER_ONLY_PROBE_FILES + 2, `read ${whole.verifiedFiles} files for the whole answer`);
    for (const limit of [1, 3, 5]) {
      const pages: string[] = [];
      forgetSearches(e);
      for (let offset = 0; ; offset += limit) {
        if (limit === 3) forgetSearches(e); // every page from a cold walk: the same order
        const r = await searchText(e, { query: 'Bool', mode: 'literal', caseMode: 'sensitive', offset, limit, deadlineAt: Date.now() + 60_000 });
        pages.push(...r.hits.map((h) => `${h.path}:${h.line}:${h.column}`));
        if (r.hits.length < limit) break;
      }
      assert.deepEqual(pages, whole.hits.map((h) => `${h.path}:${h.line}:${h.column}`), `pages of ${limit}`);
    }
    const inner = await run('void M(Bool x)', 'literal', 'sensitive');
    assert.deepEqual(keys(inner), scan(/void M\(Bool x\)/g));
    assert.equal(inner.verifiedFiles, 1, 'LowerVoid.cs spells `bool` only in lower case: not read');
  });

  it('a file that gains the capitalised spelling after indexing is found before the index catches up (watching)', async function () {
    e.watch(60_000); // the change is seen at once; the re-index waits
    fs.writeFileSync(path.join(ws, 'src/Lower000.cs'), 'class Lower0 { Bool flag; }\n');
    files['src/Lower000.cs'] = 'class Lower0 { Bool flag; }\n';
    for (let i = 0; i < 100 && !e.pendingPaths().has('src/Lower000.cs'); i++) await new Promise((r) => setTimeout(r, 20));
    assert.ok(e.pendingPaths().has('src/Lower000.cs'), 'the watcher saw the change');
    const r = await run('Bool', 'word', 'sensitive');
    assert.ok(r.hits.some((h) => h.path === 'src/Lower000.cs'), 'the changed file is read as a changed file');
    assert.deepEqual(keys(r), scan(/(?<![A-Za-z0-9_])Bool(?![A-Za-z0-9_])/g));
    await e.refresh();
    const again = await run('Bool', 'word', 'sensitive');
    assert.deepEqual(keys(again), keys(r));
    assert.equal(again.verifiedFiles, 4);
  });
});
