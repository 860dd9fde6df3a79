/**
 * Ready-to-paste configurations that attach an external agent to the engine's shared endpoint
 * (the same engine, index and warm language services Copilot uses), or that start
 * `sextant mcp` over stdio (which attaches to the running shared engine for that root).
 * Pure functions: unit-tested without VS Code.
 */

export type AgentKind = 'claude-code' | 'codex' | 'cursor' | 'vscode-mcp-json' | 'stdio';

export interface ConfigInput {
  /** Server name in the agent's config. */
  name: string;
  /** `http://127.0.0.1:PORT/mcp`, when the engine's HTTP endpoint runs. */
  url?: string;
  token?: string;
  /** For stdio: the node binary and the CLI script. */
  node: string;
  cli: string;
  workspaceRoot: string;
  /** The engine's index root when it is not `<workspace>/.sextant` (the extension keeps it in workspace storage). */
  indexRoot?: string;
}

export interface AgentConfig {
  kind: AgentKind;
  label: string;
  /** What to paste (a shell command or a JSON/TOML snippet). */
  text: string;
  /** Where it goes. */
  where: string;
}

const q = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export function agentConfigs(i: ConfigInput): AgentConfig[] {
  const out: AgentConfig[] = [];
  if (i.url && i.token) {
    const auth = `Bearer ${i.token}`;
    out.push({
      kind: 'claude-code',
      label: 'Claude Code (HTTP, shared engine)',
      where: 'run in a terminal',
      text: `claude mcp add --transport http ${q(i.name)} ${q(i.url)} --header ${q(`Authorization: ${auth}`)}`,
    });
    out.push({
      kind: 'codex',
      label: 'Codex (HTTP, shared engine)',
      where: '~/.codex/config.toml',
      text: [`[mcp_servers.${i.name}]`, `url = ${JSON.stringify(i.url)}`, `http_headers = { Authorization = ${JSON.stringify(auth)} }`].join('\n'),
    });
    out.push({
      kind: 'cursor',
      label: 'Cursor (HTTP, shared engine)',
      where: '.cursor/mcp.json',
      text: JSON.stringify({ mcpServers: { [i.name]: { url: i.url, headers: { Authorization: auth } } } }, null, 2),
    });
    out.push({
      kind: 'vscode-mcp-json',
      label: 'VS Code .vscode/mcp.json (HTTP, shared engine)',
      where: '.vscode/mcp.json (not needed in this window: the extension provides the server)',
      text: JSON.stringify({ servers: { [i.name]: { type: 'http', url: i.url, headers: { Authorization: auth } } } }, null, 2),
    });
  }
  out.push({
    kind: 'stdio',
    label: 'Any MCP client over stdio (sextant mcp attaches to this window\'s engine)',
    where: 'the client\'s MCP server command',
    text: `claude mcp add ${q(i.name)} -- ${[i.node, i.cli, 'mcp', '--workspace-root', i.workspaceRoot, ...(i.indexRoot ? ['--index-root', i.indexRoot] : [])].map(q).join(' ')}`,
  });
  return out;
}
