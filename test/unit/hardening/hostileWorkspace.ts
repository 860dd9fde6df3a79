/**
 * A small workspace with hostile content next to ordinary code: links out of the root (to an
 * existing and a missing target), a FIFO, a file over the size cap, a binary file, pathological
 * nesting, identifiers built for catastrophic regex backtracking, and a project file.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { smallWorkspace, tempDir, writeTree } from '../../helpers/workspace';

/** Appears only in the file outside the root: an answer containing it leaked. */
export const OUTSIDE_MARKER = 'xyzzy_outside_only_7741';

export interface HostileWorkspace {
  root: string;
  outside: string;
  dispose(): void;
}

export function hostileWorkspace(): HostileWorkspace {
  const base = tempDir('hostile');
  const root = path.join(base, 'ws');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(outside);
  fs.writeFileSync(path.join(outside, 'secret.txt'), `${OUTSIDE_MARKER} InvoiceService\n`);
  writeTree(root, smallWorkspace());
  const aaa = 'a'.repeat(40);
  writeTree(root, {
    'src/Evil/Aaa.cs': `namespace Evil;\npublic class ${aaa} { public void ${aaa}x() {} }\npublic class ${'b'.repeat(60)} {}\n`,
    'src/Evil/Nested.cs': `namespace Evil;\npublic class Nested { int X = ${'('.repeat(3000)}1${')'.repeat(3000)}; }\n`,
    'web/src/nested.ts': `export const deep = ${'['.repeat(3000)}${']'.repeat(3000)};\n`,
    'web/src/longline.ts': `export const s = "${'x'.repeat(200_000)}";\n`,
    'src/Evil/Many.cs': `namespace Evil;\npublic class Many {\n${Array.from({ length: 3000 }, (_, i) => `  public int M${i}() => ${i};`).join('\n')}\n}\n`,
    'binary.bin': Buffer.from(Array.from({ length: 4096 }, (_, i) => i % 256)),
  });
  fs.writeFileSync(path.join(root, 'huge.cs'), Buffer.alloc(3 * 1024 * 1024, 0x61));
  fs.symlinkSync(outside, path.join(root, 'linkout'));
  fs.symlinkSync(path.join(outside, 'missing.txt'), path.join(root, 'dangling'));
  execFileSync('mkfifo', [path.join(root, 'pipe.cs')]);
  return { root, outside, dispose: () => fs.rmSync(base, { recursive: true, force: true }) };
}
