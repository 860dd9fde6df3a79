import { strict as assert } from 'node:assert';
import * as path from 'node:path';
import { buildProjectGraph, buildProjectGraphAsync } from '../../../server/src/projects/buildProjectGraph';
import { graphWorkspace, sdkProject } from './graphWorkspace';

const FIXTURE = path.resolve(__dirname, '../../fixtures/projects/tricky');

describe('projects: solutions', () => {
  it('.sln nested solution folders, project type GUIDs, unsupported and missing entries', () => {
    const listing = require('node:fs').readdirSync(FIXTURE, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[];
    const files = listing.filter((d) => d.isFile()).map((d) => path.relative(FIXTURE, path.join(d.parentPath, d.name)).split(path.sep).join('/'));
    const g = buildProjectGraph({ root: FIXTURE, files });
    const sln = g.solutions.find((s) => s.path === 'Tricky.sln')!;
    assert.equal(sln.kind, 'sln');
    const folder = (p: string) => g.edges.find((e) => e.kind === 'solutionMembership' && e.from === 'Tricky.sln' && e.to === p)?.folder;
    assert.equal(folder('src/Core/Core.csproj'), 'src/libraries');
    assert.equal(folder('src/Legacy/Legacy.csproj'), 'src');
    assert.equal(folder('tests/Core.Tests/Core.Tests.csproj'), 'tests');
    assert.ok(sln.reasons.some((r) => r.startsWith("'NativeLib' (native\\NativeLib.vcxproj) has a project type this model does not read")));
    assert.ok(sln.reasons.includes('lists missing project src/Gone/Gone.csproj'));

    const slnx = g.solutions.find((s) => s.path === 'Tricky.slnx')!;
    assert.equal(slnx.status, 'complete');
    assert.deepEqual(slnx.projects, ['src/Core/Core.csproj', 'src/Multi/Multi.csproj', 'src/Web/Web.csproj', 'src/UsesShared/UsesShared.csproj', 'tests/Core.Tests/Core.Tests.csproj']);
    assert.equal(g.edges.find((e) => e.from === 'Tricky.slnx' && e.to === 'src/Web/Web.csproj')?.folder, 'src');

    const slnf = g.solutions.find((s) => s.path === 'Tricky.Core.slnf')!;
    assert.equal(slnf.baseSolution, 'Tricky.sln');
    assert.deepEqual(slnf.projects, ['src/Core/Core.csproj', 'tests/Core.Tests/Core.Tests.csproj']);
  });

  it('a .slnf and .sln saved with a UTF-8 byte order mark (as Visual Studio saves them) list their projects', () => {
    const bom = '\uFEFF';
    const ws = graphWorkspace({
      'All.sln': `${bom}\r\nMicrosoft Visual Studio Solution File, Format Version 12.00\r\nProject("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "A", "src\\A\\A.csproj", "{11111111-1111-1111-1111-111111111111}"\r\nEndProject\r\nProject("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "B", "src\\B\\B.csproj", "{22222222-2222-2222-2222-222222222222}"\r\nEndProject\r\n`,
      'All.A.slnf': `${bom}{\r\n  "solution": {\r\n    "path": "All.sln",\r\n    "projects": [\r\n      "src\\\\A\\\\A.csproj"\r\n    ]\r\n  }\r\n}`,
      'src/A/A.csproj': bom + sdkProject(),
      'src/B/B.csproj': sdkProject(),
    });
    try {
      const slnf = ws.graph.solutions.find((s) => s.path === 'All.A.slnf')!;
      assert.deepEqual([slnf.status, slnf.projects, slnf.reasons], ['complete', ['src/A/A.csproj'], []]);
      assert.deepEqual(ws.graph.solutions.find((s) => s.path === 'All.sln')!.projects, ['src/A/A.csproj', 'src/B/B.csproj']);
      assert.equal(ws.project('src/A/A.csproj').status, 'complete');
    } finally {
      ws.dispose();
    }
  });

  it('the async build (yielding to the event loop) gives the same graph as the sync one', async () => {
    const listing = require('node:fs').readdirSync(FIXTURE, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[];
    const files = listing.filter((d) => d.isFile()).map((d) => path.relative(FIXTURE, path.join(d.parentPath, d.name)).split(path.sep).join('/'));
    const a = buildProjectGraph({ root: FIXTURE, files });
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    const b = await buildProjectGraphAsync({ root: FIXTURE, files }, 0);
    clearInterval(timer);
    assert.deepEqual({ ...b, buildMs: 0 }, { ...a, buildMs: 0 });
    assert.ok(ticks > 0, 'the event loop ran during the build');
  });

  it('a workspace with no solution still has every project', () => {
    const ws = graphWorkspace({ 'A/A.csproj': sdkProject(), 'B/B.csproj': sdkProject() });
    try {
      assert.equal(ws.graph.solutions.length, 0);
      assert.deepEqual(ws.graph.projects.map((p) => p.id).sort(), ['A/A.csproj', 'B/B.csproj']);
    } finally {
      ws.dispose();
    }
  });
});

describe('projects: Node workspaces and tsconfig', () => {
  it('package.json workspaces: members, references between them, external packages', () => {
    const ws = graphWorkspace({
      'package.json': JSON.stringify({ name: 'mono', private: true, workspaces: ['packages/*', '!packages/ignored'] }),
      'packages/core/package.json': JSON.stringify({ name: '@acme/core', dependencies: { lodash: '^4.17.21' } }),
      'packages/core/src/index.ts': 'export const x = 1;',
      'packages/app/package.json': JSON.stringify({ name: '@acme/app', dependencies: { '@acme/core': 'workspace:*' }, devDependencies: { typescript: '^5' } }),
      'packages/app/src/main.ts': 'import { x } from "@acme/core";',
      'packages/app/test/main.test.ts': '',
      'packages/ignored/package.json': JSON.stringify({ name: '@acme/ignored' }),
    });
    try {
      const e = (from: string) => ws.graph.edges.filter((x) => x.from === from).map((x) => `${x.kind}:${x.to}`).sort();
      assert.deepEqual(e('packages/app/package.json'), ['packageReference:package:typescript', 'projectReference:packages/core/package.json']);
      assert.deepEqual(e('package.json'), ['projectReference:packages/app/package.json', 'projectReference:packages/core/package.json']);
      assert.deepEqual(ws.files('packages/app/package.json'), ['packages/app/src/main.ts', 'packages/app/test/main.test.ts']);
      assert.equal(ws.project('packages/core/package.json').name, '@acme/core');
      assert.equal(ws.project('packages/core/package.json').kind, 'node');
    } finally {
      ws.dispose();
    }
  });

  it('workspaces in a folder discovery left out (default-excluded packages/) are reported, not silently empty', () => {
    const ws = graphWorkspace({
      'package.json': JSON.stringify({ name: 'mono', workspaces: ['packages/*'] }),
      'packages/a/package.json': JSON.stringify({ name: 'a' }),
    });
    try {
      const g = buildProjectGraph({ root: ws.root, files: ['package.json'] });
      const root = g.projects.find((p) => p.id === 'package.json')!;
      assert.equal(root.status, 'partial');
      assert.match(root.reasons[0]!, /workspace pattern 'packages\/\*' points into packages\/, which exists but is not indexed/);
    } finally {
      ws.dispose();
    }
  });

  it('tsconfig with comments, trailing commas, extends, include/exclude and references', () => {
    const ws = graphWorkspace({
      'tsconfig.base.json': '{\n  // shared options\n  "compilerOptions": { "strict": true, "outDir": "dist", },\n  "exclude": ["**/*.spec.ts"],\n}',
      'web/tsconfig.json': '{ "extends": "../tsconfig.base.json", "include": ["src"], "references": [{ "path": "../lib" }] }',
      'web/src/a.ts': '',
      'web/src/b.tsx': '',
      'web/src/a.spec.ts': '',
      'web/src/legacy.js': '',
      'web/other/c.ts': '',
      'lib/tsconfig.json': '{ "compilerOptions": { "allowJs": true, "outDir": "out" } }',
      'lib/x.ts': '',
      'lib/y.js': '',
      'lib/out/x.js': '',
      'lib/node_modules/dep/index.ts': '',
    });
    try {
      const web = ws.project('web/tsconfig.json');
      assert.equal(web.kind, 'tsconfig');
      assert.equal(web.status, 'complete', web.reasons.join('; '));
      assert.deepEqual(ws.files('web/tsconfig.json'), ['web/src/a.ts', 'web/src/b.tsx']);
      assert.deepEqual(ws.files('lib/tsconfig.json'), ['lib/x.ts', 'lib/y.js']);
      assert.ok(ws.graph.edges.some((e) => e.kind === 'projectReference' && e.from === 'web/tsconfig.json' && e.to === 'lib/tsconfig.json'));
    } finally {
      ws.dispose();
    }
  });

  it('a tsconfig extending a package that is not in the workspace is partial', () => {
    const ws = graphWorkspace({ 'tsconfig.json': '{ "extends": "@tsconfig/node20/tsconfig.json" }', 'a.ts': '' });
    try {
      const t = ws.project('tsconfig.json');
      assert.equal(t.status, 'partial');
      assert.deepEqual(t.reasons, ["extends '@tsconfig/node20/tsconfig.json' is not a workspace file; not read"]);
    } finally {
      ws.dispose();
    }
  });
});
