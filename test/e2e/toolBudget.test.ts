/**
 * Tool definitions and instructions stay within their budgets, measured on the real tools/list and
 * initialize answers over stdio (what a client receives), and every published schema is one the
 * SDK client accepts and that the answers validate against (the SDK client checks each
 * structuredContent against the tool's outputSchema on every call).
 */
import * as assert from 'node:assert/strict';
import { CORE_TOOL_DEFINITIONS_MAX_BYTES, CORE_TOOLS_LIST_MAX_BYTES, INSTRUCTIONS_MAX_CHARS, INSTRUCTIONS_SELF_CONTAINED_CHARS, NEW_TOOL_DEFINITION_MAX_BYTES, TOOL_DEFINITIONS_MAX_BYTES, TOOLS_LIST_MAX_BYTES } from '../../server/src/core/limits';
import { WORKFLOW } from '../../server/src/mcp/instructions';
import { call, connectStdio, waitFor, type Connected } from '../helpers/mcpClient';
import { removeDir, smallWorkspace, tempDir, writeTree } from '../helpers/workspace';

const bytes = (v: unknown) => Buffer.byteLength(JSON.stringify(v), 'utf8');

/** The tools that existed when the definitions were trimmed (issue 17); together ≤ CORE_TOOL_DEFINITIONS_MAX_BYTES. Every other tool gets NEW_TOOL_DEFINITION_MAX_BYTES. With file_dependencies, their part of tools/list ≤ CORE_TOOLS_LIST_MAX_BYTES. */
const CORE_TOOLS = new Set([
  'server_capabilities', 'repo_overview', 'find_file', 'search_text', 'source_context', 'outline', 'search_symbol', 'symbol_at',
  'inspect_syntax_tree', 'search_structural', 'definition', 'references', 'implementations', 'callers', 'callees', 'type_hierarchy',
  'project_graph', 'projects_containing', 'dependency_path', 'projects_under', 'namespace_layout', 'config_lookup',
]);

describe('MCP over stdio: tool definition and instruction budgets', function () {
  let ws: string;
  let idx: string;
  let c: Connected;

  before(async function () {
    ws = tempDir('ws');
    idx = tempDir('idx');
    writeTree(ws, smallWorkspace());
    c = await connectStdio(ws, idx);
    await waitFor(async () => (await call(c.client, 'repo_overview', {})).index.status === 'fresh');
  });

  after(async function () {
    await c?.close();
    removeDir(ws);
    removeDir(idx);
  });

  it('tools/list: name + description + inputSchema of all tools and the whole list stay within budget', async function () {
    const list = await c.client.listTools();
    const def = (t: (typeof list.tools)[number]) => bytes({ name: t.name, description: t.description, inputSchema: t.inputSchema });
    const defs = list.tools.reduce((n, t) => n + def(t), 0);
    const core = list.tools.filter((t) => CORE_TOOLS.has(t.name)).reduce((n, t) => n + def(t), 0);
    const whole = bytes(list);
    const output = list.tools.reduce((n, t) => n + bytes(t.outputSchema), 0);
    const older = bytes({ tools: list.tools.filter((t) => CORE_TOOLS.has(t.name) || t.name === 'file_dependencies') });
    console.log(`      tools/list: ${list.tools.length} tools, ${whole} bytes (definitions ${defs}, of them the ${CORE_TOOLS.size} core tools ${core}; output schemas ${output}); the ${CORE_TOOLS.size + 1} tools of issue 17 take ${older} bytes of it`);
    console.log(`      per tool (definition/outputSchema): ${list.tools.map((t) => `${t.name} ${def(t)}/${bytes(t.outputSchema)}`).join(', ')}`);
    assert.ok(list.tools.length >= 22, `only ${list.tools.length} tools listed`);
    assert.deepEqual([...CORE_TOOLS].filter((n) => !list.tools.some((t) => t.name === n)), [], 'a core tool was renamed or removed: update CORE_TOOLS');
    assert.ok(defs <= TOOL_DEFINITIONS_MAX_BYTES, `name+description+inputSchema take ${defs} bytes > ${TOOL_DEFINITIONS_MAX_BYTES}`);
    assert.ok(core <= CORE_TOOL_DEFINITIONS_MAX_BYTES, `the ${CORE_TOOLS.size} core tools' definitions take ${core} bytes > ${CORE_TOOL_DEFINITIONS_MAX_BYTES}: keep them short so new tools fit`);
    for (const t of list.tools.filter((x) => !CORE_TOOLS.has(x.name))) {
      assert.ok(def(t) <= NEW_TOOL_DEFINITION_MAX_BYTES, `${t.name}: name+description+inputSchema take ${def(t)} bytes > ${NEW_TOOL_DEFINITION_MAX_BYTES} (NEW_TOOL_DEFINITION_MAX_BYTES, core/limits.ts): shorten the description, drop parameter descriptions, reuse shared parameters, or add a parameter to an existing tool instead`);
    }
    assert.ok(whole <= TOOLS_LIST_MAX_BYTES, `tools/list takes ${whole} bytes > ${TOOLS_LIST_MAX_BYTES}`);
    assert.ok(older <= CORE_TOOLS_LIST_MAX_BYTES, `the tools of issue 17 take ${older} bytes of tools/list > ${CORE_TOOLS_LIST_MAX_BYTES}: trim their output schemas so new tools fit`);
    for (const t of list.tools) {
      assert.ok(t.description && t.description.length >= 40, `${t.name}: no useful description`);
      assert.ok(t.description.length <= 240, `${t.name}: description of ${t.description.length} chars; say when to use it and what it returns, briefly`);
      assert.equal(JSON.stringify(t).includes('$schema'), false, `${t.name} repeats $schema`);
    }
  });

  it('instructions carry the workflow within budget, the first part self-contained', async function () {
    const text = c.client.getInstructions() ?? '';
    assert.ok(text.length <= INSTRUCTIONS_MAX_CHARS, `instructions are ${text.length} chars`);
    assert.ok(WORKFLOW.length <= INSTRUCTIONS_SELF_CONTAINED_CHARS && text.startsWith(WORKFLOW), 'the workflow is not the self-contained prefix');
    assert.match(WORKFLOW, /\.$/);
    const head = text.slice(0, INSTRUCTIONS_SELF_CONTAINED_CHARS);
    for (const must of ['search_symbol', 'definition', 'references', 'callers', 'outline', 'source_context', 'cursor']) assert.ok(head.includes(must), `first ${INSTRUCTIONS_SELF_CONTAINED_CHARS} chars do not mention ${must}`);
    // Every tool name the instructions mention exists.
    const names = new Set((await c.client.listTools()).tools.map((t) => t.name));
    for (const word of text.match(/\b[a-z]+(?:_[a-z]+)+\b/g) ?? []) assert.ok(names.has(word), `instructions name ${word}, which is not a tool`);
  });

  it('answers validate against the compact published output schemas (the SDK client checks them)', async function () {
    // One call per tool family; a mismatch makes callTool throw "Structured content does not match".
    await call(c.client, 'server_capabilities', {});
    await call(c.client, 'find_file', { query: 'invoice' });
    await call(c.client, 'search_text', { query: 'invoice', limit: 2 });
    await call(c.client, 'outline', { path: 'src/Billing/Application/InvoiceService.cs' });
    await call(c.client, 'search_symbol', { query: 'InvoiceService' });
    await call(c.client, 'source_context', { spans: [{ path: 'src/Billing/Application/InvoiceService.cs', line: 1 }] });
    await call(c.client, 'project_graph', { prefix: '' });
  });
});
