/**
 * ModuleResolver's rules on an in-memory file set (unit test of our own logic; the whole path —
 * parse, index, resolve, MCP — is test/e2e/fileDependencies.test.ts, and agreement with tsc on a
 * real repository is test/integration/dependencies/tscAgreement.test.ts).
 */
import * as assert from 'node:assert/strict';
import { ModuleResolver, type Resolution } from '../../../server/src/nav/moduleResolver';

function resolverOver(files: Record<string, string>, outside: string[] = []): (spec: string, from: string) => Resolution {
  const r = new ModuleResolver(
    {
      has: (rel) => rel in files,
      read: (rel) => files[rel],
      inside: (rel) => !outside.some((o) => rel === o || rel.startsWith(o + '/')),
      root: '/ws',
    },
    () => Object.keys(files),
  );
  return (spec, from) => r.resolve(spec, from);
}

const file = (path: string): Resolution => ({ kind: 'file', path });
const unresolved = (reason: 'not_found' | 'invalid' | 'outside_workspace'): Resolution => ({ kind: 'unresolved', reason });

describe('file_dependencies: module resolution rules', function () {
  it('tsconfig extends (relative and a workspace package): baseUrl and paths inherited, paths replaced, their base', function () {
    const resolve = resolverOver({
      'common/tsconfig/package.json': '{ "name": "@acme/tsconfig" }',
      'common/tsconfig/tsconfig.json': '{ "compilerOptions": { "paths": { "#base/*": ["base/*"] } } }',
      'common/tsconfig/base/x.ts': '',
      'app/tsconfig.base.json': '{ "extends": "@acme/tsconfig", "compilerOptions": { "baseUrl": "./src" } }',
      'app/tsconfig.json': '{ "extends": "./tsconfig.base" }',
      'app/src/feature/a.ts': '',
      'app/src/base/x.ts': '',
      'app/src/main.ts': '',
      'lib/tsconfig.json': '{ "extends": "@acme/tsconfig", "compilerOptions": { "paths": { "@own/*": ["./own/*"] } } }',
      'lib/own/b.ts': '',
      'lib/index.ts': '',
      'tool/tsconfig.json': '{ "extends": "@acme/tsconfig" }',
      'tool/t.ts': '',
    });
    assert.deepEqual(resolve('feature/a', 'app/src/main.ts'), file('app/src/feature/a.ts')); // baseUrl through a relative extends
    assert.deepEqual(resolve('#base/x', 'app/src/main.ts'), file('app/src/base/x.ts')); // inherited paths, relative to the baseUrl in force
    assert.deepEqual(resolve('#base/x', 'tool/t.ts'), file('common/tsconfig/base/x.ts')); // no baseUrl: relative to the config declaring them
    assert.deepEqual(resolve('@own/b', 'lib/index.ts'), file('lib/own/b.ts'));
    assert.deepEqual(resolve('#base/x', 'lib/index.ts'), unresolved('not_found')); // replaced, not merged (and no package.json imports)
  });

  it('the longest paths pattern decides; a target through node_modules/<workspace package> is that package', function () {
    const resolve = resolverOver({
      'tsconfig.json': '{ "compilerOptions": { "paths": { "*": ["./*"], "@acme/core/internal": ["./node_modules/@acme/core/src/internal.ts"] } } }',
      'core/package.json': '{ "name": "@acme/core", "exports": { ".": "./dist/index.js" } }',
      'core/src/internal.ts': '',
      'src/a.ts': '',
      'local.ts': '',
    });
    assert.deepEqual(resolve('@acme/core/internal', 'src/a.ts'), file('core/src/internal.ts'));
    assert.deepEqual(resolve('local', 'src/a.ts'), file('local.ts')); // "*": ["./*"]
    assert.deepEqual(resolve('zod', 'src/a.ts'), { kind: 'package' }); // "*" matched, no target: falls through to packages
    assert.deepEqual(resolve('@acme/core', 'src/a.ts'), unresolved('not_found')); // exports into an unbuilt dist
  });

  it('exports: conditions in listed order, first target that is a workspace file; patterns; a target leaving the workspace', function () {
    const resolve = resolverOver({
      'p/package.json': JSON.stringify({
        name: 'p',
        exports: {
          '.': { types: './dist/index.d.ts', require: './src/index.cjs', import: './src/index.js' },
          './features/*': { default: './src/features/*.js' },
          './escape': './../../outside.js',
          './browser': { browser: './src/browser.js' },
        },
      }),
      'p/src/index.cts': '',
      'p/src/index.ts': '',
      'p/src/features/x.ts': '',
      'a.ts': '',
    });
    assert.deepEqual(resolve('p', 'a.ts'), file('p/src/index.cts')); // require listed before import: its .cjs → .cts
    assert.deepEqual(resolve('p/features/x', 'a.ts'), file('p/src/features/x.ts'));
    assert.deepEqual(resolve('p/escape', 'a.ts'), unresolved('outside_workspace'));
    assert.deepEqual(resolve('p/browser', 'a.ts'), unresolved('not_found')); // no accepted condition
    assert.deepEqual(resolve('p/nope', 'a.ts'), unresolved('not_found'));
  });

  it('relative specifiers: TS prefers the source, JS what Node.js loads; folders; suffixes; leaving the workspace', function () {
    const resolve = resolverOver({
      'src/a.ts': '',
      'src/a.js': '',
      'src/lib/package.json': '{ "main": "./main.js", "types": "./types.d.ts" }',
      'src/lib/main.js': '',
      'src/lib/types.d.ts': '',
      'src/dir/index.tsx': '',
      'src/style.css': '',
      'src/m.ts': '',
      'src/m.js': '',
    }, ['src/link']);
    assert.deepEqual(resolve('./a.js', 'src/m.ts'), file('src/a.ts'));
    assert.deepEqual(resolve('./a.js', 'src/m.js'), file('src/a.js'));
    assert.deepEqual(resolve('./a', 'src/m.js'), file('src/a.js'));
    assert.deepEqual(resolve('./lib', 'src/m.ts'), file('src/lib/types.d.ts')); // TS: types before main
    assert.deepEqual(resolve('./lib', 'src/m.js'), file('src/lib/main.js'));
    assert.deepEqual(resolve('./dir/', 'src/m.ts'), file('src/dir/index.tsx'));
    assert.deepEqual(resolve('./style.css?inline', 'src/m.ts'), file('src/style.css'));
    assert.deepEqual(resolve('../../x', 'src/m.ts'), unresolved('outside_workspace'));
    assert.deepEqual(resolve('./link/x.js', 'src/m.ts'), unresolved('outside_workspace')); // the policy says the link leads out
    assert.deepEqual(resolve('file:///ws/src/a.js', 'src/m.ts'), file('src/a.ts'));
    assert.deepEqual(resolve('file:///elsewhere/a.js', 'src/m.ts'), unresolved('outside_workspace'));
    assert.deepEqual(resolve('/ws/src/a', 'src/m.ts'), file('src/a.ts'));
  });

  it('built-ins, packages, package imports (#) and invalid specifiers', function () {
    const resolve = resolverOver({
      'package.json': '{ "name": "root", "imports": { "#db": { "node": "./src/db.js" }, "#ext": "ext-pkg" } }',
      'src/db.ts': '',
      'src/a.ts': '',
    });
    for (const b of ['fs', 'fs/promises', 'node:path', 'node:test']) assert.deepEqual(resolve(b, 'src/a.ts'), { kind: 'builtin' }, b);
    for (const p of ['react', 'react/jsx-runtime', '@scope/pkg/sub', 'npm:left-pad']) assert.deepEqual(resolve(p, 'src/a.ts'), { kind: 'package' }, p);
    assert.deepEqual(resolve('#db', 'src/a.ts'), file('src/db.ts'));
    assert.deepEqual(resolve('#ext', 'src/a.ts'), { kind: 'package' });
    assert.deepEqual(resolve('#nope', 'src/a.ts'), unresolved('not_found'));
    for (const bad of ['', '   ', 'https://cdn.example/x.js', 'data:text/javascript,1', '@scope']) assert.deepEqual(resolve(bad, 'src/a.ts'), unresolved('invalid'), bad);
  });
});
