/**
 * The ranking behind locate_code (server/src/nav/ranking/) on small fixtures of its own:
 * identifier splitting and stemming, the lexer's fields, BM25F's field weights and length
 * normalisation, history votes, the ranking of a question over a handful of files, and the
 * calibration threshold that decides `located`.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { F_CODE, F_COMMENT, F_NAME, F_STRING, FIELD_COUNT, idf, pseudoFrequency, saturate, type FieldParams } from '../../../server/src/nav/ranking/bm25f';
import { evidenceOf, isLocated } from '../../../server/src/nav/ranking/calibration';
import { FieldIndexBuilder, Vocabulary } from '../../../server/src/nav/ranking/fieldIndex';
import { scanFields, TextField } from '../../../server/src/nav/ranking/fieldScan';
import { rankingOf, scoreFiles, type DocumentInput } from '../../../server/src/nav/ranking/fileRanking';
import { fileHistory, historyVotes, parseLog } from '../../../server/src/nav/ranking/history';
import { execFileSync } from 'node:child_process';
import { loadRanking, saveRanking } from '../../../server/src/nav/ranking/rankingStore';
import { DEFAULT_PARAMS, folderShare, parseQuestion, rankQuestion, rankSteps, type Declaration, type DeclarationSource } from '../../../server/src/nav/ranking/rankQuestion';
import { RANK_QUESTION_MAX_IDENTIFIERS, RANK_QUESTION_MAX_TERMS } from '../../../server/src/core/limits';
import { runStepsSliced, timeSlice } from '../../../server/src/core/timeSlice';
import { splitIdentifier, stem, words } from '../../../server/src/nav/ranking/words';

const split = (s: string) => {
  const out: string[] = [];
  splitIdentifier(s, (w) => out.push(w));
  return out;
};

describe('ranking: identifier words', () => {
  it('splits camelCase, acronyms and digits, lower-cased', () => {
    assert.deepEqual(split('SqlServerMigrationsSqlGenerator'), ['sql', 'server', 'migrations', 'sql', 'generator']);
    assert.deepEqual(split('JSONReader'), ['json', 'reader']);
    assert.deepEqual(split('parseHTTPHeaders'), ['parse', 'http', 'headers']);
    assert.deepEqual(split('Utf8JsonWriter'), ['utf', 'json', 'writer']);
    assert.deepEqual(split('x'), []); // single letters are not words
    assert.deepEqual(words('AsNoTrackingWithIdentityResolution, foo_bar.Baz'), ['as', 'no', 'tracking', 'with', 'identity', 'resolution', 'foo', 'bar', 'baz']);
  });

  it('stems inflections so a title word meets the identifier word', () => {
    const same = (a: string, b: string) => assert.equal(stem(a), stem(b), `${a} / ${b}`);
    same('indexes', 'index');
    same('altering', 'alter');
    same('caching', 'cache');
    same('cached', 'cache');
    same('entities', 'entity');
    same('mapping', 'map');
    same('validation', 'validate');
    same('columns', 'column');
    same('added', 'add');
    assert.notEqual(stem('mapper'), stem('map')); // an agent noun names another thing
    assert.equal(stem('status'), 'status');
    assert.equal(stem('class'), 'class');
  });
});

describe('ranking: the lexer sorts words into code, comments and strings', () => {
  const scan = (text: string, language = 'csharp') => {
    const out = { code: [] as string[], comment: [] as string[], string: [] as string[] };
    const name = { [TextField.Code]: 'code', [TextField.Comment]: 'comment', [TextField.String]: 'string' } as const;
    scanFields(text, language, (run, f) => out[name[f]].push(...words(run)));
    return out;
  };

  it('C#: line, block and doc comments, plain, verbatim and raw strings', () => {
    const r = scan(['/// <summary>Rebuilds the index.</summary>', 'var s = "Sparse column"; // trailing note', 'var v = @"C:\\path ""quoted"" end";', '/* block', 'words */ int RawValue = 1;', 'var raw = """multi', 'line""";'].join('\n'));
    assert.deepEqual(r.comment, ['summary', 'rebuilds', 'the', 'index', 'summary', 'trailing', 'note', 'block', 'words']);
    assert.deepEqual(r.string, ['sparse', 'column', 'path', 'quoted', 'end', 'multi', 'line']);
    assert.deepEqual(r.code, ['var', 'var', 'int', 'raw', 'value', 'var', 'raw']);
  });

  it('a quote inside a comment, an apostrophe, and an unterminated string end where they should', () => {
    const r = scan(["// don't stop", "char c = 'x'; var s = \"open", 'NextLine();'].join('\n'));
    assert.deepEqual(r.comment, ['don', 'stop']);
    assert.deepEqual(r.string, ['open']);
    assert.ok(r.code.includes('next') && r.code.includes('line'), JSON.stringify(r.code));
  });

  it('# comments only for the languages that have them', () => {
    assert.deepEqual(scan('# heading words\nx = 1', 'python').comment, ['heading', 'words']);
    assert.deepEqual(scan('#region Words', 'csharp').comment, []);
  });
});

describe('ranking: BM25F', () => {
  const p: FieldParams = { w: [1, 3, 1, 1, 1, 1, 1, 1], b: [0.5, 0.5, 0.5, 0.5, 0.75, 0.5, 0.5, 0.5], k1: 1.2 };
  const tf = (f: number, n: number) => Array.from({ length: FIELD_COUNT }, (_, i) => (i === f ? n : 0));
  const len = (n: number) => Array.from({ length: FIELD_COUNT }, () => n);
  const avg = len(10);

  it('weighs a word in the file name over the same word in the code', () => {
    assert.ok(pseudoFrequency(p, tf(F_NAME, 1), len(10), avg) > pseudoFrequency(p, tf(F_CODE, 1), len(10), avg));
    assert.equal(pseudoFrequency(p, tf(F_NAME, 1), len(10), avg), 3);
  });

  it('normalises by field length, and saturates: the tenth occurrence adds less than the first', () => {
    assert.ok(pseudoFrequency(p, tf(F_CODE, 1), len(5), avg) > pseudoFrequency(p, tf(F_CODE, 1), len(40), avg));
    const one = saturate(p.k1, 1);
    const ten = saturate(p.k1, 10);
    assert.ok(ten < 10 * one && ten > one && ten < 1);
  });

  it('a rare word is worth more than a common one', () => {
    assert.ok(idf(1000, 3) > idf(1000, 300));
    assert.ok(idf(1000, 999) > 0);
  });

  it('the index keeps per-field frequencies, sorted by document', () => {
    const b = new FieldIndexBuilder(new Vocabulary());
    b.add('sparse', F_CODE, 2);
    b.add('sparse', F_STRING);
    b.endDoc({ fileId: 1, path: 'a.cs', hash: 'h1', test: false, generated: false });
    b.add('sparse', F_CODE);
    b.add('column', F_COMMENT, 300);
    b.endDoc({ fileId: 2, path: 'b.cs', hash: 'h2', test: false, generated: false });
    const ix = b.build();
    const id = ix.vocab.ids.get('sparse')!;
    const seen: [number, number][] = [];
    ix.forEach(F_CODE, id, (d, n) => seen.push([d, n]));
    assert.deepEqual(seen, [
      [0, 2],
      [1, 1],
    ]);
    assert.equal(ix.count(F_STRING, id), 1);
    ix.forEach(F_COMMENT, ix.vocab.ids.get('column')!, (_, n) => assert.equal(n, 255)); // capped
    assert.equal(ix.len[F_CODE]![0], 2);
  });
});

/** A small workspace: three production files, a test file, and a history. */
function fixture(): { docs: DocumentInput[]; decls: Map<number, Declaration[]> } {
  const doc = (fileId: number, p: string, text: string, types: string[], members: string[] = []): DocumentInput => ({
    doc: { fileId, path: p, hash: `h${fileId}`, test: p.startsWith('test/'), generated: false },
    language: 'csharp',
    text,
    types,
    members,
    subjects: undefined,
  });
  const docs = [
    doc(1, 'src/Migrations/SqlServerMigrationsSqlGenerator.cs', 'class SqlServerMigrationsSqlGenerator { void Generate(AlterColumnOperation op) { if (op.IsSparse) RebuildIndexes(op); } }', ['SqlServerMigrationsSqlGenerator'], ['Generate', 'RebuildIndexes']),
    doc(2, 'src/Query/QuerySqlGenerator.cs', 'class QuerySqlGenerator { void VisitSelect() { Sql.Append("SELECT"); } } // sql generator for queries', ['QuerySqlGenerator'], ['VisitSelect']),
    doc(3, 'src/Storage/ColumnIndex.cs', '/// An index over a column.\nclass ColumnIndex { }', ['ColumnIndex']),
    doc(4, 'test/Migrations/SqlServerMigrationsSqlGeneratorTests.cs', 'class SqlServerMigrationsSqlGeneratorTests { void Alter_column_sparse_rebuilds_indexes() { } }', ['SqlServerMigrationsSqlGeneratorTests'], ['Alter_column_sparse_rebuilds_indexes']),
  ];
  const decls = new Map<number, Declaration[]>();
  for (const d of docs) {
    decls.set(d.doc.fileId, [
      ...d.types.map((n) => ({ name: n, kind: 'class', line: 1, endLine: 40, container: '', depth: 0 })),
      ...d.members.map((n, i) => ({ name: n, kind: 'method', line: 5 + i * 5, endLine: 8 + i * 5, container: d.types[0]!, depth: 1 })),
    ]);
  }
  return { docs, decls };
}

function sourceOf(docs: DocumentInput[], decls: Map<number, Declaration[]>): DeclarationSource {
  return {
    declarations: (id) => decls.get(id) ?? [],
    declaring(names) {
      const out = new Map<number, string[]>();
      for (const [id, ds] of decls) for (const d of ds) if (names.includes(d.name)) out.set(id, [...(out.get(id) ?? []), d.name]);
      return out;
    },
    pathOf: (id) => docs.find((d) => d.doc.fileId === id)?.doc.path,
  };
}

describe('ranking: a question over a small workspace', () => {
  const { docs, decls } = fixture();
  const history = parseLog(['\x1eRebuild indexes when altering SQL Server columns (#10)', 'src/Migrations/SqlServerMigrationsSqlGenerator.cs', '', '\x1eQuery: faster select generation', 'src/Query/QuerySqlGenerator.cs', ''].join('\n'));
  const r = rankingOf(docs, history);
  const src = sourceOf(docs, decls);

  it('finds the file whose name, members and history say the question, its best declaration the member named for it', () => {
    const q = parseQuestion('Rebuild indexes when altering sparse SQL Server columns');
    const ranked = rankQuestion(src, r, q);
    assert.equal(ranked[0]!.path, 'src/Migrations/SqlServerMigrationsSqlGenerator.cs');
    assert.equal(ranked[0]!.best?.name, 'RebuildIndexes');
    // The test file has the same words, but a test is not where behaviour is asked about.
    assert.ok(ranked.findIndex((f) => f.test) > 0);
    const fields = ranked[0]!.found.find((f) => f.word === 'sparse')!.fields;
    assert.deepEqual(fields, ['code']);
  });

  it('a question about tests puts the test file first', () => {
    const ranked = rankQuestion(src, r, parseQuestion('tests of the sparse column rebuild in SQL Server migrations'));
    assert.equal(ranked[0]!.path, 'test/Migrations/SqlServerMigrationsSqlGeneratorTests.cs');
  });

  it('an identifier the question spells lifts the file declaring it', () => {
    const q = parseQuestion('Use ColumnIndex in the generator');
    assert.deepEqual(q.identifiers, ['ColumnIndex']);
    const at = (params: typeof DEFAULT_PARAMS) => {
      const ranked = rankQuestion(src, r, q, { params });
      const i = ranked.findIndex((f) => f.path === 'src/Storage/ColumnIndex.cs');
      return { share: ranked[i]!.score / ranked[0]!.score, declares: ranked[i]!.declares };
    };
    assert.deepEqual(at(DEFAULT_PARAMS).declares, ['ColumnIndex']);
    assert.ok(at(DEFAULT_PARAMS).share > at({ ...DEFAULT_PARAMS, declares: 0 }).share);
    assert.equal(rankQuestion(src, r, parseQuestion('ColumnIndex is not used'))[0]!.path, 'src/Storage/ColumnIndex.cs');
  });

  it('field weights decide between a name match and a code match', () => {
    const q = parseQuestion('query generator');
    const byName = { ...DEFAULT_PARAMS, w: DEFAULT_PARAMS.w.map((w, i) => (i === F_NAME ? 5 : w)) };
    assert.equal(rankQuestion(src, r, q, { params: byName })[0]!.path, 'src/Query/QuerySqlGenerator.cs');
    const scored = scoreFiles(r, q.terms, { ...byName, w: byName.w.map((w, i) => (i === F_NAME ? 0 : w)) });
    const names = scoreFiles(r, q.terms, byName);
    const s = (xs: typeof scored, id: number) => xs.find((x) => x.doc.fileId === id)!.score;
    assert.ok(s(names, 2) > s(scored, 2), 'the name field adds to the file named for the words');
  });

  it("the folders saying the question's words lift a file (folder prior)", () => {
    const q = parseQuestion('sql generator of the query');
    assert.equal(folderShare('src/Query/QuerySqlGenerator.cs', q), 1 / 3);
    assert.equal(folderShare('src/Migrations/SqlServerMigrationsSqlGenerator.cs', q), 0);
    const ratio = (params: typeof DEFAULT_PARAMS) => {
      const ranked = rankQuestion(src, r, q, { params });
      const at = (p: string) => ranked.find((f) => f.path === p)!.score;
      return at('src/Query/QuerySqlGenerator.cs') / at('src/Migrations/SqlServerMigrationsSqlGenerator.cs');
    };
    assert.ok(DEFAULT_PARAMS.folder > 0);
    assert.ok(Math.abs(ratio(DEFAULT_PARAMS) / ratio({ ...DEFAULT_PARAMS, folder: 0 }) - (1 + DEFAULT_PARAMS.folder / 3)) < 1e-9);
  });

  it('past commits like the question vote for the files they changed', () => {
    const v = historyVotes(history, parseQuestion('rebuild index on alter column').terms, 5);
    assert.equal(v.get('src/Migrations/SqlServerMigrationsSqlGenerator.cs'), 1);
    assert.equal(v.get('src/Query/QuerySqlGenerator.cs'), undefined);
    assert.equal(history.churn.get('src/Query/QuerySqlGenerator.cs'), 1);
  });

  it('the saved index loads back to the same scores', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-ranking-'));
    try {
      saveRanking(dir, 'abc', r.indexes[0]!);
      const back = loadRanking(dir)!;
      assert.equal(back.head, 'abc');
      const again = { ...r, vocab: back.index.vocab, indexes: [back.index] };
      const q = parseQuestion('sparse column indexes');
      const a = scoreFiles(r, q.terms, DEFAULT_PARAMS).map((x) => [x.doc.path, x.score.toFixed(6)]);
      const b = scoreFiles(again, q.terms, DEFAULT_PARAMS).map((x) => [x.doc.path, x.score.toFixed(6)]);
      assert.deepEqual(b, a);
      assert.equal((fs.statSync(path.join(dir, 'ranking.bin')).mode & 0o777).toString(8), '600');
      fs.writeFileSync(path.join(dir, 'ranking.bin'), 'not a ranking');
      assert.equal(loadRanking(dir), undefined);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ranking: a long or repeated-word question', () => {
  const twoLetters: string[] = [];
  for (let a = 97; a < 123; a++) for (let b = 97; b < 123; b++) twoLetters.push(String.fromCharCode(a, b));

  it('ranks at most RANK_QUESTION_MAX_TERMS distinct words (the first ones) and RANK_QUESTION_MAX_IDENTIFIERS spelled names', () => {
    const q = parseQuestion(twoLetters.slice(0, 150).join(' '));
    assert.equal(q.terms.length, RANK_QUESTION_MAX_TERMS);
    assert.deepEqual(q.words.slice(0, 3), ['aa', 'ab', 'ac']);
    const repeated = parseQuestion(Array(150).fill('cache').join(' '));
    assert.deepEqual(repeated.terms, [{ stem: 'cach', weight: 1.5 }]);
    const names = parseQuestion(twoLetters.slice(0, 20).map((w) => `Read${w[0]!.toUpperCase()}${w[1]}Value`).join(' '));
    assert.equal(names.identifiers.length, RANK_QUESTION_MAX_IDENTIFIERS);
  });

  it('a question ranks in steps: another call is answered meanwhile, and the sliced ranking equals the one-piece ranking', async () => {
    // 2,000 files of 40 two-letter words each, a question of as many distinct words as are ranked.
    const docs: DocumentInput[] = [];
    for (let i = 0; i < 2_000; i++) {
      const text = Array.from({ length: 40 }, (_, k) => twoLetters[(i * 7 + k * 13) % twoLetters.length]).join(' ');
      docs.push({ doc: { fileId: i + 1, path: `src/F${i}.cs`, hash: `h${i}`, test: false, generated: false }, language: 'csharp', text: `// ${text}`, types: [`F${i}`], members: [], subjects: undefined });
    }
    const r = rankingOf(docs, parseLog(''));
    const src = sourceOf(docs, new Map());
    const q = parseQuestion(twoLetters.slice(0, 300).join(' '));
    let turns = 0;
    const always = timeSlice(0);
    const slice = async () => {
      turns++;
      await always();
    };
    let answered = false;
    setImmediate(() => (answered = true)); // a cheap call arriving while the question ranks
    const sliced = runStepsSliced(rankSteps(src, r, q, { limit: 10 }), slice).then((x) => {
      assert.ok(answered, 'the cheap call waited for the whole ranking');
      return x;
    });
    const ranked = await sliced;
    assert.ok(turns >= RANK_QUESTION_MAX_TERMS, `${turns} turns`);
    assert.deepEqual(ranked.map((f) => [f.path, f.score]), rankQuestion(src, r, q, { limit: 10 }).map((f) => [f.path, f.score]));
  });
});

describe('ranking: the history read', () => {
  it('a git log that timed out is read again once its retry time has come (a loaded machine is not "no history")', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rank-hist-'));
    try {
      const g = (...a: string[]) => execFileSync('git', ['-C', dir, ...a], { stdio: 'ignore', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' } });
      g('init', '-q');
      fs.writeFileSync(path.join(dir, 'a.cs'), 'class A {}\n');
      g('add', '.');
      g('commit', '-q', '-m', 'Add the journal');
      const engine = { root: dir, git: { head: 'h1' } } as unknown as Parameters<typeof fileHistory>[0];
      // The machine too loaded for git to answer in time (a runner that times out, as git.ts says it).
      const slow = await fileHistory(engine, { timeoutMs: 1, retryMs: 60_000, run: async () => ({ ok: false, error: 'git log took over 1 ms', timedOut: true }) });
      assert.match(slow.unavailable ?? '', /took over 1 ms/);
      assert.ok(slow.retryAt !== undefined);
      // Before its retry time the timed-out read is the answer; after it, git is asked again.
      assert.equal(await fileHistory(engine), slow);
      slow.retryAt = Date.now() - 1;
      const again = await fileHistory(engine);
      assert.equal(again.commits, 1);
      assert.equal(again.unavailable, undefined);
      assert.equal(again.churn.get('a.cs'), 1);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('ranking: calibration', () => {
  const q = parseQuestion('rebuild sparse indexes');
  const file = (p: string, score: number, found: string[], declares: string[] = []) => ({ path: p, fileId: 0, score, text: score, test: false, generated: false, found: found.map((word) => ({ word, fields: [] })), declares });

  it('located needs the plain ranking to agree: a margin and all of the question alone are not enough (right 6 of 14 held out)', () => {
    const clear = evidenceOf([file('a', 10, ['rebuild', 'sparse', 'indexes']), file('b', 4, ['indexes'])], q);
    assert.equal(clear.coverage, 1);
    assert.ok(Math.abs(clear.margin - 0.6) < 1e-9);
    assert.equal(isLocated(clear), false);
    assert.equal(isLocated(evidenceOf([file('a', 10, ['rebuild', 'sparse', 'indexes']), file('b', 4, ['indexes'])], q, 'a')), true);
    const thin = evidenceOf([file('a', 10, ['indexes']), file('b', 2, [])], q, 'a');
    assert.equal(isLocated(thin, { margin: 0.5, agreeMargin: 0.9 }), false);
  });

  it('declaring an identifier the question spells no longer stands in for coverage (right 12 of 21 times on the dev split)', () => {
    const d = evidenceOf([file('a', 10, ['indexes'], ['RebuildIndexes']), file('b', 3, [])], q);
    assert.equal(d.declared, true);
    assert.equal(isLocated(d), false);
    // A name the caller gave exactly (hint, literal refinement) is enough with the margin.
    assert.equal(isLocated(evidenceOf([{ ...file('a', 10, ['indexes'], ['RebuildIndexes']), exact: true }, file('b', 3, [])], q)), true);
    assert.equal(isLocated(evidenceOf([{ ...file('a', 10, ['indexes'], ['RebuildIndexes']), exact: true }, file('b', 9, [])], q)), false);
    assert.equal(isLocated(evidenceOf([], q)), false);
  });

  it('a plain BM25 putting the same file first is enough with a margin of 0.35', () => {
    const ranked = [file('a', 10, ['indexes']), file('b', 6.4, [])];
    const agreed = evidenceOf(ranked, q, 'a');
    assert.equal(agreed.agrees, true);
    assert.equal(isLocated(agreed), true);
    assert.equal(isLocated(evidenceOf(ranked, q, 'b')), false);
    assert.equal(isLocated(evidenceOf(ranked, q)), false);
    assert.equal(isLocated(evidenceOf([file('a', 10, ['indexes']), file('b', 6.6, [])], q, 'a')), false);
  });
});
