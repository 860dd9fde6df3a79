/**
 * The persisted layer's units catalog: the catalog region (scipCatalog.ts) of every unit file of
 * `<index-root>/precise/` in one file, `units.catalog`, each with the size, modification time and
 * inode of the unit it was read from. A start takes a unit whose file still has that stamp from
 * here — one read for 3,000 projects instead of opening each file — and does not check its file
 * again: only units that were in the store after their own check are listed. A unit whose stamp
 * differs (rewritten, replaced, touched) is read from its file as before. A units catalog that does
 * not decode is ignored whole (every unit is then read from its file) and written again.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BinaryReader, BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { timeSlice } from '../../core/timeSlice';
import { readCatalogRegion, type CatalogRegion } from './scipCatalog';

export const UNITS_CATALOG_FILE = 'units.catalog';
const FORMAT = 'sextant units catalog 1';

/** What identifies one version of a unit file. */
export interface UnitStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

export interface UnitsCatalogEntry extends UnitStamp {
  /** The unit's file name in the folder. */
  name: string;
  region: CatalogRegion;
}

export function stampOf(file: string): UnitStamp | undefined {
  try {
    const s = fs.statSync(file);
    return { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino };
  } catch {
    return undefined;
  }
}

export function sameStamp(a: UnitStamp, b: UnitStamp): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}

/** The folder's units catalog by file name; empty when there is none or it does not decode. */
export function readUnitsCatalog(dir: string): Map<string, UnitsCatalogEntry> {
  const out = new Map<string, UnitsCatalogEntry>();
  let bytes: Uint8Array;
  try {
    bytes = fs.readFileSync(path.join(dir, UNITS_CATALOG_FILE));
  } catch {
    return out;
  }
  try {
    const r = new BinaryReader(bytes);
    let format = '';
    while (r.pos < r.len) {
      const [f, wt] = r.tag();
      if (f === 15 && wt === WireType.LengthDelimited) format = r.string();
      else if (f === 1 && wt === WireType.LengthDelimited) {
        const end = r.uint32() + r.pos;
        const e: UnitsCatalogEntry = { name: '', size: -1, mtimeMs: -1, ino: -1, region: { size: -1, catalogOffset: -1, catalog: new Uint8Array(0), metadataOffset: -1, metadata: new Uint8Array(0) } };
        while (r.pos < end) {
          const [g, gt] = r.tag();
          if (g === 1) e.name = r.string();
          else if (g === 2) e.size = e.region.size = Number(r.uint64());
          else if (g === 3) e.mtimeMs = r.double();
          else if (g === 4) e.ino = Number(r.uint64());
          else if (g === 5) e.region.catalogOffset = Number(r.uint64());
          else if (g === 6) e.region.metadataOffset = Number(r.uint64());
          else if (g === 7) e.region.catalog = r.bytes();
          else if (g === 8) e.region.metadata = r.bytes();
          else r.skip(gt, g);
        }
        if (r.pos !== end || !e.name || e.size < 0) throw new Error('a units catalog entry does not decode');
        out.set(e.name, e);
      } else r.skip(wt, f);
    }
    if (format !== FORMAT) return new Map();
  } catch {
    return new Map();
  }
  return out;
}

/**
 * Writes the units catalog of a folder for the given unit files (absolute paths): a file whose
 * stamp equals its entry in `known` keeps that region, any other is read from the file (one that
 * fails to read is left out). Atomic (temp file, rename); yields between files. Never throws.
 */
export async function writeUnitsCatalog(dir: string, files: readonly string[], known: ReadonlyMap<string, UnitsCatalogEntry>): Promise<number> {
  const slice = timeSlice();
  const w = new BinaryWriter();
  w.tag(15, WireType.LengthDelimited).string(FORMAT);
  let n = 0;
  for (const file of files) {
    await slice();
    const name = path.basename(file);
    const stamp = stampOf(file);
    if (!stamp) continue;
    const k = known.get(name);
    let region = k && sameStamp(k, stamp) ? k.region : undefined;
    if (!region) {
      try {
        region = readCatalogRegion(file);
      } catch {
        region = undefined;
      }
      // the file changed while it was read: left to the next start
      const after = stampOf(file);
      if (!after || !sameStamp(after, stamp)) region = undefined;
    }
    if (!region) continue;
    w.tag(1, WireType.LengthDelimited).fork();
    w.tag(1, WireType.LengthDelimited).string(name);
    w.tag(2, WireType.Varint).uint64(stamp.size);
    w.tag(3, WireType.Bit64).double(stamp.mtimeMs);
    w.tag(4, WireType.Varint).uint64(stamp.ino);
    w.tag(5, WireType.Varint).uint64(region.catalogOffset);
    w.tag(6, WireType.Varint).uint64(region.metadataOffset);
    w.tag(7, WireType.LengthDelimited).bytes(region.catalog);
    w.tag(8, WireType.LengthDelimited).bytes(region.metadata);
    w.join();
    n++;
  }
  const target = path.join(dir, UNITS_CATALOG_FILE);
  const tmp = `${target}.tmp-${process.pid}`;
  try {
    fs.writeFileSync(tmp, w.finish(), { mode: 0o600 });
    fs.renameSync(tmp, target);
  } catch {
    fs.rmSync(tmp, { force: true });
    return 0;
  }
  return n;
}
