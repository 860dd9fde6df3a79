import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as limits from '../../../server/src/core/limits';
import { COMMANDS, EXTENSION_ID, MCP_PROVIDER_ID, SETTINGS, VIEW_CONTAINER, VIEWS } from '../../../src/ids';

const root = path.resolve(__dirname, '../../..');

interface ConfigProperty {
  type: string;
  default: unknown;
  minimum?: number;
  maximum?: number;
}
interface Manifest {
  name: string;
  publisher: string;
  main: string;
  icon: string;
  engines: { vscode: string };
  activationEvents: string[];
  devDependencies: Record<string, string>;
  contributes: {
    mcpServerDefinitionProviders: { id: string; label: string }[];
    commands: { command: string; title: string; category: string }[];
    viewsContainers: { activitybar: { id: string; icon: string }[] };
    views: Record<string, { id: string; name: string }[]>;
    configuration: { properties: Record<string, ConfigProperty> };
  };
}
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as Manifest;
const setting = (key: string): ConfigProperty => {
  const p = manifest.contributes.configuration.properties[`sextant.${key}`];
  assert.ok(p, `package.json has no setting sextant.${key}`);
  return p;
};
const minor = (range: string): number => Number(/^\^?1\.(\d+)\./.exec(range)?.[1] ?? NaN);

describe('extension manifest (package.json)', () => {
  it('setting defaults equal the engine limits in server/src/core/limits.ts', () => {
    assert.equal(setting(SETTINGS.maxFileBytes).default, limits.MAX_FILE_BYTES);
    assert.equal(setting(SETTINGS.responseBytes).default, limits.DEFAULT_RESPONSE_BYTES);
    assert.equal(setting(SETTINGS.responseBytes).maximum, limits.MAX_RESPONSE_BYTES);
    assert.equal(setting(SETTINGS.itemLimit).default, limits.DEFAULT_ITEM_LIMIT);
    assert.equal(setting(SETTINGS.itemLimit).maximum, limits.MAX_ITEM_LIMIT);
    assert.equal(setting(SETTINGS.toolDeadlineMs).default, limits.TOOL_DEADLINE_MS);
    assert.equal(setting(SETTINGS.restore).default, limits.RESTORE_IN_TRUSTED_WORKSPACE_DEFAULT);
  });

  it('every setting the extension reads is declared, and every declared setting is read', () => {
    const declared = Object.keys(manifest.contributes.configuration.properties).sort();
    const read = Object.values(SETTINGS).map((k) => `sextant.${k}`).sort();
    assert.deepEqual(declared, read);
  });

  it('requires the VS Code version that finalised lm.registerMcpServerDefinitionProvider (1.101)', () => {
    assert.ok(minor(manifest.engines.vscode) >= 101, manifest.engines.vscode);
    // vsce refuses a package whose @types/vscode is newer than engines.vscode.
    assert.ok(minor(manifest.devDependencies['@types/vscode'] ?? '') <= minor(manifest.engines.vscode));
  });

  it('declares the MCP server definition provider the extension registers', () => {
    assert.deepEqual(manifest.contributes.mcpServerDefinitionProviders.map((p) => p.id), [MCP_PROVIDER_ID]);
    assert.equal(`${manifest.publisher}.${manifest.name}`, EXTENSION_ID);
  });

  it('activates on C# and TypeScript workspaces', () => {
    for (const e of ['workspaceContains:**/*.{csproj,sln,slnx}', 'workspaceContains:**/tsconfig.json', 'workspaceContains:**/package.json']) {
      assert.ok(manifest.activationEvents.includes(e), `missing activation event ${e}`);
    }
  });

  it('contributes exactly the commands the extension registers, each in the Sextant category', () => {
    const declared = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(declared, Object.values(COMMANDS).sort());
    for (const c of manifest.contributes.commands) assert.equal(c.category, 'Sextant', c.command);
  });

  it('has a Sextant view container with the Projects, Index and Agent activity views', () => {
    const container = manifest.contributes.viewsContainers.activitybar.find((c) => c.id === VIEW_CONTAINER);
    assert.ok(container);
    assert.ok(fs.existsSync(path.join(root, container.icon)), container.icon);
    assert.deepEqual(
      (manifest.contributes.views[VIEW_CONTAINER] ?? []).map((v) => v.id),
      [VIEWS.projects, VIEWS.index, VIEWS.activity],
    );
  });

  it('points at files that exist or that the build produces', () => {
    assert.equal(manifest.main, './dist/extension.js');
    assert.ok(fs.existsSync(path.join(root, manifest.icon)), manifest.icon);
  });
});
