/**
 * file_dependencies' TS/JS resolution checked against the TypeScript compiler on a real repository:
 * `SEXTANT_DEPS_TS_REPO=/path/to/checkout` (e.g. modelcontextprotocol/typescript-sdk) runs it,
 * pending otherwise. The checkout is copied to a temp folder (without .git); there, like a
 * workspace install, every workspace package gets a `node_modules/<name>` link in each package
 * folder and at the root (outside packages are not installed: tsc leaves them unresolved and the
 * engine counts them as packages). Every tsconfig.json is run through `tsc -p … --traceResolution`;
 * each (importing file, specifier) tsc traced is compared with the engine's resolution over the
 * index: the same workspace file, or both not a workspace file. Prints the agreement figures.
 * `SEXTANT_DEPS_TS_INCLUDE` (default `packages`) re-admits default-excluded folders.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { resolveModuleSpecifier } from '../../../server/src/nav/fileDependencies';

const REPO = process.env['SEXTANT_DEPS_TS_REPO'];
const TSC = path.resolve(__dirname, '../../../node_modules/typescript/bin/tsc');
const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

function walk(dir: string, root: string, out: string[]): void {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '.git') continue;
    const abs = path.join(dir, e.name);
    if (e.isDirectory()) walk(abs, root, out);
    else if (e.isFile()) out.push(path.relative(root, abs).split(path.sep).join('/'));
  }
}

/** node_modules/<name> → the workspace package, in every package folder and the root. */
function linkWorkspacePackages(root: string, files: string[]): number {
  const pkgs = new Map<string, string>();
  for (const f of files) {
    if (path.posix.basename(f) !== 'package.json') continue;
    try {
      const name = (JSON.parse(fs.readFileSync(path.join(root, f), 'utf8')) as { name?: unknown }).name;
      if (typeof name === 'string' && !pkgs.has(name)) pkgs.set(name, path.join(root, path.posix.dirname(f)));
    } catch {
      /* not JSON: no package */
    }
  }
  const dirs = new Set([root, ...pkgs.values()]);
  let n = 0;
  for (const d of dirs) {
    for (const [name, target] of pkgs) {
      const link = path.join(d, 'node_modules', name);
      if (fs.existsSync(link)) continue;
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(path.relative(path.dirname(link), target), link);
      n++;
    }
  }
  return n;
}

interface Traced {
  from: string;
  spec: string;
  /** Workspace-relative file tsc resolved to, undefined when not resolved or outside the workspace files. */
  to: string | undefined;
}

function traceConfig(root: string, config: string): Traced[] {
  let out: string;
  try {
    out = execFileSync(process.execPath, [TSC, '-p', config, '--traceResolution', '--noEmit'], { cwd: root, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  } catch (e) {
    out = String((e as { stdout?: string }).stdout ?? ''); // type errors exit non-zero; the trace is complete
  }
  const rows: Traced[] = [];
  let open: { from: string; spec: string } | undefined;
  for (const line of out.split('\n')) {
    const start = /^======== Resolving module '(.+)' from '(.+)'\. ========$/.exec(line);
    if (start) {
      open = { spec: start[1]!, from: start[2]! };
      continue;
    }
    const end = /^======== Module name '(.+)' was (successfully resolved to '(.+?)'.*|not resolved\.) ========$/.exec(line);
    if (end && open && end[1] === open.spec) {
      const fromRel = path.relative(root, open.from).split(path.sep).join('/');
      let to: string | undefined;
      if (end[3]) {
        const real = fs.realpathSync(end[3]);
        const rel = path.relative(root, real).split(path.sep).join('/');
        to = rel.startsWith('..') || rel.split('/').includes('node_modules') ? undefined : rel;
      }
      if (!fromRel.startsWith('..') && !fromRel.split('/').includes('node_modules')) rows.push({ from: fromRel, spec: open.spec, to });
      open = undefined;
    }
  }
  return rows;
}

(REPO ? describe : describe.skip)(`file_dependencies resolution agrees with tsc --traceResolution on ${REPO ?? '$SEXTANT_DEPS_TS_REPO'}`, function () {
  this.timeout(1_800_000);
  let root: string;
  let engine: Engine;

  before(async function () {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-deps-tsc-'));
    fs.cpSync(REPO!, root, { recursive: true, filter: (src) => path.basename(src) !== '.git' && path.basename(src) !== 'node_modules' });
    const files: string[] = [];
    walk(root, root, files);
    linkWorkspacePackages(root, files);
    const include = (process.env['SEXTANT_DEPS_TS_INCLUDE'] ?? 'packages').split(',').filter(Boolean);
    engine = await Engine.open({ workspaceRoot: root, indexRoot: '', include });
    await engine.refresh();
  });

  after(async function () {
    await engine?.close();
    if (root) fs.rmSync(root, { recursive: true, force: true });
  });

  it('resolves what tsc resolves to the same workspace file, and leaves the rest unlisted', async function () {
    const files: string[] = [];
    walk(root, root, files);
    const configs = files.filter((f) => path.posix.basename(f) === 'tsconfig.json');
    const seen = new Set<string>();
    const pairs: Traced[] = [];
    for (const c of configs) {
      for (const t of traceConfig(root, c)) {
        const key = `${t.from}\0${t.spec}`;
        if (seen.has(key) || !SOURCE.test(t.from) || !engine.catalog().byRelPath(t.from)) continue;
        seen.add(key);
        pairs.push(t);
      }
    }
    let agree = 0;
    let tscLocal = 0;
    let bothLocal = 0;
    const disagreements: string[] = [];
    const importers = new Set<string>();
    for (const p of pairs) {
      importers.add(p.from);
      const r = resolveModuleSpecifier(engine, p.spec, p.from);
      const ours = r.kind === 'file' ? r.path : undefined;
      if (p.to) tscLocal++;
      if (p.to && ours === p.to) bothLocal++;
      if (ours === p.to) agree++;
      else disagreements.push(`${p.from}: '${p.spec}' tsc ${p.to ?? '(none)'} / engine ${ours ?? r.kind + ('reason' in r ? ` ${r.reason}` : '')}`);
    }
    const share = agree / Math.max(1, pairs.length);
    console.log(`      ${configs.length} tsconfig programs, ${importers.size} importing files, ${pairs.length} (file, specifier) pairs traced by tsc; ${tscLocal} resolved by tsc to a workspace file`);
    console.log(`      agreement ${agree}/${pairs.length} (${(share * 100).toFixed(2)}%); workspace files tsc resolved, engine the same: ${bothLocal}/${tscLocal} (${((bothLocal / Math.max(1, tscLocal)) * 100).toFixed(2)}%)`);
    for (const d of disagreements.slice(0, 15)) console.log(`        ${d}`);
    assert.ok(pairs.length >= 200, `only ${pairs.length} pairs traced`);
    assert.ok(share >= 0.98, `agreement ${(share * 100).toFixed(2)}% < 98%`);
  });
});
