/**
 * A tree of a repository at one commit, as a user would have it before a pull request was made:
 * the files of that commit written out (read with `git cat-file --batch`; a blob the mirror does
 * not hold — its largest files may be absent — is skipped and counted), and, unless `history` is
 * false, a `.git` that knows only that commit's ancestors: a fresh repository whose objects come
 * from the mirror through `objects/info/alternates` (nothing copied) and whose one branch points at
 * the commit. No ref reaches a later commit, so `git log` — and every signal the engine derives from
 * it (co-change, past commit subjects) — sees history up to the commit and nothing of the pull
 * request or after it. The git index is written with `read-tree` (trees only) so `git status`
 * compares the files instead of calling every file untracked.
 *
 * A snapshot is made once per (repository, commit) and reused: `<dir>.complete` (beside the tree,
 * not in it) marks a finished one.
 */
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface SnapshotInfo {
  dir: string;
  commit: string;
  files: number;
  bytes: number;
  /** Blobs the mirror does not hold (not written). */
  missing: number;
  history: boolean;
  reused: boolean;
}

/** Files larger than this are not written (the engine would not index them either). */
const MAX_BLOB_BYTES = 4 * 1024 * 1024;

export function git(gitDir: string, args: string[], input?: string): string {
  return execFileSync('git', [`--git-dir=${gitDir}`, ...args], { encoding: 'utf8', maxBuffer: 1 << 28, ...(input !== undefined ? { input } : {}), stdio: ['pipe', 'pipe', 'pipe'] });
}

export async function snapshot(gitDir: string, rev: string, dir: string, history = true): Promise<SnapshotInfo> {
  const commit = git(gitDir, ['rev-parse', '--verify', `${rev}^{commit}`]).trim();
  const markFile = `${dir}.complete`;
  if (fs.existsSync(markFile)) return { ...(JSON.parse(fs.readFileSync(markFile, 'utf8')) as SnapshotInfo), reused: true };
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const entries = git(gitDir, ['ls-tree', '-r', '-z', '--format=%(objectmode) %(objectname) %(path)', commit])
    .split('\0')
    .filter(Boolean)
    .map((l) => {
      const a = l.indexOf(' ');
      const b = l.indexOf(' ', a + 1);
      return { mode: l.slice(0, a), sha: l.slice(a + 1, b), path: l.slice(b + 1) };
    })
    .filter((e) => e.mode === '100644' || e.mode === '100755');
  const { files, bytes, missing } = await writeBlobs(gitDir, entries, dir);
  if (history) {
    const g = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26 });
    g('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(dir, '.git/objects/info/alternates'), `${path.resolve(gitDir, 'objects')}\n`);
    g('update-ref', 'refs/heads/main', commit);
    g('read-tree', 'HEAD');
  }
  const info: SnapshotInfo = { dir, commit, files, bytes, missing, history, reused: false };
  fs.writeFileSync(markFile, JSON.stringify(info));
  return info;
}

/** Streams the blobs through one `git cat-file --batch` and writes them under `dir`. */
function writeBlobs(gitDir: string, entries: { mode: string; sha: string; path: string }[], dir: string): Promise<{ files: number; bytes: number; missing: number }> {
  return new Promise((resolve, reject) => {
    const p = spawn('git', [`--git-dir=${gitDir}`, 'cat-file', '--batch'], { stdio: ['pipe', 'pipe', 'inherit'] });
    let buf: Buffer = Buffer.alloc(0);
    let i = 0;
    let files = 0;
    let bytes = 0;
    let missing = 0;
    const madeDirs = new Set<string>();
    const pump = () => {
      for (;;) {
        if (i >= entries.length) return;
        const nl = buf.indexOf(10);
        if (nl < 0) return;
        const header = buf.subarray(0, nl).toString('utf8');
        if (header.endsWith(' missing')) {
          missing++;
          i++;
          buf = buf.subarray(nl + 1);
          continue;
        }
        const size = Number(header.slice(header.lastIndexOf(' ') + 1));
        if (buf.length < nl + 1 + size + 1) return;
        const body = buf.subarray(nl + 1, nl + 1 + size);
        const rel = entries[i]!.path;
        if (size <= MAX_BLOB_BYTES) {
          const abs = path.join(dir, rel);
          const parent = path.dirname(abs);
          if (!madeDirs.has(parent)) {
            fs.mkdirSync(parent, { recursive: true });
            madeDirs.add(parent);
          }
          fs.writeFileSync(abs, body, entries[i]!.mode === '100755' ? { mode: 0o755 } : {});
          files++;
          bytes += size;
        }
        i++;
        buf = buf.subarray(nl + 1 + size + 1);
      }
    };
    p.stdout.on('data', (d: Buffer) => {
      buf = buf.length ? Buffer.concat([buf, d]) : d;
      try {
        pump();
      } catch (e) {
        p.kill();
        reject(e);
      }
    });
    p.on('error', reject);
    p.on('close', (code) => {
      pump();
      if (code !== 0 && i < entries.length) reject(new Error(`git cat-file exited ${code} after ${i} of ${entries.length} blobs`));
      else resolve({ files, bytes, missing });
    });
    p.stdin.end(entries.map((e) => e.sha).join('\n') + '\n');
  });
}
