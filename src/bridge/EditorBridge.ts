/**
 * The editor semantic bridge: answers the engine's `sextant/editor/query` requests with VS Code's
 * own providers (`vscode.execute*Provider`, call and type hierarchy commands), so agents reuse
 * what the editor already knows (C# Dev Kit / Roslyn, the TypeScript service, any language
 * extension) instead of starting a second compiler.
 *
 * Every call is isolated: a provider that throws or hangs yields an `error` / `unavailable`
 * value within the query's time, never an exception. While a language service is warming the
 * answer is checked for stability (see settle.ts); one still changing when time runs out is
 * returned with `gaps`, which the engine labels `precise_partial`.
 */
import * as vscode from 'vscode';
import type {
  EditorAnswer,
  EditorHierarchyItem,
  EditorIncomingCall,
  EditorLocation,
  EditorOpMap,
  EditorOutgoingCall,
  EditorPosition,
  EditorQuery,
  EditorReference,
  EditorDiagnostic,
  EditorDiagnostics,
  EditorDocumentation,
} from '../../server/src/protocol/protocol';
import { CHANGE_QUIET_MS, MAX_HIERARCHY_HANDLES, SETTLE_INTERVAL_MS, SETTLE_SHARE } from '../extensionLimits';
import { PathMapper, fromSpan, locationKey, toDocumentSymbols, toHierarchyItem, toLocation, toPosition, toSpan, toWorkspaceSymbol } from './convert';
import { describeExtensions, ensureProvidersActive } from './editorLanguages';
import { WarmTracker, settle } from './settle';

type HierarchyItem = vscode.CallHierarchyItem | vscode.TypeHierarchyItem;

class Timeout extends Error {}

export class EditorBridge {
  private readonly handles = new Map<number, HierarchyItem>();
  private nextHandle = 1;
  private readonly warm = new WarmTracker(CHANGE_QUIET_MS);

  constructor(
    readonly mapper: PathMapper,
    private readonly log: (line: string) => void = () => undefined,
    /** Called after a query activated the language's provider extensions. */
    private readonly onActivated: () => void = () => undefined,
  ) {}

  /** Answers one query. Never throws. */
  async answer(q: EditorQuery): Promise<EditorAnswer<unknown>> {
    const deadline = Date.now() + Math.max(1, q.timeoutMs);
    try {
      const exts = await withTimeout(ensureProvidersActive(q.language), deadline);
      this.onActivated();
      if (exts.length === 0) {
        return { kind: 'unavailable', state: 'absent', reason: `no editor extension provides ${q.language} language features` };
      }
      const via = describeExtensions(exts);
      const r = await this.run(q, deadline);
      if (r.gaps.length > 0) this.log(`${q.op} ${q.language}: partial (${r.gaps.join('; ')})`);
      return { kind: 'ok', value: r.value, via, ...(r.gaps.length > 0 ? { gaps: r.gaps } : {}) };
    } catch (e) {
      if (e instanceof Timeout) {
        return { kind: 'unavailable', state: 'loading', reason: `the editor's ${q.language} provider did not answer ${q.op} within ${q.timeoutMs} ms` };
      }
      return { kind: 'error', reason: `${q.op} failed in the editor: ${e instanceof Error ? e.message : String(e)}` };
    }
  }

  /** Drops hierarchy handles and warm-up state (a language extension restarted). */
  reset(): void {
    this.handles.clear();
    this.warm.reset();
  }

  /** The language's service may be reloading its project: prove it loaded again before trusting it. */
  coolDown(language?: string): void {
    this.warm.reset(language);
  }

  /** True once an answer for the language reached beyond the asked file (tests, status). */
  isWarm(language: string): boolean {
    return this.warm.isWarm(language);
  }

  private async run(q: EditorQuery, deadline: number): Promise<{ value: unknown; gaps: string[] }> {
    const exec = <T>(command: string, ...args: unknown[]): Promise<T> =>
      withTimeout(Promise.resolve(vscode.commands.executeCommand<T>(command, ...args)), deadline);
    /**
     * Asks through settle(): `fileOf` gives each row's file; rows all in `asked` (or none) are
     * what a loading service answers. `proves` = a row elsewhere shows the program is loaded.
     */
    const settled = async <T,>(
      ask: () => Promise<T[]>,
      key: (t: T) => string,
      asked: string,
      fileOf: ((t: T) => string) | undefined,
    ): Promise<{ value: T[]; gaps: string[] }> => {
      const budget = Math.max(0, (deadline - Date.now()) * SETTLE_SHARE);
      const confined = (v: T[]): boolean => v.length === 0 || (fileOf !== undefined && v.every((t) => fileOf(t) === asked));
      const r = await settle(ask, key, {
        timeoutMs: budget,
        intervalMs: SETTLE_INTERVAL_MS,
        warm: this.warm.isWarm(q.language),
        suspect: confined,
        notBefore: this.warm.notBefore(q.language),
      });
      if (fileOf && r.value.some((t) => fileOf(t) !== asked)) this.warm.markWarm(q.language);
      if (r.trusted) return { value: r.value, gaps: [] };
      const recent = this.warm.notBefore(q.language) > Date.now() - r.elapsedMs;
      const what = r.value.length === 0 ? 'nothing' : fileOf && r.value.every((t) => fileOf(t) === asked) ? `only rows in ${asked}` : `${r.value.length} rows`;
      const gap = recent
        ? `workspace files changed just before this question and the editor's ${q.language} language service had not caught up within ${r.elapsedMs} ms (it answered ${what}); rows may be missing`
        : `the editor's ${q.language} language service had not shown that its project is loaded: for ${r.elapsedMs} ms it answered ${what}, so rows in other files may be missing`;
      return { value: r.value, gaps: [gap] };
    };

    switch (q.op) {
      case 'definition':
      case 'implementation':
      case 'typeDefinition': {
        const command = {
          definition: 'vscode.executeDefinitionProvider',
          implementation: 'vscode.executeImplementationProvider',
          typeDefinition: 'vscode.executeTypeDefinitionProvider',
        }[q.op];
        const p = q.args as EditorPosition;
        return settled(async () => this.locations(await exec(command, this.mapper.toUri(p.path), toPosition(p))), locationKey, p.path, (l) => l.path);
      }
      case 'references': {
        const p = q.args as EditorOpMap['references']['args'];
        const uri = this.mapper.toUri(p.path);
        const pos = toPosition(p);
        let declarations = 0;
        let answered = 0;
        const r = await settled<EditorReference>(async () => {
          const [refs, defs] = await Promise.all([
            exec<vscode.Location[] | undefined>('vscode.executeReferenceProvider', uri, pos),
            exec<(vscode.Location | vscode.LocationLink)[] | undefined>('vscode.executeDefinitionProvider', uri, pos),
          ]);
          const defLocations = this.locations(defs);
          declarations = defLocations.length;
          const declared = new Set(defLocations.map((d) => `${d.path}:${d.line}:${d.column}:${d.endColumn}`));
          const rows: EditorReference[] = [];
          const refLocations = this.locations(refs);
          answered = refLocations.length;
          for (const l of refLocations) {
            const isDeclaration = declared.has(`${l.path}:${l.line}:${l.column}:${l.endColumn}`);
            if (isDeclaration && !p.includeDeclaration) continue;
            rows.push(isDeclaration ? { ...l, isDeclaration: true } : l);
          }
          return rows;
        }, locationKey, p.path, (l) => l.path);
        // VS Code's executeReferenceProvider asks with includeDeclaration and answers [] when the
        // provider failed (it logs the error and hides it): a symbol whose definition was found
        // has at least its declaration as a reference. Seen with csharp-ls when an analyzer
        // reference is unresolved. An error lets the engine ask its next provider. (An answer
        // already labelled with a gap says it answered nothing; a loading service does that.)
        if (answered === 0 && declarations > 0 && r.gaps.length === 0) {
          throw new Error(`the editor's ${q.language} reference provider answered nothing although its definition provider found the declaration (VS Code answers nothing when a provider fails; see the language extension's log)`);
        }
        return r;
      }
      case 'prepareCallHierarchy':
      case 'prepareTypeHierarchy': {
        const p = q.args as EditorPosition;
        const command = q.op === 'prepareCallHierarchy' ? 'vscode.prepareCallHierarchy' : 'vscode.prepareTypeHierarchy';
        return settled(async () => {
          const items = (await exec<HierarchyItem[] | undefined>(command, this.mapper.toUri(p.path), toPosition(p))) ?? [];
          return items.map((i) => toHierarchyItem(this.mapper, i, this.keep(i)));
        }, itemKey, p.path, undefined);
      }
      case 'incomingCalls': {
        const item = await this.itemOf(q.args as EditorHierarchyItem, 'call', exec);
        if (!item) return { value: [], gaps: ['the call hierarchy item is no longer known to the editor'] };
        return settled<EditorIncomingCall>(async () => {
          const calls = (await exec<vscode.CallHierarchyIncomingCall[] | undefined>('vscode.provideIncomingCalls', item)) ?? [];
          return calls.map((c) => {
            const from = toHierarchyItem(this.mapper, c.from, this.keep(c.from));
            return { from, sites: c.fromRanges.map(toSpan) };
          });
        }, (c) => itemKey(c.from), (q.args as EditorHierarchyItem).path, (c) => c.from.path);
      }
      case 'outgoingCalls': {
        const item = await this.itemOf(q.args as EditorHierarchyItem, 'call', exec);
        if (!item) return { value: [], gaps: ['the call hierarchy item is no longer known to the editor'] };
        return settled<EditorOutgoingCall>(async () => {
          const calls = (await exec<vscode.CallHierarchyOutgoingCall[] | undefined>('vscode.provideOutgoingCalls', item)) ?? [];
          return calls.map((c) => {
            const to = toHierarchyItem(this.mapper, c.to, this.keep(c.to));
            return { to, sites: c.fromRanges.map(toSpan) };
          });
        }, (c) => itemKey(c.to), (q.args as EditorHierarchyItem).path, (c) => c.to.path);
      }
      case 'supertypes':
      case 'subtypes': {
        const item = await this.itemOf(q.args as EditorHierarchyItem, 'type', exec);
        if (!item) return { value: [], gaps: ['the type hierarchy item is no longer known to the editor'] };
        const command = q.op === 'supertypes' ? 'vscode.provideSupertypes' : 'vscode.provideSubtypes';
        return settled<EditorHierarchyItem>(async () => {
          const items = (await exec<vscode.TypeHierarchyItem[] | undefined>(command, item)) ?? [];
          return items.map((i) => toHierarchyItem(this.mapper, i, this.keep(i)));
        }, itemKey, (q.args as EditorHierarchyItem).path, (i) => i.path);
      }
      case 'documentSymbols': {
        const { path } = q.args as { path: string };
        return settled(async () => {
          const list = (await exec<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>('vscode.executeDocumentSymbolProvider', this.mapper.toUri(path))) ?? [];
          return toDocumentSymbols(list);
        }, (d) => `${d.name}:${d.span.line}:${d.children.length}`, path, undefined);
      }
      case 'workspaceSymbols': {
        const { query } = q.args as { query: string };
        return settled(async () => {
          const list = (await exec<vscode.SymbolInformation[] | undefined>('vscode.executeWorkspaceSymbolProvider', query)) ?? [];
          return list.map((s) => toWorkspaceSymbol(this.mapper, s));
        }, (w) => `${w.name}@${locationKey(w.location)}`, '', undefined);
      }
      case 'diagnostics': {
        // What the editor holds now (its language services' last run on each file; unsaved buffers
        // included): no settling, a diagnostic list is complete for the moment it is read. A file
        // with no entry that is not open was never analysed (not "clean"): it is `unchecked`.
        const want = new Set((q.args as { paths: string[] }).paths);
        const rows: EditorDiagnostic[] = [];
        const seen = new Set<string>();
        for (const [uri, list] of vscode.languages.getDiagnostics()) {
          const where = this.mapper.fromUri(uri);
          if (where.external || !want.has(where.path)) continue;
          seen.add(where.path);
          for (const d of list) rows.push(toDiagnostic(where.path, d));
        }
        for (const d of vscode.workspace.textDocuments) {
          const where = this.mapper.fromUri(d.uri);
          if (!where.external) seen.add(where.path);
        }
        const unchecked = [...want].filter((p) => !seen.has(p));
        const value: EditorDiagnostics = { rows, ...(unchecked.length ? { unchecked } : {}) };
        return { value, gaps: [] };
      }
      case 'documentation': {
        // xml_doc's fallback: the hover providers' text at the declaration's name, joined. A loading
        // service answers no hover, or (TypeScript) one marked "(loading...)": asked again (settle);
        // still so when the time runs out is a gap, not "no documentation".
        const p = q.args as EditorPosition;
        const warm = this.warm.isWarm(q.language);
        const loading = (v: string[]) => v.some((t) => t.includes('(loading...)')) || (v.length === 0 && !warm);
        const r = await settle(
          async () => {
            const hovers = (await exec<vscode.Hover[] | undefined>('vscode.executeHoverProvider', this.mapper.toUri(p.path), toPosition(p))) ?? [];
            return hovers.flatMap((h) => h.contents.map((c) => (typeof c === 'string' ? c : 'language' in c ? '```' + c.language + '\n' + c.value + '\n```' : c.value))).filter((t) => t.trim() !== '');
          },
          (t) => t,
          { timeoutMs: Math.max(0, (deadline - Date.now()) * SETTLE_SHARE), intervalMs: SETTLE_INTERVAL_MS, warm: false, suspect: loading },
        );
        const value: EditorDocumentation | null = r.value.length ? { text: r.value.join('\n\n'), format: 'markdown' } : null;
        const gaps = r.trusted ? [] : [`the editor's ${q.language} language service was still loading after ${r.elapsedMs} ms (its hover ${r.value.length ? 'said loading' : 'was empty'})`];
        return { value, gaps };
      }
      default: {
        const never: never = q.op;
        throw new Error(`unknown op ${String(never)}`);
      }
    }
  }

  private locations(list: (vscode.Location | vscode.LocationLink)[] | vscode.Location | undefined | null): EditorLocation[] {
    if (!list) return [];
    const arr = Array.isArray(list) ? list : [list];
    const seen = new Set<string>();
    const out: EditorLocation[] = [];
    for (const l of arr) {
      const loc = toLocation(this.mapper, l);
      const k = `${loc.path}:${loc.line}:${loc.column}:${loc.endLine}:${loc.endColumn}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(loc);
    }
    return out;
  }

  private keep(item: HierarchyItem): number {
    const h = this.nextHandle++;
    this.handles.set(h, item);
    if (this.handles.size > MAX_HIERARCHY_HANDLES) {
      const oldest = this.handles.keys().next().value;
      if (oldest !== undefined) this.handles.delete(oldest);
    }
    return h;
  }

  /** The VS Code item behind a protocol item; re-prepared from its position when the handle expired. */
  private async itemOf(
    item: EditorHierarchyItem,
    kind: 'call' | 'type',
    exec: <T>(command: string, ...args: unknown[]) => Promise<T>,
  ): Promise<HierarchyItem | undefined> {
    const h = (item.data as { handle?: unknown } | undefined)?.handle;
    if (typeof h === 'number') {
      const known = this.handles.get(h);
      if (known) return known;
    }
    const command = kind === 'call' ? 'vscode.prepareCallHierarchy' : 'vscode.prepareTypeHierarchy';
    const start = fromSpan(item).start;
    const items = (await exec<HierarchyItem[] | undefined>(command, this.mapper.toUri(item.path), start)) ?? [];
    return items.find((i) => i.name === item.name) ?? items[0];
  }
}

const SEVERITY: Record<number, EditorDiagnostic['severity']> = { 0: 'error', 1: 'warning', 2: 'info', 3: 'hint' };

function toDiagnostic(path: string, d: vscode.Diagnostic): EditorDiagnostic {
  const out: EditorDiagnostic = { path, ...toSpan(d.range), severity: SEVERITY[d.severity] ?? 'info', message: d.message };
  const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
  if (code !== undefined && code !== '') out.code = String(code);
  if (d.source) out.source = d.source;
  return out;
}

const itemKey = (i: EditorHierarchyItem): string => `${i.name}@${locationKey(i)}`;

function withTimeout<T>(p: Promise<T>, deadline: number): Promise<T> {
  const ms = deadline - Date.now();
  if (ms <= 0) return Promise.reject(new Timeout());
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Timeout()), ms);
    }),
  ]);
}
