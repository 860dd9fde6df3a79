/**
 * Another producer's SCIP (scip-typescript's shapes, as seen on trpc): an alias re-export's uses
 * are references of the original; a destructured binding's definition is the property it takes;
 * where the index cannot tell apart what TypeScript does (several symbols on one range, overload
 * signatures sharing a parameter's symbol, an object literal's property) the facts decline with
 * the reason instead of answering wrong rows.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { OccurrenceStore } from '../../../server/src/semantic/precise/occurrenceStore';
import { PreciseAnswers, verifyAgainstText, type PreciseEnv } from '../../../server/src/semantic/precise/preciseAnswers';
import { writeScipIndex } from '../../../server/src/semantic/precise/scipCatalog';
import { ROLE_DEFINITION, type ScipDocument, type ScipOccurrence } from '../../../server/src/semantic/precise/scipCodec';

const sym = (file: string, d: string) => `scip-typescript npm @acme/x 1.0.0 src/\`${file}\`/${d}`;
const CT = sym('t.ts', 'CombinedTransformer#');
const PATH = sym('shape.ts', 'Opts#path.');
const RACE_A = sym('race.ts', 'race().(a)');
const LIT = sym('lit.ts', 'value0:');
const BASE = sym('env.ts', 'Base#');
const STOP = sym('env.ts', 'Stop#');
const consts = Array.from({ length: 10 }, (_, i) => `export const c${i} = ${i};`).join('\n');

const texts: Record<string, string> = {
  'src/t.ts': 'export interface CombinedTransformer {}\nexport { CombinedTransformer as TRPCCombinedTransformer };\n',
  'src/use.ts': `import type { TRPCCombinedTransformer } from './t';\n${consts}\n`,
  'src/shape.ts': 'type Opts = { path: string };\nfunction f(opts: Opts) {\n  const { path } = opts;\n}\n',
  'src/race.ts': 'function race(a: number): void;\nfunction race(a: string): void;\nfunction race(a: any) {}\n',
  'src/lit.ts': 'export const o = { value: 1 };\n',
  'src/env.ts': 'interface Base { id?: string }\ninterface Stop extends Base { id: null }\n',
};

const occ = (line: number, from: number, to: number, symbol: string, role = 0): ScipOccurrence => ({ range: [line, from, to], symbol, symbolRoles: role });
const doc = (p: string, occurrences: ScipOccurrence[]): ScipDocument => ({ relativePath: p, language: 'typescript', positionEncoding: 2, occurrences, symbols: [] });

function docs(): ScipDocument[] {
  return [
    doc('src/t.ts', [occ(0, 17, 36, CT, ROLE_DEFINITION), occ(1, 9, 28, CT), occ(1, 32, 55, CT)]),
    doc('src/use.ts', [occ(0, 14, 37, CT), ...Array.from({ length: 10 }, (_, i) => occ(i + 1, 13, 15, sym('use.ts', `c${i}.`), ROLE_DEFINITION))]),
    doc('src/shape.ts', [occ(0, 14, 18, PATH, ROLE_DEFINITION), occ(2, 10, 14, 'local 1', ROLE_DEFINITION), occ(2, 10, 14, PATH)]),
    doc('src/race.ts', [occ(0, 14, 15, RACE_A, ROLE_DEFINITION), occ(1, 14, 15, RACE_A, ROLE_DEFINITION), occ(2, 14, 15, RACE_A, ROLE_DEFINITION)]),
    doc('src/lit.ts', [occ(0, 19, 24, LIT, ROLE_DEFINITION)]),
    {
      ...doc('src/env.ts', [occ(0, 10, 14, BASE, ROLE_DEFINITION), occ(0, 17, 19, `${BASE}id.`, ROLE_DEFINITION), occ(1, 10, 14, STOP, ROLE_DEFINITION), occ(1, 23, 27, BASE), occ(1, 30, 32, `${STOP}id.`, ROLE_DEFINITION)]),
      symbols: [{ symbol: STOP, documentation: [], relationships: [{ symbol: BASE, isImplementation: true, isReference: false, isTypeDefinition: false, isDefinition: false }], kind: 21, displayName: 'Stop', enclosingSymbol: '' }],
    },
  ];
}

function env(): PreciseEnv {
  return {
    currentHash: (p) => (texts[p] !== undefined ? `h:${texts[p]!.length}` : undefined),
    keyProblem: () => undefined,
    filesMentioning: (name) => new Set(Object.keys(texts).filter((p) => new RegExp(`\\b${name}\\b`).test(texts[p]!))),
    readText: (p) => texts[p],
    languageOf: (p) => (p.endsWith('.ts') ? 'typescript' : undefined),
    version: () => 'v1',
  };
}

describe("another producer's SCIP where TypeScript tells more apart", () => {
  let dir: string;
  let answers: PreciseAnswers;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-scip-foreign-'));
    const file = path.join(dir, 'ts.scip');
    await writeScipIndex(file, { version: 0, toolInfo: { name: 'scip-typescript', version: '0.4.0', arguments: [] }, projectRoot: 'file:///ci', textDocumentEncoding: 1 }, docs());
    const store = new OccurrenceStore();
    assert.equal((await store.addUnit(file, 'scip', '/ws')).ok, true);
    answers = new PreciseAnswers(store, env());
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const at = (rows: { path: string; line: number; column: number }[] | undefined) => (rows ?? []).map((r) => `${r.path}:${r.line}:${r.column}`).sort();

  it('references follow an alias re-export into the files that spell the alias', () => {
    for (const d of docs()) assert.equal(verifyAgainstText(d, texts[d.relativePath]!), undefined, d.relativePath);
    const refs = answers.answer('references', 'typescript', { path: 'src/t.ts', line: 1, column: 18, includeDeclaration: true })!;
    assert.equal(refs.incomplete, undefined);
    assert.deepEqual(at(refs.value), ['src/t.ts:1:18', 'src/t.ts:2:10', 'src/t.ts:2:33', 'src/use.ts:1:15']);
    assert.deepEqual(refs.coverage.live, []);
  });

  it("a destructured binding's definition is the property's declaration", () => {
    const def = answers.answer('definition', 'typescript', { path: 'src/shape.ts', line: 3, column: 11 })!;
    assert.equal(def.incomplete, undefined);
    assert.deepEqual(at(def.value), ['src/shape.ts:1:15']);
  });

  it('declines, with the reason, what the index cannot tell apart', () => {
    const both = answers.answer('references', 'typescript', { path: 'src/shape.ts', line: 3, column: 11, includeDeclaration: true })!;
    assert.match(both.incomplete ?? '', /2 symbols \(1, path\)|2 symbols/);
    const overload = answers.answer('references', 'typescript', { path: 'src/race.ts', line: 1, column: 15, includeDeclaration: true })!;
    assert.match(overload.incomplete ?? '', /overload signature/);
    const literal = answers.answer('references', 'typescript', { path: 'src/lit.ts', line: 1, column: 20, includeDeclaration: true })!;
    assert.match(literal.incomplete ?? '', /object literal's property/);
    const member = answers.answer('references', 'typescript', { path: 'src/env.ts', line: 2, column: 31, includeDeclaration: true })!;
    assert.match(member.incomplete ?? '', /does not relate id to the members of Base/);
    // its definition is still answered: the property itself
    assert.deepEqual(at(answers.answer('definition', 'typescript', { path: 'src/lit.ts', line: 1, column: 20 })!.value), ['src/lit.ts:1:20']);
  });
});
