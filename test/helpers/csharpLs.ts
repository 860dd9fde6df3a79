/**
 * The C# semantic tests need csharp-ls, which `npm install` puts in <checkout>/.tools/csharp-ls/
 * when dotnet is present. Where it is missing they skip and print why, instead of failing on a
 * heuristic answer; with SEXTANT_REQUIRE_CSHARP_LS=1 (CI) a missing csharp-ls fails them instead.
 */
import * as cp from 'node:child_process';
import { csharpLsSpec, findExecutable, searchedPlaces } from '../../server/src/semantic/lsp/serverSpec';

let dotnetFound: boolean | undefined;

function dotnetMissing(): string | undefined {
  dotnetFound ??= cp.spawnSync('dotnet', ['--version'], { encoding: 'utf8', env: { ...process.env, DOTNET_NOLOGO: '1' } }).status === 0;
  return dotnetFound ? undefined : 'dotnet not found: no restored C# workspace and no csharp-ls (install the .NET SDK, then npm install)';
}

/** Why the C# semantic tests cannot run here, or undefined when dotnet and csharp-ls are found. */
export function csharpLsMissing(): string | undefined {
  const spec = csharpLsSpec();
  return dotnetMissing() ?? (findExecutable(spec.command, process.env, spec.searchDirs) ? undefined : `csharp-ls not found in ${searchedPlaces(spec)} (run npm install)`);
}

/** Call first in a test or `before` hook (a `function`, not an arrow) that needs csharp-ls. */
export function skipWithoutCsharpLs(ctx: Mocha.Context): void {
  skipFor(ctx, csharpLsMissing());
}

/** Same, for tests that need only `dotnet` (a restored C# workspace). */
export function skipWithoutDotnet(ctx: Mocha.Context): void {
  skipFor(ctx, dotnetMissing());
}

function skipFor(ctx: Mocha.Context, reason: string | undefined): void {
  if (!reason) return;
  if (process.env.SEXTANT_REQUIRE_CSHARP_LS === '1') throw new Error(`SEXTANT_REQUIRE_CSHARP_LS=1 but ${reason}`);
  console.log(`      skipped (C#): ${reason}`);
  ctx.skip();
}
