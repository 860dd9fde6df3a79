/**
 * A bounded LRU of file contents for verification-heavy queries (search_text). Every lookup
 * re-validates the entry with lstat (size, mtime in ns, inode): a changed, replaced or linked file
 * is read again through the one-handle reader, so answers still reflect the file on disk now.
 */
import * as fs from 'node:fs';
import { LIVE_CACHE_BYTES, MAX_FILE_BYTES } from '../core/limits';
import { readWithOneHandle } from '../core/paths';

interface Entry {
  bytes: Buffer;
  mtimeNs: bigint;
  size: number;
  ino: bigint;
}

export class LiveFiles {
  private readonly map = new Map<string, Entry>();
  private bytes = 0;

  constructor(private readonly capacityBytes: number = LIVE_CACHE_BYTES) {}

  /** Contents and mtime (ms) of `abs`; throws ToolError like readWithOneHandle. */
  read(abs: string, rel: string): { bytes: Buffer; mtimeMs: number } {
    let st: fs.BigIntStats | undefined;
    try {
      st = fs.lstatSync(abs, { bigint: true });
    } catch {
      st = undefined;
    }
    const hit = this.map.get(abs);
    if (st && hit && st.isFile() && st.mtimeNs === hit.mtimeNs && Number(st.size) === hit.size && st.ino === hit.ino) {
      this.map.delete(abs);
      this.map.set(abs, hit); // most recently used
      return { bytes: hit.bytes, mtimeMs: Number(st.mtimeNs / 1_000_000n) };
    }
    if (hit) this.evict(abs, hit);
    const r = readWithOneHandle(abs, rel, MAX_FILE_BYTES);
    if (st && st.isFile() && Number(st.size) === r.bytes.length && r.bytes.length <= this.capacityBytes / 16) {
      const e: Entry = { bytes: r.bytes, mtimeNs: st.mtimeNs, size: r.bytes.length, ino: st.ino };
      this.map.set(abs, e);
      this.bytes += e.size;
      while (this.bytes > this.capacityBytes) {
        const [k, v] = this.map.entries().next().value as [string, Entry];
        this.evict(k, v);
      }
    }
    return r;
  }

  private evict(k: string, v: Entry): void {
    this.map.delete(k);
    this.bytes -= v.size;
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }

  get cachedBytes(): number {
    return this.bytes;
  }
}
