/**
 * The engine's TypeScript host reads what the workspace's path policy allows (tsprograms/tsPrograms.ts
 * ReadPolicy): workspace files, node_modules type packages (also above the root) and the TypeScript
 * lib — never a file outside the root reached through a tsconfig entry, a relative import or an
 * in-root link.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadTypeScript, TsPrograms } from '../../../server/src/semantic/tsprograms/tsPrograms';

describe('TypeScript host read policy', () => {
  let base: string;
  let root: string;

  before(() => {
    base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-tsread-')));
    root = path.join(base, 'ws');
    const w = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(base, rel)), { recursive: true });
      fs.writeFileSync(path.join(base, rel), text);
    };
    w('secret.ts', 'export const secret = 1;\n');
    w('node_modules/@types/outer/index.d.ts', 'declare module "outer" { export const o: number; }\n');
    w('ws/tsconfig.json', JSON.stringify({ compilerOptions: { strict: true, types: ['outer'] }, include: ['src/**/*'], files: ['../secret.ts'] }));
    w('ws/src/a.ts', 'import { secret } from "../../secret";\nimport { linked } from "./link";\nimport { o } from "outer";\nexport const a = secret + linked + o;\n');
    fs.symlinkSync(path.join(base, 'secret.ts'), path.join(root, 'src', 'link.ts'));
  });

  after(() => fs.rmSync(base, { recursive: true, force: true }));

  it('loads the workspace, the TypeScript lib and node_modules types, nothing else outside the root', () => {
    const ts = loadTypeScript()!;
    const programs = new TsPrograms(ts, root, 4);
    try {
      programs.begin(() => false);
      const { configs } = programs.configs(['tsconfig.json'], 'k');
      const lp = programs.load(configs[0]!);
      const files = lp.program.getSourceFiles().map((f) => f.fileName);
      assert.ok(files.includes(`${root}/src/a.ts`), files.join('\n'));
      assert.ok(files.some((f) => f.endsWith('/lib.es5.d.ts')), 'the TypeScript lib');
      assert.ok(files.includes(`${base}/node_modules/@types/outer/index.d.ts`), 'a type package above the root');
      assert.deepEqual(files.filter((f) => f.includes('secret') || f.endsWith('/link.ts')), [], 'the file outside, by tsconfig files, import or link');
      assert.equal(programs.policy.mayRead(`${base}/secret.ts`), false);
      assert.equal(programs.policy.mayRead(`${root}/src/link.ts`), false, 'an in-root link leading out');
      assert.equal(programs.policy.mayRead(`${root}/src/a.ts`), true);
      assert.equal(programs.policy.mayRead(`${root}/src/missing.ts`), true, 'a missing file inside (the compiler sees it does not exist)');
      assert.equal(programs.policy.mayList(base), false);
    } finally {
      programs.dispose();
    }
  });
});
