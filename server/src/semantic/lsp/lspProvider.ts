/**
 * The headless precise provider: speaks LSP to language servers it starts itself, one per server
 * id per workspace (C#: csharp-ls; TS/JS: typescript-language-server; others configured by
 * command line). Answers are converted to plain data; csharp-ls's gaps are worked around or
 * reported as `gaps` (→ precise_partial); a server that is missing, loading, crashed or slow
 * yields an `unavailable`/`error` outcome, never an exception.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ResponseError } from 'vscode-jsonrpc';
import type * as lsp from 'vscode-languageserver-protocol';
import { DIAGNOSTICS_LSP_MAX_FILES, DIAGNOSTICS_LSP_PARALLEL, DIAGNOSTICS_PUBLISH_QUIET_MS } from '../../core/limits';
import { log } from '../../core/log';
import { languageOfPath } from '../language';
import type {
  CallContext,
  OpArgs,
  OpResult,
  ProviderAvailability,
  ProviderOutcome,
  SemanticOp,
  SemanticProvider,
} from '../provider';
import type { HierarchyItem, SemanticLocation, SourcePosition } from '../types';
import { fromHierarchyItem, hoverDocumentation, toHierarchyItem, toLocations, toSpan, toWorkspaceSymbols } from './convert';
import { doctorRows, type ServerDoctorRow } from './doctor';
import { csharpImplementations, csharpIncomingCallsGap, csharpReferences } from './csharpWorkarounds';
import { LanguageServer, ServerExitedError, type ServerStatus } from './languageServer';
import { csharpReadOnlyEnv } from './csharpReadOnly';
import { csharpLsSpec, typescriptLanguageServerSpec, type LanguageServerSpec } from './serverSpec';
import { Session } from './session';

export const LSP_PROVIDER_ID = 'lsp';

/** Which C# projects csharp-ls loads: a solution file, or a project list (a solution is generated). */
export type CSharpSelection = { solution: string } | { projects: string[] } | { auto: true };

/** What the project model knows about a file, to explain an empty answer. */
export type FileCoverage =
  | { kind: 'covered' }
  | { kind: 'not_covered'; reason: string }
  | { kind: 'multi_project'; projects: string[] }
  | { kind: 'unknown' };

export interface LspProviderOptions {
  /** Workspace root. */
  root: string;
  /** Extra or replacement servers (a spec replaces a built-in one serving the same language). */
  servers?: LanguageServerSpec[];
  /** Leave out the built-in servers (tests, or a user who configures everything). */
  noDefaults?: boolean;
  /** C# project selection; default: csharp-ls picks (the solution with most projects, or all projects). */
  csharp?: CSharpSelection;
  /** Extra csharp-ls flags, e.g. ['--features', 'metadata-uris']. */
  csharpExtraArgs?: string[];
  idleStopMs?: number;
  coverage?: (language: string, path: string) => FileCoverage;
  /**
   * Why the C# server must not be started on this tree (it would write build output into the
   * workspace that the read-only redirect does not cover), or undefined when it may.
   */
  csharpWriteRisk?: () => string | undefined;
  /** Leave out the built-in csharp-ls (C# is served by the Roslyn host provider). */
  noCSharp?: boolean;
}

/** Operations a server cannot serve at all, by server name (checked before starting it). */
const UNSUPPORTED: Record<string, SemanticOp[]> = {
  'typescript-language-server': ['prepareTypeHierarchy', 'supertypes', 'subtypes'],
};

export class LspProvider implements SemanticProvider {
  readonly id = LSP_PROVIDER_ID;
  readonly precision = 'precise' as const;
  private readonly root: string;
  private readonly servers = new Map<string, LanguageServer>();
  private specs: LanguageServerSpec[] = [];
  private readonly extensions: Record<string, string> = {};
  private generatedDir: string | undefined;
  private csharpSelection: CSharpSelection;

  constructor(private readonly options: LspProviderOptions) {
    this.root = fs.realpathSync(path.resolve(options.root));
    this.csharpSelection = options.csharp ?? { auto: true };
    this.rebuildSpecs();
  }

  /** Changes the C# project selection; a running csharp-ls is stopped and restarts on demand. */
  async configureCSharp(selection: CSharpSelection): Promise<void> {
    if (JSON.stringify(selection) === JSON.stringify(this.csharpSelection)) return;
    this.csharpSelection = selection;
    const old = this.servers.get('csharp');
    this.servers.delete('csharp');
    this.rebuildSpecs();
    if (old) await old.stop('C# project selection changed');
  }

  supports(language: string, op: SemanticOp): boolean {
    const spec = this.specFor(language);
    if (!spec) return false;
    return !(UNSUPPORTED[spec.name] ?? []).includes(op);
  }

  availability(language: string, project?: string): ProviderAvailability {
    const spec = this.specFor(language);
    if (!spec) return { state: 'absent', detail: `no language server configured for ${language}`, started: false };
    const st = this.serverFor(spec).status();
    const a = toAvailability(st);
    if (project && spec.id === 'csharp') {
      const base = path.basename(project);
      const problem = st.loadProblems.find((m) => m.includes(base));
      if (problem) return { ...a, state: 'failed', detail: `${base} did not load: ${problem}` };
      const sel = this.csharpSelection;
      if ('projects' in sel && !sel.projects.some((p) => path.resolve(this.root, p) === path.resolve(this.root, project))) {
        return { ...a, state: 'absent', detail: `${project} is not among the loaded C# projects` };
      }
    }
    return a;
  }

  /** Every configured server's status (doctor, tests). Does not start anything. */
  statuses(): ServerStatus[] {
    return this.specs.map((s) => this.serverFor(s).status());
  }

  /** Each configured server: found, version, state. Never starts a server. */
  doctor(): Promise<ServerDoctorRow[]> {
    return doctorRows(
      this.specs.map((spec) => ({
        status: this.serverFor(spec).status(),
        languages: spec.languages,
        ...(spec.versionArgs ? { versionArgs: spec.versionArgs } : {}),
        ...(spec.notes ? { notes: spec.notes } : {}),
      })),
    );
  }

  /** The server for a language, for tests that need to crash it. */
  serverForLanguage(language: string): LanguageServer | undefined {
    const spec = this.specFor(language);
    return spec ? this.serverFor(spec) : undefined;
  }

  async request<K extends SemanticOp>(op: K, language: string, args: OpArgs<K>, ctx: CallContext): Promise<ProviderOutcome<OpResult<K>>> {
    const spec = this.specFor(language);
    if (!spec) return { kind: 'unavailable', state: 'unsupported', reason: `no language server configured for ${language}` };
    if (!this.supports(language, op)) return { kind: 'unavailable', state: 'unsupported', reason: `${spec.name} does not support ${op}` };
    if (spec.languages.includes('csharp')) {
      const risk = this.options.csharpWriteRisk?.();
      if (risk) return { kind: 'unavailable', state: 'failed', reason: `${spec.name} is not started on this workspace: ${risk}` };
    }
    const server = this.serverFor(spec);
    const acquired = await server.acquire(ctx.waitForReadyMs, ctx.signal);
    if (!acquired.ok) return { kind: 'unavailable', state: acquired.state, reason: acquired.reason };
    if (!capable(acquired.capabilities, op)) return { kind: 'unavailable', state: 'unsupported', reason: `${spec.name} does not support ${op}` };
    const session = new Session(server, acquired.documents, acquired.capabilities, ctx.signal, ctx.deadline);
    try {
      return (await this.dispatch(op, spec, session, args)) as ProviderOutcome<OpResult<K>>;
    } catch (e) {
      if (e instanceof ServerExitedError) return { kind: 'error', reason: `${e.message}; it restarts on the next request` };
      if (ctx.signal.aborted) return { kind: 'error', reason: 'cancelled' };
      if (e instanceof ResponseError) return { kind: 'error', reason: `${spec.name} answered ${op} with an error: ${e.message}` };
      log.warn(`${spec.name} ${op} failed`, { error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      return { kind: 'error', reason: `${spec.name} ${op} failed: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  async dispose(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map((s) => s.stop('engine shutting down').catch(() => s.kill())));
    if (this.generatedDir) fs.rmSync(this.generatedDir, { recursive: true, force: true });
    this.generatedDir = undefined;
  }

  private async dispatch(op: SemanticOp, spec: LanguageServerSpec, s: Session, args: unknown): Promise<ProviderOutcome<unknown>> {
    const csharp = spec.id === 'csharp';
    switch (op) {
      case 'definition': {
        const p = this.position(s, args);
        const r = await s.definition(p);
        if (r === null || r.length === 0) return this.emptyOrUnmapped(s, spec, p.path, r);
        return { kind: 'ok', value: r };
      }
      case 'references': {
        const q = args as OpArgs<'references'>;
        this.position(s, q);
        if (csharp) {
          const d = await csharpReferences(s, q);
          if (d === null) return this.emptyOrUnmapped(s, spec, q.path, null);
          return { kind: 'ok', value: d.value, ...(d.gaps.length ? { gaps: d.gaps } : {}) };
        }
        const r = await s.references(q, q.includeDeclaration);
        return r === null ? this.emptyOrUnmapped(s, spec, q.path, r) : { kind: 'ok', value: r };
      }
      case 'implementation': {
        const p = this.position(s, args);
        if (csharp) {
          const d = await csharpImplementations(s, p);
          if (d === null) return this.emptyOrUnmapped(s, spec, p.path, null);
          return { kind: 'ok', value: d.value, ...(d.gaps.length ? { gaps: d.gaps } : {}) };
        }
        const raw = await s.send<lsp.Definition | lsp.LocationLink[] | null>('textDocument/implementation', s.textDocumentPosition(p));
        return { kind: 'ok', value: toLocations(s.uris, raw) };
      }
      case 'prepareCallHierarchy':
      case 'prepareTypeHierarchy': {
        const p = this.position(s, args);
        const method = op === 'prepareCallHierarchy' ? 'textDocument/prepareCallHierarchy' : 'textDocument/prepareTypeHierarchy';
        const raw = await s.send<lsp.CallHierarchyItem[] | null>(method, s.textDocumentPosition(p));
        if (raw === null || raw.length === 0) return this.emptyOrUnmapped(s, spec, p.path, raw);
        const items = raw.map((i) => toHierarchyItem(s.uris, i, this.id));
        return { kind: 'ok', value: op === 'prepareTypeHierarchy' ? mergePartials(items) : items };
      }
      case 'incomingCalls': {
        const item = args as HierarchyItem;
        if (!item.external) s.open(item.path);
        const lspItem = await this.reprepare(s, item, 'textDocument/prepareCallHierarchy');
        if (!lspItem) return { kind: 'ok', value: [] };
        const [raw, gap] = await Promise.all([
          s.send<lsp.CallHierarchyIncomingCall[] | null>('callHierarchy/incomingCalls', { item: lspItem }),
          csharp && !item.external ? csharpIncomingCallsGap(s, item) : Promise.resolve(undefined),
        ]);
        const value = (raw ?? []).map((c) => ({ from: toHierarchyItem(s.uris, c.from, this.id), sites: c.fromRanges.map(toSpan) }));
        return { kind: 'ok', value, ...(gap ? { gaps: [gap] } : {}) };
      }
      case 'outgoingCalls': {
        const item = args as HierarchyItem;
        if (!item.external) s.open(item.path);
        const lspItem = await this.reprepare(s, item, 'textDocument/prepareCallHierarchy');
        if (!lspItem) return { kind: 'ok', value: [] };
        const raw = await s.send<lsp.CallHierarchyOutgoingCall[] | null>('callHierarchy/outgoingCalls', { item: lspItem });
        return { kind: 'ok', value: (raw ?? []).map((c) => ({ to: toHierarchyItem(s.uris, c.to, this.id), sites: c.fromRanges.map(toSpan) })) };
      }
      case 'supertypes':
      case 'subtypes': {
        const item = args as HierarchyItem;
        if (!item.external) s.open(item.path);
        const lspItem = await this.reprepare(s, item, 'textDocument/prepareTypeHierarchy');
        if (!lspItem) return { kind: 'ok', value: [] };
        const raw = await s.send<lsp.TypeHierarchyItem[] | null>(`typeHierarchy/${op}`, { item: lspItem });
        return { kind: 'ok', value: mergePartials((raw ?? []).map((i) => toHierarchyItem(s.uris, i, this.id))) };
      }
      case 'documentSymbols': {
        const { path: rel } = args as OpArgs<'documentSymbols'>;
        s.open(rel);
        const r = await s.documentSymbols(rel);
        if (r === null) return this.emptyOrUnmapped(s, spec, rel, null);
        return { kind: 'ok', value: r };
      }
      case 'diagnostics':
        return this.diagnostics(s, spec, (args as OpArgs<'diagnostics'>).paths);
      case 'documentation': {
        // xml_doc's fallback: the hover at the declaration's name (its signature and documentation).
        const p = this.position(s, args);
        const h = await s.send<lsp.Hover | null>('textDocument/hover', s.textDocumentPosition(p));
        return { kind: 'ok', value: hoverDocumentation(h) };
      }
      case 'workspaceSymbols': {
        const { query } = args as OpArgs<'workspaceSymbols'>;
        const raw = await s.send<(lsp.SymbolInformation | lsp.WorkspaceSymbol)[] | null>('workspace/symbol', { query });
        const value = toWorkspaceSymbols(s.uris, raw);
        const gaps = csharp && value.length >= 100 ? ['csharp-ls returns at most 100 workspace symbols; narrow the query'] : [];
        return { kind: 'ok', value, ...(gaps.length ? { gaps } : {}) };
      }
    }
  }

  /**
   * Diagnostics of the asked files (issue 13): pulled (`textDocument/diagnostic`) when the server
   * offers it, else the server's `publishDiagnostics` for the file once it has published after the
   * file's text was last sent and then stayed quiet. At most DIAGNOSTICS_LSP_MAX_FILES files;
   * the rest, and files nothing was published for in time, are gaps.
   */
  private async diagnostics(s: Session, spec: LanguageServerSpec, paths: readonly string[]): Promise<ProviderOutcome<OpResult<'diagnostics'>>> {
    const batch = paths.slice(0, DIAGNOSTICS_LSP_MAX_FILES);
    const gaps: string[] = [];
    if (paths.length > batch.length) gaps.push(`${spec.name} was asked about ${batch.length} of ${paths.length} files (at most ${DIAGNOSTICS_LSP_MAX_FILES} per call); narrow the scope for the others`);
    const pull = !!s.capabilities.diagnosticProvider;
    // typescript-language-server publishes a file's union so far after each of tsserver's passes, so
    // a quiet stream does not mean the semantic pass came: ask tsserver itself (its *DiagnosticsSync
    // requests, through the server's typescript.tsserverRequest command).
    const tsserver = !pull && spec.name === 'typescript-language-server' && (s.capabilities.executeCommandProvider?.commands ?? []).includes('typescript.tsserverRequest');
    const out: EditorDiagnosticRow[] = [];
    const late: string[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < batch.length && !s.signal.aborted) {
        const rel = batch[next++]!;
        s.open(rel);
        const uri = s.uris.toUri(rel);
        let items: lsp.Diagnostic[] | undefined;
        if (pull) {
          const r = await s.send<lsp.DocumentDiagnosticReport | null>('textDocument/diagnostic', { textDocument: { uri } });
          items = r && r.kind === 'full' ? r.items : [];
        } else if (tsserver) items = await tsserverDiagnostics(s, rel);
        else items = await waitPublished(s, rel, uri);
        if (items === undefined) late.push(rel);
        else for (const d of items) out.push(fromLspDiagnostic(rel, d));
      }
    };
    await Promise.all(Array.from({ length: Math.min(DIAGNOSTICS_LSP_PARALLEL, batch.length) }, worker));
    if (late.length) gaps.push(`${spec.name} published no diagnostics in time for ${late.length} file(s): ${late.slice(0, 3).join(', ')}${late.length > 3 ? ', …' : ''}`);
    const asked = new Set(batch);
    const unchecked = [...late, ...paths.filter((p) => !asked.has(p)), ...batch.slice(next)];
    return { kind: 'ok', value: { rows: out, ...(unchecked.length ? { unchecked } : {}) }, ...(gaps.length ? { gaps } : {}) };
  }

  /** Opens the file of a position request and returns the position. */
  private position(s: Session, args: unknown): SourcePosition {
    const p = args as SourcePosition;
    s.open(p.path);
    return p;
  }

  /**
   * An item made by another provider (or an older server process) is prepared again from its
   * position, so its calls or types can be asked for here.
   */
  private async reprepare(s: Session, item: HierarchyItem, method: string): Promise<lsp.CallHierarchyItem | undefined> {
    if (item.origin === this.id) return fromHierarchyItem(s.uris, item, this.id);
    if (item.external) return fromHierarchyItem(s.uris, item, this.id);
    const raw = await s.send<lsp.CallHierarchyItem[] | null>(method, s.textDocumentPosition(item));
    return raw?.[0];
  }

  /**
   * A null or empty answer is only "nothing there" when the server knows the file. csharp-ls
   * answers null for files it cannot map to one project (linked files, multi-targeting without a
   * common framework, files outside the loaded solution): that is reported as unavailable.
   */
  private async emptyOrUnmapped(s: Session, spec: LanguageServerSpec, rel: string, r: unknown[] | null): Promise<ProviderOutcome<unknown>> {
    if (spec.id !== 'csharp') return { kind: 'ok', value: [] };
    const symbols = await s.documentSymbols(rel).catch(() => null);
    if (symbols !== null) return { kind: 'ok', value: r ?? [] };
    const cov = this.options.coverage?.('csharp', rel) ?? { kind: 'unknown' };
    let why: string;
    if (cov.kind === 'multi_project') why = `${rel} is compiled into ${cov.projects.length} projects (${cov.projects.slice(0, 3).join(', ')}); csharp-ls answers nothing for such files`;
    else if (cov.kind === 'not_covered') why = `${rel} is not in the loaded C# projects: ${cov.reason}`;
    else why = `csharp-ls has no single project for ${rel} (a linked file, a multi-targeted project, or a file outside the loaded solution)`;
    return { kind: 'unavailable', state: 'failed', reason: why };
  }

  private specFor(language: string): LanguageServerSpec | undefined {
    return this.specs.find((s) => s.languages.includes(language));
  }

  private serverFor(spec: LanguageServerSpec): LanguageServer {
    let s = this.servers.get(spec.id);
    if (!s) {
      s = new LanguageServer(spec, this.root, {
        languageOf: (rel) => languageOfPath(rel, this.extensions),
        ...(this.options.idleStopMs !== undefined ? { idleStopMs: this.options.idleStopMs } : {}),
      });
      this.servers.set(spec.id, s);
    }
    return s;
  }

  private rebuildSpecs(): void {
    const custom = this.options.servers ?? [];
    const builtIn = this.options.noDefaults
      ? []
      : [...(this.options.noCSharp ? [] : [csharpLsSpec({ ...this.csharpSolution(), extraArgs: this.options.csharpExtraArgs ?? [] })]), typescriptLanguageServerSpec()];
    const taken = new Set(custom.flatMap((s) => s.languages));
    // A configured command for a known server (same executable name) keeps the built-in settings.
    const known = [csharpLsSpec(), typescriptLanguageServerSpec()];
    const completed = custom.map((c) => {
      const k = known.find((b) => b.name === c.name);
      if (!k) return c;
      const merged: LanguageServerSpec = { ...c, readiness: k.readiness };
      for (const key of ['initializationOptions', 'warmup', 'settings', 'notes', 'versionArgs', 'env'] as const) {
        if (merged[key] === undefined && k[key] !== undefined) (merged as unknown as Record<string, unknown>)[key] = k[key];
      }
      return merged;
    });
    this.specs = [...completed, ...builtIn.filter((b) => !b.languages.some((l) => taken.has(l)))];
    // Whatever C# server runs, its design-time builds write outside the workspace (csharpReadOnly.ts).
    for (const spec of this.specs) if (spec.languages.includes('csharp')) spec.env = { ...spec.env, ...csharpReadOnlyEnv(this.tempDir()) };
    for (const s of custom) Object.assign(this.extensions, s.extensions ?? {});
  }

  private csharpSolution(): { solution?: string } {
    const sel = this.csharpSelection;
    if ('solution' in sel) return { solution: path.resolve(this.root, sel.solution) };
    if ('projects' in sel) return { solution: this.generateSolution(sel.projects) };
    return {};
  }

  /** This provider's folder in the temp folder (generated solutions, csharp-ls's build output); removed on dispose. */
  private tempDir(): string {
    if (!this.generatedDir) this.generatedDir = fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-sln-'));
    return this.generatedDir;
  }

  /** Writes a .slnx listing the projects (absolute paths) outside the workspace: tools never write there. */
  private generateSolution(projects: string[]): string {
    const abs = projects.map((p) => path.resolve(this.root, p));
    const hash = crypto.createHash('sha1').update(abs.join('\n')).digest('hex').slice(0, 12);
    const file = path.join(this.tempDir(), `sextant-${hash}.slnx`);
    const body = ['<Solution>', ...abs.map((p) => `  <Project Path="${escapeXml(p)}" />`), '</Solution>', ''].join('\n');
    fs.writeFileSync(file, body, { mode: 0o600 });
    return file;
  }
}

/** One item per type: csharp-ls returns one per partial declaration (same name, detail and kind). */
function mergePartials(items: HierarchyItem[]): HierarchyItem[] {
  const byKey = new Map<string, HierarchyItem>();
  const out: HierarchyItem[] = [];
  for (const item of items) {
    const key = `${item.kind}|${item.detail ?? ''}|${item.name}`;
    const first = byKey.get(key);
    if (!first) {
      byKey.set(key, item);
      out.push(item);
      continue;
    }
    const { path, line, column, endLine, endColumn } = item;
    const part: SemanticLocation = { path, line, column, endLine, endColumn };
    if (item.external) part.external = true;
    if (item.fullSpan) part.fullSpan = item.fullSpan;
    (first.partials ??= []).push(part);
  }
  return out;
}

function toAvailability(st: ServerStatus): ProviderAvailability {
  const base = { detail: st.detail, ...(st.progress ? { progress: st.progress } : {}) };
  switch (st.state) {
    case 'ready':
      return { ...base, state: 'ready', started: true };
    case 'starting':
    case 'loading':
      return { ...base, state: 'loading', started: true };
    case 'stopped':
      return { ...base, state: st.executable ? 'loading' : 'absent', started: false };
    case 'crashed':
    case 'failed':
      return { ...base, state: 'failed', started: true };
    case 'absent':
      return { ...base, state: 'absent', started: false };
  }
}

function capable(c: lsp.ServerCapabilities, op: SemanticOp): boolean {
  switch (op) {
    case 'definition':
      return !!c.definitionProvider;
    case 'references':
      return !!c.referencesProvider;
    case 'implementation':
      return !!c.implementationProvider;
    case 'prepareCallHierarchy':
    case 'incomingCalls':
    case 'outgoingCalls':
      return !!c.callHierarchyProvider;
    case 'prepareTypeHierarchy':
    case 'supertypes':
    case 'subtypes':
      return !!c.typeHierarchyProvider;
    case 'documentSymbols':
      return !!c.documentSymbolProvider;
    case 'workspaceSymbols':
      return !!c.workspaceSymbolProvider;
    case 'diagnostics':
      return true; // pulled (diagnosticProvider) or published after didOpen
    case 'documentation':
      return !!c.hoverProvider;
  }
}

type EditorDiagnosticRow = OpResult<'diagnostics'>['rows'][number];
const LSP_SEVERITY: Record<number, EditorDiagnosticRow['severity']> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };

function fromLspDiagnostic(rel: string, d: lsp.Diagnostic): EditorDiagnosticRow {
  const out: EditorDiagnosticRow = { path: rel, ...toSpan(d.range), severity: LSP_SEVERITY[d.severity ?? 1] ?? 'error', message: typeof d.message === 'string' ? d.message : d.message.value };
  if (d.code !== undefined && d.code !== '') out.code = String(d.code);
  if (d.source) out.source = d.source;
  return out;
}

const TS_CATEGORY: Record<string, lsp.DiagnosticSeverity> = { error: 1, warning: 2, message: 3, suggestion: 4 };

interface TsServerDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  code?: number;
  category?: string;
  source?: string;
}

/** tsserver's syntactic, semantic and suggestion diagnostics of an open file, as LSP diagnostics (lines/offsets are 1-based there). */
async function tsserverDiagnostics(s: Session, rel: string): Promise<lsp.Diagnostic[]> {
  const file = path.join(s.uris.root, rel);
  const out: lsp.Diagnostic[] = [];
  for (const command of ['syntacticDiagnosticsSync', 'semanticDiagnosticsSync', 'suggestionDiagnosticsSync']) {
    const r = await s.send<{ body?: TsServerDiagnostic[] } | TsServerDiagnostic[] | null>('workspace/executeCommand', { command: 'typescript.tsserverRequest', arguments: [command, { file }] });
    const list = Array.isArray(r) ? r : (r?.body ?? []);
    for (const d of list) {
      out.push({
        range: { start: { line: d.start.line - 1, character: d.start.offset - 1 }, end: { line: d.end.line - 1, character: d.end.offset - 1 } },
        message: d.text,
        severity: TS_CATEGORY[d.category ?? 'error'] ?? 1,
        source: d.source ?? 'typescript',
        ...(d.code !== undefined ? { code: d.code } : {}),
      });
    }
  }
  return out;
}

/**
 * The file's published diagnostics once the server published for it after its text was sent and
 * then went quiet for every file: typescript-language-server publishes a file's union so far after
 * each of tsserver's syntax / semantic / suggestion passes, and a pass over many files can leave one
 * file's semantic result seconds behind its syntax one. Undefined at the deadline.
 */
async function waitPublished(s: Session, rel: string, uri: string): Promise<lsp.Diagnostic[] | undefined> {
  const sent = s.documents.sentAt(rel) ?? 0;
  while (!s.signal.aborted && s.remainingMs() > 150) {
    const p = s.server.publishedDiagnostics(uri);
    const now = Date.now();
    if (p && p.at >= sent && now - s.server.lastPublishAt >= DIAGNOSTICS_PUBLISH_QUIET_MS) return p.diagnostics;
    await new Promise((r) => setTimeout(r, 50));
  }
  const p = s.server.publishedDiagnostics(uri);
  return p && p.at >= sent ? p.diagnostics : undefined;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
