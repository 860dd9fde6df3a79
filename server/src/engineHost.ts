/**
 * `sextant ipc`: the engine as started by the VS Code extension (vscode-languageclient, node IPC).
 * Wires one Engine to the extension connection: status and progress notifications, reindex,
 * projects and graphs for the views, agent activity from every MCP client, and the `editor`
 * semantic provider that asks the extension's language services. Argument parsing stays in cli.ts.
 */
import {
  ACTIVITY_ARG_CHARS,
  ACTIVITY_LOCATIONS,
  ACTIVITY_RING_SIZE,
  CALL_GRAPH_MAX_DEPTH,
  GRAPH_MAX_EDGES,
  GRAPH_MAX_NODES,
  STATUS_NOTIFY_INTERVAL_MS,
} from './core/limits';
import { log, redirectConsoleToStderr } from './core/log';
import type { RefreshProgress } from './index/indexer';
import type { ToolCallRecord } from './mcp/server';
import { Engine } from './nav/engine';
import { buildProjectGraph } from './projects/buildProjectGraph';
import type { ProjectGraph } from './projects/ProjectGraph';
import { graphAround } from './projects/graphQueries';
import { ExtensionConnection } from './protocol/ExtensionConnection';
import {
  AgentActivityNotification,
  CallGraphRequest,
  EditorAvailabilityNotification,
  EditorQueryRequest,
  EngineStatusNotification,
  EngineStatusRequest,
  IndexProgressNotification,
  ProjectGraphRequest,
  ProjectListRequest,
  RecentActivityRequest,
  ReindexRequest,
  type ActivityLocation,
  type AgentActivity,
  type CallGraphParams,
  type EngineInitOptions,
  type EngineStatus,
  type GraphData,
  type GraphEdge,
  type GraphNode,
  type LanguageProviderStatus,
  type McpEndpoint,
  type ProjectGraphParams,
  type ProjectNode,
  type SolutionNode,
} from './protocol/protocol';
import { EditorProvider } from './semantic/editor/EditorProvider';
import type { HierarchyItem } from './semantic/types';

/** Runs until the extension disconnects. Resolves with the process exit code. */
export async function runEngineHost(): Promise<number> {
  redirectConsoleToStderr();
  const conn = ExtensionConnection.overNodeIpc();
  const host = new EngineHost(conn);
  const closed = new Promise<number>((resolve) => conn.onClose(() => resolve(conn.cleanShutdown ? 0 : 1)));
  conn.listen();
  const code = await closed;
  await host.dispose();
  return code;
}

/** The engine side of one extension connection. Exported for tests over an in-memory connection. */
export class EngineHost {
  private engine: Engine | undefined;
  private options: EngineInitOptions | undefined;
  private state: EngineStatus['state'] = 'starting';
  private error: string | undefined;
  private endpoint: McpEndpoint | undefined;
  private readonly activity: AgentActivity[] = [];
  private seq = 0;
  private graph: { version: string; graph: ProjectGraph } | undefined;
  private lastNotify = 0;
  private notifyTimer: NodeJS.Timeout | undefined;
  readonly editor: EditorProvider;

  constructor(private readonly conn: ExtensionConnection) {
    this.editor = new EditorProvider((query, signal) => conn.request(EditorQueryRequest.type, query, signal));
    conn.onInitialize(async ({ options }) => {
      this.options = options;
      this.engine = await Engine.open({
        workspaceRoot: options.workspaceRoot,
        indexRoot: options.indexRoot,
        ...(options.exclude.length > 0 ? { exclude: options.exclude } : {}),
      });
      // Serve at once from the stored index; refresh in the background.
      setImmediate(() => void this.refresh());
      return { protocolVersion: options.protocolVersion, ...(this.endpoint ? { endpoint: this.endpoint } : {}) };
    });
    conn.onShutdown(async () => {
      await this.dispose();
    });
    conn.onNotification(EditorAvailabilityNotification.type, (list) => {
      this.editor.setAvailability(list);
      this.scheduleStatus();
    });
    conn.handle0(EngineStatusRequest.type, async () => this.status());
    conn.handle(ReindexRequest.type, async () => {
      const s = await this.refresh();
      if (!s) throw new Error(this.error ?? 'the engine is not initialised');
      return s;
    });
    conn.handle(RecentActivityRequest.type, async ({ limit }) => this.activity.slice(-Math.max(0, limit)));
    conn.handle0(ProjectListRequest.type, async () => this.projectList());
    conn.handle(ProjectGraphRequest.type, async (p) => this.projectGraph(p));
    conn.handle(CallGraphRequest.type, async (p, signal) => this.callGraph(p, signal));
  }

  /** Records one MCP tool call (from any transport) and tells the extension. */
  recordCall(client: string, r: ToolCallRecord, structured?: unknown): void {
    const row: AgentActivity = {
      seq: ++this.seq,
      time: new Date(Date.now() - r.durationMs).toISOString(),
      client,
      tool: r.tool,
      args: trimArgs(r.args),
      bytes: r.bytes,
      durationMs: r.durationMs,
      locations: locationsOf(structured),
      ...(r.mode ? { mode: r.mode } : {}),
      ...(r.error ? { error: r.error } : {}),
    };
    this.activity.push(row);
    if (this.activity.length > ACTIVITY_RING_SIZE) this.activity.splice(0, this.activity.length - ACTIVITY_RING_SIZE);
    this.conn.notify(AgentActivityNotification.type, row);
  }

  async dispose(): Promise<void> {
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    const e = this.engine;
    this.engine = undefined;
    await this.editor.dispose();
    await e?.close().catch(() => undefined);
  }

  private async refresh() {
    const engine = this.engine;
    if (!engine) return undefined;
    this.state = 'indexing';
    this.scheduleStatus();
    let lastProgress = 0;
    try {
      const stats = await engine.refresh((p: RefreshProgress) => {
        const now = Date.now();
        if (p.phase === 'index' && now - lastProgress < STATUS_NOTIFY_INTERVAL_MS) return;
        lastProgress = now;
        this.conn.notify(IndexProgressNotification.type, { phase: p.phase, done: p.done, total: p.total });
      });
      engine.watch();
      this.state = 'ready';
      this.error = undefined;
      this.conn.notify(IndexProgressNotification.type, { phase: 'done', done: stats.files, total: stats.files });
      return {
        files: stats.files,
        added: stats.added,
        changed: stats.changed,
        deleted: stats.deleted,
        durationMs: stats.durationMs,
        indexVersion: engine.version,
      };
    } catch (e) {
      this.state = 'error';
      this.error = `indexing failed: ${e instanceof Error ? e.message : String(e)}`;
      log.error('refresh failed', { error: this.error });
      return undefined;
    } finally {
      this.scheduleStatus();
    }
  }

  /** The status now. */
  status(): EngineStatus {
    const engine = this.engine;
    const o = this.options;
    const meta = engine?.meta();
    const languages: LanguageProviderStatus[] = (o?.languages ?? []).map((language) => {
      const a = this.editor.availability(language);
      return a.state === 'absent'
        ? { language, provider: 'heuristic', state: 'ready', detail: `no editor provider (${a.detail}); syntax and text layers answer` }
        : { language, provider: 'editor', state: a.state, detail: a.detail };
    });
    const projects = engine && this.graph ? this.graph.graph.projects : [];
    return {
      state: this.state,
      pid: process.pid,
      workspaceRoot: engine?.root ?? o?.workspaceRoot ?? '',
      indexRoot: engine?.indexRoot ?? o?.indexRoot ?? '',
      index: {
        version: meta?.version ?? '',
        status: meta?.status ?? 'building',
        ...(meta?.head ? { head: meta.head } : {}),
        ...(meta ? { dirty: meta.dirty } : {}),
        files: engine ? engine.catalog().size : 0,
        ...(engine?.lastRefresh ? { lastRefresh: new Date().toISOString() } : {}),
      },
      projects: projects.map((p) => ({
        project: p.path,
        state: p.status === 'failed' ? 'failed' : this.state === 'indexing' ? 'indexing' : 'ready',
        files: p.fileCount,
      })),
      languages,
      ...(this.endpoint ? { endpoint: this.endpoint } : {}),
      ...(this.error ? { error: this.error } : {}),
      clients: 1,
    };
  }

  private scheduleStatus(): void {
    if (this.notifyTimer) return;
    const wait = Math.max(0, this.lastNotify + STATUS_NOTIFY_INTERVAL_MS - Date.now());
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = undefined;
      this.lastNotify = Date.now();
      this.conn.notify(EngineStatusNotification.type, this.status());
    }, wait);
  }

  private projectGraphNow(): ProjectGraph | undefined {
    const engine = this.engine;
    if (!engine) return undefined;
    if (this.graph?.version !== engine.version) {
      const files = engine.catalog().all().map((f) => f.path);
      this.graph = { version: engine.version, graph: buildProjectGraph({ root: engine.root, files, policy: engine.policy }) };
    }
    return this.graph.graph;
  }

  private projectList(): { solutions: SolutionNode[]; projects: ProjectNode[]; partial: boolean } {
    const g = this.projectGraphNow();
    if (!g) return { solutions: [], projects: [], partial: true };
    const refs = new Map<string, string[]>();
    const deps = new Map<string, string[]>();
    for (const e of g.edges) {
      if (e.kind !== 'projectReference') continue;
      push(refs, e.from, e.to);
      push(deps, e.to, e.from);
    }
    return {
      solutions: g.solutions.map((s) => ({ path: s.path, name: s.name, projects: s.projects })),
      projects: g.projects.map((p) => ({
        path: p.path,
        name: p.name,
        kind: p.kind,
        isTest: p.isTest,
        status: p.status,
        reasons: p.reasons,
        fileCount: p.fileCount,
        references: refs.get(p.id) ?? [],
        dependents: deps.get(p.id) ?? [],
        ...(p.targetFrameworks.length > 0 ? { targetFrameworks: p.targetFrameworks } : {}),
      })),
      partial: this.state !== 'ready',
    };
  }

  private projectGraph(p: ProjectGraphParams): GraphData {
    const g = this.projectGraphNow();
    if (!g) return { nodes: [], edges: [], truncated: false, summary: 'the engine is not initialised' };
    const keep = (isTest: boolean | undefined): boolean => (isTest ? p.include.test : p.include.production);
    const starts = p.project ? [p.project] : g.projects.filter((x) => keep(x.isTest)).map((x) => x.id);
    const around = graphAround(g, starts, {
      depth: Math.max(0, Math.min(p.depth, 10)),
      direction: p.direction,
      includePackages: false,
      maxNodes: GRAPH_MAX_NODES,
      maxEdges: GRAPH_MAX_EDGES,
    });
    const byId = new Map(g.projects.map((x) => [x.id, x]));
    const nodes: GraphNode[] = around.nodes
      .filter((n) => n.id === p.project || keep(n.isTest))
      .map((n) => ({
        id: n.id,
        label: n.name,
        kind: n.kind,
        path: n.id,
        line: 1,
        ...(n.isTest !== undefined ? { isTest: n.isTest } : {}),
        ...(n.id === p.project ? { root: true } : {}),
        ...(byId.get(n.id)?.status === 'failed' ? { kind: 'failed' } : {}),
      }));
    const ids = new Set(nodes.map((n) => n.id));
    const edges: GraphEdge[] = around.edges.filter((e) => ids.has(e.from) && ids.has(e.to)).map((e) => ({ from: e.from, to: e.to, kind: e.kind }));
    const truncated = around.cut.nodes > 0 || around.cut.edges > 0;
    return {
      nodes,
      edges,
      truncated,
      summary: `${nodes.length} projects, ${edges.length} references${p.project ? ` around ${p.project}` : ''}${truncated ? ` (cut at ${GRAPH_MAX_NODES} nodes)` : ''}`,
    };
  }

  private async callGraph(p: CallGraphParams, signal: AbortSignal): Promise<GraphData> {
    const language = languageOf(p.position.path);
    if (!language || !this.editor.supports(language, 'prepareCallHierarchy')) {
      return { nodes: [], edges: [], truncated: false, mode: 'unavailable_no_precise', summary: `no call hierarchy provider for ${language ?? 'this file'} in the editor` };
    }
    const deadline = Date.now() + 10_000;
    const ctx = { signal, deadline, waitForReadyMs: 2_000 };
    const prep = await this.editor.request('prepareCallHierarchy', language, p.position, ctx);
    if (prep.kind !== 'ok' || prep.value.length === 0) {
      return { nodes: [], edges: [], truncated: false, mode: 'unavailable_no_precise', summary: prep.kind === 'ok' ? 'no symbol with calls at the cursor' : prep.reason };
    }
    const gaps: string[] = [...(prep.gaps ?? [])];
    const nodes = new Map<string, GraphNode>();
    const edges = new Map<string, GraphEdge>();
    const idOf = (i: HierarchyItem): string => `${i.path}:${i.line}:${i.column}:${i.name}`;
    const add = (i: HierarchyItem, root = false): string => {
      const id = idOf(i);
      if (!nodes.has(id)) nodes.set(id, { id, label: i.name, kind: i.kind, path: i.path, line: i.line, column: i.column, ...(root ? { root: true } : {}) });
      return id;
    };
    const depth = Math.max(1, Math.min(p.depth, CALL_GRAPH_MAX_DEPTH));
    let truncated = false;
    let frontier = prep.value.map((i) => ({ item: i, id: add(i, true) }));
    for (let d = 0; d < depth && frontier.length > 0 && !signal.aborted; d++) {
      const next: { item: HierarchyItem; id: string }[] = [];
      for (const { item, id } of frontier) {
        if (nodes.size >= GRAPH_MAX_NODES) {
          truncated = true;
          break;
        }
        if (p.direction !== 'outgoing') {
          const r = await this.editor.request('incomingCalls', language, item, ctx);
          if (r.kind === 'ok') {
            gaps.push(...(r.gaps ?? []));
            for (const c of r.value) {
              const known = nodes.has(idOf(c.from));
              const from = add(c.from);
              edges.set(`${from}>${id}`, { from, to: id, kind: 'calls' });
              if (!known) next.push({ item: c.from, id: from });
            }
          } else gaps.push(r.reason);
        }
        if (p.direction !== 'incoming') {
          const r = await this.editor.request('outgoingCalls', language, item, ctx);
          if (r.kind === 'ok') {
            gaps.push(...(r.gaps ?? []));
            for (const c of r.value) {
              const known = nodes.has(idOf(c.to));
              const to = add(c.to);
              edges.set(`${id}>${to}`, { from: id, to, kind: 'calls' });
              if (!known) next.push({ item: c.to, id: to });
            }
          } else gaps.push(r.reason);
        }
      }
      frontier = next;
    }
    const root = prep.value[0]!;
    return {
      nodes: [...nodes.values()],
      edges: [...edges.values()].slice(0, GRAPH_MAX_EDGES),
      truncated: truncated || edges.size > GRAPH_MAX_EDGES,
      mode: gaps.length > 0 ? 'precise_partial' : 'precise',
      summary: `calls around ${root.name} (${root.path}:${root.line}), depth ${depth}: ${nodes.size} functions, ${edges.size} calls`,
    };
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
}

function languageOf(path: string): string | undefined {
  const ext = path.slice(path.lastIndexOf('.')).toLowerCase();
  return (
    {
      '.cs': 'csharp',
      '.ts': 'typescript',
      '.mts': 'typescript',
      '.cts': 'typescript',
      '.tsx': 'typescriptreact',
      '.js': 'javascript',
      '.mjs': 'javascript',
      '.cjs': 'javascript',
      '.jsx': 'javascriptreact',
    } as Record<string, string>
  )[ext];
}

function trimArgs(args: unknown): Record<string, unknown> {
  if (!args || typeof args !== 'object') return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(args as Record<string, unknown>)) {
    const s = typeof v === 'string' ? v : JSON.stringify(v);
    out[k] = s.length > ACTIVITY_ARG_CHARS ? `${s.slice(0, ACTIVITY_ARG_CHARS)}…` : typeof v === 'string' ? v : v;
  }
  return out;
}

/** The first locations an answer points at: rows with `path` and `line` (items, nodes, groups). */
function locationsOf(structured: unknown): ActivityLocation[] {
  const out: ActivityLocation[] = [];
  const visit = (v: unknown, depth: number): void => {
    if (out.length >= ACTIVITY_LOCATIONS || depth > 4 || !v || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    if (typeof o.path === 'string' && typeof o.line === 'number') {
      out.push({ path: o.path, line: o.line, ...(typeof o.column === 'number' ? { column: o.column } : {}) });
      return;
    }
    for (const k of ['items', 'nodes', 'locations', 'groups', 'sites']) if (k in o) visit(o[k], depth + 1);
  };
  visit(structured, 0);
  return out;
}
