/**
 * The rules that label files as test code (nav/testLabels.ts): naming conventions, test folders,
 * test-framework imports, and the project model (test packages, test-only tsconfig programs,
 * C# test projects).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import type { ProjectGraph, ProjectNode } from '../../../server/src/projects/ProjectGraph';
import { importsTestFramework, isTestByProjects, isTestFile, isTestPath } from '../../../server/src/nav/testLabels';

function node(id: string, kind: ProjectNode['kind'], isTest: boolean): ProjectNode {
  return { id, path: id, name: id, kind, isTest, targetFrameworks: [], status: 'complete', reasons: [], fileCount: 0 };
}

function graph(projects: ProjectNode[], files: Record<string, string[]>): ProjectGraph {
  return { root: '/w', projects, edges: [], solutions: [], files: new Map(Object.entries(files).map(([f, ps]) => [f, ps.map((project) => ({ project }))])), buildMs: 0 };
}

describe('test labelling rules', () => {
  it('*.test.* and *.spec.* files are tests, whatever the folder', () => {
    for (const p of ['src/client.test.ts', 'packages/core/src/client.spec.tsx', 'lib/a.test.mjs', 'app/app.e2e-spec.ts', 'x/y.spec.cjs']) assert.equal(isTestPath(p), true, p);
  });

  it('files under test/, tests/ and __tests__/ are tests', () => {
    for (const p of ['test/e2e/client.ts', 'packages/util/tests/helpers.ts', 'packages/core/src/__tests__/a.ts', 'Test/x.ts']) assert.equal(isTestPath(p), true, p);
  });

  it('source files with test-like words in their names are not', () => {
    for (const p of ['src/testing-library.ts', 'src/latest.ts', 'src/contest/entry.ts', 'src/spec.ts', 'src/protest.test-data.json', 'packages/test-utils/src/index.ts', 'src/attestation.ts']) assert.equal(isTestPath(p), false, p);
  });

  it('a file importing mocha, jest, vitest, node:test or playwright test is a test', () => {
    assert.equal(importsTestFramework(`import { describe, it } from 'vitest';\n`), true);
    assert.equal(importsTestFramework(`import test from "node:test";`), true);
    assert.equal(importsTestFramework(`const { expect } = require('@jest/globals');`), true);
    assert.equal(importsTestFramework(`import { test, expect } from '@playwright/test';`), true);
    assert.equal(importsTestFramework(`import 'mocha';`), true);
    assert.equal(importsTestFramework(`const m = await import('jest');`), true);
    assert.equal(importsTestFramework(`import { defineConfig } from 'vitest/config';`), true);
  });

  it('imports of other packages, or the names in prose, do not make a test', () => {
    assert.equal(importsTestFramework(`import { chromium } from 'playwright';`), false);
    assert.equal(importsTestFramework(`import { mochaReporter } from './mocha-reporter';`), false);
    assert.equal(importsTestFramework(`// we used to run this with jest\nexport const x = 'vitest';`), false);
    assert.equal(importsTestFramework(`import { jestLike } from 'jest-like';`), false);
  });

  it('a file of a test package, or only of test tsconfig programs, is a test', () => {
    const g = graph(
      [node('test/e2e/package.json', 'node', true), node('packages/core/package.json', 'node', false), node('packages/core/tsconfig.json', 'tsconfig', false), node('test/e2e/tsconfig.json', 'tsconfig', true), node('tsconfig.test.json', 'tsconfig', true)],
      {
        'test/e2e/client.ts': ['test/e2e/package.json', 'test/e2e/tsconfig.json'],
        'packages/core/src/a.ts': ['packages/core/package.json', 'packages/core/tsconfig.json', 'tsconfig.test.json'],
        'e2e-only/b.ts': ['test/e2e/tsconfig.json'],
      },
    );
    assert.equal(isTestByProjects(g, 'test/e2e/client.ts'), true);
    assert.equal(isTestByProjects(g, 'e2e-only/b.ts'), true, 'only a test program includes it');
    assert.equal(isTestByProjects(g, 'packages/core/src/a.ts'), false, 'a production program includes it too');
    assert.equal(isTestByProjects(g, 'unknown.ts'), false);
    assert.equal(isTestByProjects(undefined, 'test/e2e/client.ts'), false);
  });

  it('a C# file of a test project is a test (its primary project decides)', () => {
    const g = graph([node('tests/A.Tests/A.Tests.csproj', 'csharp', true), node('src/A/A.csproj', 'csharp', false)], { 'shared/Link.cs': ['src/A/A.csproj', 'tests/A.Tests/A.Tests.csproj'] });
    assert.equal(isTestByProjects(g, 'shared/Link.cs', 'tests/A.Tests/A.Tests.csproj'), true);
    assert.equal(isTestByProjects(g, 'shared/Link.cs', 'src/A/A.csproj'), false);
  });

  it('on a real engine every rule labels its file, and plain source stays production', async function () {
    this.timeout(60_000);
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-testlabels-')));
    const files: Record<string, string> = {
      'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n  - 'e2e'\n",
      'package.json': JSON.stringify({ name: 'root', private: true }),
      'packages/core/package.json': JSON.stringify({ name: '@x/core' }),
      'packages/core/tsconfig.json': JSON.stringify({ include: ['src'] }),
      'packages/core/src/client.ts': 'export function connect() { return 1; }\n',
      'packages/core/src/client.spec.ts': "import { connect } from './client';\nconnect();\n",
      'packages/core/src/__tests__/helpers.ts': 'export const h = 1;\n',
      'packages/core/src/checks.ts': "import { describe, it } from 'vitest';\ndescribe('x', () => it('y', () => undefined));\n",
      'packages/core/src/runner.mjs': "import test from 'node:test';\ntest('x', () => undefined);\n",
      'packages/core/src/pw.ts': "import { test } from '@playwright/test';\ntest('x', async () => undefined);\n",
      'packages/core/src/mochaSetup.js': "const mocha = require('mocha');\nmodule.exports = mocha;\n",
      'packages/core/src/jestish.ts': "import { expect } from '@jest/globals';\nexpect(1).toBe(1);\n",
      'packages/core/src/latest.ts': "import { chromium } from 'playwright';\nexport const latest = chromium;\n",
      'e2e/package.json': JSON.stringify({ name: 'e2e-tests' }),
      'e2e/tsconfig.json': JSON.stringify({ include: ['.'] }),
      'e2e/flows/flow.ts': "import { connect } from '../../packages/core/src/client';\nconnect();\n",
      'tests/fixtures/data.ts': 'export const d = 1;\n',
    };
    for (const [rel, text] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    const engine = await Engine.open({ workspaceRoot: root, indexRoot: '' });
    try {
      await engine.refresh();
      const label = (p: string) => isTestFile(engine, p);
      const expected: Record<string, boolean> = {
        'packages/core/src/client.ts': false,
        'packages/core/src/latest.ts': false,
        'packages/core/src/client.spec.ts': true, // *.spec.*
        'packages/core/src/__tests__/helpers.ts': true, // __tests__/
        'tests/fixtures/data.ts': true, // tests/
        'packages/core/src/checks.ts': true, // imports vitest
        'packages/core/src/runner.mjs': true, // imports node:test
        'packages/core/src/pw.ts': true, // imports @playwright/test
        'packages/core/src/mochaSetup.js': true, // requires mocha
        'packages/core/src/jestish.ts': true, // imports @jest/globals
      };
      for (const [p, want] of Object.entries(expected)) assert.equal(label(p), want, p);
      // e2e/flows/flow.ts has no test name, folder or import: the project model labels it (the e2e package is a test package).
      assert.equal(label('e2e/flows/flow.ts'), true);
    } finally {
      await engine.close();
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
