/**
 * The oracle for TS/JS monorepo answers: the TypeScript language service itself over every
 * program of the workspace — each tsconfig.json / jsconfig.json (outside node_modules), parsed by
 * TypeScript, plus one inferred program for the source files no config includes (as tsserver opens
 * a loose file) — with answers merged over every program that compiles the target file. Written
 * independently of the engine's host (semantic/tsprograms/): its own walk, hosts and merging.
 *
 * `compareWithOracle` asks the engine (nav queries, the way the MCP tools do, with the tool
 * deadline) and the oracle the same questions — references, implementations, callers and
 * definitions from use sites — and scores them: precision / recall per op (micro-averaged), and
 * every answer that missed something but was labelled plain `precise`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import ts from 'typescript';
import { TOOL_DEADLINE_MS } from '../../../server/src/core/limits';
import type { Engine } from '../../../server/src/nav/engine';
import { callsQuery, definitionQuery, implementationsQuery, referencesQuery } from '../../../server/src/nav/semanticQueries';
import { percentile } from './fixture';

const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;

interface OracleProgram {
  id: string;
  service: ts.LanguageService;
}

export interface OracleTarget {
  path: string;
  line: number;
  column: number;
  name: string;
  kind: 'function' | 'class' | 'interface' | 'method' | 'abstract';
}

/** Every program of the workspace, as the TypeScript service would load them. */
export class TsOracle {
  readonly programs: OracleProgram[] = [];
  private readonly registry = ts.createDocumentRegistry();
  private readonly roots = new Map<string, Set<string>>();

  constructor(readonly root: string) {
    const files = walk(root);
    const configs = files.filter((f) => /(^|\/)(tsconfig|jsconfig)\.json$/.test(f));
    const covered = new Set<string>();
    for (const c of configs) {
      const abs = path.join(root, c);
      const parsed = ts.getParsedCommandLineOfConfigFile(abs, { noEmit: true }, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
      if (!parsed || parsed.fileNames.length === 0) continue;
      this.add(c, parsed.fileNames, parsed.options, path.dirname(abs), parsed.projectReferences);
      for (const f of parsed.fileNames) covered.add(path.relative(root, f).split(path.sep).join('/'));
    }
    const loose = files.filter((f) => SOURCE.test(f) && !covered.has(f) && !f.endsWith('.d.ts'));
    if (loose.length > 0) {
      this.add('(inferred)', loose.map((f) => path.join(root, f)), { allowJs: true, target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext, moduleResolution: ts.ModuleResolutionKind.Bundler, jsx: ts.JsxEmit.Preserve, skipLibCheck: true, noEmit: true }, root);
    }
  }

  dispose(): void {
    for (const p of this.programs) p.service.dispose();
  }

  /** Programs whose compilation contains the file. */
  programsOf(rel: string): { p: OracleProgram; program: ts.Program; sf: ts.SourceFile }[] {
    const abs = path.join(this.root, rel);
    const out: { p: OracleProgram; program: ts.Program; sf: ts.SourceFile }[] = [];
    for (const p of this.programs) {
      const program = p.service.getProgram()!;
      const sf = program.getSourceFile(abs);
      if (sf) out.push({ p, program, sf });
    }
    return out;
  }

  references(t: { path: string; line: number; column: number }): Set<string> {
    const out = new Set<string>();
    for (const { p, sf } of this.programsOf(t.path)) {
      for (const s of p.service.findReferences(sf.fileName, offset(sf, t)) ?? []) for (const r of s.references) out.add(this.key(p, r.fileName, r.textSpan.start));
    }
    out.delete('');
    return out;
  }

  implementations(t: { path: string; line: number; column: number }): Set<string> {
    const out = new Set<string>();
    for (const { p, sf } of this.programsOf(t.path)) for (const r of p.service.getImplementationAtPosition(sf.fileName, offset(sf, t)) ?? []) out.add(this.key(p, r.fileName, r.textSpan.start));
    out.delete('');
    return out;
  }

  /** Callers as `path:line:column` of the caller's name (a module: its file at 1:1). */
  callers(t: { path: string; line: number; column: number }): Set<string> {
    const out = new Set<string>();
    for (const { p, sf } of this.programsOf(t.path)) {
      const prep = p.service.prepareCallHierarchy(sf.fileName, offset(sf, t));
      const item = Array.isArray(prep) ? prep[0] : prep;
      if (!item) continue;
      for (const c of p.service.provideCallHierarchyIncomingCalls(item.file, item.selectionSpan.start)) out.add(this.key(p, c.from.file, c.from.selectionSpan.start));
    }
    out.delete('');
    return out;
  }

  /** Definitions at a position, from the nearest program containing the file. */
  definitions(t: { path: string; line: number; column: number }): Set<string> {
    const out = new Set<string>();
    for (const { p, sf } of this.programsOf(t.path)) {
      for (const d of p.service.getDefinitionAtPosition(sf.fileName, offset(sf, t)) ?? []) out.add(this.key(p, d.fileName, d.textSpan.start));
      if (out.size > 0) break;
    }
    out.delete('');
    return out;
  }

  /** Exported functions, classes, interfaces and their methods, in files whose path passes `keep`. */
  targets(keep: (rel: string) => boolean): OracleTarget[] {
    const seen = new Set<string>();
    const out: OracleTarget[] = [];
    for (const p of this.programs) {
      const program = p.service.getProgram()!;
      for (const sf of program.getSourceFiles()) {
        const rel = this.rel(sf.fileName);
        if (!rel || seen.has(rel) || !keep(rel) || sf.isDeclarationFile) continue;
        seen.add(rel);
        const at = (n: ts.Node, name: string, kind: OracleTarget['kind']) => {
          const lc = sf.getLineAndCharacterOfPosition(n.getStart(sf));
          out.push({ path: rel, line: lc.line + 1, column: lc.character + 1, name, kind });
        };
        for (const s of sf.statements) {
          const exported = ts.canHaveModifiers(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
          if (!exported) continue;
          if (ts.isFunctionDeclaration(s) && s.name) at(s.name, s.name.text, 'function');
          if ((ts.isClassDeclaration(s) || ts.isInterfaceDeclaration(s)) && s.name) {
            const abstract = ts.isClassDeclaration(s) && ts.getModifiers(s)?.some((m) => m.kind === ts.SyntaxKind.AbstractKeyword);
            at(s.name, s.name.text, ts.isInterfaceDeclaration(s) ? 'interface' : abstract ? 'abstract' : 'class');
            for (const m of s.members) {
              if ((ts.isMethodDeclaration(m) || ts.isMethodSignature(m)) && m.name && ts.isIdentifier(m.name)) {
                const isAbstract = ts.getModifiers(m)?.some((x) => x.kind === ts.SyntaxKind.AbstractKeyword);
                at(m.name, `${s.name.text}.${m.name.text}`, ts.isInterfaceDeclaration(s) || isAbstract ? 'abstract' : 'method');
              }
            }
          }
        }
      }
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  }

  private add(id: string, fileNames: string[], options: ts.CompilerOptions, dir: string, projectReferences?: readonly ts.ProjectReference[]): void {
    const versions = new Map<string, string>();
    const host: ts.LanguageServiceHost = {
      getCompilationSettings: () => options,
      getScriptFileNames: () => fileNames,
      getProjectReferences: () => projectReferences,
      getScriptVersion: (f) => versions.get(f) ?? '1',
      getScriptSnapshot: (f) => {
        const text = ts.sys.readFile(f);
        return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
      },
      getCurrentDirectory: () => dir,
      getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
      fileExists: ts.sys.fileExists,
      readFile: ts.sys.readFile,
      readDirectory: ts.sys.readDirectory,
      directoryExists: ts.sys.directoryExists,
      getDirectories: ts.sys.getDirectories,
      realpath: ts.sys.realpath!,
      useSourceOfProjectReferenceRedirect: () => true,
    } as ts.LanguageServiceHost;
    this.programs.push({ id, service: ts.createLanguageService(host, this.registry) });
    this.roots.set(id, new Set(fileNames));
  }

  private rel(fileName: string): string | undefined {
    const r = path.relative(this.root, fileName);
    return r.startsWith('..') || path.isAbsolute(r) ? undefined : r.split(path.sep).join('/');
  }

  private key(p: OracleProgram, fileName: string, start: number): string {
    const rel = this.rel(fileName);
    if (!rel) return '';
    const sf = p.service.getProgram()!.getSourceFile(fileName);
    if (!sf) return '';
    const lc = sf.getLineAndCharacterOfPosition(start);
    return `${rel}:${lc.line + 1}:${lc.character + 1}`;
  }
}

function offset(sf: ts.SourceFile, t: { line: number; column: number }): number {
  return sf.getPositionOfLineAndCharacter(t.line - 1, t.column - 1);
}

function walk(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const e of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name === '.git' || e.name === 'dist' || e.name === '.sextant') continue;
      const rel = dir ? `${dir}/${e.name}` : e.name;
      if (e.isDirectory()) visit(rel);
      else if (e.isFile()) out.push(rel);
    }
  };
  visit('');
  return out;
}

// ─── scoring ────────────────────────────────────────────────────────────────

export interface OpScore {
  questions: number;
  expected: number;
  found: number;
  correct: number;
  precision: number;
  recall: number;
  /** Answers that missed something (recall < 1) yet said `precise`. */
  missedButPrecise: string[];
  /** Answers labelled precise_partial. */
  partial: number;
  latencyMs: { first: number[]; second: number[] };
  /** The second pass (programs loaded by then): recall, and misses labelled plain precise. */
  second: { correct: number; found: number; recall: number; partial: number; missedButPrecise: number };
}

export type Op = 'references' | 'implementations' | 'callers' | 'definition';

export interface OracleReport {
  ops: Record<Op, OpScore>;
  misses: string[];
  /** The engine thread's event-loop delay while each pass ran (ms): max and p99. */
  eventLoop: Record<'first' | 'second', { maxMs: number; p99Ms: number }>;
}

type Q = { op: Op; target: { path: string; line: number; column: number }; label: string; expected: Set<string> };

/** The questions for a set of targets (definition questions from up to 3 use sites each). */
export function questions(oracle: TsOracle, targets: OracleTarget[]): Q[] {
  const out: Q[] = [];
  for (const full of targets) {
    const t = { path: full.path, line: full.line, column: full.column };
    const refs = oracle.references(t);
    out.push({ op: 'references', target: t, label: full.name, expected: refs });
    if (full.kind === 'interface' || full.kind === 'abstract' || full.kind === 'class') out.push({ op: 'implementations', target: t, label: full.name, expected: oracle.implementations(t) });
    if (full.kind === 'function' || full.kind === 'method') out.push({ op: 'callers', target: t, label: full.name, expected: oracle.callers(t) });
    const self = `${t.path}:${t.line}:${t.column}`;
    const uses = [...refs].filter((r) => r !== self).sort();
    for (const u of [uses[0], uses[Math.floor(uses.length / 2)], uses[uses.length - 1]].filter((x, i, a): x is string => x !== undefined && a.indexOf(x) === i)) {
      const m = /^(.*):(\d+):(\d+)$/.exec(u)!;
      const target = { path: m[1]!, line: Number(m[2]), column: Number(m[3]) };
      out.push({ op: 'definition', target, label: `${full.name} @${u}`, expected: oracle.definitions(target) });
    }
  }
  return out;
}

async function ask(engine: Engine, q: Q): Promise<{ found: Set<string>; mode: string; gaps: string[] }> {
  const deadlineAt = Date.now() + TOOL_DEADLINE_MS;
  const keyOf = (r: { path: string; line: number; column: number }) => `${r.path}:${r.line}:${r.column}`;
  switch (q.op) {
    case 'references': {
      const a = await referencesQuery(engine, q.target, { deadlineAt, includeDefinition: true });
      if ('ambiguous' in a) return { found: new Set(), mode: 'ambiguous', gaps: [] };
      return { found: new Set(a.rows.filter((r) => !r.external).map(keyOf)), mode: a.mode, gaps: a.gaps };
    }
    case 'implementations': {
      const a = await implementationsQuery(engine, q.target, { deadlineAt });
      if ('ambiguous' in a) return { found: new Set(), mode: 'ambiguous', gaps: [] };
      return { found: new Set(a.rows.filter((r) => !r.external).map(keyOf)), mode: a.mode, gaps: a.gaps };
    }
    case 'callers': {
      const a = await callsQuery(engine, q.target, 'incoming', 1, 10_000, { deadlineAt });
      if ('ambiguous' in a) return { found: new Set(), mode: 'ambiguous', gaps: [] };
      return { found: new Set(a.edges.map((e) => keyOf(e.caller))), mode: a.mode, gaps: a.gaps };
    }
    case 'definition': {
      const a = await definitionQuery(engine, q.target, { deadlineAt });
      if ('ambiguous' in a) return { found: new Set(), mode: 'ambiguous', gaps: [] };
      return { found: new Set(a.rows.filter((r) => !r.external).map(keyOf)), mode: a.mode, gaps: a.gaps };
    }
  }
}

/** Asks every question twice (first and second pass) and scores the first pass against the oracle. */
export async function compareWithOracle(engine: Engine, qs: Q[]): Promise<OracleReport> {
  const blank = (): OpScore => ({ questions: 0, expected: 0, found: 0, correct: 0, precision: 1, recall: 1, missedButPrecise: [], partial: 0, latencyMs: { first: [], second: [] }, second: { correct: 0, found: 0, recall: 1, partial: 0, missedButPrecise: 0 } });
  const ops: Record<Op, OpScore> = { references: blank(), implementations: blank(), callers: blank(), definition: blank() };
  const misses: string[] = [];
  const eventLoop = { first: { maxMs: 0, p99Ms: 0 }, second: { maxMs: 0, p99Ms: 0 } };
  for (const pass of ['first', 'second'] as const) {
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    for (const q of qs) {
      const t0 = Date.now();
      const a = await ask(engine, q);
      const s = ops[q.op];
      s.latencyMs[pass].push(Date.now() - t0);
      if (pass === 'second') {
        s.second.found += a.found.size;
        s.second.correct += [...a.found].filter((k) => q.expected.has(k)).length;
        if (a.mode === 'precise_partial') s.second.partial++;
        if (a.mode === 'precise' && [...q.expected].some((k) => !a.found.has(k))) s.second.missedButPrecise++;
        continue;
      }
      s.questions++;
      s.expected += q.expected.size;
      s.found += a.found.size;
      const correct = [...a.found].filter((k) => q.expected.has(k)).length;
      s.correct += correct;
      if (a.mode === 'precise_partial') s.partial++;
      const missed = [...q.expected].filter((k) => !a.found.has(k));
      const extra = [...a.found].filter((k) => !q.expected.has(k));
      if (missed.length > 0 && a.mode === 'precise') s.missedButPrecise.push(`${q.op} ${q.label}: ${missed.length} missed`);
      if (missed.length || extra.length) misses.push(`${q.op} ${q.label} [${a.mode}${a.gaps.length ? `: ${a.gaps.join('; ')}` : ''}]: missed ${missed.slice(0, 3).join(', ')}${missed.length > 3 ? ` (+${missed.length - 3})` : ''}; extra ${extra.slice(0, 3).join(', ')}`);
    }
    delay.disable();
    eventLoop[pass] = { maxMs: Math.round(delay.max / 1e6), p99Ms: Math.round(delay.percentile(99) / 1e6) };
  }
  for (const s of Object.values(ops)) {
    s.precision = s.found === 0 ? 1 : s.correct / s.found;
    s.recall = s.expected === 0 ? 1 : s.correct / s.expected;
    s.second.recall = s.expected === 0 ? 1 : s.second.correct / s.expected;
  }
  return { ops, misses, eventLoop };
}

/** One line per op: scores and latency (median / p95, first and second pass), then the event-loop delay. */
export function formatReport(r: OracleReport): string[] {
  const loop = `engine thread event-loop delay: first pass max ${r.eventLoop.first.maxMs} ms p99 ${r.eventLoop.first.p99Ms} ms; second pass max ${r.eventLoop.second.maxMs} ms p99 ${r.eventLoop.second.p99Ms} ms`;
  return [...(Object.entries(r.ops) as [Op, OpScore][]).map(([op, s]) => {
    const lat = (xs: number[]) => `${percentile(xs, 50)}/${percentile(xs, 95)} ms`;
    return `${op.padEnd(15)} q=${s.questions} expected=${s.expected} found=${s.found} precision=${s.precision.toFixed(4)} recall=${s.recall.toFixed(4)} partial=${s.partial} missed-but-precise=${s.missedButPrecise.length} | second pass recall=${s.second.recall.toFixed(4)} partial=${s.second.partial} missed-but-precise=${s.second.missedButPrecise} | latency p50/p95 first ${lat(s.latencyMs.first)}, second ${lat(s.latencyMs.second)}`;
  }), loop];
}
