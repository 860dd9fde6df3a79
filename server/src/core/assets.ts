/**
 * Locates bundled binary assets (sql.js and tree-sitter WASM files). The build copies them to
 * dist/wasm/; when running from source (tests under tsx) they are resolved from node_modules.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const cache = new Map<string, string>();

/** `name` is a file name such as 'sql-wasm.wasm'; `fromPackage` the module path to resolve as fallback. */
export function assetPath(name: string, fromPackage?: string): string {
  const hit = cache.get(name);
  if (hit) return hit;
  const candidates = [
    path.join(__dirname, 'wasm', name),
    path.join(__dirname, '..', 'wasm', name),
    path.resolve(__dirname, '../../../dist/wasm', name),
  ];
  for (const c of candidates) {
    if (fs.existsSync(c)) {
      cache.set(name, c);
      return c;
    }
  }
  if (fromPackage) {
    const resolved = require.resolve(fromPackage);
    cache.set(name, resolved);
    return resolved;
  }
  throw new Error(`asset ${name} not found (run npm run build)`);
}

/** The repository root of the installed package (where package.json and language-configs/ live). */
export function packageRoot(): string {
  let dir = __dirname;
  for (let i = 0; i < 6; i++) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'language-configs'))) return dir;
    dir = path.dirname(dir);
  }
  return path.resolve(__dirname, '../../..');
}
