/**
 * Unit tests of context_pack's and locate_code's own logic: the config keys a span reads, the
 * locator's expiry and signature (a fake clock: 15 minutes are not waited for), the layer file.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LOCATE_LOCATOR_TTL_MS } from '../../../server/src/core/limits';
import { configKeys } from '../../../server/src/nav/agent/contextPack';
import { openLocator, sealLocator, type LocatorState } from '../../../server/src/nav/agent/locate';
import { architectureMap } from '../../../server/src/nav/agent/locateMap';
import { Engine } from '../../../server/src/nav/engine';

describe('context_pack: config keys read by a span', () => {
  it('finds colon paths, configuration calls and environment variables, at most four', () => {
    const text = [
      'var retry = builder.Configuration.GetValue<int>("Billing:Journal:RetryCount");',
      'var cs = config.GetConnectionString("Main");',
      'const port = process.env.PORT ?? process.env["HOST_NAME"];',
      'var x = Environment.GetEnvironmentVariable("ACME_HOME");',
    ].join('\n');
    assert.deepEqual(configKeys(text), [
      { key: 'Billing:Journal:RetryCount', env: false },
      { key: 'Main', env: false },
      { key: 'PORT', env: true },
      { key: 'HOST_NAME', env: true },
    ]);
    assert.deepEqual(configKeys('return a + b; // "not a key"'), []);
  });
});

describe('locate_code: locators and the layer file', () => {
  let root: string;
  let idx: string;
  let engine: Engine;

  before(async () => {
    root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-locate-unit-')));
    idx = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-locate-unit-idx-'));
    fs.mkdirSync(path.join(root, 'src/adapters/inbound'), { recursive: true });
    fs.mkdirSync(path.join(root, 'src/domain'), { recursive: true });
    fs.writeFileSync(path.join(root, 'src/adapters/inbound/routes.ts'), 'export function orderRoute() { return 1; }\n');
    fs.writeFileSync(path.join(root, 'src/domain/policy.ts'), 'export class OrderPolicy {}\n');
    fs.writeFileSync(
      path.join(root, 'sextant.layers.json'),
      JSON.stringify({ layers: [{ id: 'inbound', paths: ['src/adapters/inbound'], keywords: ['route', 'request'] }, { id: 'domain', paths: ['src/domain'], keywords: ['policy'] }] }),
    );
    engine = await Engine.open({ workspaceRoot: root, indexRoot: idx });
    await engine.refresh();
  });

  after(async () => {
    await engine?.close();
    fs.rmSync(root, { recursive: true, force: true });
    fs.rmSync(idx, { recursive: true, force: true });
  });

  const state = (t: number): LocatorState => ({ v: engine.version, t, q: 'order route', h: [], r: 0, s: 'x', c: [['orderRoute', 'function', 'src/adapters/inbound/routes.ts', 1, 1, 'inbound']] });

  it('a locator opens until it is 15 minutes old, then is STALE_LOCATOR', () => {
    const now = Date.now();
    assert.equal(openLocator(engine, sealLocator(state(now - LOCATE_LOCATOR_TTL_MS + 1000))).q, 'order route');
    assert.throws(() => openLocator(engine, sealLocator(state(now - LOCATE_LOCATOR_TTL_MS - 1000))), (e: Error & { code?: string }) => e.code === 'STALE_LOCATOR' && /expired/.test(e.message));
  });

  it('an altered locator is STALE_LOCATOR', () => {
    const l = sealLocator(state(Date.now()));
    const [body, mac] = l.split('.');
    const other = Buffer.from(JSON.stringify({ ...state(Date.now()), r: -5 })).toString('base64url');
    assert.throws(() => openLocator(engine, `${other}.${mac}`), (e: Error & { code?: string }) => e.code === 'STALE_LOCATOR');
    assert.throws(() => openLocator(engine, `${body}.${mac!.slice(0, -2)}`), (e: Error & { code?: string }) => e.code === 'STALE_LOCATOR');
  });

  it('the workspace layer file overrides the inferred map', () => {
    const m = architectureMap(engine);
    assert.equal(m.source, 'file');
    assert.deepEqual(m.layers.map((l) => [l.id, l.globs, l.keywords]), [
      ['inbound', ['src/adapters/inbound/**'], ['inbound', 'route', 'request']],
      ['domain', ['src/domain/**'], ['domain', 'policy']],
    ]);
  });
});
