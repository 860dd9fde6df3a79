/**
 * Snapshot helpers for syntax tests: the fixture source printed with a marker line under each
 * declaration's name, and a comparison that prints a line diff plus the command that accepts the
 * new output (`SEXTANT_UPDATE_SNAPSHOTS=1`).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FileSyntax, OutlineSymbol } from '../../../server/src/syntax/types';

export const UPDATE = process.env.SEXTANT_UPDATE_SNAPSHOTS === '1';

/** Renders the source with `^^^ kind name …` under every declaration name. */
export function renderOutline(source: string, fs_: FileSyntax): string {
  const lines = source.replace(/\r\n/g, '\n').split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  const byLine = new Map<number, OutlineSymbol[]>();
  for (const s of fs_.symbols) {
    const list = byLine.get(s.nameLine) ?? [];
    list.push(s);
    byLine.set(s.nameLine, list);
  }
  const width = String(lines.length).length;
  const out: string[] = [];
  const d = fs_.diagnostics;
  out.push(`# ${fs_.path} (${fs_.language}) lines=${fs_.lineCount} symbols=${fs_.symbols.length} generated=${fs_.isGenerated} hasErrors=${d.hasErrors}` +
    (d.errorLines.length ? ` errorLines=${d.errorLines.join(',')}` : '') +
    (d.reparsedWith.length ? ` reparsed=[${d.reparsedWith.join('; ')}]` : '') +
    (d.recoveredDeclarations ? ` recovered=${d.recoveredDeclarations}` : ''));
  lines.forEach((text, i) => {
    const n = i + 1;
    out.push(`${String(n).padStart(width)} | ${text}`.trimEnd());
    const syms = (byLine.get(n) ?? []).sort((a, b) => a.nameColumn - b.nameColumn);
    for (const s of syms) {
      const pad = ' '.repeat(width) + ' | ' + ' '.repeat(Math.max(0, s.nameColumn - 1));
      const flags = [
        s.modifiers.length ? `[${s.modifiers.join(' ')}]` : '',
        s.attributes.length ? s.attributes.map((a) => `@${a}`).join(' ') : '',
        s.isTest ? 'test' : '',
        s.isGenerated ? 'generated' : '',
        s.extendedType ? `extends(${s.extendedType})` : '',
        s.recovered ? 'recovered' : '',
      ].filter(Boolean).join(' ');
      const parent = s.parent >= 0 ? fs_.symbols[s.parent]?.name : undefined;
      out.push(`${pad}${'^'.repeat(Math.max(1, Math.min(s.name.length, 60)))} ${s.kind} ${s.qualifiedName} L${s.line}:${s.column}-L${s.endLine}${parent ? ` in ${parent}` : ''}${flags ? ' ' + flags : ''}`);
      out.push(`${pad}  id: ${s.id}`);
      out.push(`${pad}  sig: ${s.signature}`);
    }
  });
  return out.join('\n') + '\n';
}

/** Compares `actual` with the snapshot file (or writes it when updating / missing under update). */
export function matchSnapshot(file: string, actual: string, testFile: string): void {
  if (UPDATE) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  const update = `SEXTANT_UPDATE_SNAPSHOTS=1 npx mocha ${testFile}`;
  if (!fs.existsSync(file)) assert.fail(`snapshot ${path.relative(process.cwd(), file)} is missing; create it with:\n  ${update}`);
  const expected = fs.readFileSync(file, 'utf8');
  if (expected === actual) return;
  assert.fail(`snapshot ${path.relative(process.cwd(), file)} differs:\n${lineDiff(expected, actual)}\nIf the new output is right, accept it with:\n  ${update}`);
}

/** A compact line diff (LCS), showing changed lines with 2 lines of context. */
export function lineDiff(a: string, b: string): string {
  const x = a.split('\n');
  const y = b.split('\n');
  const n = x.length;
  const m = y.length;
  const dp: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i]![j] = x[i] === y[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
  const ops: { t: ' ' | '-' | '+'; s: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (x[i] === y[j]) {
      ops.push({ t: ' ', s: x[i]! });
      i++;
      j++;
    } else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) ops.push({ t: '-', s: x[i++]! });
    else ops.push({ t: '+', s: y[j++]! });
  }
  while (i < n) ops.push({ t: '-', s: x[i++]! });
  while (j < m) ops.push({ t: '+', s: y[j++]! });
  const keep = new Set<number>();
  ops.forEach((o, k) => {
    if (o.t !== ' ') for (let c = k - 2; c <= k + 2; c++) keep.add(c);
  });
  const out: string[] = [];
  let last = -1;
  ops.forEach((o, k) => {
    if (!keep.has(k)) return;
    if (last >= 0 && k > last + 1) out.push('  ...');
    out.push(`${o.t} ${o.s}`);
    last = k;
  });
  return out.slice(0, 200).join('\n');
}
