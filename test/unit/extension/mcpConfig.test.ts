import * as assert from 'node:assert/strict';
import { agentConfigs } from '../../../src/mcp/mcpConfig';

const base = { name: 'sextant', node: 'node', cli: '/opt/ext/dist/cli.js', workspaceRoot: '/home/me/My Repo' };
const token = 'a'.repeat(64);

describe('MCP config for external agents', () => {
  it('with the HTTP endpoint up, offers Claude Code, Codex, Cursor, .vscode/mcp.json and stdio', () => {
    const c = agentConfigs({ ...base, url: 'http://127.0.0.1:43123/mcp', token });
    assert.deepEqual(c.map((x) => x.kind), ['claude-code', 'codex', 'cursor', 'vscode-mcp-json', 'stdio']);
    assert.equal(
      c[0]!.text,
      `claude mcp add --transport http sextant http://127.0.0.1:43123/mcp --header 'Authorization: Bearer ${token}'`,
    );
    assert.equal(c[1]!.text, `[mcp_servers.sextant]\nurl = "http://127.0.0.1:43123/mcp"\nhttp_headers = { Authorization = "Bearer ${token}" }`);
    assert.deepEqual(JSON.parse(c[2]!.text), { mcpServers: { sextant: { url: 'http://127.0.0.1:43123/mcp', headers: { Authorization: `Bearer ${token}` } } } });
    assert.deepEqual(JSON.parse(c[3]!.text), { servers: { sextant: { type: 'http', url: 'http://127.0.0.1:43123/mcp', headers: { Authorization: `Bearer ${token}` } } } });
  });

  it('stdio config quotes a workspace path with spaces for the shell', () => {
    const c = agentConfigs(base);
    assert.deepEqual(c.map((x) => x.kind), ['stdio']);
    assert.equal(c[0]!.text, `claude mcp add sextant -- node /opt/ext/dist/cli.js mcp --workspace-root '/home/me/My Repo'`);
  });

  it("stdio config names the extension's index root so sextant mcp attaches to the same engine", () => {
    const c = agentConfigs({ ...base, indexRoot: '/home/me/.config/Code/User/workspaceStorage/ab12/sextant.sextant/index-0f3c' });
    assert.equal(
      c[0]!.text,
      `claude mcp add sextant -- node /opt/ext/dist/cli.js mcp --workspace-root '/home/me/My Repo' --index-root /home/me/.config/Code/User/workspaceStorage/ab12/sextant.sextant/index-0f3c`,
    );
  });
});
