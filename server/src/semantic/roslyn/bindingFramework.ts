/**
 * The target framework a multi-targeting C# project's questions bind in. A restored project binds
 * in its first framework (its assets file holds every framework's packages). A project never
 * restored has no packages at all, so the framework that needs the fewest of them is the one that
 * binds the most: the newest `netX.0` the installed SDK has a reference pack for. MassTransit lists
 * `netstandard2.0` first, where System.Text.Json, Microsoft.Bcl.AsyncInterfaces (IAsyncDisposable)
 * and Microsoft.Extensions.* are packages; in net8.0+ they are part of the framework.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { findDotnet } from './roslynHost';

/**
 * `tfms` in the project's order; `sdkMajors`: the major versions of the SDK's
 * Microsoft.NETCore.App reference packs (empty: unknown, any netX.0 counts as available).
 */
export function fewestPackagesFramework(tfms: readonly string[], sdkMajors: readonly number[]): string | undefined {
  const core: { t: string; v: number; major: number }[] = [];
  for (const t of tfms) {
    // netX.Y with X >= 5, no platform (a -windows / -android framework needs its workload)
    const m = /^net(\d+)\.(\d+)$/.exec(t.trim().toLowerCase());
    if (m && +m[1]! >= 5) core.push({ t, v: +m[1]! * 100 + +m[2]!, major: +m[1]! });
  }
  if (core.length === 0) return tfms[0];
  const newestPack = sdkMajors.length ? Math.max(...sdkMajors) : Infinity;
  const served = core.filter((x) => x.major <= newestPack);
  // none the SDK has: the nearest above it (the host substitutes the newest pack and says so)
  const pick = served.length ? served.reduce((a, b) => (b.v > a.v ? b : a)) : core.reduce((a, b) => (b.v < a.v ? b : a));
  return pick.t;
}

let cachedMajors: number[] | undefined;

/** The major versions of the installed SDK's Microsoft.NETCore.App reference packs (`<dotnet root>/packs/…/<version>`), read once. */
export function sdkReferencePackMajors(): number[] {
  if (cachedMajors) return cachedMajors;
  const out = new Set<number>();
  const dotnet = findDotnet();
  if (dotnet) {
    try {
      const dir = path.join(path.dirname(fs.realpathSync(dotnet)), 'packs', 'Microsoft.NETCore.App.Ref');
      for (const v of fs.readdirSync(dir)) {
        const m = /^(\d+)\./.exec(v);
        if (m) out.add(+m[1]!);
      }
    } catch {
      /* no packs folder: unknown */
    }
  }
  cachedMajors = [...out].sort((a, b) => a - b);
  return cachedMajors;
}
