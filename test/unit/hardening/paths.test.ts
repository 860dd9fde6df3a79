import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isToolError } from '../../../server/src/core/errors';
import { PathPolicy, pathShapeProblem, readWithOneHandle } from '../../../server/src/core/paths';

/** What a caller sees: the answer's code, and the message with the caller's own input masked. */
function answer(policy: PathPolicy, input: string, op: 'resolve' | 'read' = 'read'): string {
  try {
    if (op === 'resolve') {
      const r = policy.resolve(input);
      return `ok ${r.rel} exists=${r.exists}`;
    }
    const r = policy.readFile(input);
    return `ok ${r.rel} ${r.bytes.toString('utf8')}`;
  } catch (e) {
    if (!isToolError(e)) throw e;
    return `${e.code}: ${e.render().split(input).join('<input>')}`;
  }
}

describe('path policy: the traversal matrix has no existence oracle', () => {
  let tmp: string;
  let ws: string;
  let out: string;
  let policy: PathPolicy;

  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-paths-'));
    ws = path.join(tmp, 'ws');
    out = path.join(tmp, 'out');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.mkdirSync(path.join(out, 'loop'), { recursive: true });
    fs.writeFileSync(path.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(ws, '..foo.ts'), 'dots\n');
    fs.writeFileSync(path.join(out, 'secret.txt'), 'SECRET\n');
    // in-root links that lead out: to an existing dir, to a missing dir, to existing and missing files
    fs.symlinkSync(out, path.join(ws, 'linkout'));
    fs.symlinkSync(path.join(out, 'nodir'), path.join(ws, 'danglingdir'));
    fs.symlinkSync(path.join(out, 'secret.txt'), path.join(ws, 'secretlink'));
    fs.symlinkSync(path.join(out, 'missing.txt'), path.join(ws, 'danglingfile'));
    // relative chains: ws/chain1 -> chain2 -> ../out (missing target behind it)
    fs.symlinkSync('../out', path.join(ws, 'chain2'));
    fs.symlinkSync('chain2', path.join(ws, 'chain1'));
    // links inside the root
    fs.symlinkSync('src', path.join(ws, 'alias'));
    fs.symlinkSync('src/nothere.ts', path.join(ws, 'danglinginside'));
    // loops: one entirely inside, one outside
    fs.symlinkSync('loopB', path.join(ws, 'loopA'));
    fs.symlinkSync('loopA', path.join(ws, 'loopB'));
    fs.symlinkSync('l2', path.join(out, 'loop', 'l1'));
    fs.symlinkSync('l1', path.join(out, 'loop', 'l2'));
    fs.symlinkSync(path.join(out, 'loop', 'l1'), path.join(ws, 'looplink'));
    policy = new PathPolicy(ws);
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('answers PATH_OUTSIDE_ROOT identically whether or not the outside target exists', () => {
    const probes: Record<string, string> = {
      'outside, exists (relative)': '../out/secret.txt',
      'outside, missing (relative)': '../out/missing.txt',
      'outside, exists (absolute)': path.join(out, 'secret.txt'),
      'outside, missing (absolute)': path.join(out, 'missing.txt'),
      'outside, missing directory (absolute)': path.join(out, 'nodir', 'x.txt'),
      'in-root link out, exists': 'linkout/secret.txt',
      'in-root link out, missing': 'linkout/missing.txt',
      'in-root link out, missing dir': 'linkout/nodir/x.txt',
      'in-root link to a missing dir outside': 'danglingdir/x.txt',
      'in-root file link out, exists': 'secretlink',
      'in-root file link out, missing': 'danglingfile',
      'relative link chain out, exists': 'chain1/secret.txt',
      'relative link chain out, missing': 'chain1/missing.txt',
      'in-root link into an outside loop': 'looplink',
      'in-root link into an outside loop, deeper': 'looplink/x',
    };
    const answers = Object.entries(probes).map(([name, input]) => [name, answer(policy, input)] as const);
    const distinct = new Set(answers.map(([, a]) => a));
    assert.deepEqual([...distinct], [
      "PATH_OUTSIDE_ROOT: Error [PATH_OUTSIDE_ROOT]: '<input>' is outside the workspace root. Hint: pass a workspace-relative POSIX path such as src/App/Program.cs (use find_file to locate files)",
    ], answers.map(([n, a]) => `${n}: ${a}`).join('\n'));
    // resolve() (no read) gives the same single answer: the oracle is absent before any open.
    const resolved = new Set(Object.values(probes).map((p) => answer(policy, p, 'resolve')));
    assert.equal(resolved.size, 1);
    assert.match([...resolved][0] ?? '', /^PATH_OUTSIDE_ROOT/);
  });

  it('gives precise answers inside the root, where they are safe', () => {
    assert.equal(answer(policy, 'src/a.ts'), 'ok src/a.ts export const a = 1;\n');
    assert.equal(answer(policy, 'alias/a.ts'), 'ok src/a.ts export const a = 1;\n', 'served through an in-root link, canonical rel');
    assert.equal(answer(policy, path.join(ws, 'src', 'a.ts')), 'ok src/a.ts export const a = 1;\n', 'absolute inside');
    assert.equal(answer(policy, 'src/../src/a.ts'), 'ok src/a.ts export const a = 1;\n');
    assert.equal(answer(policy, '..foo.ts'), 'ok ..foo.ts dots\n', 'a name starting with two dots is inside');
    assert.match(answer(policy, 'src/missing.ts'), /^FILE_NOT_FOUND: Error \[FILE_NOT_FOUND\]: No file at '<input>'/);
    assert.match(answer(policy, 'danglinginside'), /^FILE_NOT_FOUND/, 'a dangling link that stays inside');
    assert.match(answer(policy, 'nodir/deeper/x.ts'), /^FILE_NOT_FOUND/);
    assert.match(answer(policy, 'src/a.ts/x'), /^FILE_NOT_FOUND/, 'a file used as a directory');
    assert.match(answer(policy, 'loopA'), /^FILE_NOT_FOUND: .*symbolic link loop/, 'a loop entirely inside the root');
    assert.match(answer(policy, 'src'), /^NOT_A_FILE/);
    assert.equal(answer(policy, '.', 'resolve'), 'ok  exists=true');
  });

  it('accepts absolute paths spelled through a linked root', () => {
    const linkedRoot = path.join(tmp, 'wslink');
    fs.symlinkSync(ws, linkedRoot);
    const p = new PathPolicy(linkedRoot);
    assert.equal(p.root, fs.realpathSync(ws));
    assert.equal(answer(p, path.join(linkedRoot, 'src', 'a.ts')), 'ok src/a.ts export const a = 1;\n');
    assert.match(answer(p, path.join(linkedRoot, '..', 'out', 'secret.txt')), /^PATH_OUTSIDE_ROOT/);
  });

  it('canonicalInside keeps walkers inside: links out are simply not there', () => {
    assert.equal(policy.canonicalInside(path.join(ws, 'alias', 'a.ts')), path.join(policy.root, 'src', 'a.ts'));
    assert.equal(policy.canonicalInside(path.join(ws, 'linkout')), undefined);
    assert.equal(policy.canonicalInside(path.join(ws, 'danglingdir')), undefined);
    assert.equal(policy.canonicalInside(path.join(ws, 'looplink')), undefined);
  });
});

describe('path policy: argument shape', () => {
  it('refuses control characters and device-namespace prefixes before touching the disk', () => {
    const bad = ['a\u0000b', 'src/\nx.ts', 'x\u007f', 'x\u0085y', '\\\\?\\C:\\x', '\\\\.\\pipe\\x', '//?/C:/x', '//./PhysicalDrive0', '\\??\\C:\\x', '/??/x', ''];
    for (const p of bad) assert.ok(pathShapeProblem(p), `should refuse ${JSON.stringify(p)}`);
    const policy = new PathPolicy(os.tmpdir());
    for (const p of bad) assert.match(answer(policy, p, 'resolve'), /^INVALID_PATH/);
    assert.ok(pathShapeProblem('x'.repeat(5000)));
  });

  it('refuses Windows device names and NTFS streams on Windows only', () => {
    for (const p of ['NUL', 'src/con.ts', 'COM1', 'lpt9.txt', 'a/CONIN$', 'nul. ', 'src/a.cs:secret', 'src/a.cs::$DATA']) {
      assert.ok(pathShapeProblem(p, 'win32'), `win32 should refuse ${p}`);
      assert.equal(pathShapeProblem(p, 'linux'), undefined, `linux accepts ${p}`);
    }
    for (const p of ['C:\\code\\app\\a.cs', 'src/console.ts', 'src/nullable.cs', 'COM10.cs']) assert.equal(pathShapeProblem(p, 'win32'), undefined, p);
  });
});

describe('path policy: one-handle reads', () => {
  let tmp: string;
  before(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-read-'));
  });
  after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  it('refuses a symbolic link at the last component (a swap after validation)', () => {
    fs.writeFileSync(path.join(tmp, 'real.txt'), 'real');
    fs.symlinkSync(path.join(tmp, 'real.txt'), path.join(tmp, 'swapped.txt'));
    assert.throws(() => readWithOneHandle(path.join(tmp, 'swapped.txt'), 'swapped.txt', 1024), (e: unknown) => isToolError(e) && e.code === 'INVALID_PATH');
    assert.equal(readWithOneHandle(path.join(tmp, 'real.txt'), 'real.txt', 1024).bytes.toString(), 'real');
  });

  it('refuses a FIFO planted in the workspace without blocking', async function () {
    this.timeout(10_000);
    const fifo = path.join(tmp, 'pipe.ts');
    execFileSync('mkfifo', [fifo]);
    // A blocking open would hang this (synchronous) test forever. A writer that connects after
    // 1.5 s turns such a regression into a slow answer, which the time assertion below catches.
    const rescuer = spawn('sh', ['-c', `sleep 1.5; exec 3>'${fifo}'`], { stdio: 'ignore' });
    try {
      const policy = new PathPolicy(tmp);
      const t0 = Date.now();
      const a = answer(policy, 'pipe.ts');
      const ms = Date.now() - t0;
      assert.match(a, /^NOT_A_FILE: .*not a regular file/);
      assert.ok(ms < 1000, `open blocked for ${ms} ms`);
    } finally {
      rescuer.kill('SIGKILL');
    }
  });

  it('refuses a file over the cap from fstat, and one that reports a small size but yields more bytes', () => {
    fs.writeFileSync(path.join(tmp, 'big.txt'), Buffer.alloc(2048, 97));
    assert.throws(() => readWithOneHandle(path.join(tmp, 'big.txt'), 'big.txt', 1024), /2048 bytes, over the 1024-byte cap/);
    // /proc files report size 0 and then produce bytes: only the re-check on bytes read catches it.
    assert.equal(fs.statSync('/proc/self/status').size, 0);
    assert.throws(() => readWithOneHandle('/proc/self/status', 'status', 64), /grew past the 64-byte cap while being read/);
    assert.ok(readWithOneHandle('/proc/self/status', 'status', 1 << 20).bytes.length > 64);
  });
});
