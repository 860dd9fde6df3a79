/**
 * The Roslyn host fixture (test/fixtures/roslyn, "Harbor"): temp copies, an offline restore that
 * tolerates exactly the one package no feed serves, and a tree snapshot (paths, sizes, mtimes of
 * every file and folder) for the read-only checks.
 */
import * as cp from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export const ROSLYN_FIXTURE = path.resolve(__dirname, '../../fixtures/roslyn');
export const HARBOR_SOLUTION = 'Harbor.sln';
/** The PackageReference of Harbor.Net that no feed serves (restore reports NU1101 for it). */
export const UNSERVED_PACKAGE = 'Harbor.Telemetry.Unpublished';

/** Copies a fixture tree to a fresh temp dir and returns its canonical path. */
export function copyTree(src: string, prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `sextant-${prefix}-`)));
  fs.cpSync(src, dir, { recursive: true });
  return dir;
}

export const dotnetEnv = { ...process.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', MSBUILDDISABLENODEREUSE: '1', DOTNET_CLI_USE_MSBUILD_SERVER: '0' };

/**
 * `dotnet restore` of a copy of the Harbor fixture, as a user's build would. The only error
 * allowed is NU1101 for the unserved package (restore still writes project.assets.json for every
 * project); anything else throws.
 */
export function restoreHarbor(dir: string): void {
  const r = cp.spawnSync('dotnet', ['restore', HARBOR_SOLUTION, '--disable-build-servers', '-v', 'q', '-p:NuGetAudit=false'], { cwd: dir, encoding: 'utf8', env: dotnetEnv, timeout: 300_000 });
  const errors = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => /\berror\b/.test(l));
  const unexpected = errors.filter((l) => !(l.includes('NU1101') && l.includes(UNSERVED_PACKAGE)));
  if (r.error || unexpected.length > 0 || (r.status !== 0 && errors.length === 0)) {
    throw new Error(`dotnet restore of the Harbor fixture failed (${r.status}): ${unexpected.join('\n') || r.stderr || String(r.error)}`);
  }
  for (const p of ['src/Harbor.Core', 'src/Harbor.Text', 'src/Harbor.Net', 'src/Harbor.App', 'tests/Harbor.Tests']) {
    if (!fs.existsSync(path.join(dir, p, 'obj/project.assets.json'))) throw new Error(`restore wrote no project.assets.json for ${p}`);
  }
}

export interface TreeEntry {
  kind: 'file' | 'dir' | 'link';
  size: number;
  mtimeMs: number;
}

/** Every path under root (files, folders, links; nothing skipped) with size and mtime. */
export function snapshotTree(root: string): Map<string, TreeEntry> {
  const out = new Map<string, TreeEntry>();
  const walk = (dir: string, rel: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      const st = fs.lstatSync(abs);
      const kind = st.isSymbolicLink() ? 'link' : st.isDirectory() ? 'dir' : 'file';
      // A folder's size is the file system's; its mtime changes when an entry is created or removed in it.
      out.set(r, { kind, size: kind === 'dir' ? 0 : st.size, mtimeMs: st.mtimeMs });
      if (kind === 'dir') walk(abs, r);
    }
  };
  const st = fs.statSync(root);
  out.set('.', { kind: 'dir', size: 0, mtimeMs: st.mtimeMs });
  walk(root, '');
  return out;
}

/** Human-readable differences between two snapshots (empty: unchanged). */
export function diffTrees(before: Map<string, TreeEntry>, after: Map<string, TreeEntry>): string[] {
  const out: string[] = [];
  for (const [p, a] of after) {
    const b = before.get(p);
    if (!b) out.push(`created ${p}${a.kind === 'dir' ? '/' : ''}`);
    else if (b.kind !== a.kind || b.size !== a.size || b.mtimeMs !== a.mtimeMs) out.push(`changed ${p} (${b.kind} ${b.size} B @${b.mtimeMs} → ${a.kind} ${a.size} B @${a.mtimeMs})`);
  }
  for (const p of before.keys()) if (!after.has(p)) out.push(`removed ${p}`);
  return out.sort();
}
