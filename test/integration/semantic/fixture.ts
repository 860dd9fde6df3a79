/**
 * Helpers for the semantic integration tests: temp copies of the fixtures (the C# one restored
 * with `dotnet restore`, as a user's build would), location formatting, latency percentiles.
 */
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SemanticLocation } from '../../../server/src/semantic/types';

export const FIXTURES = path.resolve(__dirname, '../../fixtures/semantic');

/** Copies a fixture folder to a fresh temp dir and returns its canonical path. */
export function copyFixture(name: 'csharp' | 'typescript'): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `sextant-sem-${name}-`)));
  fs.cpSync(path.join(FIXTURES, name), dir, { recursive: true });
  return dir;
}

/** `dotnet restore` of a C# fixture copy (the Shapes one by default: no package references, works offline). */
export function restoreCSharp(dir: string, solution = 'Shapes.sln'): void {
  const r = cp.spawnSync('dotnet', ['restore', solution, '--disable-build-servers', '-v', 'q'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', MSBUILDDISABLENODEREUSE: '1' },
    timeout: 180_000,
  });
  if (r.status !== 0) throw new Error(`dotnet restore failed (${r.status}): ${r.stdout}\n${r.stderr}`);
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** `path:line:column` of a location's name, the form expected values are written in. */
export function at(l: SemanticLocation | { path: string; line: number; column: number }): string {
  return `${l.path}:${l.line}:${l.column}`;
}

/** Sorted `path:line:column` strings. */
export function ats(list: readonly (SemanticLocation | { path: string; line: number; column: number })[]): string[] {
  return list.map(at).sort();
}

/** Position from `path:line:column`. */
export function pos(s: string): { path: string; line: number; column: number } {
  const m = /^(.*):(\d+):(\d+)$/.exec(s);
  if (!m) throw new Error(`bad position ${s}`);
  return { path: m[1]!, line: Number(m[2]), column: Number(m[3]) };
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

/** True when a process with this pid is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

/**
 * A restored temp copy of a generated C# workspace (the cached tree is never modified):
 * `dotnet restore` of its biggest solution, as a user's build would.
 */
export function restoredGeneratedCopy(root: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-sem-generated-')));
  fs.cpSync(root, dir, { recursive: true });
  const r = cp.spawnSync('dotnet', ['restore', 'Acme.sln', '--disable-build-servers', '-v', 'q'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', MSBUILDDISABLENODEREUSE: '1' },
    timeout: 400_000,
  });
  if (r.status !== 0) throw new Error(`dotnet restore failed (${r.status}): ${r.stdout}\n${r.stderr}`);
  return dir;
}
