/**
 * The rules that label files as test code (nav/testLabels.ts): naming conventions, test folders,
 * test-framework imports, and the project model (test packages, test-only tsconfig programs,
 * C# test projects).
 */
import * as assert from 'node:assert/strict';
import type { ProjectGraph, ProjectNode } from '../../../server/src/projects/ProjectGraph';
import { importsTestFramework, isTestByProjects, isTestPath } from '../../../server/src/nav/testLabels';

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
});
