/**
 * The Sextant benchmark (not a timed test):
 *
 *   npm run bench [-- PATH ...] [--projects N] [--seed S] [--size-factor X] [--quick] [--sections a,b]
 *                 [--skip-generated] [--no-git] [--cli dist|source] [--base DIR]
 *
 * Runs every section in test/bench/sections/ (sorted by `order`) against the generated C#
 * workspace (3,000 projects by default; generated once into a cache under os.tmpdir()) and
 * against each PATH given. Prints a compact table per section and writes all numbers as JSON to
 * <os.tmpdir()>/sextant-bench/latest.json. Add a section by adding a file that exports `section`.
 * `--base DIR`: a checkout of an earlier commit with `dist/cli.js` built; sections that compare
 * (indexing, search_text frequent) run it beside this one in the same run, alternating.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../server/src/nav/engine';
import { cachedWorkspace } from '../fixtures/generate/cachedWorkspace';
import { renderSection } from './report';
import { mib } from './stats';
import type { BenchContext, BenchOptions, BenchSection, BenchTarget, SectionResult } from './types';

const repoRoot = path.resolve(__dirname, '../..');

interface Args {
  paths: string[];
  projects: number;
  seed: number;
  /** The generator's size factor (files and lines per project; the project graph is the same). */
  sizeFactor: number | undefined;
  quick: boolean;
  sections: string[] | undefined;
  skipGenerated: boolean;
  git: boolean;
  cli: 'dist' | 'source' | undefined;
  base: string | undefined;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { paths: [], projects: 3000, seed: 1, sizeFactor: undefined, quick: false, sections: undefined, skipGenerated: false, git: true, cli: undefined, base: undefined };
  for (let i = 0; i < argv.length; i++) {
    const x = argv[i] as string;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${x} needs a value`);
      return v;
    };
    if (x === '--projects') a.projects = Number(value());
    else if (x === '--seed') a.seed = Number(value());
    else if (x === '--size-factor') a.sizeFactor = Number(value());
    else if (x === '--quick') a.quick = true;
    else if (x === '--sections') a.sections = value().split(',').filter(Boolean);
    else if (x === '--skip-generated') a.skipGenerated = true;
    else if (x === '--no-git') a.git = false;
    else if (x === '--base') a.base = path.resolve(value());
    else if (x === '--cli') {
      const v = value();
      if (v !== 'dist' && v !== 'source') throw new Error('--cli is dist or source');
      a.cli = v;
    } else if (x.startsWith('--')) throw new Error(`unknown option ${x}`);
    else a.paths.push(x);
  }
  return a;
}

/** dist/cli.js when it is newer than every engine source file (or when asked), else the sources under tsx. */
function chooseCli(wanted: Args['cli']): BenchOptions {
  const dist = path.join(repoRoot, 'dist', 'cli.js');
  const source: BenchOptions = { cliKind: 'source', cli: [process.execPath, '--import', require.resolve('tsx'), path.join(repoRoot, 'server/src/cli.ts')], quick: false };
  const bundled: BenchOptions = { cliKind: 'dist', cli: [process.execPath, dist], quick: false };
  if (wanted === 'source') return source;
  if (wanted === 'dist') return bundled;
  if (!fs.existsSync(dist)) return source;
  const built = fs.statSync(dist).mtimeMs;
  let newest = 0;
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else newest = Math.max(newest, fs.statSync(p).mtimeMs);
    }
  };
  walk(path.join(repoRoot, 'server/src'));
  return newest > built ? source : bundled;
}

/** `<short commit> <subject>` of a base checkout, or its folder when git cannot say. */
function baseLabel(dir: string): string {
  const r = spawnSync('git', ['-C', dir, 'log', '-1', '--format=%h %s'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim().slice(0, 80) : dir;
}

function loadSections(filter: string[] | undefined): BenchSection[] {
  const dir = path.join(__dirname, 'sections');
  const out: BenchSection[] = [];
  for (const f of fs.readdirSync(dir).filter((x) => x.endsWith('.ts')).sort()) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(path.join(dir, f)) as { section?: BenchSection };
    if (!mod.section) {
      process.stderr.write(`bench: ${f} exports no 'section'; skipped\n`);
      continue;
    }
    if (!filter || filter.includes(mod.section.name)) out.push(mod.section);
  }
  return out.sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : 1));
}

function progress(msg: string): void {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K  … ${msg.slice(0, 100)}`);
}
function clearProgress(): void {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[2K');
}

function gitInit(root: string): string {
  const gitDir = path.join(root, '.git');
  const marker = path.join(gitDir, 'sextant-bench-complete');
  if (fs.existsSync(marker)) return 'git repository present';
  if (spawnSync('git', ['--version']).status !== 0) return 'git not installed; the workspace is not a repository';
  fs.rmSync(gitDir, { recursive: true, force: true }); // an interrupted earlier attempt
  const t = Date.now();
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.invalid', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.invalid' };
  const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { env, stdio: ['ignore', 'ignore', 'pipe'], maxBuffer: 1 << 26 });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '--no-verify', '-m', 'generated workspace');
  fs.writeFileSync(marker, '');
  return `git repository created and committed in ${((Date.now() - t) / 1000).toFixed(1)} s`;
}

async function generatedTarget(a: Args): Promise<{ target: BenchTarget; info: string[] }> {
  const info: string[] = [];
  const t = Date.now();
  const ws = cachedWorkspace('csharp', { projects: a.projects, seed: a.seed, ...(a.sizeFactor !== undefined ? { sizeFactor: a.sizeFactor } : {}) });
  const m = ws.manifest;
  const cs = m.byExtension['.cs'];
  info.push(
    `${m.projects.length} projects, ${m.totals.files.toLocaleString('en-US')} files, ${(m.totals.lines / 1e6).toFixed(2)} M lines, ${mib(m.totals.bytes).toFixed(1)} MiB` +
      (cs ? ` (C#: ${cs.files.toLocaleString('en-US')} files, ${(cs.lines / 1e6).toFixed(2)} M lines, ${mib(cs.bytes).toFixed(1)} MiB)` : ''),
  );
  info.push(ws.generated ? `generated now in ${((Date.now() - t) / 1000).toFixed(1)} s (generator: ${(m.durationMs / 1000).toFixed(1)} s)` : `reused from the cache (generated earlier in ${(m.durationMs / 1000).toFixed(1)} s)`);
  if (a.git) info.push(gitInit(ws.root));
  return { target: { label: `generated C# workspace (${a.projects} projects, seed ${a.seed}${a.sizeFactor !== undefined ? `, size factor ${a.sizeFactor}` : ''})`, root: ws.root, manifest: m }, info };
}

async function runTarget(target: BenchTarget, sections: BenchSection[], options: BenchOptions): Promise<Record<string, SectionResult & { ms: number; error?: string }>> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-bench-'));
  const indexRoot = path.join(scratch, 'index');
  let engine: Promise<Engine> | undefined;
  const engineTimes: Record<string, number> = {};
  const ctx: BenchContext = {
    target,
    options,
    indexRoot,
    scratch,
    shared: new Map(),
    progress,
    engine: () =>
      (engine ??= (async () => {
        progress('opening the warm engine…');
        let t = performance.now();
        const e = await Engine.open({ workspaceRoot: target.root, indexRoot });
        engineTimes['openMs'] = performance.now() - t;
        t = performance.now();
        await e.refresh();
        engineTimes['refreshMs'] = performance.now() - t;
        return e;
      })()),
  };
  const results: Record<string, SectionResult & { ms: number; error?: string }> = {};
  try {
    for (const s of sections) {
      if (s.appliesTo && !s.appliesTo(target)) continue;
      const t = performance.now();
      let r: SectionResult & { ms: number; error?: string };
      try {
        r = { ...(await s.run(ctx)), ms: 0 };
      } catch (e) {
        const msg = (e as Error).stack ?? String(e);
        r = { metrics: [], notes: [`section failed: ${msg.split('\n').slice(0, 4).join(' | ')}`], ms: 0, error: msg };
      }
      r.ms = performance.now() - t;
      clearProgress();
      process.stdout.write(renderSection(s.name, s.description, r) + `\n  (${(r.ms / 1000).toFixed(1)} s)\n\n`);
      results[s.name] = r;
      (globalThis as { gc?: () => void }).gc?.();
    }
  } finally {
    if (engine) await (await engine).close();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
  if (engineTimes['openMs'] !== undefined) {
    process.stdout.write(`  warm engine in the bench process: open ${Math.round(engineTimes['openMs'])} ms, refresh (nothing changed) ${Math.round(engineTimes['refreshMs'] ?? 0)} ms\n\n`);
    results['engine'] = { metrics: [], data: engineTimes, ms: 0 };
  }
  return results;
}

async function main(): Promise<number> {
  const a = parseArgs(process.argv.slice(2));
  const options: BenchOptions = { ...chooseCli(a.cli), quick: a.quick };
  if (a.base) {
    const baseCli = path.join(a.base, 'dist', 'cli.js');
    if (!fs.existsSync(baseCli)) throw new Error(`--base ${a.base}: no dist/cli.js (run npm run build there)`);
    options.base = { cli: [process.execPath, baseCli], label: baseLabel(a.base) };
  }
  const sections = loadSections(a.sections);
  const load = os.loadavg().map((x) => x.toFixed(2)).join(' ');
  process.stdout.write(
    `Sextant bench — ${new Date().toISOString()}\n` +
      `machine: ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load ${load}; node ${process.version}\n` +
      `sextant CLI: ${options.cliKind === 'dist' ? 'dist/cli.js (bundled)' : 'server/src/cli.ts under tsx (dist/cli.js missing or older than server/src)'}\n` +
      (options.base ? `base CLI: ${options.base.cli[1]} (${options.base.label})\n` : '') +
      `sections: ${sections.map((s) => s.name).join(', ')}${a.quick ? ' (quick)' : ''}\n\n`,
  );
  const out: { startedAt: string; machine: unknown; cli: string; base: unknown; targets: unknown[] } = {
    startedAt: new Date().toISOString(),
    machine: { cpus: os.cpus().length, model: os.cpus()[0]?.model, totalmem: os.totalmem(), loadavg: os.loadavg(), node: process.version },
    cli: options.cliKind,
    base: options.base,
    targets: [],
  };
  const targets: Array<{ target: BenchTarget; info: string[] }> = [];
  if (!a.skipGenerated) targets.push(await generatedTarget(a));
  for (const p of a.paths) {
    const root = path.resolve(p);
    if (!fs.existsSync(root) || !fs.statSync(root).isDirectory()) throw new Error(`not a folder: ${p}`);
    targets.push({ target: { label: p, root }, info: [] });
  }
  for (const { target, info } of targets) {
    process.stdout.write(`== ${target.label}\n   ${target.root}\n${info.map((l) => `   ${l}\n`).join('')}\n`);
    const results = await runTarget(target, sections, options);
    out.targets.push({ label: target.label, root: target.root, info, generator: target.manifest?.generator, sections: results });
  }
  const dir = path.join(os.tmpdir(), 'sextant-bench');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'latest.json');
  fs.writeFileSync(file, JSON.stringify(out, null, 2) + '\n');
  fs.copyFileSync(file, path.join(dir, `bench-${out.startedAt.replace(/[:.]/g, '-')}.json`));
  process.stdout.write(`JSON: ${file}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
    setTimeout(() => process.exit(code), 100).unref();
  },
  (e) => {
    process.stderr.write(`bench failed: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  },
);
