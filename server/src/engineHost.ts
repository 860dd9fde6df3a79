/**
 * `sextant ipc`: the engine as started by the VS Code extension (vscode-languageclient, node IPC).
 * Wires one Engine to the extension connection: status and progress notifications, reindex,
 * projects and graphs for the views, agent activity from every MCP client, and the `editor`
 * semantic provider that asks the extension's language services. Argument parsing stays in cli.ts.
 */
import * as path from 'node:path';
import {
  ACTIVITY_ARG_CHARS,
  ACTIVITY_LOCATIONS,
  ACTIVITY_RING_SIZE,
  CALL_GRAPH_MAX_DEPTH,
  GRAPH_MAX_EDGES,
  GRAPH_MAX_NODES,
  STATUS_NOTIFY_INTERVAL_MS,
  TOOL_DEADLINE_MS,
} from './core/limits';
import { log, redirectConsoleToStderr, setLogSink } from './core/log';
import type { RefreshProgress } from './index/indexer';
import { claimEngineFor } from './mcp/main';
import { buildServer, SERVER_VERSION, type ToolCallRecord } from './mcp/server';
import { startSharedEndpoint, type SharedEndpoint } from './mcp/transport/sharedEndpoint';
import { isPidAlive, readServerInfo, SERVER_INFO_FILE } from './core/lock';
import { Engine, indexRootFor, type EngineOptions } from './nav/engine';
import { projectGraph } from './nav/projects';
import { callsQuery, type NavRow } from './nav/semanticQueries';
import { disposeSemanticService, semanticService } from './nav/semanticService';
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
  EngineLogNotification,
} from './protocol/protocol';
import { EditorProvider } from './semantic/editor/EditorProvider';

/** Runs until the extension disconnects. Resolves with the process exit code. */
export async function runEngineHost(): Promise<number> {
  redirectConsoleToStderr();
  const conn = ExtensionConnection.overNodeIpc();
  const levels = { error: 1, warn: 2, info: 3, debug: 5 } as const;
  setLogSink((line, level) => conn.notify(EngineLogNotification.type, { type: levels[level], message: line.replace(/^\[sextant \w+\] /, '') }));
  const host = new EngineHost(conn, () => process.exit(3));
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
  private lastNotify = 0;
  private notifyTimer: NodeJS.Timeout | undefined;
  private shared: SharedEndpoint | undefined;
  private attached: { pid: number } | undefined;
  private lastRefreshAt: string | undefined;
  private poll: NodeJS.Timeout | undefined;
  private unregisterEditor: (() => void) | undefined;
  readonly editor: EditorProvider;

  constructor(
    private readonly conn: ExtensionConnection,
    /** Called when the engine this host attached to stops (the process then exits and is restarted). */
    private readonly onAttachedGone: () => void = () => undefined,
  ) {
    this.editor = new EditorProvider((query, signal) => conn.request(EditorQueryRequest.type, query, signal));
    conn.onInitialize(async ({ options }) => {
      this.options = options;
      const opts: EngineOptions = {
        workspaceRoot: options.workspaceRoot,
        indexRoot: options.indexRoot,
        maxFileBytes: options.maxFileBytes,
        ...(options.exclude.length > 0 ? { exclude: options.exclude } : {}),
      };
      // One engine per workspace: an engine already serving it is attached to, whether it serves
      // this window's index root or the CLI's default one (`sextant serve` in a terminal).
      const cliRoot = indexRootFor({ workspaceRoot: options.workspaceRoot });
      const terminal = cliRoot !== indexRootFor(opts) ? readServerInfo(cliRoot) : undefined;
      const claim: Awaited<ReturnType<typeof claimEngineFor>> = terminal ? { kind: 'attach', server: terminal } : await claimEngineFor(opts);
      if (claim.kind === 'attach') {
        const s = claim.server;
        this.attached = { pid: s.pid };
        // When that engine stops, this host stops too: the extension restarts it and it becomes the engine.
        this.poll = setInterval(() => {
          if (!isPidAlive(s.pid)) {
            if (this.poll) clearInterval(this.poll);
            log.warn('the engine this window was attached to stopped', { pid: s.pid });
            this.onAttachedGone();
          }
        }, STATUS_NOTIFY_INTERVAL_MS * 4);
        this.poll.unref();
        this.endpoint = { url: s.url, token: s.token, serverJson: path.join(terminal ? cliRoot : options.indexRoot, SERVER_INFO_FILE), pid: s.pid };
        this.state = 'ready';
        this.error = `attached to the Sextant engine (pid ${s.pid}) that already serves this index; views and the editor bridge need an engine started by this window (stop the other one and run Sextant: Restart Engine)`;
        setImmediate(() => this.scheduleStatus());
        return { protocolVersion: options.protocolVersion, endpoint: this.endpoint };
      }
      if (claim.kind === 'busy') throw new Error(`another Sextant engine (pid ${claim.owner.pid}) owns the index at ${options.indexRoot} but publishes no endpoint`);
      const engine = await Engine.open(opts).catch((e: unknown) => {
        claim.lock?.release();
        throw e;
      });
      this.engine = engine;
      // The semantic registry: the editor slot first (this window's language services), then the
      // engine's own language servers (per-language command lines from the settings), then heuristics.
      const servers = Object.entries(options.lspCommands).map(([language, cmd]) => `${language}=${cmd.join(' ')}`);
      const semantic = semanticService(engine, { ...(servers.length > 0 ? { servers } : {}), restore: options.restore === true });
      if (options.useEditorProviders) this.unregisterEditor = semantic.registerEditor(this.editor);
      if (claim.lock) {
        this.shared = await startSharedEndpoint(claim.lock, () => this.createMcpServer(engine), {
          ...(options.httpPort > 0 ? { port: options.httpPort } : {}),
          workspaceRoot: engine.root,
          version: SERVER_VERSION,
        });
        this.endpoint = { url: this.shared.url, token: this.shared.token, serverJson: this.shared.serverJson, pid: process.pid };
      }
      // Serve at once from the stored index; refresh in the background.
      setImmediate(() => void this.refresh());
      // The watcher re-indexes changed files inside the engine: tell the views when the index moved.
      let seen = '';
      this.poll = setInterval(() => {
        const m = engine.meta();
        const now = `${m.version} ${m.status} ${m.dirty}`;
        if (now !== seen) {
          seen = now;
          this.scheduleStatus();
        }
      }, STATUS_NOTIFY_INTERVAL_MS * 4);
      this.poll.unref();
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

  /** One MCP protocol server per HTTP session; its calls are recorded as agent activity. */
  private createMcpServer(engine: Engine) {
    const o = this.options;
    const server = buildServer(engine, {
      ...(o ? { deadlineMs: o.budget.toolDeadlineMs, defaults: { limit: o.budget.itemLimit, maxBytes: o.budget.responseBytes } } : {}),
      onCall: (r) => {
        const info = server.getClientVersion();
        this.recordCall(info?.name ? `http:${info.name}` : 'http', r);
      },
    });
    return server;
  }

  /** Records one MCP tool call (from any transport) and tells the extension. */
  recordCall(client: string, r: ToolCallRecord): void {
    const row: AgentActivity = {
      seq: ++this.seq,
      time: new Date(Date.now() - r.durationMs).toISOString(),
      client,
      tool: r.tool,
      args: trimArgs(r.args),
      bytes: r.bytes,
      durationMs: r.durationMs,
      locations: locationsOf(r.structured),
      ...(r.mode ? { mode: r.mode } : {}),
      ...(r.error ? { error: r.error } : {}),
    };
    this.activity.push(row);
    if (this.activity.length > ACTIVITY_RING_SIZE) this.activity.splice(0, this.activity.length - ACTIVITY_RING_SIZE);
    this.conn.notify(AgentActivityNotification.type, row);
  }

  async dispose(): Promise<void> {
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    if (this.poll) clearInterval(this.poll);
    const e = this.engine;
    const shared = this.shared;
    this.engine = undefined;
    this.shared = undefined;
    await shared?.close().catch(() => undefined);
    this.unregisterEditor?.();
    this.unregisterEditor = undefined;
    await this.editor.dispose();
    if (e) await disposeSemanticService(e).catch(() => undefined);
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
      this.lastRefreshAt = new Date().toISOString();
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
    // Which provider serves each language now: the first ready one in registry order.
    const svc = engine ? semanticService(engine) : undefined;
    const languages: LanguageProviderStatus[] = (o?.languages ?? []).map((language) => {
      const all = svc?.registry.availability(language) ?? [];
      const best = all.find((a) => a.state === 'ready') ?? all.find((a) => a.state === 'loading') ?? all[0];
      return best
        ? { language, provider: best.provider, state: best.state, detail: best.detail }
        : { language, provider: 'none', state: 'absent', detail: 'the engine has not started its semantic layer' };
    });
    const projects = this.projectGraphNow()?.projects ?? [];
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
        ...(this.lastRefreshAt ? { lastRefresh: this.lastRefreshAt } : {}),
      },
      projects: projects.map((p) => ({
        project: p.path,
        state: p.status === 'failed' ? 'failed' : this.state === 'indexing' ? 'indexing' : 'ready',
        files: p.fileCount,
      })),
      languages,
      ...(this.endpoint ? { endpoint: this.endpoint } : {}),
      ...(this.error ? { error: this.error } : {}),
      clients: 1 + (this.shared?.http.stats().sessions ?? 0),
      ...(this.attached ? { attachedTo: this.attached } : {}),
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

  /** The project graph stored with the current index version (built by the index's projects hook). */
  private projectGraphNow(): ProjectGraph | undefined {
    return this.engine ? projectGraph(this.engine) : undefined;
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
        ...(p.notIndexed ? { notIndexed: true as const } : {}),
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

  /** The call graph around a position, through the semantic registry (editor → lsp → heuristic). */
  private async callGraph(p: CallGraphParams, signal: AbortSignal): Promise<GraphData> {
    const engine = this.engine;
    if (!engine) return { nodes: [], edges: [], truncated: false, mode: 'unavailable_no_precise', summary: this.error ?? 'the engine is not initialised' };
    const depth = Math.max(1, Math.min(p.depth, CALL_GRAPH_MAX_DEPTH));
    const directions: ('incoming' | 'outgoing')[] = p.direction === 'both' ? ['incoming', 'outgoing'] : [p.direction];
    const nodes = new Map<string, GraphNode>();
    const edges = new Map<string, GraphEdge>();
    const modes: string[] = [];
    const reasons: string[] = [];
    let truncated = false;
    let rootName = '';
    const add = (r: NavRow, root = false): string => {
      const id = `${r.path}:${r.line}:${r.column}`;
      const known = nodes.get(id);
      if (known) {
        if (root) known.root = true;
        return id;
      }
      nodes.set(id, { id, label: r.name ?? `${r.path}:${r.line}`, kind: r.kind ?? 'function', path: r.path, line: r.line, column: r.column, isTest: r.isTest, ...(root ? { root: true } : {}) });
      return id;
    };
    for (const direction of directions) {
      if (signal.aborted) break;
      const a = await callsQuery(engine, { path: p.position.path, line: p.position.line, column: p.position.column }, direction, depth, GRAPH_MAX_EDGES, {
        deadlineAt: Date.now() + TOOL_DEADLINE_MS,
      });
      if ('ambiguous' in a) {
        const names = (a.target_selection.candidates ?? []).slice(0, 5).map((c) => c.qualifiedName);
        return { nodes: [], edges: [], truncated: false, mode: 'unavailable_no_precise', summary: `the cursor matches several symbols: ${names.join(', ')}` };
      }
      modes.push(a.mode);
      if (a.reason) reasons.push(a.reason);
      reasons.push(...a.gaps);
      rootName ||= a.name;
      if (a.root) add(a.root, true);
      if (a.truncated) truncated = true;
      for (const e of a.edges) {
        const from = add(e.caller);
        const to = add(e.callee);
        edges.set(`${from}>${to}`, { from, to, kind: e.confidence === 'exact' ? 'calls' : `calls (${e.confidence})` });
      }
    }
    const order = ['precise', 'precise_partial', 'heuristic_no_precise', 'unavailable_no_precise'];
    const mode = modes.reduce((w, m) => (order.indexOf(m) > order.indexOf(w) ? m : w), 'precise');
    const why = mode === 'precise' ? '' : ` (${[...new Set(reasons)].join('; ') || mode})`;
    return {
      nodes: [...nodes.values()].slice(0, GRAPH_MAX_NODES),
      edges: [...edges.values()],
      truncated: truncated || nodes.size > GRAPH_MAX_NODES,
      mode,
      summary: nodes.size === 0 ? `no calls found around ${rootName || 'the cursor'}${why}` : `calls around ${rootName}, depth ${depth}: ${nodes.size} functions, ${edges.size} calls${why}`,
    };
  }
}

function push<K, V>(m: Map<K, V[]>, k: K, v: V): void {
  const l = m.get(k);
  if (l) l.push(v);
  else m.set(k, [v]);
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
    if (typeof o.path === 'string' && Array.isArray(o.hits)) {
      // A file group (search_text): its hits are the locations.
      for (const h of o.hits as { line?: unknown; column?: unknown }[]) {
        if (out.length >= ACTIVITY_LOCATIONS) return;
        out.push({ path: o.path, line: typeof h.line === 'number' ? h.line : 1, ...(typeof h.column === 'number' ? { column: h.column } : {}) });
      }
      return;
    }
    if (typeof o.path === 'string' && !o.path.includes('://')) {
      // A row with a place (search hits, definitions) or a whole file (find_file: line 1).
      out.push({ path: o.path, line: typeof o.line === 'number' ? o.line : 1, ...(typeof o.column === 'number' ? { column: o.column } : {}) });
      return;
    }
    for (const k of ['items', 'nodes', 'locations', 'groups', 'sites']) if (k in o) visit(o[k], depth + 1);
  };
  visit(structured, 0);
  return out;
}
