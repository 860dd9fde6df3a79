/**
 * file_dependencies for C#: the workspace files declaring the types and members a file uses, or
 * (dependents) the files using the types the file declares; rows grouped by project.
 *
 * Precise (a semantic provider answers, e.g. the Roslyn host): the names the file uses — every
 * identifier that is not a declaration's own name, one question per distinct name (a member access
 * per receiver text and name) — are asked `definition`; the workspace files of the answers are the
 * rows. Dependents: `references` of every top-level type the file declares.
 * Heuristic (no provider): a name is a type declared in the syntax index whose namespace the file
 * can see (its own namespace and the enclosing ones, its `using` directives, the global namespace);
 * dependents are the files the text index says mention a declared type's name and that can see its
 * namespace the same way (using / namespace text, read live). Global usings of other files and
 * implicit usings are not seen by the heuristic.
 * Questions are bounded (CSHARP_DEPS_MAX_QUESTIONS, the deadline); what was left out makes the
 * answer `precise_partial` / partial. `depth` > 1 follows further hops with the heuristic.
 */
import type { Node } from 'web-tree-sitter';
import { CSHARP_DEPS_MAX_QUESTIONS, CSHARP_DEPS_PARALLEL, CSHARP_DEPS_USES_PER_ROW, MAX_FILE_BYTES } from '../core/limits';
import { ensureSymbolTables } from '../index/symbolTables';
import { matchFiles } from '../index/textIndex';
import { languageById } from '../syntax/languageConfig';
import { decodeSource } from '../syntax/parseBatch';
import { prepareLanguage, withTree } from '../syntax/parseFile';
import type { NavigationMode } from '../semantic/provider';
import type { Engine } from './engine';
import type { DepFileRow, DepQuery, FileDependencies } from './fileDependencies';
import { projectsOfFile } from './projects';
import { semanticService } from './semanticService';
import { timeSlice } from '../core/timeSlice';

const TYPE_KINDS = ['class', 'struct', 'interface', 'record', 'enum', 'delegate'];
/** Parents whose `name` child is the declared name, not a use. */
const DECLARES = /(_declaration|_declarator|^parameter|^type_parameter|^local_function_statement|^enum_member_declaration|^catch_declaration|^for_each_statement|^declaration_expression|^single_variable_designation)$/;

interface Use {
  name: string;
  line: number;
  column: number;
}

interface FileFacts {
  uses: Use[];
  /** Namespaces the file can see: usings, its own and enclosing namespaces, '' (global). */
  visible: Set<string>;
  /** Top-level types it declares, with their namespace. */
  declared: { name: string; namespace: string; line: number; column: number }[];
}

export async function csharpDependencies(engine: Engine, rel: string, q: DepQuery): Promise<FileDependencies> {
  // Each file parsed once per answer: a file of one hop is the `via` of the next hop's rows (their lines).
  const parsed = new Map<string, Promise<FileFacts>>();
  const factsFor = (p: string): Promise<FileFacts> => {
    let f = parsed.get(p);
    if (!f) parsed.set(p, (f = factsOf(engine, p)));
    return f;
  };
  // Dependents need only the types a file declares: from the symbol index, never a parse (a walk
  // of dependents parsed every file it reached; an 88 KB file of 3,000 members held the engine
  // thread ~150 ms per parse, seconds at load 20).
  const facts = q.direction === 'dependencies' ? await factsFor(rel) : declaredFacts(engine, rel);
  const notes: string[] = [];
  const result: FileDependencies = { path: rel, language: 'csharp', direction: q.direction, rows: [], notes };
  let first: Map<string, Set<string>>;
  let mode: NavigationMode;
  const gaps: string[] = [];
  const precise = await (q.direction === 'dependencies' ? preciseDependencies(engine, rel, facts, q) : preciseDependents(engine, rel, facts, q));
  if (precise) {
    first = precise.files;
    mode = precise.gaps.length ? 'precise_partial' : 'precise';
    gaps.push(...precise.gaps);
  } else {
    first = q.direction === 'dependencies' ? heuristicDependencies(engine, rel, facts) : await heuristicDependents(engine, rel, facts);
    mode = 'heuristic_no_precise';
    notes.push('no C# semantic provider answered: using directives + the symbol index');
  }
  result.mode = mode;
  // Hops beyond the first: the heuristic (a precise hop asks a provider about every name of every file).
  const rows = new Map<string, DepFileRow>();
  // Each further hop parses and reads every file of the level: in slices, stopped by the deadline.
  const slice = timeSlice();
  let cut = false;
  let frontier = [...first].map(([path, names]) => ({ path, names, via: undefined as string | undefined }));
  const seen = new Set([rel]);
  for (let d = 1; d <= q.depth && frontier.length; d++) {
    frontier.sort((a, b) => cmp(a.path, b.path));
    const level: DepFileRow[] = [];
    for (const f of frontier) {
      if (seen.has(f.path)) continue;
      seen.add(f.path);
      const row: DepFileRow = { path: f.path, line: 0 };
      level.push(row);
      rows.set(f.path, row);
      const uses = [...f.names].sort();
      row.uses = uses.slice(0, CSHARP_DEPS_USES_PER_ROW);
      if (d > 1) {
        row.depth = d;
        row.via = f.via!;
      }
    }
    if (d === q.depth) break;
    if (Date.now() > q.deadlineAt) {
      cut = true;
      break;
    }
    if (d === 1 && q.depth > 1) gaps.push(`hops beyond the first follow using directives and the symbol index (heuristic)`);
    const next: typeof frontier = [];
    for (const r of level) {
      await slice();
      if (Date.now() > q.deadlineAt) {
        cut = true;
        break;
      }
      const facts2 = q.direction === 'dependencies' ? await factsFor(r.path).catch(() => undefined) : declaredFacts(engine, r.path);
      if (!facts2) continue;
      const m = q.direction === 'dependencies' ? heuristicDependencies(engine, r.path, facts2) : await heuristicDependents(engine, r.path, facts2, slice);
      for (const [path, names] of m) next.push({ path, names, via: r.path });
    }
    frontier = next;
    if (cut) break;
  }
  if (cut) gaps.push('the deadline stopped the walk: files further away were not followed');
  if (mode === 'precise' && gaps.length) result.mode = 'precise_partial';
  // Line: the first use in the depending file (asked file for dependencies; the dependent otherwise).
  for (const r of rows.values()) {
    await slice();
    r.line = q.direction === 'dependencies' ? await firstUseLine(factsFor, r.via ?? rel, r.uses ?? []) : firstMentionLine(engine, r.path, r.uses ?? []);
    const project = projectsOfFile(engine, r.path)[0];
    if (project) r.project = project;
  }
  // Grouped by project: project, then depth, then path.
  result.rows = [...rows.values()].sort((a, b) => cmp(a.project ?? '\uffff', b.project ?? '\uffff') || (a.depth ?? 1) - (b.depth ?? 1) || cmp(a.path, b.path));
  if (gaps.length) result.partial = gaps.join('; ');
  return result;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

async function factsOf(engine: Engine, rel: string): Promise<FileFacts> {
  const config = (await prepareLanguage('csharp')) ?? languageById('csharp')!;
  const { bytes } = engine.policy.readFile(rel, MAX_FILE_BYTES);
  const text = decodeSource(bytes) ?? '';
  return withTree(text, config, (tree) => collect(tree.rootNode));
}

function collect(root: Node): FileFacts {
  const uses: Use[] = [];
  const visible = new Set<string>(['']);
  const declared: FileFacts['declared'] = [];
  const seen = new Set<string>();
  for (const u of root.descendantsOfType('using_directive')) {
    if (!u) continue;
    const name = u.namedChildren.filter((c) => c && (c.type === 'qualified_name' || c.type === 'identifier')).pop();
    if (name) visible.add(name.text.replace(/\s+/g, '').replace(/^global::/, ''));
  }
  const namespaces = root.descendantsOfType(['namespace_declaration', 'file_scoped_namespace_declaration']);
  for (const n of namespaces) {
    const name = n?.childForFieldName('name')?.text.replace(/\s+/g, '');
    if (!name) continue;
    const parts = name.split('.');
    for (let i = 1; i <= parts.length; i++) visible.add(parts.slice(0, i).join('.'));
  }
  for (const t of root.descendantsOfType(['class_declaration', 'struct_declaration', 'interface_declaration', 'record_declaration', 'enum_declaration', 'delegate_declaration'])) {
    if (!t) continue;
    const parent = t.parent;
    if (parent && parent.type !== 'compilation_unit' && parent.type !== 'declaration_list' && parent.type !== 'namespace_declaration' && parent.type !== 'file_scoped_namespace_declaration') continue;
    if (parent?.type === 'declaration_list' && parent.parent?.type !== 'namespace_declaration') continue; // nested type
    const nameNode = t.childForFieldName('name');
    if (!nameNode) continue;
    let ns = '';
    for (let a: Node | null = t.parent; a; a = a.parent) {
      if (a.type === 'namespace_declaration' || a.type === 'file_scoped_namespace_declaration') ns = (a.childForFieldName('name')?.text.replace(/\s+/g, '') ?? '') + (ns ? '.' + ns : '');
    }
    if (!ns) {
      const fileScoped = namespaces.find((n) => n?.type === 'file_scoped_namespace_declaration');
      if (fileScoped) ns = fileScoped.childForFieldName('name')?.text.replace(/\s+/g, '') ?? '';
    }
    declared.push({ name: nameNode.text, namespace: ns, line: nameNode.startPosition.row + 1, column: nameNode.startPosition.column + 1 });
  }
  for (const id of root.descendantsOfType('identifier')) {
    if (!id) continue;
    const p = id.parent;
    if (!p) continue;
    let key = id.text;
    if (p.type === 'member_access_expression' && p.childForFieldName('name')?.equals(id)) {
      const recv = p.childForFieldName('expression')?.text ?? '';
      key = recv.length <= 40 ? `${recv}.${id.text}` : id.text;
    }
    // A key already kept is skipped before the checks that walk up the tree (most identifiers of a big file repeat).
    if (seen.has(key)) continue;
    if (DECLARES.test(p.type) && p.childForFieldName('name')?.equals(id)) continue;
    if (inside(id, ['using_directive', 'namespace_declaration', 'file_scoped_namespace_declaration'], 3) && !inside(id, ['declaration_list'], 6)) continue;
    seen.add(key);
    uses.push({ name: id.text, line: id.startPosition.row + 1, column: id.startPosition.column + 1 });
  }
  return { uses, visible, declared };
}

function inside(n: Node, types: string[], hops: number): boolean {
  for (let a = n.parent, i = 0; a && i < hops; a = a.parent, i++) if (types.includes(a.type)) return true;
  return false;
}

/** The top-level types a file declares, from the symbol index (the same parser's rows; no uses, no visible namespaces). */
function declaredFacts(engine: Engine, rel: string): FileFacts {
  ensureSymbolTables(engine.store);
  // The row table by its primary key (file id, ordinal); through the symbols view the same question scanned every row.
  const declared = engine.store
    .rows(
      `SELECT r.name, ns.value, r.name_line, r.name_col, k.value, sc.container FROM symbol_rows r JOIN symbol_scopes sc ON sc.id = r.scope
         JOIN symbol_strings ns ON ns.id = sc.namespace JOIN symbol_strings k ON k.id = r.kind
       WHERE r.file_id = (SELECT id FROM files WHERE path = ?) ORDER BY r.ordinal`,
      [rel],
    )
    .filter((r) => r[5] === '' && TYPE_KINDS.includes(r[4] as string))
    .map((r) => ({ name: r[0] as string, namespace: String(r[1] ?? ''), line: r[2] as number, column: r[3] as number }));
  return { uses: [], visible: new Set(['']), declared };
}

/** The first line of a depending file that mentions one of `names` as a whole word (its row's line), read live. */
function firstMentionLine(engine: Engine, rel: string, names: string[]): number {
  const words = names.map((n) => n.replace(/[^\w]/g, '')).filter(Boolean);
  if (words.length === 0) return 1;
  let text: string | undefined;
  try {
    text = decodeSource(engine.policy.readFile(rel, MAX_FILE_BYTES).bytes);
  } catch {
    return 1;
  }
  if (!text) return 1;
  const re = new RegExp(`\\b(?:${words.join('|')})\\b`);
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    // Past the using directives: a using names a namespace, not the type.
    if (/^\s*(global\s+)?using\s/.test(lines[i]!) && !/[=(]/.test(lines[i]!)) continue;
    if (re.test(lines[i]!)) return i + 1;
  }
  return 1;
}

/** The first line of `rel` using one of `names` (for a row's line). */
async function firstUseLine(factsFor: (rel: string) => Promise<FileFacts>, rel: string, names: string[]): Promise<number> {
  const f = await factsFor(rel).catch(() => undefined);
  if (!f) return 1;
  const wanted = new Set(names);
  let best = 0;
  for (const u of f.uses) if (wanted.has(u.name) && (best === 0 || u.line < best)) best = u.line;
  return best || 1;
}

interface PreciseResult {
  files: Map<string, Set<string>>;
  gaps: string[];
}

async function pool<T>(items: T[], n: number, fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, async () => {
    while (i < items.length) await fn(items[i++]!);
  }));
}

/** Undefined when no precise provider answers (the caller falls back to the heuristic). */
async function preciseDependencies(engine: Engine, rel: string, facts: FileFacts, q: DepQuery): Promise<PreciseResult | undefined> {
  const svc = semanticService(engine);
  const uses = facts.uses.slice(0, CSHARP_DEPS_MAX_QUESTIONS);
  if (uses.length === 0) return { files: new Map(), gaps: [] };
  // The first question waits for the provider to be ready; it decides precise or heuristic.
  // Precise only: a heuristic answer is not used here (the heuristic path below answers by name), so it is not asked for.
  const ask = (u: Use) => svc.request('definition', 'csharp', { path: rel, line: u.line, column: u.column }, { deadlineAt: q.deadlineAt, name: u.name, preciseOnly: true });
  const first = await ask(uses[0]!);
  if (first.mode !== 'precise' && first.mode !== 'precise_partial') return undefined;
  const files = new Map<string, Set<string>>();
  const gaps = new Set<string>(first.gaps);
  let unanswered = 0;
  const add = (u: Use, locs: { path: string }[] | undefined) => {
    for (const l of locs ?? []) {
      if (l.path === rel || !engine.catalog().byRelPath(l.path)) continue;
      let s = files.get(l.path);
      if (!s) files.set(l.path, (s = new Set()));
      s.add(u.name);
    }
  };
  add(uses[0]!, first.value);
  await pool(uses.slice(1), CSHARP_DEPS_PARALLEL, async (u) => {
    if (Date.now() > q.deadlineAt) {
      unanswered++;
      return;
    }
    const a = await ask(u);
    if (a.mode !== 'precise' && a.mode !== 'precise_partial') unanswered++;
    for (const g of a.gaps) gaps.add(g);
    add(u, a.value);
  });
  const out = [...gaps];
  if (unanswered) out.push(`${unanswered} of ${uses.length} names not answered precisely (deadline or provider)`);
  if (facts.uses.length > uses.length) out.push(`${facts.uses.length - uses.length} names past the first ${CSHARP_DEPS_MAX_QUESTIONS} not asked`);
  return { files, gaps: out };
}

async function preciseDependents(engine: Engine, rel: string, facts: FileFacts, q: DepQuery): Promise<PreciseResult | undefined> {
  const svc = semanticService(engine);
  if (facts.declared.length === 0) return { files: new Map(), gaps: [] };
  const files = new Map<string, Set<string>>();
  const gaps = new Set<string>();
  let answered = 0;
  for (const t of facts.declared) {
    const a = await svc.request('references', 'csharp', { path: rel, line: t.line, column: t.column, includeDeclaration: false }, { deadlineAt: q.deadlineAt, name: t.name, preciseOnly: true });
    if (a.mode !== 'precise' && a.mode !== 'precise_partial') {
      if (answered === 0) return undefined;
      gaps.add(`references of ${t.name} not answered precisely`);
      continue;
    }
    answered++;
    for (const g of a.gaps) gaps.add(g);
    for (const l of a.value ?? []) {
      if (l.path === rel || !engine.catalog().byRelPath(l.path)) continue;
      let s = files.get(l.path);
      if (!s) files.set(l.path, (s = new Set()));
      s.add(t.name);
    }
  }
  return { files, gaps: [...gaps] };
}

/** Type names → files declaring a top-level type of that name in a namespace the file can see. */
function heuristicDependencies(engine: Engine, rel: string, facts: FileFacts): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const names = [...new Set(facts.uses.map((u) => u.name).filter((n) => /^[A-Z]/.test(n)))];
  const catalog = engine.catalog();
  for (let i = 0; i < names.length; i += 400) {
    const chunk = names.slice(i, i + 400);
    const rows = engine.store.rows(
      `SELECT file_id, name, namespace FROM symbols WHERE name IN (${chunk.map(() => '?').join(',')}) AND kind IN (${TYPE_KINDS.map(() => '?').join(',')}) AND container = ''`,
      [...chunk, ...TYPE_KINDS],
    );
    for (const r of rows) {
      const path = catalog.get(r[0] as number)?.path;
      if (!path || path === rel || !path.endsWith('.cs')) continue;
      if (!facts.visible.has(String(r[2] ?? ''))) continue;
      let s = out.get(path);
      if (!s) out.set(path, (s = new Set()));
      s.add(r[1] as string);
    }
  }
  return out;
}

/** Files mentioning a declared type's name (text index) that can see its namespace. */
async function heuristicDependents(engine: Engine, rel: string, facts: FileFacts, slice = timeSlice()): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  const catalog = engine.catalog();
  for (const t of facts.declared) {
    // Files declaring the same type (the other parts of a partial type) are not its users.
    const parts = new Set(
      engine.store
        .rows(`SELECT file_id FROM symbols WHERE name = ? AND namespace = ? AND container = '' AND kind IN (${TYPE_KINDS.map(() => '?').join(',')})`, [t.name, t.namespace, ...TYPE_KINDS])
        .map((r) => r[0] as number),
    );
    let ids: number[];
    try {
      ids = /^\w+$/.test(t.name) ? matchFiles(engine.store, `"${t.name.toLowerCase()}"`) : [];
    } catch {
      ids = [];
    }
    for (const id of ids) {
      await slice();
      const path = catalog.get(id)?.path;
      if (!path || path === rel || !path.endsWith('.cs') || parts.has(id)) continue;
      let text: string | undefined;
      try {
        text = decodeSource(engine.policy.readFile(path, MAX_FILE_BYTES).bytes);
      } catch {
        text = undefined;
      }
      if (!text || !new RegExp(`\\b${t.name}\\b`).test(text)) continue;
      if (!seesNamespace(text, t.namespace)) continue;
      let s = out.get(path);
      if (!s) out.set(path, (s = new Set()));
      s.add(t.name);
    }
  }
  return out;
}

function seesNamespace(text: string, ns: string): boolean {
  if (ns === '') return true;
  const esc = ns.replace(/\./g, '\\.');
  if (new RegExp(`^\\s*(global\\s+)?using\\s+(static\\s+)?${esc}\\s*;`, 'm').test(text)) return true;
  const m = /^\s*namespace\s+([\w.]+)/m.exec(text);
  return !!m && (m[1] === ns || m[1]!.startsWith(ns + '.'));
}


